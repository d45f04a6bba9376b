// This file implements Params, the tunables and scheduler features of the fair class's
// multiprocessor code (load balancing and wakeup placement), and the group-construction switch.

package smp

import "github.com/schedkit/schedkit/sched"

// A GroupConstruction says how the sched groups of NUMA (overlapping) domains are built, the
// subject of the "Scheduling Group Construction" bug of Lozi et al., "The Linux Scheduler: a
// Decade of Wasted Cores" (EuroSys 2016).
type GroupConstruction uint8

const (
	// GroupsPerCPU builds every CPU's NUMA groups from that CPU's own perspective, as the kernel
	// has done since commit 0372dd2736e0 ("sched/topology: Fix building of overlapping
	// sched-groups", v4.13) and as package topology builds them.
	GroupsPerCPU GroupConstruction = iota
	// GroupsFirstCPU reproduces the bug: a NUMA domain whose span equals the first CPU's domain
	// at the same level uses that first CPU's groups, so every CPU of the machine-wide NUMA
	// domain shares the groups CPU 0 sees. On a machine where two nodes are two hops apart,
	// both nodes then appear in several of those groups, their loads look equal, and an
	// application pinned to the two nodes stays piled on one of them.
	GroupsFirstCPU
)

var groupConstructionNames = [...]string{GroupsPerCPU: "per-cpu", GroupsFirstCPU: "first-cpu"}

// String returns "per-cpu" or "first-cpu".
func (g GroupConstruction) String() string {
	return sched.EnumName(groupConstructionNames[:], g, "GroupConstruction")
}

// Params are the tunables and features of the fair class's load balancer and wakeup placement
// (kernel/sched/fair.c and features.h). Time values are in nanoseconds. Every SMP decision of
// package cfs takes them as its last argument, p *smp.Params, and never modifies them;
// cfs.Params holds them as its field SMP.
type Params struct {
	// MigrationCost is sysctl_sched_migration_cost (debugfs sched/migration_cost_ns, 500 µs):
	// a task that ran less than this long ago is cache hot (task_hot) and is not pulled by
	// load balancing until balancing failed more than the domain's cache_nice_tries times.
	// Zero makes no task hot and -1 every task, as in the kernel.
	MigrationCost int64

	// NrMigrate is sysctl_sched_nr_migrate (debugfs sched/nr_migrate, 32): the most tasks one
	// load-balancing pass examines on the busiest CPU (loop_max). It is also
	// SCHED_NR_MIGRATE_BREAK, the batch after which the kernel drops the lock.
	NrMigrate int

	// CacheHotBuddy is sched_feat CACHE_HOT_BUDDY: a next or last buddy is cache hot when the
	// destination CPU is busy.
	CacheHotBuddy bool

	// LBMin is sched_feat LB_MIN (off): do not pull tasks of h_load below 16 before balancing
	// has failed once.
	LBMin bool

	// WAIdle, WAWeight and WABias are sched_feat WA_IDLE, WA_WEIGHT and WA_BIAS: the idle test,
	// the load comparison and its imbalance_pct bias in wake_affine.
	WAIdle, WAWeight, WABias bool

	// SISUtil is sched_feat SIS_UTIL: select_idle_cpu scans at most nr_idle_scan CPUs of the
	// LLC, a number the periodic balancer derives from the LLC's utilisation
	// (update_idle_cpu_scan). Off, the scan covers the whole LLC.
	SISUtil bool

	// NewidleOnePull is CONFIG_PREEMPTION's rule in detach_tasks: a newly idle balance stops
	// after the first task it detaches. Distribution kernels are built with it.
	NewidleOnePull bool

	// Groups selects how NUMA sched groups are built; [GroupsFirstCPU] reproduces the Wasted
	// Cores bug.
	Groups GroupConstruction

	// MigrateDelayed is can_migrate_task's first test since DELAY_DEQUEUE (v6.12, on in v7.1):
	// a task whose dequeue was delayed (cfs.Entity.Delayed) is moved only when the balance
	// migrates load (migrate_load), and then moves still delayed.
	MigrateDelayed bool

	// MigrateIneligible is can_migrate_task's task_is_ineligible_on_dst_cpu test (v7.1): as long
	// as the domain has not failed to balance (nr_balance_failed is 0), a task that is not
	// eligible on its queue (cfs.VruntimeEligible) is not moved to a CPU where its group's queue
	// already holds entities, since PLACE_LAG would keep it ineligible there. It needs
	// cfs.MigrateEnv's DstRQ and the CPUs' PlaceLag feature.
	MigrateIneligible bool
}
