package runq

import "strconv"

// A State is a read-only snapshot of a [Runq], the picture a student draws of struct runq: the
// four status words and, under each set bit, its queue's elements in the order they leave. It is
// plain data, so it marshals to JSON as it is (the words as 16-digit hexadecimal strings,
// because JavaScript numbers cannot hold 64 bits) and is what `schedbench explain -state` prints
// and the course page draws.
//
// Taking a State only reads the Runq: no decision changes when one is taken.
type State struct {
	// Words are rq_status.rq_sw[0..3] in hexadecimal, word 0 first; bit i%64 of word i/64 is
	// set exactly when queue i is non-empty.
	Words [NumQueues / wordBits]string `json:"words"`
	// Len is the number of queued elements, the sum of the queue lengths.
	Len int `json:"len"`
	// Queues are the non-empty queues in ascending index order, the set bits of Words.
	Queues []QueueState `json:"queues"`
}

// A QueueState is one non-empty queue of a [State]: its index and its elements front to back,
// each named by the caller's function.
type QueueState struct {
	Index Index    `json:"index"`
	Elems []string `json:"elems"`
}

// Snapshot returns the [State] of q, naming each element with name. Snapshot panics if name is
// nil. The complexity is O(q.Len() + NumQueues/64) plus one call of name per element; it
// allocates the State, so it belongs beside a decision, never inside one.
func (q *Runq[T]) Snapshot(name func(*T) string) State {
	if name == nil {
		panic("runq: Snapshot with a nil name function")
	}
	var s State
	for w := range len(q.status) {
		s.Words[w] = hex16(q.status[w])
	}
	s.Len = q.n
	for i, qq := range q.All() {
		qs := QueueState{Index: i}
		for x := range qq.All() {
			qs.Elems = append(qs.Elems, name(x))
		}
		s.Queues = append(s.Queues, qs)
	}
	return s
}

// hex16 formats w as 16 lower-case hexadecimal digits.
func hex16(w uint64) string {
	s := strconv.FormatUint(w, 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}

// A Search records one run of [Runq.Find] (runq_findq) as the course draws it: the range
// searched, every non-empty queue offered to the predicate with the predicate's answer, and the
// queue the search stopped at. [Trace] fills it in.
type Search struct {
	Range  Range   `json:"range"`
	Visits []Visit `json:"visits"`
	// Found is the index the search stopped at; it is meaningful only if OK is true.
	Found Index `json:"found"`
	OK    bool  `json:"ok"`
}

// A Visit is one queue offered to a search's predicate and the predicate's answer.
type Visit struct {
	Index Index `json:"index"`
	Stop  bool  `json:"stop"`
}

// Trace returns a predicate that behaves exactly as pred does and records each call in s, whose
// Range it sets to r. The caller passes the result to [Runq.Find] (or [Runq.FindCircular],
// recording both of its parts) over r, so the search itself runs unchanged: only the predicate
// is wrapped. After the search, the last visit's Stop says where it stopped; [Search.Finish]
// copies that into Found and OK. Trace panics if pred or s is nil.
func Trace[T any](r Range, pred Pred[T], s *Search) Pred[T] {
	if pred == nil || s == nil {
		panic("runq: Trace with a nil predicate or Search")
	}
	*s = Search{Range: r}
	return func(i Index, q *Queue[T]) bool {
		stop := pred(i, q)
		s.Visits = append(s.Visits, Visit{Index: i, Stop: stop})
		return stop
	}
}

// Finish records the result of the traced search, the index and boolean the search returned.
func (s *Search) Finish(i Index, ok bool) {
	s.Found, s.OK = i, ok
}
