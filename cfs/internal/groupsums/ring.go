package groupsums

import "math/bits"

// RingMax is the most groups a ring may hold: its changed groups are one word's bits.
const RingMax = 64

// A ring is the groups of one domain's circle (the sd->groups list of kernel/sched/fair.c's
// find_idlest_group, the same circle from every CPU of a domain without SD_NUMA, started at
// each CPU's local group) in a fixed order, with a segment tree of their Keys: each inner node
// holds the least Key below it and the lowest position that has it. [Index.Update] marks the
// position of a group whose sums change; its leaf and the nodes above it are made anew at the
// next [Index.RingLeast].
type ring struct {
	dirty uint64   // the positions whose groups' sums changed since their leaves were made
	pct   uint64   // the domain's imbalance_pct
	n     int      // groups
	size  int      // leaves: a power of two, at least n
	group []int32  // by position: the group's id
	cap   []uint64 // by position: the group's capacity
	w     []uint32 // by position: the group's weight
	nodes []rnode  // node 1 is the root, the leaf of position i is node size+i
}

// An rnode is a node's least Key and the lowest position that has it.
type rnode struct {
	k   Key
	arg int32
}

// none is the Key of an absent leaf: above every Key [Sum.Wake] makes, whose Hi is below 2⁶³.
var none = Key{Hi: ^uint64(0), Lo: ^uint64(0)}

// AddRing makes a ring of the groups ids, in their circle's order, of capacities caps and
// weights ws, in a domain of imbalance_pct pct, and returns its number for [Index.RingLeast]
// (from 1). Each group may be in one ring only, and must be a group of several CPUs whose
// sums x keeps. It panics if there are fewer than two groups or more than [RingMax], if the
// slices differ in length, or if a group is already in a ring.
func (x *Index) AddRing(ids []int32, caps []uint64, ws []uint32, pct uint64) int {
	n := len(ids)
	if n < 2 || n > RingMax || len(caps) != n || len(ws) != n {
		panic("groupsums: AddRing: bad ring")
	}
	r := len(x.rings) + 1
	size := max(2, 1<<bits.Len(uint(n-1)))
	// Every leaf to make: at 64 the shift gives 0, and 0-1 every bit.
	rg := &ring{dirty: 1<<n - 1, pct: pct, n: n, size: size, group: append([]int32(nil), ids...),
		cap: append([]uint64(nil), caps...), w: append([]uint32(nil), ws...), nodes: make([]rnode, 2*size)}
	for i, g := range ids {
		e := &x.sums[g]
		if e.bit != 0 {
			panic("groupsums: AddRing: group in two rings")
		}
		e.dirty, e.bit = &rg.dirty, uint64(1)<<i
	}
	for i := range rg.nodes {
		rg.nodes[i] = rnode{k: none}
	}
	for i := range size {
		rg.nodes[size+i].arg = int32(i)
	}
	for i := size - 1; i >= 1; i-- {
		rg.nodes[i].arg = rg.nodes[2*i].arg
	}
	x.rings = append(x.rings, rg)
	return r
}

// RingLeast returns the position in ring r of the group update_pick_idlest ends on when
// find_idlest_group visits the ring from position local+1 round to local-1 (local left out),
// starting from the least Key [Root]: of the least Key, the first in that order; -1 if no
// group's Key is below Root. It also returns that Key, and the Key of the group at local.
func (x *Index) RingLeast(r, local int) (int, Key, Key) {
	rg := x.rings[r-1]
	if d := rg.dirty; d != 0 {
		rg.dirty = 0
		x.reRing(rg, d)
	}
	// The root holds the least Key and the first position with it. Past local it is the
	// walk's first; before local, the walk's first is the first past local with the same Key
	// if there is one; at local, the least of the rest is sought on both sides.
	root := &rg.nodes[1]
	i, k := int(root.arg), root.k
	if i < local {
		if j, kj := rg.least(local+1, rg.n); kj == k {
			i = j
		}
	} else if i == local {
		i, k = rg.least(local+1, rg.n)
		if j, kj := rg.least(0, local); kj.Less(k) {
			i, k = j, kj
		}
	}
	lk := rg.nodes[rg.size+local].k
	if !k.Less(Root) {
		return -1, k, lk
	}
	return i, k, lk
}

// reRing makes the leaves of the positions set in d anew from their groups' sums, and the
// nodes above them.
func (x *Index) reRing(rg *ring, d uint64) {
	for d != 0 {
		i := bits.TrailingZeros64(d)
		d &= d - 1
		n := rg.size + i
		rg.nodes[n].k = x.sums[rg.group[i]].Wake(rg.cap[i], rg.w[i], rg.pct)
		for n >>= 1; n >= 1; n >>= 1 {
			l, r := &rg.nodes[2*n], &rg.nodes[2*n+1]
			c := l
			if r.k.Less(l.k) {
				c = r
			}
			if nd := &rg.nodes[n]; *nd != *c {
				*nd = *c
			} else {
				break
			}
		}
	}
}

// least returns the position of least Key among lo to hi-1 and its Key: of equal Keys the
// lowest position; none for an empty range.
func (rg *ring) least(lo, hi int) (int, Key) {
	lk, la := none, int32(-1) // the least of the nodes taken on the left, in order
	rk, ra := none, int32(-1) // and on the right, which lie above every left one
	for l, r := lo+rg.size, hi+rg.size; l < r; l, r = l>>1, r>>1 {
		if l&1 != 0 {
			if nd := &rg.nodes[l]; nd.k.Less(lk) {
				lk, la = nd.k, nd.arg
			}
			l++
		}
		if r&1 != 0 {
			r--
			if nd := &rg.nodes[r]; !rk.Less(nd.k) { // r lies left of the right nodes taken so far
				rk, ra = nd.k, nd.arg
			}
		}
	}
	if rk.Less(lk) {
		return int(ra), rk
	}
	return int(la), lk
}
