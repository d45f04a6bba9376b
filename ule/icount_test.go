package ule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// BenchmarkICount holds the loops measured by instruction count under callgrind (docs/performance.md §2):
// //go:noinline functions named icount… that make no runtime calls, driven with b.N. Toggling
// collection on '*icount*' proved unreliable for these loops (some runs count a few calls,
// others never stop), so count the whole program at two run lengths and take the difference:
//
//	go test -c -o ule.test ./ule
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	    --callgrind-out-file=cg.out ./ule.test -test.run '^$' \
//	    -test.bench 'ICount/op=steal/cpus=64$' -test.benchtime 20000x -test.cpu 1
//
// then the same with 100000x; instructions per op = (Ir₂ − Ir₁) / 80000 (the set-up cancels; the
// runtime's background work moves the result by about ±10 instructions per op between runs,
// docs/performance.md §6.3).
func BenchmarkICount(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 1024))
	s := benchSystem(1024, r)
	all := s.top.CPUs()
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
	b.Run("op=naivepickcpu/cpus=1024", func(b *testing.B) {
		rnd := NewRand(0, 1)
		b.ResetTimer()
		icountNaivePickCPU(s, threads, &rnd, b.N)
	})
	for _, n := range []int{64, 256, 1024} {
		st := stealSystem(b, n)
		b.Run(fmt.Sprintf("op=steal/cpus=%d", n), func(b *testing.B) {
			rnd := NewRand(0, 1)
			b.ResetTimer()
			icountSteal(st, &rnd, b.N)
		})
		b.Run(fmt.Sprintf("op=naivesteal/cpus=%d", n), func(b *testing.B) {
			b.ResetTimer()
			icountNaiveSteal(st, b.N)
		})
	}
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
	root := s.top.Root()
	for range n {
		s.Lowest(root, all, 140, math.MaxInt32, 0, false, rnd)
	}
}

//go:noinline
func icountHighest(s *System, all *topology.CPUSet, rnd *Rand, n int) {
	root := s.top.Root()
	for range n {
		s.Highest(root, all, 2, 1, rnd)
	}
}

//go:noinline
func icountPickCPU(s *System, threads []*Thread, selfs []topology.CPU, rnd *Rand, n int) {
	for i := range n {
		s.PickCPU(threads[i%len(threads)], selfs[i%len(selfs)], 1000, 0, false, rnd)
	}
}

//go:noinline
func icountNaivePickCPU(s *System, threads []*Thread, rnd *Rand, n int) {
	for i := range n {
		naivePickCPU(s, threads[i%len(threads)], rnd)
	}
}

//go:noinline
func icountSteal(s *System, rnd *Rand, n int) {
	for range n {
		s.Steal(0, 0, rnd)
	}
}

//go:noinline
func icountNaiveSteal(s *System, n int) {
	for range n {
		naiveSteal(s, 0)
	}
}

//go:noinline
func icountPick(c *CPUState, n int) {
	for range n {
		Pick(c)
	}
}

// icountThreadStart runs n iterations of BenchmarkThreadStart's loop on s, whose cpu0 runs a
// thread of its own, the new threads numbered from tid: Fork on cpu0, the first Wakeup, Pick
// on the CPU it was given, exit. It returns false if a Pick did not return the new thread.
// Fork allocates the thread, so the count includes the allocator's.
//
//go:noinline
func icountThreadStart(s *Scheduler, env *fakeEnv, tid sched.ID, n int) bool {
	for range n {
		s.Fork(0, tid, -1, 0, sched.Attr{})
		s.Wakeup(0, tid, 0, sched.WakeFork)
		cpu := s.thread(tid).CPU
		if id, ok := s.Pick(0, cpu); !ok || id != tid {
			return false
		}
		s.Stop(0, cpu, tid, sched.Exit)
		env.resched = env.resched[:0]
		tid++
	}
	return true
}
