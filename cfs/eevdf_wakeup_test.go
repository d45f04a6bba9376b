package cfs

import "testing"

// Wakeup preemption under v7.1's wakeup_preempt_fair (kernel/sched/fair.c v7.1.5 blob
// abb76775aa72): the update_curr before the pick and the NEXT_BUDDY nomination
// (set_preempt_buddy). Vruntimes are relative to iv.

// delayedSleeperSetup is the v7.1 CPU of the two tests below: two nice-0 tasks forked at 0, the
// first picked, x, runs to 1 ms and sleeps while ineligible, so its dequeue is delayed, and the
// other, y, runs from 1 ms with no reschedule pending.
func delayedSleeperSetup(t *testing.T) (c *RunQueue, x, y *Entity) {
	t.Helper()
	c = NewRunQueue(0, preset(V71, 1))
	a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
	c.Fork(nil, a, 0)
	c.Fork(nil, b, 0)
	x, y = c.Schedule(0), a
	if x == a {
		y = b
	}
	c.Sleep(x, 1_000_000)
	if got := c.Schedule(1_000_000); got != y || !x.Delayed() || c.NeedResched() {
		t.Fatalf("setup: running %v, %v delayed %t, resched %t; want %v, true, false", got, x, x.Delayed(), c.NeedResched(), y)
	}
	return c, x, y
}

// TestWakeupDelayedChargesCurr wakes a delayed sleeper: ttwu_runnable enqueues it with
// ENQUEUE_DELAYED, which enqueue_task_fair hands to requeue_delayed_entity without an
// update_curr, so the running task's time since its last charge is still uncharged when
// wakeup_preempt_fair runs; its update_curr(cfs_rq) comes before the pick. Both tasks ask for the
// default 0.7 ms slice. x runs 0-1 ms (vruntime 1 ms, deadline renewed to 1.7 ms) and sleeps
// ineligible (V = 0.5 ms), so its dequeue is delayed; y runs from 1 ms. At 2.5 ms y has run
// 1.5 ms: charged, its vruntime is 1.5 ms (deadline renewed to 2.2 ms, its request served) and
// V = 1.25 ms, so x is eligible with the earlier deadline and the pick chooses it. Judged with
// y's stale vruntime (0), V would be 0.5 ms and x not eligible.
func TestWakeupDelayedChargesCurr(t *testing.T) {
	c, x, y := delayedSleeperSetup(t)
	if rel(x.Vruntime) != 1_000_000 || rel(x.Deadline) != 1_700_000 {
		t.Fatalf("setup: %v vruntime %+d deadline %+d; want +1000000, +1700000", x, rel(x.Vruntime), rel(x.Deadline))
	}
	d, why := c.Wakeup(x, 2_500_000)
	if !d.Preempt || why != wakeupPicked || d.picked != x || !c.NeedResched() {
		t.Errorf("Wakeup(delayed %v) at 2.5 ms = %v (picked %v), resched %t; want a preemption by %v", x, d.Explain(why), d.picked, c.NeedResched(), x)
	}
	if rel(y.Vruntime) != 1_500_000 || rel(y.Deadline) != 2_200_000 {
		t.Errorf("running %v after the wakeup: vruntime %+d, deadline %+d; want +1500000, +2200000 (charged)", y, rel(y.Vruntime), rel(y.Deadline))
	}
	checkCPU(t, c, nil)
}

// TestWakeupDelayedServedNotPicked is the same setup woken earlier, at 1.5 ms: the update_curr
// in wakeup_preempt_fair charges y 0.5 ms, past its first deadline (0.35 ms, the halved initial
// slice), so update_deadline serves the request (new deadline 0.5 + 0.7 = 1.2 ms) and update_curr
// calls resched_curr_lazy (nr_queued is 2: x is queued). V = (1 + 0.5)/2 = 0.75 ms is before x's
// vruntime (1 ms), so x is not eligible and the pick keeps y: the wakeup does not preempt, but
// the resched update_curr set stays.
func TestWakeupDelayedServedNotPicked(t *testing.T) {
	c, x, y := delayedSleeperSetup(t)
	d, why := c.Wakeup(x, 1_500_000)
	if d.Preempt || why != wakeupNotPicked || d.picked != y {
		t.Errorf("Wakeup(delayed %v) at 1.5 ms = %v (picked %v); want no preemption, %v picked", x, d.Explain(why), d.picked, y)
	}
	if !c.NeedResched() {
		t.Errorf("NeedResched() after the wakeup = false, want true (update_curr served %v's request)", y)
	}
	if rel(y.Vruntime) != 500_000 || rel(y.Deadline) != 1_200_000 {
		t.Errorf("running %v after the wakeup: vruntime %+d, deadline %+d; want +500000, +1200000", y, rel(y.Vruntime), rel(y.Deadline))
	}
	checkCPU(t, c, nil)
}

// TestWakeupShortClearsMatchingBuddy follows the preempt: label of v7.1's wakeup_preempt_fair for
// a PREEMPT_WAKEUP_SHORT preemption across a group: cfs_rq was reassigned to cfs_rq_of(se) at the
// matching level (the root, where se is g's entity), so clear_buddies(cfs_rq, se) finds the root's
// next buddy equal to g's entity and clears it; __clear_buddies_next walks up from se, so g's own
// queue keeps its next buddy. Tasks r and o in g ask for 3 ms, w at the root for 0.2 ms. o is
// marked next buddy (what a NEXT_BUDDY wakeup of o while r runs leaves: set_next_buddy walks up
// from o, so g's queue names o and the root names g's entity). w wakes at 0.1 ms with lag 0 at V,
// eligible, deadline 0.3 ms; its slice is shorter than g's entity's (3 ms, the least slice of g's
// queue), so the pick ignores g's protection and chooses w (g's deadline is later). v6.18's
// pick_eevdf (fair.c blob 7e0e2044d840) picks the eligible next buddy even when it ignores
// protection: g's entity wins, w does not preempt and the buddies stay.
func TestWakeupShortClearsMatchingBuddy(t *testing.T) {
	for _, v := range []Version{V618, V71} {
		wakeupShortBuddy(t, v)
	}
}

func wakeupShortBuddy(t *testing.T, v Version) {
	c := NewRunQueue(0, preset(v, 1))
	g := NewGroup("g", nil, 1)
	t1, t2, w := NewTask("t1", Normal, 0), NewTask("t2", Normal, 0), NewTask("w", Normal, 0)
	for _, tk := range []*Entity{t1, t2} {
		tk.SetGroup(g)
		tk.SetSlice(3_000_000)
	}
	w.SetSlice(200_000)
	c.Fork(nil, t1, 0)
	c.Fork(nil, t2, 0)
	c.Fork(nil, w, 0)
	if got := c.Schedule(0); got != w {
		t.Fatalf("setup: Schedule(0) = %v, want w (earliest deadline)", got)
	}
	c.Sleep(w, 0)
	r := c.Schedule(0)
	o := t1
	if r == t1 {
		o = t2
	}
	if r != t1 && r != t2 || w.OnRQ() {
		t.Fatalf("setup: running %v, w on_rq %t; want a task of g, false", r, w.OnRQ())
	}
	setNextBuddy(o)
	ge, root, gq := g.Entity(c), c.Root(), g.queue(c)
	if root.next != ge || gq.next != o {
		t.Fatalf("setup: next buddies root %v, g %v; want g's entity, %v", root.next, gq.next, o)
	}
	d, why := c.Wakeup(w, 100_000)
	if v == V618 {
		// v6.18's pick_eevdf takes the eligible next buddy before anything else, protect or
		// not: g's entity is picked and w does not preempt.
		if d.Preempt || !d.short || why != wakeupNotPicked || d.picked != ge || root.next != ge {
			t.Errorf("v6.18: Wakeup(w) = %v (short %t, picked %v), root's next %v; want no preemption, g's entity picked as next buddy", d.Explain(why), d.short, d.picked, root.next)
		}
		checkCPU(t, c, nil)
		return
	}
	if !d.Preempt || !d.short || why != wakeupPicked || d.curr != ge {
		t.Fatalf("Wakeup(w) = %v (short %t, running side %v); want a PREEMPT_WAKEUP_SHORT preemption of g's entity", d.Explain(why), d.short, d.curr)
	}
	if root.next != nil {
		t.Errorf("root's next buddy after the preemption = %v, want none (clear_buddies at the matching level)", root.next)
	}
	if gq.next != o {
		t.Errorf("g's next buddy after the preemption = %v, want %v (not walked down)", gq.next, o)
	}
	checkCPU(t, c, nil)
}

// TestWakeupNextBuddyV71 follows set_preempt_buddy, which v7.1's wakeup_preempt_fair calls with
// NEXT_BUDDY on (off by default in v7.1.5's features.h, so set here): the wakee becomes the next
// buddy unless the queue already has one with an earlier deadline (entity_before). PICK_BUDDY and
// PREEMPT_SHORT are off, so neither the buddy nor a short slice overrides the running task's
// slice protection and no wakee preempts. a is forked and runs at 0 (deadline and protection
// 0.35 ms); the wakees, new, wake at 0 too, so each is placed at V = 0 with lag 0 and deadline
// its slice, and a stays eligible (its vruntime is V).
func TestWakeupNextBuddyV71(t *testing.T) {
	p := preset(V71, 1)
	p.NextBuddy, p.PickBuddy, p.PreemptShort = true, false, false
	c := NewRunQueue(0, p)
	a := NewTask("a", Normal, 0)
	c.Fork(nil, a, 0)
	c.Schedule(0)
	steps := []struct {
		name    string
		slice   uint64
		nominee bool // the decision names the wakee as next buddy
		next    int  // index of the wakee that is the next buddy afterwards
	}{
		{"b, no buddy yet", 700_000, true, 0},
		{"c, later deadline than the buddy", 1_500_000, false, 0},
		{"e, earlier deadline than the buddy", 300_000, true, 2},
	}
	var woken []*Entity
	for _, s := range steps {
		w := NewTask(s.name[:1], Normal, 0)
		w.SetSlice(s.slice)
		woken = append(woken, w)
		d, why := c.Wakeup(w, 0)
		if rel(w.Vruntime) != 0 || w.Deadline-w.Vruntime != s.slice {
			t.Errorf("%s: placed at %+d, deadline %+d; want 0, %d", s.name, rel(w.Vruntime), rel(w.Deadline), s.slice)
		}
		if d.Preempt || why != wakeupNotPicked || d.pickReason != pickCurrProtected {
			t.Errorf("%s: Wakeup = %v (pick %v); want no preemption, a protected", s.name, d, d.pickReason)
		}
		if (d.NextBuddy == w) != s.nominee || (d.NextBuddy != nil && d.NextBuddy != w) {
			t.Errorf("%s: Wakeup().NextBuddy = %v, want the wakee: %t", s.name, d.NextBuddy, s.nominee)
		}
		if c.root.next != woken[s.next] {
			t.Errorf("%s: next buddy %v, want %v", s.name, c.root.next, woken[s.next])
		}
		checkCPU(t, c, nil)
	}
}
