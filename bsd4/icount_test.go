package bsd4_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// icountPick runs Pick n times. It is the function a callgrind run toggles collection on
// (docs/performance.md §2): no runtime calls, so its instruction count per call is exact and repeatable.
//
//go:noinline
func icountPick(global, own *runq.Runq[bsd4.Thread], p *bsd4.Params, n int) *bsd4.Thread {
	var t *bsd4.Thread
	for range n {
		t, _ = bsd4.Pick(global, own, 1, p)
	}
	return t
}

// icountThreadStart runs n iterations of BenchmarkThreadStart's loop on s, the threads numbered
// from tid: Fork, the first Wakeup from cpu0, Pick on cpu1, exit. It returns false if a Pick did
// not return the new thread. Fork allocates the thread, so the count includes the allocator's.
//
//go:noinline
func icountThreadStart(s *bsd4.Scheduler, tid sched.ID, n int) bool {
	for range n {
		s.Fork(0, tid, -1, 0, sched.Attr{})
		s.Wakeup(0, tid, 0, sched.WakeFork)
		if id, ok := s.Pick(0, 1); !ok || id != tid {
			return false
		}
		s.Stop(0, 1, tid, sched.Exit)
		tid++
	}
	return true
}

// icountAffine runs n wake-ups of thread tid, whose affinity excludes a CPU (sched_pickcpu
// chooses its per-CPU queue), from cpu0: Wakeup, Pick on the CPU of the queue it went to, sleep.
// It returns false if that CPU did not pick it.
//
//go:noinline
func icountAffine(s *bsd4.Scheduler, tid sched.ID, n int) bool {
	for range n {
		s.Wakeup(0, tid, 0, 0)
		th, _ := s.Thread(tid)
		cpu, _ := th.Queue()
		if id, ok := s.Pick(0, cpu); !ok || id != tid {
			return false
		}
		s.Stop(0, cpu, tid, sched.Sleep)
	}
	return true
}

// BenchmarkICount exists for instruction counting under callgrind:
//
//	GOGC=off GODEBUG=cpu.rdtscp=off valgrind --tool=callgrind --toggle-collect='*icount*' ./bsd4.test -test.run '^$' \
//	    -test.bench 'ICount/op=pick' -test.benchtime 100000x -test.cpu 1
//
// and the same with 200000x; per op = the difference of the two totals / 100000. op=threadstart
// counts a thread's start-up as BenchmarkThreadStart measures it (run it with -test.benchtime
// 20000x and 40000x: every op allocates a thread); op=wakeaffine a wake-up, pick and sleep of a
// thread whose affinity excludes cpu0 (sched_pickcpu over every CPU). The timings of op=pick
// are those of BenchmarkPick/impl=runq/fuzz=1.
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
	for _, n := range []int{4, 64, 1024} {
		b.Run(fmt.Sprintf("op=wakeaffine/cpus=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			s := threadStartScheduler(b, n, nopSetEnv{})
			var most topology.CPUSet
			for c := range topology.CPU(n) {
				most.Add(c)
			}
			most.Remove(0)
			s.Fork(0, 1, -1, 0, sched.Attr{Affinity: most})
			b.ResetTimer()
			if !icountAffine(s, 1, b.N) {
				b.Fatal("the affine thread's CPU did not pick it")
			}
		})
	}
	for _, n := range []int{4, 64, 1024} {
		for _, e := range benchEnvs {
			b.Run(fmt.Sprintf("op=threadstart/cpus=%d/env=%s", n, e.name), func(b *testing.B) {
				b.ReportAllocs()
				s := threadStartScheduler(b, n, e.env)
				b.ResetTimer()
				if !icountThreadStart(s, 1, b.N) {
					b.Fatal("cpu1 did not pick the new thread")
				}
			})
		}
	}
}
