package runq

import "math/bits"

// A Pred is the predicate of [Runq.Find]: runq_pred_t. It is called with the index and the
// contents of a non-empty queue and reports whether the search should stop at that queue. It may
// look at every element of the queue and record any of them (not only the head) in variables it
// closes over, which is how the kernel's pred_data carries a chosen thread out. It must not add
// to or remove from the Runq.
type Pred[T any] func(i Index, q *Queue[T]) bool

// Find is the run queue's one search primitive, runq_findq. It calls pred on the non-empty
// queues of r in ascending index order, each at most once, and returns the index of the first
// queue for which pred returns true; it reports false if pred declines every queue or r holds no
// element. Empty queues are skipped through the status words without calling pred.
//
// Find panics if r is inverted or pred is nil. The complexity is O(r.Len()/64) plus one call of
// pred per non-empty queue visited.
func (q *Runq[T]) Find(r Range, pred Pred[T]) (Index, bool) {
	r.mustBeValid("Find")
	if pred == nil {
		panic("runq: Find with a nil predicate")
	}
	lo, hi := int(r.Lo)/wordBits, int(r.Hi)/wordBits
	for w := lo; w <= hi; w++ {
		x := q.status[w]
		if w == lo {
			x &= ^uint64(0) << (r.Lo % wordBits) // drop queues below Lo
		}
		if w == hi {
			x &= ^uint64(0) >> (wordBits - 1 - r.Hi%wordBits) // drop queues above Hi
		}
		// Loop invariant: x holds the bits of word w not yet offered to pred.
		for ; x != 0; x &= x - 1 {
			i := Index(w*wordBits + bits.TrailingZeros64(x))
			if pred(i, &q.queues[i]) {
				return i, true
			}
		}
	}
	return 0, false
}

// FindCircular searches r circularly from start: first start through r.Hi, then r.Lo through
// start-1. The two parts are disjoint, so no queue is offered to pred twice. This is the scan of
// ULE's timeshare calendar, which starts at the dequeue offset and wraps around the timeshare
// range (tdq_choose and tdq_steal in sched_ule.c issue the same two runq_findq calls).
//
// FindCircular panics if r is inverted or does not contain start. The complexity is that of the
// two Find calls.
func (q *Runq[T]) FindCircular(r Range, start Index, pred Pred[T]) (Index, bool) {
	r.mustBeValid("FindCircular")
	if !r.Contains(start) {
		panic("runq: FindCircular: start outside the range " + r.String())
	}
	if i, ok := q.Find(Range{Lo: start, Hi: r.Hi}, pred); ok {
		return i, true
	}
	if start == r.Lo {
		return 0, false
	}
	return q.Find(Range{Lo: r.Lo, Hi: start - 1}, pred)
}

// FirstIn returns the first element of the first non-empty queue in r, without removing it:
// runq_first_thread_range. It reports false if r holds no element. FirstIn panics if r is
// inverted. The complexity is O(r.Len()/64).
func (q *Runq[T]) FirstIn(r Range) (*T, bool) {
	var x *T
	_, ok := q.Find(r, func(_ Index, qq *Queue[T]) bool {
		x = qq.root.next.elem
		return true
	})
	return x, ok
}

// Steal returns the first element, in queue order and then FIFO order within a queue, of the
// queues in r for which eligible returns true, without removing it. A queue in which no element
// is eligible is passed over and the search goes on. This is FreeBSD main's stealing search
// (runq_steal_pred over runq_findq in sched_ule.c), where eligible tests that the thread is not
// pinned and may run on the thief's CPU.
//
// Steal panics if r is inverted or eligible is nil. The complexity is O(r.Len()/64) plus one
// call of eligible per element examined.
func (q *Runq[T]) Steal(r Range, eligible func(*T) bool) (*T, bool) {
	if eligible == nil {
		panic("runq: Steal with a nil predicate")
	}
	var x *T
	_, ok := q.Find(r, func(_ Index, qq *Queue[T]) bool {
		var found bool
		x, found = qq.FirstMatch(eligible)
		return found
	})
	return x, ok
}
