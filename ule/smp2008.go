// This file implements ULE's SMP code as Jeff Roberson wrote it for the cpu_group topology in
// 2008 and FreeBSD 8.0 and 9.0 shipped it, before Alexander Motin's 2012 rework: the cpu_search
// of that era (with its load-reset slip), the pair balancer (sched_balance_group,
// sched_balance_pair), tdq_idled and sched_pickcpu. Params.SMP = SMP2008 selects it.
//
// Source: sys/kern/sched_ule.c 1.290 of 2011-01-14 (rodrigc/bz-vimage @191fe557), the same in
// FreeBSD 8.0-RELEASE; the package documentation's section on FreeBSD 9.0 has the copies compared.

package ule

import (
	"math"
	"math/bits"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// An SMPCode selects the generation of ULE's multiprocessor code: the CPU searches, wake-up
// placement, idle stealing and the periodic balancer.
type SMPCode uint8

const (
	// SMPRework is the code since Alexander Motin's 2012 rework (FreeBSD 9.1 and later, main
	// and legacy): loads weighted by 256 with a random tie-break, CPUs visited from the highest,
	// the balancer moving one thread per pair, tdq_idled climbing through sibling groups.
	SMPRework SMPCode = iota
	// SMP2008 is the code of FreeBSD 8.0 to 9.0 (2008-11), which seed 001 measured: see
	// Lowest2008, Highest2008, Both2008, and System.PickCPU, System.Steal and System.Balance.
	SMP2008
)

var smpCodeNames = []string{SMPRework: "rework", SMP2008: "2008"}

// String returns "rework" or "2008".
func (c SMPCode) String() string { return sched.EnumName(smpCodeNames, c, "SMPCode") }

// search2008 is the 2008 struct cpu_search: the CPUs allowed, the best load so far (cs_load, a
// u_int), the best CPU so far (cs_cpu, -1 for none) and cs_limit, the priority a lowest CPU
// must run worse than or the load a highest CPU must reach.
type search2008 struct {
	mask  *topology.CPUSet
	load  uint32
	cpu   int32
	limit int32
}

const (
	search2008Lowest  = 1 // CPU_SEARCH_LOWEST
	search2008Highest = 2 // CPU_SEARCH_HIGHEST
)

// compare2008 is cpu_compare: CPU c becomes low's answer if it is allowed, carries strictly less
// load than low's best and runs worse priority than low's limit; high's if it is allowed,
// reaches high's limit, carries strictly more load than high's best and has a transferable
// thread. It returns c's load.
func (s *System) compare2008(c topology.CPU, low, high *search2008, match int) int32 {
	l := &s.loads[c]
	load := int32(l.Load)
	if match&search2008Lowest != 0 && low.mask.Has(c) && uint32(load) < low.load && int32(l.LowPri) > low.limit {
		low.cpu, low.load = int32(c), uint32(load)
	}
	if match&search2008Highest != 0 && high.mask.Has(c) && load >= high.limit && uint32(load) > high.load && l.Transferable != 0 {
		high.cpu, high.load = int32(c), uint32(load)
	}
	return load
}

// search2008 is the 2008 cpu_search of group g: a leaf compares its CPUs in ascending order
// (CPUSET_FOREACH); a group searches its children first to last, each with a copy of the
// caller's state, and keeps the answer of the child with the smallest (lowest) or largest
// (highest) total load, the first on ties, or any child's while it has none. As in the source,
// preparing the highest copy resets the lowest copy's load to 0 (lgroup.cs_load = 0 where
// hgroup was meant), so a combined search (Both2008) finds no lowest CPU below a group with
// children, and the highest copy keeps the best load found so far, so a later child's CPU must
// beat the earlier children's best. It returns g's total load.
func (s *System) search2008(g *topology.Group, low, high *search2008, match int) int32 {
	var total int32
	kids := g.Children()
	if len(kids) == 0 {
		for c := range g.CPUs().All() {
			total += s.compare2008(c, low, high, match)
		}
		return total
	}
	lload, hload := uint32(math.MaxUint32), int32(-1)
	var lgroup, hgroup search2008
	for _, child := range kids {
		if match&search2008Lowest != 0 {
			lgroup = *low
			lgroup.load = math.MaxUint32
		}
		if match&search2008Highest != 0 {
			hgroup = *high
			lgroup.load = 0 // sic: the source resets lgroup here
		}
		load := s.search2008(child, &lgroup, &hgroup, match)
		total += load
		if match&search2008Lowest != 0 && (uint32(load) < lload || low.cpu == -1) {
			*low = lgroup
			lload = uint32(load)
		}
		if match&search2008Highest != 0 && (load > hload || high.cpu == -1) {
			hload = load
			*high = hgroup
		}
	}
	return total
}

// Lowest2008 is the 2008 sched_lowest(g, mask, pri): the least loaded CPU of mask running worse
// priority than pri (-1 accepts any) by the search2008 rules, lowest id first on equal load
// within a leaf. It reports false if none qualifies. The complexity is O(CPUs and groups of g).
func (s *System) Lowest2008(g *topology.Group, mask *topology.CPUSet, pri int) (topology.CPU, bool) {
	low := search2008{mask: mask, load: math.MaxUint32, cpu: -1, limit: int32(pri)}
	s.search2008(g, &low, nil, search2008Lowest)
	return topology.CPU(low.cpu), low.cpu >= 0
}

// Highest2008 is the 2008 sched_highest(g, mask, minload): the most loaded CPU of mask with at
// least minLoad and a transferable thread, by the search2008 rules. It reports false if none
// qualifies. The complexity is O(CPUs and groups of g).
func (s *System) Highest2008(g *topology.Group, mask *topology.CPUSet, minLoad int) (topology.CPU, bool) {
	high := search2008{mask: mask, cpu: -1, limit: int32(minLoad)}
	s.search2008(g, nil, &high, search2008Highest)
	return topology.CPU(high.cpu), high.cpu >= 0
}

// Both2008 is sched_both(g, mask): one combined search for the least and the most loaded CPU
// (cs_limit -1 for both: any priority, any load). Because of the reset slip (see search2008) the
// lowest answer is found only when g is a leaf; a group with children reports no low CPU.
func (s *System) Both2008(g *topology.Group, mask *topology.CPUSet) (low, high topology.CPU, lowOK, highOK bool) {
	l := search2008{mask: mask, load: math.MaxUint32, cpu: -1, limit: -1}
	h := search2008{mask: mask, cpu: -1, limit: -1}
	s.search2008(g, &l, &h, search2008Lowest|search2008Highest)
	return topology.CPU(l.cpu), topology.CPU(h.cpu), l.cpu >= 0, h.cpu >= 0
}

// StealThreshold returns steal_thresh: Params.StealThresh, or with -1 the 2008 default that
// sched_initticks derives from the CPU count, min(fls(mp_ncpus) - 1, 3) (1 on 2 CPUs, 2 on 4,
// 3 on 8 or more).
func (s *System) StealThreshold() int {
	if s.params.StealThresh >= 0 {
		return s.params.StealThresh
	}
	return min(bits.Len(uint(s.top.NumCPUs()))-1, 3)
}

// pickCPU2008 is the 2008 sched_pickcpu after its first step (SRQOurself or a pinned thread:
// t.CPU, which PickCPU takes for both generations), r holding the reason so far:
//  2. an interrupt thread woken from an interrupt on self (allowed there) starts from self;
//  3. if t may run on its CPU: that CPU if it idles (tdq_lowpri > PRI_MIN_IDLE), or if t ran
//     there within 2*affinity ticks (SCHED_AFFINITY at CG_SHARE_L2) and the CPU runs worse
//     priority than t;
//  4. the lowest group, climbing from that CPU's leaf, in which t is still cache-affine
//     (SCHED_AFFINITY at the group's cg_level; never for CG_SHARE_NONE): its least loaded CPU
//     running worse priority than t (Lowest2008);
//  5. failing that the least loaded allowed CPU of the machine;
//  6. self instead, if t may run there, self runs worse priority than t and the chosen CPU does
//     not idle (no load comparison, unlike the 2012 code).
func (s *System) pickCPU2008(t *Thread, self topology.CPU, ticks uint32, intr bool, r PickCPUReason) (topology.CPU, PickCPUReason) {
	prev := t.CPU
	if intr && t.Priority <= s.params.Layout().MaxIthd && t.CanRunOn(self) {
		prev = self
	}
	pri := t.Priority
	if t.CanRunOn(prev) {
		if s.loads[prev].LowPri > PriMinIdle {
			r.Rule, r.CPU = PickCPUIdle2008, prev
			return prev, r
		}
		if affine(&s.params, t, ticks, int(topology.ShareL2)) && s.loads[prev].LowPri > pri {
			r.Rule, r.CPU = PickCPUAffine2008, prev
			return prev, r
		}
	}
	var cg *topology.Group
	for g := s.top.Leaf(prev); g != nil; g = g.Parent() {
		if affine(&s.params, t, ticks, int(g.Share())) {
			cg = g
			break
		}
	}
	r.LLC = cg
	mask := &t.Affinity
	cpu, ok := topology.CPU(0), false
	if cg != nil {
		cpu, ok = s.Lowest2008(cg, mask, int(pri))
		r.Rule = PickCPULowerPri
	}
	if !ok {
		cpu, ok = s.Lowest2008(s.top.Root(), mask, -1)
		r.Rule = PickCPULeastLoaded
	}
	if !ok {
		panic("ule: PickCPU: the thread may run on no CPU of the machine")
	}
	if t.CanRunOn(self) && s.loads[self].LowPri > pri && s.loads[cpu].LowPri < PriMinIdle {
		cpu = self
		r.Rule = PickCPULocal2008
	}
	r.CPU = cpu
	return cpu, r
}

// steal2008 is the 2008 tdq_idled for an idle thief with stealing on, writing its reason to r:
// from thief's leaf up through each parent, the most loaded CPU (Highest2008) with load at least
// steal_thresh (1 in an SMT group) and a transferable thread; each candidate leaves the mask
// whether or not it yields a thread (StealFrom), and the search goes on in the same group.
func (s *System) steal2008(thief topology.CPU, r *StealReason) (topology.CPU, *Thread) {
	mask := s.all
	mask.Remove(thief)
	thresh := s.StealThreshold()
	for cg := s.top.Leaf(thief); cg != nil; {
		th := thresh
		if cg.Flags()&topology.FlagThread != 0 {
			th = 1
		}
		cpu, found := s.Highest2008(cg, &mask, th)
		r.Searches++
		if !found {
			cg = cg.Parent()
			continue
		}
		mask.Remove(cpu)
		if t, _ := StealFrom(&s.cpus[cpu], thief); t != nil {
			r.Rule, r.Victim, r.Group = StealFound, cpu, cg
			return cpu, t
		}
		r.Refused++
	}
	r.Rule = StealNone
	return 0, nil
}

// balance2008 is the 2008 sched_balance_group(g), recursively: repeatedly one combined search
// (Both2008) over g for the least and the most loaded CPU; stop if either is missing or they
// are the same CPU, or after the first pair that moved anything; when a pair moves nothing,
// drop the donor from the mask if it has no transferable thread, otherwise the receiver, and
// search again. Then the same for each child of g, first to last.
func (s *System) balance2008(g *topology.Group, moves []Move) []Move {
	mask := s.all
	for {
		low, high, lowOK, highOK := s.Both2008(g, &mask)
		if !lowOK || !highOK || low == high {
			break
		}
		var moved int
		if moves, moved = s.balancePair2008(high, low, moves); moved > 0 {
			break
		}
		if s.cpus[high].Transferable() == 0 {
			mask.Remove(high)
		} else {
			mask.Remove(low)
		}
	}
	for _, child := range g.Children() {
		moves = s.balance2008(child, moves)
	}
	return moves
}

// balancePair2008 is the 2008 sched_balance_pair: with diff = high's load - low's load, it
// tries ceil(diff/2) moves (diff/2, plus one if diff is odd, in C's integer arithmetic), at most
// high's transferable count, each a tdq_move that may find no thread it can take (StealFrom),
// and then sends low IPI_PREEMPT. Moving half the difference rounded up turns loads 2 and 1
// into 1 and 2: the imbalance changes sides and is never removed. It appends one Move per
// thread moved and returns how many moved. The IPI makes low switch (sched_preempt) if it runs
// worse priority than its best queued thread; the Moves carry that kick.
func (s *System) balancePair2008(high, low topology.CPU, moves []Move) ([]Move, int) {
	hc, lc := &s.cpus[high], &s.cpus[low]
	transferable := hc.Transferable()
	if transferable == 0 {
		return moves, 0
	}
	diff := hc.Load() - lc.Load()
	move := diff / 2
	if diff&1 != 0 {
		move++
	}
	move = min(move, transferable)
	first := len(moves)
	for range move {
		if t, _ := s.Move(high, low); t != nil {
			moves = append(moves, Move{From: high, To: low, Thread: t})
		}
	}
	kick := KickNone
	if lc.curPriority() > lc.LowPri() {
		kick = KickPreempt
		if lc.Cur == nil {
			kick = KickIdle
		} else {
			lc.OwePreempt = true
		}
	}
	for i := first; i < len(moves); i++ {
		moves[i].Kick = kick
	}
	return moves, len(moves) - first
}
