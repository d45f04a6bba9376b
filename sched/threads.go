package sched

// This file implements Threads, the table of per-thread state every policy keeps, and its
// standard misuse panics.

import (
	"fmt"
	"iter"
	"slices"
)

// Threads is a table of per-thread state of type T, indexed by thread ID, as every policy
// keeps one (FreeBSD's tdfind, Linux's find_task_by_pid). IDs are dense in practice (a machine
// such as bench/sim numbers its threads 0, 1, 2, …), so the table is a slice indexed by ID; an
// ID far beyond the threads it holds (such as 2³¹−1) goes to a map instead, so that no ID
// costs memory in proportion to its value. Either way a lookup is O(1) and the table visits
// its threads in ascending ID order.
//
// The zero value is an empty table. Its methods that can be misused take the name of the
// calling package and operation, and panic with the standard messages every policy shares:
//
//	ule: Fork of negative thread id -2
//	ule: Fork of thread t0, which exists
//	ule: Wakeup of unknown thread t9
//
// A Threads is not safe for concurrent use.
type Threads[T any] struct {
	dense  []*T      // by ID, for IDs below len(dense); nil where none
	sparse map[ID]*T // the IDs at or above len(dense)
	high   []ID      // the keys of sparse, ascending
	n      int       // the number of threads held
	slab   Slab[T]   // the records New hands out
}

// denseSlack is how far beyond the dense slice (and at least how far beyond twice its
// length) an ID may lie and still extend it rather than go to the map.
const denseSlack = 64

// Len returns the number of threads in ts. The complexity is O(1).
func (ts *Threads[T]) Len() int { return ts.n }

// Lookup returns the state of thread id, and false if ts holds none. The complexity is O(1).
func (ts *Threads[T]) Lookup(id ID) (*T, bool) {
	if uint(id) < uint(len(ts.dense)) {
		t := ts.dense[id]
		return t, t != nil
	}
	return ts.lookupSparse(id)
}

// lookupSparse is Lookup beyond the dense slice.
func (ts *Threads[T]) lookupSparse(id ID) (*T, bool) {
	t, ok := ts.sparse[id]
	return t, ok
}

// Must returns the state of thread id. It panics with "pkg: op of unknown thread t9" if ts holds
// none: the caller (named pkg, doing op) was told of a thread that was never created or has
// exited.
func (ts *Threads[T]) Must(pkg, op string, id ID) *T {
	if uint(id) < uint(len(ts.dense)) {
		if t := ts.dense[id]; t != nil {
			return t
		}
	}
	return ts.mustSparse(pkg, op, id)
}

// mustSparse is Must beyond the dense threads.
func (ts *Threads[T]) mustSparse(pkg, op string, id ID) *T {
	t, ok := ts.Lookup(id)
	if !ok {
		unknownThread(pkg, op, id)
	}
	return t
}

// unknownThread panics for Must; out of line so that Must stays small.
//
//go:noinline
func unknownThread(pkg, op string, id ID) {
	panic(fmt.Sprintf("%s: %s of unknown thread %v", pkg, op, id))
}

// New adds a zeroed record as thread id and returns it, with Add's panics. The records come
// from the table's own Slab, a chunk at a time, so that a policy forking a hundred thousand
// threads makes a few hundred allocations; a record stays where it is.
func (ts *Threads[T]) New(pkg, op string, id ID) *T {
	t := ts.slab.New()
	ts.Add(pkg, op, id, t)
	return t
}

// Add puts t in ts as thread id. It panics with "pkg: op of negative thread id -2" if id is
// negative and with "pkg: op of thread t0, which exists" if ts holds id already, or if t is
// nil. The complexity is O(1) amortized for an ID at most about twice the number of threads
// held, and O(number of far IDs) otherwise.
func (ts *Threads[T]) Add(pkg, op string, id ID, t *T) {
	if t != nil {
		switch {
		case uint(id) < uint(len(ts.dense)) && ts.dense[id] == nil:
			ts.dense[id] = t // the common cases: a free dense ID, or the next one
			ts.n++
			return
		case int(id) == len(ts.dense) && len(ts.high) == 0:
			if len(ts.dense) == cap(ts.dense) {
				// Double: append grows a large slice by a quarter, and adding n threads
				// one by one then copies about 4n pointers, not n.
				ts.dense = slices.Grow(ts.dense, max(len(ts.dense), 8))
			}
			ts.dense = append(ts.dense, t)
			ts.n++
			return
		}
	}
	ts.add(pkg, op, id, t)
}

// add is Add beyond its common case.
func (ts *Threads[T]) add(pkg, op string, id ID, t *T) {
	switch _, exists := ts.Lookup(id); {
	case id < 0:
		panic(fmt.Sprintf("%s: %s of negative thread id %d", pkg, op, id))
	case exists:
		panic(fmt.Sprintf("%s: %s of thread %v, which exists", pkg, op, id))
	case t == nil:
		panic(fmt.Sprintf("%s: %s of thread %v with nil state", pkg, op, id))
	}
	ts.n++
	if int(id) < len(ts.dense) {
		ts.dense[id] = t
		return
	}
	if int(id) < 2*len(ts.dense)+denseSlack {
		ts.grow(int(id) + 1)
		ts.dense[id] = t
		return
	}
	if ts.sparse == nil {
		ts.sparse = map[ID]*T{}
	}
	ts.sparse[id] = t
	i, _ := slices.BinarySearch(ts.high, id)
	ts.high = slices.Insert(ts.high, i, id)
}

// grow extends the dense slice to n entries, moving into it the far IDs it now covers.
func (ts *Threads[T]) grow(n int) {
	ts.dense = append(ts.dense, make([]*T, n-len(ts.dense))...)
	k := 0
	for k < len(ts.high) && int(ts.high[k]) < len(ts.dense) {
		id := ts.high[k]
		ts.dense[id] = ts.sparse[id]
		delete(ts.sparse, id)
		k++
	}
	ts.high = ts.high[k:]
}

// Delete removes thread id from ts; deleting an ID ts does not hold does nothing. The
// complexity is O(1) for a dense ID, O(number of far IDs) for a far one.
func (ts *Threads[T]) Delete(id ID) {
	if uint(id) < uint(len(ts.dense)) {
		if ts.dense[id] != nil {
			ts.dense[id] = nil
			ts.n--
		}
		return
	}
	if _, ok := ts.sparse[id]; ok {
		delete(ts.sparse, id)
		i, _ := slices.BinarySearch(ts.high, id)
		ts.high = slices.Delete(ts.high, i, i+1)
		ts.n--
	}
}

// All returns an iterator over the threads of ts in ascending ID order. Deleting the thread
// being visited is allowed; adding threads during the loop is not. The complexity of a whole
// loop is O(largest dense ID + number of far IDs).
func (ts *Threads[T]) All() iter.Seq2[ID, *T] {
	return func(yield func(ID, *T) bool) {
		for i, t := range ts.dense {
			if t != nil && !yield(ID(i), t) {
				return
			}
		}
		for i := 0; i < len(ts.high); i++ {
			id := ts.high[i]
			if !yield(id, ts.sparse[id]) {
				return
			}
			if i < len(ts.high) && ts.high[i] != id { // the visited thread was deleted
				i--
			}
		}
	}
}
