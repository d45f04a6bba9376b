package ule

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// BenchmarkICount holds the loops measured by instruction count under callgrind (PERF.md §3):
// //go:noinline functions named icount… that make no runtime calls, driven with b.N:
//
//	go test -c -o ule.test ./ule
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	    --callgrind-out-file=cg.out --toggle-collect='*icount*' ./ule.test -test.run '^$' \
//	    -test.bench 'ICount/op=pickcpu/cpus=1024$' -test.benchtime 2000x -test.cpu 1
//
// then the same with 4000x; instructions per op = (Ir₂ − Ir₁) / 2000.
func BenchmarkICount(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 1024))
	s := benchSystem(1024, r)
	all := s.Topology.CPUs()
	threads := make([]*Thread, 64)
	selfs := make([]topology.CPU, 64)
	for i := range threads {
		pri := uint8(56 + r.IntN(168))
		th := InitThread(&Thread{ID: sched.ID(i), Class: ClassTimeshare, Priority: pri, UserPri: pri, Affinity: all})
		th.CPU = topology.CPU(r.IntN(1024))
		th.RLTick = uint32(1000 - r.IntN(4))
		threads[i], selfs[i] = th, topology.CPU(r.IntN(1024))
	}
	b.Run("op=lowest/cpus=1024", func(b *testing.B) {
		rnd := NewRand(0, 1)
		b.ResetTimer()
		icountLowest(s, &all, &rnd, b.N)
	})
	b.Run("op=highest/cpus=1024", func(b *testing.B) {
		rnd := NewRand(0, 1)
		b.ResetTimer()
		icountHighest(s, &all, &rnd, b.N)
	})
	b.Run("op=pickcpu/cpus=1024", func(b *testing.B) {
		rnd := NewRand(0, 1)
		b.ResetTimer()
		icountPickCPU(s, threads, selfs, &rnd, b.N)
	})
	p := DefaultParams()
	c := NewCPUState(0, &p)
	id := 0
	loadedCPU(c, 257, r, topology.CPUSetOf(0), &id)
	b.Run("op=pick/load=256", func(b *testing.B) {
		b.ResetTimer()
		icountPick(c, b.N)
	})
}

//go:noinline
func icountLowest(s *System, all *topology.CPUSet, rnd *Rand, n int) {
	root := s.Topology.Root()
	mask := bitsOf(all)
	for range n {
		s.lowest(root, &mask, 140, math32Max, 0, false, rnd)
	}
}

//go:noinline
func icountHighest(s *System, all *topology.CPUSet, rnd *Rand, n int) {
	root := s.Topology.Root()
	mask := bitsOf(all)
	for range n {
		s.highest(root, &mask, 2, 1, rnd)
	}
}

//go:noinline
func icountPickCPU(s *System, threads []*Thread, selfs []topology.CPU, rnd *Rand, n int) {
	for i := range n {
		s.PickCPU(threads[i%len(threads)], selfs[i%len(selfs)], 1000, 0, false, rnd)
	}
}

//go:noinline
func icountPick(c *CPUState, n int) {
	for range n {
		Pick(c)
	}
}
