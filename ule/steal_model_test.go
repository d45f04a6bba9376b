package ule

import (
	"math/rand/v2"
	"testing"

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
