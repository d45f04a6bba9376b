package cfs

import "testing"

// Expected slices follow __sched_period and sched_slice of kernel/sched/fair.c, v6.5 (blob
// b3e25be58e2b), with the wmult __calc_delta and the sum's computed inverse, worked out step by
// step independently of this package.

func TestPeriod(t *testing.T) {
	def := DefaultParams()
	// A min_granularity of 4 ms under a 6 ms latency: sched_nr_latency is DIV_ROUND_UP(6, 4) =
	// 2 (sched_update_scaling), and at exactly two entities __sched_period still returns the
	// latency (nr_running > sched_nr_latency is false), not 2 * 4 ms. With the defaults the two
	// agree at nr_latency (8 * 0.75 ms = 6 ms), so only such a setting tells them apart.
	coarse := def
	coarse.MinGranularity, coarse.NrLatency = 4_000_000, 2
	tests := []struct {
		name     string
		p        Params
		nr, want uint64
	}{
		{"empty", def, 0, 6_000_000}, {"one", def, 1, 6_000_000}, {"at nr_latency", def, 8, 6_000_000},
		{"past nr_latency", def, 9, 6_750_000}, {"hundred", def, 100, 75_000_000},
		{"coarse: at nr_latency keeps the latency", coarse, 2, 6_000_000},
		{"coarse: past nr_latency", coarse, 3, 12_000_000},
	}
	for _, tc := range tests {
		if got := Period(tc.nr, &tc.p); got != tc.want {
			t.Errorf("%s: Period(%d) = %d, want %d", tc.name, tc.nr, got, tc.want)
		}
	}
}

// queueOf forks the given tasks at time 0 on a fresh CPU with parameters p and schedules once;
// it returns the CPU.
func queueOf(p Params, tasks ...*Entity) *RunQueue {
	c := NewRunQueue(0, p)
	for _, tk := range tasks {
		c.Fork(nil, tk, 0)
	}
	c.Schedule(0)
	return c
}

func TestSlice(t *testing.T) {
	p1, p8 := DefaultParams(), preset(V65, 8)
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
		c    *RunQueue
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
		if got := Slice(tc.c.Root(), tc.se, &tc.p); got != tc.want {
			t.Errorf("%s: Slice(%v) = %d, want %d", tc.name, tc.se, got, tc.want)
		}
	}
	// A task about to join (not queued) counts itself in the period and its weight in the load:
	// nice 5 forking next to a nice-0 task gets 6 ms * 335/1359 and, in vruntime, 4520969.
	c := queueOf(p1, NewTask("x", Normal, 0))
	j := NewTask("j", Normal, 5)
	c.attach(j)
	if got := Slice(c.Root(), j, &p1); got != 1479028 {
		t.Errorf("Slice(joining nice 5) = %d, want 1479028", got)
	}
	if got := vslice(c.Root(), j, &p1); got != 4520969 {
		t.Errorf("vslice(joining nice 5) = %d, want 4520969", got)
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
	if got := Slice(b.Queue(), b, &p); got != 2999997 {
		t.Errorf("Slice(grouped task) = %d, want 2999997", got)
	}
	// A second task in g: 3 tasks, so 6 ms * 1/2 * 1/2.
	b2 := NewTask("b2", Normal, 0)
	b2.SetGroup(g)
	c.Wakeup(b2, 0)
	if got := Slice(b.Queue(), b, &p); got != 1499998 {
		t.Errorf("Slice(task in a two-task group) = %d, want 1499998", got)
	}
	// Without ALT_PERIOD the period counts the entities of the task's own queue only.
	q := p
	q.AltPeriod = false
	if got, want := Slice(b.Queue(), b, &q), CalcDelta(DeltaWMult, CalcDelta(DeltaWMult, 6_000_000, NiceZeroLoad,
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
		if got := wakeupGran(tc.se, &p); got != tc.want {
			t.Errorf("wakeupGran(%v) = %d, want %d", tc.se, got, tc.want)
		}
	}
}

// TestSliceAltPeriodBeyondNrLatency separates the two periods sched_slice can use (fair.c v6.5
// blob b3e25be58e2b): with ALT_PERIOD the count is the CPU's h_nr_running, every fair task,
// without it the entities of se's own queue. They give different periods only past
// sched_nr_latency (8), where __sched_period stretches to nr · min_granularity. A nice-0 task
// runs at the root next to group g holding a nice -20 task and eight nice-19 ones: 10 tasks
// (7.5 ms) against g's 9 entities (6.75 ms). The nice -20 task's slice is the period scaled by
// 88761/(88761 + 8·15) in g and by 1024/2048 at the root (g's share is all of its 1024 on this
// single CPU), well above the 0.75 ms floor.
func TestSliceAltPeriodBeyondNrLatency(t *testing.T) {
	g := NewGroup("g", nil, 1)
	a, big := NewTask("a", Normal, 0), NewTask("big", Normal, -20)
	big.SetGroup(g)
	tasks := []*Entity{a, big}
	for range 8 {
		s := NewTask("s", Normal, 19)
		s.SetGroup(g)
		tasks = append(tasks, s)
	}
	c := queueOf(DefaultParams(), tasks...)
	gLoad, rootLoad := LoadWeight{Weight: (88761 + 8*15) << 10}, LoadWeight{Weight: 2 << 20}
	if big.Queue().Load() != gLoad || c.Root().Load() != rootLoad {
		t.Fatalf("setup: g's load %v, root load %v; want %v, %v", big.Queue().Load(), c.Root().Load(), gLoad, rootLoad)
	}
	want := func(period uint64) uint64 {
		return CalcDelta(DeltaWMult, CalcDelta(DeltaWMult, period, 88761<<10, gLoad), NiceZeroLoad, rootLoad)
	}
	alt, own := DefaultParams(), DefaultParams()
	own.AltPeriod = false
	for _, tc := range []struct {
		name string
		p    Params
		want uint64
	}{
		{"ALT_PERIOD: 10 tasks on the CPU", alt, want(7_500_000)},
		{"no ALT_PERIOD: 9 entities in g", own, want(6_750_000)},
	} {
		if got := Slice(big.Queue(), big, &tc.p); got != tc.want {
			t.Errorf("%s: Slice(big) = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestSliceFloorMinGranularity checks BASE_SLICE's floor in sched_slice (fair.c v6.5 blob
// b3e25be58e2b): idle_min_granularity (0.75 ms, not scaled with the CPU count) only for an idle
// entity in a queue that is not all idle, min_granularity (0.75 ms × 4 = 3 ms on 8 CPUs)
// otherwise. With 8 CPUs ten tasks stretch the period to 30 ms and get just under 3 ms each
// (the computed inverse truncates), so the floor decides.
func TestSliceFloorMinGranularity(t *testing.T) {
	p := preset(V65, 8)
	var normal, idle []*Entity
	for range 10 {
		normal = append(normal, NewTask("n", Normal, 0))
		idle = append(idle, NewTask("i", Idle, 0))
	}
	mixedIdle, mixedNormal := NewTask("i", Idle, 0), NewTask("n", Normal, 0)
	cN, cI, cM := queueOf(p, normal...), queueOf(p, idle...), queueOf(p, mixedIdle, mixedNormal)
	for _, tc := range []struct {
		name string
		c    *RunQueue
		se   *Entity
		want uint64
	}{
		{"ten normal tasks: min_granularity", cN, normal[4], 3_000_000},
		{"ten SCHED_IDLE tasks, an all-idle queue: min_granularity", cI, idle[4], 3_000_000},
		{"SCHED_IDLE next to a normal task: idle_min_granularity", cM, mixedIdle, 750_000},
	} {
		if got := Slice(tc.c.Root(), tc.se, &p); got != tc.want {
			t.Errorf("%s: Slice(%v) = %d, want %d", tc.name, tc.se, got, tc.want)
		}
	}
}
