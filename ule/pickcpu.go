// This file implements PickCPU, the choice of a CPU for a thread being queued (sched_pickcpu).

package ule

import (
	"fmt"
	"math"

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

var pickCPURules = []string{PickCPUStay: "stays (requeued by itself or pinned)",
	PickCPUIntrIdle:    "interrupt thread on the interrupted idle CPU",
	PickCPUAffinity:    "previous CPU idle and cache-affine",
	PickCPUIntrLLC:     "interrupt thread, least loaded in %[1]v",
	PickCPULLCIdle:     "idle in %[1]v",
	PickCPULowerPri:    "least loaded CPU running worse priority",
	PickCPULeastLoaded: "least loaded CPU",
	PickCPULocal:       "the waking CPU: at most one thread more and running worse priority",
	PickCPUIdle2008:    "previous CPU idle",
	PickCPUAffine2008:  "previous CPU cache-affine and running worse priority",
	PickCPULocal2008:   "the waking CPU, running worse priority"}

// String formats the reason, such as "cpu3: idle in llc{0-5} (was cpu1, pri 140)".
func (r PickCPUReason) String() string {
	what := explain(pickCPURules, r.Rule, "PickCPURule", r.LLC)
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
//     group, has more than one child and more than one CPU, shares a cache (cg_level !=
//     CG_SHARE_NONE) and is still cache-affine (SCHED_AFFINITY at its level; always for
//     interrupt threads). The root counts as no group.
//  5. Searches (Lowest), stopping at the first that finds a CPU, all over t's affinity set with
//     t.CPU preferred: in the cache group, a CPU running worse than t (interrupt threads) or an
//     idle CPU (max(pri, PRI_MAX_TIMESHARE), others); then globally a CPU running worse than t;
//     then globally the least loaded CPU.
//  6. If t may run on self, self runs worse than t, the chosen CPU does not idle and
//     self's load <= the chosen CPU's load + 1: self.
//
// With Params.SMP = SMP2008 the steps after the first are those of 2008 (pickCPU2008 in smp2008.go).
//
// PickCPU reads the CPUs' loads and t and draws from rnd (self's generator); it changes nothing
// else. It panics if t may run on no CPU of the machine. The complexity is that of the searches:
// O(CPUs and groups of the cache group), and of the whole machine when that finds nothing.
func (s *System) PickCPU(t *Thread, self topology.CPU, ticks uint32, flags AddFlags, intr bool, rnd *Rand) (topology.CPU, PickCPUReason) {
	r := PickCPUReason{Prev: t.CPU, Pri: t.Priority}
	// Don't migrate a running thread from sched_switch.
	if flags&SRQOurself != 0 || !t.CanMigrate() {
		r.Rule, r.CPU = PickCPUStay, t.CPU
		return t.CPU, r
	}
	if s.params.SMP == SMP2008 {
		return s.pickCPU2008(t, self, ticks, intr, r)
	}
	// Prefer to run interrupt threads on the CPU that took the interrupt.
	prev := t.CPU
	if intr && t.Priority <= s.params.Version.layout().MaxIthd && t.CanRunOn(self) {
		if s.loads[self].LowPri >= PriMinIdle {
			r.Rule, r.CPU = PickCPUIntrIdle, self
			return self, r
		}
		prev = self // the search starts at self's group and prefers self
	} else {
		intr = false
	}
	cg := s.top.Leaf(prev) // tdq_cg
	// If the thread can run on its last CPU, the affinity has not expired and the CPU (with its
	// SMT siblings) idles, run it there.
	if !intr && t.CanRunOn(prev) && s.loads[prev].LowPri >= PriMinIdle && affine(&s.params, t, ticks, int(topology.ShareL2)) && s.smtIdle(cg) {
		r.Rule, r.CPU = PickCPUAffinity, prev
		return prev, r
	}
	// Search for the last level cache group in the tree: skip SMT groups, groups identical to
	// their child and caches whose affinity has expired (an interrupt thread's never does). The
	// root, an LLC shared by all CPUs, means a global search.
	for ; cg != nil; cg = cg.Parent() {
		if cg.Flags()&topology.FlagThread != 0 || len(cg.Children()) == 1 || cg.Count() == 1 {
			continue
		}
		if cg.Share() == topology.ShareNone || (!intr && !affine(&s.params, t, ticks, int(cg.Share()))) {
			continue
		}
		r.LLC = cg
	}
	if r.LLC == s.top.Root() {
		r.LLC = nil
	}
	cpu := s.pickLowest(t, prev, r.LLC, intr, rnd, &r.Rule)
	// Compare the lowest loaded CPU to the current one.
	if t.CanRunOn(self) && s.loads[self].LowPri > t.Priority && s.loads[cpu].LowPri < PriMinIdle &&
		s.loads[self].Load <= s.loads[cpu].Load+1 {
		cpu = self
		r.Rule = PickCPULocal
	}
	r.CPU = cpu
	return cpu, r
}

// smtIdle reports whether every SMT thread of leaf cg idles, or cg is not an SMT group
// (CG_FLAG_THREAD).
func (s *System) smtIdle(cg *topology.Group) bool {
	if cg.Flags()&topology.FlagThread == 0 {
		return true
	}
	for c := cg.First(); c <= cg.Last(); c++ {
		if cg.Has(c) && s.loads[c].LowPri < PriMinIdle {
			return false
		}
	}
	return true
}

// pickLowest is sched_pickcpu's searches for thread t, preferring prev, in the cache group ccg
// first (when there is one) and then globally; it records which search found the CPU in rule.
func (s *System) pickLowest(t *Thread, prev topology.CPU, ccg *topology.Group, intr bool, rnd *Rand, rule *PickCPURule) topology.CPU {
	mask := &t.Affinity
	pri := int32(t.Priority)
	r := t.State == Running
	cpu, ok := topology.CPU(0), false
	switch {
	case ccg != nil && intr:
		// Try hard to keep interrupts within the LLC: its least loaded CPU running worse.
		cpu, ok = s.lowest(ccg, mask, pri, math.MaxInt32, prev, r, rnd)
		*rule = PickCPUIntrLLC
	case ccg != nil:
		// The least loaded idle CPU of the LLC.
		cpu, ok = s.lowest(ccg, mask, max(pri, int32(s.params.Version.layout().MaxTimeshare)), math.MaxInt32, prev, r, rnd)
		*rule = PickCPULLCIdle
	}
	if !ok {
		// Globally, the least loaded CPU running worse.
		cpu, ok = s.lowest(s.top.Root(), mask, pri, math.MaxInt32, prev, r, rnd)
		*rule = PickCPULowerPri
	}
	if !ok {
		// Globally, the least loaded CPU.
		cpu, ok = s.lowest(s.top.Root(), mask, -1, math.MaxInt32, prev, r, rnd)
		*rule = PickCPULeastLoaded
	}
	if !ok {
		panic("ule: PickCPU: the thread may run on no CPU of the machine")
	}
	return cpu
}
