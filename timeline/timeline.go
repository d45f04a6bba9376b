// This file implements Timeline, the red-black tree with a cached leftmost node (the kernel's
// struct rb_root_cached), its read-only accessors and its walks.

package timeline

import "iter"

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

// Len returns the number of nodes on t. The complexity is O(1).
func (t *Timeline[T]) Len() int { return t.n }

// Empty reports whether t has no nodes. The complexity is O(1).
func (t *Timeline[T]) Empty() bool { return t.n == 0 }

// First returns the node with the smallest key (the first inserted among equals), or nil if t
// is empty: the kernel's rb_first_cached. The complexity is O(1).
func (t *Timeline[T]) First() *Node[T] { return t.first }

// Root returns the root node of the tree, or nil if t is empty.
func (t *Timeline[T]) Root() *Node[T] { return t.root }

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
