package cfs

import (
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// TestScheduleRefreshesStale checks the two cases in which System.schedule must refresh a CPU's
// statistics after a pick that found a task although nothing was queued or dequeued there since
// its last refresh (unchanged): a sleeper that last ran there woke on another CPU and took its
// utilisation off the CPU's signal (detachUtil), and ticks passed without a tick of the CPU, so
// that its signal decayed. In both the pick's statistics must be those a refresh writes.
func TestScheduleRefreshesStale(t *testing.T) {
	for _, tc := range []struct {
		name string
		wake bool  // the sleeper wakes on cpu0 before cpu1 picks
		pick int64 // the pick's time, in ms
	}{
		{"detached", true, 20},
		{"decayed", false, 23},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const ms = 1_000_000
			s := mustNew(t, vparams(V65))
			if err := s.Start(sched.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Hz: 1000}, &fakeEnv{tb: t}); err != nil {
				t.Fatal(err)
			}
			on1 := sched.Attr{Affinity: topology.CPUSetOf(1)}
			// The sleeper runs on cpu1 for 20 ticks, building up utilisation there, and sleeps.
			s.Fork(0, 0, -1, 1, on1)
			s.Wakeup(0, 0, 1, sched.WakeFork)
			if id, ok := s.Pick(0, 1); !ok || id != 0 {
				t.Fatalf("Pick(cpu1) = %v, %t; want t0", id, ok)
			}
			for k := int64(1); k <= 20; k++ {
				s.Tick(k*ms, 0)
				s.Tick(k*ms, 1)
			}
			s.Stop(20*ms, 1, 0, sched.Sleep)
			if _, ok := s.Pick(20*ms, 1); ok {
				t.Fatal("Pick(cpu1) found a task after the only one slept")
			}
			// A task pinned to cpu1 wakes there; cpu1 is idle and picks it later.
			s.Fork(20*ms, 1, -1, 1, on1)
			s.Wakeup(20*ms, 1, 1, sched.WakeFork)
			if tc.wake {
				s.SetAttr(20*ms, 0, sched.Attr{Affinity: topology.CPUSetOf(0)})
				s.Wakeup(20*ms, 0, 0, 0)
				if tk, _ := s.Thread(0); tk.CPU() != 0 {
					t.Fatalf("the sleeper woke on %v, want cpu0", tk.CPU())
				}
			}
			sys := s.sys
			before := sys.stats[1]
			if id, ok := s.Pick(tc.pick*ms, 1); !ok || id != 1 {
				t.Fatalf("Pick(cpu1) = %v, %t; want t1", id, ok)
			}
			st := sys.stats[1]
			sys.refresh(&sys.rqs[1])
			if sys.stats[1] != st {
				t.Fatalf("statistics after the pick %+v, refreshed %+v", st, sys.stats[1])
			}
			if st.Util == before.Util {
				t.Fatalf("utilisation %d before and after the pick: the case tests nothing", st.Util)
			}
		})
	}
}
