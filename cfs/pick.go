// This file implements Pick, the fair class's pick_next_entity. In v6.5 it is the leftmost entity,
// overridden by the buddies when that is not too unfair. From v6.6 on it is EEVDF's: the
// eligible entity with the earliest virtual deadline, found in O(log n) on the augmented
// timeline, as v6.6's __pick_eevdf / pick_eevdf / pick_next_entity and v6.18's and v7.1's
// pick_eevdf do it.

package cfs

import (
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/timeline"
)

// A PickReason says why [Pick] chose its entity.
type PickReason uint8

const (
	// pickNone: the queue is empty and there is no running entity.
	pickNone PickReason = iota
	// pickLeftmost: the entity with the smallest vruntime, the fair choice.
	pickLeftmost
	// pickCurr: the running entity, whose vruntime is before the leftmost waiting one's.
	pickCurr
	// pickSecond: the fair choice is the skip buddy (it called sched_yield), and the entity
	// after it is within the wakeup granularity of it.
	pickSecond
	// pickNextBuddy: the next buddy (a wakee that preempted, or the group of a task that just
	// went to sleep) is within the wakeup granularity of the fair choice.
	pickNextBuddy
	// pickLastBuddy: the last buddy (the task a wakeup preempted) is within the wakeup
	// granularity of the fair choice, so the CPU returns to it while its cache is warm.
	pickLastBuddy
	// pickEarliestDeadline (EEVDF): the eligible waiting entity with the earliest virtual
	// deadline.
	pickEarliestDeadline
	// pickCurrDeadline (EEVDF): the running entity, eligible and with the earliest virtual
	// deadline.
	pickCurrDeadline
	// pickCurrParity (v6.6 RUN_TO_PARITY): the running entity keeps the CPU because it is
	// still eligible and has not started a new request since it was picked.
	pickCurrParity
	// pickCurrProtected (v7.1): the running entity keeps the CPU because it is eligible and its
	// vruntime has not reached its protection point (VProt).
	pickCurrProtected
	// pickOnly (v7.1): the queue holds a single entity, taken without an eligibility test.
	pickOnly
	// pickFallback (v6.6): the search found nothing and the leftmost entity was taken, as the
	// kernel does after logging "EEVDF scheduling fail, picking leftmost".
	pickFallback
)

var pickReasons = [...]string{
	pickNone:             "nothing to pick",
	pickLeftmost:         "leftmost: smallest vruntime",
	pickCurr:             "running entity: vruntime before the leftmost",
	pickSecond:           "skip buddy passed over for the next entity, within wakeup granularity",
	pickNextBuddy:        "next buddy, within wakeup granularity of the leftmost",
	pickLastBuddy:        "last buddy, within wakeup granularity of the leftmost",
	pickEarliestDeadline: "eligible, earliest virtual deadline",
	pickCurrDeadline:     "running entity: eligible, earliest virtual deadline",
	pickCurrParity:       "running entity runs to parity: eligible, request not yet served",
	pickCurrProtected:    "running entity: slice protection holds",
	pickOnly:             "only entity on the queue",
	pickFallback:         "nothing found eligible: leftmost (EEVDF scheduling fail)",
}

// String explains the reason in a few words.
func (r PickReason) String() string { return sched.EnumName(pickReasons[:], r, "PickReason") }

// Pick returns the entity of queue q that should run next, and why: v6.5's pick_next_entity.
// curr is q's running entity if it is still a candidate (queued and not yet put back on the
// timeline), else nil. The fair choice, left, is the leftmost entity, or curr if its vruntime is
// earlier. If left is the skip buddy, the entity after it is taken instead when
// [wakeupPreemptEntity](second, left) < 1, that is, when its vruntime is not more than one wakeup
// granularity (converted with left's weight) after left's. Then the next buddy, or failing that
// the last buddy, replaces the choice under the same condition. Pick returns nil and pickNone
// when q has no candidate. The complexity is O(1), plus O(log n) to find the entity after a
// skip buddy.
//
// On an EEVDF version the pick is EEVDF's, and curr is ignored because EEVDF's pick considers
// the queue's own running entity whenever it is still queued: among the eligible
// entities (those whose vruntime is not after the queue's average, [VruntimeEligible]), the one
// with the earliest virtual deadline. q's running entity takes part if it is still queued
// (pick_eevdf reads cfs_rq->curr). The search is O(log n) on the augmented timeline:
//
//   - v6.6 (pick_next_entity, __pick_eevdf): the timeline is ordered by vruntime and every
//     node knows the earliest deadline in its subtree. Eligibility is monotonic in vruntime, so
//     from the root an ineligible node sends the search left; at an eligible node the node is a
//     candidate and its whole left subtree is eligible, so only its subtree minimum matters
//     (the best such subtree is remembered), and the search goes right only while the subtree
//     minimum lies there; finally the remembered subtree is descended along its minimum. With
//     RUN_TO_PARITY a running entity that is still eligible and has not started a new request
//     since it was picked (its VLag still holds the deadline stashed at the pick) is kept.
//     The running entity wins ties against nodes met on the way, a remembered left subtree
//     wins ties against both. With NEXT_BUDDY an eligible next buddy comes first. If nothing is
//     found the leftmost entity is returned (the kernel logs "EEVDF scheduling fail").
//   - v6.18 and v7.1 (pick_eevdf): the timeline is ordered by deadline and every node knows the
//     smallest vruntime in its subtree. A queue with one entity returns it. With PICK_BUDDY an
//     eligible next buddy comes first (v7.1 only with protect, v6.18 whatever protect is); with
//     protect a running entity whose slice protection holds (protect_slice) is kept. Otherwise the
//     leftmost (earliest deadline) entity is taken if eligible, else the search descends left
//     whenever the left subtree's smallest vruntime is eligible, takes the node if it is eligible,
//     and goes right otherwise. The running entity, if eligible, wins only with a strictly earlier
//     deadline.
//
// Pick applies slice protection (pick_next_entity); the wakeup check of [CheckPreemptWakeup]
// also asks the pick without it (PREEMPT_SHORT).
func Pick(q *Queue, curr *Entity, p *Params) (*Entity, PickReason) {
	if p.Version.EEVDF() {
		return pickEEVDF(q, true, p)
	}
	left := q.First()
	reason := pickLeftmost
	if left == nil || (curr != nil && before(curr.Vruntime, left.Vruntime)) {
		left, reason = curr, pickCurr
	}
	if left == nil {
		return nil, pickNone
	}
	se := left
	if q.skip != nil && q.skip == se {
		var second *Entity
		if se == curr {
			second = q.First()
		} else {
			if n := se.node.Next(); n != nil {
				second = n.Value()
			}
			if second == nil || (curr != nil && before(curr.Vruntime, second.Vruntime)) {
				second = curr
			}
		}
		if second != nil && wakeupPreemptEntity(second, left, p) < 1 {
			se, reason = second, pickSecond
		}
	}
	if q.next != nil && wakeupPreemptEntity(q.next, left, p) < 1 {
		se, reason = q.next, pickNextBuddy
	} else if q.last != nil && wakeupPreemptEntity(q.last, left, p) < 1 {
		se, reason = q.last, pickLastBuddy
	}
	return se, reason
}

// pickEEVDF is the EEVDF pick ([Pick] on an EEVDF version): protect is false when v7.1 judges a
// wakeup that ignores slice protection (PREEMPT_SHORT); v6.6 ignores it. The rules are listed on
// [Pick]. It panics if q's CPU does not run an EEVDF version.
func pickEEVDF(q *Queue, protect bool, p *Params) (*Entity, PickReason) {
	q.mustEEVDF("Pick")
	if p.Version == V66 {
		if p.NextBuddy && q.next != nil && entityEligible(q, q.next) {
			return q.next, pickNextBuddy
		}
		return pick66(q, p)
	}
	return pick71(q, protect, q.next, p)
}

// pick66 is v6.6's pick_eevdf: __pick_eevdf with the leftmost fallback.
func pick66(q *Queue, p *Params) (*Entity, PickReason) {
	el := q.eligibility()
	curr := q.curr
	if curr != nil && (!curr.onRQ || !el.ok(curr.Vruntime)) {
		curr = nil
	}
	if p.RunToParity && curr != nil && uint64(curr.VLag) == curr.Deadline {
		return curr, pickCurrParity
	}
	best := curr
	var bestLeft *timeline.Node[Entity]
	for n := q.timeline.Root(); n != nil; {
		if !el.ok(n.Key()) { // key = vruntime: everything to the right is ineligible too
			n = n.Left()
			continue
		}
		if best == nil || int64(best.Deadline-n.Aug()) > 0 {
			best = n.Value()
		}
		if l := n.Left(); l != nil {
			if bestLeft == nil || int64(bestLeft.AugMin()-l.AugMin()) > 0 {
				bestLeft = l
			}
			if l.AugMin() == n.AugMin() { // the subtree minimum is in the (eligible) left subtree
				break
			}
		}
		if n.Aug() == n.AugMin() { // the subtree minimum is this node
			break
		}
		n = n.Right()
	}
	var se *Entity
	if bestLeft == nil || int64(bestLeft.AugMin()-best.Deadline) > 0 {
		se = best
	} else {
		for n := bestLeft; n != nil; {
			if n.Aug() == n.AugMin() {
				se = n.Value()
				break
			}
			if l := n.Left(); l != nil && l.AugMin() == n.AugMin() {
				n = l
				continue
			}
			n = n.Right()
		}
	}
	switch {
	case se == nil:
		if left := q.First(); left != nil {
			return left, pickFallback
		}
		return nil, pickNone
	case se == curr:
		return se, pickCurrDeadline
	}
	return se, pickEarliestDeadline
}

// pick71 is v7.1's pick_eevdf, with next standing for cfs_rq->next (the wakeup path may judge
// with a buddy it is about to set).
func pick71(q *Queue, protect bool, next *Entity, p *Params) (*Entity, PickReason) {
	first := q.First()
	curr := q.curr
	if q.nrRunning == 1 {
		if curr != nil && curr.onRQ {
			return curr, pickOnly
		}
		return first, pickOnly
	}
	el := q.eligibility()
	// v6.18's pick_eevdf tests the buddy before, and whatever, protect (fair.c blob
	// 7e0e2044d840); v7.1's only when protecting.
	if p.PickBuddy && next != nil && (protect || p.Version == V618) && el.ok(next.Vruntime) {
		return next, pickNextBuddy
	}
	if curr != nil && (!curr.onRQ || !el.ok(curr.Vruntime)) {
		curr = nil
	}
	if curr != nil && protect && protected(curr) {
		return curr, pickCurrProtected
	}
	var best *Entity
	if first != nil && el.ok(first.Vruntime) {
		best = first
	} else {
		for n := q.timeline.Root(); n != nil; {
			if l := n.Left(); l != nil && el.ok(l.AugMin()) { // augMin = smallest vruntime
				n = l
				continue
			}
			if el.ok(n.Aug()) {
				best = n.Value()
				break
			}
			n = n.Right()
		}
	}
	if best == nil || (curr != nil && before(curr.Deadline, best.Deadline)) {
		if curr == nil {
			return nil, pickNone
		}
		return curr, pickCurrDeadline
	}
	return best, pickEarliestDeadline
}
