package cfs

import (
	"math/big"
)

// The naive EEVDF model: eligibility from its definition with exact integers, and the pick as an
// O(n) scan of every queued entity, following pick_eevdf in kernel/sched/fair.c (the eligible
// entity with the earliest deadline; see the package documentation, "EEVDF"). The fuzz tests hold
// the O(log n) searches to it.

// queuedEntities returns the entities queued on q: the timeline and a queued running entity.
func queuedEntities(q *Queue) []*Entity {
	var all []*Entity
	for n := q.timeline.First(); n != nil; n = n.Next() {
		all = append(all, n.Value())
	}
	if c := q.currQueued(); c != nil {
		all = append(all, c)
	}
	return all
}

// naiveEligible reports whether Σ w_j·(v_j - v) >= 0 over the queued entities of q, computed
// exactly (the vruntime differences are taken wrap-aware, as the kernel's keys are).
func naiveEligible(q *Queue, v uint64) bool {
	ver := q.cpu.params.Version
	sum := new(big.Int)
	for _, e := range queuedEntities(q) {
		w := new(big.Int).SetUint64(avgWeight(ver, e.load))
		sum.Add(sum, w.Mul(w, big.NewInt(int64(e.Vruntime-v))))
	}
	return sum.Sign() >= 0
}

// naivePick is the reference pick: the special rules of each version in order, then the
// eligible queued entity (running one included) with the earliest deadline, by a linear scan.
// It returns the entity and the reason; for ties in the deadline any of the tied entities is
// acceptable, so the caller compares deadlines.
func naivePick(q *Queue, protect bool, p Params) (*Entity, PickReason) {
	all := queuedEntities(q)
	if len(all) == 0 {
		return nil, pickNone
	}
	curr := q.currQueued()
	if curr != nil && !naiveEligible(q, curr.Vruntime) {
		curr = nil
	}
	if p.Version == V66 {
		if p.NextBuddy && q.next != nil && naiveEligible(q, q.next.Vruntime) {
			return q.next, pickNextBuddy
		}
		if p.RunToParity && curr != nil && uint64(curr.VLag) == curr.Deadline {
			return curr, pickCurrParity
		}
	} else {
		if len(all) == 1 {
			return all[0], pickOnly
		}
		// v6.18 takes an eligible buddy whatever protect is, v7.1 only when protecting.
		if p.PickBuddy && (protect || p.Version == V618) && q.next != nil && naiveEligible(q, q.next.Vruntime) {
			return q.next, pickNextBuddy
		}
		if curr != nil && protect && before(curr.Vruntime, curr.VProt) {
			return curr, pickCurrProtected
		}
	}
	var best *Entity
	for _, e := range all {
		if q.currQueued() == e && curr == nil {
			continue // the running entity is not eligible
		}
		if !naiveEligible(q, e.Vruntime) {
			continue
		}
		if best == nil || before(e.Deadline, best.Deadline) {
			best = e
		}
	}
	switch {
	case best == nil:
		return q.First(), pickFallback
	case best == curr:
		return best, pickCurrDeadline
	}
	return best, pickEarliestDeadline
}
