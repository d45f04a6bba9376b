package ule

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// refSteal is tdq_idled as the kernel writes it, without Steal's reuse of the totals of groups
// already searched: every search visits the whole group. Steal must agree with it exactly: the
// same victim, thread and reason, and the same random draws.
func refSteal(s *System, thief topology.CPU, limit int, rnd *Rand) (topology.CPU, *Thread, StealReason) {
	var r StealReason
	if !s.Params.StealIdle {
		r.Rule = StealDisabled
		return 0, nil, r
	}
	if s.Loads[thief].Load > 0 {
		r.Rule = StealHasWork
		return 0, nil, r
	}
	mask := s.all
	mask.remove(thief)
	cg, group, level := s.Topology.Leaf(thief), false, 1
	for {
		cpu, found := s.highest(cg, &mask, s.StealThreshold(), 1, rnd)
		r.Searches++
		if !found {
			if group {
				cg, group = cg.Parent(), false
			}
			if limit > 0 {
				if level++; level > limit {
					break
				}
			}
			parent := cg.Parent()
			if parent == nil {
				break
			}
			if kids := parent.Children(); len(kids) == 2 {
				if cg == kids[0] {
					cg = kids[1]
				} else {
					cg = kids[0]
				}
				group = true
			} else {
				cg = parent
			}
			continue
		}
		if t, _ := StealFrom(&s.CPUs[cpu], thief, &s.Params); t != nil {
			r.Rule, r.Victim, r.Group = StealFound, cpu, cg
			return cpu, t, r
		}
		r.Refused++
		if limit > 0 {
			break
		}
		mask.remove(cpu)
	}
	r.Rule = StealNone
	return 0, nil, r
}

func TestStealMatchesReference(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 2, 1),
		topology.Uniform(2, 1, 2, 8, 2),
		topology.Uniform(2, 1, 3, 3, 2),
		topology.Uniform(4, 1, 4, 8, 2),
		topology.Uniform(3, 1, 1, 5, 1),
		topology.Uniform(1, 1, 1, 64, 1), // one leaf of 64 CPUs (bench/sim's periodic sets)
		topology.TwoSocketSMT(),          // SMT siblings numbered apart
	}
	refused, found := 0, 0
	few, fewFound, fewRefused := 0, 0, 0
	for seed := range uint64(120) {
		r := rand.New(rand.NewPCG(seed, 7))
		top := tops[int(seed)%len(tops)]
		s, err := NewSystem(DefaultParams(), top)
		if err != nil {
			t.Fatal(err)
		}
		all := top.CPUs()
		id := 0
		// Seeds from 60 on are sparse: most CPUs run at most one thread and a few have more, so
		// that Steal's list of few candidates (stealFew) applies; the first 60 are dense.
		sparse := seed >= 60
		for c := range all.All() {
			if r.IntN(3) == 0 {
				continue
			}
			n := r.IntN(4)
			if sparse && r.IntN(8) != 0 {
				n = r.IntN(2)
			}
			// Pin some threads so that victims refuse and the search goes on.
			loadedCPU(&s.CPUs[c], n, r, all, &id)
			for th := range s.CPUs[c].Queued() {
				if r.IntN(3) == 0 {
					th.Affinity = topology.CPUSetOf(c)
				}
			}
		}
		for thief := range all.All() {
			for _, limit := range []int{0, 1, 2} {
				a, b := NewRand(thief, seed), NewRand(thief, seed)
				if s.Loads[thief].Load == 0 {
					c := NewRand(thief, seed)
					var cr StealReason
					if _, ft, ok := s.stealFew(thief, limit, s.StealThreshold(), &c, &cr, nil); ok {
						few++
						if cr.Refused > 0 {
							fewRefused++
						}
						if ft != nil {
							fewFound++
						}
					}
				}
				gv, gt, gr := s.Steal(thief, limit, &a)
				wv, wt, wr := refSteal(s, thief, limit, &b)
				if gv != wv || gt != wt || gr != wr || a.State() != b.State() {
					t.Fatalf("seed %d %v thief cpu%d limit %d: Steal = cpu%d %v %+v rnd %d, reference cpu%d %v %+v rnd %d",
						seed, top, thief, limit, gv, gt, gr, a.State(), wv, wt, wr, b.State())
				}
				refused += gr.Refused
				if gt != nil {
					found++
					// The steal paths move this thread (moveThread) instead of asking Move,
					// which would run tdq_steal again on the unchanged victim: the same thread.
					if mt, _ := StealFrom(&s.CPUs[gv], thief, &s.Params); mt != gt {
						t.Fatalf("seed %d %v thief cpu%d limit %d: Steal took %v from cpu%d, StealFrom (Move) %v", seed, top, thief, limit, gt, gv, mt)
					}
				}
			}
		}
	}
	if refused == 0 || found == 0 {
		t.Errorf("the cases never exercised a refusal (%d) or a steal (%d)", refused, found)
	}
	if fewFound == 0 || fewRefused == 0 || fewFound == few {
		t.Errorf("the list of few candidates applied %d times, found %d, refused in %d: want steals, refusals and misses", few, fewFound, fewRefused)
	}
	t.Logf("stealFew applied in %d searches: %d steals, %d with a refusal", few, fewFound, fewRefused)
}

// Steal on behalf of a mutating method (steal with the System's own index, as Switch and the
// Scheduler call it), which ends at once when xferCPUs says no CPU has a transferable thread,
// agrees with the kernel's climb (refSteal): the same result, reason (the number of groups
// searched included) and draws, from every thief with limits 0 to 3. The states are built
// through the CPUStates, so xferCPUs is kept: CPUs run at most one thread, or have queued
// threads that are all pinned (loads of two and more without a candidate), or, in one state in
// four, one CPU has a queued thread that may migrate, which the searches must then find.
func TestStealWithoutTransferable(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 1, 1),
		topology.Uniform(1, 1, 1, 4, 1),
		topology.Uniform(1, 1, 1, 16, 1),
		topology.Uniform(2, 1, 2, 8, 2),
		topology.Uniform(2, 1, 3, 3, 2),
		topology.Uniform(4, 1, 4, 8, 2),
		topology.Uniform(2, 1, 1, 16, 2), // 64 CPUs, where the load index is kept
		topology.TwoSocketSMT(),
		topology.FourNode(),
	}
	fast, found := 0, 0
	for seed := range uint64(90) {
		r := rand.New(rand.NewPCG(seed, 23))
		top := tops[int(seed)%len(tops)]
		s, err := NewSystem(DefaultParams(), top)
		if err != nil {
			t.Fatal(err)
		}
		all := top.CPUs()
		movable := seed%4 == 3
		id := 0
		for c := range all.All() {
			n := r.IntN(2)
			if r.IntN(4) == 0 {
				n = 2 + r.IntN(3)
			}
			for k := range n {
				id++
				pri := uint8(56 + r.IntN(168))
				th := InitThread(&Thread{ID: sched.ID(id), Class: ClassTimeshare, Priority: pri, BasePri: pri, UserPri: pri, Affinity: all})
				if k > 0 && !movable {
					th.Pinned = 1
				}
				s.CPUs[c].Add(th, 0)
				if k == 0 {
					s.CPUs[c].Choose()
				}
			}
			checkSystem(t, s)
		}
		for thief := range all.All() {
			for limit := range 4 {
				a, b := NewRand(thief, seed), NewRand(thief, seed)
				if s.Loads[thief].Load == 0 && s.xferCPUs == 0 {
					fast++
				}
				var gr StealReason
				gv, gt := s.steal(thief, limit, &a, &s.ix, &gr)
				wv, wt, wr := refSteal(s, thief, limit, &b)
				if gv != wv || gt != wt || gr != wr || a.State() != b.State() {
					t.Fatalf("seed %d %v thief cpu%d limit %d (xferCPUs %d): steal = cpu%d %v %+v rnd %d, reference cpu%d %v %+v rnd %d",
						seed, top, thief, limit, s.xferCPUs, gv, gt, gr, a.State(), wv, wt, wr, b.State())
				}
				if gt != nil {
					found++
				}
			}
		}
	}
	if fast == 0 || found == 0 {
		t.Errorf("the cases never took the end without transferable threads (%d) or stole (%d)", fast, found)
	}
	t.Logf("%d searches without a transferable thread anywhere, %d steals", fast, found)
}

// The pruned search's membership test agrees with the topology's own sets.
func TestSearchTreeHolds(t *testing.T) {
	for _, top := range []*topology.Topology{
		topology.Uniform(1, 1, 1, 1, 1),
		topology.Uniform(2, 1, 3, 3, 2),
		topology.Uniform(4, 1, 4, 32, 2),
	} {
		tr := newSearchTree(top)
		if !tr.ranges {
			t.Fatalf("%v: groups not numbered in preorder", top)
		}
		for _, g := range top.AllGroups() {
			cpus := g.CPUs()
			for c := range top.CPUs().All() {
				if got := tr.holds(int32(g.ID()), c); got != cpus.Has(c) {
					t.Fatalf("%v: holds(%v, cpu%d) = %t, want %t", top, g, c, got, !got)
				}
			}
		}
	}
}
