package sched_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

func TestClassText(t *testing.T) {
	for c := sched.Normal; c <= sched.RR; c++ {
		b, err := c.MarshalText()
		if err != nil {
			t.Fatalf("%d.MarshalText() error %v", c, err)
		}
		var back sched.Class
		if err := back.UnmarshalText(b); err != nil || back != c {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", b, back, err, c)
		}
		if c.String() != string(b) {
			t.Errorf("String() = %q, MarshalText = %q", c.String(), b)
		}
	}
	if c, err := sched.ParseClass("other"); err != nil || c != sched.Normal {
		t.Errorf(`ParseClass("other") = %v, %v; want normal`, c, err)
	}
	if _, err := sched.ParseClass("deadline"); err == nil || !strings.Contains(err.Error(), `"deadline"`) {
		t.Errorf(`ParseClass("deadline") error = %v, want one naming the input`, err)
	}
	if _, err := sched.Class(9).MarshalText(); err == nil {
		t.Errorf("Class(9).MarshalText() succeeded")
	}
	if got := sched.Class(9).String(); got != "class(9)" {
		t.Errorf("Class(9).String() = %q", got)
	}
	if !sched.FIFO.RealTime() || !sched.RR.RealTime() || sched.Idle.RealTime() {
		t.Errorf("RealTime wrong")
	}
}

func TestAttrValidate(t *testing.T) {
	cases := []struct {
		name string
		a    sched.Attr
		want string // substring of the error; "" for valid
	}{
		{"zero is valid", sched.Attr{}, ""},
		{"nice -20", sched.Attr{Nice: -20}, ""},
		{"nice 20 (FreeBSD)", sched.Attr{Nice: 20}, ""},
		{"nice 21", sched.Attr{Nice: 21}, "nice 21"},
		{"nice -21", sched.Attr{Nice: -21}, "nice -21"},
		{"fifo 99", sched.Attr{Class: sched.FIFO, RTPrio: 99}, ""},
		{"fifo 0", sched.Attr{Class: sched.FIFO, RTPrio: 0}, "fifo priority 0"},
		{"rr 100", sched.Attr{Class: sched.RR, RTPrio: 100}, "rr priority 100"},
		{"normal ignores rtprio", sched.Attr{RTPrio: 500}, ""},
		{"freebsd rtprio 0", sched.Attr{Class: sched.FIFO, RTScale: sched.RTFreeBSD}, ""},
		{"freebsd rtprio 31", sched.Attr{Class: sched.RR, RTPrio: 31, RTScale: sched.RTFreeBSD}, ""},
		{"freebsd rtprio 32", sched.Attr{Class: sched.RR, RTPrio: 32, RTScale: sched.RTFreeBSD}, "rr priority 32 outside 0..31 (freebsd scale)"},
		{"freebsd rtprio -1", sched.Attr{Class: sched.FIFO, RTPrio: -1, RTScale: sched.RTFreeBSD}, "fifo priority -1"},
		{"bad scale", sched.Attr{RTScale: 7}, "invalid real-time scale 7"},
		{"bad class", sched.Attr{Class: 7}, "invalid class 7"},
		{"negative slice", sched.Attr{Slice: -1}, "negative slice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.a.Validate()
			if tc.want == "" {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestAllowed(t *testing.T) {
	anyCPU := sched.Attr{}
	pinned := sched.Attr{Affinity: topology.CPUSetOf(2)}
	for cpu := range topology.CPU(4) {
		if !anyCPU.Allowed(cpu) {
			t.Errorf("empty affinity does not allow %v", cpu)
		}
		if got := pinned.Allowed(cpu); got != (cpu == 2) {
			t.Errorf("affinity {2}: Allowed(%v) = %t", cpu, got)
		}
	}
}

func TestGroupValidate(t *testing.T) {
	cases := []struct {
		g    sched.Group
		want string
	}{
		{sched.Group{ID: 1, Weight: 100}, ""},
		{sched.Group{ID: 2, Parent: 1, Weight: 1, Idle: true}, ""},
		{sched.Group{ID: 0, Weight: 100}, "root group"},
		{sched.Group{ID: 3, Weight: 0}, "weight 0"},
		{sched.Group{ID: 3, Weight: 10001}, "weight 10001"},
		{sched.Group{ID: -1, Weight: 100}, "negative group id"},
	}
	for _, tc := range cases {
		err := tc.g.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v.Validate() = %v, want %q", tc.g, err, tc.want)
		}
	}
}

func TestConfig(t *testing.T) {
	topo := topology.Uniform(1, 1, 1, 2, 1)
	if err := (sched.Config{Topology: topo, Hz: 1000, StatHz: 127}).Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
	// hz 100 with stathz 127 is FreeBSD's one-shot timer setting (cpu_initclocks_bsp).
	for _, c := range []sched.Config{{Topology: topo, Hz: 100, StatHz: 127}, {Topology: topo, Hz: sched.MaxHz, StatHz: sched.MaxHz}} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v, want nil", c, err)
		}
	}
	for _, c := range []sched.Config{{Hz: 1000}, {Topology: topo}, {Topology: topo, Hz: 100, StatHz: -1},
		{Topology: topo, Hz: sched.MaxHz + 1}, {Topology: topo, Hz: 1000, StatHz: sched.MaxHz + 1}} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v.Validate() = nil, want an error", c)
		}
	}
	if got := (sched.Config{Hz: 1000}).RealStatHz(); got != 1000 {
		t.Errorf("RealStatHz without stathz = %d, want hz", got)
	}
	if got := (sched.Config{Hz: 1000, StatHz: 127}).RealStatHz(); got != 127 {
		t.Errorf("RealStatHz = %d, want 127", got)
	}
}

func TestStrings(t *testing.T) {
	if got := sched.ID(7).String(); got != "t7" {
		t.Errorf("ID(7) = %q", got)
	}
	want := map[sched.StopReason]string{sched.Sleep: "sleep", sched.Preempt: "preempt", sched.Yield: "yield", sched.Exit: "exit", 9: "stop(9)"}
	for r, s := range want {
		if r.String() != s {
			t.Errorf("StopReason(%d) = %q, want %q", r, r.String(), s)
		}
	}
	if !sched.Preempt.Runnable() || !sched.Yield.Runnable() || sched.Sleep.Runnable() || sched.Exit.Runnable() {
		t.Errorf("Runnable wrong")
	}
}

func TestRTScale(t *testing.T) {
	for _, tc := range []struct {
		s      sched.RTScale
		name   string
		lo, hi int
	}{
		{sched.RTLinux, "linux", 1, 99},
		{sched.RTFreeBSD, "freebsd", 0, 31},
		{9, "RTScale(9)", 1, 99},
	} {
		lo, hi := tc.s.Range()
		if tc.s.String() != tc.name || lo != tc.lo || hi != tc.hi {
			t.Errorf("RTScale(%d) = %q, %d..%d; want %q, %d..%d", tc.s, tc.s.String(), lo, hi, tc.name, tc.lo, tc.hi)
		}
	}
}

// Ticks agrees with ⌊now·hz/10⁹⌋ computed in 128 bits, up to the largest time, at every rate up
// to MaxHz; the naive int64 product overflows after about 106 days at hz 1000.
func TestTicks(t *testing.T) {
	nows := []int64{0, 1, 999_999_999, 1_000_000_000, 1_000_000_001, 106 * 24 * 3600 * 1e9, 107 * 24 * 3600 * 1e9,
		math.MaxInt64 / 1000, math.MaxInt64 - 1, math.MaxInt64}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		nows = append(nows, rng.Int64())
	}
	for _, hz := range []int{1, 2, 100, 127, 128, 250, 1000, 1024, 99_999, sched.MaxHz} {
		for _, now := range nows {
			var want, q big.Int
			q.Mul(big.NewInt(now), big.NewInt(int64(hz)))
			want.Quo(&q, big.NewInt(1e9))
			if got := sched.Ticks(now, hz); !want.IsInt64() || got != want.Int64() {
				t.Fatalf("Ticks(%d, %d) = %d, want %v", now, hz, got, &want)
			}
		}
	}
	now, hz := int64(107*24*3600*1e9), int64(1000)
	if naive := now * hz / 1e9; naive == sched.Ticks(now, int(hz)) {
		t.Errorf("the naive product did not overflow at 107 days: the test of the test is wrong")
	}
}
