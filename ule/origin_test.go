package ule

import (
	"math"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// TestTickOrigin checks the Scheduler's ticks against a machine up UptimeSeconds: FreeBSD's
// ticks is an int zeroed at boot and counted by hardclock (kern_clock.c, rodrigc/bz-vimage
// @0db9990a for 2011, fel1x-developer/freebsd-src @2d614aa2 for main; the zeroed ticksl of
// subr_ticks.S, freebsd/freebsd-src @159d29d3, since 2025), so a machine up 600 s reads 600*hz,
// below the int wrap at every hz a machine may ask for.
func TestTickOrigin(t *testing.T) {
	for _, c := range []struct {
		hz        int
		at0, at15 uint32 // ticks at 0 and at 1.5 s
	}{
		{100, 60_000, 60_150},
		{1000, 600_000, 601_500},
		{1024, 614_400, 615_936},
		{sched.MaxHz, 600_000_000, 601_500_000},
	} {
		m := newTestMachineHz(t, DefaultParams(), topology.Uniform(1, 1, 1, 2, 1), c.hz)
		if got, got15 := m.s.Ticks(0), m.s.Ticks(1_500_000_000); got != c.at0 || got15 != c.at15 {
			t.Errorf("hz %d: Ticks(0), Ticks(1.5 s) = %d, %d, want %d, %d", c.hz, got, got15, c.at0, c.at15)
		}
		if m.s.Ticks(0) > math.MaxInt32 {
			t.Errorf("hz %d: ticks at 0 (%d) past the int wrap", c.hz, m.s.Ticks(0))
		}
	}
}

// newTestMachineHz is newTestMachine with the machine's hz.
func newTestMachineHz(t *testing.T, p Params, top *topology.Topology, hz int) *testMachine {
	t.Helper()
	s := mustNew(t, p)
	if err := s.Start(sched.Config{Topology: top, Hz: hz, StatHz: 127}, &fakeEnv{}); err != nil {
		t.Fatalf("Start hz %d: %v", hz, err)
	}
	return &testMachine{t: t, s: s, top: top}
}

// TestNewThreadAffinity checks SCHED_AFFINITY for a thread that never switched out (ts_rltick
// 0: sched_fork_thread of sched_ule.c 1.290, rodrigc/bz-vimage @191fe557, and of main leaves it
// as the recycled struct thread had it) and for one that switched out a tick ago, in each
// version's arithmetic (int in 2011 and legacy, u_int in main). At the old origin (ticks 1 at
// time 0, the kernel's own value just after boot) the new thread was affine at every level; on
// a machine up UptimeSeconds it is not.
func TestNewThreadAffinity(t *testing.T) {
	for _, p := range []Params{DefaultParams(), LegacyParams(), FreeBSD9Params()} {
		m := newTestMachineHz(t, p, topology.Uniform(1, 1, 1, 2, 1), 1000)
		now := m.s.Ticks(0)
		for _, c := range []struct {
			name   string
			rltick uint32
			ticks  uint32
			want   bool
		}{
			{"new thread at time 0", 0, now, false},
			{"new thread 2 s in", 0, m.s.Ticks(2e9), false},
			{"switched out a tick ago", now - 1, now, true},
			{"switched out at level*affinity ticks ago", now - 2, now, false},
			{"new thread at the old origin (ticks 1)", 0, 1, true},
		} {
			th := &Thread{RLTick: c.rltick}
			for level := int(topology.ShareL2); level <= int(topology.ShareL3); level++ {
				want := c.want
				if c.rltick == now-2 && level == int(topology.ShareL3) {
					want = true // 2 ticks ago is within 3*affinity
				}
				if got := affine(&m.s.params, th, c.ticks, level); got != want {
					t.Errorf("%s: %s, level %d: affine = %v, want %v", p.Name, c.name, level, got, want)
				}
			}
		}
	}
}
