package cfs

import (
	"math"
	"testing"
)

// machine drives one CPU the way the kernel's periodic tick does: every tick charges the
// running task and may ask for a reschedule, which happens at once. It checks every invariant
// after every step.
type machine struct {
	t       *testing.T
	c       *RunQueue
	now     uint64
	tick    uint64
	minSeen map[*Queue]uint64
	trace   func(now uint64, d TickDecision, why TickReason, next *Entity)
}

func newMachine(t *testing.T, p Params, hz uint64) *machine {
	return &machine{t: t, c: NewRunQueue(0, p), tick: 1_000_000_000 / hz, minSeen: map[*Queue]uint64{}}
}

// start forks the tasks with no parent at the current time and schedules.
func (m *machine) start(tasks ...*Entity) {
	for _, tk := range tasks {
		m.c.Fork(nil, tk, m.now)
	}
	m.c.Schedule(m.now)
	checkCPU(m.t, m.c, m.minSeen)
}

// run advances n ticks.
func (m *machine) run(n int) {
	for range n {
		m.now += m.tick
		d, why := m.c.Tick(m.now)
		var next *Entity
		if m.c.NeedResched() {
			next = m.c.Schedule(m.now)
		}
		if m.trace != nil {
			m.trace(m.now, d, why, next)
		}
		checkCPU(m.t, m.c, m.minSeen)
	}
}

func share(a, b *Entity) float64 {
	return float64(a.SumExecRuntime) / float64(a.SumExecRuntime+b.SumExecRuntime)
}

func TestScenarioTwoHogs(t *testing.T) {
	// HZ=1000: the ideal slice is 3 ms less 2 ns, so the hogs alternate every 3 ticks; the gap
	// never exceeds one slice and closes every 6 ms.
	m := newMachine(t, DefaultParams(), 1000)
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	m.start(a, b)
	for i := range 500 {
		m.run(1)
		gap := int64(a.SumExecRuntime - b.SumExecRuntime)
		if gap > 3_000_000 || gap < -3_000_000 {
			t.Fatalf("after %d ms: a ran %d ns, b %d ns: gap over one 3 ms slice", i+1, a.SumExecRuntime, b.SumExecRuntime)
		}
		if (i+1)%6 == 0 && gap != 0 {
			t.Fatalf("after %d ms: a ran %d ns, b %d ns, want equal every 6 ms", i+1, a.SumExecRuntime, b.SumExecRuntime)
		}
	}
	// HZ=250: the 4 ms tick is longer than the slice, so they alternate every tick and are
	// always within one tick of each other.
	m = newMachine(t, DefaultParams(), 250)
	a, b = NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	m.start(a, b)
	for i := range 250 {
		m.run(1)
		if gap := int64(a.SumExecRuntime - b.SumExecRuntime); gap > 4_000_000 || gap < -4_000_000 {
			t.Fatalf("after %d ticks: a ran %d ns, b %d ns: gap over one tick", i+1, a.SumExecRuntime, b.SumExecRuntime)
		}
	}
	if got := share(a, b); got != 0.5 {
		t.Errorf("share of a after 1 s at HZ=250 = %.4f, want 0.5", got)
	}
}

func TestScenarioNiceShares(t *testing.T) {
	tests := []struct {
		name  string
		a, b  *Entity
		ticks int
		want  float64 // a's expected share: w_a / (w_a + w_b)
		tol   float64
	}{
		{"nice 0 vs nice 1: 1024:820", NewTask("n0", Normal, 0), NewTask("n1", Normal, 1), 10_000, 1024.0 / 1844, 0.001},
		{"nice 0 vs nice 5: 1024:335", NewTask("n0", Normal, 0), NewTask("n5", Normal, 5), 10_000, 1024.0 / 1359, 0.001},
		{"SCHED_BATCH shares like SCHED_NORMAL", NewTask("n0", Normal, 0), NewTask("b0", Batch, 0), 10_000, 0.5, 0.001},
		{"nice 0 vs SCHED_IDLE: 1024:3", NewTask("n0", Normal, 0), NewTask("idle", Idle, 0), 30_000, 1024.0 / 1027, 0.0002},
	}
	for _, tc := range tests {
		m := newMachine(t, DefaultParams(), 1000)
		m.start(tc.a, tc.b)
		m.run(tc.ticks)
		if got := share(tc.a, tc.b); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("%s: share of %v after %d ms = %.5f, want %.5f ± %.4f", tc.name, tc.a, tc.ticks, got, tc.want, tc.tol)
		}
	}
}

func TestScenarioIdleGroup(t *testing.T) {
	// A normal group and an idle group (cpu.idle = 1), one nice-0 hog in each: the idle
	// group's entity weighs scale_load(3), so it gets about 3/1027 of the CPU, like a
	// SCHED_IDLE task; inside the idle group two tasks keep their relative weights.
	m := newMachine(t, DefaultParams(), 1000)
	gn, gi := NewGroup("normal", nil, 1), NewGroup("idle", nil, 1)
	gi.SetIdle(true)
	a, i0, i5 := NewTask("a", Normal, 0), NewTask("i0", Normal, 0), NewTask("i5", Normal, 5)
	a.SetGroup(gn)
	i0.SetGroup(gi)
	i5.SetGroup(gi)
	m.start(a, i0, i5)
	if !gi.Entity(m.c).IsIdle() || gn.Entity(m.c).IsIdle() {
		t.Fatalf("IsIdle: idle group entity %t, normal group entity %t; want true, false", gi.Entity(m.c).IsIdle(), gn.Entity(m.c).IsIdle())
	}
	if got := int(m.c.Root().idleHNrRunning); got != 2 {
		t.Errorf("root idle_h_nr_running = %d, want 2 (the idle group's tasks)", got)
	}
	m.run(60_000)
	idle := i0.SumExecRuntime + i5.SumExecRuntime
	total := idle + a.SumExecRuntime
	if got, want := float64(idle)/float64(total), 3.0/1027; math.Abs(got-want) > 0.0002 {
		t.Errorf("idle group's share = %.5f, want %.5f ± 0.0002", got, want)
	}
	if got, want := share(i0, i5), 1024.0/1359; math.Abs(got-want) > 0.05 {
		t.Errorf("share of i0 within the idle group = %.3f, want %.3f ± 0.05", got, want)
	}

	// Wakeup preemption compares the entities where the two hierarchies meet: a task of the
	// normal group preempts the idle group at once, never the other way round.
	c := NewRunQueue(0, DefaultParams())
	gn, gi = NewGroup("normal", nil, 1), NewGroup("idle", nil, 1)
	gi.SetIdle(true)
	a, b, i := NewTask("a", Normal, 0), NewTask("b", Normal, 0), NewTask("i", Normal, 0)
	a.SetGroup(gn)
	b.SetGroup(gn)
	i.SetGroup(gi)
	c.Fork(nil, i, 0)
	c.Schedule(0)
	if d, why := c.Wakeup(a, 1_000_000); !d.Preempt || why != wakeupIdleGroupCurr {
		t.Errorf("normal-group wakeup against a running idle group: %v; want preempt, %v", d.Explain(why), wakeupIdleGroupCurr)
	}
	c.Schedule(1_000_000)
	c.Sleep(i, 1_000_000) // i is queued but not running; it sleeps and wakes again
	if d, why := c.Wakeup(i, 2_000_000); d.Preempt || why != wakeupIdleGroupWakee {
		t.Errorf("idle-group wakeup against a running normal group: %v; want no preemption, %v", d.Explain(why), wakeupIdleGroupWakee)
	}
	if d, why := c.Wakeup(b, 2_000_000); d.curr != a || d.wakee != b || why != wakeupLeadTooSmall {
		t.Errorf("wakeup within the normal group: %v; want a vruntime comparison of b with a", d.Explain(why))
	}
	checkCPU(t, c, nil)
}

// TestScenarioSeed004 runs seed 004's situation twice in lockstep, without and with the
// FavorNonIdleTick option: a light normal group (cpu.weight 33) shares a CPU with an idle group.
// Without the option, when the normal group's vruntime runs ahead of the idle group's by more
// than its ideal slice, the tick preempts it for the idle group; with the option it keeps the
// CPU until its slice is used up.
func TestScenarioSeed004(t *testing.T) {
	type run struct {
		m        *machine
		idleRuns []uint64 // times at which the idle group's task was picked
		leadIdle int      // ticks that preempted a non-idle entity for an idle leftmost on its lead
		favored  int      // ticks where the option kept the non-idle entity running
	}
	runs := [2]*run{}
	for k, opt := range []bool{false, true} {
		p := DefaultParams()
		p.FavorNonIdleTick = opt
		m := newMachine(t, p, 1000)
		ga, gi := NewGroup("ga", nil, 1), NewGroup("gi", nil, 1)
		if err := ga.SetCPUWeight(33); err != nil {
			t.Fatal(err)
		}
		gi.SetIdle(true)
		a, i := NewTask("a", Normal, 0), NewTask("i", Normal, 0)
		a.SetGroup(ga)
		i.SetGroup(gi)
		m.start(a, i)
		r := &run{m: m}
		m.trace = func(now uint64, d TickDecision, why TickReason, next *Entity) {
			if d.leftmost != nil && d.leftmost.IsIdle() && !d.Curr.IsIdle() {
				switch why {
				case tickLeadOverSlice:
					r.leadIdle++
				case tickFavorNonIdle:
					r.favored++
				}
			}
			if next == i {
				r.idleRuns = append(r.idleRuns, now)
			}
		}
		runs[k] = r
	}
	for range 20_000 {
		runs[0].m.run(1)
		runs[1].m.run(1)
	}
	def, opt := runs[0], runs[1]
	if def.leadIdle == 0 {
		t.Errorf("without the option no tick preempted the normal group for the idle leftmost on its lead")
	}
	if opt.leadIdle != 0 || opt.favored == 0 {
		t.Errorf("with the option: %d lead preemptions for the idle group, %d favoured ticks; want 0 and some", opt.leadIdle, opt.favored)
	}
	if def.favored != 0 {
		t.Errorf("without the option %d ticks reported the option's reason", def.favored)
	}
	// Both group entities start at vruntime 0 (a fresh group entity keeps 0 against the initial
	// min_vruntime 2^64-2^20 minus the sleeper credit, which is before 0), ga first. ga's weight
	// is scale_load(338), so its vruntime runs 3.03 ms per ms; its ideal slice is 6 ms *
	// 338/341 = 5947214 ns. At 2 ms its lead over gi is 6.06 ms > 5.95 ms: without the option
	// the tick preempts it for the idle group; with the option it runs out its slice at 6 ms.
	if len(def.idleRuns) == 0 || len(opt.idleRuns) == 0 {
		t.Fatalf("the idle group never ran: %d picks without the option, %d with it", len(def.idleRuns), len(opt.idleRuns))
	}
	if def.idleRuns[0] != 2_000_000 || opt.idleRuns[0] != 6_000_000 {
		t.Errorf("first pick of the idle group at %d ns without the option and %d ns with it; want 2 ms and 6 ms", def.idleRuns[0], opt.idleRuns[0])
	}
}
