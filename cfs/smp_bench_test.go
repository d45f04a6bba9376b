package cfs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// benchTopo returns a machine of n CPUs: TwoCPU, or SMT-2 cores in LLCs of 32 CPUs, with 2
// packages (and 4 NUMA nodes per package at 1024 CPUs).
func benchTopo(n int) *topology.Topology {
	switch n {
	case 2:
		return topology.TwoCPU()
	case 64:
		return topology.Uniform(2, 1, 1, 16, 2)
	case 1024:
		return topology.Uniform(2, 4, 4, 16, 2)
	}
	panic(fmt.Sprintf("benchTopo(%d)", n))
}

// balanceFixture is one periodic balance at the top domain of cpu0, which is idle, over random
// per-CPU task counts, with a task list of 8 queued tasks for whichever CPU is found busiest.
type balanceFixture struct {
	env   LBEnv
	ds    *Domains
	sp    smp.Params
	src   *RunQueue
	list  TaskList
	buf   []*Task
	stats []smp.CPUStat
}

func newBalanceFixture(n int, seed uint64) *balanceFixture {
	topo := benchTopo(n)
	ds := NewDomains(topo, smp.GroupsPerCPU)
	r := rand.New(rand.NewPCG(seed, 1))
	nr := map[topology.CPU]uint32{}
	for c := range topo.CPUs().All() {
		if c != 0 {
			nr[c] = uint32(r.IntN(4))
		}
	}
	f := &balanceFixture{ds: ds, stats: statsFor(topo, nr)}
	ch := ds.Chain(0)
	sd := &ch[len(ch)-1]
	f.env = LBEnv{SD: sd, DstCPU: 0, Idle: smp.CPUIdle, CPUs: sd.Span(), Stats: f.stats}
	f.sp = defaultSMPParams(V65)
	f.src = NewRunQueue(1, DefaultParams())
	for i := range 8 {
		e := NewTask(fmt.Sprint(i), Normal, 0)
		f.src.Wakeup(e, 1)
		f.list.PushFront(NewSMPTask(e, topo.CPUs(), 1))
	}
	f.src.Schedule(1)
	f.buf = make([]*Task, 0, 32)
	return f
}

// pass runs one load_balance decision: busiest group, busiest queue, and the task choice.
func (f *balanceFixture) pass() int {
	d, _ := FindBusiestGroup(&f.env, &f.sp)
	if d.Group == nil {
		return 0
	}
	src, ok := FindBusiestQueue(&f.env, &d, &f.sp)
	if !ok {
		return 0
	}
	me := MigrateEnv{LBEnv: &f.env, Src: src, SrcRQ: f.src, Now: 10_000_000, Migration: d.Migration, Imbalance: d.Imbalance,
		Flags: LBFAllPinned, DstGroupMask: f.env.SD.Group(0).balanceMask()}
	var det Detach
	f.buf, det = DetachTasks(&me, &f.list, f.buf[:0], &f.sp)
	return det.detached + 1
}

// naivePass is the baseline: the busiest group by average load per CPU (the comparison the
// Wasted Cores paper describes for Linux 4.x), walking each group's CPU set bit by bit, and the
// most loaded CPU in it.
func (f *balanceFixture) naivePass() int {
	sd := f.env.SD
	best, bestAvg := -1, uint64(0)
	for i := range sd.NumGroups() {
		g := sd.Group(i)
		var load uint64
		n := 0
		for c := range g.CPUs().All() {
			load += f.stats[c].Load
			n++
		}
		if avg, cpus := load/uint64(n), g.CPUs(); !cpus.Has(0) && avg > bestAvg {
			best, bestAvg = i, avg
		}
	}
	if best < 0 {
		return 0
	}
	var src topology.CPU
	var max uint64
	for c := range sd.Group(best).CPUs().All() {
		if l := f.stats[c].Load; l > max {
			src, max = c, l
		}
	}
	return int(src) + 1
}

// BenchmarkBalancePass times one balance pass at the top domain: impl=kernel visits every
// CPU of every group (update_sg_lb_stats, as an LBEnv built by a caller does), impl=sums reads
// the sums a System keeps of each group of several CPUs (package groupsums), and impl=naive is
// the flat-scan baseline.
func BenchmarkBalancePass(b *testing.B) {
	for _, n := range []int{2, 64, 1024} {
		f := newBalanceFixture(n, 1)
		fs := newBalanceFixture(n, 1)
		fs.env.sums = sumsIndexOf(fs.ds, fs.stats)
		benchSum(b, fmt.Sprintf("cpus=%d/impl=kernel", n), f.pass)
		benchSum(b, fmt.Sprintf("cpus=%d/impl=sums", n), fs.pass)
		benchSum(b, fmt.Sprintf("cpus=%d/impl=naive", n), f.naivePass)
	}
}

// benchSum runs op as the sub-benchmark name, adding up its results into sinkInt so that the
// work is not optimised away.
func benchSum(b *testing.B, name string, op func() int) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		s := 0
		for b.Loop() {
			s += op()
		}
		sinkInt = s
	})
}

var sinkInt int

// sisFixture is a wakeup on a machine where 90% of the CPUs are busy, targeting cpu0, whose
// LLC has no idle core.
func newSISFixture(n int, seed uint64) *WakeEnv {
	topo := benchTopo(n)
	r := rand.New(rand.NewPCG(seed, 2))
	nr := map[topology.CPU]uint32{0: 1}
	for c := range topo.CPUs().All() {
		if c != 0 && r.IntN(10) != 0 {
			nr[c] = 1
		}
	}
	env := wakeFixture(topo, nr, topo.CPUs())
	env.Task.recentUsedCPU = 0
	return env
}

// BenchmarkSelectIdleSibling times one select_idle_sibling: impl=kernel walks the LLC (as a
// WakeEnv built by a caller does), impl=mask scans the idle mask a System keeps (package
// idlescan), and impl=naive is the first idle CPU of the LLC, the baseline. Each loop calls its
// function directly rather than through benchSum: an operation of a few hundred instructions,
// called through a function value, would carry sixty more (callgrind), and the ratios would
// measure the harness.
func BenchmarkSelectIdleSibling(b *testing.B) {
	for _, n := range []int{2, 64, 1024} {
		env := newSISFixture(n, 1)
		envMask := *env
		envMask.idle = idleMaskOf(env.Stats)
		sp := smp65()
		for _, c := range []struct {
			impl string
			env  *WakeEnv
		}{{"kernel", env}, {"mask", &envMask}} {
			b.Run(fmt.Sprintf("cpus=%d/impl=%s", n, c.impl), func(b *testing.B) {
				b.ReportAllocs()
				s := 0
				for b.Loop() {
					pl, _ := SelectIdleSibling(c.env, 0, 0, sp)
					s += int(pl.CPU)
				}
				sinkInt = s
			})
		}
		b.Run(fmt.Sprintf("cpus=%d/impl=naive", n), func(b *testing.B) {
			b.ReportAllocs()
			s := 0
			for b.Loop() {
				s += int(naiveIdleSibling(env, 0))
			}
			sinkInt = s
		})
	}
}

// naiveIdleSibling is the baseline: the first idle CPU of the target's LLC found by walking its
// CPU set, without SMT awareness or a scan bound.
func naiveIdleSibling(env *WakeEnv, target topology.CPU) topology.CPU {
	sd := env.Domains.llc[target]
	if sd == nil {
		return target
	}
	for c := range sd.Span().All() {
		if env.Stats[c].Idle() {
			return c
		}
	}
	return target
}

func TestSMPZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, n := range []int{2, 64, 1024} {
		f := newBalanceFixture(n, 1)
		if a := testing.AllocsPerRun(100, func() { f.pass() }); a != 0 {
			t.Errorf("balance pass at %d CPUs: %v allocations, want 0", n, a)
		}
		env := newSISFixture(n, 1)
		sp := smp65()
		if a := testing.AllocsPerRun(100, func() { SelectIdleSibling(env, 0, 0, sp) }); a != 0 {
			t.Errorf("SelectIdleSibling at %d CPUs: %v allocations, want 0", n, a)
		}
		env.Fork, env.This, env.Prev = true, 0, 0
		if a := testing.AllocsPerRun(100, func() { SelectTaskRQ(env, sp) }); a != 0 {
			t.Errorf("SelectTaskRQ (fork) at %d CPUs: %v allocations, want 0", n, a)
		}
	}
}

// newForkFixture is a fork on cpu0 of a machine of n CPUs where every CPU runs one to four
// tasks, as on a machine of many more threads than CPUs.
func newForkFixture(n int, seed uint64) *WakeEnv {
	topo := benchTopo(n)
	r := rand.New(rand.NewPCG(seed, 3))
	nr := map[topology.CPU]uint32{}
	for c := range topo.CPUs().All() {
		nr[c] = 1 + uint32(r.IntN(4))
	}
	env := wakeFixture(topo, nr, topo.CPUs())
	env.Fork = true
	return env
}

// BenchmarkForkPlacement times the placement of a forked task (select_task_rq_fair's slow path,
// find_idlest_cpu) on a machine with no idle CPU: impl=kernel visits every CPU of every group it
// compares (update_sg_wakeup_stats, as a WakeEnv built by a caller does), impl=sums reads the
// sums a System keeps of each group of several CPUs, and impl=naive, the baseline, is the least
// loaded CPU found by a flat scan of the loads.
func BenchmarkForkPlacement(b *testing.B) {
	for _, n := range []int{64, 1024} {
		env := newForkFixture(n, 1)
		summed := *env
		summed.sums = sumsIndexOf(env.Domains, env.Stats)
		sp := smp65()
		// Operations of thousands of instructions: benchSum's call through a function value
		// is noise beside them.
		place := func(e *WakeEnv) func() int {
			return func() int {
				pl, _ := SelectTaskRQ(e, sp)
				return int(pl.CPU)
			}
		}
		benchSum(b, fmt.Sprintf("cpus=%d/impl=kernel", n), place(env))
		benchSum(b, fmt.Sprintf("cpus=%d/impl=sums", n), place(&summed))
		benchSum(b, fmt.Sprintf("cpus=%d/impl=naive", n), func() int { return int(naiveLeastLoaded(env)) })
	}
}

// naiveLeastLoaded is the baseline of fork placement: the least loaded CPU, by a flat scan.
func naiveLeastLoaded(env *WakeEnv) topology.CPU {
	best, min := topology.CPU(0), uint64(math.MaxUint64)
	for c := range env.Domains.topo.CPUs().All() {
		if l := env.Stats[c].Load; l < min {
			best, min = c, l
		}
	}
	return best
}
