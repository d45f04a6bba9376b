package top

import (
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/topology"
)

// TestWeightedCPU checks top's weighted_cpu (usr.bin/top/machine.c) on worked cases: 4BSD's
// kern.ccpu is exp(-1/20) in FSCALE 2048 fixed point, 1948; ULE's is 0, so its WCPU is its CPU;
// a process in its first second shows 0.
func TestWeightedCPU(t *testing.T) {
	ccpu := 1948.0 / 2048
	cases := []struct {
		pct    float64
		swtime int64
		ccpu   float64
		want   float64
	}{
		{0.018, 2, ccpu, 0.018 / (1 - math.Pow(ccpu, 2))}, // 0.1889: a young process's CPU scaled up
		{0.5, 100, ccpu, 0.5 / (1 - math.Pow(ccpu, 100))}, // 0.5034: an old one's nearly as is
		{0.25, 3, 0, 0.25}, // ULE
		{0.9, 0, ccpu, 0},  // swtime 0
	}
	for _, c := range cases {
		if got := WeightedCPU(c.pct, c.swtime, c.ccpu); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("WeightedCPU(%v, %d, %v) = %v, want %v", c.pct, c.swtime, c.ccpu, got, c.want)
		}
	}
	if got := WeightedCPU(0.018, 2, ccpu); math.Abs(got-0.18893) > 1e-4 {
		t.Errorf("WeightedCPU(0.018, 2, 1948/2048) = %v, want about 0.18893", got)
	}
}

// run runs text under policy p on cpus CPUs and returns a screen every every until until.
func run(t *testing.T, p sim.Policy, text string, cpus int, every, until time.Duration) []Screen {
	t.Helper()
	w, err := workload.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, cpus, 1), Seed: 1}, p, w)
	if err != nil {
		t.Fatal(err)
	}
	tw, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []Screen
	for at := every; at <= until; at += every {
		if err := m.Run(at); err != nil {
			t.Fatal(err)
		}
		out = append(out, tw.Screen(m.Result()))
	}
	return out
}

// TestProcpsShares checks procps' %CPU on two nice-0 hogs sharing one CPU under CFS and EEVDF:
// every screen's %CPU sums to 100 (the CPU was busy the whole interval) and each hog's is the
// CPU time it got in that interval, about half; PR is 20, NI 0, both are R.
func TestProcpsShares(t *testing.T) {
	for _, v := range []string{"v6.5", "v7.1"} {
		p, err := cfs.Preset(v)
		if err != nil {
			t.Fatal(err)
		}
		s, err := cfs.New(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, sc := range run(t, s, "thread hog count=2\n\trun forever\nend\n", 1, 100*time.Millisecond, time.Second) {
			sum := 0.0
			for _, r := range sc.Rows {
				sum += r.PctCPU
				if r.Pri != 20 || r.Nice != "0" || r.State != "R" || r.CPU != "0" || r.PctCPU < 40 || r.PctCPU > 60 {
					t.Errorf("%s screen %d: %+v", v, i, r)
				}
			}
			if len(sc.Rows) != 2 || math.Abs(sum-100) > 1e-9 || sc.Layout != Procps {
				t.Errorf("%s screen %d at %v: %d rows summing to %v%%, layout %v", v, i, sc.At, len(sc.Rows), sum, sc.Layout)
			}
		}
	}
}

// TestFreeBSDNice checks FreeBSD's columns under 4BSD on a nice 0 and a nice 20 hog sharing one
// CPU: PRI is td_priority less PZERO (4BSD's PZERO is PRI_MIN_KERN+20 = 100), NICE the nice
// value, the running thread's STATE CPU0 and the other's RUN, and after ten seconds the nice 0
// hog holds most of the CPU. Its raw CPU (td_pctcpu, decayed by exp(-1/20) a second) is still
// far below its share, about 1-exp(-10/20) of it; WCPU, weighted_cpu, undoes that and reads
// close to the share.
func TestFreeBSDNice(t *testing.T) {
	s, err := bsd4.New(bsd4.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	screens := run(t, s, "thread a\n\trun forever\nend\nthread b nice=20\n\trun forever\nend\n", 1, time.Second, 10*time.Second)
	sc := screens[len(screens)-1]
	if len(sc.Rows) != 2 || sc.Layout != FreeBSD {
		t.Fatalf("%+v", sc)
	}
	a, b := sc.Rows[0], sc.Rows[1]
	if a.Nice != "0" || b.Nice != "20" || a.PctCPU <= b.PctCPU || a.WCPU < 70 || a.WCPU > 95 || a.PctCPU > 0.5*a.WCPU {
		t.Errorf("nice 0 %+v, nice 20 %+v: want the nice 0 hog ahead", a, b)
	}
	running, queued := 0, 0
	for _, r := range sc.Rows {
		if r.State == "CPU0" {
			running++
		}
		if r.State == "RUN" {
			queued++
		}
		if r.Pri <= 0 || r.Pri > 155 {
			t.Errorf("%+v: PRI out of the user range above PZERO", r)
		}
	}
	if running != 1 || queued != 1 {
		t.Errorf("states %q %q: want one CPU0 and one RUN", a.State, b.State)
	}
}
