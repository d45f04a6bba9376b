package runq

import (
	"fmt"
	"testing"
)

// checkInvariants walks every queue of q and fails t if any invariant of [Runq] or [Queue] is
// broken: the status bit of each queue matches its emptiness, every link is owned by q and
// carries its queue's index, prev mirrors next, and the lengths add up. It is called after every
// mutation in the tests.
func checkInvariants[T any](t testing.TB, q *Runq[T]) {
	t.Helper()
	if err := invariantError(q); err != nil {
		t.Fatalf("runq invariant broken: %v", err)
	}
}

func invariantError[T any](q *Runq[T]) error {
	total := 0
	for i := range NumQueues {
		qq := &q.queues[i]
		root := &qq.root
		n := 0
		switch {
		case root.next == nil:
			if root.prev != nil {
				return fmt.Errorf("queue %d: root next is nil but prev is not", i)
			}
		default:
			prev := root
			for l := root.next; l != root; l = l.next {
				if l == nil {
					return fmt.Errorf("queue %d: nil link after %d elements", i, n)
				}
				if n > q.n {
					return fmt.Errorf("queue %d: more links than the Runq's length %d (a cycle?)", i, q.n)
				}
				if l.prev != prev {
					return fmt.Errorf("queue %d: element %d: prev does not point at its predecessor", i, n)
				}
				if l.owner != q {
					return fmt.Errorf("queue %d: element %d: owner is not this Runq", i, n)
				}
				if l.idx != Index(i) {
					return fmt.Errorf("queue %d: element %d records queue %d", i, n, l.idx)
				}
				if l.elem == nil {
					return fmt.Errorf("queue %d: element %d has no element pointer", i, n)
				}
				prev = l
				n++
			}
			if root.prev != prev {
				return fmt.Errorf("queue %d: root prev is not the last element", i)
			}
		}
		if has := q.status.Has(Index(i)); has != (n > 0) {
			return fmt.Errorf("queue %d: status bit %t but %d elements", i, has, n)
		}
		if got := qq.Len(); got != n {
			return fmt.Errorf("queue %d: Len() = %d, walked %d", i, got, n)
		}
		total += n
	}
	if total != q.n {
		return fmt.Errorf("Len() = %d but the queues hold %d elements", q.n, total)
	}
	if q.status.Count() > total {
		return fmt.Errorf("status has %d bits set for %d elements", q.status.Count(), total)
	}
	return nil
}

// TestCheckerCatchesCorruption makes sure the checker itself can fail: each case breaks one
// invariant by hand and expects invariantError to report it.
func TestCheckerCatchesCorruption(t *testing.T) {
	type elem struct {
		Link[elem]
	}
	build := func() (*Runq[elem], []elem) {
		q := new(Runq[elem])
		es := make([]elem, 3)
		for i := range es {
			es[i].Init(&es[i])
			q.Add(5, &es[i].Link)
		}
		return q, es
	}
	cases := []struct {
		name   string
		break_ func(q *Runq[elem], es []elem)
	}{
		{"status bit cleared", func(q *Runq[elem], _ []elem) { q.status.Clear(5) }},
		{"stray status bit", func(q *Runq[elem], _ []elem) { q.status.Set(9) }},
		{"length off", func(q *Runq[elem], _ []elem) { q.n++ }},
		{"wrong index", func(_ *Runq[elem], es []elem) { es[1].idx = 6 }},
		{"wrong owner", func(_ *Runq[elem], es []elem) { es[2].owner = nil }},
		{"broken prev", func(_ *Runq[elem], es []elem) { es[2].prev = &es[0].Link }},
		{"nil element", func(_ *Runq[elem], es []elem) { es[0].elem = nil }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, es := build()
			if err := invariantError(q); err != nil {
				t.Fatalf("intact queue reported broken: %v", err)
			}
			tc.break_(q, es)
			if err := invariantError(q); err == nil {
				t.Errorf("invariantError after %q = nil, want an error", tc.name)
			}
		})
	}
}
