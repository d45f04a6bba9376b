package cfs

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
// red-black tree (timeline_bplus_test.go).

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

// heapItem and keyHeap are the container/heap baseline: a min-heap on wrap-aware keys whose
// items track their index so that an arbitrary item can be removed.
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

// btreeItem is the google/btree baseline's element; id breaks ties so that items are unique.
type btreeItem struct {
	key uint64
	id  int
}

func btreeLess(a, b *btreeItem) bool {
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
			b.Run(fmt.Sprintf("op=%s/impl=btree/n=%d", op, n), func(b *testing.B) {
				benchBTree(b, op, in)
			})
			b.Run(fmt.Sprintf("op=%s/impl=bplus/n=%d", op, n), func(b *testing.B) {
				benchBplus(b, op, in)
			})
		}
	}
}

func benchRBTree(b *testing.B, op string, in benchInput) {
	var tl Timeline[item]
	items := make([]*item, len(in.keys))
	for i, k := range in.keys {
		items[i] = newItem(i)
		tl.Insert(&items[i].node, k)
	}
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
			n := &items[in.picks[i&(benchTable-1)]].node
			k := n.key
			tl.Remove(n)
			tl.Insert(n, k+in.incs[i&(benchTable-1)])
			i++
		}
	}
}

func benchHeap(b *testing.B, op string, in benchInput) {
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
	t := btree.NewG(32, btreeLess)
	items := make([]*btreeItem, len(in.keys))
	for i, k := range in.keys {
		items[i] = &btreeItem{key: k, id: i}
		t.ReplaceOrInsert(items[i])
	}
	b.ReportAllocs()
	i := 0
	switch op {
	case "insert-popmin":
		for b.Loop() {
			it, _ := t.DeleteMin()
			it.key += in.incs[i&(benchTable-1)]
			t.ReplaceOrInsert(it)
			i++
		}
	case "remove-reinsert":
		for b.Loop() {
			it := items[in.picks[i&(benchTable-1)]]
			t.Delete(it)
			it.key += in.incs[i&(benchTable-1)]
			t.ReplaceOrInsert(it)
			i++
		}
	}
}
