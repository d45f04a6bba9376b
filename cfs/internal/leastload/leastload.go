// Package leastload is the fast form behind cfs's find_idlest_group_cpu for a group of many
// CPUs: the least loaded busy CPU of the group, the first in ascending order among equals.
//
// find_idlest_group_cpu, which places a forked task (or a wakeup that takes the slow path) on
// a CPU of the group find_idlest_group chose, walks every CPU of that group and reads its run
// queue: the first SCHED_IDLE-only CPU wins, else the idle CPU that went idle last, else the
// CPU of least load. On a machine whose CPUs all have work, the last is the answer, and at
// the top of a machine of 1024 CPUs the group has 256 CPUs: the walk is most of the placement.
//
// A [Tree] keeps every CPU's key (its load, or [None] for a CPU that takes no part: cfs gives
// an idle or SCHED_IDLE-only CPU None, since the walk never compares their loads) at the
// leaves of a segment tree over the CPU ids, each inner node holding the least key below it
// and the lowest CPU id that has it. A query over a range of consecutive ids reads O(log n)
// nodes. Writing a key is one store and a bit in a mask of changed leaves ([Tree.Set]): the
// inner nodes above the changed leaves are brought up to date by the next query, a level at a
// time, so that the CPUs' frequent changes between two placements cost a store each and a
// placement at most one pass over the changed paths.
//
// The comparison is the kernel's, exactly: a key replaces the least so far only when it is
// strictly smaller (load < min_load, with min_load starting at ULONG_MAX), so a CPU whose key
// is None never wins, and of equal keys the lowest CPU id does, as the walk in ascending order
// takes the first.
package leastload

import (
	"math"
	"math/bits"
)

// None is the key of a CPU that takes no part in the search, and the least key of a range
// where none does.
const None = math.MaxUint64

// A Tree holds a key per CPU id and answers the least key of a range of ids. The zero Tree
// holds nothing and must be set up with [Tree.Init]. A Tree is not safe for concurrent use.
type Tree struct {
	n     int      // CPUs
	size  int      // leaves: a power of two, at least the CPU count
	nodes []node   // node 1 is the root, leaf c is node size+c
	dirty []uint64 // a bit per leaf whose key changed since the inner nodes were computed
	pend  []int32  // those leaves, in the order of their first change
	path  []int32  // scratch: the nodes of one level to recompute, ascending
}

// A node is a node's least key and the lowest CPU id with that key, side by side, so that one
// bounds check reads both.
type node struct {
	key uint64
	arg int32
}

// walkMax is the most changed leaves a query brings up to date one path at a time; above it,
// the inner nodes are recomputed a level at a time, each once.
const walkMax = 16

// Init sets t up for n CPUs, numbered 0 to n-1, every key None. It panics if n is not
// positive.
func (t *Tree) Init(n int) {
	if n <= 0 {
		panic("leastload: Init: no CPUs")
	}
	t.n = n
	t.size = max(2, 1<<bits.Len(uint(n-1))) // a root above the leaves
	t.nodes = make([]node, 2*t.size)
	for i := range t.nodes {
		t.nodes[i].key = None
	}
	for c := range t.size {
		t.nodes[t.size+c].arg = int32(c)
	}
	for i := t.size - 1; i >= 1; i-- {
		t.nodes[i].arg = t.nodes[2*i].arg
	}
	t.dirty = make([]uint64, (t.size+63)/64)
	t.pend = make([]int32, 0, t.size)
	t.path = make([]int32, 0, t.size)
}

// Set gives CPU c the key k. The inner nodes follow at the next [Tree.Least]; a key that does
// not change leaves them as they are.
func (t *Tree) Set(c int, k uint64) {
	leaf := &t.nodes[t.size+c]
	if leaf.key == k {
		return
	}
	leaf.key = k
	if b := uint64(1) << (c & 63); t.dirty[c>>6]&b == 0 {
		t.dirty[c>>6] |= b
		t.pend = append(t.pend, int32(c))
	}
}

// Key returns CPU c's key.
func (t *Tree) Key(c int) uint64 { return t.nodes[t.size+c].key }

// Least returns the CPU of least key among ids lo to hi-1 and its key: of equal keys the
// lowest id; None and lo when every key is None. It panics unless 0 <= lo < hi <= n.
func (t *Tree) Least(lo, hi int) (int, uint64) {
	if lo < 0 || hi <= lo || hi > t.n {
		panic("leastload: Least: bad range")
	}
	if len(t.pend) > 0 {
		t.flush()
	}
	lk, la := uint64(None), int32(lo) // the least of the nodes taken on the left, in order
	rk, ra := uint64(None), int32(lo) // and on the right, which lie above every left one
	for l, r := lo+t.size, hi+t.size; l < r; l, r = l>>1, r>>1 {
		if l&1 != 0 {
			if nd := &t.nodes[l]; nd.key < lk {
				lk, la = nd.key, nd.arg
			}
			l++
		}
		if r&1 != 0 {
			r--
			if nd := &t.nodes[r]; nd.key <= rk { // r lies left of the right nodes taken so far
				rk, ra = nd.key, nd.arg
			}
		}
	}
	if rk < lk {
		return int(ra), rk
	}
	return int(la), lk
}

// flush recomputes the inner nodes above the changed leaves: for a few, along each one's path
// up to the first node that its change leaves as it was (the nodes above it then hold what
// they would from it); for more, a level at a time from the bottom, each node once.
func (t *Tree) flush() {
	if len(t.pend) <= walkMax {
		for _, c := range t.pend {
			t.dirty[c>>6] &^= 1 << (c & 63)
			for n := (t.size + int(c)) >> 1; n >= 1 && t.pull(n); n >>= 1 {
			}
		}
		t.pend = t.pend[:0]
		return
	}
	p := t.path[:0]
	for i, w := range t.dirty {
		for w != 0 {
			c := i<<6 + bits.TrailingZeros64(w)
			w &= w - 1
			if n := int32((t.size + c) >> 1); len(p) == 0 || p[len(p)-1] != n {
				p = append(p, n)
			}
		}
		t.dirty[i] = 0
	}
	for len(p) > 0 {
		q := p[:0]
		for _, n := range p {
			t.pull(int(n))
			if n > 1 && (len(q) == 0 || q[len(q)-1] != n>>1) {
				q = append(q, n>>1)
			}
		}
		p = q
	}
	t.path = p
	t.pend = t.pend[:0]
}

// pull sets node n from its two children, the left one winning ties, and reports whether
// that changed it.
func (t *Tree) pull(n int) bool {
	ch := t.nodes[2*n : 2*n+2]
	c := ch[0]
	if ch[1].key < c.key {
		c = ch[1]
	}
	if nd := &t.nodes[n]; *nd != c {
		*nd = c
		return true
	}
	return false
}
