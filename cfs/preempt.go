// This file implements the fair class's wakeup preemption decision and its type: classic CFS's
// (v6.5) check_preempt_wakeup and wakeup_preempt_entity, and EEVDF's, v6.6's
// check_preempt_wakeup ("would the pick choose the wakee now?") and v7.1's wakeup_preempt_fair
// (the same question, with slice protection, PREEMPT_SHORT and the fork exception), with the
// state changes around them.

package cfs

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
)

// wakeupPreemptEntity reports whether se should preempt curr, as v6.5's wakeup_preempt_entity:
// -1 if se's vruntime is not before curr's, 1 if it is before by more than [wakeupGran](se)
// (the granularity converted with se's weight, so a light se needs a larger lead), 0 otherwise.
// [Pick] uses it with the roles "buddy" and "leftmost": a buddy is acceptable when the result
// is below 1.
func wakeupPreemptEntity(curr, se *Entity, p *Params) int {
	vdiff := int64(curr.Vruntime - se.Vruntime)
	if vdiff <= 0 {
		return -1
	}
	if vdiff > int64(wakeupGran(se, p)) {
		return 1
	}
	return 0
}

// leadPreempts reports whether a vruntime lead of vdiff over an entity whose wakeup granularity
// is gran is [wakeupPreemptEntity]'s 1: positive, and above the granularity. check_preempt_wakeup
// decides with it on the lead and granularity it has just computed for its decision's record,
// instead of calling wakeupPreemptEntity, which would compute both again.
func leadPreempts(vdiff int64, gran uint64) bool {
	return vdiff > 0 && vdiff > int64(gran)
}

// A WakeupReason says why [CheckPreemptWakeup] decided as it did.
type WakeupReason uint8

const (
	// wakeupCPUIdle: the CPU runs no task, so the wakee runs at once. Preempt.
	wakeupCPUIdle WakeupReason = iota
	// wakeupSameTask: the wakee is the running task. No preemption.
	wakeupSameTask
	// wakeupAlreadyResched: the running task is already marked for rescheduling.
	wakeupAlreadyResched
	// wakeupIdleCurr: the running task is SCHED_IDLE and the wakee is not: a non-idle task
	// always preempts an idle one. Preempt.
	wakeupIdleCurr
	// wakeupNotNormal: the wakee is SCHED_BATCH or SCHED_IDLE (or WAKEUP_PREEMPTION is off);
	// only the tick preempts for it. No preemption.
	wakeupNotNormal
	// wakeupIdleGroupCurr: at the level where their hierarchies meet, the running side is idle
	// (an idle group) and the wakee side is not. Preempt.
	wakeupIdleGroupCurr
	// wakeupIdleGroupWakee: at that level the wakee side is idle and the running side is not.
	// No preemption.
	wakeupIdleGroupWakee
	// wakeupLeadTooSmall: the wakee's vruntime lead over the running entity is at most the
	// wakeup granularity. No preemption.
	wakeupLeadTooSmall
	// wakeupLead: the wakee's vruntime is before the running entity's by more than the wakeup
	// granularity. Preempt.
	wakeupLead
	// wakeupPicked (EEVDF): EEVDF's pick, run on the queue where the hierarchies meet, chooses
	// the wakee. Preempt.
	wakeupPicked
	// wakeupNotPicked (EEVDF): the pick chooses another entity (usually the running one, still
	// eligible with an earlier deadline or protected). No preemption.
	wakeupNotPicked
	// wakeupForked (v7.1): a newly forked task does not wakeup-preempt unless its slice is
	// shorter than the running entity's. No preemption.
	wakeupForked
	// wakeupDelayed (v7.1): the wakee's dequeue is delayed (a delayed task that was moved to
	// another CPU or changed while asleep is judged like a wakee); forcing an ineligible task
	// to run would break EEVDF. No preemption.
	wakeupDelayed
)

var wakeupReasons = [...]string{
	wakeupCPUIdle:        "CPU idle",
	wakeupSameTask:       "wakee is the running task",
	wakeupAlreadyResched: "running task already marked for resched",
	wakeupIdleCurr:       "non-idle wakee preempts SCHED_IDLE running task",
	wakeupNotNormal:      "SCHED_BATCH/SCHED_IDLE wakee never wakeup-preempts",
	wakeupIdleGroupCurr:  "non-idle side preempts idle side",
	wakeupIdleGroupWakee: "idle side does not preempt non-idle side",
	wakeupLeadTooSmall:   "vruntime lead within wakeup granularity",
	wakeupLead:           "vruntime lead beyond wakeup granularity",
	wakeupPicked:         "EEVDF picks the wakee",
	wakeupNotPicked:      "EEVDF picks another entity",
	wakeupForked:         "forked task does not preempt",
	wakeupDelayed:        "delayed-dequeue task does not preempt",
}

// String explains the reason in a few words.
func (r WakeupReason) String() string { return sched.EnumName(wakeupReasons[:], r, "WakeupReason") }

// A WakeupDecision is the outcome of [CheckPreemptWakeup], with the figures it was made from
// and the buddies the kernel would mark. The rule that decided is not part of it:
// [CheckPreemptWakeup] returns it beside the decision, as a [WakeupReason]. (PickReason, below,
// is the reason of another decision, the pick the wakeup rule consulted.)
type WakeupDecision struct {
	// Preempt reports whether the wakee should preempt the running task.
	Preempt bool
	// curr and wakee are the running entity and the wakee's entity compared, at the level where
	// their hierarchies meet (find_matching_se), once the decision got that far.
	curr, wakee *Entity
	// vDiff is curr's vruntime minus wakee's, and gran the wakee's wakeup granularity in
	// virtual time, when the decision compared them.
	vDiff int64
	gran  uint64
	// NextBuddy, if not nil, is the entity to mark as next buddy (with its ancestors), and
	// LastBuddy the entity to mark as last buddy.
	NextBuddy, LastBuddy *Entity
	// picked is the entity EEVDF's pick chose and pickReason why, when the decision ran it.
	picked     *Entity
	pickReason PickReason
	// short reports v7.1's PREEMPT_WAKEUP_SHORT action: the wakee has a shorter slice
	// (PREEMPT_SHORT) or the running side is idle, so the pick ignored the running entity's
	// slice protection (whether or not it chose the wakee), and a preemption cancels that
	// protection and clears its buddies.
	short bool
	// ShortenProtection reports that, the wakee not winning, v7.1 with RUN_TO_PARITY cuts the
	// running entity's protection to the queue's shortest slice (update_protect_slice).
	ShortenProtection bool
}

// Explain explains the decision, made for reason r (the reason [CheckPreemptWakeup] or the
// [RunQueue] method returned with it).
func (d WakeupDecision) Explain(r WakeupReason) string {
	verdict := "no preemption"
	if d.Preempt {
		verdict = "preempt"
	}
	s := fmt.Sprintf("wakeup %v vs %v: %s: %v", d.wakee, d.curr, verdict, r)
	switch r {
	case wakeupLead, wakeupLeadTooSmall:
		s += fmt.Sprintf(" (lead %d ns, granularity %d ns)", d.vDiff, d.gran)
	case wakeupPicked, wakeupNotPicked:
		s += fmt.Sprintf(" (picked %v: %v", d.picked, d.pickReason)
		if d.short {
			s += ", ignoring slice protection"
		}
		s += ")"
	}
	return s
}

// matchingEntities walks se and pse up to the ancestors that are siblings in one queue:
// find_matching_se.
func matchingEntities(se, pse **Entity) {
	sd, pd := (*se).depth, (*pse).depth
	for ; sd > pd; sd-- {
		*se = (*se).parent
	}
	for ; pd > sd; pd-- {
		*pse = (*pse).parent
	}
	for (*se).q != (*pse).q {
		*se, *pse = (*se).parent, (*pse).parent
	}
}

// CheckPreemptWakeup decides whether task wakee, just queued on CPU c, should preempt c's
// running task: check_preempt_curr with v6.5's check_preempt_wakeup, or, on an EEVDF version,
// v6.6's check_preempt_wakeup or v7.1's wakeup_preempt_fair (below). fork is set for a newly
// forked task (WF_FORK), which is never marked as next buddy. v6.5's rules, in order: an idle CPU
// runs the wakee; the running task itself, or one already marked for resched, is left alone;
// a non-idle wakee always preempts a SCHED_IDLE running task; a SCHED_BATCH or SCHED_IDLE wakee
// never preempts (nor does anything with WAKEUP_PREEMPTION off); then the two hierarchies are
// walked up to sibling entities in one queue, where an idle running side is preempted by a
// non-idle wakee side and an idle wakee side never preempts a non-idle running side; otherwise
// the wakee preempts iff [wakeupPreemptEntity](curr side, wakee side) is 1, that is, its vruntime
// is before the running side's by more than the wakeup granularity converted with the wakee
// side's weight. The next buddy is the wakee when NEXT_BUDDY is on and the running task's queue
// holds at least NrLatency entities, or when it preempts on its lead; the last buddy is the
// preempted task when LAST_BUDDY is on, its queue is that crowded and the compared running
// side is the task itself.
//
// v6.6 (check_preempt_wakeup): an idle CPU runs the wakee; the running task itself, or one
// already marked for resched, is left alone; a non-idle wakee preempts a SCHED_IDLE running
// task; a SCHED_BATCH or SCHED_IDLE wakee never preempts; at the level where the hierarchies
// meet an idle running side is preempted by a non-idle wakee side and an idle wakee side never
// preempts; otherwise the wakee preempts exactly when v6.6's pick_eevdf on that level's queue
// chooses it. There is no granularity: a wakee placed with positive lag is eligible and wins if
// its deadline is earlier, unless the running entity runs to parity.
//
// v7.1 (wakeup_preempt_fair): the same up to the idle rules (a non-idle wakee side preempts an
// idle running side with the PREEMPT_WAKEUP_SHORT action; the SCHED_IDLE running task case is
// covered by those rules when both are in one queue); then a SCHED_BATCH or SCHED_IDLE wakee
// never preempts; a wakee with a shorter slice than the running side (PREEMPT_SHORT) is judged
// by a pick that ignores the running entity's slice protection; otherwise a forked task does
// not preempt, nor does a delayed-dequeue task (one moved or changed while asleep), and the
// wakee preempts when the pick, with protection, chooses it. When it does
// not and RUN_TO_PARITY is on, the running entity's protection is cut to the shortest slice on
// the queue (a short-slice wakee gets its turn soon). With NEXT_BUDDY the wakee becomes the next
// buddy unless the current one has an earlier deadline.
//
// CheckPreemptWakeup changes nothing. The vruntime comparison expects the running side's run
// time to have been charged (update_curr); [RunQueue.Wakeup] and [RunQueue.Fork] do that first.
func CheckPreemptWakeup(c *RunQueue, wakee *Entity, fork bool, p *Params) (WakeupDecision, WakeupReason) {
	var d WakeupDecision
	var r WakeupReason
	if p.Version.EEVDF() {
		r = checkPreemptWakeupEEVDF(c, wakee, fork, p, 0, false, &d)
	} else {
		r = checkPreemptWakeup(c, wakee, fork, p, 0, false, &d)
	}
	return d, r
}

// checkPreemptWakeup is CheckPreemptWakeup of v6.5 filling *d, which it resets first. With
// charge set it is check_preempt_wakeup itself: the running side's queue is charged
// (update_curr at now) where the kernel does it, after the idle rules and just before the
// vruntime comparison, so that [RunQueue.checkPreempt] decides in one pass. Nothing before that
// point reads what update_curr changes (the running side's run time and vruntime, its queue's
// min_vruntime): the same decision comes out as from the pure function called on the charged
// queue.
func checkPreemptWakeup(c *RunQueue, wakee *Entity, fork bool, p *Params, now uint64, charge bool, d *WakeupDecision) WakeupReason {
	if r, done := wakeupOpening(c, wakee, d); done {
		return r
	}
	curr := c.curr
	scale := uint64(curr.q.nrRunning) >= p.NrLatency
	nextMarked := false
	if p.NextBuddy && scale && !fork {
		nextMarked = true
		if !wakee.IsIdle() { // set_next_buddy stops at an idle entity
			d.NextBuddy = wakee
		}
	}
	if c.needResched {
		return wakeupAlreadyResched
	}
	se, pse := curr, wakee
	if curr.class == Idle && wakee.class != Idle {
		d.preempt(se, scale, p)
		return wakeupIdleCurr
	}
	if wakee.class != Normal || !p.WakeupPreemption {
		return wakeupNotNormal
	}
	matchingEntities(&se, &pse)
	d.curr, d.wakee = se, pse
	cIdle, wIdle := se.IsIdle(), pse.IsIdle()
	if cIdle && !wIdle {
		d.preempt(se, scale, p)
		return wakeupIdleGroupCurr
	}
	if cIdle != wIdle {
		return wakeupIdleGroupWakee
	}
	if charge && pse != wakee {
		// When the sides meet at the wakee itself, their queue is the one the wakee was just
		// enqueued on at now, whose enqueue_entity began with update_curr: charging it again
		// would find no time to charge.
		se.q.updateCurr(now, p)
	}
	d.vDiff = int64(se.Vruntime - pse.Vruntime)
	d.gran = wakeupGran(pse, p)
	if leadPreempts(d.vDiff, d.gran) { // wakeup_preempt_entity(se, pse) == 1, on the figures above
		if !nextMarked && !pse.IsIdle() {
			d.NextBuddy = pse
		}
		d.preempt(se, scale, p)
		return wakeupLead
	}
	return wakeupLeadTooSmall
}

// wakeupOpening is the opening of check_preempt_wakeup in every version: it resets *d, and
// decides at once for an idle CPU (nothing runs: the wakee preempts) and for a task woken while
// it runs (no preemption). done is false when the caller decides.
func wakeupOpening(c *RunQueue, wakee *Entity, d *WakeupDecision) (r WakeupReason, done bool) {
	curr := c.curr
	*d = WakeupDecision{curr: curr, wakee: wakee}
	if curr == nil {
		d.Preempt = true
		return wakeupCPUIdle, true
	}
	return wakeupSameTask, curr == wakee
}

// preempt completes a positive decision: the kernel's preempt label, which makes the preempted
// entity se the last buddy when LAST_BUDDY is on, the queue is crowded and se is a queued task
// (and not idle: set_last_buddy stops at an idle entity).
func (d *WakeupDecision) preempt(se *Entity, scale bool, p *Params) {
	d.Preempt = true
	if se.onRQ && p.LastBuddy && scale && se.myQ == nil && !se.IsIdle() {
		d.LastBuddy = se
	}
}

// checkPreemptWakeupEEVDF decides whether task wakee, just queued on CPU c, should preempt c's
// running task under EEVDF. fork is set for a newly forked task (WF_FORK).
//
// The rules are listed on [CheckPreemptWakeup].
//
// It fills *d, which it resets first. Without charge it changes nothing: it expects the running
// side's run time to have been charged (update_curr), and it reports the buddies and protection
// changes the kernel would make; [CheckPreemptWakeup] calls it so for an EEVDF version. With
// charge it is the kernel's function itself for [RunQueue.checkPreemptEEVDF]: the running
// side's queue is charged at now where the kernel does it, after the need-resched and idle
// rules (and, in v7.1, the policy test) and before everything that reads vruntimes,
// deadlines and slices, so that it decides in one pass. What it tests before that point does
// not change with update_curr, nor does anything after it read need-resched, which
// update_curr may set (a served request): the same decision comes out as from the pure
// function called on the charged queue with need-resched as it was before the charge.
func checkPreemptWakeupEEVDF(c *RunQueue, wakee *Entity, fork bool, p *Params, now uint64, charge bool, d *WakeupDecision) WakeupReason {
	if r, done := wakeupOpening(c, wakee, d); done {
		return r
	}
	curr := c.curr
	v66 := p.Version == V66
	if v66 && p.NextBuddy && !fork {
		d.NextBuddy = wakee
	}
	if c.needResched {
		return wakeupAlreadyResched
	}
	if v66 && curr.class == Idle && wakee.class != Idle {
		d.Preempt = true
		return wakeupIdleCurr
	}
	if !p.WakeupPreemption || (v66 && wakee.class != Normal) {
		return wakeupNotNormal
	}
	se, pse := curr, wakee
	matchingEntities(&se, &pse)
	d.curr, d.wakee = se, pse
	cIdle, wIdle := se.IsIdle(), pse.IsIdle()
	if cIdle && !wIdle {
		d.Preempt, d.short = true, !v66
		return wakeupIdleGroupCurr
	}
	if cIdle != wIdle {
		return wakeupIdleGroupWakee
	}
	q := se.q
	if v66 {
		if charge {
			q.updateCurrEEVDF(now, p)
		}
		d.picked, d.pickReason = pick66(q, p)
	} else {
		if wakee.class != Normal {
			return wakeupNotNormal
		}
		if charge {
			q.updateCurrEEVDF(now, p)
		}
		next := q.next
		switch {
		case p.PreemptShort && pse.Slice < se.Slice:
			d.short = true
		case fork:
			return wakeupForked
		case pse.delayed:
			return wakeupDelayed
		case p.NextBuddy && (next == nil || !before(next.Deadline, pse.Deadline)):
			d.NextBuddy, next = pse, pse // set_preempt_buddy
		}
		d.picked, d.pickReason = pick71(q, !d.short, next, p)
	}
	if d.picked == pse {
		d.Preempt = true
		return wakeupPicked
	}
	d.ShortenProtection = !v66 && p.RunToParity
	return wakeupNotPicked
}

// checkPreemptEEVDF is check_preempt_curr for a fair wakee on an EEVDF CPU, with the state
// changes around the decision: the running side's level is charged (update_curr) before the
// pick (in the decision's one pass, checkPreemptWakeupEEVDF with charge), the next buddy is
// marked, v7.1's slice protection is cancelled (with the running
// side's buddies) on a PREEMPT_WAKEUP_SHORT preemption or shortened otherwise, and need-resched
// is set. A delayed entity the pick chooses is dequeued for good and the pick repeated until it
// chooses an entity that is not delayed or the queue is empty, as v7.1's wakeup_preempt_fair
// does (its goto pick after pick_next_entity returned nothing); the wakee preempts only if that
// final pick is the wakee.
func (c *RunQueue) checkPreemptEEVDF(t *Entity, now uint64, fork bool, d *WakeupDecision) WakeupReason {
	return c.applyPreemptEEVDF(checkPreemptWakeupEEVDF(c, t, fork, &c.params, now, true, d), now, d)
}

// applyPreemptEEVDF makes the state changes of checkPreemptEEVDF that follow decision d (reason
// r), which the running side's queue was charged for, and returns the final reason: the
// buddies, the repeated pick past delayed entities, slice protection and need-resched.
func (c *RunQueue) applyPreemptEEVDF(r WakeupReason, now uint64, d *WakeupDecision) WakeupReason {
	p := &c.params
	if d.NextBuddy != nil {
		setNextBuddy(d.NextBuddy) // set_preempt_buddy, before the pick reads cfs_rq->next
	}
	if d.picked != nil && d.picked.delayed {
		// pick_next_entity: a delayed entity the pick chooses leaves for good and returns
		// nothing; wakeup_preempt_fair picks again while the queue holds entities (goto pick),
		// even when the one that left was the wakee, and tests nothing else again.
		q := d.curr.q
		for d.picked != nil && d.picked.delayed {
			c.dequeueEntities(d.picked, now, flagWakeup|flagDelayed)
			d.picked, d.pickReason = nil, pickNone
			if q.nrRunning > 0 {
				d.picked, d.pickReason = pick71(q, !d.short, q.next, p)
			}
		}
		if d.picked != nil && d.picked == d.wakee {
			d.Preempt, r, d.ShortenProtection = true, wakeupPicked, false
		} else {
			d.Preempt, r = false, wakeupNotPicked
			d.ShortenProtection = p.RunToParity
		}
	}
	if d.Preempt && d.short {
		cancelProtect(d.curr)
		if p.Version == V618 {
			// v6.18's check_preempt_wakeup_fair (fair.c blob 7e0e2044d840) leaves the buddies.
			c.needResched = true
			return r
		}
		q := d.curr.q
		if r == wakeupIdleGroupCurr {
			q = c.curr.q // the kernel's cfs_rq is still the running task's own queue here
		}
		q.clearBuddies(d.curr)
	}
	if d.ShortenProtection {
		d.curr.q.updateProtect(d.curr, p)
	}
	if d.Preempt {
		c.needResched = true
	}
	return r
}
