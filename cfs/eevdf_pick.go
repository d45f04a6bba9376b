// This file implements EEVDF's pick: the eligible entity with the earliest virtual deadline,
// found in O(log n) on the augmented timeline, as v6.6's __pick_eevdf / pick_eevdf /
// pick_next_entity and v7.1's pick_eevdf do it.

package cfs

// PickEEVDF returns the entity of queue q that EEVDF runs next, and why: among the eligible
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
//   - v7.1 (pick_eevdf): the timeline is ordered by deadline and every node knows the smallest
//     vruntime in its subtree. A queue with one entity returns it. With PICK_BUDDY and protect
//     an eligible next buddy comes first; with protect a running entity whose slice protection
//     holds ([Protected]) is kept. Otherwise the leftmost (earliest deadline) entity is taken
//     if eligible, else the search descends left whenever the left subtree's smallest vruntime
//     is eligible, takes the node if it is eligible, and goes right otherwise. The running
//     entity, if eligible, wins only with a strictly earlier deadline.
//
// protect is false when v7.1 judges a wakeup that ignores slice protection (PREEMPT_SHORT);
// v6.6 ignores it. PickEEVDF returns nil and PickNone when q holds no queued entity. It changes
// nothing and does not allocate. PickEEVDF panics if q's CPU does not run an EEVDF version.
func PickEEVDF(q *Queue, protect bool, p Params) (*Entity, PickReason) {
	q.mustEEVDF("PickEEVDF")
	if p.Version == V66 {
		if p.NextBuddy && q.next != nil && EntityEligible(q, q.next) {
			return q.next, PickNextBuddy
		}
		return pick66(q, p)
	}
	return pick71(q, protect, q.next, p)
}

// pick66 is v6.6's pick_eevdf: __pick_eevdf with the leftmost fallback.
func pick66(q *Queue, p Params) (*Entity, PickReason) {
	el := q.eligibility()
	curr := q.curr
	if curr != nil && (!curr.onRQ || !el.ok(curr.Vruntime)) {
		curr = nil
	}
	if p.RunToParity && curr != nil && uint64(curr.VLag) == curr.Deadline {
		return curr, PickCurrParity
	}
	best := curr
	var bestLeft *Node[Entity]
	for n := q.timeline.root; n != nil; {
		if !el.ok(n.key) { // key = vruntime: everything to the right is ineligible too
			n = n.child[0]
			continue
		}
		if best == nil || int64(best.Deadline-n.aug) > 0 {
			best = n.value
		}
		if l := n.child[0]; l != nil {
			if bestLeft == nil || int64(bestLeft.augMin-l.augMin) > 0 {
				bestLeft = l
			}
			if l.augMin == n.augMin { // the subtree minimum is in the (eligible) left subtree
				break
			}
		}
		if n.aug == n.augMin { // the subtree minimum is this node
			break
		}
		n = n.child[1]
	}
	var se *Entity
	if bestLeft == nil || int64(bestLeft.augMin-best.Deadline) > 0 {
		se = best
	} else {
		for n := bestLeft; n != nil; {
			if n.aug == n.augMin {
				se = n.value
				break
			}
			if l := n.child[0]; l != nil && l.augMin == n.augMin {
				n = l
				continue
			}
			n = n.child[1]
		}
	}
	switch {
	case se == nil:
		if left := q.First(); left != nil {
			return left, PickFallback
		}
		return nil, PickNone
	case se == curr:
		return se, PickCurrDeadline
	}
	return se, PickEarliestDeadline
}

// pick71 is v7.1's pick_eevdf, with next standing for cfs_rq->next (the wakeup path may judge
// with a buddy it is about to set).
func pick71(q *Queue, protect bool, next *Entity, p Params) (*Entity, PickReason) {
	first := q.First()
	curr := q.curr
	if q.nrRunning == 1 {
		if curr != nil && curr.onRQ {
			return curr, PickOnly
		}
		return first, PickOnly
	}
	el := q.eligibility()
	if p.PickBuddy && protect && next != nil && el.ok(next.Vruntime) {
		return next, PickNextBuddy
	}
	if curr != nil && (!curr.onRQ || !el.ok(curr.Vruntime)) {
		curr = nil
	}
	if curr != nil && protect && Protected(curr) {
		return curr, PickCurrProtected
	}
	var best *Entity
	if first != nil && el.ok(first.Vruntime) {
		best = first
	} else {
		for n := q.timeline.root; n != nil; {
			if l := n.child[0]; l != nil && el.ok(l.augMin) { // augMin = smallest vruntime
				n = l
				continue
			}
			if el.ok(n.aug) {
				best = n.value
				break
			}
			n = n.child[1]
		}
	}
	if best == nil || (curr != nil && before(curr.Deadline, best.Deadline)) {
		if curr == nil {
			return nil, PickNone
		}
		return curr, PickCurrDeadline
	}
	return best, PickEarliestDeadline
}
