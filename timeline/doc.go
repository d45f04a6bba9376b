// Package timeline implements the red-black tree Linux's fair scheduler keeps its runnable
// entities in: a tree of nodes ordered by a uint64 key compared wrap-around aware, with the
// leftmost node cached, intrusive (the [Node] lives in the caller's element), generic over the
// element type and allocation-free. It is the kernel's struct rb_root_cached with
// lib/rbtree.c's insertion and removal, and, optionally, the per-subtree minimum of a second
// uint64 that include/linux/rbtree_augmented.h keeps for EEVDF. Package cfs orders its
// sched_entities on it (by vruntime, or by virtual deadline in v7.1); examples/fairshare orders
// tenants of a worker pool on it.
//
// # Why a tree, and why not the 256-queue run queue
//
// FreeBSD's schedulers keep runnable threads in 256 FIFO queues indexed by priority, with a
// bitmap of non-empty queues (package runq): picking is a find-first-set, O(1). That works
// because a thread's priority takes few values and changes rarely. A vruntime takes any of
// 2^64 values and changes every time its entity runs, and fairness depends on the exact order:
// bucketing vruntimes into 256 queues would serve entities in the wrong order within a bucket
// and would need a moving window over an unbounded clock. The kernel therefore orders entities
// in a red-black tree, caching the leftmost node so that the pick is O(1) and insertion and
// removal O(log n). A heap would also pop the minimum in O(log n), but v6.6's EEVDF pick walks
// the tree's shape (see package cfs), and the kernel's trees are the ones the tests reproduce.
//
// # The model
//
// A [Timeline] holds [Node]s. A node carries its element's sort key, a snapshot taken by
// [Timeline.Insert] (the caller keeps the key it sorts by in its own fields: a vruntime changes
// while the entity runs, off the tree, and is written into the node when the entity goes
// back), and a back-pointer to its element, set once by [Node.Init]. Keys are compared as the
// kernel compares vruntimes, a before b exactly when int64(a-b) < 0, so that a u64 clock may
// wrap; the order is a total order as long as all keys on one timeline lie within 2^63 of each
// other, which is the kernel's own precondition. Nodes with equal keys keep insertion order: a
// new node goes to the right of existing equal keys, so equals are served first in, first out,
// as entity_before makes rb_add_cached do.
//
// The key lives in the node rather than behind a comparator that reaches into the element
// (func(a, b *T) int, the shape package slices uses): every ordering the kernel's fair class
// uses is such a key, and the descent then touches one cache line per level instead of two and
// makes no indirect call. docs/performance.md gives the measurements behind this choice and
// behind the ones below.
//
// # Insertion and removal as the kernel does them
//
// [Timeline.Insert] is rb_add_cached: a descent from the root, then __rb_insert's repair of a
// red node under a red parent. The descent computes its direction without a branch (the
// comparison is a coin toss in a random workload, and a mispredicted branch per level costs more
// than a data dependency) and records every direction in a word, from which the repair reads the
// sides of the nodes it recolours and rotates instead of comparing child pointers, so one copy
// of each case serves both sides. [Timeline.Remove] is rb_erase_cached with
// ____rb_erase_color. [Timeline.PopFirst], the pop of the scheduler's pattern (take the
// leftmost entity to run it, put it back further right), unlinks the cached leftmost node
// directly: it has no left child, and its right subtree is empty or a single red leaf, so a
// missing black can only appear on the tree's left spine, and its repair is the left-hand half
// of ____rb_erase_color alone. The trees that result are the kernel's: the tests replay random
// operations on a port of lib/rbtree.c and compare every node's place, key and colour, and the
// cached leftmost, after every operation.
//
// # Augmentation
//
// A timeline can also maintain, in every node, the minimum of a second uint64 over its subtree
// ([Timeline.EnableAugment], [Node.SetAug], [Node.AugMin], [Timeline.UpdateAug]), repaired on
// every rotation and along the path of every insertion and removal, as the callbacks
// RB_DECLARE_CALLBACKS generates do. EEVDF keeps the earliest deadline there when the tree is
// ordered by vruntime (v6.6), and the smallest vruntime when it is ordered by deadline (v7.1),
// to find the eligible entity with the earliest deadline in O(log n) by descending with
// [Timeline.Root], [Node.Left] and [Node.Right]. The augmented values obey the same 2^63 rule
// as the keys. The augmentation costs a test per operation when it is off.
//
// # Rejected alternatives
//
// A slab of 16-byte key-and-link entries owned by the timeline (the descent reading it instead
// of the elements), a node that keeps copies of its children's keys and pointers to its
// grandchildren (two levels per load), the colour stored in the parent pointer as the kernel's
// __rb_parent_color does, a conditional-move descent (which needs pointer arithmetic that
// unsafe.Pointer's rules forbid), and a B+tree with inline keys were all measured and set
// aside; the B+tree also lacks the kernel's shape, which v6.6's EEVDF pick depends on when
// deadlines tie. An index-tracked heap removes an arbitrary element and reinserts it faster
// than any ordered structure can (it moves elements O(1) levels on average where an ordered
// structure compares O(log n) keys), but loses both the shape and the O(1) leftmost.
//
// # Invariants
//
// After every operation (the tests' checkTimeline verifies each one): the root is black, no red
// node has a red child, and every root-to-leaf path has the same number of black nodes; every
// child's parent link points to its parent; the in-order walk is non-decreasing in wrap-aware
// key order; the cached first node is the in-order first; Len counts the nodes; every queued
// node belongs to the timeline and has an element; and, on an augmented timeline, every node's
// AugMin is the minimum of its own Aug and its children's AugMin.
//
// # Cost model
//
//	operation                           cost                       allocates
//	Timeline.First, Len, Empty, Root    O(1)                       no
//	Timeline.Insert                     O(log n)                   no
//	Timeline.Remove, PopFirst           O(log n)                   no
//	Timeline.UpdateAug, Last            O(log n)                   no
//	Node.Next                           O(log n), O(1) amortised   no
//	Timeline.All                        O(n)                       the iterator's closure
//
// A node is 72 bytes; nothing else is allocated. The zero Timeline is empty and ready to use and
// holds a noCopy (a copy would share its nodes with the original). No type of the package is
// safe for concurrent use: a timeline and its nodes belong to one goroutine at a time, as the
// kernel's belongs to whoever holds the run queue's lock.
//
// # Kernel names
//
//	Linux (lib/rbtree.c, include/linux/rbtree*.h)    schedkit/timeline
//	struct rb_root_cached                             Timeline
//	struct rb_node (with the key of the element)      Node
//	rb_add_cached(node, tree, less)                   Timeline.Insert
//	rb_erase_cached(node, tree)                       Timeline.Remove
//	rb_erase_cached of rb_first_cached                Timeline.PopFirst (unexported removeFirst)
//	__rb_insert                                       (unexported) insertFixup
//	____rb_erase_color                                (unexported) removeFixup
//	____rb_erase_color, node == parent->rb_left       (unexported) fixLeftSpine
//	rb_first_cached, rb_last, rb_next                 Timeline.First, Timeline.Last, Node.Next
//	rb_entry (container_of)                           Node.Value (the back-pointer of Node.Init)
//	RB_EMPTY_NODE                                     !Node.Queued
//	rb_root, rb_left, rb_right                        Timeline.Root, Node.Left, Node.Right
//	RB_DECLARE_CALLBACKS (propagate, copy, rotate)    Timeline.EnableAugment, (unexported) subtreeMin
//	the augmented field (min_deadline, min_vruntime)  Node.SetAug, Node.Aug, Node.AugMin
//	the propagate callback after an in-place change   Timeline.UpdateAug
//	entity_before: (s64)(a - b) < 0                   the key order
package timeline
