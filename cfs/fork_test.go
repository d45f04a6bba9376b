package cfs

import (
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// TestForkPlacedOnParentCPU checks v6.5's placement of a child forked on cpu0 and started on
// cpu1 (kernel/sched/fair.c v6.5 task_fork_fair, kernel/sched/core.c wake_up_new_task).
// task_fork_fair runs on the parent's CPU: the child starts from the parent's vruntime,
// place_entity(cfs_rq, se, 1) raises it to cpu0's min_vruntime plus sched_vslice of cpu0's
// queue (START_DEBIT), and the child keeps vruntime - cpu0's min_vruntime. wake_up_new_task
// moves it with __set_task_cpu (no migrate_task_rq_fair) and enqueue_entity, without
// ENQUEUE_WAKEUP, adds cpu1's min_vruntime. So the child's lead over cpu1's min_vruntime is
// max(parent's lead over cpu0's, cpu0's vslice), whatever cpu1 holds.
//
// The vslices are worked out by hand for two CPUs (latency 6 ms x (1 + ilog2(2)) = 12 ms,
// sched_nr_latency 8, min granularity 1.5 ms): with ALT_PERIOD the period counts cpu0's
// h_nr_running plus the child, all within 8, so 12 ms, scaled by 1024 / (cpu0's load + 1024)
// with __calc_delta: the inverse weight is WMULT_CONST (2^32 - 1) / load, so 12 ms x 1024 x
// 2097151 >> 32 = 5999997 for a load of 2048, x 1048575 for 4096 = 2999997, x 1398101 for 3072
// = 3999999.
func TestForkPlacedOnParentCPU(t *testing.T) {
	cases := []struct {
		name   string
		n      int    // nice-0 tasks on cpu0, one of them running: the parent
		now    int64  // time of the fork
		vslice uint64 // sched_vslice of cpu0's queue for the child
		leads  bool   // the parent's lead over cpu0's min_vruntime exceeds the vslice
	}{
		{"parent alone: half the period", 1, 1_000_000, 5_999_997, false},
		{"parent and two queued: a quarter", 3, 1_000_000, 2_999_997, false},
		// The parent ran 50 ms past a queued task placed 6 ms behind it: its lead wins.
		{"parent far ahead: its lead", 2, 50_000_000, 3_999_999, true},
	}
	for _, tc := range cases {
		s, _, _ := pinnedSystem(t, V65, topology.TwoCPU(), tc.n)
		parent := s.rqs[0].curr
		var cpu1 topology.CPUSet
		cpu1.Add(1)
		child := s.Fork(tc.now, NewTask("child", Normal, 0), cpu1, 0)
		pl, _, _, _ := s.Wakeup(tc.now, child, parent, 0, sched.WakeFork)
		if pl.CPU != 1 {
			t.Fatalf("%s: child started on cpu%d, want cpu1", tc.name, pl.CPU)
		}
		if got := child.E.Vruntime - child.E.q.minVruntime; true {
			lead := parent.E.Vruntime - s.rqs[0].c.Root().MinVruntime()
			want := max(lead, tc.vslice)
			if (lead > tc.vslice) != tc.leads {
				t.Errorf("%s: parent's lead %d against vslice %d, want leads=%v", tc.name, lead, tc.vslice, tc.leads)
			}
			if got != want {
				t.Errorf("%s: child at cpu1's min_vruntime + %d, want + %d (lead %d, vslice %d)", tc.name, got, want, lead, tc.vslice)
			}
		}
		checkSystem(t, s)
	}
}
