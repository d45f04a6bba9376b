package cfs

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/cfs/internal/groupsums"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// TestGroupsumsTypes checks that package groupsums's group types are cfs's.
func TestGroupsumsTypes(t *testing.T) {
	for _, c := range []struct {
		got  groupsums.Type
		want groupType
	}{{groupsums.HasSpare, groupHasSpare}, {groupsums.FullyBusy, groupFullyBusy}, {groupsums.Overloaded, groupOverloaded}} {
		if groupType(c.got) != c.want {
			t.Errorf("groupsums type %d, cfs's %v is %d", c.got, c.want, c.want)
		}
	}
}

// idlestTopos are the machines of TestFindIdlestGroupSums: those whose sums the balance is
// checked on (NUMA nodes with overlapping groups among them) and those whose groups the tree
// of loads reads.
var idlestTopos = append(append([]func() *topology.Topology(nil), sumsTopos...), leastTopos...)

// randomIdlestStats gives every CPU of st a random state of one of a few kinds, so that a
// domain's groups come out of every type that fork placement sees (spare capacity, fully
// busy, overloaded) and tie often: loads, utilisations and runnable times of few values, or
// of many; one task a CPU, or up to busy; and about idleShare of 8 CPUs idle.
func randomIdlestStats(r *rand.Rand, st []smp.CPUStat, idleShare, busy int, few bool) {
	for c := range st {
		s := smp.CPUStat{Capacity: st[c].CapacityOrig, CapacityOrig: st[c].CapacityOrig}
		if r.IntN(8) >= idleShare {
			s.NrRunning = 1 + uint32(r.IntN(busy))
			s.HNrRunning = s.NrRunning
			if r.IntN(8) == 0 {
				s.HNrRunning = uint32(r.IntN(int(s.NrRunning)))
			}
			if few {
				s.Load = uint64(1+r.IntN(3)) * 1024
				s.Util = min(s.Load, s.Capacity)
				s.Runnable = uint64(s.HNrRunning) * topology.CapacityScale
			} else {
				s.Load = uint64(r.IntN(5000))
				s.Util = min(uint64(r.IntN(1400)), s.Capacity)
				s.Runnable = uint64(r.IntN(1400)) * uint64(s.NrRunning)
			}
		} else if !few {
			s.Util = uint64(r.IntN(300)) // blocked utilisation decays on an idle CPU
		}
		st[c] = s
	}
}

// TestFindIdlestGroupSums checks find_idlest_group's fast form (findIdlestGroupSums, package
// groupsums's keys) against the readable FindIdlestGroup, reading the same sums (the same
// WakeEnv without the idle mask, which keeps the fast form out) and visiting every CPU (without
// the sums): for every domain of the forking CPU's chain, and of a random CPU's chain from a
// random CPU of its span, whose groups other than the first then hold it, on random states of
// machines of one capacity, in both group constructions. It fails unless every type of group
// was the local one and the idlest.
func TestFindIdlestGroupSums(t *testing.T) {
	p := defaultSMPParams(V65)
	var seen [2][groupOverloaded + 1]int
	calls := 0
	for ti, mk := range idlestTopos {
		topo := mk()
		for gc := range 2 {
			ds := NewDomains(topo, smp.GroupConstruction(gc))
			r := rand.New(rand.NewPCG(uint64(ti), 51+uint64(gc)))
			for round := range 400 {
				this := topology.CPU(r.IntN(topo.NumCPUs()))
				env := wakeFixture(topo, nil, topo.CPUs())
				env.Domains = ds
				randomIdlestStats(r, env.Stats, round%9, 1+r.IntN(3), r.IntN(2) == 0)
				env.This, env.Prev, env.Fork = this, this, true
				fast := *env
				fast.idle, fast.sums = idleMaskOf(env.Stats), sumsIndexOf(ds, env.Stats)
				summed := fast
				summed.idle = nil
				other := topology.CPU(r.IntN(topo.NumCPUs()))
				chains := [][]SchedDomain{ds.Chain(this), ds.Chain(other)}
				for ci, chain := range chains {
					for i := range chain {
						sd := &chain[i]
						from := this
						if ci == 1 {
							span := slices.Collect(sd.span.All())
							from = span[r.IntN(len(span))]
						}
						want := FindIdlestGroup(env, sd, from, &p)
						if got := FindIdlestGroup(&summed, sd, from, &p); got != want {
							t.Fatalf("topology %d, %v from cpu%d: %v from the sums, %v from the CPUs", ti, sd, from, got, want)
						}
						got := FindIdlestGroup(&fast, sd, from, &p)
						if got != want {
							t.Fatalf("topology %d, %v from cpu%d: %v from the fast form, %v from the CPUs", ti, sd, from, got, want)
						}
						calls++
						countIdlestTypes(env, sd, from, &seen)
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
	for i, side := range []string{"local", "idlest"} {
		for _, ty := range []groupType{groupHasSpare, groupFullyBusy, groupOverloaded} {
			if seen[i][ty] < 200 {
				t.Errorf("%d domains only with a %v %s group in %d calls", seen[i][ty], ty, side, calls)
			}
		}
	}
}

// countIdlestTypes counts, in seen, the types of the local group and of the idlest other group
// (by update_pick_idlest) of sd from this, as the readable form computes them.
func countIdlestTypes(env *WakeEnv, sd *SchedDomain, this topology.CPU, seen *[2][groupOverloaded + 1]int) {
	var idlest *BalanceGroup
	is := groupStats{AvgLoad: 1<<32 - 1, Type: groupOverloaded}
	for _, g := range sd.groups {
		var s groupStats
		env.wakeupGroupStats(sd, g, &s)
		if g.cpus.Has(this) {
			seen[0][s.Type]++
		} else if pickIdlest(idlest, &is, g, &s) {
			idlest, is = g, s
		}
	}
	if idlest != nil {
		seen[1][is.Type]++
	}
}

// TestSystemIdlestKeys runs a System on two machines of 64 and 128 CPUs, forking threads that run and
// sleep (and some that spin) over most of it, and checks every 5 ticks that find_idlest_group
// answers the same from the System's sums and the Keys it keeps of them from one check to the
// next (package groupsums) as from the walk of every CPU, for every domain of a random CPU's
// chain, from that CPU and from another CPU of the domain. The machines: caches of 8 cores of 2
// threads (MC domains of 8 groups) and packages of 16 caches of 4 CPUs (PKG domains of 16
// groups), whose domains of 8 groups or more the System reads from rings of Keys (from the
// domain's own CPU, select_ring.go); it fails unless rings answered on each.
func TestSystemIdlestKeys(t *testing.T) {
	for _, topo := range []*topology.Topology{topology.Uniform(2, 1, 2, 8, 2), topology.Uniform(2, 1, 16, 2, 2)} {
		ringChecks := map[int]int{}
		systemIdlestKeys(t, topo, ringChecks)
		t.Logf("%d CPUs: answers from rings by ring size: %v", topo.NumCPUs(), ringChecks)
		if ringChecks[8]+ringChecks[16] < 100 {
			t.Errorf("%d CPUs: answers from rings by ring size: %v", topo.NumCPUs(), ringChecks)
		}
	}
}

// systemIdlestKeys is TestSystemIdlestKeys on one machine, counting in ringChecks by the
// number of groups the checks of domains read from a ring.
func systemIdlestKeys(t *testing.T, topo *topology.Topology, ringChecks map[int]int) {
	for _, v := range schedVersions {
		m := newSMPMachine(t, topo, 1000, vparams(v))
		s := m.s.sys
		if s.we.sums == nil {
			t.Fatalf("%v: no sums on %d CPUs", v, topo.NumCPUs())
		}
		p := &s.smp
		r := rand.New(rand.NewPCG(4, 1))
		checks := 0
		for tick := range 400 {
			spawnSome(m, r, tick)
			m.step()
			if tick%5 != 0 {
				continue
			}
			env := s.we
			env.Task = NewSMPTask(NewTask("p", Normal, 0), topo.CPUs(), 0)
			walk := env
			walk.sums, walk.idle = nil, nil
			this := topology.CPU(r.IntN(topo.NumCPUs()))
			chain := s.ds.Chain(this)
			for i := range chain {
				sd := &chain[i]
				span := slices.Collect(sd.span.All())
				for _, from := range []topology.CPU{this, span[r.IntN(len(span))]} {
					got, want := FindIdlestGroup(&env, sd, from, p), FindIdlestGroup(&walk, sd, from, p)
					if got != want {
						t.Fatalf("%v tick %d: %v from cpu%d: %v from the keys, %v from the walk", v, tick, sd, from, got, want)
					}
					checks++
					if sd.ring != 0 && from == sd.cpu {
						ringChecks[len(sd.groups)]++
					}
				}
			}
		}
		if checks < 300 {
			t.Fatalf("%v: %d checks only", v, checks)
		}
	}
}
