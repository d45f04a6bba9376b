package cfs

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/cfs/internal/groupsums"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// sumsIndexOf returns the sums of every group of several CPUs of ds over st, as a System keeps
// them.
func sumsIndexOf(ds *Domains, st []smp.CPUStat) *groupsums.Index {
	var x groupsums.Index
	x.Init(len(ds.groups), ds.groupsOf())
	for c := range st {
		x.Update(c, groupsums.Stat{}, sumStat(&st[c]))
	}
	return &x
}

// fullCapacity puts every CPU of st at its full capacity with no misfit load, as on a System's
// machine of one capacity, its utilisation capped by it.
func fullCapacity(st []smp.CPUStat) {
	for c := range st {
		s := &st[c]
		s.Capacity, s.MisfitLoad = s.CapacityOrig, 0
		s.Util = min(s.Util, s.Capacity)
	}
}

// sumsTopos are machines of one capacity with groups of several CPUs: SMT pairs, caches of
// cores, packages of caches, NUMA nodes (overlapping groups), and the machine of
// BenchmarkBalancePass at 64 CPUs.
var sumsTopos = []func() *topology.Topology{
	topology.TwoSocketSMT, topology.FourLLC, topology.FourNode,
	func() *topology.Topology { return topology.Uniform(2, 1, 2, 4, 2) },
	func() *topology.Topology { return topology.Uniform(2, 1, 1, 16, 2) },
}

// TestFindBusiestGroupSums checks FindBusiestGroup with a System's group sums against the full
// visit of every CPU (the same LBEnv without them): every field of the result and the reason,
// on random balances of every domain of several machines of one capacity, every CPU at its
// full capacity as in a System, in every idle state, with CPUs left out of env.CPUs at times
// (where the sums must not be read). It counts the balances whose sums were read.
func TestFindBusiestGroupSums(t *testing.T) {
	p := defaultSMPParams(V65)
	read := 0
	for ti, mk := range sumsTopos {
		topo := mk()
		if topo.Asymmetric() {
			t.Fatalf("topology %d has several capacities", ti)
		}
		for gc := range 2 {
			ds := NewDomains(topo, smp.GroupConstruction(gc))
			r := rand.New(rand.NewPCG(uint64(ti), 21+uint64(gc)))
			for range 3000 {
				env, ok := randomLBEnv(r, topo, ds)
				if !ok {
					continue
				}
				fullCapacity(env.Stats)
				if env.CPUs == env.SD.span {
					read++
				}
				want, wantWhy := FindBusiestGroup(&env, &p)
				env.sums = sumsIndexOf(ds, env.Stats)
				got, gotWhy := FindBusiestGroup(&env, &p)
				if got != want || gotWhy != wantWhy {
					t.Fatalf("%v from %v (%v, cpus %v):\n got %+v %v\nwant %+v %v", env.SD, env.DstCPU, env.Idle, env.CPUs, got, gotWhy, want, wantWhy)
				}
			}
		}
	}
	if read < 5000 {
		t.Errorf("the sums were read in %d balances only", read)
	}
}

// checkSums checks that a System's group sums, idle mask and tree of loads are those of its
// CPUs' statistics.
func checkSums(t testing.TB, s *System) {
	t.Helper()
	for c := range s.topo.CPUs().All() {
		st := &s.stats[c]
		if want := st.Idle() || st.IdleOnly(); s.idle.Has(c) != want {
			t.Fatalf("cpu%d: idle mask %t, statistics %t (%d tasks, %d SCHED_IDLE)", c, s.idle.Has(c), want, st.NrRunning, st.IdleHNrRunning)
		}
		if s.we.least != nil && s.least.Key(int(c)) != leastKey(st) {
			t.Fatalf("cpu%d: key %d in the tree of loads, statistics %d", c, s.least.Key(int(c)), leastKey(st))
		}
	}
	if s.lb.sums == nil {
		return
	}
	want := sumsIndexOf(s.ds, s.stats)
	for _, g := range s.ds.groups {
		if len(g.list) > 1 && *s.sums.Sum(g.id) != *want.Sum(g.id) {
			t.Fatalf("group %v: sums %+v, its CPUs' %+v", g, *s.sums.Sum(g.id), *want.Sum(g.id))
		}
	}
}

// TestFindIdlestSums checks fork placement with a System's group sums against the full visit
// of every CPU (the same WakeEnv without them): update_sg_wakeup_stats of every group of every
// domain above the forking CPU, and SelectTaskRQ's choice and reason, on random machines states
// of several machines of one capacity, for tasks allowed everywhere or on a random subset.
func TestFindIdlestSums(t *testing.T) {
	p := defaultSMPParams(V65)
	groups := 0
	for ti, mk := range sumsTopos {
		topo := mk()
		for gc := range 2 {
			ds := NewDomains(topo, smp.GroupConstruction(gc))
			r := rand.New(rand.NewPCG(uint64(ti), 31+uint64(gc)))
			for range 1000 {
				lb, ok := randomLBEnv(r, topo, ds)
				if !ok {
					continue
				}
				allowed := topo.CPUs()
				if r.IntN(3) == 0 {
					for c := range topo.CPUs().All() {
						if c != lb.DstCPU && r.IntN(2) == 0 {
							allowed.Remove(c)
						}
					}
				}
				env := wakeFixture(topo, nil, allowed)
				env.Domains = ds
				env.Stats = lb.Stats
				fullCapacity(env.Stats)
				for c := range env.Stats {
					env.Stats[c].IdleStamp = uint64(r.IntN(4))
				}
				env.This, env.Prev, env.Fork = lb.DstCPU, lb.DstCPU, true
				summed := *env
				summed.sums = sumsIndexOf(ds, env.Stats)
				for _, sd := range ds.Chain(env.This) {
					for _, g := range sd.groups {
						// Stale figures in both: update_sg_wakeup_stats starts from zero.
						want, got := groupStats{AvgLoad: 7, MisfitTaskLoad: 9}, groupStats{IdleCPUs: 3, AvgLoad: 5}
						env.wakeupGroupStats(&sd, g, &want)
						summed.wakeupGroupStats(&sd, g, &got)
						if got != want {
							t.Fatalf("%v group %v:\n got %+v\nwant %+v", &sd, g, got, want)
						}
						if len(g.list) > 1 {
							groups++
						}
					}
				}
				want, wantWhy := SelectTaskRQ(env, &p)
				got, gotWhy := SelectTaskRQ(&summed, &p)
				if got != want || gotWhy != wantWhy {
					t.Fatalf("fork on cpu%d: got %+v %v, want %+v %v", env.This, got, gotWhy, want, wantWhy)
				}
			}
		}
	}
	if groups < 10000 {
		t.Errorf("the sums were read for %d groups only", groups)
	}
}
