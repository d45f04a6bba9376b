package cfs

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/cfs/internal/leastload"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// leastTreeOf returns the tree of loads of st, as a System keeps it.
func leastTreeOf(st []smp.CPUStat) *leastload.Tree {
	var x leastload.Tree
	x.Init(len(st))
	for c := range st {
		x.Set(c, leastKey(&st[c]))
	}
	return &x
}

// leastTopos are machines with groups leastGroup accepts: packages of 32 and 64 CPUs, caches of
// 16 and 32, and the machine of BenchmarkHuge at a quarter of its size (256 CPUs, caches of 16).
var leastTopos = []func() *topology.Topology{
	func() *topology.Topology { return topology.Uniform(2, 1, 1, 16, 2) },
	func() *topology.Topology { return topology.Uniform(2, 1, 2, 8, 2) },
	func() *topology.Topology { return topology.Uniform(2, 1, 2, 16, 1) },
	func() *topology.Topology { return topology.Uniform(1, 1, 16, 8, 2) },
}

// randomPlacementStats gives every CPU of st a random state: idle (with an idle stamp of 0 to
// 3, 0 never winning), SCHED_IDLE-only, or busy with one of few loads, so that ties are
// common, now and then the largest load, which never wins; about idleShare of 8 CPUs are idle
// or SCHED_IDLE-only.
func randomPlacementStats(r *rand.Rand, st []smp.CPUStat, idleShare int) {
	for c := range st {
		s := smp.CPUStat{Capacity: st[c].CapacityOrig, CapacityOrig: st[c].CapacityOrig}
		switch {
		case r.IntN(8) >= idleShare:
			s.NrRunning = 1 + uint32(r.IntN(4))
			s.HNrRunning = s.NrRunning
			s.IdleHNrRunning = uint32(r.IntN(int(s.NrRunning)))
			s.Load = uint64(1+r.IntN(3)) * 1024
			if r.IntN(50) == 0 {
				s.Load = math.MaxUint64
			}
		case r.IntN(6) == 0:
			s.NrRunning = 1 + uint32(r.IntN(2))
			s.HNrRunning, s.IdleHNrRunning = s.NrRunning, s.NrRunning
			s.Load = 3 * uint64(s.NrRunning)
		default:
			s.IdleStamp = uint64(r.IntN(4))
		}
		s.Util = min(s.Load, s.Capacity)
		s.Runnable = uint64(s.HNrRunning) * topology.CapacityScale
		st[c] = s
	}
}

// TestFindIdlestGroupCPULeast checks find_idlest_group_cpu with a System's idle mask and tree
// of loads (package leastload) against the walk of the group's CPUs (the same WakeEnv
// without them), for every group of every domain, and fork placement's choice and reason, on
// random states of machines with groups leastGroup accepts, from every share of idle CPUs,
// for tasks allowed everywhere (the tree is read) or on a random subset (the walk runs). It
// counts the groups whose answer came from the tree.
func TestFindIdlestGroupCPULeast(t *testing.T) {
	p := defaultSMPParams(V65)
	read := 0
	for ti, mk := range leastTopos {
		topo := mk()
		for gc := range 2 {
			ds := NewDomains(topo, smp.GroupConstruction(gc))
			if !containsLeastGroup(ds) {
				t.Fatalf("topology %d: no group leastGroup accepts", ti)
			}
			r := rand.New(rand.NewPCG(uint64(ti), 41+uint64(gc)))
			for round := range 300 {
				this := topology.CPU(r.IntN(topo.NumCPUs()))
				allowed := topo.CPUs()
				if r.IntN(4) == 0 {
					for c := range topo.CPUs().All() {
						if c != this && r.IntN(2) == 0 {
							allowed.Remove(c)
						}
					}
				}
				env := wakeFixture(topo, nil, allowed)
				env.Domains = ds
				randomPlacementStats(r, env.Stats, round%9)
				if round%5 == 0 { // no idle CPU wins: the least loaded busy CPU does, or this
					for c := range env.Stats {
						env.Stats[c].IdleStamp = 0
					}
				}
				env.This, env.Prev, env.Fork = this, this, true
				fast := *env
				fast.idle, fast.sums, fast.least = idleMaskOf(env.Stats), sumsIndexOf(ds, env.Stats), leastTreeOf(env.Stats)
				for _, g := range ds.groups {
					want := FindIdlestGroupCPU(env, g, this, &p)
					got := FindIdlestGroupCPU(&fast, g, this, &p)
					if got != want {
						t.Fatalf("topology %d, group %v from cpu%d: got cpu%d, want cpu%d", ti, g, this, got, want)
					}
					if leastGroup(g) && allowed == topo.CPUs() {
						read++
					}
				}
				want, wantWhy := SelectTaskRQ(env, &p)
				got, gotWhy := SelectTaskRQ(&fast, &p)
				if got != want || gotWhy != wantWhy {
					t.Fatalf("topology %d, fork on cpu%d: got %+v %v, want %+v %v", ti, this, got, gotWhy, want, wantWhy)
				}
			}
		}
	}
	if read < 10000 {
		t.Errorf("the tree answered for %d groups only", read)
	}
}

// containsLeastGroup reports whether ds has a group leastGroup accepts.
func containsLeastGroup(ds *Domains) bool {
	for _, g := range ds.groups {
		if leastGroup(g) {
			return true
		}
	}
	return false
}

// TestSystemLeastTree runs a System on a machine of 64 CPUs whose caches of 16 CPUs
// leastGroup accepts, forking threads that run and sleep (and some that spin) over most of
// the machine, and checks every 10 ticks that the tree of loads holds every CPU's key
// (checkInvariants) and that find_idlest_group_cpu answers the same for every group from the
// System's tree, brought up to date lazily, as from the walk.
func TestSystemLeastTree(t *testing.T) {
	topo := topology.Uniform(2, 1, 2, 8, 2)
	for _, v := range schedVersions {
		m := newSMPMachine(t, topo, 1000, vparams(v))
		s := m.s.sys
		if s.we.least == nil {
			t.Fatalf("%v: no tree of loads on %d CPUs", v, topo.NumCPUs())
		}
		p := &s.smp
		r := rand.New(rand.NewPCG(3, 1))
		forks := 0
		for tick := range 400 {
			if spawnSome(m, r, tick) {
				forks++
			}
			m.step()
			if tick%10 != 0 {
				continue
			}
			m.checkInvariants()
			env := s.we
			env.Task = NewSMPTask(NewTask("p", Normal, 0), topo.CPUs(), 0)
			walk := env
			walk.least = nil
			for _, g := range s.ds.groups {
				this := g.list[r.IntN(len(g.list))]
				if got, want := FindIdlestGroupCPU(&env, g, this, p), FindIdlestGroupCPU(&walk, g, this, p); got != want {
					t.Fatalf("%v tick %d: group %v from cpu%d: cpu%d from the tree, cpu%d from the walk", v, tick, g, this, got, want)
				}
			}
		}
		if forks < 80 {
			t.Fatalf("%v: %d forks only", v, forks)
		}
	}
}

// spawnSome forks, in the first 300 ticks and a third of the time, a task on one of the first
// 8 CPUs with a random nice level that runs and sleeps 1-5 and 1-8 ticks in turn, or one time
// in four never sleeps, and reports whether it forked: the random load of the System tests that
// compare a kept structure with the walk it stands for.
func spawnSome(m *smpMachine, r *rand.Rand, tick int) bool {
	if tick >= 300 || r.IntN(3) != 0 {
		return false
	}
	b := behaviour{run: 1 + r.IntN(5), sleep: 1 + r.IntN(8)}
	if r.IntN(4) == 0 {
		b = behaviour{}
	}
	m.spawn(topology.CPU(r.IntN(8)), sched.Attr{Nice: r.IntN(5)}, b)
	return true
}
