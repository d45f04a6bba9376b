package cfs

import (
	"fmt"
	"testing"
)

// The EEVDF state changes of kernel/sched/fair.c v6.6 (blob df348aa55d3c) and v7.1.5 (blob
// abb76775aa72), core.c's wake_up_new_task and sched_setattr, followed step by step on one CPU.
// Vruntimes are given relative to the fresh queue's reference point InitialMinVruntime (iv).

const iv = InitialMinVruntime

// rel returns x - iv as a signed number, for messages.
func rel(x uint64) int64 { return int64(x - iv) }

func TestForkEEVDF(t *testing.T) {
	for _, tc := range []struct {
		v                       Version
		firstDl                 int64 // a's first deadline: a full slice in v6.6 (wake_up_new_task re-places without ENQUEUE_INITIAL), half in v7.1
		renewedDl               int64 // after 1 ms of running: vruntime 1 ms + slice
		childDl                 int64
		forkReason, tick2Reason any
	}{
		{V66, 750_000, 1_750_000, 1_750_000, wakeupNotPicked, tickRequestServed},
		{V71, 350_000, 1_700_000, 1_350_000, wakeupForked, tickRequestServed},
	} {
		c := NewRunQueue(0, preset(tc.v, 1))
		a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
		c.Fork(nil, a, 0)
		if a.Vruntime != iv || rel(a.Deadline) != tc.firstDl || a.VLag != 0 {
			t.Errorf("%v: first task vruntime %+d, deadline %+d; want 0, %+d", tc.v, rel(a.Vruntime), rel(a.Deadline), tc.firstDl)
		}
		if c.Schedule(0) != a {
			t.Fatalf("%v: Schedule() did not pick the only task", tc.v)
		}
		d, why := c.Tick(1_000_000)
		if rel(a.Vruntime) != 1_000_000 || rel(a.Deadline) != tc.renewedDl || why != TickNoCompetitor || d.Resched {
			t.Errorf("%v: after 1 ms alone: vruntime %+d, deadline %+d, tick %v; want +1000000, %+d, no competitor",
				tc.v, rel(a.Vruntime), rel(a.Deadline), d.Explain(why), tc.renewedDl)
		}
		// The child starts at V, the parent's vruntime, with lag 0.
		w, wwhy := c.Fork(a, b, 1_000_000)
		if rel(b.Vruntime) != 1_000_000 || rel(b.Deadline) != tc.childDl || w.Preempt || wwhy != tc.forkReason {
			t.Errorf("%v: child vruntime %+d, deadline %+d, decision %v; want +1000000, %+d, no preemption (%v)",
				tc.v, rel(b.Vruntime), rel(b.Deadline), w.Explain(wwhy), tc.childDl, tc.forkReason)
		}
		checkCPU(t, c, nil)
		// At 2 ms a's request (deadline 1.7/1.75 ms) is served: resched; V = 1.5 ms, so a
		// (at 2 ms) is not eligible and b runs.
		d, why = c.Tick(2_000_000)
		if !d.Resched || why != tc.tick2Reason || !c.NeedResched() {
			t.Errorf("%v: tick at 2 ms = %v, want resched, %v", tc.v, d.Explain(why), tc.tick2Reason)
		}
		if got := c.Schedule(2_000_000); got != b || c.NeedResched() {
			t.Errorf("%v: Schedule at 2 ms = %v, resched %t; want b, false", tc.v, got, c.NeedResched())
		}
		checkCPU(t, c, nil)
	}
}

func TestWakeupEEVDF(t *testing.T) {
	// a (custom slice 3 ms in v7.1) runs alone; b (custom slice 0.2 ms in v7.1) slept at time 0
	// with lag 0 and wakes 0.1 ms later at V, with the same eligibility as a.
	setup := func(p *Params) (*RunQueue, *Entity, *Entity) {
		c := NewRunQueue(0, *p)
		a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
		if p.Version >= V71 {
			a.SetSlice(3_000_000)
			b.SetSlice(200_000)
		}
		c.Fork(nil, a, 0)
		c.Fork(nil, b, 0)
		// v6.6 picks a (equal deadlines, a first); v7.1 picks b (earlier deadline).
		run := c.Schedule(0)
		c.Sleep(b, 0)
		if run == b {
			c.Schedule(0)
		}
		if c.Curr() != a || b.VLag != 0 {
			t.Fatalf("%v: running %v, b's lag %d; want a and 0", p.Version, c.Curr(), b.VLag)
		}
		return c, a, b
	}
	noShort := preset(V71, 1)
	noShort.PreemptShort = false
	noParity := preset(V66, 1)
	noParity.RunToParity = false
	tests := []struct {
		name       string
		p          Params
		preempt    bool
		reason     WakeupReason
		pick       PickReason
		short      bool
		wantVProt  int64 // v7.1: a's protection point afterwards, relative to iv
		tickReason TickReason
		// shorten: the decision asks for update_protect_slice, which only v7.1's
		// wakeup_preempt_fair calls (with RUN_TO_PARITY, when the wakee is not picked); v6.6's
		// check_preempt_wakeup has no protection to shorten, RUN_TO_PARITY or not.
		shorten bool
	}{
		// v6.6: a was picked and has not started a new request: it runs to parity, so the
		// wakee (same deadline distance, eligible) waits.
		{"v6.6 run to parity", preset(V66, 1), false, wakeupNotPicked, pickCurrParity, false, 0, tickRequestServed, false},
		// Without RUN_TO_PARITY the earliest eligible deadline wins: b's is 0.1 + 0.75 ms,
		// a's 0.75 ms, so a keeps the CPU.
		{"v6.6 earliest deadline", noParity, false, wakeupNotPicked, pickCurrDeadline, false, 0, tickRequestServed, false},
		// v7.1 PREEMPT_SHORT: b's slice is shorter, the pick ignores a's protection and b's
		// deadline (0.1 + 0.2 ms) is earlier than a's (1.5 ms): preempt at once.
		{"v7.1 shorter slice preempts", preset(V71, 1), true, wakeupPicked, pickEarliestDeadline, true, 100_000, 0, false},
		// Without PREEMPT_SHORT a's protection (its deadline, 1.5 ms) holds; the wakee only cuts
		// it to a's vruntime + b's slice: 0.1 + 0.2 ms. The tick at 1 ms then ends it.
		{"v7.1 protection shortened", noShort, false, wakeupNotPicked, pickCurrProtected, false, 300_000, tickProtectionOver, true},
	}
	for _, tc := range tests {
		c, a, b := setup(&tc.p)
		d, why := c.Wakeup(b, 100_000)
		if d.Preempt != tc.preempt || why != tc.reason || d.pickReason != tc.pick || d.short != tc.short || c.NeedResched() != tc.preempt {
			t.Errorf("%s: Wakeup = %v (pick %v, short %t), resched %t; want preempt %t, %v, pick %v, short %t",
				tc.name, d.Explain(why), d.pickReason, d.short, c.NeedResched(), tc.preempt, tc.reason, tc.pick, tc.short)
		}
		if d.ShortenProtection != tc.shorten {
			t.Errorf("%s: Wakeup().ShortenProtection = %t, want %t", tc.name, d.ShortenProtection, tc.shorten)
		}
		if tc.p.Version >= V71 && rel(a.VProt) != tc.wantVProt {
			t.Errorf("%s: a's protection point %+d, want %+d", tc.name, rel(a.VProt), tc.wantVProt)
		}
		checkCPU(t, c, nil)
		if tc.preempt {
			if got := c.Schedule(100_000); got != b {
				t.Errorf("%s: Schedule after the preemption = %v, want b", tc.name, got)
			}
			continue
		}
		if td, twhy := c.Tick(1_000_000); twhy != tc.tickReason || !td.Resched {
			t.Errorf("%s: tick at 1 ms = %v, want resched: %v", tc.name, td.Explain(twhy), tc.tickReason)
		}
		// V = (1 ms + 0.1 ms)/2: a is past it, b runs.
		if got := c.Schedule(1_000_000); got != b {
			t.Errorf("%s: Schedule at 1 ms = %v, want b", tc.name, got)
		}
		checkCPU(t, c, nil)
	}
}

func TestWakeupEEVDFRules(t *testing.T) {
	for _, v := range []Version{V66, V618, V71} {
		p := preset(v, 1)
		// A SCHED_BATCH wakee never preempts; a non-idle wakee preempts a SCHED_IDLE task.
		c := NewRunQueue(0, p)
		n, i, bt := NewTask("n", Normal, 0), NewTask("i", Idle, 0), NewTask("batch", Batch, -20)
		c.Fork(nil, i, 0)
		c.Schedule(0)
		if d, why := c.Wakeup(n, 1000); !d.Preempt {
			t.Errorf("%v: normal wakee vs SCHED_IDLE running: %v, want preempt", v, d.Explain(why))
		} else if want := map[Version]WakeupReason{V66: wakeupIdleCurr, V618: wakeupIdleGroupCurr, V71: wakeupIdleGroupCurr}[v]; why != want || d.short != (v >= V618) {
			t.Errorf("%v: normal wakee vs SCHED_IDLE running: %v (short %t), want %v", v, d.Explain(why), d.short, want)
		}
		// v6.6: the reschedule picks with the idle task still in place; it was placed at V,
		// is eligible and has not started a new request, so RUN_TO_PARITY keeps it until its
		// request is served (1 ms of its time is 341 ms of vruntime, past its 256 ms deadline).
		// v7.1 cancelled its protection (PREEMPT_WAKEUP_SHORT).
		got := c.Schedule(1000)
		if v == V66 {
			if got != i {
				t.Errorf("v6.6: Schedule after the wakeup = %v, want i (run to parity)", got)
			}
			if d, why := c.Tick(1_000_000); why != tickRequestServed || !d.Resched {
				t.Errorf("v6.6: tick of the idle task = %v, want resched: request served", d.Explain(why))
			}
			got = c.Schedule(1_000_000)
		}
		if got != n {
			t.Errorf("%v: Schedule after the preemption of the SCHED_IDLE task = %v, want n", v, got)
		}
		now := n.ExecStart + 100_000 // n's request is not yet served
		if d, why := c.Fork(nil, bt, now); d.Preempt || why != wakeupNotNormal {
			t.Errorf("%v: SCHED_BATCH fork: %v, want no preemption, %v", v, d.Explain(why), wakeupNotNormal)
		}
		c.Sleep(bt, now)
		if d, why := c.Wakeup(bt, now+1000); d.Preempt || why != wakeupNotNormal {
			t.Errorf("%v: SCHED_BATCH wakee: %v, want no preemption, %v", v, d.Explain(why), wakeupNotNormal)
		}
		checkCPU(t, c, nil)
		// An idle CPU runs any wakee.
		c = NewRunQueue(0, p)
		if d, why := c.Wakeup(NewTask("x", Normal, 0), 0); !d.Preempt || why != wakeupCPUIdle {
			t.Errorf("%v: wakeup on an idle CPU: %v", v, d.Explain(why))
		}
	}
}

func TestYieldEEVDF(t *testing.T) {
	for _, v := range []Version{V66, V618, V71} {
		c := NewRunQueue(0, preset(v, 1))
		a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
		c.Fork(nil, a, 0)
		c.Fork(nil, b, 0)
		run := c.Schedule(0)
		dl := run.Deadline
		c.Yield(100_000)
		switch v {
		case V66:
			// The deadline moves one virtual slice further; the vruntime only by the run time.
			if run.Deadline != dl+750_000 || rel(run.Vruntime) != 100_000 {
				t.Errorf("v6.6 Yield: deadline %+d (was %+d), vruntime %+d; want +750000 later, +100000", rel(run.Deadline), rel(dl), rel(run.Vruntime))
			}
		case V71:
			// Eligible (V = 50 µs, ... the yielder at 100 µs is not!): nothing changes.
			if run.Deadline != dl || rel(run.Vruntime) != 100_000 {
				t.Errorf("v7.1 Yield of an ineligible task changed it: deadline %+d (was %+d), vruntime %+d", rel(run.Deadline), rel(dl), rel(run.Vruntime))
			}
		}
		checkCPU(t, c, nil)
	}
	// v7.1: an eligible yielder forfeits its request: vruntime = deadline, a new request.
	c := NewRunQueue(0, preset(V71, 1))
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	c.Fork(nil, a, 0)
	c.Schedule(0)
	c.Tick(1_000_000) // a: vruntime 1 ms, deadline renewed to 1.7 ms
	c.Fork(a, b, 1_000_000)
	c.Yield(1_000_000) // V = 1 ms: a is eligible
	if rel(a.Vruntime) != 1_700_000 || rel(a.Deadline) != 2_400_000 {
		t.Errorf("v7.1 Yield: vruntime %+d, deadline %+d; want +1700000, +2400000", rel(a.Vruntime), rel(a.Deadline))
	}
	if got := c.Schedule(1_000_000); got != b {
		t.Errorf("Schedule after the yield = %v, want b", got)
	}
	checkCPU(t, c, nil)
}

func TestReweightEEVDF(t *testing.T) {
	// v6.6: a queued entity keeps its vruntime; its relative deadline 750000 scales by
	// 1048576/343040 (nice 0 -> nice 5): div_s64(786432000000, 343040) = 2292537, updated in
	// place in the tree (checkCPU checks the subtree minima).
	specs := []rigSpec{{nice: 0, dv: 0, dd: 750_000}, {nice: 0, dv: 1000, dd: 750_000}}
	c, ts := rigEEVDF(t, preset(V66, 1), v0, specs, -1)
	q := c.Root()
	q.reweightEntity(ts[1], TaskLoad(Normal, 5), 0, c.Params())
	if ts[1].Vruntime != v0+1000 || ts[1].Deadline-ts[1].Vruntime != 2_292_537 || q.Load().Weight != (1024+335)<<10 {
		t.Errorf("v6.6 reweight: vruntime v0%+d, relative deadline %d, queue load %d; want +1000, 2292537, %d",
			int64(ts[1].Vruntime-v0), ts[1].Deadline-ts[1].Vruntime, q.Load().Weight, (1024+335)<<10)
	}
	checkCPU(t, c, nil)

	// v7.1: V = floor(1000·1048576 / 2097152) = 500, and zero_vruntime moves there. The lag
	// 500 - 1000 = -500 scales to -500·1048576/343040 = -1528.3 -> -1528 (truncation); the
	// relative deadline 750500 to 2294065.3 -> 2294065. The entity goes back at V + 1528.
	c, ts = rigEEVDF(t, preset(V71, 1), v0, specs, -1)
	q = c.Root()
	q.reweightEntity(ts[1], TaskLoad(Normal, 5), 0, c.Params())
	if q.zeroVruntime() != v0+500 || ts[1].VLag != -1528 || ts[1].Vruntime != v0+2028 || ts[1].Deadline != v0+500+2_294_065 {
		t.Errorf("v7.1 reweight: zero_vruntime v0%+d, vlag %d, vruntime v0%+d, deadline v0%+d; want +500, -1528, +2028, +2294565",
			int64(q.zeroVruntime()-v0), ts[1].VLag, int64(ts[1].Vruntime-v0), int64(ts[1].Deadline-v0))
	}
	// The average stays where it was up to the floor: keys -500 and +1528 give
	// S = -524288000 + 524165120 = -122880, floor(S/W) = -1: V = v0 + 499.
	if got := AvgVruntime(q.Sums()); got != v0+499 {
		t.Errorf("v7.1 V after the reweight = v0%+d, want v0+499", int64(got-v0))
	}
	checkCPU(t, c, nil)

	// Off the queue (v6.6 and v7.1) only the saved lag scales: 3000·1048576/343040 = 9170.
	for _, v := range []Version{V66, V618, V71} {
		c := NewRunQueue(0, preset(v, 1))
		x := NewTask("x", Normal, 0)
		c.attach(x)
		x.VLag = 3000
		x.q.reweightEntity(x, TaskLoad(Normal, 5), 0, c.Params())
		if x.VLag != 9170 {
			t.Errorf("%v: reweight off the queue: vlag %d, want 9170", v, x.VLag)
		}
	}
}

func TestSetNiceEEVDF(t *testing.T) {
	for _, v := range []Version{V66, V618, V71} {
		c := NewRunQueue(0, preset(v, 1))
		a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
		c.Fork(nil, a, 0)
		c.Fork(nil, b, 0)
		run := c.Schedule(0)
		wait := a
		if run == a {
			wait = b
		}
		c.Tick(500_000)
		if !c.SetNice(run, 5, 500_000) || run.Load() != TaskLoad(Normal, 5) {
			t.Errorf("%v: SetNice(running, 5): resched %t, load %+v", v, c.NeedResched(), run.Load())
		}
		checkCPU(t, c, nil)
		c.Schedule(500_000)
		c.SetNice(wait, -5, 600_000)
		if wait.Load() != TaskLoad(Normal, -5) || c.Root().Load().Weight != (3121+335)<<10 {
			t.Errorf("%v: SetNice(waiting, -5): load %+v, queue load %d", v, wait.Load(), c.Root().Load().Weight)
		}
		checkCPU(t, c, nil)
	}
}

// TestLagPreserved checks PLACE_LAG's promise: an entity that leaves a queue and comes back at
// once has, after its placement, the lag it left with, up to the rounding of the average.
func TestLagPreserved(t *testing.T) {
	for _, v := range []Version{V66, V618, V71} {
		c := NewRunQueue(0, preset(v, 1))
		ts := []*Entity{NewTask("a", Normal, 0), NewTask("b", Normal, 3), NewTask("c", Normal, -2), NewTask("x", Normal, 1)}
		for _, tk := range ts {
			c.Fork(nil, tk, 0)
		}
		c.Schedule(0)
		now := uint64(0)
		checked := 0
		for step := range 400 {
			now += 1_000_000
			c.Tick(now)
			if c.NeedResched() {
				c.Schedule(now)
			}
			x := ts[step%len(ts)]
			if x == c.Curr() {
				continue
			}
			c.Sleep(x, now)
			lag := x.VLag
			// v6.18's dequeue_entity does not save the lag of an entity it delays: VLag is
			// the one of its previous dequeue.
			if lag == 0 || (v == V618 && x.delayed) || lag == lagLimit(c.Root(), x, c.Params()) || lag == -lagLimit(c.Root(), x, c.Params()) {
				c.Wakeup(x, now)
				continue // v7.1 skips a zero lag; a clamped lag is not the real one
			}
			c.Wakeup(x, now)
			if got := int64(AvgVruntime(x.q.Sums()) - x.Vruntime); got < lag-2 || got > lag+2 {
				t.Errorf("%v step %d: lag %d before the sleep, %d after the wakeup; want within 2", v, step, lag, got)
			}
			checked++
			checkCPU(t, c, nil)
			if c.NeedResched() {
				c.Schedule(now)
			}
		}
		if checked < 80 {
			t.Errorf("%v: only %d sleeps with a non-trivial lag", v, checked)
		}
	}
}

func TestScheduleEEVDFRepick(t *testing.T) {
	// v7.1: re-picking the protected running task touches nothing (no set_next_entity).
	c := NewRunQueue(0, preset(V71, 1))
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	a.SetSlice(5_000_000)
	c.Fork(nil, a, 0)
	c.Schedule(0)
	c.Tick(1_000_000)       // a: vruntime 1 ms, deadline 2.5 ms, protected until then
	c.Fork(a, b, 1_000_000) // b at V = a's vruntime: a stays eligible
	prev, vprot := a.prevSumExecRuntime, a.VProt
	if got := c.Schedule(1_000_000); got != a || a.prevSumExecRuntime != prev || a.VProt != vprot {
		t.Errorf("Schedule with a protected = %v, prev_sum %d (was %d), vprot %+d (was %+d); want a, unchanged",
			got, a.prevSumExecRuntime, prev, rel(a.VProt), rel(vprot))
	}
	checkCPU(t, c, nil)
}

func TestSetSlice(t *testing.T) {
	c := NewRunQueue(0, preset(V71, 1))
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	run := c.Schedule(0)
	if !c.SetSlice(run, 50_000, 100_000) || !run.CustomSlice() || run.Slice != minCustomSlice {
		t.Errorf("SetSlice(running, 50 µs): custom %t, slice %d; want true, %d", run.CustomSlice(), run.Slice, minCustomSlice)
	}
	checkCPU(t, c, nil)
	other := a
	if run == a {
		other = b
	}
	if !c.SetSlice(other, 2_000_000, 200_000) || other.Slice != 2_000_000 || c.Root().MaxSlice() != 2_000_000 || c.Root().MinSlice() != minCustomSlice {
		t.Errorf("SetSlice(queued, 2 ms): slice %d, queue min/max %d/%d", other.Slice, c.Root().MinSlice(), c.Root().MaxSlice())
	}
	c.SetSlice(other, 0, 300_000)
	if other.CustomSlice() || other.Slice != 700_000 {
		t.Errorf("SetSlice(0): custom %t, slice %d; want the default 700000", other.CustomSlice(), other.Slice)
	}
	checkCPU(t, c, nil)
	// Versions without custom slices ignore it.
	c6 := NewRunQueue(0, preset(V66, 1))
	x := NewTask("x", Normal, 0)
	c6.Fork(nil, x, 0)
	if c6.SetSlice(x, 1_000_000, 0) || x.CustomSlice() {
		t.Errorf("v6.6 SetSlice changed the task")
	}
	// A child inherits its parent's custom slice in v7.1.
	child := NewTask("child", Normal, 0)
	c.Fork(c.Curr(), child, 400_000)
	if !child.CustomSlice() || child.Slice != c.Curr().Slice {
		t.Errorf("forked child: custom %t, slice %d; want the parent's %d", child.CustomSlice(), child.Slice, c.Curr().Slice)
	}
	checkCPU(t, c, nil)
}

// TestGroupSliceEEVDF checks v7.1's group slices: a group entity's slice is the shortest slice
// queued below it, kept up to date on enqueue and dequeue.
func TestGroupSliceEEVDF(t *testing.T) {
	c := NewRunQueue(0, preset(V71, 1))
	g := NewGroup("g", nil, 1)
	a, b, x := NewTask("a", Normal, 0), NewTask("b", Normal, 0), NewTask("x", Normal, 0)
	a.SetGroup(g)
	b.SetGroup(g)
	b.SetSlice(300_000)
	c.Fork(nil, x, 0)
	c.Fork(nil, a, 0)
	ge := g.Entity(c)
	if ge.Slice != 700_000 || !ge.CustomSlice() {
		t.Errorf("group entity slice %d (custom %t), want 700000 from a", ge.Slice, ge.CustomSlice())
	}
	c.Fork(nil, b, 0)
	if ge.Slice != 300_000 || c.Root().MinSlice() != 300_000 {
		t.Errorf("group entity slice %d, root min slice %d; want 300000 after b joined", ge.Slice, c.Root().MinSlice())
	}
	checkCPU(t, c, nil)
	c.Sleep(b, 1000)
	if ge.Slice != 700_000 {
		t.Errorf("group entity slice %d after b slept, want 700000", ge.Slice)
	}
	checkCPU(t, c, nil)
}

func TestEEVDFPanics(t *testing.T) {
	c5 := NewRunQueue(0, DefaultParams())
	c7 := NewRunQueue(0, preset(V71, 1))
	a := NewTask("a", Normal, 0)
	c7.Fork(nil, a, 0)
	g := NewGroup("g", nil, 1)
	g.on(c7)
	tests := []struct {
		name string
		f    func()
		msg  string
	}{
		{"AvgVruntime on v6.5", func() { AvgVruntime(c5.Root().Sums()) }, "cfs: AvgVruntime of v6.5 sums: avg_vruntime is EEVDF's (v6.6, v6.18, v7.1)"},
		{"Entity.SetSlice of a queued task", func() { a.SetSlice(1) }, "cfs: Entity.SetSlice of a queued task"},
		{"Entity.SetSlice of a group entity", func() { g.Entity(c7).SetSlice(1) }, "cfs: Entity.SetSlice of a group entity"},
		{"RunQueue.SetSlice of a group entity", func() { c7.SetSlice(g.Entity(c7), 1, 0) }, "cfs: RunQueue.SetSlice of a group entity"},
		{"RunQueue.SetSlice on another CPU", func() { c5.SetSlice(a, 1, 0) }, "cfs: RunQueue.SetSlice of a task queued on another CPU"},
		{"TickNSec(0)", func() { TickNSec(0) }, "cfs: TickNSec: HZ 0"},
		{"EntityLag on v6.5", func() { EntityLag(c5.Root(), NewTask("b", Normal, 0), 0, c5.Params()) }, "cfs: EntityLag on a queue of a classic CFS (v6.5) CPU"},
	}
	for _, tc := range tests {
		assertPanics(t, tc.name, tc.f, tc.msg)
	}
}

// TestDelayDequeue follows v7.1's delayed dequeue (dequeue_entity with DELAY_DEQUEUE,
// pick_next_entity, requeue_delayed_entity, update_entity_lag with DELAY_ZERO).
func TestDelayDequeue(t *testing.T) {
	setup := func() (*RunQueue, *Entity, *Entity) {
		c := NewRunQueue(0, preset(V71, 1))
		a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
		c.Fork(nil, a, 0)
		c.Fork(nil, b, 0)
		if c.Schedule(0) != a {
			t.Fatalf("a not picked first")
		}
		c.Tick(1_000_000) // a's request (0.35 ms) is served: resched
		if c.Schedule(1_000_000) != b {
			t.Fatalf("b not picked at 1 ms")
		}
		// a (vruntime 1 ms) sleeps while V = 0.5 ms: not eligible, so it stays queued.
		c.Sleep(a, 1_000_000)
		if !a.Delayed() || !a.OnRQ() || a.VLag != -500_000 || c.nrRunning() != 2 {
			t.Fatalf("Sleep of an ineligible task: delayed %t, on_rq %t, vlag %d, nr_running %d; want true, true, -500000, 2",
				a.Delayed(), a.OnRQ(), a.VLag, c.nrRunning())
		}
		checkCPU(t, c, nil)
		return c, a, b
	}
	// Picked while delayed: it leaves for real, its lag (now 0: V = 1 ms = its vruntime) kept at
	// most 0, and the pick starts over and finds b.
	c, a, b := setup()
	c.Tick(2_000_000)
	if got := c.Schedule(2_000_000); got != b || a.OnRQ() || a.Delayed() || a.VLag != 0 || c.nrRunning() != 1 {
		t.Errorf("Schedule picking the delayed a: got %v; a on_rq %t, delayed %t, vlag %d; nr_running %d; want b, false, false, 0, 1",
			got, a.OnRQ(), a.Delayed(), a.VLag, c.nrRunning())
	}
	checkCPU(t, c, nil)
	if d, why := c.Wakeup(a, 2_000_000); a.Vruntime != b.Vruntime || why == wakeupCPUIdle {
		t.Errorf("Wakeup after the delayed dequeue: vruntime %+d, b's %+d; want a at V (b's vruntime), decision %v", rel(a.Vruntime), rel(b.Vruntime), d.Explain(why))
	}
	checkCPU(t, c, nil)

	// Woken while delayed: it simply stays where it is (its lag was not clamped).
	c, a, _ = setup()
	v := a.Vruntime
	if d, _ := c.Wakeup(a, 1_100_000); a.Delayed() || !a.OnRQ() || a.Vruntime != v || d.Preempt {
		t.Errorf("Wakeup of the delayed a: delayed %t, on_rq %t, vruntime moved %+d, decision %v; want false, true, 0, no preemption",
			a.Delayed(), a.OnRQ(), int64(a.Vruntime-v), d)
	}
	checkCPU(t, c, nil)

	// DequeueDelayed finishes the dequeue at once (as before a migration or an exit).
	c, a, _ = setup()
	if !c.DequeueDelayed(a, 1_100_000) || a.OnRQ() || c.DequeueDelayed(a, 1_100_000) {
		t.Errorf("DequeueDelayed: a on_rq %t; want it dequeued once", a.OnRQ())
	}
	checkCPU(t, c, nil)

	// An eligible sleeper leaves at once, and DELAY_DEQUEUE off never delays.
	c, _, b = setup()
	c.Sleep(b, 1_100_000) // b, running, at 0.1 ms is behind V = 0.55 ms
	if b.Delayed() || b.OnRQ() {
		t.Errorf("Sleep of an eligible task: delayed %t, on_rq %t; want it gone", b.Delayed(), b.OnRQ())
	}
	checkCPU(t, c, nil)
	p := preset(V71, 1)
	p.DelayDequeue = false
	c = NewRunQueue(0, p)
	a, b = NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Schedule(0)
	c.Tick(1_000_000)
	c.Schedule(1_000_000)
	c.Sleep(a, 1_000_000)
	if a.Delayed() || a.OnRQ() || a.VLag != -500_000 {
		t.Errorf("Sleep without DELAY_DEQUEUE: delayed %t, on_rq %t, vlag %d; want false, false, -500000", a.Delayed(), a.OnRQ(), a.VLag)
	}
	assertPanics(t, "Sleep of a delayed task", func() {
		c, a, _ := setup()
		c.Sleep(a, 1_000_000)
	}, "cfs: RunQueue.Sleep of a task not queued on this CPU")
	assertPanics(t, "Wakeup of a task delayed elsewhere", func() {
		_, a, _ := setup()
		NewRunQueue(1, preset(V71, 1)).Wakeup(a, 0)
	}, "cfs: RunQueue.Wakeup of a task delayed on another CPU")
	assertPanics(t, "Wakeup of nil", func() {
		NewRunQueue(1, preset(V71, 1)).Wakeup(nil, 0)
	}, "cfs: RunQueue.Wakeup of a nil entity")
}

// delayedFixture returns a v7.1 CPU on which task a (vruntime 1 ms) went to sleep while b runs
// and V is 0.5 ms, so a's dequeue was delayed (the setup of TestDelayDequeue), with a and b in
// a new group if grouped (nil otherwise).
func delayedFixture(t *testing.T, grouped bool) (*RunQueue, *Entity, *Entity, *Group) {
	t.Helper()
	var g *Group
	if grouped {
		g = NewGroup("g", nil, 2)
	}
	c := NewRunQueue(0, preset(V71, 1))
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	a.SetGroup(g)
	b.SetGroup(g)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Schedule(0)
	c.Tick(1_000_000)
	if c.Schedule(1_000_000) != b {
		t.Fatalf("b not picked at 1 ms")
	}
	c.Sleep(a, 1_000_000)
	if !a.Delayed() {
		t.Fatalf("a's sleep was not delayed")
	}
	checkCPU(t, c, nil)
	return c, a, b, g
}

// TestHNrRunnable follows h_nr_queued and h_nr_runnable through the life of a delayed task, as
// enqueue_task_fair, dequeue_entities, set_delayed, clear_delayed and requeue_delayed_entity
// keep them in v7.1 (danayer/linux-7.1.5 @ 7d33d86d5512, kernel/sched/fair.c blob
// abb76775aa72): the delayed task stays counted in h_nr_running and leaves h_nr_runnable at every
// level; a migration or attribute change (a dequeue and enqueue without DEQUEUE_SLEEP, so
// task_new with sched_delayed on the way back) keeps it delayed and uncounted; a wakeup or the
// final dequeue settles it.
func TestHNrRunnable(t *testing.T) {
	type counts struct{ rootH, rootR, grpH, grpR int }
	get := func(c *RunQueue, g *Group) counts {
		n := counts{rootH: c.Root().HNrRunning(), rootR: c.Root().HNrRunnable()}
		if g != nil {
			q := &g.on(c).q
			n.grpH, n.grpR = q.HNrRunning(), q.HNrRunnable()
		}
		return n
	}
	for _, grouped := range []bool{false, true} {
		name := fmt.Sprintf("grouped=%t", grouped)
		var g *Group
		want := func(step string, c *RunQueue, w counts) {
			t.Helper()
			if !grouped {
				w.grpH, w.grpR = 0, 0
			}
			if got := get(c, g); got != w {
				t.Errorf("%s: %s: (h_nr_running, h_nr_runnable) root (%d, %d) group (%d, %d), want (%d, %d) and (%d, %d)",
					name, step, got.rootH, got.rootR, got.grpH, got.grpR, w.rootH, w.rootR, w.grpH, w.grpR)
			}
			checkCPU(t, c, nil)
		}
		c, a, _, g0 := delayedFixture(t, grouped)
		g = g0
		want("delayed sleep", c, counts{2, 1, 2, 1})
		c.SetNice(a, 5, 1_100_000)
		if !a.Delayed() {
			t.Errorf("%s: SetNice of a delayed task undelayed it", name)
		}
		want("nice change while delayed", c, counts{2, 1, 2, 1})
		c.SetSlice(a, 2_000_000, 1_100_000)
		want("slice change while delayed", c, counts{2, 1, 2, 1})
		c.migrateOut(a, 1_200_000)
		want("migrated out", c, counts{1, 1, 1, 1})
		c2 := NewRunQueue(1, preset(V71, 2))
		var d WakeupDecision
		why := c2.migrateIn(a, 1_200_000, &d)
		if !a.Delayed() || !a.OnRQ() || why != wakeupCPUIdle {
			t.Errorf("%s: migrateIn of a delayed task: delayed %t, on_rq %t, decision %v; want it queued, delayed, CPU idle", name, a.Delayed(), a.OnRQ(), d.Explain(why))
		}
		want("migrated in", c2, counts{1, 0, 1, 0})
		c2.Schedule(1_200_000) // the pick finds only the delayed task and dequeues it
		if a.OnRQ() || a.Delayed() {
			t.Errorf("%s: pick of a lone delayed task: on_rq %t, delayed %t; want it dequeued", name, a.OnRQ(), a.Delayed())
		}
		want("picked while delayed", c2, counts{0, 0, 0, 0})

		c, a, _, g = delayedFixture(t, grouped)
		c.Wakeup(a, 1_100_000)
		want("woken while delayed", c, counts{2, 2, 2, 2})
		c, a, _, g = delayedFixture(t, grouped)
		c.DequeueDelayed(a, 1_100_000)
		want("dequeue finished", c, counts{1, 1, 1, 1})
	}
}

// TestCPUExit checks that an exit is never delayed (dequeue_task with DEQUEUE_SPECIAL, as
// try_to_block_task passes for TASK_DEAD: v7.1 core.c blob 69c2aa8c6246), that a task whose
// earlier sleep was delayed leaves for good (task_dead_fair), that the onBlock hook hears of
// it, and that v6.5 and v6.6 exits are sleeps.
func TestCPUExit(t *testing.T) {
	// The same ineligible a as in delayedFixture, exiting instead of sleeping.
	c := NewRunQueue(0, preset(V71, 1))
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Schedule(0)
	c.Tick(1_000_000)
	c.Schedule(1_000_000)
	if entityEligible(a.Queue(), a) {
		t.Fatalf("a eligible at 1 ms, want it not eligible")
	}
	c.Exit(a, 1_000_000)
	if a.OnRQ() || a.Delayed() || c.nrRunning() != 1 {
		t.Errorf("Exit of an ineligible waiting task: on_rq %t, delayed %t, nr_running %d; want false, false, 1", a.OnRQ(), a.Delayed(), c.nrRunning())
	}
	checkCPU(t, c, nil)

	var blocked []*Entity
	c, a, _, _ = delayedFixture(t, false)
	c.onBlock = func(e *Entity) { blocked = append(blocked, e) }
	c.Exit(a, 1_100_000)
	if a.OnRQ() || a.Delayed() || len(blocked) != 1 || blocked[0] != a {
		t.Errorf("Exit of a delayed task: on_rq %t, delayed %t, onBlock heard %v; want false, false, [a]", a.OnRQ(), a.Delayed(), blocked)
	}
	checkCPU(t, c, nil)

	for _, v := range []Version{V65, V66} {
		c := NewRunQueue(0, preset(v, 1))
		a := NewTask("a", Normal, 0)
		c.Fork(nil, a, 0)
		c.Schedule(0)
		c.Exit(a, 1_000_000)
		if a.OnRQ() || !c.NeedResched() {
			t.Errorf("%v: Exit of the running task: on_rq %t, need_resched %t; want false, true", v, a.OnRQ(), c.NeedResched())
		}
		if c.Schedule(1_000_000) != nil {
			t.Errorf("%v: the CPU does not idle after the only task exited", v)
		}
		checkCPU(t, c, nil)
	}
	assertPanics(t, "Exit of a task not queued", func() {
		NewRunQueue(0, preset(V71, 1)).Exit(NewTask("x", Normal, 0), 0)
	}, "cfs: RunQueue.Exit of a task not queued on this CPU")
}

// TestWakeupPreemptDelayed checks v7.1 wakeup_preempt_fair for a delayed wakee (fair.c blob
// abb76775aa72): a delayed task moved onto a busy CPU does not preempt ("Do not preempt for
// tasks that are sched_delayed"), while on an idle CPU the machine is asked to run it and the
// pick dequeues it; and that a delayed entity the wakeup pick chooses is dequeued for good
// (pick_next_entity) before the pick is repeated.
func TestWakeupPreemptDelayed(t *testing.T) {
	c, a, _, _ := delayedFixture(t, false)
	c.migrateOut(a, 1_100_000)
	c2 := NewRunQueue(1, preset(V71, 2))
	x := NewTask("x", Normal, 0)
	c2.Fork(nil, x, 1_000_000)
	c2.Schedule(1_000_000)
	var d WakeupDecision
	why := c2.migrateIn(a, 1_100_000, &d)
	if d.Preempt || why != wakeupDelayed || !a.Delayed() {
		t.Errorf("migrateIn of a delayed task onto a busy CPU: %v, delayed %t; want no preemption for the delayed-dequeue rule, still delayed", d.Explain(why), a.Delayed())
	}
	checkCPU(t, c2, nil)

	// A wakee with a shorter slice ignores protection (PREEMPT_SHORT). b asks for 5 ms, a for
	// 1.5 ms: a runs first (deadline 0.75 ms), to 1 ms, where its request is renewed (deadline
	// 2.5 ms) and its sleep is delayed (V = 0.5 ms); b runs, protected until its vruntime
	// reaches 1.5 ms. At 2.2 ms b's vruntime is 1.2 ms and w (1.6 ms) is placed at V, 1.1 ms,
	// with deadline 2.7 ms: a, eligible again, has the earliest deadline, so the pick chooses
	// it, it leaves for good, and the pick is repeated without it.
	c = NewRunQueue(0, preset(V71, 1))
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	a.SetSlice(1_500_000)
	b.SetSlice(5_000_000)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Schedule(0)
	c.Tick(1_000_000)
	if c.Schedule(1_000_000) != b {
		t.Fatalf("b not picked at 1 ms")
	}
	c.Sleep(a, 1_000_000)
	if !a.Delayed() || a.Deadline != a.Vruntime+1_500_000 {
		t.Fatalf("a: delayed %t, deadline %+d past its vruntime; want delayed, 1500000", a.Delayed(), int64(a.Deadline-a.Vruntime))
	}
	w := NewTask("w", Normal, 0)
	w.SetSlice(1_600_000)
	var blocked []*Entity
	c.onBlock = func(e *Entity) { blocked = append(blocked, e) }
	d, why = c.Wakeup(w, 2_200_000)
	if a.OnRQ() || len(blocked) != 1 || blocked[0] != a {
		t.Errorf("wakeup pick choosing the delayed a: a on_rq %t, onBlock heard %v, decision %v; want a dequeued and heard of", a.OnRQ(), blocked, d.Explain(why))
	}
	if d.picked == a || d.picked == nil {
		t.Errorf("decision after the delayed a left: %v; want a pick without a", d)
	}
	checkCPU(t, c, nil)
}

// TestWakeupRepicksAfterDelayedDequeue follows v7.1's wakeup_preempt_fair (fair.c v7.1.5 blob
// abb76775aa72): when the pick chooses a delayed sleeper, pick_next_entity dequeues it for good
// and returns nothing, and the function goes back to the pick (goto pick) while entities are
// queued, without testing anything else again. Here t0 and t2 both went to sleep while
// ineligible and stayed queued, delayed; when t2 wakes, the charge of the running t1 serves its
// request (which sets need-resched itself), the pick chooses t0, which leaves, and the second
// pick chooses t2, which therefore preempts. Testing need-resched again after the dequeue
// (as the model once did) wrongly reported "already marked" instead.
func TestWakeupRepicksAfterDelayedDequeue(t *testing.T) {
	c := NewRunQueue(0, preset(V71, 7))
	t0, t1, t2 := NewTask("t0", Normal, 17), NewTask("t1", Normal, 16), NewTask("t2", Normal, 16)
	t0.SetSlice(900_926)
	c.Fork(nil, t2, 1_712_513)
	c.Schedule(1_712_513)
	c.Fork(t2, t0, 1_810_986)
	if got := c.Schedule(1_810_986); got != t0 {
		t.Fatalf("Schedule after the fork = %v, want t0 (shorter slice, earlier deadline)", got)
	}
	c.Sleep(t0, 2_298_848)
	c.Schedule(2_298_848)
	c.Fork(t2, t1, 2_717_559)
	c.Sleep(t2, 4_143_369)
	if got := c.Schedule(4_143_369); got != t1 || !t0.Delayed() || !t2.Delayed() {
		t.Fatalf("setup: running %v, t0 delayed %t, t2 delayed %t; want t1, true, true", got, t0.Delayed(), t2.Delayed())
	}
	d, why := c.Wakeup(t2, 6_630_160)
	if !d.Preempt || why != wakeupPicked || d.picked != t2 || !c.NeedResched() {
		t.Errorf("Wakeup(t2) = %v (picked %v), want a preemption: the second pick chooses t2", d.Explain(why), d.picked)
	}
	if t0.OnRQ() || t0.Delayed() {
		t.Errorf("t0 queued %t, delayed %t; want it dequeued for good by the first pick", t0.OnRQ(), t0.Delayed())
	}
}

// TestSetSliceSameValue checks that sched_setattr with the task's current slice changes
// nothing: __sched_setscheduler skips the change when the policy is the same and neither nice
// nor sched_runtime differs from the task's (v7.1.5 kernel/sched/syscalls.c).
func TestSetSliceSameValue(t *testing.T) {
	c := NewRunQueue(0, preset(V71, 1))
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 3)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	c.Schedule(0)
	c.Tick(1_000_000)
	w := b
	if c.Curr() == b {
		w = a
	}
	slice, v, dl := w.Slice, w.Vruntime, w.Deadline
	if !c.SetSlice(w, slice, 1_000_000) {
		t.Fatal("SetSlice on v7.1 = false, want true")
	}
	if w.CustomSlice() || w.Slice != slice || w.Vruntime != v || w.Deadline != dl {
		t.Errorf("SetSlice with the current slice: custom %t, slice %d, vruntime %d, deadline %d; want false, %d, %d, %d",
			w.CustomSlice(), w.Slice, w.Vruntime, w.Deadline, slice, v, dl)
	}
}
