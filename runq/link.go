package runq

// A Link is the hook that puts an element on a [Runq]: the intrusive list entry that FreeBSD
// keeps in struct thread as td_runq, plus the queue index it keeps as td_rqindex. Embed a Link in
// your element type and bind it once with [Link.Init]:
//
//	type Thread struct {
//		runq.Link[Thread]
//		Pri uint8
//	}
//
//	t := &Thread{Pri: 120}
//	t.Init(t)
//	q.Add(runq.Index(t.Pri), &t.Link)
//
// The Link points back to its element, so searches hand out *T without any conversion; and it
// records the Runq that holds it, so adding a queued element or removing one that another Runq
// (or none) holds is detected and panics instead of corrupting a queue.
//
// A Link must not be copied while its element is queued.
type Link[T any] struct {
	next, prev *Link[T]
	elem       *T
	owner      *Runq[T]
	idx        Index
}

// Init binds l to x, the element that contains it, and returns l. Call it once, before the first
// Add; binding again to the same element is harmless. Init panics if l is queued.
func (l *Link[T]) Init(x *T) *Link[T] {
	if l.owner != nil {
		panic("runq: Link.Init of a queued element")
	}
	l.elem = x
	return l
}

// Elem returns the element l was bound to by [Link.Init], or nil if it was never bound.
func (l *Link[T]) Elem() *T { return l.elem }

// Queued reports whether l is on some Runq.
func (l *Link[T]) Queued() bool { return l.owner != nil }

// Index returns the index of the queue that holds l, and false if l is not queued.
func (l *Link[T]) Index() (Index, bool) { return l.idx, l.owner != nil }
