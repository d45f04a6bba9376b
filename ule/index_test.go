package ule

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// This file checks the rule that chooses between the kernel-shaped searches and the load index
// (IndexCPUs): on the same state, every decision that searches — Lowest, Highest, PickCPU,
// Steal — decides and draws the same with the index (which its fast forms in
// ule/internal/loadindex read) as without it (the kernel-shaped loops of search.go alone). The
// fast forms are also checked one by one against the kernel's recursion in that package.

// withoutIndex runs f on s with its load index set aside, so that every search takes the
// kernel-shaped loops; the state itself is unchanged.
func withoutIndex(s *System, f func()) {
	ix := s.ix
	s.ix = nil
	defer func() { s.ix = ix }()
	f()
}

var indexTops = []*topology.Topology{
	topology.Uniform(1, 1, 1, 2, 1),
	topology.Uniform(1, 1, 1, 4, 1), // bench/sim's periodic 4x20
	topology.Uniform(1, 1, 1, 64, 1),
	topology.Uniform(1, 1, 1, 100, 1),
	topology.Uniform(1, 1, 4, 16, 1),
	topology.Uniform(2, 1, 2, 8, 2),
	topology.Uniform(2, 1, 3, 3, 2),
	topology.Uniform(2, 1, 1, 16, 2), // bench/sim's mixed load: 64 CPUs in pairs
	topology.Uniform(4, 1, 4, 32, 2), // 1024 CPUs
	topology.TwoSocketSMT(),          // SMT siblings numbered apart
	topology.FourLLC(),
	topology.BigLittle(),
	// A leaf (the last cluster) whose parent also has children that are not leaves.
	parsed("package:1 node:1 llc:1 (cluster:2 core:2 cpu:2 + cluster:1 cpu:4)"),
}

// parsed returns the topology of text, which must be valid.
func parsed(text string) *topology.Topology {
	top, err := topology.Parse(text)
	if err != nil {
		panic(err)
	}
	return top
}

// indexState returns a System of top with the load index (kept from one CPU on), in a state
// built by queueing threads: dense (1 to 3 threads on most CPUs), sparse (at most one on most,
// a few with more) or dense in the upper half only (so that thieves climb), with some threads
// pinned to their CPU so that victims refuse and some CPUs have nothing transferable.
func indexState(t *testing.T, top *topology.Topology, r *rand.Rand) *System {
	s, err := newSystem(DefaultParams(), top, 1)
	if err != nil {
		t.Fatal(err)
	}
	all := top.CPUs()
	id := 0
	shape := r.IntN(3) // 0: dense, 1: sparse, 2: dense in the upper half only
	for c := range all.All() {
		if (shape == 0 && r.IntN(4) == 0) || (shape == 2 && int(c) < top.NumCPUs()/2) {
			continue
		}
		n := 1 + r.IntN(3)
		if shape == 1 && r.IntN(8) != 0 {
			n = r.IntN(2)
		}
		loadedCPU(&s.cpus[c], n, r, all, &id)
		for th := range s.cpus[c].Queued() {
			if r.IntN(4) == 0 {
				th.Pinned = 1
			}
		}
	}
	checkSystem(t, s)
	return s
}

// Lowest and Highest over every group, with the machine's mask or a mask lacking CPUs, every
// priority, with and without a load limit, the preferred CPU anywhere, running or not, and the
// steal and balance thresholds, decide and draw the same with the index as without.
func TestSearchesWithIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 7))
	for i := range 120 {
		top := indexTops[i%len(indexTops)]
		s := indexState(t, top, r)
		for range 3 {
			mask := &s.all
			if r.IntN(3) == 0 {
				m := s.all
				for range 1 + r.IntN(3) {
					m.Remove(topology.CPU(r.IntN(top.NumIDs())))
				}
				mask = &m
			}
			pri := r.IntN(257) - 1
			maxLoad := math.MaxInt32
			if r.IntN(4) == 0 {
				maxLoad = r.IntN(4)
			}
			prefer := topology.CPU(r.IntN(top.NumIDs()))
			running := r.IntN(2) == 0
			minLoad, minTrans := r.IntN(4), r.IntN(3)
			for _, g := range top.AllGroups() {
				seed := r.Uint64()
				a, b := NewRand(0, seed), NewRand(0, seed)
				gc, gok := s.Lowest(g, mask, pri, maxLoad, prefer, running, &a)
				var wc topology.CPU
				var wok bool
				withoutIndex(s, func() { wc, wok = s.Lowest(g, mask, pri, maxLoad, prefer, running, &b) })
				if gc != wc || gok != wok || a.State() != b.State() {
					t.Fatalf("%v %v pri %d maxLoad %d prefer %d running %t: Lowest with the index = %d %t rnd %#x, without %d %t rnd %#x",
						top, g, pri, maxLoad, prefer, running, gc, gok, a.State(), wc, wok, b.State())
				}
				gc, gok = s.Highest(g, mask, minLoad, minTrans, &a)
				withoutIndex(s, func() { wc, wok = s.Highest(g, mask, minLoad, minTrans, &b) })
				if gc != wc || gok != wok || a.State() != b.State() {
					t.Fatalf("%v %v minLoad %d minTrans %d: Highest with the index = %d %t rnd %#x, without %d %t rnd %#x",
						top, g, minLoad, minTrans, gc, gok, a.State(), wc, wok, b.State())
				}
			}
		}
	}
}

// PickCPU (sched_pickcpu) chooses the same CPU for the same reason, with the same draws, with
// the index as without: for threads whose last run is recent or not at every cache level
// (affinity 1 and 3 ticks), with the whole machine or part of it as affinity, running or not,
// interrupt threads woken from interrupts, and SRQ_OURSELF and pinned threads.
func TestPickCPUWithIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 3))
	rules := map[PickCPURule]int{}
	for i := range 300 {
		top := indexTops[i%len(indexTops)]
		s := indexState(t, top, r)
		if i%3 == 0 {
			s.params.Affinity = 3
		}
		all := top.CPUs()
		for range 16 {
			pri := uint8(r.IntN(224))
			th := InitThread(&Thread{Priority: pri, UserPri: pri, Affinity: all, CPU: topology.CPU(r.IntN(top.NumCPUs()))})
			if r.IntN(4) == 0 {
				var aff topology.CPUSet
				for c := range all.All() {
					if r.IntN(2) == 0 {
						aff.Add(c)
					}
				}
				if !aff.IsEmpty() {
					th.Affinity = aff
				}
			}
			if r.IntN(16) == 0 {
				th.Pinned = 1
			}
			const ticks = 1000
			th.RLTick = uint32(ticks - r.IntN(12))
			if r.IntN(2) == 0 {
				th.State = Running
			}
			var flags AddFlags
			if r.IntN(16) == 0 {
				flags = SRQOurself
			}
			intr := r.IntN(8) == 0
			if intr && r.IntN(2) == 0 {
				th.Priority = uint8(r.IntN(8))
			}
			self := topology.CPU(r.IntN(top.NumCPUs()))
			seed := r.Uint64()
			a, b := NewRand(0, seed), NewRand(0, seed)
			gc, gwhy := s.PickCPU(th, self, ticks, flags, intr, &a)
			var wc topology.CPU
			var wwhy PickCPUReason
			withoutIndex(s, func() { wc, wwhy = s.PickCPU(th, self, ticks, flags, intr, &b) })
			if gc != wc || gwhy != wwhy || a.State() != b.State() {
				t.Fatalf("%v %v self cpu%d intr %t flags %v: PickCPU with the index = %d (%v) rnd %#x, without %d (%v) rnd %#x",
					top, th, self, intr, flags, gc, gwhy, a.State(), wc, wwhy, b.State())
			}
			rules[gwhy.Rule]++
		}
	}
	for _, rule := range []PickCPURule{PickCPUStay, PickCPUIntrIdle, PickCPUAffinity, PickCPUIntrLLC, PickCPULLCIdle, PickCPULowerPri, PickCPULeastLoaded, PickCPULocal} {
		if rules[rule] < 10 {
			t.Errorf("rule %d fired %d times: %v", rule, rules[rule], rules)
		}
	}
}

// Steal (tdq_idled, tdq_trysteal) finds the same victim and thread, for the same reason, with
// the same draws, with the index as without, from every thief of few enough, and the thread it
// finds is the one Move would take.
func TestStealWithIndex(t *testing.T) {
	ways := map[string]int{}
	for seed := range uint64(120) {
		r := rand.New(rand.NewPCG(seed, 41))
		top := indexTops[int(seed)%len(indexTops)]
		s := indexState(t, top, r)
		thieves := 0
		for thief := range top.CPUs().All() {
			if s.loads[thief].Load != 0 && r.IntN(4) != 0 {
				continue
			}
			if thieves++; thieves > 40 {
				break
			}
			for _, limit := range []int{0, 1, 2} {
				a, b := NewRand(thief, seed), NewRand(thief, seed)
				gv, gt, gr := s.Steal(thief, limit, &a)
				var wv topology.CPU
				var wt *Thread
				var wr StealReason
				withoutIndex(s, func() { wv, wt, wr = s.Steal(thief, limit, &b) })
				if gv != wv || gt != wt || gr != wr || a.State() != b.State() {
					t.Fatalf("seed %d %v thief cpu%d limit %d: Steal with the index = cpu%d %v %+v rnd %d, without cpu%d %v %+v rnd %d",
						seed, top, thief, limit, gv, gt, gr, a.State(), wv, wt, wr, b.State())
				}
				switch {
				case gr.Rule == StealHasWork:
					ways["has work"]++
				case gt != nil && gr.Refused > 0:
					ways["found after a refusal"]++
				case gt != nil:
					ways["found"]++
					if mt, _ := StealFrom(&s.cpus[gv], thief); mt != gt {
						t.Fatalf("Steal took %v from cpu%d, StealFrom (Move) %v", gt, gv, mt)
					}
				default:
					ways["none"]++
				}
			}
		}
	}
	for _, k := range []string{"has work", "found after a refusal", "found", "none"} {
		if ways[k] < 20 {
			t.Errorf("only %d searches ended %s: %v", ways[k], k, ways)
		}
	}
}
