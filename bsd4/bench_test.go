package bsd4_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

var threadCounts = []int{1, 64, 1024}

// nopEnv is a sched.Env that ignores everything: the benchmarks drive the Scheduler directly.
type nopEnv struct{}

func (nopEnv) Resched(topology.CPU)                   {}
func (nopEnv) Explaining() bool                       { return false }
func (nopEnv) Explain(topology.CPU, sched.ID, string) {}

// nopSetEnv is a nopEnv that also takes sets of CPUs to reschedule (sched.ReschedSetter), and
// ignores them as nopEnv ignores each Resched.
type nopSetEnv struct{ nopEnv }

func (nopSetEnv) ReschedSet(topology.CPUSet) {}

// benchEnvs are the Envs the start-up benchmarks compare: one Resched per CPU, or one
// ReschedSet for forward_wakeup's idle CPUs.
var benchEnvs = []struct {
	name string
	env  sched.Env
}{{"resched", nopEnv{}}, {"set", nopSetEnv{}}}

// loaded returns a started Scheduler on 4 CPUs with n threads of random nice values and estcpu
// history: cpu0 runs thread 0 and the others are queued on the global queue.
func loaded(tb testing.TB, n int, seed uint64) *bsd4.Scheduler {
	rng := rand.New(rand.NewPCG(seed, 1))
	s, err := bsd4.New(bsd4.DefaultParams())
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Start(sched.Config{Topology: topology.Uniform(1, 1, 1, 4, 1), Hz: 1000, StatHz: 127, Seed: seed}, nopEnv{}); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		s.Fork(0, sched.ID(i), -1, 0, sched.Attr{Nice: rng.IntN(41) - 20})
		s.Wakeup(0, sched.ID(i), 0, sched.WakeFork)
	}
	if _, ok := s.Pick(0, 0); !ok {
		tb.Fatal("nothing to pick")
	}
	// Give every thread some usage history: run each for a random number of ticks.
	now := int64(0)
	for range 4 * n {
		now += 7_874_015
		for range rng.IntN(20) {
			s.Tick(now, 0)
		}
		cur, _ := s.System().Running(0)
		s.Stop(now, 0, cur.ID, sched.Preempt)
		s.Pick(now, 0)
	}
	s.SchedCPU()
	return s
}

// BenchmarkPick measures sched_choose on a global queue of n threads at random priorities and a
// per-CPU queue of n/8; impl=naive scans a slice of the same threads for the best priority.
func BenchmarkPick(b *testing.B) {
	for _, n := range threadCounts {
		rng := rand.New(rand.NewPCG(uint64(n), 2))
		var global, own runq.Runq[bsd4.Thread]
		var all []*bsd4.Thread
		for i := range n {
			t := bsd4.NewThread(sched.ID(i), uint8(56+rng.IntN(80)))
			t.SetLastCPU(topology.CPU(rng.IntN(4)))
			if i%8 == 7 {
				own.Add(runq.Index(t.Pri), &t.Link)
			} else {
				global.Add(runq.Index(t.Pri), &t.Link)
			}
			all = append(all, t)
		}
		for _, fuzz := range []int{1, 4} {
			p := bsd4.DefaultParams()
			p.RunqFuzz = fuzz
			b.Run(fmt.Sprintf("impl=runq/threads=%d/fuzz=%d", n, fuzz), func(b *testing.B) {
				b.ReportAllocs()
				var c *bsd4.Thread
				for b.Loop() {
					c, _ = bsd4.Pick(&global, &own, 1, &p)
				}
				_ = c
			})
		}
		b.Run(fmt.Sprintf("impl=naive/threads=%d/fuzz=1", n), func(b *testing.B) {
			b.ReportAllocs()
			var best *bsd4.Thread
			for b.Loop() {
				best = naiveBest(all)
			}
			_ = best
		})
	}
}

// naiveBest is the baseline: the first thread of the best priority in a slice.
func naiveBest(ts []*bsd4.Thread) *bsd4.Thread {
	var best *bsd4.Thread
	for _, t := range ts {
		if best == nil || t.Pri < best.Pri {
			best = t
		}
	}
	return best
}

// BenchmarkTick measures one statistics tick on a busy CPU (sched_clock_tick, including the slice
// expiry and the requeue it causes every 12th tick), with n threads in the system.
func BenchmarkTick(b *testing.B) {
	for _, n := range threadCounts {
		b.Run(fmt.Sprintf("impl=scheduler/threads=%d", n), func(b *testing.B) {
			s := loaded(b, n, 3)
			now := int64(1 << 40)
			b.ReportAllocs()
			for b.Loop() {
				now += 7_874_015
				s.Tick(now, 1) // cpu1 is idle and not the housekeeper: the idle-poll path
				s.Tick(now, 0)
				if cur, _ := s.System().Running(0); cur.Slice == 12 { // the slice just ended: switch
					s.Stop(now, 0, cur.ID, sched.Preempt)
					s.Pick(now, 0)
				}
			}
		})
	}
}

// BenchmarkSchedCPU measures the once-a-second recomputation over n threads. impl=naive applies
// the same arithmetic and then re-sorts all threads by priority, as a scheduler without a
// bitmap run queue would have to.
func BenchmarkSchedCPU(b *testing.B) {
	for _, n := range threadCounts {
		b.Run(fmt.Sprintf("impl=scheduler/threads=%d", n), func(b *testing.B) {
			s := loaded(b, n, 4)
			b.ReportAllocs()
			for b.Loop() {
				s.SchedCPU()
			}
		})
		b.Run(fmt.Sprintf("impl=naive/threads=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(uint64(n), 5))
			type th struct {
				u    bsd4.Usage
				nice int
				pri  uint8
			}
			ts := make([]th, n)
			order := make([]*th, n)
			for i := range ts {
				ts[i] = th{u: bsd4.Usage{EstCPU: uint32(rng.IntN(320)), CPTicks: int32(rng.IntN(128))}, nice: rng.IntN(41) - 20}
				order[i] = &ts[i]
			}
			b.ReportAllocs()
			for b.Loop() {
				for i := range ts {
					ts[i].u, _ = bsd4.SchedCPU(ts[i].u, true, 2048, 127)
					ts[i].pri = bsd4.ResetPriority(ts[i].u.EstCPU, ts[i].nice, 32, bsd4.LayoutMain())
				}
				slices.SortStableFunc(order, func(a, b *th) int { return cmp.Compare(a.pri, b.pri) })
			}
		})
	}
}

// threadTopology is the machine of n CPUs the start-up benchmarks run on: 4 CPUs sharing a
// cache, or n/2 cores of 2 threads in 4 packages of 4 LLCs.
func threadTopology(n int) *topology.Topology {
	if n == 4 {
		return topology.Uniform(1, 1, 1, 4, 1)
	}
	return topology.Uniform(4, 1, 4, n/32, 2)
}

// threadStartScheduler returns a started Scheduler on threadTopology(n) with env, where cpu0
// runs thread 0 and every other CPU idles.
func threadStartScheduler(tb testing.TB, n int, env sched.Env) *bsd4.Scheduler {
	s, err := bsd4.New(bsd4.DefaultParams())
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Start(sched.Config{Topology: threadTopology(n), Hz: 1000, StatHz: 127, Seed: 1}, env); err != nil {
		tb.Fatal(err)
	}
	s.Fork(0, 0, -1, 0, sched.Attr{})
	s.Wakeup(0, 0, 0, sched.WakeFork)
	if _, ok := s.Pick(0, 0); !ok {
		tb.Fatal("cpu0 idles")
	}
	return s
}

// BenchmarkThreadStart measures a thread's whole life on a machine of n CPUs where cpu0 runs a
// thread: Fork, its first Wakeup (sched_add and forward_wakeup's reschedule of every idle CPU),
// Pick on cpu1 and exit. env=resched reschedules each idle CPU with its own Resched, env=set all
// of them with one ReschedSet; only the latter can make the cost independent of n.
func BenchmarkThreadStart(b *testing.B) {
	for _, n := range []int{4, 64, 1024} {
		for _, e := range benchEnvs {
			b.Run(fmt.Sprintf("cpus=%d/env=%s", n, e.name), func(b *testing.B) {
				b.ReportAllocs()
				s := threadStartScheduler(b, n, e.env)
				tid := sched.ID(1)
				for b.Loop() {
					s.Fork(0, tid, -1, 0, sched.Attr{})
					s.Wakeup(0, tid, 0, sched.WakeFork)
					if id, ok := s.Pick(0, 1); !ok || id != tid {
						b.Fatalf("Pick(cpu1) = %v, %t; want t%d", id, ok, tid)
					}
					s.Stop(0, 1, tid, sched.Exit)
					tid++
				}
			})
		}
	}
}

// BenchmarkIdleThread measures what a thread that never runs costs: each op forks 1000 threads
// on a fresh Scheduler and leaves them unwoken; B/thread is the memory allocated per thread
// (amortised growth of the Scheduler's tables included).
func BenchmarkIdleThread(b *testing.B) {
	const perOp = 1000
	for _, n := range []int{4, 1024} {
		b.Run(fmt.Sprintf("cpus=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var bytes uint64
			for b.Loop() {
				b.StopTimer()
				s, err := bsd4.New(bsd4.DefaultParams())
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Start(sched.Config{Topology: threadTopology(n), Hz: 1000, StatHz: 127, Seed: 1}, nopEnv{}); err != nil {
					b.Fatal(err)
				}
				runtime.GC() // collect the previous op's machine outside the timed part
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				b.StartTimer()
				for i := range perOp {
					s.Fork(0, sched.ID(i), -1, 0, sched.Attr{})
				}
				b.StopTimer()
				runtime.ReadMemStats(&m1)
				bytes += m1.TotalAlloc - m0.TotalAlloc
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perOp), "ns/thread")
			b.ReportMetric(float64(bytes)/float64(b.N*perOp), "B/thread")
		})
	}
}
