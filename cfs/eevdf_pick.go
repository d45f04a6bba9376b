// This file implements EEVDF's pick: the eligible entity with the earliest virtual deadline,
// found in O(log n) on the augmented timeline, as v6.6's __pick_eevdf / pick_eevdf /
// pick_next_entity and v7.1's pick_eevdf do it.

package cfs

import "github.com/schedkit/schedkit/timeline"

// pickEEVDF is the EEVDF pick ([Pick] on an EEVDF version): protect is false when v7.1 judges a
// wakeup that ignores slice protection (PREEMPT_SHORT); v6.6 ignores it. The rules are listed on
// [Pick]. It panics if q's CPU does not run an EEVDF version.
func pickEEVDF(q *Queue, protect bool, p *Params) (*Entity, PickReason) {
	q.mustEEVDF("Pick")
	if p.Version == V66 {
		if p.NextBuddy && q.next != nil && EntityEligible(q, q.next) {
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
	if p.PickBuddy && protect && next != nil && el.ok(next.Vruntime) {
		return next, pickNextBuddy
	}
	if curr != nil && (!curr.onRQ || !el.ok(curr.Vruntime)) {
		curr = nil
	}
	if curr != nil && protect && Protected(curr) {
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
