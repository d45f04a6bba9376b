package runq_test

import (
	"container/heap"
	"testing"

	"github.com/schedkit/schedkit/runq"
)

// BenchmarkICount holds the loops measured by instruction count under callgrind (docs/performance.md §2).
// Each loop is a //go:noinline function named icount… that makes no runtime calls, driven with
// b.N rather than b.Loop, so that callgrind can toggle collection on exactly that function:
//
//	go test -c -o rq.test ./runq
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind --callgrind-out-file=cg.out \
//	    --toggle-collect='*icount*' ./rq.test -test.run '^$' \
//	    -test.bench 'ICount/op=rr/impl=runq$' -test.benchtime 100000x -test.cpu 1
//
// then the same with 200000x; instructions per op = (Ir₂ − Ir₁) / 100000.
func BenchmarkICount(b *testing.B) {
	tbl := randTable(1)
	b.Run("op=rr/impl=runq", func(b *testing.B) {
		q, _ := newRunq(256, initialPrio)
		b.ReportAllocs()
		b.ResetTimer()
		icountRunqRR(q, b.N)
	})
	b.Run("op=rand/impl=runq", func(b *testing.B) {
		q, _ := newRunq(256, initialPrio)
		b.ReportAllocs()
		b.ResetTimer()
		icountRunqRand(q, tbl, b.N)
	})
	b.Run("op=rr/impl=typedheap", func(b *testing.B) {
		h, _ := newTypedHeap(256, initialPrio)
		b.ReportAllocs()
		b.ResetTimer()
		icountTypedHeapRR(h, b.N)
	})
	b.Run("op=rand/impl=typedheap", func(b *testing.B) {
		h, _ := newTypedHeap(256, initialPrio)
		b.ReportAllocs()
		b.ResetTimer()
		icountTypedHeapRand(h, tbl, b.N)
	})
	b.Run("op=rr/impl=heap", func(b *testing.B) {
		h, _ := newStdHeap(256, initialPrio)
		b.ReportAllocs()
		b.ResetTimer()
		icountStdHeapRR(h, b.N)
	})
	b.Run("op=rand/impl=heap", func(b *testing.B) {
		h, _ := newStdHeap(256, initialPrio)
		b.ReportAllocs()
		b.ResetTimer()
		icountStdHeapRand(h, tbl, b.N)
	})
}

//go:noinline
func icountRunqRR(q *runq.Runq[btask], n int) {
	for range n {
		x, _ := q.Choose()
		q.Remove(&x.Link)
		q.Add(runq.Index(x.pri), &x.Link)
	}
}

//go:noinline
func icountRunqRand(q *runq.Runq[btask], tbl *[tableLen]uint16, n int) {
	for k := range n {
		x, _ := q.Choose()
		q.Remove(&x.Link)
		x.pri = uint8(tbl[k%tableLen])
		q.Add(runq.Index(x.pri), &x.Link)
	}
}

//go:noinline
func icountTypedHeapRR(h *typedHeap, n int) {
	for range n {
		it := h.remove(0)
		h.push(it)
	}
}

//go:noinline
func icountTypedHeapRand(h *typedHeap, tbl *[tableLen]uint16, n int) {
	for k := range n {
		it := h.remove(0)
		it.pri = uint8(tbl[k%tableLen])
		h.push(it)
	}
}

//go:noinline
func icountStdHeapRR(h *stdHeap, n int) {
	for range n {
		it := heap.Pop(&h.h).(*hitem)
		h.push(it)
	}
}

//go:noinline
func icountStdHeapRand(h *stdHeap, tbl *[tableLen]uint16, n int) {
	for k := range n {
		it := heap.Pop(&h.h).(*hitem)
		it.pri = uint8(tbl[k%tableLen])
		h.push(it)
	}
}
