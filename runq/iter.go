package runq

import "iter"

// All returns an iterator over the non-empty queues of q in ascending index order, with each
// queue's index. It is meant for inspection and teaching; the searches ([Runq.Find] and the
// functions built on it) are the hot path. q must not be changed during the iteration.
func (q *Runq[T]) All() iter.Seq2[Index, *Queue[T]] {
	return func(yield func(Index, *Queue[T]) bool) {
		for i := range q.status.All() {
			if !yield(i, &q.queues[i]) {
				return
			}
		}
	}
}

// Elems returns an iterator over every queued element in the order the Runq would hand them
// out if nothing were added: queue by queue from index 0, front to back within a queue. q must
// not be changed during the iteration.
func (q *Runq[T]) Elems() iter.Seq2[Index, *T] {
	return func(yield func(Index, *T) bool) {
		for i, qq := range q.All() {
			for x := range qq.All() {
				if !yield(i, x) {
					return
				}
			}
		}
	}
}
