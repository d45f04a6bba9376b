package timeline

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// This file holds the benchmarks' third baseline, impl=bplus: the alternative to the red-black
// tree that was measured and set aside (doc.go, "The timeline, and why not the 256-queue run
// queue"). It is a B+tree with the keys stored inline in its nodes, so that a descent reads a
// few contiguous arrays instead of one scattered node per level, and with a back-pointer from
// every element to its leaf, so that an arbitrary element is removed without a search. Nodes
// are freed only when they empty (free-at-empty, no merging), and freed nodes are kept for
// reuse so that the steady state does not allocate. Equal keys are kept in insertion order,
// like the tree's.

const bpFan = 32 // keys per leaf and children per inner node

// bpItem is the element of the bplus baseline.
type bpItem struct {
	key  uint64
	leaf *bpLeaf
	id   int
}

type bpLeaf struct {
	n          int
	keys       [bpFan]uint64
	items      [bpFan]*bpItem
	parent     *bpInner
	prev, next *bpLeaf
}

// bpInner is an inner node: keys[i] for i ≥ 1 is the smallest key child i had when it was
// split off, and every key in child i lies between keys[i] and keys[i+1] (inclusive, since
// equal keys may straddle a split). Its children are leaves at the lowest inner level and inner
// nodes above it.
type bpInner struct {
	n      int
	keys   [bpFan]uint64
	inner  [bpFan]*bpInner
	leaves [bpFan]*bpLeaf
	parent *bpInner
}

type bplusTimeline struct {
	root   *bpInner // nil while a single leaf holds everything
	single *bpLeaf  // that leaf
	head   *bpLeaf  // the leftmost leaf
	height int      // inner levels
	n      int
	free   *bpLeaf  // emptied leaves, linked by next, for reuse
	freeIn *bpInner // emptied inner nodes, linked by parent, for reuse
}

func (t *bplusTimeline) newInner() *bpInner {
	in := t.freeIn
	if in == nil {
		return new(bpInner)
	}
	t.freeIn = in.parent
	*in = bpInner{}
	return in
}

func (t *bplusTimeline) freeInner(in *bpInner) {
	*in = bpInner{parent: t.freeIn}
	t.freeIn = in
}

// bpUpper counts keys[from:n] that are not after key, without branches: the index of the
// child or slot key belongs to, after any equal keys.
func bpUpper(keys *[bpFan]uint64, from, n int, key uint64) int {
	c := 0
	for _, k := range keys[from:n] {
		c += int(uint64(^int64(key-k)) >> 63)
	}
	return c
}

func (t *bplusTimeline) first() *bpItem {
	if t.n == 0 {
		return nil
	}
	return t.head.items[0]
}

func (t *bplusTimeline) newLeaf() *bpLeaf {
	l := t.free
	if l == nil {
		return new(bpLeaf)
	}
	t.free = l.next
	*l = bpLeaf{}
	return l
}

func (t *bplusTimeline) insert(x *bpItem, key uint64) {
	if x.leaf != nil {
		panic("timeline: bplus insert of a queued item")
	}
	x.key = key
	l := t.single
	if t.root != nil {
		in := t.root
		for h := t.height; ; h-- {
			i := bpUpper(&in.keys, 1, in.n, key)
			if h == 1 {
				l = in.leaves[i]
				break
			}
			in = in.inner[i]
		}
	} else if l == nil {
		l = t.newLeaf()
		t.single, t.head = l, l
	}
	if l.n == bpFan {
		l = t.splitLeaf(l, key)
	}
	i := bpUpper(&l.keys, 0, l.n, key)
	copy(l.keys[i+1:l.n+1], l.keys[i:l.n])
	copy(l.items[i+1:l.n+1], l.items[i:l.n])
	l.keys[i], l.items[i] = key, x
	l.n++
	x.leaf = l
	t.n++
}

// splitLeaf moves the upper half of the full leaf l to a new right sibling and returns the
// half that key belongs in.
func (t *bplusTimeline) splitLeaf(l *bpLeaf, key uint64) *bpLeaf {
	r := t.newLeaf()
	const h = bpFan / 2
	copy(r.keys[:], l.keys[h:])
	copy(r.items[:], l.items[h:])
	for j := h; j < bpFan; j++ {
		l.items[j] = nil
		r.items[j-h].leaf = r
	}
	r.n, l.n = bpFan-h, h
	r.prev, r.next = l, l.next
	if l.next != nil {
		l.next.prev = r
	}
	l.next = r
	if l.parent == nil {
		t.grow(l, nil)
	}
	t.addChild(l.parent, l, nil, r, nil, r.keys[0])
	if before(key, r.keys[0]) {
		return l
	}
	return r
}

// grow puts a new root above the current root, leaf l or inner node in.
func (t *bplusTimeline) grow(l *bpLeaf, in *bpInner) {
	p := t.newInner()
	p.n = 1
	if l != nil {
		p.leaves[0], l.parent = l, p
	} else {
		p.inner[0], in.parent = in, p
	}
	t.root, t.single = p, nil
	t.height++
}

// addChild inserts the new right sibling (leaf r or inner node ri, with lower bound sep) just
// after its left sibling (leaf l or inner node li) in p, splitting p first if it is full.
func (t *bplusTimeline) addChild(p *bpInner, l *bpLeaf, li *bpInner, r *bpLeaf, ri *bpInner, sep uint64) {
	if p.n == bpFan {
		q := t.newInner()
		const h = bpFan / 2
		copy(q.keys[:], p.keys[h:])
		copy(q.inner[:], p.inner[h:])
		copy(q.leaves[:], p.leaves[h:])
		for j := h; j < bpFan; j++ {
			p.inner[j], p.leaves[j] = nil, nil
			if c := q.inner[j-h]; c != nil {
				c.parent = q
			}
			if c := q.leaves[j-h]; c != nil {
				c.parent = q
			}
		}
		q.n, p.n = bpFan-h, h
		if p.parent == nil {
			t.grow(nil, p)
		}
		t.addChild(p.parent, nil, p, nil, q, q.keys[0])
		if (l != nil && l.parent == q) || (li != nil && li.parent == q) {
			p = q
		}
	}
	i := 0
	for (l == nil || p.leaves[i] != l) && (li == nil || p.inner[i] != li) {
		i++
	}
	i++
	copy(p.keys[i+1:p.n+1], p.keys[i:p.n])
	copy(p.inner[i+1:p.n+1], p.inner[i:p.n])
	copy(p.leaves[i+1:p.n+1], p.leaves[i:p.n])
	p.keys[i] = sep
	p.inner[i], p.leaves[i] = ri, r
	if r != nil {
		r.parent = p
	} else {
		ri.parent = p
	}
	p.n++
}

func (t *bplusTimeline) remove(x *bpItem) {
	l := x.leaf
	if l == nil {
		panic("timeline: bplus remove of an item that is not queued")
	}
	i := 0
	for l.items[i] != x {
		i++
	}
	copy(l.keys[i:l.n-1], l.keys[i+1:l.n])
	copy(l.items[i:l.n-1], l.items[i+1:l.n])
	l.n--
	l.items[l.n] = nil
	x.leaf = nil
	t.n--
	if l.n == 0 && l.parent != nil {
		t.dropLeaf(l)
	}
}

func (t *bplusTimeline) popFirst() *bpItem {
	x := t.first()
	if x != nil {
		t.remove(x)
	}
	return x
}

// dropLeaf unlinks the empty leaf l and keeps it for reuse.
func (t *bplusTimeline) dropLeaf(l *bpLeaf) {
	if l.prev != nil {
		l.prev.next = l.next
	} else {
		t.head = l.next
	}
	if l.next != nil {
		l.next.prev = l.prev
	}
	p := l.parent
	i := 0
	for p.leaves[i] != l {
		i++
	}
	t.dropChild(p, i)
	*l = bpLeaf{next: t.free}
	t.free = l
}

// dropChild removes child i of p, removes p from its parent if p is left without children,
// and shrinks the tree while its root has a single child.
func (t *bplusTimeline) dropChild(p *bpInner, i int) {
	copy(p.inner[i:p.n-1], p.inner[i+1:p.n])
	copy(p.leaves[i:p.n-1], p.leaves[i+1:p.n])
	if i == 0 {
		i = 1 // the old child 1 becomes child 0 and needs no lower bound
	}
	if i < p.n {
		copy(p.keys[i:p.n-1], p.keys[i+1:p.n])
	}
	p.n--
	p.inner[p.n], p.leaves[p.n] = nil, nil
	if p.n == 0 {
		g := p.parent // p is not the root: a root with one child is always collapsed
		j := 0
		for g.inner[j] != p {
			j++
		}
		t.freeInner(p)
		t.dropChild(g, j)
		return
	}
	for t.root != nil && t.root.n == 1 {
		r := t.root
		if l := r.leaves[0]; l != nil {
			t.root, t.single, l.parent = nil, l, nil
		} else {
			t.root, r.inner[0].parent = r.inner[0], nil
		}
		t.freeInner(r)
		t.height--
	}
}

// bplusErr checks the baseline's invariants: parent and leaf links, bounds of every child
// within its separators, the leaf list in key order, only a lone root leaf empty, and the count.
func bplusErr(t *bplusTimeline) error {
	var leaves []*bpLeaf
	var walk func(in *bpInner, h int, lo, hi uint64, hasLo, hasHi bool) error
	checkLeaf := func(l *bpLeaf, lo, hi uint64, hasLo, hasHi bool) error {
		if l.n == 0 && t.root != nil {
			return fmt.Errorf("empty leaf below an inner node")
		}
		for i := range l.n {
			if l.items[i].leaf != l || l.items[i].key != l.keys[i] {
				return fmt.Errorf("leaf slot %d: item's back-pointer or key is wrong", i)
			}
			if i > 0 && before(l.keys[i], l.keys[i-1]) {
				return fmt.Errorf("leaf keys out of order at %d", i)
			}
			if (hasLo && before(l.keys[i], lo)) || (hasHi && before(hi, l.keys[i])) {
				return fmt.Errorf("key %d outside its separators", l.keys[i])
			}
		}
		leaves = append(leaves, l)
		return nil
	}
	walk = func(in *bpInner, h int, lo, hi uint64, hasLo, hasHi bool) error {
		if in.n == 0 {
			return fmt.Errorf("inner node without children")
		}
		for i := range in.n {
			clo, chasLo, chi, chasHi := lo, hasLo, hi, hasHi
			if i > 0 {
				clo, chasLo = in.keys[i], true
			}
			if i+1 < in.n {
				chi, chasHi = in.keys[i+1], true
			}
			if h == 1 {
				if in.leaves[i] == nil || in.leaves[i].parent != in || in.inner[i] != nil {
					return fmt.Errorf("bad leaf child %d", i)
				}
				if err := checkLeaf(in.leaves[i], clo, chi, chasLo, chasHi); err != nil {
					return err
				}
				continue
			}
			if in.inner[i] == nil || in.inner[i].parent != in || in.leaves[i] != nil {
				return fmt.Errorf("bad inner child %d", i)
			}
			if err := walk(in.inner[i], h-1, clo, chi, chasLo, chasHi); err != nil {
				return err
			}
		}
		return nil
	}
	switch {
	case t.root != nil:
		if t.root.parent != nil || t.root.n < 2 || t.single != nil {
			return fmt.Errorf("bad root")
		}
		if err := walk(t.root, t.height, 0, 0, false, false); err != nil {
			return err
		}
	case t.single != nil:
		if t.height != 0 || t.single.parent != nil {
			return fmt.Errorf("bad single leaf")
		}
		if err := checkLeaf(t.single, 0, 0, false, false); err != nil {
			return err
		}
	}
	count := 0
	l := t.head
	for i, want := range leaves {
		if l != want {
			return fmt.Errorf("leaf list differs from the tree at leaf %d", i)
		}
		if i > 0 && l.prev != leaves[i-1] {
			return fmt.Errorf("leaf %d: wrong prev link", i)
		}
		count += l.n
		l = l.next
	}
	if l != nil || count != t.n {
		return fmt.Errorf("leaf list or count is wrong: %d items counted, n = %d", count, t.n)
	}
	return nil
}

// TestBplusBaseline runs the baseline against a sorted-slice model (equal keys in insertion
// order), checking its invariants after every operation, so that its benchmark figures are
// those of a correct timeline.
func TestBplusBaseline(t *testing.T) {
	for _, n := range []int{1, 2, 31, 33, 200, 3000, 16000} {
		steps, every := 3000, 1 // check after every operation...
		if n > 3000 {
			steps, every = 8000, 997 // ...except on a tree of three inner levels
		}
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(n)))
			var tl bplusTimeline
			maxHeight := 0
			var model []*bpItem // sorted by wrap-aware key, FIFO among equals
			items := make([]*bpItem, n)
			base := ^uint64(0) - 200 // keys cross the u64 wrap point
			modelInsert := func(x *bpItem) {
				i := sort.Search(len(model), func(j int) bool { return before(x.key, model[j].key) })
				model = slices.Insert(model, i, x)
			}
			modelRemove := func(x *bpItem) {
				lo := sort.Search(len(model), func(j int) bool { return !before(model[j].key, x.key) })
				for i := lo; i < len(model); i++ {
					if model[i] == x {
						model = slices.Delete(model, i, i+1)
						return
					}
				}
				t.Fatalf("model: item %d absent", x.id)
			}
			check := func(step int) {
				t.Helper()
				if step%every != 0 {
					return
				}
				if err := bplusErr(&tl); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				i := 0
				for l := tl.head; l != nil; l = l.next {
					for _, x := range l.items[:l.n] {
						if x != model[i] {
							t.Fatalf("step %d: position %d holds item %d, want %d", step, i, x.id, model[i].id)
						}
						i++
					}
				}
				if i != len(model) {
					t.Fatalf("step %d: %d items, want %d", step, i, len(model))
				}
			}
			for i := range items {
				items[i] = &bpItem{id: i}
				tl.insert(items[i], base+r.Uint64N(64)) // few distinct keys: many ties
				modelInsert(items[i])
				check(i)
			}
			for step := range steps {
				var x *bpItem
				switch r.IntN(3) {
				case 0:
					x = tl.popFirst()
					if x != model[0] {
						t.Fatalf("step %d: popFirst = item %d, want %d", step, x.id, model[0].id)
					}
				default:
					x = items[r.IntN(n)]
					tl.remove(x)
				}
				modelRemove(x)
				check(step)
				tl.insert(x, x.key+r.Uint64N(96))
				modelInsert(x)
				check(step)
				maxHeight = max(maxHeight, tl.height)
			}
			for range n { // drain
				x := tl.popFirst()
				if x != model[0] {
					t.Fatalf("drain: popFirst = item %d, want %d", x.id, model[0].id)
				}
				model = model[1:]
				check(len(model))
			}
			if tl.height != 0 || tl.root != nil {
				t.Fatalf("drained baseline has height %d", tl.height)
			}
			if n > 3000 && maxHeight < 3 {
				t.Fatalf("the large case reached height %d, want 3", maxHeight)
			}
			if tl.first() != nil || tl.n != 0 {
				t.Fatal("drained baseline is not empty")
			}
		})
	}
}

func benchBplus(b *testing.B, op string, in benchInput) {
	var tl bplusTimeline
	items := make([]*bpItem, len(in.keys))
	for i, k := range in.keys {
		items[i] = &bpItem{id: i}
		tl.insert(items[i], k)
	}
	b.ReportAllocs()
	i := 0
	switch op {
	case "insert-popmin":
		for b.Loop() {
			x := tl.popFirst()
			tl.insert(x, x.key+in.incs[i&(benchTable-1)])
			i++
		}
	case "remove-reinsert":
		for b.Loop() {
			x := items[in.picks[i&(benchTable-1)]]
			k := x.key
			tl.remove(x)
			tl.insert(x, k+in.incs[i&(benchTable-1)])
			i++
		}
	}
}
