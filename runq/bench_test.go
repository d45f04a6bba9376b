package runq_test

import (
	"container/heap"
	"container/list"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/runq"
)

// The benchmarks compare the Runq with three baselines in the same binary, as docs/performance.md asks:
// container/heap keyed on (priority, sequence), a hand-written typed binary heap with the same
// key, and 256 container/list lists found by a linear scan of their heads (the naive run queue).
//
// Workloads, each at n ∈ {1, 16, 256, 4096} queued elements:
//   - op=rr: take the next element and put it back at the same priority (round robin);
//   - op=rand: take the next element and put it back at a random priority;
//   - op=reprio: remove an arbitrary element and put it back at a random priority;
//   - op=find: a search over sparse (4 non-empty queues), dense (256 non-empty, predicate rejects
//     all) and narrow (16 queues) ranges.

var sizes = []int{1, 16, 256, 4096}

// randTable is a fixed table of random priorities and element picks, from a seeded PCG, shared
// by every implementation so that they do identical work.
const tableLen = 1 << 12

func randTable(seed uint64) *[tableLen]uint16 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var t [tableLen]uint16
	for i := range t {
		t[i] = uint16(r.Uint32())
	}
	return &t
}

// --- runq ---

type btask struct {
	runq.Link[btask]
	pri uint8
}

func newRunq(n int, prio func(i int) uint8) (*runq.Runq[btask], []btask) {
	q := new(runq.Runq[btask])
	ts := make([]btask, n)
	for i := range ts {
		ts[i].Init(&ts[i])
		ts[i].pri = prio(i)
		q.Add(runq.Index(ts[i].pri), &ts[i].Link)
	}
	return q, ts
}

// --- container/heap baseline ---

type hitem struct {
	pri   uint8
	seq   uint64
	index int
}

type hslice []*hitem

func (h hslice) Len() int { return len(h) }
func (h hslice) Less(i, j int) bool {
	if h[i].pri != h[j].pri {
		return h[i].pri < h[j].pri
	}
	return h[i].seq < h[j].seq
}
func (h hslice) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *hslice) Push(x any) {
	it := x.(*hitem)
	it.index = len(*h)
	*h = append(*h, it)
}
func (h *hslice) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

type stdHeap struct {
	h   hslice
	seq uint64
}

func newStdHeap(n int, prio func(i int) uint8) (*stdHeap, []*hitem) {
	s := &stdHeap{h: make(hslice, 0, n)}
	items := make([]*hitem, n)
	for i := range items {
		items[i] = &hitem{pri: prio(i)}
		s.push(items[i])
	}
	return s, items
}

func (s *stdHeap) push(it *hitem) {
	s.seq++
	it.seq = s.seq
	heap.Push(&s.h, it)
}

// --- hand-written typed heap baseline ---

type typedHeap struct {
	a   []*hitem
	seq uint64
}

func less(a, b *hitem) bool { return a.pri < b.pri || (a.pri == b.pri && a.seq < b.seq) }

func (h *typedHeap) push(it *hitem) {
	h.seq++
	it.seq = h.seq
	it.index = len(h.a)
	h.a = append(h.a, it)
	h.up(it.index)
}

func (h *typedHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(h.a[i], h.a[p]) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *typedHeap) down(i int) {
	n := len(h.a)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && less(h.a[r], h.a[l]) {
			m = r
		}
		if !less(h.a[m], h.a[i]) {
			return
		}
		h.swap(i, m)
		i = m
	}
}

func (h *typedHeap) swap(i, j int) {
	h.a[i], h.a[j] = h.a[j], h.a[i]
	h.a[i].index = i
	h.a[j].index = j
}

func (h *typedHeap) remove(i int) *hitem {
	it := h.a[i]
	last := len(h.a) - 1
	if i != last {
		h.swap(i, last)
	}
	h.a = h.a[:last]
	if i != last {
		h.down(i)
		h.up(i)
	}
	return it
}

func newTypedHeap(n int, prio func(i int) uint8) (*typedHeap, []*hitem) {
	h := &typedHeap{a: make([]*hitem, 0, n)}
	items := make([]*hitem, n)
	for i := range items {
		items[i] = &hitem{pri: prio(i)}
		h.push(items[i])
	}
	return h, items
}

// --- naive: 256 container/list lists with a linear scan ---

type listScan struct {
	q [runq.NumQueues]list.List
}

type litem struct {
	pri uint8
	e   *list.Element
}

func (s *listScan) add(it *litem) { it.e = s.q[it.pri].PushBack(it) }

func (s *listScan) choose() *litem {
	for i := range s.q {
		if e := s.q[i].Front(); e != nil {
			return e.Value.(*litem)
		}
	}
	return nil
}

func (s *listScan) remove(it *litem) { s.q[it.pri].Remove(it.e) }

func newListScan(n int, prio func(i int) uint8) (*listScan, []*litem) {
	s := new(listScan)
	items := make([]*litem, n)
	for i := range items {
		items[i] = &litem{pri: prio(i)}
		s.add(items[i])
	}
	return s, items
}

// initialPrio returns element i's starting priority, drawn from a seeded PCG like every other
// input. An earlier version used i*7 mod 256, which at n=4096 put the 16 elements of each queue
// exactly 256 elements (12 KiB) apart in the slice: they all fell into one L1 cache set, and rr
// at n=4096 measured the cache's associativity (9.9 ns against 5.3 at n=1), not the run queue.
func initialPrio(i int) uint8 { return uint8(initTable[i%tableLen] >> 8) }

var initTable = randTable(2)

func BenchmarkRunq(b *testing.B) {
	tbl := randTable(1)
	for _, op := range []string{"rr", "rand", "reprio"} {
		for _, n := range sizes {
			name := func(impl string) string { return fmt.Sprintf("op=%s/impl=%s/n=%d", op, impl, n) }
			b.Run(name("runq"), func(b *testing.B) { benchRunq(b, op, n, tbl) })
			b.Run(name("heap"), func(b *testing.B) { benchStdHeap(b, op, n, tbl) })
			b.Run(name("typedheap"), func(b *testing.B) { benchTypedHeap(b, op, n, tbl) })
			b.Run(name("listscan"), func(b *testing.B) { benchListScan(b, op, n, tbl) })
		}
	}
}

func benchRunq(b *testing.B, op string, n int, tbl *[tableLen]uint16) {
	q, ts := newRunq(n, initialPrio)
	b.ReportAllocs()
	k := 0
	switch op {
	case "rr":
		for b.Loop() {
			x, _ := q.Choose()
			q.Remove(&x.Link)
			q.Add(runq.Index(x.pri), &x.Link)
		}
	case "rand":
		for b.Loop() {
			x, _ := q.Choose()
			q.Remove(&x.Link)
			x.pri = uint8(tbl[k%tableLen])
			q.Add(runq.Index(x.pri), &x.Link)
			k++
		}
	case "reprio":
		for b.Loop() {
			v := tbl[k%tableLen]
			x := &ts[int(v)%n]
			q.Remove(&x.Link)
			x.pri = uint8(v >> 8)
			q.Add(runq.Index(x.pri), &x.Link)
			k++
		}
	}
}

func benchStdHeap(b *testing.B, op string, n int, tbl *[tableLen]uint16) {
	h, items := newStdHeap(n, initialPrio)
	b.ReportAllocs()
	k := 0
	switch op {
	case "rr":
		for b.Loop() {
			it := heap.Pop(&h.h).(*hitem)
			h.push(it)
		}
	case "rand":
		for b.Loop() {
			it := heap.Pop(&h.h).(*hitem)
			it.pri = uint8(tbl[k%tableLen])
			h.push(it)
			k++
		}
	case "reprio":
		for b.Loop() {
			v := tbl[k%tableLen]
			it := items[int(v)%n]
			heap.Remove(&h.h, it.index)
			it.pri = uint8(v >> 8)
			h.push(it)
			k++
		}
	}
}

func benchTypedHeap(b *testing.B, op string, n int, tbl *[tableLen]uint16) {
	h, items := newTypedHeap(n, initialPrio)
	b.ReportAllocs()
	k := 0
	switch op {
	case "rr":
		for b.Loop() {
			it := h.remove(0)
			h.push(it)
		}
	case "rand":
		for b.Loop() {
			it := h.remove(0)
			it.pri = uint8(tbl[k%tableLen])
			h.push(it)
			k++
		}
	case "reprio":
		for b.Loop() {
			v := tbl[k%tableLen]
			it := items[int(v)%n]
			h.remove(it.index)
			it.pri = uint8(v >> 8)
			h.push(it)
			k++
		}
	}
}

func benchListScan(b *testing.B, op string, n int, tbl *[tableLen]uint16) {
	s, items := newListScan(n, initialPrio)
	b.ReportAllocs()
	k := 0
	switch op {
	case "rr":
		for b.Loop() {
			it := s.choose()
			s.remove(it)
			s.add(it)
		}
	case "rand":
		for b.Loop() {
			it := s.choose()
			s.remove(it)
			it.pri = uint8(tbl[k%tableLen])
			s.add(it)
			k++
		}
	case "reprio":
		for b.Loop() {
			v := tbl[k%tableLen]
			it := items[int(v)%n]
			s.remove(it)
			it.pri = uint8(v >> 8)
			s.add(it)
			k++
		}
	}
}

// BenchmarkFind measures the search primitive with a predicate that declines every queue, so
// that the whole range is scanned: the worst case of runq_findq. The naive sibling scans the
// heads of 256 container/list lists and calls the same predicate on the non-empty ones.
func BenchmarkFind(b *testing.B) {
	cases := []struct {
		occupied []int
		name     string
		r        runq.Range
	}{
		{[]int{5, 90, 170, 250}, "occupied=4/span=256", runq.FullRange()},
		{allQueues(), "occupied=256/span=256", runq.FullRange()},
		{allQueues(), "occupied=256/span=16", runq.Range{Lo: 100, Hi: 115}},
		{[]int{5, 90, 170, 250}, "occupied=4/span=16", runq.Range{Lo: 100, Hi: 115}},
	}
	for _, tc := range cases {
		b.Run(tc.name+"/impl=runq", func(b *testing.B) {
			q := new(runq.Runq[btask])
			ts := make([]btask, len(tc.occupied))
			for k, i := range tc.occupied {
				ts[k].Init(&ts[k])
				q.Add(runq.Index(i), &ts[k].Link)
			}
			calls := 0
			decline := func(runq.Index, *runq.Queue[btask]) bool { calls++; return false }
			b.ReportAllocs()
			for b.Loop() {
				q.Find(tc.r, decline)
			}
			b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
		})
		b.Run(tc.name+"/impl=listscan", func(b *testing.B) {
			s := new(listScan)
			for _, i := range tc.occupied {
				s.add(&litem{pri: uint8(i)})
			}
			calls := 0
			decline := func(int, *list.List) bool { calls++; return false }
			b.ReportAllocs()
			for b.Loop() {
				for i := int(tc.r.Lo); i <= int(tc.r.Hi); i++ {
					if s.q[i].Len() > 0 && decline(i, &s.q[i]) {
						break
					}
				}
			}
			b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
		})
	}
}

func allQueues() []int {
	all := make([]int, runq.NumQueues)
	for i := range all {
		all[i] = i
	}
	return all
}
