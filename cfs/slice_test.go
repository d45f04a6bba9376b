package cfs

import "testing"

// Expected slices follow __sched_period and sched_slice of kernel/sched/fair.c, v6.5 (blob
// b3e25be58e2b), with the wmult __calc_delta and the sum's computed inverse, worked out step by
// step independently of this package.

func TestPeriod(t *testing.T) {
	p := DefaultParams()
	tests := []struct{ nr, want uint64 }{
		{0, 6_000_000}, {1, 6_000_000}, {8, 6_000_000}, {9, 6_750_000}, {100, 75_000_000},
	}
	for _, tc := range tests {
		if got := Period(tc.nr, p); got != tc.want {
			t.Errorf("Period(%d) = %d, want %d", tc.nr, got, tc.want)
		}
	}
}

// queueOf forks the given tasks at time 0 on a fresh CPU with parameters p and schedules once;
// it returns the CPU.
func queueOf(p Params, tasks ...*Entity) *CPU {
	c := NewCPU(0, p)
	for _, tk := range tasks {
		c.Fork(nil, tk, 0)
	}
	c.Schedule(0)
	return c
}

func TestSlice(t *testing.T) {
	p1, p8 := DefaultParams(), Preset(V65, 8)
	n0, n0b, n1, x := NewTask("n0", Normal, 0), NewTask("n0b", Normal, 0), NewTask("n1", Normal, 1), NewTask("x", Normal, 0)
	i0, m0 := NewTask("idle", Idle, 0), NewTask("m0", Normal, 0)
	e8a, e8b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	f4a, f4b := NewTask("c", Normal, 4), NewTask("d", Normal, 4)
	var ten []*Entity
	for range 10 {
		ten = append(ten, NewTask("t", Normal, 0))
	}
	c2 := queueOf(p1, n0, n0b)
	c01 := queueOf(p1, n1, x)
	cI := queueOf(p1, i0, m0)
	c8 := queueOf(p8, e8a, e8b)
	c4 := queueOf(p8, f4a, f4b)
	c10 := queueOf(p1, ten...)
	tests := []struct {
		name string
		c    *CPU
		se   *Entity
		p    Params
		want uint64
	}{
		{"two nice-0 tasks: 6 ms / 2 with the computed inverse", c2, n0, p1, 2999998},
		{"nice 1 against nice 0", c01, n1, p1, 2668111},
		{"nice 0 against nice 1", c01, x, p1, 3331885},
		{"SCHED_IDLE against nice 0: floored at idle_min_granularity", cI, i0, p1, 750_000},
		{"nice 0 against SCHED_IDLE", cI, m0, p1, 5982471},
		{"8 CPUs: 24 ms / 2", c8, e8a, p8, 11999994},
		{"8 CPUs: two nice-4 tasks", c4, f4a, p8, 11999998},
		{"ten tasks: period stretched to 7.5 ms, floored at min_granularity", c10, ten[3], p1, 750_000},
	}
	for _, tc := range tests {
		if got := Slice(tc.c.Root(), tc.se, tc.p); got != tc.want {
			t.Errorf("%s: Slice(%v) = %d, want %d", tc.name, tc.se, got, tc.want)
		}
	}
	// A task about to join (not queued) counts itself in the period and its weight in the load:
	// nice 5 forking next to a nice-0 task gets 6 ms * 335/1359 and, in vruntime, 4520969.
	c := queueOf(p1, NewTask("x", Normal, 0))
	j := NewTask("j", Normal, 5)
	c.attach(j)
	if got := Slice(c.Root(), j, p1); got != 1479028 {
		t.Errorf("Slice(joining nice 5) = %d, want 1479028", got)
	}
	if got := VSlice(c.Root(), j, p1); got != 4520969 {
		t.Errorf("VSlice(joining nice 5) = %d, want 4520969", got)
	}
}

func TestSliceHierarchy(t *testing.T) {
	p := DefaultParams()
	// One nice-0 task at the root and one in group g: ALT_PERIOD counts 2 tasks; the grouped
	// task gets 6 ms scaled by 1024/1024 in its group (computed inverse), then by 1024/2048.
	g := NewGroup("g", nil, 1)
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	b.SetGroup(g)
	c := queueOf(p, a, b)
	if got := Slice(b.Queue(), b, p); got != 2999997 {
		t.Errorf("Slice(grouped task) = %d, want 2999997", got)
	}
	// A second task in g: 3 tasks, so 6 ms * 1/2 * 1/2.
	b2 := NewTask("b2", Normal, 0)
	b2.SetGroup(g)
	c.Wakeup(b2, 0)
	if got := Slice(b.Queue(), b, p); got != 1499998 {
		t.Errorf("Slice(task in a two-task group) = %d, want 1499998", got)
	}
	// Without ALT_PERIOD the period counts the entities of the task's own queue only.
	q := p
	q.AltPeriod = false
	if got, want := Slice(b.Queue(), b, q), CalcDelta(DeltaWMult, CalcDelta(DeltaWMult, 6_000_000, NiceZeroLoad,
		LoadWeight{Weight: 2 << 20}), NiceZeroLoad, LoadWeight{Weight: 2 << 20}); got != want {
		t.Errorf("Slice(no ALT_PERIOD) = %d, want %d", got, want)
	}
}

func TestWakeupGran(t *testing.T) {
	p := DefaultParams()
	tests := []struct {
		se   *Entity
		want uint64
	}{
		{NewTask("nice0", Normal, 0), 1_000_000},
		{NewTask("nice-20", Normal, -20), 11536},
		{NewTask("nice19", Normal, 19), 68266666},
		{NewTask("idle", Idle, 0), 341333333},
	}
	for _, tc := range tests {
		if got := WakeupGran(tc.se, p); got != tc.want {
			t.Errorf("WakeupGran(%v) = %d, want %d", tc.se, got, tc.want)
		}
	}
}
