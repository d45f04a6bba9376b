// This file implements EEVDF's wakeup preemption: v6.6's check_preempt_wakeup ("would the pick
// choose the wakee now?") and v7.1's wakeup_preempt_fair (the same question, with slice
// protection, PREEMPT_SHORT and the fork exception), and the state changes around them.

package cfs

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
	curr := c.curr
	*d = WakeupDecision{curr: curr, wakee: wakee}
	if curr == nil {
		d.Preempt = true
		return wakeupCPUIdle
	}
	if curr == wakee {
		return wakeupSameTask
	}
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
	p := &c.params
	r := checkPreemptWakeupEEVDF(c, t, fork, p, now, true, d)
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
