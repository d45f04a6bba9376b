package runq

import (
	"slices"
	"testing"
)

// fuzzElem is the element type of the differential tests. Its id decides eligibility in the
// Steal and Find predicates, so that predicates skip some queues and pick non-head elements.
type fuzzElem struct {
	Link[fuzzElem]
	id int
}

const fuzzPool = 24

// runOps decodes ops into a stream of operations on a Runq and on the naive model, compares the
// two after every step, and checks the Runq's invariants after every mutation. Operations that
// would be misuse (adding a queued element, removing an unqueued one) are turned into their
// valid counterpart, so every byte string is a valid program.
func runOps(t *testing.T, ops []byte) {
	var q Runq[fuzzElem]
	var m model[fuzzElem]
	var es [fuzzPool]fuzzElem
	where := map[*fuzzElem]Index{}
	for i := range es {
		es[i].id = i
		es[i].Init(&es[i])
	}
	next := func() byte {
		if len(ops) == 0 {
			return 0
		}
		b := ops[0]
		ops = ops[1:]
		return b
	}
	rangeArg := func() Range {
		a, b := Index(next()), Index(next())
		if a > b {
			a, b = b, a
		}
		return Range{Lo: a, Hi: b}
	}
	// pickOdd is a predicate with data: it declines queues whose elements all have even ids, and
	// otherwise records the last odd-id element of the queue (so never simply the head).
	for len(ops) > 0 {
		op := next() % 8
		e := &es[int(next())%fuzzPool]
		switch op {
		case 0, 1: // add at the tail or head, or remove if already queued
			if i, ok := where[e]; ok {
				got, want := q.Remove(&e.Link), m.remove(i, e)
				if got != want {
					t.Fatalf("Remove(e%d) = %t, want %t", e.id, got, want)
				}
				delete(where, e)
				break
			}
			i := Index(next())
			if op == 0 {
				q.Add(i, &e.Link)
				m.add(i, e)
			} else {
				q.AddHead(i, &e.Link)
				m.addHead(i, e)
			}
			where[e] = i
		case 2: // remove the chosen element, as a CPU does when it picks the next thread
			x, ok := q.Choose()
			mx, mok := m.firstIn(0, MaxIndex)
			if x != mx || ok != mok {
				t.Fatalf("Choose() = %v, %t; want %v, %t", x, ok, mx, mok)
			}
			if ok {
				i := where[x]
				if got, want := q.Remove(&x.Link), m.remove(i, x); got != want {
					t.Fatalf("Remove(chosen) = %t, want %t", got, want)
				}
				delete(where, x)
			}
		case 3:
			r := rangeArg()
			x, ok := q.FirstIn(r)
			mx, mok := m.firstIn(r.Lo, r.Hi)
			if x != mx || ok != mok {
				t.Fatalf("FirstIn(%v) = %v, %t; want %v, %t", r, x, ok, mx, mok)
			}
		case 4:
			r := rangeArg()
			mod := int(next()%4) + 2
			eligible := func(x *fuzzElem) bool { return x.id%mod == 0 }
			x, ok := q.Steal(r, eligible)
			mx, mok := m.steal(r.Lo, r.Hi, eligible)
			if x != mx || ok != mok {
				t.Fatalf("Steal(%v, id%%%d==0) = %v, %t; want %v, %t", r, mod, x, ok, mx, mok)
			}
		case 5, 6:
			r := rangeArg()
			var got, want *fuzzElem
			var calls, mcalls []Index
			pred := func(i Index, qq *Queue[fuzzElem]) bool {
				calls = append(calls, i)
				got = nil
				for x := range qq.All() {
					if x.id%2 == 1 {
						got = x
					}
				}
				return got != nil
			}
			mpred := func(i Index, xs []*fuzzElem) bool {
				mcalls = append(mcalls, i)
				want = nil
				for _, x := range xs {
					if x.id%2 == 1 {
						want = x
					}
				}
				return want != nil
			}
			var i, mi Index
			var ok, mok bool
			if op == 5 {
				i, ok = q.Find(r, pred)
				mi, mok = m.find(r.Lo, r.Hi, mpred)
			} else {
				start := r.Lo + Index(int(next())%r.Len())
				i, ok = q.FindCircular(r, start, pred)
				mi, mok = m.find(start, r.Hi, mpred)
				if !mok && start > r.Lo {
					mi, mok = m.find(r.Lo, start-1, mpred)
				}
			}
			if i != mi || ok != mok || (ok && got != want) {
				t.Fatalf("op %d over %v = %d, %t (%v); want %d, %t (%v)", op, r, i, ok, got, mi, mok, want)
			}
			if !slices.Equal(calls, mcalls) {
				t.Fatalf("op %d over %v offered queues %v, want %v", op, r, calls, mcalls)
			}
		case 7: // compare lengths and iteration order
			if q.Len() != m.len() {
				t.Fatalf("Len() = %d, want %d", q.Len(), m.len())
			}
			var got, want []*fuzzElem
			for _, x := range q.Elems() {
				got = append(got, x)
			}
			for i := range m.q {
				want = append(want, m.q[i]...)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("Elems() = %v, want %v", got, want)
			}
		}
		checkInvariants(t, &q)
		for i := range NumQueues {
			var got []*fuzzElem
			for x := range q.Queue(Index(i)).All() {
				got = append(got, x)
			}
			if !slices.Equal(got, m.q[i]) {
				t.Fatalf("queue %d = %v, want %v", i, got, m.q[i])
			}
		}
	}
}

func FuzzRunq(f *testing.F) {
	f.Add([]byte{0, 1, 7, 0, 2, 7, 2, 0})
	f.Add([]byte{0, 0, 255, 1, 1, 255, 0, 2, 64, 3, 0, 0, 255, 4, 0, 0, 255, 2})
	f.Add([]byte{0, 3, 63, 0, 4, 64, 0, 5, 65, 5, 0, 0, 255, 6, 0, 60, 70, 5, 7, 0})
	f.Add([]byte{1, 9, 128, 1, 10, 128, 0, 11, 128, 6, 0, 0, 255, 200, 2, 0, 2, 0, 2, 0})
	f.Fuzz(func(t *testing.T, ops []byte) { runOps(t, ops) })
}

// TestRunOpsRandom runs long random programs through the same differential check, so that the
// property is exercised by go test without -fuzz.
func TestRunOpsRandom(t *testing.T) {
	for seed := range uint64(50) {
		ops := make([]byte, 2000)
		s := seed*0x9e3779b97f4a7c15 + 1
		for i := range ops {
			s ^= s << 13
			s ^= s >> 7
			s ^= s << 17
			ops[i] = byte(s)
		}
		runOps(t, ops)
	}
}
