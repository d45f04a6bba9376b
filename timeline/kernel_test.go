package timeline

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// This file holds a line-by-line port of the kernel's red-black tree (lib/rbtree.c and
// include/linux/rbtree.h, without the augmentation, whose values are a function of the shape),
// used as the reference for the shape of [Timeline]: after the same operations, both trees
// must hold the same keys in the same places with the same colours. The augmented minima are
// checked separately, against their definition, by checkTimeline.

// kNode is the kernel's struct rb_node, with the colour in its own field instead of the low bit
// of __rb_parent_color, and the key and an id beside it.
type kNode struct {
	left, right, parent *kNode
	black               bool
	key                 uint64
	id                  int
}

// kTree is the kernel's struct rb_root_cached.
type kTree struct {
	root, leftmost *kNode
}

// rbChangeChild is __rb_change_child.
func (t *kTree) rbChangeChild(old, nw, parent *kNode) {
	switch {
	case parent == nil:
		t.root = nw
	case parent.left == old:
		parent.left = nw
	default:
		parent.right = nw
	}
}

// rbRotateSetParents is __rb_rotate_set_parents: nw takes old's parent and colour, old gets
// nw as its parent and the given colour.
func (t *kTree) rbRotateSetParents(old, nw *kNode, black bool) {
	parent := old.parent
	nw.parent, nw.black = old.parent, old.black
	old.parent, old.black = nw, black
	t.rbChangeChild(old, nw, parent)
}

// add is rb_add_cached with entity_before as the less function: equal keys go right.
func (t *kTree) add(n *kNode, key uint64) {
	n.key = key
	link, parent := &t.root, (*kNode)(nil)
	leftmost := true
	for *link != nil {
		parent = *link
		if before(key, parent.key) {
			link = &parent.left
		} else {
			link = &parent.right
			leftmost = false
		}
	}
	// rb_link_node: a red leaf.
	n.parent, n.black, n.left, n.right = parent, false, nil, nil
	*link = n
	// rb_insert_color_cached.
	if leftmost {
		t.leftmost = n
	}
	t.rbInsert(n)
}

// rbInsert is __rb_insert.
func (t *kTree) rbInsert(node *kNode) {
	parent := node.parent
	for {
		// Loop invariant: node is red.
		if parent == nil {
			node.parent, node.black = nil, true
			break
		}
		if parent.black {
			break
		}
		gparent := parent.parent
		tmp := gparent.right
		if parent != tmp { // parent == gparent.left
			if tmp != nil && !tmp.black {
				// Case 1: the uncle is red (colour flips).
				tmp.parent, tmp.black = gparent, true
				parent.parent, parent.black = gparent, true
				node = gparent
				parent = node.parent
				node.parent, node.black = parent, false
				continue
			}
			tmp = parent.right
			if node == tmp {
				// Case 2: left rotate at parent.
				tmp = node.left
				parent.right = tmp
				node.left = parent
				if tmp != nil {
					tmp.parent, tmp.black = parent, true
				}
				parent.parent, parent.black = node, false
				parent = node
				tmp = node.right
			}
			// Case 3: right rotate at gparent.
			gparent.left = tmp // == parent.right
			parent.right = gparent
			if tmp != nil {
				tmp.parent, tmp.black = gparent, true
			}
			t.rbRotateSetParents(gparent, parent, false)
			break
		}
		tmp = gparent.left
		if tmp != nil && !tmp.black {
			// Case 1: colour flips.
			tmp.parent, tmp.black = gparent, true
			parent.parent, parent.black = gparent, true
			node = gparent
			parent = node.parent
			node.parent, node.black = parent, false
			continue
		}
		tmp = parent.left
		if node == tmp {
			// Case 2: right rotate at parent.
			tmp = node.right
			parent.left = tmp
			node.right = parent
			if tmp != nil {
				tmp.parent, tmp.black = parent, true
			}
			parent.parent, parent.black = node, false
			parent = node
			tmp = node.left
		}
		// Case 3: left rotate at gparent.
		gparent.right = tmp // == parent.left
		parent.left = gparent
		if tmp != nil {
			tmp.parent, tmp.black = gparent, true
		}
		t.rbRotateSetParents(gparent, parent, false)
		break
	}
}

// next is rb_next.
func (n *kNode) next() *kNode {
	if n.right != nil {
		n = n.right
		for n.left != nil {
			n = n.left
		}
		return n
	}
	for n.parent != nil && n == n.parent.right {
		n = n.parent
	}
	return n.parent
}

// erase is rb_erase_cached: the cached leftmost moves to rb_next, then __rb_erase_augmented
// and, if it asks for it, __rb_erase_color.
func (t *kTree) erase(node *kNode) {
	if t.leftmost == node {
		t.leftmost = node.next()
	}
	if rebalance := t.rbErase(node); rebalance != nil {
		t.rbEraseColor(rebalance)
	}
}

// rbErase is __rb_erase_augmented; it returns the node to rebalance from, or nil.
func (t *kTree) rbErase(node *kNode) *kNode {
	child, tmp := node.right, node.left
	var parent, rebalance *kNode
	if tmp == nil {
		// Case 1: at most one child, which if present is red (and node black).
		parent = node.parent
		t.rbChangeChild(node, child, parent)
		if child != nil {
			child.parent, child.black = node.parent, node.black
		} else if node.black {
			rebalance = parent
		}
		return rebalance
	}
	if child == nil {
		// Still case 1, with the child on the left.
		tmp.parent, tmp.black = node.parent, node.black
		parent = node.parent
		t.rbChangeChild(node, tmp, parent)
		return nil
	}
	successor := child
	var child2 *kNode
	tmp = child.left
	if tmp == nil {
		// Case 2: the successor is node's right child.
		parent = successor
		child2 = successor.right
	} else {
		// Case 3: the successor is the leftmost of node's right subtree.
		for tmp != nil {
			parent = successor
			successor = tmp
			tmp = tmp.left
		}
		child2 = successor.right
		parent.left = child2
		successor.right = child
		child.parent = successor
	}
	tmp = node.left
	successor.left = tmp
	tmp.parent = successor
	t.rbChangeChild(node, successor, node.parent)
	if child2 != nil {
		child2.parent, child2.black = parent, true
	} else if successor.black {
		rebalance = parent
	}
	successor.parent, successor.black = node.parent, node.black
	return rebalance
}

// rbEraseColor is ____rb_erase_color.
func (t *kTree) rbEraseColor(parent *kNode) {
	var node *kNode
	for {
		// Loop invariants: node is black (or nil on the first iteration), node is not the
		// root, and every path through parent and node has one black node fewer than the others.
		sibling := parent.right
		if node != sibling { // node == parent.left
			if !sibling.black {
				// Case 1: left rotate at parent.
				tmp1 := sibling.left
				parent.right = tmp1
				sibling.left = parent
				tmp1.parent, tmp1.black = parent, true
				t.rbRotateSetParents(parent, sibling, false)
				sibling = tmp1
			}
			tmp1 := sibling.right
			if tmp1 == nil || tmp1.black {
				tmp2 := sibling.left
				if tmp2 == nil || tmp2.black {
					// Case 2: sibling colour flip.
					sibling.parent, sibling.black = parent, false
					if !parent.black {
						parent.black = true
					} else {
						node = parent
						parent = node.parent
						if parent != nil {
							continue
						}
					}
					break
				}
				// Case 3: right rotate at sibling.
				tmp1 = tmp2.right
				sibling.left = tmp1
				tmp2.right = sibling
				parent.right = tmp2
				if tmp1 != nil {
					tmp1.parent, tmp1.black = sibling, true
				}
				tmp1 = sibling
				sibling = tmp2
			}
			// Case 4: left rotate at parent and colour flips.
			tmp2 := sibling.left
			parent.right = tmp2
			sibling.left = parent
			tmp1.parent, tmp1.black = sibling, true
			if tmp2 != nil {
				tmp2.parent = parent
			}
			t.rbRotateSetParents(parent, sibling, true)
			break
		}
		sibling = parent.left
		if !sibling.black {
			// Case 1: right rotate at parent.
			tmp1 := sibling.right
			parent.left = tmp1
			sibling.right = parent
			tmp1.parent, tmp1.black = parent, true
			t.rbRotateSetParents(parent, sibling, false)
			sibling = tmp1
		}
		tmp1 := sibling.left
		if tmp1 == nil || tmp1.black {
			tmp2 := sibling.right
			if tmp2 == nil || tmp2.black {
				// Case 2: sibling colour flip.
				sibling.parent, sibling.black = parent, false
				if !parent.black {
					parent.black = true
				} else {
					node = parent
					parent = node.parent
					if parent != nil {
						continue
					}
				}
				break
			}
			// Case 3: left rotate at sibling.
			tmp1 = tmp2.left
			sibling.right = tmp1
			tmp2.left = sibling
			parent.left = tmp2
			if tmp1 != nil {
				tmp1.parent, tmp1.black = sibling, true
			}
			tmp1 = sibling
			sibling = tmp2
		}
		// Case 4: right rotate at parent and colour flips.
		tmp2 := sibling.right
		parent.left = tmp2
		sibling.right = parent
		tmp1.parent, tmp1.black = sibling, true
		if tmp2 != nil {
			tmp2.parent = parent
		}
		t.rbRotateSetParents(parent, sibling, true)
		break
	}
}

// sameShape reports the first difference between the timeline tl and the kernel's tree kt whose
// kNode ids are the timeline's item ids: a different node, key or colour in some place, a
// different cached leftmost node.
func sameShape(tl *Timeline[item], kt *kTree) error {
	var walk func(n *Node[item], k *kNode, path string) error
	walk = func(n *Node[item], k *kNode, path string) error {
		switch {
		case n == nil && k == nil:
			return nil
		case n == nil || k == nil:
			return fmt.Errorf("at %q: timeline node %v, kernel node %v", path, n != nil, k != nil)
		case n.Value().id != k.id || n.Key() != k.key:
			return fmt.Errorf("at %q: item %d key %d, kernel item %d key %d", path, n.Value().id, n.Key(), k.id, k.key)
		case n.red == k.black:
			return fmt.Errorf("at %q: item %d red=%v, kernel black=%v", path, k.id, n.red, k.black)
		}
		if err := walk(n.Left(), k.left, path+"l"); err != nil {
			return err
		}
		return walk(n.Right(), k.right, path+"r")
	}
	if err := walk(tl.Root(), kt.root, ""); err != nil {
		return err
	}
	switch f := tl.First(); {
	case f == nil && kt.leftmost == nil:
	case f == nil || kt.leftmost == nil || f.Value().id != kt.leftmost.id:
		return fmt.Errorf("cached leftmost differs")
	}
	return nil
}

// TestTimelineKernelShape runs seeded random insertions (with many equal keys and keys across
// the u64 wrap), arbitrary removals, pops of the leftmost and in-place changes of the augmented
// value on a Timeline and on the port of the kernel's rbtree.c, and checks after every
// operation that the two trees have the same shape, keys, colours and cached leftmost node,
// and that the timeline's invariants (including the augmented minima) hold: the tree EEVDF's
// pick walks is the kernel's.
func TestTimelineKernelShape(t *testing.T) {
	for _, tc := range []struct {
		aug      bool
		size     int    // items in the pool
		keySpan  uint64 // keys are base + [0, keySpan)
		popBias  int    // out of 8: how often a queued item's turn pops the leftmost instead
		seed     uint64
		rounds   int
		baseWrap bool
	}{
		{false, 8, 4, 4, 1, 20_000, true},
		{true, 8, 4, 4, 2, 20_000, false},
		{true, 40, 1 << 10, 6, 3, 40_000, true},
		{false, 300, 1 << 20, 7, 4, 60_000, true},
		{true, 300, 1 << 20, 2, 5, 60_000, false},
		{true, 3000, 1 << 30, 4, 6, 60_000, true},
	} {
		r := rand.New(rand.NewPCG(tc.seed, 19))
		var tl Timeline[item]
		if tc.aug {
			tl.EnableAugment()
		}
		var kt kTree
		base := uint64(0)
		if tc.baseWrap {
			base = ^uint64(0) - tc.keySpan/2
		}
		items := make([]*item, tc.size)
		knodes := make([]*kNode, tc.size)
		for i := range items {
			items[i] = newItem(i)
			knodes[i] = &kNode{id: i}
		}
		for op := range tc.rounds {
			i := r.IntN(tc.size)
			it, k := items[i], knodes[i]
			switch {
			case !it.node.Queued():
				key := base + r.Uint64N(tc.keySpan)
				it.node.SetAug(r.Uint64N(tc.keySpan))
				tl.Insert(&it.node, key)
				kt.add(k, key)
			case r.IntN(8) < tc.popBias:
				n := tl.PopFirst()
				kt.erase(kt.leftmost)
				_ = n
			case r.IntN(4) == 0 && tc.aug:
				tl.UpdateAug(&it.node, r.Uint64N(tc.keySpan))
			default:
				tl.Remove(&it.node)
				kt.erase(k)
			}
			if tc.size > 300 && op%16 != 0 {
				continue
			}
			if err := sameShape(&tl, &kt); err != nil {
				t.Fatalf("aug=%v size=%d seed=%d op %d: %v", tc.aug, tc.size, tc.seed, op, err)
			}
			if tc.size <= 40 || op%97 == 0 {
				checkTimeline(t, &tl)
			}
		}
		checkTimeline(t, &tl)
	}
}
