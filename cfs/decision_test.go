package cfs

import (
	"math/rand/v2"
	"testing"
)

// The decision tables follow check_preempt_tick, check_preempt_wakeup, wakeup_preempt_entity
// and pick_next_entity of kernel/sched/fair.c, v6.5 (blob b3e25be58e2b), with DefaultParams:
// latency 6 ms, min_granularity 0.75 ms, wakeup_granularity 1 ms, sched_nr_latency 8.

// rig returns a CPU whose root queue holds tasks at the given absolute vruntimes. If running is
// true the first task is the running one, having run ran ns in its current slice; the others
// wait on the timeline. rig bypasses placement, so that decisions can be tested on exact states.
func rig(t testing.TB, p Params, running bool, ran uint64, tasks []*Entity, vrs []uint64) *RunQueue {
	t.Helper()
	c := NewRunQueue(0, p)
	q := c.Root()
	q.minVruntime = 1 << 40
	for k, tk := range tasks {
		c.attach(tk)
		tk.Vruntime = vrs[k] - q.minVruntime // enqueue without ENQUEUE_WAKEUP adds it back
		c.enqueueTask(tk, 0, 0)
	}
	if running {
		c.setNextTask(tasks[0], 0)
		c.curr = tasks[0]
		tasks[0].SumExecRuntime = 1 << 30
		tasks[0].prevSumExecRuntime = 1<<30 - ran
	}
	checkCPU(t, c, nil)
	return c
}

func tasksOf(specs ...any) []*Entity {
	var ts []*Entity
	for k := 0; k < len(specs); k += 2 {
		ts = append(ts, NewTask(specs[k].(string), Normal, specs[k+1].(int)))
	}
	return ts
}

func TestCheckPreemptTick(t *testing.T) {
	const v = 1<<40 + 50_000_000
	def := DefaultParams()
	opt := def
	opt.FavorNonIdleTick = true
	idle := func(name string) *Entity { return NewTask(name, Idle, 0) }
	many := []*Entity{NewTask("heavy", Normal, -20)}
	manyV := []uint64{v}
	for range 8 {
		many = append(many, NewTask("light", Normal, 19))
		manyV = append(manyV, v+1<<30)
	}
	tests := []struct {
		name   string
		p      Params
		ran    uint64
		tasks  []*Entity
		vrs    []uint64
		resch  bool
		reason TickReason
		ideal  uint64
	}{
		{"alone", def, 10_000_000, tasksOf("a", 0), []uint64{v}, false, TickNoCompetitor, 0},
		{"slice used up", def, 3_000_000, tasksOf("a", 0, "b", 0), []uint64{v, v}, true, tickSliceExpired, 2999998},
		{"slice exactly used is not over", def, 2999998, tasksOf("a", 0, "b", 0), []uint64{v + 1<<30, v}, true, tickLeadOverSlice, 2999998},
		{"below min_granularity", def, 749_999, tasksOf("a", 0, "b", 0), []uint64{v + 1<<30, v}, false, tickBelowMinGranularity, 2999998},
		// check_preempt_tick returns early only if delta_exec < sysctl_sched_min_granularity.
		{"exactly min_granularity", def, 750_000, tasksOf("a", 0, "b", 0), []uint64{v + 1<<30, v}, true, tickLeadOverSlice, 2999998},
		{"behind the leftmost", def, 1_000_000, tasksOf("a", 0, "b", 0), []uint64{v - 1, v}, false, tickBehindLeftmost, 2999998},
		// check_preempt_tick returns early only if delta < 0: a zero lead goes on to the
		// comparison with ideal_runtime (0 > ideal is false), it is not "behind".
		{"level with the leftmost", def, 1_000_000, tasksOf("a", 0, "b", 0), []uint64{v, v}, false, tickLeadWithinSlice, 2999998},
		{"lead equal to the ideal slice", def, 1_000_000, tasksOf("a", 0, "b", 0), []uint64{v + 2999998, v}, false, tickLeadWithinSlice, 2999998},
		{"lead one over the ideal slice", def, 1_000_000, tasksOf("a", 0, "b", 0), []uint64{v + 2999999, v}, true, tickLeadOverSlice, 2999998},
		{"ideal capped at latency", def, 6_000_001, many, manyV, true, tickSliceExpired, 6_000_000},
		{"non-idle ahead of an idle leftmost", def, 1_000_000, []*Entity{NewTask("a", Normal, 0), idle("i")}, []uint64{v + 6_000_000, v}, true, tickLeadOverSlice, 5982471},
		{"seed 004: non-idle keeps its slice", opt, 1_000_000, []*Entity{NewTask("a", Normal, 0), idle("i")}, []uint64{v + 6_000_000, v}, false, tickFavorNonIdle, 5982471},
		{"seed 004: still preempted when the slice is used", opt, 6_000_000, []*Entity{NewTask("a", Normal, 0), idle("i")}, []uint64{v + 6_000_000, v}, true, tickSliceExpired, 5982471},
		{"seed 004: idle running entity is not favoured", opt, 1_000_000, []*Entity{idle("i"), idle("j")}, []uint64{v + 600_000_000, v}, true, tickLeadOverSlice, 2999999},
		{"seed 004: non-idle leftmost counts as before", opt, 1_000_000, tasksOf("a", 0, "b", 0), []uint64{v + 2999999, v}, true, tickLeadOverSlice, 2999998},
		// Josh Don's objection in seed 004: a non-idle entity queued behind the idle leftmost is
		// hidden by it, so the running entity is not preempted although it leads that one too
		// by more than its ideal slice (6 ms * 1024/2051 = 2995611 ns).
		{"seed 004: non-idle hidden behind an idle leftmost", opt, 1_000_000, []*Entity{NewTask("a", Normal, 0), idle("i"), NewTask("b", Normal, 0)},
			[]uint64{v + 9_000_000, v, v + 1_000_000}, false, tickFavorNonIdle, 2995611},
		{"same state without the option", def, 1_000_000, []*Entity{NewTask("a", Normal, 0), idle("i"), NewTask("b", Normal, 0)},
			[]uint64{v + 9_000_000, v, v + 1_000_000}, true, tickLeadOverSlice, 2995611},
	}
	for _, tc := range tests {
		c := rig(t, tc.p, true, tc.ran, tc.tasks, tc.vrs)
		d, why := CheckPreemptTick(c.Root(), c.Curr(), &tc.p)
		if d.Resched != tc.resch || why != tc.reason || d.Ideal != tc.ideal {
			t.Errorf("%s: CheckPreemptTick = %v (ideal %d), want resched %t, %v, ideal %d", tc.name, d.Explain(why), d.Ideal, tc.resch, tc.reason, tc.ideal)
		}
		if d.ran != tc.ran && tc.reason != TickNoCompetitor {
			t.Errorf("%s: CheckPreemptTick().Ran = %d, want %d", tc.name, d.ran, tc.ran)
		}
	}
}

func TestCheckPreemptWakeup(t *testing.T) {
	const v = 1<<40 + 50_000_000
	def := DefaultParams()
	noWP := def
	noWP.WakeupPreemption = false
	nb := def
	nb.NextBuddy = true
	nb.NrLatency = 2
	lb := def
	lb.NrLatency = 2
	type state struct {
		tasks []*Entity
		vrs   []uint64
	}
	two := func(cp Class, cn int, wp Class, wn int, cv, wv uint64) state {
		return state{[]*Entity{NewTask("curr", cp, cn), NewTask("wakee", wp, wn)}, []uint64{cv, wv}}
	}
	tests := []struct {
		name      string
		p         Params
		s         state
		resched   bool
		preempt   bool
		reason    WakeupReason
		next      bool // wakee marked as next buddy
		last      bool // curr marked as last buddy
		vdiff     int64
		gran      uint64
		fork      bool
		wakeeSelf bool
	}{
		{name: "wakee is the running task", p: def, s: two(Normal, 0, Normal, 0, v, v), reason: wakeupSameTask, wakeeSelf: true},
		{name: "already marked for resched", p: def, s: two(Normal, 0, Normal, 0, v+1<<30, v), resched: true, reason: wakeupAlreadyResched},
		{name: "non-idle wakee preempts SCHED_IDLE", p: def, s: two(Idle, 0, Normal, 0, v, v+1<<30), preempt: true, reason: wakeupIdleCurr},
		{name: "SCHED_IDLE wakee against SCHED_IDLE", p: def, s: two(Idle, 0, Idle, 0, v+1<<30, v), reason: wakeupNotNormal},
		{name: "SCHED_BATCH wakee never preempts", p: def, s: two(Normal, 0, Batch, 0, v+1<<30, v), reason: wakeupNotNormal},
		{name: "SCHED_IDLE wakee never preempts", p: def, s: two(Normal, 0, Idle, 0, v+1<<30, v), reason: wakeupNotNormal},
		{name: "WAKEUP_PREEMPTION off", p: noWP, s: two(Normal, 0, Normal, 0, v+1<<30, v), reason: wakeupNotNormal},
		{name: "lead of exactly the granularity", p: def, s: two(Normal, 0, Normal, 0, v+1_000_000, v), reason: wakeupLeadTooSmall, vdiff: 1_000_000, gran: 1_000_000},
		{name: "lead one over the granularity", p: def, s: two(Normal, 0, Normal, 0, v+1_000_001, v), preempt: true, reason: wakeupLead, next: true, vdiff: 1_000_001, gran: 1_000_000},
		{name: "wakee behind", p: def, s: two(Normal, 0, Normal, 0, v, v+5), reason: wakeupLeadTooSmall, vdiff: -5, gran: 1_000_000},
		{name: "light wakee needs a longer lead", p: def, s: two(Normal, 0, Normal, 19, v+60_000_000, v), reason: wakeupLeadTooSmall, vdiff: 60_000_000, gran: 68266666},
		{name: "heavy wakee needs a shorter lead", p: def, s: two(Normal, 19, Normal, -20, v+20_000, v), preempt: true, reason: wakeupLead, next: true, vdiff: 20_000, gran: 11536},
		{name: "NEXT_BUDDY marks a wakee that does not preempt", p: nb, s: two(Normal, 0, Normal, 0, v, v), reason: wakeupLeadTooSmall, next: true, gran: 1_000_000},
		{name: "NEXT_BUDDY does not mark a forked task", p: nb, s: two(Normal, 0, Normal, 0, v, v), reason: wakeupLeadTooSmall, gran: 1_000_000, fork: true},
		{name: "a SCHED_IDLE running task is never the last buddy", p: lb, s: two(Idle, 0, Normal, 0, v, v), preempt: true, reason: wakeupIdleCurr},
		{name: "LAST_BUDDY on a crowded queue", p: lb, s: two(Normal, 0, Normal, 0, v+1<<30, v), preempt: true, reason: wakeupLead, next: true, last: true, vdiff: 1 << 30, gran: 1_000_000},
	}
	for _, tc := range tests {
		c := rig(t, tc.p, true, 0, tc.s.tasks, tc.s.vrs)
		c.needResched = tc.resched
		curr, wakee := tc.s.tasks[0], tc.s.tasks[1]
		if tc.wakeeSelf {
			wakee = curr
		}
		d, why := CheckPreemptWakeup(c, wakee, tc.fork, &tc.p)
		if d.Preempt != tc.preempt || why != tc.reason || d.vDiff != tc.vdiff || d.gran != tc.gran {
			t.Errorf("%s: CheckPreemptWakeup = %v (vdiff %d, gran %d), want preempt %t, %v, vdiff %d, gran %d",
				tc.name, d.Explain(why), d.vDiff, d.gran, tc.preempt, tc.reason, tc.vdiff, tc.gran)
		}
		if (d.NextBuddy == wakee) != tc.next || (d.NextBuddy != nil && d.NextBuddy != wakee) {
			t.Errorf("%s: CheckPreemptWakeup().NextBuddy = %v, want wakee: %t", tc.name, d.NextBuddy, tc.next)
		}
		if (d.LastBuddy == curr) != tc.last || (d.LastBuddy != nil && d.LastBuddy != curr) {
			t.Errorf("%s: CheckPreemptWakeup().LastBuddy = %v, want curr: %t", tc.name, d.LastBuddy, tc.last)
		}
	}
	// An idle CPU runs any wakee.
	c := NewRunQueue(0, def)
	w := NewTask("w", Batch, 0)
	if d, why := c.Wakeup(w, 0); !d.Preempt || why != wakeupCPUIdle {
		t.Errorf("Wakeup on an idle CPU = %v, want preempt, %v", d.Explain(why), wakeupCPUIdle)
	}
}

func TestWakeupPreemptEntity(t *testing.T) {
	p := DefaultParams()
	curr, se := NewTask("curr", Normal, 0), NewTask("se", Normal, 0)
	tests := []struct {
		cv, sv uint64
		want   int
	}{
		{100, 100, -1}, {100, 200, -1}, {1_000_100, 100, 0}, {1_000_101, 100, 1},
		// vdiff 1 is > 0, so wakeup_preempt_entity goes on to the granularity: 1 <= gran, 0.
		{101, 100, 0},
		{5, ^uint64(0) - 999_995, 1}, // across the wrap: se is 1000001 before curr
	}
	for _, tc := range tests {
		curr.Vruntime, se.Vruntime = tc.cv, tc.sv
		if got := wakeupPreemptEntity(curr, se, &p); got != tc.want {
			t.Errorf("wakeupPreemptEntity(%d, %d) = %d, want %d", tc.cv, tc.sv, got, tc.want)
		}
	}
}

func TestPick(t *testing.T) {
	const v = 1<<40 + 50_000_000
	p := DefaultParams()
	tests := []struct {
		name          string
		vrs           []uint64 // a, b, c; a runs if running
		running       bool
		skip, nx, lst int // index of the buddy, -1 for none
		want          int
		reason        PickReason
	}{
		{"leftmost", []uint64{v + 5, v, v + 9}, false, -1, -1, -1, 1, pickLeftmost},
		{"running entity before the leftmost", []uint64{v, v + 5, v + 9}, true, -1, -1, -1, 0, pickCurr},
		{"running entity equal to the leftmost loses", []uint64{v + 5, v + 5, v + 9}, true, -1, -1, -1, 1, pickLeftmost},
		{"skip buddy passed over", []uint64{v + 1_000_000, v, v + 2_000_000}, false, 1, -1, -1, 0, pickSecond},
		{"skip buddy kept: next too far", []uint64{v + 5_000_000, v, v + 1_000_001}, false, 1, -1, -1, 1, pickLeftmost},
		{"skip buddy is the running entity", []uint64{v, v + 500, v + 9}, true, 0, -1, -1, 2, pickSecond},
		{"skip buddy's second is the running entity", []uint64{v + 10, v, v + 900}, true, 1, -1, -1, 0, pickSecond},
		{"next buddy within granularity", []uint64{v + 5, v, v + 1_000_000}, false, -1, 2, -1, 2, pickNextBuddy},
		{"next buddy too far", []uint64{v + 5, v, v + 1_000_001}, false, -1, 2, -1, 1, pickLeftmost},
		{"last buddy within granularity", []uint64{v + 5, v, v + 9}, false, -1, -1, 0, 0, pickLastBuddy},
		// pick_next_entity takes the last buddy only if wakeup_preempt_entity(last, left) < 1.
		{"last buddy too far", []uint64{v + 1_000_001, v, v + 9}, false, -1, -1, 0, 1, pickLeftmost},
		// The skip rule applies only when the skip buddy is the entity about to be picked.
		{"skip buddy not the leftmost is ignored", []uint64{v + 5, v, v + 9}, false, 2, -1, -1, 1, pickLeftmost},
		{"next buddy before last buddy", []uint64{v + 5, v, v + 9}, false, -1, 2, 0, 2, pickNextBuddy},
		{"next buddy overrides the skip rule", []uint64{v + 5, v, v + 9}, false, 1, 0, -1, 0, pickNextBuddy},
	}
	for _, tc := range tests {
		ts := tasksOf("a", 0, "b", 0, "c", 0)
		c := rig(t, p, tc.running, 0, ts, tc.vrs)
		q := c.Root()
		for _, b := range []struct {
			i   int
			ptr **Entity
		}{{tc.skip, &q.skip}, {tc.nx, &q.next}, {tc.lst, &q.last}} {
			if b.i >= 0 {
				*b.ptr = ts[b.i]
			}
		}
		var curr *Entity
		if tc.running {
			curr = ts[0]
		}
		got, reason := Pick(q, curr, &p)
		if got != ts[tc.want] || reason != tc.reason {
			t.Errorf("%s: Pick = %v, %v; want %v, %v", tc.name, got, reason, ts[tc.want], tc.reason)
		}
	}
	if got, reason := Pick(NewRunQueue(0, p).Root(), nil, &p); got != nil || reason != pickNone {
		t.Errorf("Pick(empty) = %v, %v; want nil, %v", got, reason, pickNone)
	}
}

// TestCheckPreemptWakeupNextBuddyGroup follows v6.5's check_preempt_wakeup (fair.c blob
// b3e25be58e2b) for a grouped wakee: with NEXT_BUDDY on a crowded queue the wakee task itself is
// marked first (set_next_buddy walks up from the task, next_buddy_marked = 1); when find_matching_se
// then yields its group's entity, which leads the running task by more than the granularity, the
// preemption does not mark that entity again, so the named buddy stays the task.
func TestCheckPreemptWakeupNextBuddyGroup(t *testing.T) {
	const v = 1<<40 + 50_000_000
	p := DefaultParams()
	p.NextBuddy, p.NrLatency = true, 2
	c := rig(t, p, true, 0, tasksOf("curr", 0, "other", 0), []uint64{v + 10_000_000, v})
	g := NewGroup("g", nil, 1)
	w := NewTask("w", Normal, 0)
	w.SetGroup(g)
	c.attach(w)
	c.enqueueTask(w, 0, flagWakeup)
	d, why := CheckPreemptWakeup(c, w, false, &p)
	if !d.Preempt || why != wakeupLead || d.wakee != w.Parent() {
		t.Fatalf("CheckPreemptWakeup(grouped w) = %v, matching wakee side %v; want a preemption on the lead of g's entity", d.Explain(why), d.wakee)
	}
	if d.NextBuddy != w {
		t.Errorf("CheckPreemptWakeup(grouped w).NextBuddy = %v, want w", d.NextBuddy)
	}
	checkCPU(t, c, nil)
}

// TestTickDecisionExplain checks both forms of a tick decision's explanation: the classic one
// (ideal slice and lead, up to tickLeadOverSlice) and the EEVDF one (vruntime and deadline, from
// tickRequestServed on).
func TestTickDecisionExplain(t *testing.T) {
	a, b, i := NewTask("a", Normal, 0), NewTask("b", Normal, 0), NewTask("i", Idle, 0)
	tests := []struct {
		name string
		d    TickDecision
		r    TickReason
		want string
	}{
		{"classic, last classic reason", TickDecision{Curr: a, leftmost: b, Resched: true, Ideal: 2999998, ran: 1_000_000, lead: 3_000_000}, tickLeadOverSlice,
			"tick a: resched: vruntime lead over the leftmost larger than the ideal slice (ran 1000000 ns, ideal 2999998 ns, lead 3000000 ns over b)"},
		{"classic, seed 004 option", TickDecision{Curr: a, leftmost: i, Ideal: 5982471, ran: 1_000_000, lead: 6_000_000}, tickFavorNonIdle,
			"tick a: keep running: non-idle entity keeps its slice against an idle leftmost (seed-004 option) (ran 1000000 ns, ideal 5982471 ns, lead 6000000 ns over i)"},
		{"classic, no leftmost", TickDecision{Curr: a, Ideal: 2999998, ran: 500_000}, tickBelowMinGranularity,
			"tick a: keep running: ran less than the minimum granularity (ran 500000 ns, ideal 2999998 ns)"},
		{"EEVDF, first EEVDF reason", TickDecision{Curr: a, Resched: true, ran: 1_000_000, vruntime: 1_000_000, deadline: 1_700_000}, tickRequestServed,
			"tick a: resched: request served: new deadline (ran 1000000 ns, vruntime 1000000, deadline 1700000)"},
		{"EEVDF, request open", TickDecision{Curr: a, ran: 100_000, vruntime: 100_000, deadline: 700_000}, tickRequestOpen,
			"tick a: keep running: request not yet served (ran 100000 ns, vruntime 100000, deadline 700000)"},
	}
	for _, tc := range tests {
		if got := tc.d.Explain(tc.r); got != tc.want {
			t.Errorf("%s: TickDecision.Explain(%d) = %q, want %q", tc.name, tc.r, got, tc.want)
		}
	}
}

// TestLeadPreempts checks check_preempt_wakeup's test of the lead it computed against
// wakeupPreemptEntity on the same two entities, over random weights and vruntimes around the
// granularity, zero and the wrap of the vruntime clock.
func TestLeadPreempts(t *testing.T) {
	p := DefaultParams()
	rng := rand.New(rand.NewPCG(31, 6))
	curr := NewTask("curr", Normal, 0)
	for range 20000 {
		nice := rng.IntN(40) - 20
		se := NewTask("se", Normal, nice)
		gran := wakeupGran(se, &p)
		var lead int64
		switch rng.IntN(4) {
		case 0:
			lead = int64(gran) + rng.Int64N(5) - 2
		case 1:
			lead = rng.Int64N(5) - 2
		case 2:
			lead = int64(rng.Uint64())
		default:
			lead = rng.Int64N(4*int64(gran)) - 2*int64(gran)
		}
		se.Vruntime = rng.Uint64()
		curr.Vruntime = se.Vruntime + uint64(lead)
		vdiff := int64(curr.Vruntime - se.Vruntime)
		if got, want := leadPreempts(vdiff, gran), wakeupPreemptEntity(curr, se, &p) == 1; got != want {
			t.Fatalf("leadPreempts(%d, %d) = %t, wakeupPreemptEntity = 1 is %t (nice %d)", vdiff, gran, got, want, nice)
		}
	}
}
