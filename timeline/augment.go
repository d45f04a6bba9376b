// This file implements the optional augmentation: the minimum of a second uint64 over every
// subtree, kept up to date on every rotation as the kernel's rbtree_augmented.h callbacks keep
// EEVDF's min_deadline (v6.6) and min_vruntime (v7.1).

package timeline

// EnableAugment makes t maintain, in every node, the wrap-aware minimum of the augmented values
// ([Node.SetAug]) of its subtree, at the cost of O(log n) extra work per insertion and removal.
// Like the keys, the augmented values must lie within 2^63 of each other: beyond that the
// wrap-aware order is not transitive and the minimum is not defined. EnableAugment panics if t
// is not empty.
func (t *Timeline[T]) EnableAugment() {
	if t.n != 0 {
		panic("timeline: Timeline.EnableAugment on a non-empty timeline")
	}
	t.augmented = true
}

// Augmented reports whether t maintains per-subtree minima of the augmented values.
func (t *Timeline[T]) Augmented() bool { return t.augmented }

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

// UpdateAug changes the augmented value of n, which is on t, to v and repairs the subtree minima
// of n and its ancestors: the kernel's RB_DECLARE_CALLBACKS propagate callback, used when an
// entity's deadline changes in place (v6.6's reweight_entity). The complexity is O(log n).
// UpdateAug panics if n is not on t.
func (t *Timeline[T]) UpdateAug(n *Node[T], v uint64) {
	if n.tree != t {
		panic("timeline: Timeline.UpdateAug of a node that is not on this timeline")
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
