package ule

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// refPickCPU is sched_pickcpu (main, SMPRework) as the kernel writes it: the walk up the cache
// groups from tdq_cg through the topology itself (cg_parent, cg_flags, cg_children, cg_count,
// cg_level), the SMT siblings tested through the group's mask, and every sched_lowest the plain
// recursion (refLowest) over the thread's affinity as a fresh mask. PickCPU must agree with it
// exactly: the same CPU, reason and draws.
func refPickCPU(s *System, t *Thread, self topology.CPU, ticks uint32, flags AddFlags, intr bool, rnd *Rand) (topology.CPU, PickCPUReason) {
	r := PickCPUReason{Prev: t.CPU, Pri: t.Priority}
	if flags&SRQOurself != 0 || !t.CanMigrate() {
		r.Rule, r.CPU = PickCPUStay, t.CPU
		return t.CPU, r
	}
	l := s.Params.Layout()
	prev := t.CPU
	var cg *topology.Group
	if intr && t.Priority <= l.MaxIthd && t.CanRunOn(self) {
		if s.Loads[self].LowPri >= PriMinIdle {
			r.Rule, r.CPU = PickCPUIntrIdle, self
			return self, r
		}
		prev = self
		cg = s.Topology.Leaf(self)
	} else {
		intr = false
		cg = s.Topology.Leaf(prev)
		if t.CanRunOn(prev) && s.Loads[prev].LowPri >= PriMinIdle && affine(&s.Params, t, ticks, int(topology.ShareL2)) {
			idle := true
			if cg.Flags()&topology.FlagThread != 0 {
				for c := cg.First(); c <= cg.Last(); c++ {
					if cg.Has(c) && s.Loads[c].LowPri < PriMinIdle {
						idle = false
						break
					}
				}
			}
			if idle {
				r.Rule, r.CPU = PickCPUAffinity, prev
				return prev, r
			}
		}
	}
	var llc *topology.Group
	for g := cg; g != nil; g = g.Parent() {
		if g.Flags()&topology.FlagThread != 0 || len(g.Children()) == 1 || g.Count() == 1 {
			continue
		}
		if g.Share() == topology.ShareNone || (!intr && !affine(&s.Params, t, ticks, int(g.Share()))) {
			continue
		}
		llc = g
	}
	if llc == s.Topology.Root() {
		llc = nil
	}
	r.LLC = llc
	mask := bitsOf(&t.Affinity)
	running := t.State == Running
	lowest := func(g *topology.Group, pri int) (topology.CPU, bool) {
		a := lowestArgs{loads: s.loads, mask: &mask, pri: int32(pri), maxLoad: math.MaxInt32, prefer: int32(prev), running: running, rnd: rnd}
		_, c, _ := s.tree.refLowest(int32(g.ID()), &a)
		return topology.CPU(c), c >= 0
	}
	pri := int(t.Priority)
	cpu, ok := topology.CPU(0), false
	switch {
	case llc != nil && intr:
		cpu, ok = lowest(llc, pri)
		r.Rule = PickCPUIntrLLC
	case llc != nil:
		cpu, ok = lowest(llc, max(pri, int(l.MaxTimeshare)))
		r.Rule = PickCPULLCIdle
	}
	if !ok {
		cpu, ok = lowest(s.Topology.Root(), pri)
		r.Rule = PickCPULowerPri
	}
	if !ok {
		cpu, ok = lowest(s.Topology.Root(), -1)
		r.Rule = PickCPULeastLoaded
	}
	if !ok {
		panic("refPickCPU: no CPU")
	}
	if t.CanRunOn(self) && s.Loads[self].LowPri > t.Priority && s.Loads[cpu].LowPri < PriMinIdle &&
		s.Loads[self].Load <= s.Loads[cpu].Load+1 {
		cpu = self
		r.Rule = PickCPULocal
	}
	r.CPU = cpu
	return cpu, r
}

// PickCPU, and the pickCPU of the mutating methods (the precomputed walks, the fused search of
// a leaf of consecutive ids, the load index where the machine keeps it), choose what the
// kernel's sched_pickcpu (refPickCPU) chooses, with the same reason and draws: on random loads
// and priorities of machines with SMT leaves, several caches, nodes, one CPU and one flat leaf,
// for threads whose last run is recent or not at every cache level (affinity 1 and 3 ticks),
// with the whole machine or part of it as affinity, running or not, interrupt threads woken from
// interrupts, and SRQ_OURSELF and pinned threads.
func TestPickCPUMatchesReference(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 1, 1),
		topology.Uniform(1, 1, 1, 1, 2), // one SMT core
		topology.Uniform(1, 1, 1, 4, 1), // bench/sim's periodic 4x20
		topology.Uniform(1, 1, 1, 16, 1),
		topology.Uniform(2, 1, 2, 8, 2),
		topology.Uniform(2, 1, 3, 3, 2),
		topology.Uniform(2, 1, 1, 16, 2), // bench/sim's mixed load: 64 CPUs in pairs, indexed
		topology.Uniform(1, 1, 1, 64, 1), // indexed, one flat leaf
		topology.TwoSocketSMT(),
		topology.FourLLC(),
		topology.BigLittle(),
		topology.FourNode(),
		mustParse(t, "package:1 node:1 llc:1 (cluster:2 core:2 cpu:2 + cluster:1 cpu:4)"),
	}
	r := rand.New(rand.NewPCG(29, 3))
	rules := map[PickCPURule]int{}
	for i := range 3000 {
		top := tops[i%len(tops)]
		p := DefaultParams()
		if i%3 == 0 {
			p.Affinity = 3
		}
		s, err := NewSystem(p, top)
		if err != nil {
			t.Fatal(err)
		}
		n := top.NumIDs()
		for c := range top.CPUs().All() {
			l := int32(r.IntN(4))
			lp := uint8(PriMaxIdle)
			if l > 0 || r.IntN(8) == 0 {
				lp = uint8(r.IntN(256))
			}
			s.Loads[c] = CPULoad{Load: l, LowPri: lp}
		}
		resyncIndex(s)
		all := top.CPUs()
		for range 8 {
			pri := uint8(r.IntN(224))
			th := InitThread(&Thread{Priority: pri, UserPri: pri, Affinity: all, CPU: topology.CPU(r.IntN(n))})
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
			self := topology.CPU(r.IntN(n))
			seed := r.Uint64()
			a, b, c := NewRand(0, seed), NewRand(0, seed), NewRand(0, seed)
			gc, gwhy := s.PickCPU(th, self, ticks, flags, intr, &a)
			mc, mwhy := s.pickCPU(th, self, ticks, flags, intr, &c, s.ixLow)
			wc, wwhy := refPickCPU(s, th, self, ticks, flags, intr, &b)
			if gc != wc || gwhy != wwhy || a.State() != b.State() || mc != wc || mwhy != wwhy || c.State() != b.State() {
				t.Fatalf("%v %v self cpu%d intr %t flags %v: PickCPU = %d (%v) rnd %#x, with the index %d (%v) rnd %#x, reference %d (%v) rnd %#x",
					top, th, self, intr, flags, gc, gwhy, a.State(), mc, mwhy, c.State(), wc, wwhy, b.State())
			}
			rules[wwhy.Rule]++
		}
	}
	for _, rule := range []PickCPURule{PickCPUStay, PickCPUIntrIdle, PickCPUAffinity, PickCPUIntrLLC, PickCPULLCIdle, PickCPULowerPri, PickCPULeastLoaded, PickCPULocal} {
		if rules[rule] < 20 {
			t.Errorf("rule %v fired %d times: %v", rule, rules[rule], rules)
		}
	}
}
