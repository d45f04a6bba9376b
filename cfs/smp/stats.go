// This file holds what the fair class's multiprocessor decisions read about each CPU (CPUStat)
// and the two enums a load balance is described by: the state the balancing CPU is in
// (IdleType) and what an imbalance counts (MigrationType).

package smp

import "github.com/schedkit/schedkit/sched"

// An IdleType says in which state a CPU balances: enum cpu_idle_type.
type IdleType uint8

const (
	// CPUIdle is CPU_IDLE: a periodic balance on an idle CPU.
	CPUIdle IdleType = iota
	// CPUNotIdle is CPU_NOT_IDLE: a periodic balance on a busy CPU.
	CPUNotIdle
	// CPUNewlyIdle is CPU_NEWLY_IDLE: the CPU is about to go idle (newidle_balance).
	CPUNewlyIdle
)

var idleTypeNames = [...]string{CPUIdle: "idle", CPUNotIdle: "busy", CPUNewlyIdle: "newly idle"}

// String returns "idle", "busy" or "newly idle".
func (t IdleType) String() string { return sched.EnumName(idleTypeNames[:], t, "IdleType") }

// A MigrationType says what an imbalance counts (enum migration_type).
type MigrationType uint8

const (
	// MigrateLoad is migrate_load: the imbalance is load (unscaled weight).
	MigrateLoad MigrationType = iota
	// MigrateUtil is migrate_util: the imbalance is utilisation.
	MigrateUtil
	// MigrateTask is migrate_task: the imbalance is a number of tasks.
	MigrateTask
	// MigrateMisfit is migrate_misfit: move the one task that does not fit.
	MigrateMisfit
)

var migrationTypeNames = [...]string{
	MigrateLoad:   "migrate_load",
	MigrateUtil:   "migrate_util",
	MigrateTask:   "migrate_task",
	MigrateMisfit: "migrate_misfit",
}

// String returns the kernel's name, such as "migrate_load".
func (m MigrationType) String() string {
	return sched.EnumName(migrationTypeNames[:], m, "MigrationType")
}

// A CPUStat is what load balancing and wakeup placement read about one CPU: the fields of
// struct rq and the load-tracking signals the kernel reads through cpu_load, cpu_util_cfs and
// cpu_runnable. The model has no PELT: Load is the CPU's instantaneous queued weight, Runnable
// its number of queued fair tasks times SCHED_CAPACITY_SCALE, and Util a running average
// maintained at the CPU's ticks (see package cfs's documentation). Its JSON form is the one a
// record of cfs.System.TakeComparisons holds for each CPU: the counts, load, utilisation and capacity, without the figures only a
// balance's finer rules read (runnable, full capacity, misfit load, idle stamp).
type CPUStat struct {
	// NrRunning is rq->nr_running, the number of tasks queued on the CPU, the running one
	// included (in v7.1 also the delayed-dequeue tasks, which are still queued).
	NrRunning uint32 `json:"nr_running"`
	// HNrRunning is the number of fair tasks the balancer counts: rq->cfs.h_nr_running in
	// v6.5, and rq->cfs.h_nr_runnable, which leaves out delayed-dequeue tasks, where v7.1's
	// balancer reads that instead (sum_h_nr_running, find_busiest_queue, sched_reduced_capacity,
	// need_active_balance).
	HNrRunning uint32 `json:"h_nr_running"`
	// IdleHNrRunning is rq->cfs.idle_h_nr_running, how many of those count as idle.
	IdleHNrRunning uint32 `json:"idle_h_nr_running"`
	// Load is cpu_load: the unscaled weight of the root queue, scale_load_down of the sum of
	// its entities' weights.
	Load uint64 `json:"load"`
	// Util is cpu_util_cfs, at most Capacity.
	Util uint64 `json:"util"`
	// Runnable is cpu_runnable.
	Runnable uint64 `json:"-"`
	// Capacity is capacity_of, the capacity left to fair tasks.
	Capacity uint64 `json:"capacity"`
	// CapacityOrig is capacity_orig_of, the CPU's full capacity.
	CapacityOrig uint64 `json:"-"`
	// MisfitLoad is rq->misfit_task_load: the h_load of a running task that does not fit the
	// CPU, or 0.
	MisfitLoad uint64 `json:"-"`
	// IdleStamp is rq->idle_stamp: when the CPU last went idle, in nanoseconds; 0 while it has
	// work. find_idlest_group_cpu prefers the most recently idled CPU.
	IdleStamp uint64 `json:"-"`
}

// Idle reports whether the CPU has nothing queued (idle_cpu and available_idle_cpu).
func (s *CPUStat) Idle() bool { return s.NrRunning == 0 }

// IdleOnly reports whether only SCHED_IDLE work is queued (sched_idle_cpu).
func (s *CPUStat) IdleOnly() bool {
	return s.NrRunning > 0 && s.NrRunning == s.IdleHNrRunning
}
