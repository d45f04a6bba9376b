package runq

// A Runq is a FreeBSD run queue: [NumQueues] FIFO queues of elements of type T and a [Status]
// whose bit i is set exactly when queue i is non-empty (struct runq in sys/sys/runq.h). The zero
// value is an empty Runq ready to use.
//
// Elements join through the [Link] they embed, so no operation allocates. Queue 0 is the most
// important; within a queue elements leave in the order they came, except that [Runq.AddHead]
// puts an element in front (a preempted thread goes back to the head of its queue).
//
// A Runq is not safe for concurrent use; in the kernel the CPU's queue lock (tdq_lock for ULE,
// sched_lock for 4BSD) serialises every call. A Runq must not be copied after first use: the
// copy would share its queued links with the original, so it holds a noCopy guard for go vet.
//
// Invariants, checked by the tests after every mutation:
//   - s.Has(i) == (queues[i].Len() > 0) for every i;
//   - n is the sum of the queue lengths;
//   - every queued link has owner == q and idx == the index of the queue that holds it.
type Runq[T any] struct {
	_      noCopy
	status Status
	n      int
	queues [NumQueues]Queue[T]
}

// Add appends the element bound to l at the tail of queue i: runq_add_idx without
// SRQ_PREEMPTED. Add panics if l is already queued or was never bound with [Link.Init]. The
// complexity is O(1).
//
// A nil l is the one misuse that panics with the runtime's nil dereference rather than a "runq:"
// message, by decision: an explicit check stops Add, AddHead and Remove inlining and costs 20 of
// the 69 instructions a choose+remove+add takes (measured with scripts/icount: 89 and 103
// against the gate's 69 and 87), and FreeBSD's runq_add and runq_remove do not check either.
func (q *Runq[T]) Add(i Index, l *Link[T]) {
	if l.owner != nil || l.elem == nil {
		panic("runq: Add of a queued or unbound element")
	}
	root := &q.queues[i].root
	tail := root.prev
	if tail == nil {
		// The queue's first use: its root is zero. Linking l between root and root
		// writes both of the root's pointers, so no separate initialisation is needed;
		// once used, an empty queue's root points at itself and tail is root anyway.
		tail = root
	}
	// Every load and nil check is done before the first store, so the pointer stores form
	// one block that pays for one write-barrier check.
	_ = *tail
	l.owner, l.idx, l.next, l.prev = q, i, root, tail
	tail.next = l
	root.prev = l
	q.status.Set(i)
	q.n++
}

// AddHead puts the element bound to l at the head of queue i, so that it is the next to leave
// that queue: runq_add_idx with SRQ_PREEMPTED, used when a preempted thread goes back on its run
// queue. AddHead panics if l is already queued or was never bound. The complexity is O(1).
func (q *Runq[T]) AddHead(i Index, l *Link[T]) {
	if l.owner != nil || l.elem == nil {
		panic("runq: AddHead of a queued or unbound element")
	}
	root := &q.queues[i].root
	head := root.next
	if head == nil {
		head = root // first use, as in Add
	}
	_ = *head
	l.owner, l.idx, l.prev, l.next = q, i, root, head
	head.prev = l
	root.next = l
	q.status.Set(i)
	q.n++
}

// Remove unlinks the element bound to l from its queue and reports whether that queue became
// empty, in which case its status bit is now clear: runq_remove. Remove panics if l is not on q
// (a nil l with the runtime's nil dereference, as [Runq.Add] explains). The complexity is O(1).
//
// Only the owner is cleared: it alone says whether a link is queued (so a second Remove or a
// foreign one still panics), and leaving the link's own next and prev as they were saves two
// pointer stores. A removed element therefore keeps its former neighbours reachable for the
// garbage collector until it is added again, as a removed TAILQ entry keeps its stale pointers
// in the kernel.
func (q *Runq[T]) Remove(l *Link[T]) bool {
	if l.owner != q {
		panic("runq: Remove of an element not on this Runq")
	}
	prev, next := l.prev, l.next
	_ = *next // its nil check before the first store keeps the three stores in one block
	prev.next = next
	next.prev = prev
	l.owner = nil
	q.n--
	empty := prev == next // both are the queue's root: l was alone
	if empty {
		q.status.Clear(l.idx)
	}
	return empty
}

// Choose returns the first element of the first non-empty queue, the element that runs next,
// without removing it: runq_choose. It reports false if q is empty. The complexity is
// O(NumQueues/64).
func (q *Runq[T]) Choose() (*T, bool) {
	i, ok := q.status.First()
	if !ok {
		return nil, false
	}
	return q.queues[i].root.next.elem, true
}

// Len returns the number of queued elements. The complexity is O(1).
func (q *Runq[T]) Len() int { return q.n }

// Empty reports whether no element is queued: !runq_not_empty. The complexity is O(1).
func (q *Runq[T]) Empty() bool { return q.n == 0 }

// Queue returns queue i, for inspection; see [Queue]. The complexity is O(1).
func (q *Runq[T]) Queue(i Index) *Queue[T] { return &q.queues[i] }

// Status returns a copy of the non-empty map. The complexity is O(1).
func (q *Runq[T]) Status() Status { return q.status }

// IsQueueEmpty reports whether queue i is empty: runq_is_queue_empty. The complexity is O(1).
func (q *Runq[T]) IsQueueEmpty(i Index) bool { return !q.status.Has(i) }

// noCopy makes go vet's copylocks check report copies of the struct that holds it.
type noCopy struct{}

// Lock is a no-op used by go vet's copylocks check.
func (*noCopy) Lock() {}

// Unlock is a no-op used by go vet's copylocks check.
func (*noCopy) Unlock() {}
