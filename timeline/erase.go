// This file implements the removals: the kernel's rb_erase_cached of any node, and of the
// cached leftmost node (the pop of the CFS pattern) with the left-spine half of
// ____rb_erase_color.

package timeline

// Remove takes n off t: the kernel's __dequeue_entity (rb_erase_cached). The complexity is
// O(log n) and Remove does not allocate. Remove panics if n is not on t.
func (t *Timeline[T]) Remove(n *Node[T]) {
	if n.tree != t {
		panic("timeline: Timeline.Remove of a node that is not on this timeline")
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
// nil) carries the extra black and xParent is its parent: the kernel's ____rb_erase_color. The
// kernel writes each case twice, once per side of x; here d is x's side and e = d^1 the side of
// its sibling w. Case 1 (w is red) rotates a black sibling into place; case 2 (w's children are
// black) recolours and moves the extra black up; otherwise one or two rotations end it (cases 3
// and 4).
func (t *Timeline[T]) removeFixup(x, xParent *Node[T]) {
	for x != t.root && (x == nil || !x.red) {
		var d uint
		if x != xParent.child[0] {
			d = 1
		}
		e := d ^ 1
		w := xParent.child[e]
		if w.red {
			w.red, xParent.red = false, true
			t.rotate(xParent, d)
			w = xParent.child[e]
		}
		if !isRed(w.child[0]) && !isRed(w.child[1]) {
			w.red = true
			x, xParent = xParent, xParent.parent
			continue
		}
		if !isRed(w.child[e]) {
			w.child[d].red, w.red = false, true
			t.rotate(w, e)
			w = xParent.child[e]
		}
		w.red, xParent.red, w.child[e].red = xParent.red, false, false
		t.rotate(xParent, d)
		x = t.root
		break
	}
	if x != nil {
		x.red = false
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

// rotate turns the tree at x towards side d: x's child on the other side takes x's place and x
// becomes its child on side d, the left rotation of ____rb_erase_color's cases for d = 0 and
// the right one for d = 1. The two nodes' augmented minima are repaired, as the rotate callback
// of RB_DECLARE_CALLBACKS does.
func (t *Timeline[T]) rotate(x *Node[T], d uint) {
	d &= 1 // d is 0 or 1; the mask spares the bounds checks
	e := d ^ 1
	y := x.child[e]
	x.child[e] = y.child[d]
	if y.child[d] != nil {
		y.child[d].parent = x
	}
	t.replaceChild(x, y)
	y.child[d] = x
	x.parent = y
	if t.augmented {
		y.augMin = x.augMin
		x.augMin = subtreeMin(x)
	}
}

func isRed[T any](n *Node[T]) bool { return n != nil && n.red }
