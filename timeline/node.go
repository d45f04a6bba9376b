// This file implements Node, the intrusive link an element embeds to be placed on a Timeline
// (the kernel's struct rb_node with the key it is sorted by).

package timeline

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
		panic("timeline: Node.Init of a node that is on a timeline")
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
		panic("timeline: Node.SetAug of a node that is on a timeline")
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
