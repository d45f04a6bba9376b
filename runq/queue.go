package runq

import "iter"

// A Queue is one FIFO level of a [Runq]: rq_queues[i] in FreeBSD, a TAILQ of threads. It is
// exposed read-only, so that the predicate of [Runq.Find] can look at a whole queue and pick any
// element of it; only the Runq adds and removes.
//
// A Queue is a circular doubly linked list through a root link that holds no element, as
// container/list's is, so that unlinking needs no branch. The root of a queue that has never
// been used is zero; that of a queue that became empty points at itself.
//
// Invariant: following next from the root of a non-empty queue visits its element links and comes
// back to the root, each link's prev pointing at its predecessor and its idx equal to the queue's
// index. A Queue keeps no count: a counter would cost every Add and Remove an increment, and
// Remove would no longer fit the inliner's budget.
type Queue[T any] struct {
	root Link[T]
}

// front returns the first element link, or nil if q is empty.
func (q *Queue[T]) front() *Link[T] {
	if q.empty() {
		return nil
	}
	return q.root.next
}

// empty reports whether q holds no element.
func (q *Queue[T]) empty() bool { return q.root.next == nil || q.root.next == &q.root }

// back returns the last element link, or nil if q is empty.
func (q *Queue[T]) back() *Link[T] {
	if q.empty() {
		return nil
	}
	return q.root.prev
}

// Len returns the number of elements in q. The complexity is O(q.Len()): a queue keeps no count
// (see the invariant above); [Runq.Len] is O(1).
func (q *Queue[T]) Len() int {
	n := 0
	for l := q.front(); l != nil && l != &q.root; l = l.next {
		n++
	}
	return n
}

// Front returns the first element of q, the one that runs next at this level, or nil if q is
// empty. The complexity is O(1).
func (q *Queue[T]) Front() *T {
	if l := q.front(); l != nil {
		return l.elem
	}
	return nil
}

// Back returns the last element of q, or nil if q is empty. The complexity is O(1).
func (q *Queue[T]) Back() *T {
	if l := q.back(); l != nil {
		return l.elem
	}
	return nil
}

// FirstMatch returns the first element of q, in FIFO order, for which ok returns true. It is the
// queue walk of FreeBSD's runq_steal_pred, which looks for the first migratable thread. The
// complexity is O(q.Len()) calls of ok.
func (q *Queue[T]) FirstMatch(ok func(*T) bool) (*T, bool) {
	for l := q.front(); l != nil && l != &q.root; l = l.next {
		if ok(l.elem) {
			return l.elem, true
		}
	}
	return nil, false
}

// All returns an iterator over the elements of q from front to back. The queue must not be
// changed during the iteration.
func (q *Queue[T]) All() iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for l := q.front(); l != nil && l != &q.root; l = l.next {
			if !yield(l.elem) {
				return
			}
		}
	}
}

// Backward returns an iterator over the elements of q from back to front. The queue must not be
// changed during the iteration.
func (q *Queue[T]) Backward() iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for l := q.back(); l != nil && l != &q.root; l = l.prev {
			if !yield(l.elem) {
				return
			}
		}
	}
}
