package trace

import (
	"testing"

	"github.com/schedkit/schedkit/sched"
)

// The prio a task reports, from include/linux/sched/prio.h (MAX_RT_PRIO 100, DEFAULT_PRIO 120,
// NICE_TO_PRIO(nice) = nice + DEFAULT_PRIO) and kernel/sched/core.c's __normal_prio
// (MAX_RT_PRIO-1 - sched_priority for the real-time policies).
func TestKernelPrio(t *testing.T) {
	cases := []struct {
		a    sched.Attr
		want int
	}{
		{sched.Attr{}, 120},
		{sched.Attr{Nice: -20}, 100},
		{sched.Attr{Nice: 19}, 139},
		{sched.Attr{Class: sched.Batch, Nice: 3}, 123},
		{sched.Attr{Class: sched.Idle}, 120},
		{sched.Attr{Class: sched.FIFO, RTPrio: 1}, 98},
		{sched.Attr{Class: sched.RR, RTPrio: 99}, 0},
		{sched.Attr{Class: sched.FIFO, RTPrio: 5, RTScale: sched.RTFreeBSD}, 5},
	}
	for _, tc := range cases {
		if got := KernelPrio(tc.a); got != tc.want {
			t.Errorf("KernelPrio(%+v) = %d, want %d", tc.a, got, tc.want)
		}
	}
}

func TestAttrFromPrio(t *testing.T) {
	for prio := -5; prio <= 145; prio++ {
		a, ok := attrFromPrio(prio)
		wantOK := prio >= 0 && prio <= 98 || prio >= 100 && prio <= 140
		if ok != wantOK {
			t.Fatalf("attrFromPrio(%d) ok = %t, want %t", prio, ok, wantOK)
		}
		if ok && KernelPrio(a) != prio {
			t.Errorf("KernelPrio(attrFromPrio(%d)) = %d", prio, KernelPrio(a))
		}
	}
}
