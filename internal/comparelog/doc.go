// Package comparelog holds the records of what package cfs's SMP decisions compared, which a
// cfs.System keeps when asked (cfs.System.RecordComparisons, cfs.System.TakeComparisons) and
// the course page and `schedbench explain -state` print. Only these two programs read them as
// types; a program outside the module reads a record's fields, or its JSON, from what
// TakeComparisons returns.
//
// # What a comparison records
//
// A wake-up placement (select_task_rq_fair) chooses a CPU among some: on the fast path the
// target's last-level cache, which select_idle_sibling scans; on the slow path of a fork or exec
// every CPU the task may run on, which find_idlest_cpu descends through. Its record
// ([PlacementFigures]) names the task, the waker's CPU, the task's previous CPU, the fast path's
// target and the CPU chosen with the reason, and lists those CPUs with the figures the decision
// read of each ([CPUFigures]: nr_running, h_nr_running, the SCHED_IDLE count, load, utilisation,
// capacity, and whether it counted as idle).
//
// A load balance at one domain (find_busiest_group) weighs the domain's groups against the
// local one, the group of the CPU that pulls. Its record ([BalanceFigures]) names the domain and
// the pulling CPU with the idle state it balances in, lists every group with its sg_lb_stats
// ([GroupFigures]: its CPUs, whether it is local or the busiest found, group_classify's type and
// the sums), and gives the verdict: the reason, and calculate_imbalance's migration type and
// amount when a busiest group was found.
//
// The records are plain values with JSON names, written after each decision from the figures
// it read, so that recording them changes no decision.
//
// # Kernel names
//
//	Linux v6.5 (kernel/sched/fair.c)               schedkit/internal/comparelog
//	struct sg_lb_stats (as recorded)               GroupFigures
package comparelog
