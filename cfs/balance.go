// This file implements the choice of the busiest group of v6.5's load balancer as pure
// functions: update_sd_pick_busiest, update_sd_lb_stats, find_busiest_group and
// calculate_imbalance (its statistics per group are in balance_stats.go).

package cfs

import (
	"fmt"
	"math"

	"github.com/schedkit/schedkit/cfs/internal/flatbalance"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A BalanceReason says why [FindBusiestGroup] found the domain balanced, or why it forced a
// balance.
type BalanceReason uint8

const (
	// balanceNoBusiest: no group other than the local one has a fair task to pull.
	balanceNoBusiest BalanceReason = iota
	// balanceLocalBusier: the local group's type is above the busiest group's.
	balanceLocalBusier
	// balanceLocalAvgAbove: both are overloaded and the local group's avg_load is not below
	// the busiest group's, or not below the domain's average.
	balanceLocalAvgAbove
	// balanceWithinPct: both are overloaded and the busiest group's avg_load exceeds the
	// local one's by no more than imbalance_pct.
	balanceWithinPct
	// balanceDstBusy: the busiest group is not overloaded and the pulling CPU is busy; idle
	// CPUs will pull.
	balanceDstBusy
	// balanceIdleCPUs: the busiest group is not overloaded and has at most one idle CPU fewer
	// than the local group.
	balanceIdleCPUs
	// balanceSingleTask: the busiest group is not overloaded and runs a single task.
	balanceSingleTask
	// balanceZeroImbalance: calculate_imbalance found nothing to move.
	balanceZeroImbalance
	// forceMisfit: the busiest group has a misfit task.
	forceMisfit
	// forceImbalanced: the busiest group is imbalanced by affinity below.
	forceImbalanced
	// forcePreferSibling: the busiest group's child prefers its siblings and it has at least
	// two more tasks than the local group, which has spare capacity.
	forcePreferSibling
	// forceImbalance: the groups differ enough for calculate_imbalance to run.
	forceImbalance
	// balanceNoOverloaded: on a flat domain balanced by a System, no remote CPU with two tasks
	// or more is overloaded, so every candidate is found balanced (see [FindBusiestGroup]).
	balanceNoOverloaded
)

var balanceReasons = [...]string{
	balanceNoBusiest:     "no busier group with fair tasks",
	balanceLocalBusier:   "local group busier than the busiest",
	balanceLocalAvgAbove: "local avg_load not below the busiest's or the domain's",
	balanceWithinPct:     "busiest avg_load within imbalance_pct of local",
	balanceDstBusy:       "busiest not overloaded and this CPU is busy: let idle CPUs pull",
	balanceIdleCPUs:      "busiest not overloaded and idle CPUs differ by at most one",
	balanceSingleTask:    "busiest not overloaded and runs a single task",
	balanceZeroImbalance: "computed imbalance is zero",
	forceMisfit:          "busiest group has a misfit task",
	forceImbalanced:      "busiest group is imbalanced by affinity",
	forcePreferSibling:   "child prefers siblings and busiest has 2+ more tasks",
	forceImbalance:       "groups out of balance",
	balanceNoOverloaded:  "no remote CPU with two tasks or more is overloaded (flat domain)",
}

// String explains the reason in a few words.
func (r BalanceReason) String() string { return sched.EnumName(balanceReasons[:], r, "BalanceReason") }

// A BusiestGroup is the outcome of [FindBusiestGroup]: the busiest group if the domain is out of
// balance, with the statistics and the kind and amount of imbalance. Why is not part of it:
// [FindBusiestGroup] returns it beside the group, as a [BalanceReason].
type BusiestGroup struct {
	// domain and dst are the domain and CPU of the balance.
	domain *SchedDomain
	dst    topology.CPU
	// Group is the busiest group, or nil when the domain is balanced.
	Group *BalanceGroup
	// candidate is the group update_sd_pick_busiest chose, even when the domain was found
	// balanced; nil if there was none.
	candidate *BalanceGroup
	// local is the group of dst (the last one holding dst, as the kernel's loop leaves it).
	local *BalanceGroup
	// localStats and busiestStats are their statistics.
	localStats, busiestStats groupStats
	// domainAvgLoad is the domain's average load, when it was computed.
	domainAvgLoad uint64
	// Migration and Imbalance say what to move and how much (env->migration_type,
	// env->imbalance).
	Migration smp.MigrationType
	Imbalance int64
	// overload reports whether some CPU of the domain has more than one task (SG_OVERLOAD).
	overload bool
	// sumUtil is the utilisation summed over the domain, for update_idle_cpu_scan.
	sumUtil uint64
}

// Explain explains the decision, made for reason r (the reason [FindBusiestGroup] returned with
// it), such as "MC{0-5} from cpu0: busiest group {2-3} (overloaded: …) local {0-1} (has_spare:
// …): migrate_util 2048: groups out of balance".
func (d BusiestGroup) Explain(r BalanceReason) string {
	name := "?"
	if d.domain != nil {
		name = d.domain.Name() + "{" + d.domain.span.String() + "}"
	}
	if d.Group == nil {
		s := fmt.Sprintf("%s from %v: balanced: %v", name, d.dst, r)
		if d.candidate != nil {
			s += fmt.Sprintf(" (busiest candidate %v: %v; local %v: %v)", d.candidate, d.busiestStats, d.local, d.localStats)
		}
		return s
	}
	return fmt.Sprintf("%s from %v: busiest group %v (%v), local %v (%v): %v %d, because %v",
		name, d.dst, d.Group, d.busiestStats, d.local, d.localStats, d.Migration, d.Imbalance, r)
}

// pickBusiest is update_sd_pick_busiest: whether group g with statistics s is busier than the
// busiest so far (cur, with statistics d.BusiestStats).
func pickBusiest(env *LBEnv, d *BusiestGroup, cur *BalanceGroup, g *BalanceGroup, s *groupStats) bool {
	b := &d.busiestStats
	if s.SumHNrRunning == 0 {
		return false
	}
	asym := env.SD.flags&topology.SDAsymCPUCapacity != 0
	dstCap := env.Stats[env.DstCPU].Capacity
	if asym && s.Type == groupMisfitTask &&
		(!capacityGreater(dstCap, g.maxCap) || d.localStats.Type != groupHasSpare) {
		return false
	}
	if s.Type > b.Type {
		return true
	}
	if s.Type < b.Type {
		return false
	}
	switch s.Type {
	case groupOverloaded:
		if s.AvgLoad <= b.AvgLoad {
			return false
		}
	case groupImbalanced:
		return false
	case groupMisfitTask:
		if s.MisfitTaskLoad < b.MisfitTaskLoad {
			return false
		}
	case groupFullyBusy:
		if s.AvgLoad < b.AvgLoad {
			return false
		}
		if s.AvgLoad == b.AvgLoad && cur != nil && cur.flags&topology.SDShareCPUCapacity != 0 {
			return false
		}
	case groupHasSpare:
		if s.IdleCPUs > b.IdleCPUs {
			return false
		}
		if s.IdleCPUs == b.IdleCPUs && s.SumNrRunning <= b.SumNrRunning {
			return false
		}
	}
	if asym && s.Type <= groupFullyBusy && capacityGreater(g.minCap, dstCap) {
		return false
	}
	return true
}

// numaImbalanceMin is NUMA_IMBALANCE_MIN.
const numaImbalanceMin = 2

// adjustNumaImbalance returns the imbalance a NUMA domain acts on: adjust_numa_imbalance. While
// the destination would run at most imbNumaNr tasks, an imbalance of up to two tasks is
// tolerated (returned as 0), so that a pair of communicating tasks may stay on one node. The
// arguments are C ints, as in the kernel.
func adjustNumaImbalance(imbalance, dstRunning, imbNumaNr int32) int32 {
	if dstRunning > imbNumaNr {
		return imbalance
	}
	if imbalance <= numaImbalanceMin {
		return 0
	}
	return imbalance
}

// calculateImbalance is calculate_imbalance: it sets d.Migration and d.Imbalance.
func calculateImbalance(env *LBEnv, d *BusiestGroup, totalLoad, totalCap uint64, preferSibling bool) {
	local, busiest := &d.localStats, &d.busiestStats
	sd := env.SD
	switch busiest.Type {
	case groupMisfitTask:
		if sd.flags&topology.SDAsymCPUCapacity != 0 {
			d.Migration, d.Imbalance = smp.MigrateMisfit, 1
		} else {
			d.Migration, d.Imbalance = smp.MigrateLoad, int64(busiest.MisfitTaskLoad)
		}
		return
	case groupImbalanced:
		d.Migration, d.Imbalance = smp.MigrateTask, 1
		return
	}
	if local.Type == groupHasSpare {
		if busiest.Type > groupFullyBusy && sd.flags&topology.SDShareLLC == 0 {
			d.Migration = smp.MigrateUtil
			d.Imbalance = int64(max(local.GroupCapacity, local.GroupUtil) - local.GroupUtil)
			if env.Idle != smp.CPUNotIdle && d.Imbalance == 0 {
				d.Migration, d.Imbalance = smp.MigrateTask, 1
			}
			return
		}
		d.Migration = smp.MigrateTask
		if busiest.GroupWeight == 1 || preferSibling {
			nrDiff := busiest.SumNrRunning
			if nrDiff > local.SumNrRunning { // lsub_positive
				nrDiff -= local.SumNrRunning
			} else {
				nrDiff = 0
			}
			d.Imbalance = int64(nrDiff)
		} else {
			// max_t(long, 0, unsigned difference): a negative difference wraps to a large
			// positive value, as in the kernel.
			d.Imbalance = int64(local.IdleCPUs - busiest.IdleCPUs)
		}
		if sd.flags&topology.SDNUMA != 0 {
			d.Imbalance = int64(adjustNumaImbalance(int32(d.Imbalance), int32(local.SumNrRunning+1), int32(sd.imbNumaNr)))
		}
		d.Imbalance >>= 1
		return
	}
	if local.Type < groupOverloaded {
		local.AvgLoad = local.GroupLoad * topology.CapacityScale / local.GroupCapacity
		if local.AvgLoad >= busiest.AvgLoad {
			d.Imbalance = 0
			return
		}
		d.domainAvgLoad = totalLoad * topology.CapacityScale / totalCap
		if local.AvgLoad >= d.domainAvgLoad {
			d.Imbalance = 0
			return
		}
	}
	d.Migration = smp.MigrateLoad
	d.Imbalance = int64(min((busiest.AvgLoad-d.domainAvgLoad)*busiest.GroupCapacity,
		(d.domainAvgLoad-local.AvgLoad)*local.GroupCapacity) / topology.CapacityScale)
}

// updateSDLBStats is update_sd_lb_stats for [FindBusiestGroup]: it visits every group of env.SD,
// sets d's local group, busiest candidate (update_sd_pick_busiest) with their statistics,
// overload flag and summed utilisation, and returns the domain's summed load and capacity. It
// computes what calling [updateSGLBStats] and update_sd_pick_busiest on every group computes
// (the test's model does exactly that), skipping the work whose result cannot matter.
func updateSDLBStats(env *LBEnv, d *BusiestGroup) (totalLoad, totalCap uint64) {
	sd := env.SD
	d.busiestStats = groupStats{IdleCPUs: math.MaxUint32, Type: groupHasSpare}
	var busiest *BalanceGroup
	pct := sd.imbalancePct()
	asym := sd.flags&topology.SDAsymCPUCapacity != 0
	var s groupStats
	// A System's sums of the groups of several CPUs stand for the visit of their CPUs when the
	// balance considers every CPU of the domain (package groupsums gives the rule).
	sums := env.sums
	if sums != nil && (asym || env.CPUs != sd.span) {
		sums = nil
	}
	for _, g := range sd.groups {
		local := g.cpus.Has(env.DstCPU)
		if !local && len(g.list) == 1 {
			// A remote group of one CPU that update_sd_pick_busiest cannot take: the CPU is
			// left out of env.CPUs; or it has no fair task (the first test); or the busiest
			// group so far is overloaded and this one is not (a lower type loses: with at
			// most one task it cannot be, as that needs more tasks than CPUs) or is with an
			// avg_load no larger. Only its sums count, and its overload flag: with one task
			// only an asymmetric misfit sets it, and that goes the long way; with more, the
			// overloaded busiest group has set it already (more tasks than CPUs put two on one
			// CPU). This is the common group on a machine without SMT, where a balance visits
			// one group per CPU.
			c := g.list[0]
			if !env.CPUs.Has(c) {
				totalCap += g.capacity
				continue
			}
			rq := &env.Stats[c]
			skip := false
			if nr := rq.NrRunning; nr <= 1 {
				skip = (rq.HNrRunning == 0 || d.busiestStats.Type == groupOverloaded) &&
					!(asym && nr == 1 && rq.MisfitLoad != 0)
			} else if d.busiestStats.Type == groupOverloaded {
				// group_is_overloaded and avg_load of a group whose sums are this CPU's.
				gc := g.capacity
				over := gc*100 < rq.Util*pct || gc*pct < rq.Runnable*100
				skip = !over || rq.Load*topology.CapacityScale/gc <= d.busiestStats.AvgLoad
			}
			if skip {
				totalLoad += rq.Load
				totalCap += g.capacity
				d.sumUtil += rq.Util
				continue
			}
		}
		s = groupStats{}
		if sums != nil && len(g.list) > 1 {
			if summedLBStats(sums.Sum(g.id), g, &s) {
				d.overload = true
			}
		} else if groupLBStats(env, g, local, pct, asym, &s) {
			d.overload = true
		}
		if local {
			classifyGroupStats(env, g, pct, &s)
			d.local, d.localStats = g, s
		} else if s.SumHNrRunning != 0 {
			// pickBusiest rejects a group without fair tasks before it reads the type.
			classifyGroupStats(env, g, pct, &s)
			if pickBusiest(env, d, busiest, g, &s) {
				busiest, d.busiestStats = g, s
			}
		}
		totalLoad += s.GroupLoad
		totalCap += s.GroupCapacity
		d.sumUtil += s.GroupUtil
	}
	d.candidate = busiest
	return totalLoad, totalCap
}

// FindBusiestGroup returns the busiest group of env.SD as seen from env.DstCPU and the
// imbalance to resolve, or a balanced verdict: find_busiest_group with update_sd_lb_stats,
// update_sd_pick_busiest and calculate_imbalance of v6.5. Every group holding DstCPU counts as
// local (cpumask_test_cpu in update_sd_lb_stats), which is how the Wasted Cores group
// construction bug hides an imbalance. The decision follows the kernel's matrix: a misfit or
// imbalanced busiest group forces a balance; a local group of a higher type means balanced;
// two overloaded groups are compared by avg_load with imbalance_pct; a busiest group that is not
// overloaded is left to idle CPUs and needs two idle CPUs more on the local side; then
// calculate_imbalance says what to move: utilisation from an overloaded group into a local
// group with spare capacity across caches, tasks to even out idle CPUs or task counts (halved,
// with the NUMA allowance of adjust_numa_imbalance), or load towards the domain's average.
// FindBusiestGroup changes nothing; the BalanceReason says why the domain is balanced or why a
// balance was forced. The result also carries the domain's summed utilisation, for
// update_idle_cpu_scan, when that reads it: for a balance that is not newly idle of a CPU's LLC
// domain (0 otherwise). The complexity is O(CPUs of the domain).
//
// Two fast forms stand behind it, each chosen by one rule, and both only in a balance run by a
// [System], which keeps what they read in the LBEnv it passes; an LBEnv built by a caller has
// neither, and always takes the full visit.
//
// Groups of several CPUs on a machine of one capacity, in a balance that considers every CPU of
// the domain (env.CPUs equal to its span): the System keeps each such group's sums of its CPUs'
// statistics as they change (package cfs/internal/groupsums), and update_sg_lb_stats reads them
// in O(1) instead of visiting the group's CPUs. Every figure and the reason are the full
// visit's; a CPU of such a machine never carries a misfit load the sums would leave out.
//
// A flat domain (one group per CPU, all of one capacity): the System keeps the index of the
// CPUs with two tasks or more. The busiest group is then found among those CPUs (package
// cfs/internal/flatbalance), at a cost of O(CPUs with two tasks or more); the verdict is the full
// visit's, and so are, when a busiest group is found, every figure and the reason. A domain
// found balanced that way reports balanceNoOverloaded and no candidate: the candidate's and the
// local group's statistics are what only the full visit computes.
func FindBusiestGroup(env *LBEnv, p *smp.Params) (BusiestGroup, BalanceReason) {
	var d BusiestGroup
	why := findBusiestGroup(env, &d)
	return d, why
}

// findBusiestGroup is [FindBusiestGroup] filling *d, which it resets first: the System's
// balance keeps its BusiestGroup (two groupStats and more) in place rather than copying it out
// of the call.
func findBusiestGroup(env *LBEnv, d *BusiestGroup) BalanceReason {
	needUtil := env.Idle != smp.CPUNewlyIdle && env.SD.llc // update_idle_cpu_scan reads sum_util
	if env.flat != nil && env.SD.flat {
		if why, ok := findBusiestFlat(env, needUtil, d); ok {
			return why
		}
	}
	*d = BusiestGroup{domain: env.SD, dst: env.DstCPU}
	totalLoad, totalCap := updateSDLBStats(env, d)
	if !needUtil {
		d.sumUtil = 0
	}
	return findImbalance(env, d, totalLoad, totalCap)
}

// findImbalance is the part of find_busiest_group after update_sd_lb_stats: with d's local
// group and busiest candidate and their statistics gathered, it decides whether the domain is
// balanced and, if not, sets d.Group and calculate_imbalance's d.Migration and d.Imbalance. It
// reads totalLoad and totalCap, the domain's sums, only when the local group's type is not
// group_has_spare (to compute the domain's avg_load).
func findImbalance(env *LBEnv, d *BusiestGroup, totalLoad, totalCap uint64) BalanceReason {
	sd := env.SD
	busiest := d.candidate
	if busiest == nil {
		d.busiestStats = groupStats{}
		return balanceNoBusiest
	}
	preferSibling := busiest.flags&topology.SDPreferSibling != 0
	local, b := &d.localStats, &d.busiestStats
	force := func(r BalanceReason) BalanceReason {
		calculateImbalance(env, d, totalLoad, totalCap, preferSibling)
		if d.Imbalance == 0 {
			return balanceZeroImbalance
		}
		d.Group = busiest
		return r
	}
	balanced := func(r BalanceReason) BalanceReason {
		d.Imbalance = 0
		return r
	}
	switch b.Type {
	case groupMisfitTask:
		return force(forceMisfit)
	case groupImbalanced:
		return force(forceImbalanced)
	}
	if local.Type > b.Type {
		return balanced(balanceLocalBusier)
	}
	if local.Type == groupOverloaded {
		if local.AvgLoad >= b.AvgLoad {
			return balanced(balanceLocalAvgAbove)
		}
		d.domainAvgLoad = totalLoad * topology.CapacityScale / totalCap
		if local.AvgLoad >= d.domainAvgLoad {
			return balanced(balanceLocalAvgAbove)
		}
		if 100*b.AvgLoad <= sd.imbalancePct()*local.AvgLoad {
			return balanced(balanceWithinPct)
		}
	}
	if preferSibling && local.Type == groupHasSpare && b.SumNrRunning > local.SumNrRunning+1 {
		return force(forcePreferSibling)
	}
	if b.Type != groupOverloaded {
		if env.Idle == smp.CPUNotIdle {
			return balanced(balanceDstBusy)
		}
		if b.GroupWeight > 1 && local.IdleCPUs <= b.IdleCPUs+1 {
			return balanced(balanceIdleCPUs)
		}
		if b.SumHNrRunning == 1 {
			return balanced(balanceSingleTask)
		}
	}
	return force(forceImbalance)
}

// findBusiestFlat is find_busiest_group's fast form for a flat domain (SchedDomain.flat: one
// group per CPU, of one capacity) balanced by a System, whose index (env.flat) holds the CPUs
// with two tasks or more: package cfs/internal/flatbalance says why they are enough, and finds
// the busiest among them. It fills *d, which it resets first, as the full visit does when a
// busiest group is found, with the same figures and reason; for a balanced domain it sets
// d.Overload, and d.SumUtil when needUtil, and returns balanceNoOverloaded. It reports false
// when only the full visit can tell.
func findBusiestFlat(env *LBEnv, needUtil bool, d *BusiestGroup) (BalanceReason, bool) {
	sd := env.SD
	dst := env.DstCPU
	*d = BusiestGroup{domain: sd, dst: dst}
	stats := env.Stats
	pct := sd.imbalancePct()
	// The groups of a flat domain have one capacity (markFlat): the local group's.
	best, over, unsure := env.flat.Busiest(sd.spanBits, &env.CPUs, dst, sd.groups[0].capacity, pct, stats)
	d.overload = over
	if best < 0 {
		if unsure {
			return 0, false
		}
		if needUtil {
			d.sumUtil = flatbalance.SpanUtil(sd.spanBits, &env.CPUs, stats)
		}
		return balanceNoOverloaded, true
	}
	busiest := sd.cpuGroup[best]
	local := sd.groups[0]
	groupLBStats(env, local, true, pct, false, &d.localStats)
	classifyGroupStats(env, local, pct, &d.localStats)
	groupLBStats(env, busiest, false, pct, false, &d.busiestStats)
	classifyGroupStats(env, busiest, pct, &d.busiestStats)
	d.local, d.candidate = local, busiest
	var totalLoad, totalCap uint64
	if needUtil || d.localStats.Type != groupHasSpare {
		for _, g := range sd.groups {
			if c := g.first; env.CPUs.Has(c) {
				totalLoad += stats[c].Load
				d.sumUtil += stats[c].Util
			}
			totalCap += g.capacity
		}
		if !needUtil {
			d.sumUtil = 0
		}
	}
	return findImbalance(env, d, totalLoad, totalCap), true
}
