package runq

import "slices"

// model is the naive reference run queue the fuzz and property tests compare against: 256
// slices, searched by looking at every one of them.
type model[T any] struct {
	q [NumQueues][]*T
}

func (m *model[T]) add(i Index, x *T)     { m.q[i] = append(m.q[i], x) }
func (m *model[T]) addHead(i Index, x *T) { m.q[i] = slices.Insert(m.q[i], 0, x) }

// remove deletes x from queue i and reports whether the queue became empty.
func (m *model[T]) remove(i Index, x *T) bool {
	k := slices.Index(m.q[i], x)
	if k < 0 {
		panic("model: remove of an absent element")
	}
	m.q[i] = slices.Delete(m.q[i], k, k+1)
	return len(m.q[i]) == 0
}

func (m *model[T]) len() int {
	n := 0
	for i := range m.q {
		n += len(m.q[i])
	}
	return n
}

// firstIn returns the head of the first non-empty queue in lo..hi.
func (m *model[T]) firstIn(lo, hi Index) (*T, bool) {
	for i := int(lo); i <= int(hi); i++ {
		if len(m.q[i]) > 0 {
			return m.q[i][0], true
		}
	}
	return nil, false
}

// steal returns the first eligible element of lo..hi in queue then FIFO order.
func (m *model[T]) steal(lo, hi Index, eligible func(*T) bool) (*T, bool) {
	for i := int(lo); i <= int(hi); i++ {
		for _, x := range m.q[i] {
			if eligible(x) {
				return x, true
			}
		}
	}
	return nil, false
}

// find offers every non-empty queue of lo..hi to pred, which sees the queue as a slice.
func (m *model[T]) find(lo, hi Index, pred func(Index, []*T) bool) (Index, bool) {
	for i := int(lo); i <= int(hi); i++ {
		if len(m.q[i]) > 0 && pred(Index(i), m.q[i]) {
			return Index(i), true
		}
	}
	return 0, false
}
