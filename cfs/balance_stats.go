// This file holds what v6.5's load balancer reads and the statistics it gathers per group: the
// idle, group and migration types, a CPU's figures (smp.CPUStat), a balance's environment (LBEnv),
// update_sg_lb_stats (updateSGLBStats) and group_classify (groupClassify), which only the
// package's balancer calls: a balance's statistics are read through [BusiestGroup.Explain]
// and the group figures a recording System keeps.

package cfs

import (
	"fmt"

	"github.com/schedkit/schedkit/cfs/internal/flatbalance"
	"github.com/schedkit/schedkit/cfs/internal/groupsums"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A groupType classifies a sched group at the moment of load balancing (enum group_type), in
// increasing order of how much it needs to shed load, so that the busiest group is the one
// with the largest type. group_asym_packing is left out: SD_ASYM_PACKING is not modelled.
// group_smt_balance (v6.6) is left out: the balancer follows v6.5.
type groupType uint8

const (
	// groupHasSpare is group_has_spare: fewer tasks than CPUs, or utilisation clearly below
	// capacity.
	groupHasSpare groupType = iota
	// groupFullyBusy is group_fully_busy: the CPUs are used, the tasks do not compete.
	groupFullyBusy
	// groupMisfitTask is group_misfit_task: a task does not fit its CPU's capacity.
	groupMisfitTask
	// groupImbalanced is group_imbalanced: affinity kept a lower level from balancing.
	groupImbalanced
	// groupOverloaded is group_overloaded: more tasks than CPUs, and utilisation or runnable
	// time beyond capacity by imbalance_pct.
	groupOverloaded
)

var groupTypeNames = [...]string{
	groupHasSpare:   "has_spare",
	groupFullyBusy:  "fully_busy",
	groupMisfitTask: "misfit_task",
	groupImbalanced: "imbalanced",
	groupOverloaded: "overloaded",
}

// String returns the kernel's name without the prefix, such as "has_spare".
func (g groupType) String() string { return sched.EnumName(groupTypeNames[:], g, "GroupType") }

// groupStats are a group's statistics for load balancing: struct sg_lb_stats.
type groupStats struct {
	AvgLoad        uint64 // avg_load: GroupLoad*1024/GroupCapacity, when computed
	GroupLoad      uint64 // group_load: sum of cpu_load
	GroupCapacity  uint64 // group_capacity
	GroupUtil      uint64 // group_util: sum of cpu_util_cfs
	GroupRunnable  uint64 // group_runnable: sum of cpu_runnable
	SumNrRunning   uint32 // sum_nr_running: sum of nr_running
	SumHNrRunning  uint32 // sum_h_nr_running: sum of cfs.h_nr_running
	IdleCPUs       uint32 // idle_cpus
	GroupWeight    uint32 // group_weight: number of CPUs
	Type           groupType
	MisfitTaskLoad uint64 // group_misfit_task_load
}

// String summarises the statistics, such as "overloaded: 5 tasks on 2 CPUs, load 5120, avg 2560".
func (s groupStats) String() string {
	str := fmt.Sprintf("%v: %d tasks on %d CPUs (%d idle), load %d, util %d", s.Type, s.SumNrRunning, s.GroupWeight, s.IdleCPUs, s.GroupLoad, s.GroupUtil)
	if s.AvgLoad != 0 {
		str += fmt.Sprintf(", avg_load %d", s.AvgLoad)
	}
	if s.MisfitTaskLoad != 0 {
		str += fmt.Sprintf(", misfit %d", s.MisfitTaskLoad)
	}
	return str
}

// An LBEnv is the state one load-balancing decision at one domain reads: the part of struct
// lb_env and struct sched_domain state the decisions read. The tunables are not part of it:
// every balancing decision takes them as its last argument, p *[smp.Params]. Decisions never
// modify either.
type LBEnv struct {
	// SD is the domain being balanced; DstCPU the CPU that pulls (this_cpu).
	SD     *SchedDomain
	DstCPU topology.CPU
	// Idle is the state DstCPU balances in.
	Idle smp.IdleType
	// CPUs are the CPUs still considered (env->cpus): the domain's span minus busiest CPUs
	// found all pinned earlier in the same pass.
	CPUs topology.CPUSet
	// Stats holds every CPU's statistics, indexed by CPU id.
	Stats []smp.CPUStat
	// GroupImbalance holds each group's sgc->imbalance flag, indexed by [BalanceGroup.ID]; nil
	// means none is set.
	GroupImbalance []bool
	// NrBalanceFailed is SD's nr_balance_failed.
	NrBalanceFailed int
	// MaxCapacity is rd->max_cpu_capacity.
	MaxCapacity uint64

	flat *flatbalance.Index // a System's index of the CPUs with two tasks or more, or nil
	sums *groupsums.Index   // a System's sums of each group of several CPUs, or nil
}

// fitsCapacity is fits_capacity: cap*1280 < max*1024, a 20% margin.
func fitsCapacity(c, m uint64) bool { return c*1280 < m*1024 }

// capacityGreater is capacity_greater: cap1 exceeds cap2 by more than about 5%.
func capacityGreater(c1, c2 uint64) bool { return c1*1024 > c2*1078 }

// checkCPUCapacity is check_cpu_capacity: the CPU lost more than imbalance_pct of its capacity
// to other classes.
func checkCPUCapacity(s *smp.CPUStat, pct uint64) bool { return s.Capacity*pct < s.CapacityOrig*100 }

// groupHasCapacity is group_has_capacity.
func groupHasCapacity(pct uint64, s *groupStats) bool {
	if s.SumNrRunning < s.GroupWeight {
		return true
	}
	if s.GroupCapacity*pct < s.GroupRunnable*100 {
		return false
	}
	return s.GroupCapacity*100 > s.GroupUtil*pct
}

// groupIsOverloaded is group_is_overloaded.
func groupIsOverloaded(pct uint64, s *groupStats) bool {
	if s.SumNrRunning <= s.GroupWeight {
		return false
	}
	if s.GroupCapacity*100 < s.GroupUtil*pct {
		return true
	}
	return s.GroupCapacity*pct < s.GroupRunnable*100
}

// groupClassify returns the type of a group with statistics s in a domain with imbalance_pct
// pct whose sgc->imbalance flag is imbalanced: group_classify. Rules, in order: more tasks than
// CPUs and utilisation or runnable time beyond capacity by pct is overloaded; a set imbalance
// flag is imbalanced; a misfit load is misfit_task; no spare capacity (at least as many tasks
// as CPUs and utilisation or runnable time near capacity) is fully_busy; anything else has
// spare capacity.
func groupClassify(pct uint64, imbalanced bool, s *groupStats) groupType {
	switch {
	case groupIsOverloaded(pct, s):
		return groupOverloaded
	case imbalanced:
		return groupImbalanced
	case s.MisfitTaskLoad != 0:
		return groupMisfitTask
	case !groupHasCapacity(pct, s):
		return groupFullyBusy
	}
	return groupHasSpare
}

// updateSGLBStats returns the statistics of group g for a balance described by env, local saying
// whether g is the group of env.DstCPU: update_sg_lb_stats. overload reports whether a CPU of
// the group has more than one task (SG_OVERLOAD). The complexity is O(CPUs of g).
func updateSGLBStats(env *LBEnv, g *BalanceGroup, local bool, p *smp.Params) (s groupStats, overload bool) {
	sd := env.SD
	pct := sd.imbalancePct()
	overload = groupLBStats(env, g, local, pct, sd.flags&topology.SDAsymCPUCapacity != 0, &s)
	classifyGroupStats(env, g, pct, &s)
	return s, overload
}

// groupLBStats is the summing part of [updateSGLBStats] for [FindBusiestGroup]'s loop: it fills
// the zeroed *s in place (the statistics are ten words, and copying them out of a call per
// group was much of the cost of a balance over many small groups) with the domain's
// imbalance_pct and SD_ASYM_CPUCAPACITY flag read once per domain, and returns overload. The
// type and avg_load are left to [classifyGroupStats].
func groupLBStats(env *LBEnv, g *BalanceGroup, local bool, pct uint64, asym bool, s *groupStats) (overload bool) {
	stats := env.Stats
	for _, c := range g.list {
		if !env.CPUs.Has(c) {
			continue
		}
		rq := &stats[c]
		s.GroupLoad += rq.Load
		s.GroupUtil += rq.Util
		s.GroupRunnable += rq.Runnable
		s.SumHNrRunning += rq.HNrRunning
		nr := rq.NrRunning
		s.SumNrRunning += nr
		if nr > 1 {
			overload = true
		}
		if nr == 0 {
			s.IdleCPUs++
			continue
		}
		if local {
			continue
		}
		if asym {
			if s.MisfitTaskLoad < rq.MisfitLoad {
				s.MisfitTaskLoad = rq.MisfitLoad
				overload = true
			}
		} else if env.Idle != smp.CPUNotIdle && rq.HNrRunning == 1 && checkCPUCapacity(rq, pct) {
			s.MisfitTaskLoad = max(s.MisfitTaskLoad, rq.Load)
		}
	}
	s.GroupCapacity = g.capacity
	s.GroupWeight = uint32(len(g.list))
	return overload
}

// summedLBStats is [groupLBStats] read from a System's sums of group g (package groupsums):
// the same figures, without visiting the group's CPUs, for a balance that considers every CPU
// of a machine of one capacity, where no CPU carries a misfit load. It returns overload.
func summedLBStats(sum *groupsums.Sum, g *BalanceGroup, s *groupStats) (overload bool) {
	s.GroupLoad, s.GroupUtil, s.GroupRunnable = sum.Load, sum.Util, sum.Runnable
	s.SumNrRunning, s.SumHNrRunning, s.IdleCPUs = sum.NrRunning, sum.HNrRunning, sum.Idle
	s.GroupCapacity = g.capacity
	s.GroupWeight = uint32(len(g.list))
	return sum.Multi != 0
}

// classifyGroupStats ends update_sg_lb_stats for group g whose sums *s holds: group_classify,
// and avg_load for an overloaded group.
func classifyGroupStats(env *LBEnv, g *BalanceGroup, pct uint64, s *groupStats) {
	imb := env.GroupImbalance != nil && env.GroupImbalance[g.id]
	s.Type = groupClassify(pct, imb, s)
	if s.Type == groupOverloaded {
		s.AvgLoad = s.GroupLoad * topology.CapacityScale / s.GroupCapacity
	}
}
