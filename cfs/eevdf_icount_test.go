package cfs

import (
	"fmt"
	"testing"
)

// Instruction counts under callgrind (docs/performance.md §2): each loop is a //go:noinline function named
// icount… that makes no runtime calls, driven with b.N, so that
//
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	  --toggle-collect='*icount*' ./cfs.test -test.run '^$' \
//	  -test.bench 'ICount/op=pick/version=v7.1/n=256$' -test.benchtime 100000x -test.cpu 1
//
// run at 100000x and 200000x gives the exact instructions per operation as the difference /
// 100000 (add --cache-sim=yes for simulated cache misses).

//go:noinline
func icountPickEEVDF(q *Queue, p Params, n int) (e *Entity) {
	for range n {
		e, _ = pickEEVDF(q, true, &p)
	}
	return e
}

func BenchmarkICount(b *testing.B) {
	for _, v := range []Version{V66, V618, V71} {
		for _, n := range []int{256, 4096} {
			c := benchEEVDF(b, v, n)
			b.Run(fmt.Sprintf("op=pick/version=%v/n=%d", v, n), func(b *testing.B) {
				b.ResetTimer()
				sinkEntity = icountPickEEVDF(c.Root(), *c.Params(), b.N)
			})
		}
	}
}
