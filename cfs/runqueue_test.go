package cfs

import "testing"

// task_fork_fair, set_user_nice with prio_changed_fair, yield_task_fair, dequeue_task_fair's
// next buddy, and the need-resched flow of kernel/sched/fair.c and core.c, v6.5.

func TestFork(t *testing.T) {
	p := DefaultParams()
	c := NewRunQueue(0, p)
	parent := NewTask("parent", Normal, 0)
	c.Fork(nil, parent, 0)
	// Alone: START_DEBIT puts it one vslice (6 ms with the computed inverse: 5999998) after the
	// initial min_vruntime.
	mv0 := InitialMinVruntime
	if got, want := parent.Vruntime, mv0+5999998; got != want { // wraps past 0
		t.Errorf("first task's vruntime = %d, want min_vruntime + 5999998 = %d", got, want)
	}
	if c.Schedule(0) != parent {
		t.Fatalf("Schedule() did not pick the only task")
	}
	c.Tick(1_000_000)
	child := NewTask("child", Normal, 0)
	d, why := c.Fork(parent, child, 1_000_000)
	// The parent ran 1 ms, so min_vruntime = its vruntime; the child starts one vslice (two
	// nice-0 tasks: 2999998) later and does not preempt it.
	mv := c.Root().MinVruntime()
	if mv != parent.Vruntime {
		t.Fatalf("min_vruntime %d, parent vruntime %d: want equal", mv, parent.Vruntime)
	}
	if child.Vruntime != mv+2999998 {
		t.Errorf("child vruntime = min_vruntime%+d, want +2999998", int64(child.Vruntime-mv))
	}
	if d.Preempt || why != wakeupLeadTooSmall {
		t.Errorf("Fork decision = %v, want no preemption (the child is behind)", d.Explain(why))
	}
	if c.nrRunning() != 2 || child.group != parent.group {
		t.Errorf("after Fork: NrRunning %d; want 2", c.nrRunning())
	}
	checkCPU(t, c, nil)

	// child_runs_first swaps the vruntimes and reschedules.
	q := p
	q.ChildRunsFirst = true
	c = NewRunQueue(0, q)
	parent, child = NewTask("parent", Normal, 0), NewTask("child", Normal, 0)
	c.Fork(nil, parent, 0)
	c.Schedule(0)
	c.Tick(1_000_000)
	pv := parent.Vruntime
	c.Fork(parent, child, 1_000_000)
	if child.Vruntime != pv || !c.NeedResched() || c.Schedule(1_000_000) != child {
		t.Errorf("child_runs_first: child vruntime %d (parent had %d), resched %t; want the child to run first", child.Vruntime, pv, c.NeedResched())
	}
	checkCPU(t, c, nil)
}

func TestSleepWakeup(t *testing.T) {
	p := DefaultParams()
	c := NewRunQueue(0, p)
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Schedule(0)
	now := uint64(0)
	for range 20 {
		now += 1_000_000
		c.Tick(now)
		if c.NeedResched() {
			c.Schedule(now)
		}
	}
	// The running task sleeps for a long time; on wakeup it gets half a latency of credit
	// against min_vruntime and, being 3 ms behind the runner, preempts it.
	sleeper := c.Curr()
	c.Sleep(sleeper, now)
	if !c.NeedResched() || sleeper.OnRQ() {
		t.Fatalf("Sleep of the running task: resched %t, on_rq %t; want true, false", c.NeedResched(), sleeper.OnRQ())
	}
	runner := c.Schedule(now)
	if runner == sleeper || runner == nil {
		t.Fatalf("Schedule after Sleep = %v", runner)
	}
	now += 100_000_000
	c.Tick(now)
	d, why := c.Wakeup(sleeper, now)
	mv := c.Root().MinVruntime()
	if sleeper.Vruntime != mv-3_000_000 {
		t.Errorf("woken sleeper's vruntime = min_vruntime%+d, want -3000000", int64(sleeper.Vruntime-mv))
	}
	if !d.Preempt || why != wakeupLead || c.Root().Next() != sleeper {
		t.Errorf("Wakeup = %v, next buddy %v; want preemption on the lead with the sleeper as next buddy", d.Explain(why), c.Root().Next())
	}
	if got := c.Schedule(now); got != sleeper {
		t.Errorf("Schedule after the wakeup = %v, want %v", got, sleeper)
	}
	checkCPU(t, c, nil)
}

// TestSleepSetsNextBuddy checks dequeue_task_fair's bias: a task that sleeps while its group
// keeps other tasks makes the group entity the next buddy of its queue.
func TestSleepSetsNextBuddy(t *testing.T) {
	c := NewRunQueue(0, DefaultParams())
	g := NewGroup("g", nil, 1)
	a, b, x := NewTask("a", Normal, 0), NewTask("b", Normal, 0), NewTask("x", Normal, 0)
	a.SetGroup(g)
	b.SetGroup(g)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Fork(nil, x, 0)
	c.Schedule(0)
	c.Sleep(a, 1000)
	if c.Root().Next() != g.Entity(c) {
		t.Errorf("root next buddy after a grouped task slept = %v, want the group entity", c.Root().Next())
	}
	checkCPU(t, c, nil)
}

func TestSetNice(t *testing.T) {
	p := DefaultParams()
	c := NewRunQueue(0, p)
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	run := c.Schedule(0)
	wait := a
	if run == a {
		wait = b
	}
	if c.SetNice(run, 0, 1000) {
		t.Errorf("SetNice to the same nice level rescheduled")
	}
	// Raising the running task's nice reschedules it; its weight follows the table.
	if !c.SetNice(run, 5, 1000) || run.Load() != TaskLoad(Normal, 5) || run.Nice() != 5 {
		t.Errorf("SetNice(running, 5): resched %t, load %+v; want true, %+v", c.NeedResched(), run.Load(), TaskLoad(Normal, 5))
	}
	checkCPU(t, c, nil)
	c.Schedule(1000)
	// Lowering a waiting task's nice asks whether it preempts now.
	if c.Curr() == wait {
		wait = run
	}
	c.SetNice(wait, -5, 2000)
	if wait.Load().Weight != ScaleLoad(3121) || c.Root().Load().Weight != wait.Load().Weight+c.Curr().Load().Weight {
		t.Errorf("SetNice(waiting, -5): load %d, queue load %d", wait.Load().Weight, c.Root().Load().Weight)
	}
	checkCPU(t, c, nil)
	// A SCHED_IDLE task's weight ignores nice.
	i := NewTask("i", Idle, 0)
	c.Fork(nil, i, 3000)
	c.SetNice(i, -20, 4000)
	if i.Load() != TaskLoad(Idle, 0) {
		t.Errorf("SetNice of a SCHED_IDLE task changed its load to %+v", i.Load())
	}
	checkCPU(t, c, nil)
}

func TestYield(t *testing.T) {
	c := NewRunQueue(0, DefaultParams())
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	c.Fork(nil, a, 0)
	run := c.Schedule(0)
	c.Yield(100)
	if c.Root().Skip() != nil {
		t.Errorf("Yield of a lone task set a skip buddy")
	}
	c.Fork(run, b, 200)
	c.Yield(300)
	if c.Root().Skip() != run {
		t.Errorf("Yield: skip buddy %v, want %v", c.Root().Skip(), run)
	}
	// b starts one vslice (3 ms) after a, more than the 1 ms wakeup granularity, so the yield
	// does not pass the CPU to it.
	if got := c.Schedule(300); got != run {
		t.Errorf("Schedule after Yield = %v, want %v (the other task is too far behind)", got, run)
	}
	checkCPU(t, c, nil)
}

func TestUpdateCurr(t *testing.T) {
	c := NewRunQueue(0, DefaultParams())
	c.UpdateCurr(5) // idle: nothing to charge
	a := NewTask("a", Normal, 5)
	c.Fork(nil, a, 0)
	c.Schedule(1000)
	v := a.Vruntime
	c.UpdateCurr(1_001_000)
	if a.SumExecRuntime != 1_000_000 || a.Vruntime-v != 3056716 || a.ExecStart != 1_001_000 {
		t.Errorf("UpdateCurr after 1 ms at nice 5: sum %d, vruntime %+d, exec_start %d; want 1000000, +3056716, 1001000",
			a.SumExecRuntime, a.Vruntime-v, a.ExecStart)
	}
	c.UpdateCurr(1_000_500) // the clock going backwards charges nothing
	if a.SumExecRuntime != 1_000_000 {
		t.Errorf("UpdateCurr with an earlier clock charged %d ns", a.SumExecRuntime-1_000_000)
	}
	checkCPU(t, c, nil)
}

func TestIdleOnly(t *testing.T) {
	c := NewRunQueue(0, DefaultParams())
	if c.IdleOnly() {
		t.Errorf("IdleOnly() of an empty CPU = true")
	}
	i := NewTask("i", Idle, 0)
	c.Fork(nil, i, 0)
	if !c.IdleOnly() {
		t.Errorf("IdleOnly() with one SCHED_IDLE task = false")
	}
	c.Fork(nil, NewTask("n", Normal, 0), 0)
	if c.IdleOnly() {
		t.Errorf("IdleOnly() with a normal task = true")
	}
}

func TestCPUPanics(t *testing.T) {
	c := NewRunQueue(0, DefaultParams())
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	g := NewGroup("g", nil, 1)
	g.on(c)
	tests := []struct {
		name string
		f    func()
		msg  string
	}{
		{"NewRunQueue(-1)", func() { NewRunQueue(-1, DefaultParams()) }, "cfs: NewRunQueue: id -1"},
		{"NewRunQueue(invalid Params)", func() { p := DefaultParams(); p.Latency = 0; NewRunQueue(0, p) }, "cfs: NewRunQueue: Params.Latency is 0 in v6.5"},
		{"Wakeup of a queued task", func() { c.Wakeup(a, 0) }, "cfs: RunQueue.Wakeup of a queued task"},
		{"Sleep of a sleeping task", func() { c.Sleep(NewTask("z", Normal, 0), 0) }, "cfs: RunQueue.Sleep of a task not queued on this CPU"},
		{"Fork of a queued child", func() { c.Fork(nil, a, 0) }, "cfs: RunQueue.Fork of a queued child"},
		{"Fork from a task that is not running", func() { c.Fork(a, NewTask("z", Normal, 0), 0) }, "cfs: RunQueue.Fork: parent is not the running task"},
		{"SetNice out of range", func() { c.SetNice(a, 20, 0) }, "cfs: RunQueue.SetNice: nice 20 outside [-20, 19]"},
		{"SetNice of a group entity", func() { c.SetNice(g.Entity(c), 0, 0) }, "cfs: RunQueue.SetNice of a group entity"},
		{"SetGroup of a queued task", func() { a.SetGroup(nil) }, "cfs: Entity.SetGroup of a queued task"},
		{"SetGroup of a group entity", func() { g.Entity(c).SetGroup(nil) }, "cfs: Entity.SetGroup of a group entity"},
		{"NewTask bad nice", func() { NewTask("z", Normal, 99) }, "cfs: TaskLoad: nice 99 outside [-20, 19]"},
	}
	for _, tc := range tests {
		assertPanics(t, tc.name, tc.f, tc.msg)
	}
}

// TestScheduleRepickKeepsSlice checks v6.5's pick_next_task_fair with a fair task running (the
// CONFIG_FAIR_GROUP_SCHED path, fair.c v6.5 blob b3e25be58e2b): the running entity is picked
// with update_curr done and in place, as pick_next_entity's curr, so it is picked again while
// its vruntime is before the leftmost's, and a re-pick of the same task does nothing — no
// set_next_entity, so prev_sum_exec_runtime keeps the start of its slice and
// check_preempt_tick asks for a reschedule at every tick once the slice has run out.
func TestScheduleRepickKeepsSlice(t *testing.T) {
	c := NewRunQueue(0, DefaultParams())
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 19)
	c.Fork(nil, a, 0)
	if got := c.Schedule(0); got != a {
		t.Fatalf("Schedule(0) = %v, want a", got)
	}
	c.Fork(a, b, 0) // START_DEBIT: b starts one vslice after a (about 45 ms of vruntime)
	firstResched := uint64(0)
	for now := uint64(1_000_000); now <= 100_000_000; now += 1_000_000 {
		c.Tick(now)
		if !c.NeedResched() {
			if firstResched != 0 {
				t.Fatalf("%d ns: no reschedule, but a's slice ran out at %d ns and was never restarted", now, firstResched)
			}
			continue
		}
		if firstResched == 0 {
			firstResched = now
		}
		got := c.Schedule(now)
		if got == b {
			if before(a.Vruntime, b.Vruntime) {
				t.Fatalf("%d ns: b picked while a's vruntime %d is still before b's %d", now, a.Vruntime, b.Vruntime)
			}
			// a gains 1 ms of vruntime per ms and b starts 45.2 ms ahead: the first tick at
			// which a is no longer before b is 46 ms. Restarting a's slice at every re-pick
			// (the simple path) delayed b to 48 ms.
			if now != 46_000_000 {
				t.Errorf("b first runs at %d ns, want 46000000", now)
			}
			return
		}
		if !before(a.Vruntime, b.Vruntime) {
			t.Fatalf("%d ns: a picked again although its vruntime %d is not before b's %d", now, a.Vruntime, b.Vruntime)
		}
		if a.prevSumExecRuntime != 0 {
			t.Fatalf("%d ns: re-picking a restarted its slice (prev_sum_exec_runtime %d, want 0)", now, a.prevSumExecRuntime)
		}
	}
	t.Fatal("b never ran")
}

// TestScheduleGroupKeepsGroupSlice checks the other half of the same path: when the next task
// is in the running task's group, only the group's own queue switches (put_prev_entity and
// set_next_entity stop where the two hierarchies meet), so the group entity keeps running on
// the root queue without restarting its slice, and check_preempt_tick at the root measures the
// group's time since it was picked, not since the last switch inside it.
func TestScheduleGroupKeepsGroupSlice(t *testing.T) {
	c := NewRunQueue(0, DefaultParams())
	g := NewGroup("g", nil, 1)
	a, b, x := NewTask("a", Normal, 0), NewTask("b", Normal, 0), NewTask("x", Normal, 0)
	a.SetGroup(g)
	b.SetGroup(g)
	for _, e := range []*Entity{x, a, b} {
		c.Fork(nil, e, 0)
	}
	c.Schedule(0)
	ge := a.parent
	if c.Curr().parent != ge {
		t.Fatalf("Schedule(0) = %v, want a task of g", c.Curr())
	}
	switches := 0
	for now := uint64(1_000_000); now <= 30_000_000; now += 1_000_000 {
		prev := c.Curr()
		c.Tick(now)
		if !c.NeedResched() {
			continue
		}
		got := c.Schedule(now)
		if got == x {
			// g was picked at 0 and never set again: its slice is measured from 0.
			if ran := ge.SumExecRuntime - ge.prevSumExecRuntime; ran != now {
				t.Errorf("x first runs at %d ns after g ran %d ns since its slice started, want %d", now, ran, now)
			}
			if switches == 0 {
				t.Error("no switch inside g happened before x ran")
			}
			return
		}
		if got != prev {
			switches++
		}
		if ge.prevSumExecRuntime != 0 {
			t.Fatalf("%d ns: switching inside g restarted g's slice (prev_sum_exec_runtime %d, want 0)",
				now, ge.prevSumExecRuntime)
		}
	}
	t.Fatal("x never ran")
}

// TestForkReusedEntity checks that Fork clears what __sched_fork clears (core.c v6.5 blob
// c52c2eba7c73: exec_start, sum_exec_runtime, prev_sum_exec_runtime, vruntime), so that an
// entity that ran and left is forked exactly like a fresh one.
func TestForkReusedEntity(t *testing.T) {
	for _, v := range []Version{V65, V66, V618, V71} {
		used := NewTask("used", Normal, 0)
		c0 := NewRunQueue(0, preset(v, 1))
		c0.Fork(nil, used, 0)
		c0.Schedule(0)
		c0.Tick(6_000_000)
		c0.Exit(used, 9_000_000)
		c0.Schedule(9_000_000)
		if used.SumExecRuntime == 0 {
			t.Fatalf("%v: the first life of the task did not run", v)
		}

		c1, c2 := NewRunQueue(0, preset(v, 1)), NewRunQueue(0, preset(v, 1))
		fresh := NewTask("fresh", Normal, 0)
		c1.Fork(nil, used, 20_000_000)
		c2.Fork(nil, fresh, 20_000_000)
		if used.ExecStart != 0 || used.SumExecRuntime != 0 || used.prevSumExecRuntime != 0 {
			t.Errorf("%v: forked again: exec_start %d, sum_exec_runtime %d, prev_sum_exec_runtime %d; want 0, 0, 0",
				v, used.ExecStart, used.SumExecRuntime, used.prevSumExecRuntime)
		}
		if used.Vruntime != fresh.Vruntime || used.Deadline != fresh.Deadline {
			t.Errorf("%v: forked again at vruntime %d, deadline %d; a fresh task gets %d, %d",
				v, used.Vruntime, used.Deadline, fresh.Vruntime, fresh.Deadline)
		}
	}
}
