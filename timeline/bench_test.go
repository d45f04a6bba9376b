package timeline

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/btree"
)

// The timeline benchmarks replay the CFS pattern on a timeline of n entities: op=insert-popmin
// takes the leftmost entity and puts it back with its key advanced by a random slice (what a
// tick preemption does to the running entity), op=remove-reinsert takes an arbitrary entity out
// and puts it back further right (a sleep followed by a wakeup, or a reweight). The baselines
// run the same operations from the same random tables: impl=heap is container/heap with
// index-tracked items, impl=btree is github.com/google/btree's BTreeG of degree 32, and
// impl=bplus is the B+tree with inline keys that was measured as an alternative to the
// red-black tree (bplus_test.go).
//
// The tree, the heap and the B-tree order the same elements (benchEntity, allocated one by one in
// the same order, one size class), as a scheduler's would be: the heap holds pointers to the
// entities and compares the keys stored in them, the B-tree likewise. impl=heap-small is the
// heap over its own 16-byte items, the baseline of the figures measured before: its working set
// is a fifth of the entities', which no intrusive structure can have, so at 65536 entities it
// measures element size as much as the data structure.

var benchSizes = []int{16, 256, 4096, 65536}

const benchTable = 1 << 12 // size of the precomputed random tables (a power of two)

// benchInput is the random data every implementation of one benchmark consumes.
type benchInput struct {
	keys  []uint64 // initial keys, one per entity
	incs  []uint64 // key advances, cycled through
	picks []int    // entity indices for remove-reinsert, cycled through
}

func newBenchInput(n int) benchInput {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	in := benchInput{keys: make([]uint64, n), incs: make([]uint64, benchTable), picks: make([]int, benchTable)}
	start := ^uint64(0) - 1<<20 // the kernel's initial min_vruntime, so keys wrap
	for i := range in.keys {
		in.keys[i] = start + r.Uint64N(6_000_000)
	}
	for i := range in.incs {
		in.incs[i] = 1 + r.Uint64N(3_000_000)
	}
	for i := range in.picks {
		in.picks[i] = r.IntN(n)
	}
	return in
}

// benchEntity is the element the tree, the heap and the B-tree baselines order: node for the
// tree, key and idx for the heap, key and id for the B-tree (96 bytes, so 32-byte aligned).
type benchEntity struct {
	node Node[benchEntity]
	key  uint64
	idx  int
	id   int
}

// newBenchEntities allocates the entities of one benchmark one by one, in id order.
func newBenchEntities(n int) []*benchEntity {
	es := make([]*benchEntity, n)
	for i := range es {
		es[i] = &benchEntity{id: i}
		es[i].node.Init(es[i])
	}
	return es
}

// entityHeap is the container/heap baseline: a min-heap of entities on wrap-aware keys whose
// entities track their index so that an arbitrary one can be removed.
type entityHeap []*benchEntity

func (h entityHeap) Len() int           { return len(h) }
func (h entityHeap) Less(i, j int) bool { return before(h[i].key, h[j].key) }
func (h entityHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx = i
	h[j].idx = j
}
func (h *entityHeap) Push(x any) {
	e := x.(*benchEntity)
	e.idx = len(*h)
	*h = append(*h, e)
}
func (h *entityHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}

// heapItem and keyHeap are the impl=heap-small baseline: container/heap over its own 16-byte
// index-tracked items.
type heapItem struct {
	key uint64
	idx int
}

type keyHeap []*heapItem

func (h keyHeap) Len() int           { return len(h) }
func (h keyHeap) Less(i, j int) bool { return before(h[i].key, h[j].key) }
func (h keyHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx = i
	h[j].idx = j
}
func (h *keyHeap) Push(x any) {
	it := x.(*heapItem)
	it.idx = len(*h)
	*h = append(*h, it)
}
func (h *keyHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return it
}

// btreeLess orders the B-tree baseline's entities; id breaks ties so that they are unique.
func btreeLess(a, b *benchEntity) bool {
	if a.key != b.key {
		return before(a.key, b.key)
	}
	return a.id < b.id
}

func BenchmarkTimeline(b *testing.B) {
	for _, op := range []string{"insert-popmin", "remove-reinsert"} {
		for _, n := range benchSizes {
			in := newBenchInput(n)
			b.Run(fmt.Sprintf("op=%s/impl=rbtree/n=%d", op, n), func(b *testing.B) {
				benchRBTree(b, op, in)
			})
			b.Run(fmt.Sprintf("op=%s/impl=heap/n=%d", op, n), func(b *testing.B) {
				benchHeap(b, op, in)
			})
			b.Run(fmt.Sprintf("op=%s/impl=heap-small/n=%d", op, n), func(b *testing.B) {
				benchHeapSmall(b, op, in)
			})
			b.Run(fmt.Sprintf("op=%s/impl=btree/n=%d", op, n), func(b *testing.B) {
				benchBTree(b, op, in)
			})
			b.Run(fmt.Sprintf("op=%s/impl=bplus/n=%d", op, n), func(b *testing.B) {
				benchBplus(b, op, in)
			})
		}
	}
}

func newBenchRBTree(in benchInput) (*Timeline[benchEntity], []*benchEntity) {
	tl := new(Timeline[benchEntity])
	es := newBenchEntities(len(in.keys))
	for i, k := range in.keys {
		tl.Insert(&es[i].node, k)
	}
	return tl, es
}

func newBenchHeap(in benchInput) (*entityHeap, []*benchEntity) {
	h := make(entityHeap, 0, len(in.keys))
	es := newBenchEntities(len(in.keys))
	for i, k := range in.keys {
		es[i].key = k
		heap.Push(&h, es[i])
	}
	return &h, es
}

func newBenchBTree(in benchInput) (*btree.BTreeG[*benchEntity], []*benchEntity) {
	t := btree.NewG(32, btreeLess)
	es := newBenchEntities(len(in.keys))
	for i, k := range in.keys {
		es[i].key = k
		t.ReplaceOrInsert(es[i])
	}
	return t, es
}

func benchRBTree(b *testing.B, op string, in benchInput) {
	tl, es := newBenchRBTree(in)
	b.ReportAllocs()
	i := 0
	switch op {
	case "insert-popmin":
		for b.Loop() {
			n := tl.PopFirst()
			tl.Insert(n, n.key+in.incs[i&(benchTable-1)])
			i++
		}
	case "remove-reinsert":
		for b.Loop() {
			n := &es[in.picks[i&(benchTable-1)]].node
			k := n.key
			tl.Remove(n)
			tl.Insert(n, k+in.incs[i&(benchTable-1)])
			i++
		}
	}
}

func benchHeap(b *testing.B, op string, in benchInput) {
	h, es := newBenchHeap(in)
	b.ReportAllocs()
	i := 0
	switch op {
	case "insert-popmin":
		for b.Loop() {
			e := heap.Pop(h).(*benchEntity)
			e.key += in.incs[i&(benchTable-1)]
			heap.Push(h, e)
			i++
		}
	case "remove-reinsert":
		for b.Loop() {
			e := es[in.picks[i&(benchTable-1)]]
			heap.Remove(h, e.idx)
			e.key += in.incs[i&(benchTable-1)]
			heap.Push(h, e)
			i++
		}
	}
}

func benchHeapSmall(b *testing.B, op string, in benchInput) {
	h := make(keyHeap, 0, len(in.keys))
	items := make([]*heapItem, len(in.keys))
	for i, k := range in.keys {
		items[i] = &heapItem{key: k}
		heap.Push(&h, items[i])
	}
	b.ReportAllocs()
	i := 0
	switch op {
	case "insert-popmin":
		for b.Loop() {
			it := heap.Pop(&h).(*heapItem)
			it.key += in.incs[i&(benchTable-1)]
			heap.Push(&h, it)
			i++
		}
	case "remove-reinsert":
		for b.Loop() {
			it := items[in.picks[i&(benchTable-1)]]
			heap.Remove(&h, it.idx)
			it.key += in.incs[i&(benchTable-1)]
			heap.Push(&h, it)
			i++
		}
	}
}

func benchBTree(b *testing.B, op string, in benchInput) {
	t, es := newBenchBTree(in)
	b.ReportAllocs()
	i := 0
	switch op {
	case "insert-popmin":
		for b.Loop() {
			e, _ := t.DeleteMin()
			e.key += in.incs[i&(benchTable-1)]
			t.ReplaceOrInsert(e)
			i++
		}
	case "remove-reinsert":
		for b.Loop() {
			e := es[in.picks[i&(benchTable-1)]]
			t.Delete(e)
			e.key += in.incs[i&(benchTable-1)]
			t.ReplaceOrInsert(e)
			i++
		}
	}
}

// Instruction counts of insert + pop-leftmost under callgrind (docs/performance.md, "Instruction counts"), one icountTimeline…
// loop per implementation over the same entities (impl=augmented: the tree augmented, as
// EEVDF keeps it):
//
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	  --toggle-collect='*icountTimeline*' ./timeline.test -test.run '^$' \
//	  -test.bench 'TimelineICount/impl=rbtree$/n=256$' -test.benchtime 100000x -test.cpu 1
//
// at 100000x and 200000x; the difference / 100000 is the count per operation.

//go:noinline
func icountTimelineRBTree(tl *Timeline[benchEntity], incs []uint64, n int) {
	for i := range n {
		nd := tl.PopFirst()
		tl.Insert(nd, nd.key+incs[i&(benchTable-1)])
	}
}

// icountTimelineRBTreeAug is icountTimelineRBTree on an augmented timeline, as EEVDF's: each
// reinserted node's augmented value is its new key plus a slice (v6.6's deadline).
//
//go:noinline
func icountTimelineRBTreeAug(tl *Timeline[benchEntity], incs []uint64, n int) {
	for i := range n {
		nd := tl.PopFirst()
		k := nd.key + incs[i&(benchTable-1)]
		nd.SetAug(k + augSlice)
		tl.Insert(nd, k)
	}
}

// augSlice is the slice added to a key to make the augmented value of impl=augmented: 3 ms,
// EEVDF's base slice in ns, against key advances of up to 3 ms.
const augSlice = 3_000_000

// newBenchRBTreeAug is newBenchRBTree with augmentation on.
func newBenchRBTreeAug(in benchInput) *Timeline[benchEntity] {
	tl := new(Timeline[benchEntity])
	tl.EnableAugment()
	es := newBenchEntities(len(in.keys))
	for i, k := range in.keys {
		es[i].node.SetAug(k + augSlice)
		tl.Insert(&es[i].node, k)
	}
	return tl
}

//go:noinline
func icountTimelineHeap(h *entityHeap, incs []uint64, n int) {
	for i := range n {
		e := heap.Pop(h).(*benchEntity)
		e.key += incs[i&(benchTable-1)]
		heap.Push(h, e)
	}
}

//go:noinline
func icountTimelineBTree(t *btree.BTreeG[*benchEntity], incs []uint64, n int) {
	for i := range n {
		e, _ := t.DeleteMin()
		e.key += incs[i&(benchTable-1)]
		t.ReplaceOrInsert(e)
	}
}

func BenchmarkTimelineICount(b *testing.B) {
	for _, n := range benchSizes {
		in := newBenchInput(n)
		b.Run(fmt.Sprintf("impl=rbtree/n=%d", n), func(b *testing.B) {
			tl, _ := newBenchRBTree(in)
			b.ResetTimer()
			icountTimelineRBTree(tl, in.incs, b.N)
		})
		b.Run(fmt.Sprintf("impl=augmented/n=%d", n), func(b *testing.B) {
			tl := newBenchRBTreeAug(in)
			b.ResetTimer()
			icountTimelineRBTreeAug(tl, in.incs, b.N)
		})
		b.Run(fmt.Sprintf("impl=heap/n=%d", n), func(b *testing.B) {
			h, _ := newBenchHeap(in)
			b.ResetTimer()
			icountTimelineHeap(h, in.incs, b.N)
		})
		b.Run(fmt.Sprintf("impl=btree/n=%d", n), func(b *testing.B) {
			t, _ := newBenchBTree(in)
			b.ResetTimer()
			icountTimelineBTree(t, in.incs, b.N)
		})
	}
}
