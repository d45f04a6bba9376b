package timeline

import (
	"fmt"
	"testing"
)

// checkTimeline walks t and fails the test if any invariant documented on Timeline does not
// hold: parent links, red-black colouring and black height, wrap-aware key order, the cached
// leftmost node, the node count, tree ownership, and (when augmented) the subtree minima.
func checkTimeline[T any](tb testing.TB, t *Timeline[T]) {
	tb.Helper()
	if err := timelineErr(t); err != nil {
		tb.Fatalf("timeline invariant: %v", err)
	}
}

func timelineErr[T any](t *Timeline[T]) error {
	if t.root != nil {
		if t.root.parent != nil {
			return fmt.Errorf("root has a parent")
		}
		if t.root.red {
			return fmt.Errorf("root is red")
		}
	}
	count := 0
	var prev *Node[T]
	var walk func(n *Node[T]) (int, error)
	walk = func(n *Node[T]) (int, error) {
		if n == nil {
			return 1, nil
		}
		if n.tree != t {
			return 0, fmt.Errorf("node %d: tree field does not point to the timeline", n.key)
		}
		if n.value == nil {
			return 0, fmt.Errorf("node %d: no value", n.key)
		}
		for _, c := range []*Node[T]{n.child[0], n.child[1]} {
			if c != nil && c.parent != n {
				return 0, fmt.Errorf("node %d: child %d has a wrong parent link", n.key, c.key)
			}
			if n.red && c != nil && c.red {
				return 0, fmt.Errorf("red node %d has red child %d", n.key, c.key)
			}
		}
		lh, err := walk(n.child[0])
		if err != nil {
			return 0, err
		}
		if prev != nil && before(n.key, prev.key) {
			return 0, fmt.Errorf("keys out of order: %d after %d", n.key, prev.key)
		}
		if prev == nil && t.first != n {
			return 0, fmt.Errorf("cached first is not the leftmost node")
		}
		prev = n
		count++
		rh, err := walk(n.child[1])
		if err != nil {
			return 0, err
		}
		if lh != rh {
			return 0, fmt.Errorf("node %d: black heights differ (%d left, %d right)", n.key, lh, rh)
		}
		if t.augmented && n.augMin != subtreeMin(n) {
			return 0, fmt.Errorf("node %d: augMin %d, want %d", n.key, n.augMin, subtreeMin(n))
		}
		if !n.red {
			lh++
		}
		return lh, nil
	}
	if _, err := walk(t.root); err != nil {
		return err
	}
	if t.root == nil && t.first != nil {
		return fmt.Errorf("empty tree has a cached first node")
	}
	if count != t.n {
		return fmt.Errorf("Len() = %d, but the tree holds %d nodes", t.n, count)
	}
	return nil
}
