package cfs

import (
	"fmt"
	"testing"
)

// Instruction counts under callgrind (PERF.md §3): each loop is a //go:noinline function named
// icount… that makes no runtime calls, driven with b.N, so that
//
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	  --toggle-collect='*icount*' ./cfs.test -test.run '^$' \
//	  -test.bench 'ICount/op=pick/version=v7.1/n=256$' -test.benchtime 100000x -test.cpu 1
//
// run at 100000x and 200000x gives the exact instructions per operation as the difference /
// 100000 (add --cache-sim=yes for simulated cache misses).

//go:noinline
func icountInsertPopmin(tl *Timeline[item], incs []uint64, n int) {
	for i := range n {
		nd := tl.PopFirst()
		tl.Insert(nd, nd.key+incs[i&(benchTable-1)])
	}
}

//go:noinline
func icountPickEEVDF(q *Queue, p Params, n int) (e *Entity) {
	for range n {
		e, _ = pickEEVDF(q, true, &p)
	}
	return e
}

func BenchmarkICount(b *testing.B) {
	for _, n := range []int{256, 4096, 65536} {
		in := newBenchInput(n)
		b.Run(fmt.Sprintf("op=insert-popmin/n=%d", n), func(b *testing.B) {
			var tl Timeline[item]
			for i, k := range in.keys {
				tl.Insert(&newItem(i).node, k)
			}
			b.ResetTimer()
			icountInsertPopmin(&tl, in.incs, b.N)
		})
	}
	for _, v := range []Version{V66, V71} {
		for _, n := range []int{256, 4096} {
			c := benchEEVDF(b, v, n)
			b.Run(fmt.Sprintf("op=pick/version=%v/n=%d", v, n), func(b *testing.B) {
				b.ResetTimer()
				sinkEntity = icountPickEEVDF(c.Root(), *c.Params(), b.N)
			})
		}
	}
}
