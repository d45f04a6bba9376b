// This file records what the SMP decisions of a System compared — the CPUs a wake-up placement
// looked at and the groups a load balance weighed — for a reader who wants to see the figures
// behind select_task_rq_fair and find_busiest_group.

package cfs

import "github.com/schedkit/schedkit/topology"

// A Comparison is what one SMP decision of a [System] compared, as
// [System.RecordComparisons] keeps it: a wake-up placement (Placement set) or a load balance
// at one domain (Balance set).
type Comparison struct {
	// Placement is a placement's figures, nil for a balance.
	Placement *PlacementFigures `json:"placement,omitempty"`
	// Balance is a balance's figures, nil for a placement.
	Balance *BalanceFigures `json:"balance,omitempty"`
}

// PlacementFigures are the figures of one select_task_rq_fair: the task, the CPUs involved
// (the waker's, the task's previous one, the fast path's target, the one chosen), how it was
// chosen, and the CPUs it chose among with their statistics: the target's LLC, which
// select_idle_sibling scans, on the fast path; every CPU the task may run on, which
// find_idlest_cpu descends through, on the slow path (fork, exec).
type PlacementFigures struct {
	// Task names the task placed (its entity's Name).
	Task string `json:"task"`
	// From is the waker's (or the parent's) CPU, Prev the task's previous CPU, Target the
	// fast path's target and CPU the CPU chosen.
	From   int `json:"from"`
	Prev   int `json:"prev"`
	Target int `json:"target"`
	CPU    int `json:"cpu"`
	// Reason is the PlaceReason with wake_affine's domain and side (CPUSelection.Explain).
	Reason string `json:"reason"`
	// Scope says which CPUs are listed: "llc" (the fast path) or "allowed" (the slow path).
	Scope string `json:"scope"`
	// CPUs are the CPUs listed, in id order.
	CPUs []CPUFigures `json:"cpus"`
}

// CPUFigures are one CPU's statistics as the SMP decisions read them (a [CPUStat]), and
// whether it is idle (available_idle_cpu) or runs only SCHED_IDLE work (sched_idle_cpu).
type CPUFigures struct {
	// CPU is the CPU's id.
	CPU int `json:"cpu"`
	// NrRunning, HNrRunning, IdleTasks, Load, Util and Capacity are the CPUStat's NrRunning,
	// HNrRunning, IdleHNrRunning, Load, Util and Capacity.
	NrRunning  uint32 `json:"nr_running"`
	HNrRunning uint32 `json:"h_nr_running"`
	IdleTasks  uint32 `json:"idle_h_nr_running"`
	Load       uint64 `json:"load"`
	Util       uint64 `json:"util"`
	Capacity   uint64 `json:"capacity"`
	// Idle is CPUStat.idle, IdleOnly CPUStat.idleOnly.
	Idle     bool `json:"idle"`
	IdleOnly bool `json:"idle_only"`
}

// BalanceFigures are the figures of one find_busiest_group: the domain and the CPU that
// pulls, the idle state it balances in, every group of the domain with its sg_lb_stats (as
// [GroupLBStats] computes them), and the verdict: the reason, the busiest group if one was
// found, and calculate_imbalance's migration type and amount.
type BalanceFigures struct {
	// Domain is the domain's name (MC, PKG, …) and Span its CPUs.
	Domain string `json:"domain"`
	Span   string `json:"span"`
	// Dst is the CPU that pulls, Idle the IdleType it balances in.
	Dst  int    `json:"dst"`
	Idle string `json:"idle"`
	// Groups are the domain's groups in its order, the local one first.
	Groups []GroupFigures `json:"groups"`
	// Reason is the BalanceReason; Migration the migration type when a busiest group was
	// found ("" otherwise); Imbalance env->imbalance.
	Reason    string `json:"reason"`
	Migration string `json:"migration,omitempty"`
	Imbalance int64  `json:"imbalance"`
}

// GroupFigures are one group of a [BalanceFigures]: its CPUs, whether it is the local group
// (it holds the pulling CPU) or the busiest one found, and its statistics (struct
// sg_lb_stats).
type GroupFigures struct {
	// CPUs are the group's CPUs in ascending order.
	CPUs []int `json:"cpus"`
	// Local says the group holds the pulling CPU; Busiest that it is the busiest group found.
	Local   bool `json:"local"`
	Busiest bool `json:"busiest"`
	// Type is group_classify's GroupType; the rest are GroupStats' fields of the same names.
	Type          string `json:"type"`
	SumNrRunning  uint32 `json:"sum_nr_running"`
	SumHNrRunning uint32 `json:"sum_h_nr_running"`
	IdleCPUs      uint32 `json:"idle_cpus"`
	GroupWeight   uint32 `json:"group_weight"`
	GroupLoad     uint64 `json:"group_load"`
	GroupCapacity uint64 `json:"group_capacity"`
	GroupUtil     uint64 `json:"group_util"`
	AvgLoad       uint64 `json:"avg_load"`
}

// RecordComparisons turns the record of comparisons on or off. While it is on, every
// placement [System.SelectTaskRQ] makes (a wake-up's or a fork's) and every find_busiest_group
// of [System.LoadBalance] (the System's periodic, idle and newly idle balances) is appended
// to a log that [System.TakeComparisons] returns. The record is written after the decision
// from the statistics it read, with the decision functions themselves ([GroupLBStats] for the
// groups), so recording changes no decision; it allocates.
func (s *System) RecordComparisons(on bool) {
	switch {
	case on && s.cmpLog == nil:
		s.cmpLog = new([]Comparison)
	case !on:
		s.cmpLog = nil
	}
}

// TakeComparisons returns the comparisons recorded since the last call, oldest first, and
// empties the log. It returns nil while RecordComparisons is off or when nothing was recorded.
func (s *System) TakeComparisons() []Comparison {
	if s.cmpLog == nil {
		return nil
	}
	l := *s.cmpLog
	*s.cmpLog = nil
	return l
}

// cpuFigures returns CPU c's figures.
func (s *System) cpuFigures(c topology.CPU) CPUFigures {
	st := &s.stats[c]
	return CPUFigures{CPU: int(c), NrRunning: st.NrRunning, HNrRunning: st.HNrRunning, IdleTasks: st.IdleHNrRunning,
		Load: st.Load, Util: st.Util, Capacity: st.Capacity, Idle: st.idle(), IdleOnly: st.idleOnly()}
}

// logPlacement appends the placement env made, pl for reason why, to the log.
func (s *System) logPlacement(env *WakeEnv, pl *CPUSelection, why PlaceReason) {
	f := &PlacementFigures{Task: env.Task.E.Name, From: int(env.This), Prev: int(env.Prev), Target: int(pl.target),
		CPU: int(pl.CPU), Reason: pl.Explain(why), Scope: "llc"}
	cpus := *env.Task.allowed
	if why == placeIdlest || why == placePrev || why == placeFallback {
		f.Scope = "allowed"
	} else if sd := s.ds.llc[pl.target]; sd != nil {
		cpus = sd.Span()
	} else {
		cpus = topology.CPUSet{}
		cpus.Add(pl.target)
	}
	for c := range cpus.All() {
		f.CPUs = append(f.CPUs, s.cpuFigures(c))
	}
	*s.cmpLog = append(*s.cmpLog, Comparison{Placement: f})
}

// logBalance appends the balance env made, found as d for reason why, to the log; each group's
// statistics are computed again by GroupLBStats from the same env.
func (s *System) logBalance(env *LBEnv, d *BusiestGroup, why BalanceReason) {
	sd := env.SD
	f := &BalanceFigures{Domain: sd.Name(), Span: sd.Span().String(), Dst: int(env.DstCPU), Idle: env.Idle.String(),
		Reason: why.String(), Imbalance: d.Imbalance}
	if d.Group != nil {
		f.Migration = d.Migration.String()
	}
	for i := range sd.NumGroups() {
		g := sd.Group(i)
		span := g.CPUs()
		local := span.Has(env.DstCPU)
		var cpus []int
		for _, c := range g.list {
			cpus = append(cpus, int(c))
		}
		st, _ := GroupLBStats(env, g, local, &s.smp)
		f.Groups = append(f.Groups, GroupFigures{CPUs: cpus, Local: local, Busiest: g == d.Group, Type: st.Type.String(),
			SumNrRunning: st.SumNrRunning, SumHNrRunning: st.SumHNrRunning, IdleCPUs: st.IdleCPUs, GroupWeight: st.GroupWeight,
			GroupLoad: st.GroupLoad, GroupCapacity: st.GroupCapacity, GroupUtil: st.GroupUtil, AvgLoad: st.AvgLoad})
	}
	*s.cmpLog = append(*s.cmpLog, Comparison{Balance: f})
}
