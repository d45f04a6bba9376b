// This file implements Timeline, the vruntime-ordered red-black tree with a cached leftmost node
// (the kernel's tasks_timeline, an rb_root_cached), and its optional per-subtree minimum
// augmentation (the kernel's rbtree_augmented.h, which EEVDF uses).

package cfs

import "iter"

// A Node is the intrusive link an element embeds to be placed on a [Timeline]: the kernel's
// struct rb_node run_node inside struct sched_entity. It holds the element's sort key (a
// snapshot taken by [Timeline.Insert]), a back-pointer to the element set once by [Node.Init],
// and an optional augmented value whose per-subtree minimum the tree maintains when
// augmentation is enabled.
//
// The zero Node is not on any timeline; it must be given its element with Init before its
// first insertion. A Node must not be copied while it is on a timeline.
type Node[T any] struct {
	key    uint64
	child  [2]*Node[T] // left, right: indexed so that the descent needs no branch
	red    bool
	parent *Node[T]
	tree   *Timeline[T]
	value  *T
	aug    uint64
	augMin uint64
}

// Init sets the element n belongs to. It is called once, typically when the element is
// created; the back-pointer stays valid across any number of insertions and removals.
// Init panics if n is on a timeline.
func (n *Node[T]) Init(v *T) {
	if n.tree != nil {
		panic("cfs: Node.Init of a node that is on a timeline")
	}
	n.value = v
}

// Value returns the element n belongs to, as set by [Node.Init].
func (n *Node[T]) Value() *T { return n.value }

// Key returns the sort key n was inserted with. It is meaningful only while n is queued.
func (n *Node[T]) Key() uint64 { return n.key }

// Queued reports whether n is on a timeline.
func (n *Node[T]) Queued() bool { return n.tree != nil }

// Aug returns n's augmented value, as set by [Node.SetAug].
func (n *Node[T]) Aug() uint64 { return n.aug }

// SetAug sets n's augmented value, the quantity whose per-subtree minimum an augmented
// [Timeline] maintains (EEVDF's deadline in v6.6). SetAug panics if n is on a timeline: a queued
// node's value would leave its ancestors' minima stale.
func (n *Node[T]) SetAug(v uint64) {
	if n.tree != nil {
		panic("cfs: Node.SetAug of a node that is on a timeline")
	}
	n.aug = v
}

// AugMin returns the wrap-aware minimum of the augmented values in the subtree rooted at n. It
// is maintained only on a timeline with augmentation enabled ([Timeline.EnableAugment]).
func (n *Node[T]) AugMin() uint64 { return n.augMin }

// Left returns n's left child in the tree, or nil. Together with [Timeline.Root] and
// [Node.Right] it lets a search such as EEVDF's descend an augmented tree.
func (n *Node[T]) Left() *Node[T] { return n.child[0] }

// Right returns n's right child in the tree, or nil.
func (n *Node[T]) Right() *Node[T] { return n.child[1] }

// Next returns the node after n in key order (the kernel's rb_next), or nil if n is the last
// node or is not queued. The complexity is O(log n) worst case, O(1) amortised over a full walk.
func (n *Node[T]) Next() *Node[T] {
	if n.tree == nil {
		return nil
	}
	if r := n.child[1]; r != nil {
		for r.child[0] != nil {
			r = r.child[0]
		}
		return r
	}
	for p := n.parent; p != nil; n, p = p, p.parent {
		if n == p.child[0] {
			return p
		}
	}
	return nil
}

// noCopy makes go vet's copylocks check report copies of a Timeline.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// A Timeline is a red-black tree of [Node]s ordered by their uint64 keys, compared wrap-around
// aware as the kernel compares vruntimes (a is before b exactly when int64(a-b) < 0), with the
// leftmost node cached so that [Timeline.First] is O(1). Nodes with equal keys keep insertion
// order: a new node goes to the right of existing equal keys, so equals are served FIFO, as in
// the kernel's rb_add_cached with entity_before.
//
// Invariants (checked by the tests' checkTimeline after every operation): the red-black
// properties (the root is black, no red node has a red child, every root-to-leaf path has the
// same number of black nodes); the in-order walk is non-decreasing in wrap-aware key order as
// long as all keys lie within 2^63 of each other, which is the kernel's own precondition; first
// is the in-order first node; n counts the nodes; every queued node's tree field points to the
// timeline; and, when augmentation is on, every node's AugMin is the minimum of its own Aug and
// its children's AugMin.
//
// The zero Timeline is empty and ready to use. A Timeline holds a noCopy: a copy would share
// its nodes with the original. A Timeline is not safe for concurrent use.
type Timeline[T any] struct {
	_         noCopy
	root      *Node[T]
	first     *Node[T]
	n         int
	augmented bool
}

// before reports whether key a sorts before key b, wrap-around aware (the kernel's
// entity_before: (s64)(a - b) < 0).
func before(a, b uint64) bool { return int64(a-b) < 0 }

// EnableAugment makes t maintain, in every node, the wrap-aware minimum of the augmented values
// ([Node.SetAug]) of its subtree, at the cost of O(log n) extra work per insertion and removal.
// Like the keys, the augmented values must lie within 2^63 of each other: beyond that the
// wrap-aware order is not transitive and the minimum is not defined. EnableAugment panics if t
// is not empty.
func (t *Timeline[T]) EnableAugment() {
	if t.n != 0 {
		panic("cfs: Timeline.EnableAugment on a non-empty timeline")
	}
	t.augmented = true
}

// Augmented reports whether t maintains per-subtree minima of the augmented values.
func (t *Timeline[T]) Augmented() bool { return t.augmented }

// Len returns the number of nodes on t. The complexity is O(1).
func (t *Timeline[T]) Len() int { return t.n }

// Empty reports whether t has no nodes. The complexity is O(1).
func (t *Timeline[T]) Empty() bool { return t.n == 0 }

// First returns the node with the smallest key (the first inserted among equals), or nil if t
// is empty: the kernel's rb_first_cached. The complexity is O(1).
func (t *Timeline[T]) First() *Node[T] { return t.first }

// Root returns the root node of the tree, or nil if t is empty.
func (t *Timeline[T]) Root() *Node[T] { return t.root }

// Insert puts n on t with sort key key, after any nodes with an equal key: the kernel's
// __enqueue_entity (rb_add_cached). The complexity is O(log n) and Insert does not allocate.
// Insert panics if n is already on a timeline, if [Node.Init] was never called on n, or if t
// already holds 2^31-1 nodes (which would take over 150 GB).
func (t *Timeline[T]) Insert(n *Node[T], key uint64) {
	if n.tree != nil {
		panic("cfs: Timeline.Insert of a node that is already on a timeline")
	}
	if n.value == nil {
		panic("cfs: Timeline.Insert of a node without a value (call Node.Init first)")
	}
	if t.n >= maxTimelineLen {
		panic("cfs: Timeline.Insert into a timeline of 2^31-1 nodes")
	}
	// The descent follows child[dir], where dir is 0 (left) if key is before x.key and 1
	// (right) otherwise, computed without a branch: the comparison is a coin toss in a random
	// workload, and a mispredicted branch per level costs more than the data dependency.
	//
	// dir is the sign bit of x.key - key - 1, which is ^(key - x.key) in two's complement:
	// 1 exactly when int64(key - x.key) >= 0, that is when key is not before x.key. With ^key
	// computed once, a level costs one addition and one shift between its two loads.
	//
	// path records the directions taken, the last in bit 0, so that bit k is the side of the
	// node k levels above n in its parent: insertFixup reads the sides it needs from it instead
	// of comparing child pointers. A red-black tree of fewer than 2^31-1 nodes is fewer than
	// 62 levels deep (maxTimelineLen), so no direction is shifted out. The new node is the leftmost exactly when
	// the descent never went right, when path is 0.
	nkey := ^key
	var parent *Node[T]
	var dir, path uint64
	for x := t.root; x != nil; x = x.child[dir] {
		parent = x
		dir = (x.key + nkey) >> 63
		path = path<<1 | dir
	}
	// rb_link_node: n is a red leaf under parent (its children are nil: a node off the tree
	// has none, see removeFirst and Remove).
	n.key = key
	n.red = parent != nil
	n.tree = t
	n.parent = parent
	if parent == nil {
		t.root = n
	} else {
		parent.child[dir&1] = n // dir is 0 or 1; the mask spares a bounds check
	}
	if path == 0 {
		t.first = n
	}
	t.n++
	if t.augmented {
		n.augMin = n.aug
		for p := parent; p != nil && before(n.aug, p.augMin); p = p.parent {
			p.augMin = n.aug
		}
	}
	// __rb_insert: a red n under a red parent is the only violation to repair; the root case
	// was settled above by linking a lone n black.
	if parent != nil && parent.red {
		t.insertFixup(n, parent, path)
	}
}

// maxTimelineLen bounds a timeline's length so that an insertion's path fits in 64 bits: a
// red-black tree of n nodes is at most 2·log2(n+1) levels deep.
const maxTimelineLen = 1<<31 - 1

// insertFixup restores the red-black properties after n was linked as a red leaf under the red
// node p: the kernel's __rb_insert, from its first iteration on a red parent, with the
// rotations written out for either side. path is the insertion's path (Insert): bit k is the
// side (0 left, 1 right) of the node k levels above n. Case 1 (the uncle is red) recolours and
// moves the violation two levels up; otherwise one or two rotations end it. The kernel writes
// each case twice, once per side of p; here d is p's side and e = d^1 the other.
func (t *Timeline[T]) insertFixup(n, p *Node[T], path uint64) {
	for {
		g := p.parent // p is red, so it is not the root.
		d := path >> 1 & 1
		e := d ^ 1
		if u := g.child[e]; u != nil && u.red {
			// Case 1: colour flips.
			p.red, u.red = false, false
			n, p = g, g.parent
			if p == nil {
				return // g is the root and stays black
			}
			g.red = true
			if !p.red {
				return
			}
			path >>= 2
			continue
		}
		if path&1 != d {
			// Case 2: n is p's inner child: rotate at p towards d, so that n takes p's place
			// under g and p becomes n's child on side d.
			c := n.child[d]
			p.child[e] = c
			if c != nil {
				c.parent = p
			}
			n.child[d], n.parent = p, g
			p.parent = n
			g.child[d] = n
			if t.augmented {
				n.augMin = p.augMin
				p.augMin = subtreeMin(p)
			}
			p = n
		}
		// Case 3: rotate at g towards e; p takes g's place (g's side in its parent is bit 2
		// of path) and colour, g turns red.
		c := p.child[e]
		gg := g.parent
		g.child[d] = c
		if c != nil {
			c.parent = g
		}
		p.child[e], p.parent = g, gg
		if gg == nil {
			t.root = p
		} else {
			gg.child[path>>2&1] = p
		}
		g.parent = p
		p.red, g.red = false, true
		if t.augmented {
			p.augMin = g.augMin
			g.augMin = subtreeMin(g)
		}
		return
	}
}

// replaceChild makes nw take old's place under old's parent (or as the root).
func (t *Timeline[T]) replaceChild(old, nw *Node[T]) {
	switch p := old.parent; {
	case p == nil:
		t.root = nw
	case p.child[0] == old:
		p.child[0] = nw
	default:
		p.child[1] = nw
	}
	if nw != nil {
		nw.parent = old.parent
	}
}

func (t *Timeline[T]) rotateLeft(x *Node[T]) {
	y := x.child[1]
	x.child[1] = y.child[0]
	if y.child[0] != nil {
		y.child[0].parent = x
	}
	t.replaceChild(x, y)
	y.child[0] = x
	x.parent = y
	if t.augmented {
		y.augMin = x.augMin
		x.augMin = subtreeMin(x)
	}
}

func (t *Timeline[T]) rotateRight(x *Node[T]) {
	y := x.child[0]
	x.child[0] = y.child[1]
	if y.child[1] != nil {
		y.child[1].parent = x
	}
	t.replaceChild(x, y)
	y.child[1] = x
	x.parent = y
	if t.augmented {
		y.augMin = x.augMin
		x.augMin = subtreeMin(x)
	}
}

// subtreeMin computes n's augMin from its own value and its children's augMin.
func subtreeMin[T any](n *Node[T]) uint64 {
	m := n.aug
	if l := n.child[0]; l != nil && before(l.augMin, m) {
		m = l.augMin
	}
	if r := n.child[1]; r != nil && before(r.augMin, m) {
		m = r.augMin
	}
	return m
}

// Remove takes n off t: the kernel's __dequeue_entity (rb_erase_cached). The complexity is
// O(log n) and Remove does not allocate. Remove panics if n is not on t.
func (t *Timeline[T]) Remove(n *Node[T]) {
	if n.tree != t {
		panic("cfs: Timeline.Remove of a node that is not on this timeline")
	}
	if t.first == n {
		t.removeFirst(n)
		return
	}
	var x, xParent *Node[T]
	removedRed := n.red
	switch {
	case n.child[0] == nil:
		x, xParent = n.child[1], n.parent
		t.replaceChild(n, x)
	case n.child[1] == nil:
		x, xParent = n.child[0], n.parent
		t.replaceChild(n, x)
	default:
		y := n.child[1]
		for y.child[0] != nil {
			y = y.child[0]
		}
		removedRed = y.red
		x = y.child[1]
		if y.parent == n {
			xParent = y
		} else {
			xParent = y.parent
			t.replaceChild(y, x)
			y.child[1] = n.child[1]
			y.child[1].parent = y
		}
		t.replaceChild(n, y)
		y.child[0] = n.child[0]
		y.child[0].parent = y
		y.red = n.red
	}
	if t.augmented {
		for p := xParent; p != nil; p = p.parent {
			p.augMin = subtreeMin(p)
		}
	}
	if !removedRed {
		t.removeFixup(x, xParent)
	}
	n.child, n.parent, n.tree = [2]*Node[T]{}, nil, nil
	t.n--
}

// removeFirst is Remove of t's leftmost node n, the pop of the CFS pattern: the kernel's
// rb_erase_cached of the cached leftmost, which __rb_erase_augmented handles as its case 1 (no
// left child). The leftmost node has no left child and is its parent's left child, so it is
// unlinked directly. By the red-black properties its right subtree is empty or a single red
// leaf: that leaf takes n's place, turns black (so n was black, and the black heights hold) and
// is the new leftmost (rb_next); without it the new leftmost is n's parent and a black n leaves
// a missing black on the left spine, which fixLeftSpine repairs (____rb_erase_color). The tree
// that results is the one the kernel's rb_erase_cached builds (TestTimelineKernelShape).
func (t *Timeline[T]) removeFirst(n *Node[T]) {
	x, p := n.child[1], n.parent
	n.child[1], n.parent, n.tree = nil, nil, nil // n.child[0] is nil already
	t.n--
	if x != nil {
		x.parent = p
		x.red = false
		t.first = x
	} else {
		t.first = p
	}
	if p == nil {
		t.root = x
		return
	}
	p.child[0] = x
	if t.augmented {
		// The propagate callback: p's subtree lost n, so its minimum and its ancestors' may
		// have changed; they depend on it only through its value, so the walk stops at the
		// first one that keeps its minimum.
		for q := p; q != nil; q = q.parent {
			m := subtreeMin(q)
			if m == q.augMin {
				break
			}
			q.augMin = m
		}
	}
	if x == nil && !n.red {
		t.fixLeftSpine(p)
	}
}

// fixLeftSpine restores the red-black properties after a black leaf was unlinked from p's left,
// where p is on the left spine of the tree (p and its ancestors are left children): the
// kernel's ____rb_erase_color in its node == parent->rb_left branch, which is the only one a
// removal of the leftmost node can take, since the missing black only ever moves up the spine.
// The rotations are written out; a node rotated into p's place is its parent's left child.
func (t *Timeline[T]) fixLeftSpine(p *Node[T]) {
	for {
		w := p.child[1] // the sibling: not nil, since p's right subtree holds a black node
		if w.red {
			// Case 1: left rotate at p; the new sibling is w's left child, black.
			s, pp := w.child[0], p.parent
			p.child[1], s.parent = s, p
			w.child[0], w.parent = p, pp
			p.parent = w
			if pp == nil {
				t.root = w
			} else {
				pp.child[0] = w
			}
			w.red, p.red = false, true
			if t.augmented {
				w.augMin = p.augMin
				p.augMin = subtreeMin(p)
			}
			w = s
		}
		wl, wr := w.child[0], w.child[1]
		if wr == nil || !wr.red {
			if wl == nil || !wl.red {
				// Case 2: w turns red; a red p absorbs the missing black, a black one passes
				// it up the spine.
				w.red = true
				if p.red {
					p.red = false
					return
				}
				if p = p.parent; p == nil {
					return
				}
				continue
			}
			// Case 3: right rotate at w, so that the sibling's right child is red. The
			// colours case 3 would set are overwritten by case 4: wl takes p's colour, w
			// turns black.
			c := wl.child[1]
			w.child[0] = c
			if c != nil {
				c.parent = w
			}
			wl.child[1], wl.parent = w, p
			w.parent = wl
			p.child[1] = wl
			if t.augmented {
				wl.augMin = w.augMin
				w.augMin = subtreeMin(w)
			}
			w, wr = wl, w
		}
		// Case 4: left rotate at p; w takes p's place and colour, p and wr turn black.
		c, pp := w.child[0], p.parent
		p.child[1] = c
		if c != nil {
			c.parent = p
		}
		w.child[0], w.parent = p, pp
		p.parent = w
		if pp == nil {
			t.root = w
		} else {
			pp.child[0] = w
		}
		w.red, p.red, wr.red = p.red, false, false
		if t.augmented {
			w.augMin = p.augMin
			p.augMin = subtreeMin(p)
		}
		return
	}
}

// removeFixup restores the red-black properties after a black node was unlinked; x (possibly
// nil) carries the extra black and xParent is its parent.
func (t *Timeline[T]) removeFixup(x, xParent *Node[T]) {
	for x != t.root && (x == nil || !x.red) {
		if x == xParent.child[0] {
			w := xParent.child[1]
			if w.red {
				w.red, xParent.red = false, true
				t.rotateLeft(xParent)
				w = xParent.child[1]
			}
			if !isRed(w.child[0]) && !isRed(w.child[1]) {
				w.red = true
				x, xParent = xParent, xParent.parent
				continue
			}
			if !isRed(w.child[1]) {
				w.child[0].red, w.red = false, true
				t.rotateRight(w)
				w = xParent.child[1]
			}
			w.red, xParent.red, w.child[1].red = xParent.red, false, false
			t.rotateLeft(xParent)
			x = t.root
			break
		}
		w := xParent.child[0]
		if w.red {
			w.red, xParent.red = false, true
			t.rotateRight(xParent)
			w = xParent.child[0]
		}
		if !isRed(w.child[0]) && !isRed(w.child[1]) {
			w.red = true
			x, xParent = xParent, xParent.parent
			continue
		}
		if !isRed(w.child[0]) {
			w.child[1].red, w.red = false, true
			t.rotateLeft(w)
			w = xParent.child[0]
		}
		w.red, xParent.red, w.child[0].red = xParent.red, false, false
		t.rotateRight(xParent)
		x = t.root
		break
	}
	if x != nil {
		x.red = false
	}
}

func isRed[T any](n *Node[T]) bool { return n != nil && n.red }

// UpdateAug changes the augmented value of n, which is on t, to v and repairs the subtree minima
// of n and its ancestors: the kernel's RB_DECLARE_CALLBACKS propagate callback, used when an
// entity's deadline changes in place (v6.6's reweight_entity). The complexity is O(log n).
// UpdateAug panics if n is not on t.
func (t *Timeline[T]) UpdateAug(n *Node[T], v uint64) {
	if n.tree != t {
		panic("cfs: Timeline.UpdateAug of a node that is not on this timeline")
	}
	n.aug = v
	if !t.augmented {
		return
	}
	for p := n; p != nil; p = p.parent {
		m := subtreeMin(p)
		if m == p.augMin {
			return // the minima above depend on this one only through its value
		}
		p.augMin = m
	}
}

// Last returns the node with the largest key (the last inserted among equals), or nil if t is
// empty: the kernel's rb_last. The complexity is O(log n).
func (t *Timeline[T]) Last() *Node[T] {
	n := t.root
	if n == nil {
		return nil
	}
	for n.child[1] != nil {
		n = n.child[1]
	}
	return n
}

// PopFirst removes and returns the node with the smallest key, or nil if t is empty. It is
// [Timeline.First] followed by [Timeline.Remove]. The complexity is O(log n).
func (t *Timeline[T]) PopFirst() *Node[T] {
	n := t.first
	if n != nil {
		t.removeFirst(n)
	}
	return n
}

// All returns an iterator over the elements of t in key order. The timeline must not be
// modified during the iteration.
func (t *Timeline[T]) All() iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for n := t.first; n != nil; n = n.Next() {
			if !yield(n.value) {
				return
			}
		}
	}
}
