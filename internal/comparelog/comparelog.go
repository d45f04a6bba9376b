// This file holds the records of what the SMP decisions compared — the CPUs a wake-up
// placement looked at and the groups a load balance weighed — for a reader who wants to see the
// figures behind select_task_rq_fair and find_busiest_group.

package comparelog

import "github.com/schedkit/schedkit/cfs/smp"

// A Comparison is what one SMP decision of a cfs.System compared, as
// cfs.System.RecordComparisons keeps it: a wake-up placement (Placement set) or a load balance
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
	// Reason is the cfs.PlaceReason with wake_affine's domain and side (cfs.CPUSelection.Explain).
	Reason string `json:"reason"`
	// Scope says which CPUs are listed: "llc" (the fast path) or "allowed" (the slow path).
	Scope string `json:"scope"`
	// CPUs are the CPUs listed, in id order.
	CPUs []CPUFigures `json:"cpus"`
}

// CPUFigures are one CPU's statistics as the SMP decisions read them, its [smp.CPUStat] (whose
// JSON form lists nr_running, h_nr_running, idle_h_nr_running, load, util and capacity), and
// whether it is idle (available_idle_cpu) or runs only SCHED_IDLE work (sched_idle_cpu).
type CPUFigures struct {
	// CPU is the CPU's id.
	CPU int `json:"cpu"`
	smp.CPUStat
	// Idle is [smp.CPUStat.Idle], IdleOnly [smp.CPUStat.IdleOnly].
	Idle     bool `json:"idle"`
	IdleOnly bool `json:"idle_only"`
}

// BalanceFigures are the figures of one find_busiest_group: the domain and the CPU that
// pulls, the idle state it balances in, every group of the domain with its sg_lb_stats (as
// cfs's update_sg_lb_stats computes them), and the verdict: the reason, the busiest group if one was
// found, and calculate_imbalance's migration type and amount.
type BalanceFigures struct {
	// Domain is the domain's name (MC, PKG, …) and Span its CPUs.
	Domain string `json:"domain"`
	Span   string `json:"span"`
	// Dst is the CPU that pulls, Idle the smp.IdleType it balances in.
	Dst  int    `json:"dst"`
	Idle string `json:"idle"`
	// Groups are the domain's groups in its order, the local one first.
	Groups []GroupFigures `json:"groups"`
	// Reason is the cfs.BalanceReason; Migration the migration type when a busiest group was
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
	// Type is group_classify's group_type; the rest are struct sg_lb_stats's fields of the
	// same names.
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
