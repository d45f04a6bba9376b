package cfs

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/cfs/internal/groupsums"
	"github.com/schedkit/schedkit/topology"
)

// sumsIndexOf returns the sums of every group of several CPUs of ds over st, as a System keeps
// them.
func sumsIndexOf(ds *Domains, st []CPUStat) *groupsums.Index {
	var x groupsums.Index
	x.Init(len(ds.Groups()), ds.groupsOf())
	for c := range st {
		x.Update(c, groupsums.Stat{}, sumStat(&st[c]))
	}
	return &x
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
	p := DefaultSMPParams(V65)
	read := 0
	for ti, mk := range sumsTopos {
		topo := mk()
		if topo.Asymmetric() {
			t.Fatalf("topology %d has several capacities", ti)
		}
		for gc := range 2 {
			ds := NewDomains(topo, GroupConstruction(gc))
			r := rand.New(rand.NewPCG(uint64(ti), 21+uint64(gc)))
			for range 3000 {
				env, ok := randomLBEnv(r, topo, ds)
				if !ok {
					continue
				}
				for c := range env.Stats {
					st := &env.Stats[c]
					st.Capacity, st.MisfitLoad = st.CapacityOrig, 0
					st.Util = min(st.Util, st.Capacity)
				}
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

// checkSums checks that a System's group sums and idle mask are those of its CPUs' statistics.
func checkSums(t testing.TB, s *System) {
	t.Helper()
	for c := range s.topo.CPUs().All() {
		st := &s.stats[c]
		if want := st.Idle() || st.IdleOnly(); s.idle.Has(c) != want {
			t.Fatalf("cpu%d: idle mask %t, statistics %t (%d tasks, %d SCHED_IDLE)", c, s.idle.Has(c), want, st.NrRunning, st.IdleHNrRunning)
		}
	}
	if s.lb.sums == nil {
		return
	}
	want := sumsIndexOf(s.ds, s.stats)
	for _, g := range s.ds.Groups() {
		if len(g.List()) > 1 && *s.sums.Sum(g.ID()) != *want.Sum(g.ID()) {
			t.Fatalf("group %v: sums %+v, its CPUs' %+v", g, *s.sums.Sum(g.ID()), *want.Sum(g.ID()))
		}
	}
}
