package bsd4_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// icountPick runs Pick n times. It is the function a callgrind run toggles collection on
// (PERF.md §3): no runtime calls, so its instruction count per call is exact and repeatable.
//
//go:noinline
func icountPick(global, own *runq.Runq[bsd4.Thread], p *bsd4.Params, n int) *bsd4.Thread {
	var t *bsd4.Thread
	for range n {
		t, _ = bsd4.Pick(global, own, 1, p)
	}
	return t
}

// BenchmarkICount exists for instruction counting under callgrind:
//
//	valgrind --tool=callgrind --toggle-collect='bsd4_test.icount*' ./bsd4.test -test.run '^$' \
//	    -test.bench 'ICount' -test.benchtime 100000x -test.cpu 1
//
// Its timings are those of BenchmarkPick/impl=runq/fuzz=1.
func BenchmarkICount(b *testing.B) {
	rng := rand.New(rand.NewPCG(1024, 2))
	var global, own runq.Runq[bsd4.Thread]
	for i := range 1024 {
		t := bsd4.NewThread(sched.ID(i), uint8(56+rng.IntN(80)))
		t.SetLastCPU(topology.CPU(rng.IntN(4)))
		if i%8 == 7 {
			own.Add(runq.Index(t.Pri), &t.Link)
		} else {
			global.Add(runq.Index(t.Pri), &t.Link)
		}
	}
	b.Run("op=pick/threads=1024", func(b *testing.B) {
		b.ReportAllocs()
		p := bsd4.DefaultParams()
		b.ResetTimer()
		icountPick(&global, &own, &p, b.N)
	})
}
