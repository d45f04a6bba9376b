package ule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// Benchmark topologies: 2 CPUs sharing a cache, 64 CPUs (2 packages × 2 LLCs × 8 cores × 2
// threads) and 1024 CPUs (4 packages × 4 LLCs × 32 cores × 2 threads).
func benchTopology(n int) *topology.Topology {
	switch n {
	case 2:
		return topology.Uniform(1, 1, 1, 2, 1)
	case 64:
		return topology.Uniform(2, 1, 2, 8, 2)
	case 256:
		return topology.Uniform(2, 1, 4, 16, 2)
	case 1024:
		return topology.Uniform(4, 1, 4, 32, 2)
	}
	panic("benchTopology: no such size")
}

// loadedCPU fills c with n threads of random priorities (a mix of interactive, batch and idle
// class), makes one of them current and advances the calendar a random amount.
func loadedCPU(c *CPUState, n int, r *rand.Rand, all topology.CPUSet, id *int) {
	for range r.IntN(300) {
		c.ClockQueue(1)
	}
	for range n {
		*id++
		pri := uint8(56 + r.IntN(168))
		if r.IntN(16) == 0 {
			pri = uint8(224 + r.IntN(32))
		}
		th := InitThread(&Thread{ID: sched.ID(*id), Class: ClassTimeshare, Priority: pri, BasePri: pri, UserPri: pri, Affinity: all})
		c.Add(th, 0)
	}
	if n > 0 {
		c.Choose()
	}
}

func BenchmarkPick(b *testing.B) {
	for _, load := range []int{1, 16, 256} {
		r := rand.New(rand.NewPCG(1, uint64(load)))
		p := DefaultParams()
		c := NewCPUState(0, &p)
		id := 0
		loadedCPU(c, load+1, r, topology.CPUSetOf(0), &id) // load queued plus one running
		m := newCalModel(false, false)
		m.ts, m.deq = int(c.TSOff), int(c.DeqOff)
		for th := range c.Queued() {
			i, _ := th.Link.Index()
			m.q[0][i] = append(m.q[0][i], int(th.ID))
		}
		b.Run(fmt.Sprintf("op=pick/load=%d/impl=ule", load), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if t, _ := Pick(c); t == nil {
					b.Fatal("nothing to pick")
				}
			}
		})
		b.Run(fmt.Sprintf("op=pick/load=%d/impl=naive", load), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if m.pick() < 0 {
					b.Fatal("nothing to pick")
				}
			}
		})
		// One scheduling round: the current thread goes back (tdq_runq_add), the next is
		// chosen (sched_choose), and every eighth round the stat clock advances the calendar.
		b.Run(fmt.Sprintf("op=requeue-choose/load=%d/impl=ule", load), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				cur := c.Cur
				c.Cur = nil
				c.RunqAdd(cur, SRQOurself|SRQYielding)
				c.Choose()
				if i++; i&7 == 0 {
					c.ClockQueue(1)
				}
			}
		})
	}
}

// benchSystem builds a System on n CPUs where every CPU runs a thread of random priority and
// most have some queued; one CPU in eight idles.
func benchSystem(n int, r *rand.Rand) *System {
	top := benchTopology(n)
	s, err := NewSystem(DefaultParams(), top)
	if err != nil {
		panic(err)
	}
	id := 0
	all := top.CPUs()
	for c := range top.CPUs().All() {
		if r.IntN(8) == 0 {
			continue
		}
		loadedCPU(&s.cpus[c], 1+r.IntN(3), r, all, &id)
	}
	return s
}

func BenchmarkPickCPU(b *testing.B) {
	for _, n := range []int{64, 256, 1024} {
		r := rand.New(rand.NewPCG(2, uint64(n)))
		s := benchSystem(n, r)
		const nthreads = 64
		threads := make([]*Thread, nthreads)
		selfs := make([]topology.CPU, nthreads)
		for i := range threads {
			pri := uint8(56 + r.IntN(168))
			th := InitThread(&Thread{ID: sched.ID(i), Class: ClassTimeshare, Priority: pri, UserPri: pri, Affinity: s.top.CPUs()})
			th.CPU = topology.CPU(r.IntN(n))
			th.RLTick = uint32(1000 - r.IntN(4)) // some still cache-affine at tick 1000
			threads[i] = th
			selfs[i] = topology.CPU(r.IntN(n))
		}
		rnd := NewRand(0, 1)
		b.Run(fmt.Sprintf("cpus=%d/impl=ule", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				s.PickCPU(threads[i%nthreads], selfs[i%nthreads], 1000, 0, false, &rnd)
				i++
			}
		})
		// The naive sibling scans every CPU for the least loaded one running worse priority,
		// ignoring the topology: the flat search ULE's tree search replaces.
		b.Run(fmt.Sprintf("cpus=%d/impl=naive", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				naivePickCPU(s, threads[i%nthreads], &rnd)
				i++
			}
		})
	}
}

func naivePickCPU(s *System, t *Thread, rnd *Rand) topology.CPU {
	best, bestLoad := t.CPU, int32(1<<31-1)
	for c := range s.top.CPUs().All() {
		ld := s.loads[c]
		if !t.CanRunOn(c) || ld.LowPri <= t.Priority {
			continue
		}
		if l := ld.Load*256 - int32(rnd.Next()%128); l < bestLoad {
			best, bestLoad = c, l
		}
	}
	return best
}

// stealSystem is BenchmarkSteal's machine of n CPUs: every CPU runs one thread; the only
// victim (load 3) is the last CPU, as far from the thief (cpu0) as the topology goes, so the
// search climbs to the root.
func stealSystem(b *testing.B, n int) *System {
	r := rand.New(rand.NewPCG(3, uint64(n)))
	top := benchTopology(n)
	s, err := NewSystem(DefaultParams(), top)
	if err != nil {
		b.Fatal(err)
	}
	id := 0
	for c := range top.CPUs().All() {
		if c == 0 {
			continue
		}
		k := 1
		if int(c) == n-1 {
			k = 3
		}
		loadedCPU(&s.cpus[c], k, r, top.CPUs(), &id)
	}
	return s
}

func BenchmarkSteal(b *testing.B) {
	for _, n := range []int{64, 256, 1024} {
		s := stealSystem(b, n)
		rnd := NewRand(0, 1)
		b.Run(fmt.Sprintf("cpus=%d/impl=ule", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, t, _ := s.Steal(0, 0, &rnd); t == nil {
					b.Fatal("nothing stolen")
				}
			}
		})
		b.Run(fmt.Sprintf("cpus=%d/impl=naive", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if t := naiveSteal(s, 0); t == nil {
					b.Fatal("nothing stolen")
				}
			}
		})
	}
}

// naiveSteal scans every CPU for the most loaded one above steal_thresh and takes its first
// eligible thread: a flat search without the topology.
func naiveSteal(s *System, thief topology.CPU) *Thread {
	best, bestLoad := topology.CPU(0), int32(-1)
	for c := range s.top.CPUs().All() {
		if ld := s.loads[c]; c != thief && ld.Load >= int32(s.params.StealThresh) && ld.Transferable > 0 && ld.Load > bestLoad {
			best, bestLoad = c, ld.Load
		}
	}
	if bestLoad < 0 {
		return nil
	}
	t, _ := StealFrom(&s.cpus[best], thief)
	return t
}

func BenchmarkClockTick(b *testing.B) {
	for _, n := range []int{2, 64} {
		top := benchTopology(n)
		env := &fakeEnv{}
		p := DefaultParams()
		p.Balance = false // the balancer runs once a second; BenchmarkBalance measures it
		s := mustNew(b, p)
		if err := s.Start(sched.Config{Topology: top, Hz: 1000, StatHz: 127, Seed: 1}, env); err != nil {
			b.Fatal(err)
		}
		for id := range sched.ID(2 * n) {
			s.Fork(0, id, -1, topology.CPU(int(id)%n), sched.Attr{})
			s.Wakeup(0, id, topology.CPU(int(id)%n), sched.WakeFork)
		}
		for c := range top.CPUs().All() {
			s.Pick(0, c)
		}
		b.Run(fmt.Sprintf("cpus=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			now := int64(0)
			for b.Loop() {
				now += int64(1e9) / 127
				s.Tick(now, 1)
				if len(env.resched) > 0 { // slice expired: switch as the machine would
					env.resched = env.resched[:0]
					if t := s.sys.cpus[1].Cur; t != nil {
						s.Stop(now, 1, t.ID, sched.Preempt)
					}
					s.Pick(now, 1)
				}
			}
		})
	}
}

func BenchmarkBalance(b *testing.B) {
	for _, n := range []int{64, 1024} {
		r := rand.New(rand.NewPCG(4, uint64(n)))
		s := benchSystem(n, r)
		rnd := NewRand(0, 1)
		moves := make([]Move, 0, n)
		b.Run(fmt.Sprintf("cpus=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				moves = s.Balance(0, &rnd, moves[:0])
				for _, m := range moves { // undo, so every round balances the same machine
					if !m.PickCPU {
						s.cpus[m.To].Remove(m.Thread)
						m.Thread.CPU = m.From
						s.cpus[m.From].Add(m.Thread, 0)
					} else {
						m.Thread.PickCPU = false
					}
				}
			}
		})
	}
}

func BenchmarkLowest(b *testing.B) {
	for _, n := range []int{64, 1024} {
		r := rand.New(rand.NewPCG(5, uint64(n)))
		s := benchSystem(n, r)
		rnd := NewRand(0, 1)
		all := s.all
		root := s.top.Root()
		b.Run(fmt.Sprintf("op=lowest/cpus=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.lowest(root, &all, 140, math.MaxInt32, 0, false, &rnd)
			}
		})
		b.Run(fmt.Sprintf("op=highest/cpus=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.highest(root, &all, 2, 1, &rnd)
			}
		})
	}
}

// BenchmarkThreadStart measures a thread's whole life on an idle machine: Fork, its first
// Wakeup (sched_add: PickCPU), Pick on the CPU it was given, and exit. cpu0 runs a thread of its
// own, so each new thread (forked on cpu0) is placed by PickCPU's searches, as on a busy machine.
//
// The machines vary the CPU count and the size of the last-level cache group (llc) apart.
// sched_pickcpu looks for the least-loaded CPU within the cache group the thread last ran in
// (its cpu_search_lowest over the group) before it looks wider, and every idle CPU of that group
// draws a random number that can make it the winner, so the cost grows with the group's size;
// with the group's size fixed it does not grow with the CPU count. Its loop is
// icountThreadStart, so that callgrind can count it alone:
//
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	    --toggle-collect='*icountThreadStart*' ./ule.test -test.run '^$' \
//	    -test.bench 'ThreadStart/cpus=1024/llc=16$' -test.benchtime 20000x -test.cpu 1
//
// and the same with 40000x: instructions per thread = (Ir₂ − Ir₁) / 20000.
func BenchmarkThreadStart(b *testing.B) {
	for _, m := range []struct {
		cpus, llc int
		top       *topology.Topology
	}{
		{4, 4, topology.Uniform(1, 1, 1, 4, 1)},
		{16, 16, topology.Uniform(1, 1, 1, 8, 2)},
		{64, 16, topology.Uniform(2, 1, 2, 8, 2)},
		{1024, 16, topology.Uniform(4, 1, 16, 8, 2)},
		{64, 64, topology.Uniform(1, 1, 1, 32, 2)},
		{1024, 64, topology.Uniform(4, 1, 4, 32, 2)},
	} {
		if got := m.top.NumCPUs(); got != m.cpus {
			b.Fatalf("machine of %d CPUs, want %d", got, m.cpus)
		}
		b.Run(fmt.Sprintf("cpus=%d/llc=%d", m.cpus, m.llc), func(b *testing.B) {
			b.ReportAllocs()
			s := mustNew(b, DefaultParams())
			env := &fakeEnv{}
			if err := s.Start(sched.Config{Topology: m.top, Hz: 1000, StatHz: 127, Seed: 1}, env); err != nil {
				b.Fatal(err)
			}
			s.Fork(0, 0, -1, 0, sched.Attr{})
			s.Wakeup(0, 0, 0, sched.WakeFork)
			if _, ok := s.Pick(0, 0); !ok {
				b.Fatal("cpu0 idles")
			}
			b.ResetTimer()
			if !icountThreadStart(s, env, 1, b.N) {
				b.Fatal("a new thread was not picked on the CPU it was given")
			}
		})
	}
}

// BenchmarkIdleThread measures what a thread that never runs costs: each op forks 1000 threads
// on a fresh Scheduler and leaves them unwoken; B/thread is the memory allocated per thread
// (amortised growth of the Scheduler's tables included).
func BenchmarkIdleThread(b *testing.B) {
	const perOp = 1000
	for _, n := range []int{4, 1024} {
		top := topology.Uniform(1, 1, 1, 4, 1)
		if n != 4 {
			top = benchTopology(n)
		}
		b.Run(fmt.Sprintf("cpus=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var bytes uint64
			for b.Loop() {
				b.StopTimer()
				s := mustNew(b, DefaultParams())
				if err := s.Start(sched.Config{Topology: top, Hz: 1000, StatHz: 127, Seed: 1}, &fakeEnv{}); err != nil {
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
