// Package smp holds the vocabulary of the multiprocessor side of Linux's fair class as package
// cfs models it: what its SMP decisions read about each CPU ([CPUStat]), the state a CPU
// balances in ([IdleType]) and what an imbalance counts ([MigrationType]), the tunables and
// features of those decisions ([Params], with the switch between the two constructions of NUMA
// sched groups, [GroupConstruction]). Everything here is plain data with the kernel's names;
// the decisions that read and write it (sched domains, load balancing, wake-up placement) are
// in package cfs, beside the per-CPU fair class whose state they move.
//
// # What a decision reads about a CPU
//
// The kernel's balancer and wake-up placement read struct rq and the load-tracking signals
// through cpu_load, cpu_util_cfs, cpu_runnable, capacity_of and the idle tests idle_cpu,
// available_idle_cpu and sched_idle_cpu. A [CPUStat] is those figures for one CPU; a cfs.System
// keeps one per CPU up to date (cfs.System.Stats) and a test or a what-if analysis may build
// them by hand. The model has no PELT: Load is the CPU's instantaneous queued weight, Runnable
// its number of queued fair tasks times SCHED_CAPACITY_SCALE, and Util a running average that
// package cfs's documentation describes. A balance runs in one of the three states of enum
// cpu_idle_type ([CPUIdle], [CPUNotIdle], [CPUNewlyIdle]), and calculate_imbalance says what
// its imbalance counts with enum migration_type ([MigrateLoad], [MigrateUtil], [MigrateTask],
// [MigrateMisfit]).
//
// # Tunables
//
// Every SMP decision of package cfs (placement, balancing, the choice of the tasks to move)
// takes its tunables last, as p *smp.Params, and never writes them; cfs.Params carries them as
// its field SMP, and each cfs.Preset holds its kernel version's. They are the sysctls the
// balancer reads (sysctl_sched_migration_cost, which makes a task that ran recently cache hot,
// and sysctl_sched_nr_migrate, how many tasks one pass examines), the sched features of
// features.h that shape wake_affine (WA_IDLE, WA_WEIGHT, WA_BIAS), the idle scan (SIS_UTIL)
// and the task choice (CACHE_HOT_BUDDY, LB_MIN), CONFIG_PREEMPTION's one-task newly idle pull,
// v7.1's two can_migrate_task tests, and the group construction. [GroupsFirstCPU] rebuilds the
// NUMA groups the way kernels before v4.13 did, from the first CPU's point of view and shared by
// every CPU, the group-construction bug of Lozi et al.'s "The Linux Scheduler: a Decade of
// Wasted Cores" (EuroSys 2016); [GroupsPerCPU], the default, builds them as today's kernels do.
//
// # Kernel names
//
//	Linux v6.5 (kernel/sched/fair.c, topology.c)   schedkit/cfs/smp
//	struct rq, cpu_load, cpu_util_cfs, capacity_of CPUStat
//	idle_cpu / available_idle_cpu, sched_idle_cpu  CPUStat.Idle, CPUStat.IdleOnly
//	enum cpu_idle_type                             IdleType
//	enum migration_type                            MigrationType
//	sysctl_sched_migration_cost, nr_migrate        Params
//	sched_feat WA_*, SIS_UTIL, CACHE_HOT_BUDDY ... Params fields
//	build_overlap_sched_groups before 0372dd2736e0 GroupsFirstCPU
package smp
