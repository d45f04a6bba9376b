package cfs

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/schedkit/schedkit/timeline"
)

// timelineErr checks what the queues rely on of timeline t, through its exported API: the
// in-order walk is non-decreasing in wrap-aware key order and has Len nodes, First is its
// first node, every node has an element, and on an augmented timeline every node's AugMin is
// the minimum of its Aug and its children's AugMin. (Package timeline's own tests check the
// red-black properties and the links.)
func timelineErr[T any](t *timeline.Timeline[T]) error {
	count := 0
	var prev *timeline.Node[T]
	var walk func(n *timeline.Node[T]) error
	walk = func(n *timeline.Node[T]) error {
		if n == nil {
			return nil
		}
		if n.Value() == nil || !n.Queued() {
			return fmt.Errorf("node %d: no value, or not queued", n.Key())
		}
		if err := walk(n.Left()); err != nil {
			return err
		}
		if prev != nil && before(n.Key(), prev.Key()) {
			return fmt.Errorf("keys out of order: %d after %d", n.Key(), prev.Key())
		}
		if prev == nil && t.First() != n {
			return fmt.Errorf("cached first is not the leftmost node")
		}
		prev = n
		count++
		if err := walk(n.Right()); err != nil {
			return err
		}
		if t.Augmented() {
			m := n.Aug()
			for _, c := range []*timeline.Node[T]{n.Left(), n.Right()} {
				if c != nil && before(c.AugMin(), m) {
					m = c.AugMin()
				}
			}
			if n.AugMin() != m {
				return fmt.Errorf("node %d: AugMin %d, want %d", n.Key(), n.AugMin(), m)
			}
		}
		return nil
	}
	if err := walk(t.Root()); err != nil {
		return err
	}
	if t.Root() == nil && t.First() != nil {
		return fmt.Errorf("empty tree has a cached first node")
	}
	if count != t.Len() {
		return fmt.Errorf("Len() = %d, but the tree holds %d nodes", t.Len(), count)
	}
	return nil
}

// checkCPU walks c's whole queue hierarchy and fails the test if any invariant documented on
// Queue and CPU does not hold. minSeen, if not nil, remembers each queue's min_vruntime between
// calls, to check that it never moves backwards.
func checkCPU(tb testing.TB, c *RunQueue, minSeen map[*Queue]uint64) {
	tb.Helper()
	if err := cpuErr(c, minSeen); err != nil {
		tb.Fatalf("CPU invariant: %v", err)
	}
}

func cpuErr(c *RunQueue, minSeen map[*Queue]uint64) error { return cpuErrShares(c, minSeen, true) }

// cpuErrShares is cpuErr, checking each queued group entity's weight against its group's
// shares only if shares is set (a multiprocessor driver refreshes those weights lazily, as the
// kernel does).
func cpuErrShares(c *RunQueue, minSeen map[*Queue]uint64, shares bool) error {
	// The running task's chain: each level is its queue's curr, and the chain reaches the root.
	if c.curr != nil {
		if !c.curr.isTask() {
			return fmt.Errorf("rq->curr %v is a group entity", c.curr)
		}
		var top *Entity
		for se := c.curr; se != nil; se = se.parent {
			if se.q.curr != se {
				return fmt.Errorf("%v is on the running chain but its queue's curr is %v", se, se.q.curr)
			}
			top = se
		}
		if top.q != &c.root {
			return fmt.Errorf("the running chain of %v does not reach the root queue", c.curr)
		}
	} else if c.root.curr != nil {
		return fmt.Errorf("CPU idle but the root queue's curr is %v", c.root.curr)
	}
	_, _, _, err := queueErr(&c.root, minSeen, shares)
	return err
}

// queueErr checks q and the queues below it and returns the number of tasks in q's hierarchy,
// how many of them are not delayed, and how many count as idle.
func queueErr(q *Queue, minSeen map[*Queue]uint64, shares bool) (h, hr, idleH uint32, err error) {
	if err := timelineErr(&q.timeline); err != nil {
		return 0, 0, 0, fmt.Errorf("queue %v: %w", q.group, err)
	}
	var ents []*Entity
	v := q.cpu.params.Version
	for n := q.timeline.First(); n != nil; n = n.Next() {
		e := n.Value()
		key, aug := e.Vruntime, e.Deadline
		if v >= V618 {
			key, aug = e.Deadline, e.Vruntime
		}
		if n.Key() != key {
			return 0, 0, 0, fmt.Errorf("%v: timeline key %d, want %d", e, n.Key(), key)
		}
		if v.EEVDF() && n.Aug() != aug {
			return 0, 0, 0, fmt.Errorf("%v: augmented value %d, want %d", e, n.Aug(), aug)
		}
		if e == q.curr {
			return 0, 0, 0, fmt.Errorf("running entity %v is on the timeline", e)
		}
		ents = append(ents, e)
	}
	if v.EEVDF() {
		if err := eevdfQueueErr(q, ents); err != nil {
			return 0, 0, 0, err
		}
	}
	if q.curr != nil && q.curr.onRQ {
		ents = append(ents, q.curr)
	}
	if int(q.nrRunning) != len(ents) {
		return 0, 0, 0, fmt.Errorf("queue %v: nr_running %d, %d queued entities", q.group, q.nrRunning, len(ents))
	}
	var load uint64
	var idle uint32
	for _, e := range ents {
		if e.delayed && (q.cpu.params.Version < V618 || !q.cpu.params.DelayDequeue) {
			return 0, 0, 0, fmt.Errorf("%v delayed without DELAY_DEQUEUE", e)
		}
		if e.delayed && q.next == e {
			return 0, 0, 0, fmt.Errorf("%v is delayed and the next buddy", e)
		}
		if !e.onRQ || e.q != q {
			return 0, 0, 0, fmt.Errorf("%v on queue %v: on_rq %t, queue %v", e, q.group, e.onRQ, e.q.group)
		}
		load += e.load.Weight
		if e.IsIdle() {
			idle++
		}
		if e.isTask() {
			h++
			if !e.delayed {
				hr++
			}
			if e.class == Idle {
				idleH++
			}
			continue
		}
		if e.myQ.nrRunning == 0 {
			if !e.delayed {
				return 0, 0, 0, fmt.Errorf("group entity %v queued with an empty queue", e)
			}
			continue // a delayed group entity keeps its weight (v7.1 update_cfs_group)
		}
		if e.delayed {
			return 0, 0, 0, fmt.Errorf("group entity %v is delayed with %d entities below it", e, e.myQ.nrRunning)
		}
		if want := e.group.entityShares(e.cpu); shares && e.load.Weight != want {
			return 0, 0, 0, fmt.Errorf("group entity %v: weight %d, shares %d", e, e.load.Weight, want)
		}
		ch, cr, ci, err := queueErr(e.myQ, minSeen, shares)
		if err != nil {
			return 0, 0, 0, err
		}
		h += ch
		hr += cr
		if e.myQ.isIdle() {
			idleH += ch
		} else {
			idleH += ci
		}
	}
	if q.load.Weight != load {
		return 0, 0, 0, fmt.Errorf("queue %v: load %d, sum of weights %d", q.group, q.load.Weight, load)
	}
	if g := q.group; g != nil && g.loadSum != naiveLoadSum(g) {
		return 0, 0, 0, fmt.Errorf("group %v: sum of loads %d, its CPUs' queues sum to %d", g, g.loadSum, naiveLoadSum(g))
	}
	if q.idleNrRunning != idle {
		return 0, 0, 0, fmt.Errorf("queue %v: idle_nr_running %d, want %d", q.group, q.idleNrRunning, idle)
	}
	if q.hNrRunning != h || q.idleHNrRunning != idleH {
		return 0, 0, 0, fmt.Errorf("queue %v: h_nr_running %d idle_h_nr_running %d, want %d and %d", q.group, q.hNrRunning, q.idleHNrRunning, h, idleH)
	}
	if q.hNrRunnable != hr {
		return 0, 0, 0, fmt.Errorf("queue %v: h_nr_runnable %d, want %d (h_nr_running %d)", q.group, q.hNrRunnable, hr, h)
	}
	for _, b := range []*Entity{q.next, q.last, q.skip} {
		if b != nil && (!b.onRQ || b.q != q) {
			return 0, 0, 0, fmt.Errorf("queue %v: buddy %v is not queued here", q.group, b)
		}
	}
	if minSeen != nil && v < V618 {
		if old, ok := minSeen[q]; ok && before(q.minVruntime, old) {
			return 0, 0, 0, fmt.Errorf("queue %v: min_vruntime moved back from %d to %d", q.group, old, q.minVruntime)
		}
		minSeen[q] = q.minVruntime
	}
	return h, hr, idleH, nil
}

// eevdfQueueErr checks the EEVDF invariants of q, whose timeline holds tree: the averaging sums
// equal their definitions, the weighted lags of the queued entities cancel out up to the floor
// of the average (lag conservation: -W < Σ w_i·(V - v_i) <= 0), and in v7.1 the slice
// timeline mirrors the timeline.
func eevdfQueueErr(q *Queue, tree []*Entity) error {
	v := q.cpu.params.Version
	var sumW int64
	var sumWeight uint64
	for _, e := range tree {
		w := avgWeight(v, e.load)
		sumW += int64(e.Vruntime-q.minVruntime) * int64(w)
		sumWeight += w
	}
	if sumW != q.sumW || sumWeight != q.sumWeight {
		return fmt.Errorf("queue %v: sums (%d, %d), recomputed (%d, %d)", q.group, q.sumW, q.sumWeight, sumW, sumWeight)
	}
	all := tree
	if c := q.currQueued(); c != nil {
		all = append(all[:len(all):len(all)], c)
	}
	if len(all) > 0 {
		if lag, load := weightedLagSum(q, all); lag.Sign() > 0 || new(big.Int).Neg(lag).Cmp(load) >= 0 {
			return fmt.Errorf("queue %v: Σ w_i·(V - v_i) = %v, want in (-%v, 0]", q.group, lag, load)
		}
	}
	if v < V618 {
		if q.slices.Len() != 0 {
			return fmt.Errorf("queue %v: slice timeline used before v6.18", q.group)
		}
		return nil
	}
	if err := timelineErr(&q.slices); err != nil {
		return fmt.Errorf("queue %v slices: %w", q.group, err)
	}
	if q.slices.Len() != len(tree) {
		return fmt.Errorf("queue %v: %d slices for %d entities", q.group, q.slices.Len(), len(tree))
	}
	for _, e := range tree {
		if !e.sliceNode.Queued() || e.sliceNode.Key() != e.Slice {
			return fmt.Errorf("%v: slice node key %d (queued %t), slice %d", e, e.sliceNode.Key(), e.sliceNode.Queued(), e.Slice)
		}
	}
	return nil
}

// weightedLagSum returns Σ w_i·(V - v_i) over ents and Σ w_i, exactly, with V = AvgVruntime(q)
// and the version's averaging weights.
func weightedLagSum(q *Queue, ents []*Entity) (lag, load *big.Int) {
	v := q.cpu.params.Version
	avg := AvgVruntime(q.Sums())
	lag, load = new(big.Int), new(big.Int)
	for _, e := range ents {
		w := new(big.Int).SetUint64(avgWeight(v, e.load))
		lag.Add(lag, new(big.Int).Mul(w, big.NewInt(int64(avg-e.Vruntime))))
		load.Add(load, w)
	}
	return lag, load
}

// naiveLoadSum is Group.loadSum added up CPU by CPU, as the kernel's formula (1) in
// calc_group_shares' comment reads: the sum over the CPUs of the group's scaled queue loads.
func naiveLoadSum(g *Group) uint64 {
	var sum uint64
	for i := range g.cpus {
		sum += ScaleLoadDown(g.cpus[i].q.load.Weight)
	}
	return sum
}
