package cfs

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/cfs/internal/flatbalance"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// flatTopos are machines with flat domains (one group per CPU): one cache of 16, 64 (the
// periodic sets' machine) or 150 CPUs (three words of a bitmap), two packages of two caches of
// four CPUs, SMT pairs (whose SMT level is flat), and the fuzz machines, whose flat levels the
// test finds.
var flatTopos = append([]func() *topology.Topology{
	func() *topology.Topology { return topology.Uniform(1, 1, 1, 16, 1) },
	func() *topology.Topology { return topology.Uniform(1, 1, 1, 64, 1) },
	func() *topology.Topology { return topology.Uniform(1, 1, 1, 150, 1) },
	func() *topology.Topology { return topology.Uniform(2, 1, 2, 4, 1) },
	func() *topology.Topology { return topology.Uniform(1, 1, 2, 4, 2) },
}, fuzzTopos...)

// flatIndexOf returns the index of the CPUs of st with two tasks or more, as the System keeps it.
func flatIndexOf(st []smp.CPUStat) *flatbalance.Index {
	var x flatbalance.Index
	x.Init(len(st))
	for c := range st {
		x.Update(topology.CPU(c), 0, st[c].NrRunning)
	}
	return &x
}

// randomFlatEnv returns a balance of a flat domain as the System makes one (every CPU at its
// full capacity, no group imbalance flag on a flat domain's groups), over random statistics
// (randomLBEnv's), or false if the chosen domain is not flat. When crowd is set, most CPUs run
// one task or none and a few run two or three, with loads spread so that avg_loads tie at
// times, as on the periodic machine.
func randomFlatEnv(r *rand.Rand, topo *topology.Topology, ds *Domains, crowd bool) (LBEnv, bool) {
	env, ok := randomLBEnv(r, topo, ds)
	if !ok || !env.SD.flat {
		return env, false
	}
	for c := range topo.CPUs().All() {
		st := &env.Stats[c]
		st.Capacity = st.CapacityOrig
		st.Util = min(st.Util, st.Capacity)
		if crowd {
			nr := uint32(0)
			switch x := r.IntN(10); {
			case x >= 9:
				nr = 2 + uint32(r.IntN(2))
			case x >= 4:
				nr = 1
			}
			if c == env.DstCPU && env.Idle != smp.CPUNotIdle {
				nr = 0
			}
			h := nr
			if nr > 0 && r.IntN(6) == 0 {
				h = uint32(r.IntN(int(nr)))
			}
			*st = smp.CPUStat{NrRunning: nr, HNrRunning: h, Capacity: st.Capacity, CapacityOrig: st.CapacityOrig}
			if nr > 0 {
				st.Load = 1024 * uint64(1+r.IntN(int(nr)))
				st.Util = min(uint64(r.IntN(1200)), st.Capacity)
				st.Runnable = uint64(h) * topology.CapacityScale
			}
		}
	}
	if env.GroupImbalance != nil {
		for _, g := range env.SD.groups {
			env.GroupImbalance[g.id] = false
		}
	}
	return env, true
}

// TestFindBusiestFlatModel checks findBusiestFlat, FindBusiestGroup's fast form, against the
// full visit of every group (FindBusiestGroup on an LBEnv without the index), on random
// balances of every flat domain of several machines, in every idle state and with CPUs left out
// of env.CPUs: when it answers, the group to pull from, the migration type and imbalance, the
// overload flag and the summed utilisation are the visit's; when it found an overloaded
// busiest group, so is every other field and the reason, and a balanced verdict comes with
// balanceNoOverloaded. It also checks that each of its three outcomes occurs.
func TestFindBusiestFlatModel(t *testing.T) {
	p := defaultSMPParams(V65)
	var picked, balanced, declined int
	for ti, mk := range flatTopos {
		topo := mk()
		for gc := range 2 {
			ds := NewDomains(topo, smp.GroupConstruction(gc))
			r := rand.New(rand.NewPCG(uint64(ti), 11+uint64(gc)))
			for i := range 3000 {
				env, ok := randomFlatEnv(r, topo, ds, i%2 == 0)
				if !ok {
					continue
				}
				needUtil := env.Idle != smp.CPUNewlyIdle && env.SD.llc
				var got BusiestGroup
				env.flat = flatIndexOf(env.Stats)
				gotWhy, ok := findBusiestFlat(&env, needUtil, &got)
				if !ok {
					declined++
					continue
				}
				env.flat = nil // the full visit
				want, wantWhy := FindBusiestGroup(&env, &p)
				if got.candidate != nil {
					if gotWhy != wantWhy {
						t.Fatalf("%v from %v: reason %v, want %v", env.SD, env.DstCPU, gotWhy, wantWhy)
					}
					picked++
					if got != want {
						t.Fatalf("%v from %v (%v, cpus %v): overloaded busiest\n got %+v\nwant %+v",
							env.SD, env.DstCPU, env.Idle, env.CPUs, got, want)
					}
					continue
				}
				balanced++
				if gotWhy != balanceNoOverloaded || got.Group != want.Group || got.Migration != want.Migration || got.Imbalance != want.Imbalance ||
					got.overload != want.overload || got.sumUtil != want.sumUtil || want.Group != nil {
					t.Fatalf("%v from %v (%v, cpus %v): balanced\n got %+v\nwant %+v",
						env.SD, env.DstCPU, env.Idle, env.CPUs, got, want)
				}
			}
		}
	}
	t.Logf("overloaded busiest %d, balanced %d, declined %d", picked, balanced, declined)
	if picked < 1000 || balanced < 1000 || declined < 100 {
		t.Errorf("outcomes too rare: overloaded busiest %d, balanced %d, declined %d", picked, balanced, declined)
	}
}

// TestFlatDomains checks which domains are flat: every level of one cache of independent
// CPUs, the cache level (not the NUMA level) of a machine of two packages, the SMT level
// (not the cache level) of SMT pairs, and that a flat domain's cpuGroup gives each CPU its own
// group.
func TestFlatDomains(t *testing.T) {
	for _, c := range []struct {
		topo *topology.Topology
		flat map[string]bool
	}{
		{topology.Uniform(1, 1, 1, 8, 1), map[string]bool{"MC": true}},
		{topology.Uniform(2, 1, 1, 4, 1), map[string]bool{"MC": true, "NUMA": false}},
		{topology.Uniform(1, 1, 1, 4, 2), map[string]bool{"SMT": true, "MC": false}},
	} {
		ds := NewDomains(c.topo, smp.GroupsPerCPU)
		seen := map[string]bool{}
		for cpu := range c.topo.CPUs().All() {
			for k := range ds.Chain(cpu) {
				sd := &ds.Chain(cpu)[k]
				seen[sd.Name()] = true
				want, ok := c.flat[sd.Name()]
				if !ok {
					t.Fatalf("%v: unexpected domain %v", c.topo, sd)
				}
				if sd.flat != want {
					t.Errorf("%v: %v of %v: flat %v, want %v", c.topo, sd, cpu, sd.flat, want)
				}
				if !sd.flat {
					continue
				}
				for x := range sd.span.All() {
					if g := sd.cpuGroup[x]; g == nil || len(g.list) != 1 || g.list[0] != x {
						t.Errorf("%v: %v of %v: group of %v is %v", c.topo, sd, cpu, x, g)
					}
				}
			}
		}
		if len(seen) != len(c.flat) {
			t.Errorf("%v: domains %v, want %v", c.topo, seen, c.flat)
		}
	}
}

// flatBench returns a newly idle balance of CPU 0 over 64 single-CPU groups (one cache, no
// SMT: the 64-CPU periodic set's machine) in a state like that set's under v6.5, where such a
// balance meets three or four CPUs with two tasks or more on average: one CPU in sixteen holds
// two or three nice-0 tasks, most others one, some none.
func flatBench() LBEnv {
	topo := topology.Uniform(1, 1, 1, 64, 1)
	ds := NewDomains(topo, smp.GroupsPerCPU)
	r := rand.New(rand.NewPCG(3, 4))
	st := make([]smp.CPUStat, topo.NumIDs())
	for c := range st {
		nr := uint32(1)
		switch x := r.IntN(16); {
		case c == 0 || x < 4:
			nr = 0
		case x == 15:
			nr = 2 + uint32(r.IntN(2))
		}
		st[c] = smp.CPUStat{NrRunning: nr, HNrRunning: nr, Load: 1024 * uint64(nr), Runnable: 1024 * uint64(nr),
			Util: min(uint64(300+r.IntN(800)), 1024), Capacity: 1024, CapacityOrig: 1024}
	}
	sd := &ds.Chain(0)[0]
	return LBEnv{SD: sd, DstCPU: 0, Idle: smp.CPUNewlyIdle, CPUs: sd.Span(), Stats: st, flat: flatIndexOf(st)}
}

//go:noinline
func icountBusiestVisit(env *LBEnv, d *BusiestGroup, n int) {
	for range n {
		findBusiestGroup(env, d)
	}
}

// BenchmarkBusiestFlat measures find_busiest_group for a newly idle CPU of the 64-CPU periodic
// machine (flatBench), by the visit of every group (impl=visit, [FindBusiestGroup]) and from
// the CPUs with two tasks or more (impl=flat, the fast form a System's index selects); under
// callgrind,
//
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	  --toggle-collect='*icountBusiest*' ./cfs.test -test.run '^$' \
//	  -test.bench 'BusiestFlat/cpus=64/impl=flat$' -test.benchtime 100000x -test.cpu 1
//
// at 100000x and 200000x gives the instructions of one by difference.
func BenchmarkBusiestFlat(b *testing.B) {
	flat := flatBench()
	visit := flat
	visit.flat = nil
	var d BusiestGroup
	b.Run("cpus=64/impl=visit", func(b *testing.B) {
		b.ReportAllocs()
		icountBusiestVisit(&visit, &d, b.N)
	})
	b.Run("cpus=64/impl=flat", func(b *testing.B) {
		b.ReportAllocs()
		icountBusiestVisit(&flat, &d, b.N)
	})
}

// TestBusiestFlatBench checks that the benchmark's balance takes the fast path to the
// decision of the full visit, and allocates nothing.
func TestBusiestFlatBench(t *testing.T) {
	env := flatBench()
	var got BusiestGroup
	if _, ok := findBusiestFlat(&env, false, &got); !ok || got.Group == nil {
		t.Fatalf("flat: %+v", got)
	}
	visit := env
	visit.flat = nil
	want, _ := FindBusiestGroup(&visit, nil)
	if got != want {
		t.Fatalf("flat %+v\nwant %+v", got, want)
	}
	if !raceEnabled && testing.AllocsPerRun(100, func() { findBusiestGroup(&env, &got) }) != 0 {
		t.Error("the flat form of FindBusiestGroup allocates")
	}
}
