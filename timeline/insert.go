// This file implements the insertion: the kernel's rb_add_cached, with __rb_insert's fix-up
// written out for either side.

package timeline

// Insert puts n on t with sort key key, after any nodes with an equal key: the kernel's
// __enqueue_entity (rb_add_cached). The complexity is O(log n) and Insert does not allocate.
// Insert panics if n is already on a timeline, if [Node.Init] was never called on n, or if t
// already holds 2^31-1 nodes (which would take over 150 GB).
func (t *Timeline[T]) Insert(n *Node[T], key uint64) {
	if n.tree != nil {
		panic("timeline: Timeline.Insert of a node that is already on a timeline")
	}
	if n.value == nil {
		panic("timeline: Timeline.Insert of a node without a value (call Node.Init first)")
	}
	if t.n >= maxTimelineLen {
		panic("timeline: Timeline.Insert into a timeline of 2^31-1 nodes")
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
