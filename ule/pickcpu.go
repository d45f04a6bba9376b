// This file implements PickCPU, the choice of a CPU for a thread being queued (sched_pickcpu).

package ule

import (
	"fmt"

	"github.com/schedkit/schedkit/topology"
)

// A PickCPURule says which step of sched_pickcpu chose the CPU.
type PickCPURule uint8

const (
	PickCPUStay        PickCPURule = iota // SRQ_OURSELF or a pinned thread: stay on ts_cpu
	PickCPUIntrIdle                       // an interrupt thread woken from an interrupt: this CPU idles
	PickCPUAffinity                       // ts_cpu idles (with its SMT siblings) and the cache is still warm
	PickCPUIntrLLC                        // an interrupt thread: the least loaded CPU of the LLC running worse priority
	PickCPULLCIdle                        // the least loaded idle CPU of the last-level cache group
	PickCPULowerPri                       // globally, the least loaded CPU running worse priority
	PickCPULeastLoaded                    // globally, the least loaded CPU
	PickCPULocal                          // the chosen CPU is busy and this CPU, with at most one thread more, runs worse priority
	PickCPUIdle2008                       // SMP2008: ts_cpu idles (no cache test)
	PickCPUAffine2008                     // SMP2008: the cache is warm (CG_SHARE_L2) and ts_cpu runs worse priority
	PickCPULocal2008                      // SMP2008: the chosen CPU is busy and this CPU runs worse priority
)

// A PickCPUReason explains PickCPU: the rule that fired, the CPU chosen, the thread's previous
// CPU (ts_cpu) and priority, and the cache group searched first (nil when the search was global).
type PickCPUReason struct {
	Rule PickCPURule
	CPU  topology.CPU
	Prev topology.CPU
	Pri  uint8
	LLC  *topology.Group
}

// String formats the reason, such as "cpu3: idle in llc{0-5} (was cpu1, pri 140)".
func (r PickCPUReason) String() string {
	var what string
	switch r.Rule {
	case PickCPUStay:
		what = "stays (requeued by itself or pinned)"
	case PickCPUIntrIdle:
		what = "interrupt thread on the interrupted idle CPU"
	case PickCPUAffinity:
		what = "previous CPU idle and cache-affine"
	case PickCPUIntrLLC:
		what = fmt.Sprintf("interrupt thread, least loaded in %v", r.LLC)
	case PickCPULLCIdle:
		what = fmt.Sprintf("idle in %v", r.LLC)
	case PickCPULowerPri:
		what = "least loaded CPU running worse priority"
	case PickCPULeastLoaded:
		what = "least loaded CPU"
	case PickCPULocal:
		what = "the waking CPU: at most one thread more and running worse priority"
	case PickCPUIdle2008:
		what = "previous CPU idle"
	case PickCPUAffine2008:
		what = "previous CPU cache-affine and running worse priority"
	case PickCPULocal2008:
		what = "the waking CPU, running worse priority"
	default:
		what = "PickCPURule(?)"
	}
	return fmt.Sprintf("cpu%d: %s (was cpu%d, pri %d)", r.CPU, what, r.Prev, r.Pri)
}

// affine reports SCHED_AFFINITY(ts, level): whether t ran within level*affinity ticks. Main
// writes it as (u_int)ticks - ts_rltick < level*affinity; legacy as ts_rltick > ticks -
// level*affinity in int.
func affine(p *Params, t *Thread, ticks uint32, level int) bool {
	span := level * p.AffinityTicks()
	if p.Version.split() {
		return int32(t.RLTick) > int32(ticks)-int32(span)
	}
	return ticks-t.RLTick < uint32(span)
}

// PickCPU chooses the CPU a thread t is queued on when self (the CPU running sched_add) adds
// it at tick ticks with flags: sched_pickcpu. intr says the wake-up comes from interrupt context
// (td_intr_nesting_level). The steps, in order:
//
//  1. SRQOurself or a pinned thread: t.CPU.
//  2. An interrupt thread (priority <= PRI_MAX_ITHD) woken from an interrupt, allowed on self:
//     self if it idles; otherwise the search below starts at self's group with self preferred.
//  3. Affinity: if t may run on t.CPU, that CPU idles (LowPri >= PRI_MIN_IDLE; all SMT
//     siblings too when its leaf is an SMT group) and t ran there within 2*affinity ticks
//     (SCHED_AFFINITY at CG_SHARE_L2): t.CPU.
//  4. The cache group: walking up from the starting leaf, the highest group that is not an SMT
//     group, has more than one CPU, shares a cache (cg_level != CG_SHARE_NONE) and is still
//     cache-affine (SCHED_AFFINITY at its level; always for interrupt threads). The root counts
//     as no group.
//  5. Searches (Lowest), stopping at the first that finds a CPU, all over t's affinity set with
//     t.CPU preferred: in the cache group, a CPU running worse than t (interrupt threads) or an
//     idle CPU (max(pri, PRI_MAX_TIMESHARE), others); then globally a CPU running worse than t;
//     then globally the least loaded CPU.
//  6. If t may run on self, self runs worse than t, the chosen CPU does not idle and
//     self's load <= the chosen CPU's load + 1: self.
//
// With Params.SMP = SMP2008 the steps are those of 2008 instead (see pickCPU2008 in
// smp2008.go): the previous CPU if it idles or is cache-affine and runs worse priority, then the
// lowest cache-affine group, then the machine, by the 2008 searches, and no random tie-break.
//
// PickCPU reads s.Loads and t and draws from rnd (self's generator); it changes nothing else.
// It panics if t may run on no CPU of the machine. The complexity is that of the searches:
// O(CPUs and groups of the cache group), and of the whole machine when that finds nothing.
func (s *System) PickCPU(t *Thread, self topology.CPU, ticks uint32, flags AddFlags, intr bool, rnd *Rand) (topology.CPU, PickCPUReason) {
	return s.pickCPU(t, self, ticks, flags, intr, rnd, nil)
}

// pickCPU is PickCPU; its searches read ix when it is not nil (see loadIndex).
func (s *System) pickCPU(t *Thread, self topology.CPU, ticks uint32, flags AddFlags, intr bool, rnd *Rand, ix *loadIndex) (topology.CPU, PickCPUReason) {
	if s.Params.SMP == SMP2008 {
		return s.pickCPU2008(t, self, ticks, flags, intr)
	}
	r := PickCPUReason{Prev: t.CPU, Pri: t.Priority}
	if flags&SRQOurself != 0 || !t.CanMigrate() {
		r.Rule, r.CPU = PickCPUStay, t.CPU
		return t.CPU, r
	}
	l := s.Params.Version.layout()
	prev := t.CPU
	if intr && t.Priority <= l.MaxIthd && t.CanRunOn(self) {
		if s.Loads[self].LowPri >= PriMinIdle {
			r.Rule, r.CPU = PickCPUIntrIdle, self
			return self, r
		}
		prev = self // the search starts at self's group and prefers self
	} else {
		intr = false
	}
	if int(prev) >= len(s.walks) || !s.walks[prev].ok {
		s.noWalk(prev)
	}
	w := &s.walks[prev] // tdq_cg's walk
	if !intr && t.CanRunOn(prev) && s.Loads[prev].LowPri >= PriMinIdle && affine(&s.Params, t, ticks, int(topology.ShareL2)) {
		// With an SMT leaf (CG_FLAG_THREAD), all its threads must idle.
		idle := true
		for _, c := range w.smt {
			if s.loads[c&(topology.MaxCPUs-1)].LowPri < PriMinIdle {
				idle = false
				break
			}
		}
		if idle {
			r.Rule, r.CPU = PickCPUAffinity, prev
			return prev, r
		}
	}
	// The walk up from the leaf to the last cache group still affine: w.steps holds the groups
	// that the walk's tests of the topology alone let through, so only SCHED_AFFINITY is left.
	var llc *topology.Group
	for i := range w.steps {
		if st := &w.steps[i]; intr || affine(&s.Params, t, ticks, int(st.share)) {
			llc = st.g
		}
	}
	if llc == s.Topology.Root() {
		llc = nil
	}
	r.LLC = llc
	mask := s.affinityBits(t)
	pri := int(t.Priority)
	running := t.State == Running
	cpu, ok := topology.CPU(0), false
	switch {
	case llc != nil && intr:
		cpu, ok = s.lowest(llc, mask, pri, math32Max, prev, running, rnd, ix)
		r.Rule = PickCPUIntrLLC
	case llc != nil:
		cpu, ok = s.lowest(llc, mask, max(pri, int(l.MaxTimeshare)), math32Max, prev, running, rnd, ix)
		r.Rule = PickCPULLCIdle
	}
	if !ok {
		cpu, ok = s.lowest(s.Topology.Root(), mask, pri, math32Max, prev, running, rnd, ix)
		r.Rule = PickCPULowerPri
	}
	if !ok {
		cpu, ok = s.lowest(s.Topology.Root(), mask, -1, math32Max, prev, running, rnd, ix)
		r.Rule = PickCPULeastLoaded
	}
	if !ok {
		panic("ule: PickCPU: the thread may run on no CPU of the machine")
	}
	if t.CanRunOn(self) && s.Loads[self].LowPri > t.Priority && s.Loads[cpu].LowPri < PriMinIdle &&
		s.Loads[self].Load <= s.Loads[cpu].Load+1 {
		cpu = self
		r.Rule = PickCPULocal
	}
	r.CPU = cpu
	return cpu, r
}

const math32Max = 1<<31 - 1 // INT_MAX

// A pickWalk is what sched_pickcpu reads of the topology from one CPU's leaf group (tdq_cg),
// computed once per machine (pickWalks): the leaf's CPUs if it is an SMT group, whose threads
// must all idle for the affinity step, and the steps of its search for the last-level cache
// group.
type pickWalk struct {
	smt []topology.CPU
	// steps are the groups from the leaf up to the root that pass the walk's tests of the
	// topology (not CG_FLAG_THREAD, more than one child and more than one CPU, a cg_level
	// other than CG_SHARE_NONE), in order; the walk keeps the last of them that is still
	// cache-affine (SCHED_AFFINITY at its level), or any for an interrupt thread. A walk whose
	// only step is the root is empty: the root, chosen or not, means no cache group.
	steps []pickStep
	ok    bool // the CPU is in the machine
}

// A pickStep is a group the walk may choose and its cg_level.
type pickStep struct {
	g     *topology.Group
	share int
}

// pickWalks returns the pickWalk of every CPU id of top (ok false for ids top lacks).
func pickWalks(top *topology.Topology) []pickWalk {
	ws := make([]pickWalk, top.NumIDs())
	for c := range top.CPUs().All() {
		w := &ws[c]
		w.ok = true
		leaf := top.Leaf(c)
		if leaf.Flags()&topology.FlagThread != 0 {
			for x := range leaf.CPUs().All() {
				w.smt = append(w.smt, x)
			}
		}
		for g := leaf; g != nil; g = g.Parent() {
			if g.Flags()&topology.FlagThread != 0 || len(g.Children()) == 1 || g.Count() == 1 || g.Share() == topology.ShareNone {
				continue
			}
			w.steps = append(w.steps, pickStep{g: g, share: int(g.Share())})
		}
		if len(w.steps) == 1 && w.steps[0].g == top.Root() {
			w.steps = nil
		}
	}
	return ws
}

// noWalk panics, as Topology.Leaf does, for a CPU c that has no pickWalk: one the machine lacks.
func (s *System) noWalk(c topology.CPU) {
	s.Topology.Leaf(c) // panics: c is not a CPU of the machine
	panic("ule: internal error: no pickWalk for a CPU of the machine")
}
