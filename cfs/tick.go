// This file implements the scheduler tick of the fair class: task_tick_fair and entity_tick at
// every level of the running task's hierarchy, with v6.5's check_preempt_tick (and seed 004's
// option) as the decision, and EEVDF's update_curr, which decides by itself, in v6.6 and v7.1.

package cfs

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
)

// A TickReason says why [CheckPreemptTick] decided as it did.
type TickReason uint8

const (
	// TickNoCompetitor: the queue holds only the running entity; the kernel does not even ask.
	TickNoCompetitor TickReason = iota
	// tickSliceExpired: the running entity ran longer than its ideal slice. Resched.
	tickSliceExpired
	// tickBelowMinGranularity: it ran less than the minimum granularity. No resched.
	tickBelowMinGranularity
	// tickBehindLeftmost: its vruntime is still before the leftmost waiting entity's.
	// No resched.
	tickBehindLeftmost
	// tickFavorNonIdle: with the seed-004 option, the running entity is non-idle and the
	// leftmost is idle, so a vruntime lead does not count. No resched.
	tickFavorNonIdle
	// tickLeadWithinSlice: its vruntime is after the leftmost's, by no more than the ideal
	// slice. No resched.
	tickLeadWithinSlice
	// tickLeadOverSlice: its vruntime is after the leftmost's by more than the ideal slice, so
	// an entity that narrowly missed wakeup preemption does not wait a full slice. Resched.
	tickLeadOverSlice
	// tickRequestServed (EEVDF): the running entity's vruntime reached its virtual deadline, so
	// its request is served and a new one was made (update_deadline). Resched.
	tickRequestServed
	// tickProtectionOver (v7.1): the running entity's vruntime passed its protection point
	// (VProt) while its request is still open. Resched, so that the pick can compare
	// deadlines again.
	tickProtectionOver
	// tickRequestOpen (EEVDF): the request is not yet served (and, in v7.1, the protection
	// holds). No resched.
	tickRequestOpen
)

var tickReasons = [...]string{
	TickNoCompetitor:        "no other entity on the queue",
	tickSliceExpired:        "ran longer than its ideal slice",
	tickBelowMinGranularity: "ran less than the minimum granularity",
	tickBehindLeftmost:      "vruntime still before the leftmost",
	tickFavorNonIdle:        "non-idle entity keeps its slice against an idle leftmost (seed-004 option)",
	tickLeadWithinSlice:     "vruntime lead over the leftmost within the ideal slice",
	tickLeadOverSlice:       "vruntime lead over the leftmost larger than the ideal slice",
	tickRequestServed:       "request served: new deadline",
	tickProtectionOver:      "slice protection over",
	tickRequestOpen:         "request not yet served",
}

// String explains the reason in a few words.
func (r TickReason) String() string { return sched.EnumName(tickReasons[:], r, "TickReason") }

// A TickDecision is the outcome of [CheckPreemptTick], with the figures it was made from. The
// rule that decided is not part of it: [CheckPreemptTick] returns it beside the decision, as a
// [TickReason], so that it has one source.
type TickDecision struct {
	// Resched reports whether the running entity should be switched out.
	Resched bool
	// Curr is the running entity the decision is about; leftmost the first waiting entity, if
	// the decision looked at it.
	Curr, leftmost *Entity
	// Ideal is the ideal slice, min(sched_slice, Latency), in nanoseconds.
	Ideal uint64
	// ran is the time Curr has run since it was picked, in nanoseconds.
	ran uint64
	// lead is Curr's vruntime minus leftmost's, if the decision looked at it.
	lead int64
	// vruntime and deadline are Curr's vruntime and virtual deadline after the tick charged it
	// (EEVDF only).
	vruntime, deadline uint64
}

// Explain explains the decision, made for reason r (the reason [CheckPreemptTick] or
// [RunQueue.Tick] returned with it).
func (d TickDecision) Explain(r TickReason) string {
	verdict := "keep running"
	if d.Resched {
		verdict = "resched"
	}
	if r >= tickRequestServed {
		return fmt.Sprintf("tick %v: %s: %v (ran %d ns, vruntime %d, deadline %d)", d.Curr, verdict, r, d.ran, d.vruntime, d.deadline)
	}
	s := fmt.Sprintf("tick %v: %s: %v (ran %d ns, ideal %d ns", d.Curr, verdict, r, d.ran, d.Ideal)
	if d.leftmost != nil {
		s += fmt.Sprintf(", lead %d ns over %v", d.lead, d.leftmost)
	}
	return s + ")"
}

// CheckPreemptTick decides at a tick whether curr, the running entity of queue q, should give
// way: v6.5's check_preempt_tick, which the kernel calls only when q holds more than one entity
// (else the decision here is TickNoCompetitor). The ideal slice is min([Slice](q, curr),
// Latency) and ran the time since curr was picked. Rules, in order: ran > ideal reschedules;
// ran < MinGranularity keeps curr; otherwise d = curr.Vruntime - leftmost.Vruntime, and curr is
// rescheduled iff d > ideal, comparing a virtual lead with a wall-clock slice as the kernel
// does. With p.FavorNonIdleTick (seed 004), a non-idle curr is not rescheduled for a lead over
// an idle leftmost. The caller is expected to have charged curr's run time (update_curr), as
// [RunQueue.Tick] does. CheckPreemptTick changes nothing.
func CheckPreemptTick(q *Queue, curr *Entity, p *Params) (TickDecision, TickReason) {
	d := TickDecision{Curr: curr}
	if q.nrRunning <= 1 {
		return d, TickNoCompetitor // entity_tick does not ask
	}
	r := checkPreemptTick(q, curr, p, &d)
	return d, r
}

// checkPreemptTick is check_preempt_tick, which entity_tick calls only when q holds more than one
// entity: [CheckPreemptTick] writing its decision to *d, for the tick path, which neither copies
// the parameters nor the decision.
func checkPreemptTick(q *Queue, curr *Entity, p *Params, d *TickDecision) TickReason {
	ideal := min(slice(q, curr, p), p.Latency)
	ran := curr.SumExecRuntime - curr.prevSumExecRuntime
	*d = TickDecision{Curr: curr, Ideal: ideal, ran: ran}
	if ran > ideal {
		d.Resched = true
		return tickSliceExpired
	}
	if ran < p.MinGranularity {
		return tickBelowMinGranularity
	}
	left := q.First()
	if left == nil {
		return TickNoCompetitor
	}
	lead := int64(curr.Vruntime - left.Vruntime)
	d.leftmost, d.lead = left, lead
	switch {
	case lead < 0:
		return tickBehindLeftmost
	case p.FavorNonIdleTick && left.IsIdle() && !curr.IsIdle():
		return tickFavorNonIdle
	case uint64(lead) > ideal:
		d.Resched = true
		return tickLeadOverSlice
	}
	return tickLeadWithinSlice
}

// Tick is the scheduler tick for the running task: task_tick_fair. At every level of the running
// task's hierarchy, innermost first, entity_tick charges the running entity (update_curr),
// refreshes a group entity's weight (update_cfs_group) and decides whether the running entity
// should give way. Tick returns the first positive decision, or the innermost level's negative
// one, and its reason; the zero TickDecision and TickNoCompetitor if the CPU is idle.
//
// In v6.5 a level whose queue holds more than one entity asks [CheckPreemptTick]; a positive
// answer sets the need-resched flag (and, when the slice ran out, clears the entity's buddies);
// a level without competitor decides nothing, and if no level had one the decision is the zero
// TickDecision with TickNoCompetitor. In EEVDF there is no check_preempt_tick: the charge itself
// (update_curr) renews a served request and, when another entity is queued at that level, asks
// for a reschedule (v7.1 also once the slice protection is over). The decision then reports, per
// level, why: tickRequestServed, tickProtectionOver, tickRequestOpen or TickNoCompetitor.
func (c *RunQueue) Tick(now uint64) (TickDecision, TickReason) {
	var d TickDecision
	r := c.tick(c.curr, now, &d)
	return d, r
}

// tick is [RunQueue.Tick] from entity se up, writing its decision to *d and returning its reason:
// task_tick_fair's for_each_sched_entity, with entity_tick written in the loop. The first level
// that decides writes to *d; the levels above it are ticked by the recursive call, and their
// decision (the first of them to reschedule, or the lowest) replaces *d only when it reschedules
// and *d does not. The [System] keeps *d between ticks, so that nothing is copied out of the
// call.
func (c *RunQueue) tick(se *Entity, now uint64, d *TickDecision) TickReason {
	p := &c.params
	for ; se != nil; se = se.parent {
		// entity_tick: update_curr, update_cfs_group, and the level's decision.
		q := se.q
		var r TickReason
		if p.Version.EEVDF() {
			ch := q.updateCurrEEVDF(now, p) // update_curr decides, and asks for the reschedule
			q.updateGroup(se, now, p)
			*d = TickDecision{Curr: se, Resched: ch.resched, ran: se.SumExecRuntime - se.prevSumExecRuntime,
				vruntime: se.Vruntime, deadline: se.Deadline}
			r = ch.tickReason(q)
		} else {
			q.updateCurr(now, p)
			q.updateGroup(se, now, p)
			if q.nrRunning <= 1 {
				continue // the kernel does not ask check_preempt_tick
			}
			r = checkPreemptTick(q, se, p, d)
			if d.Resched {
				c.needResched = true
				if r == tickSliceExpired {
					q.clearBuddies(se)
				}
			}
		}
		if se.parent != nil {
			var above TickDecision
			if ar := c.tick(se.parent, now, &above); above.Resched && !d.Resched {
				*d, r = above, ar
			}
		}
		return r
	}
	*d = TickDecision{}
	return TickNoCompetitor
}

// tickReason says why EEVDF's update_curr, which charged the running entity of q, decided as it
// did.
func (ch chargeResult) tickReason(q *Queue) TickReason {
	switch {
	case q.nrRunning <= 1:
		return TickNoCompetitor
	case ch.renewed:
		return tickRequestServed
	case ch.unprotected:
		return tickProtectionOver
	}
	return tickRequestOpen
}
