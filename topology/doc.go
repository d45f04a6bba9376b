// Package topology describes the CPUs of a machine and what they share, as
// the data FreeBSD's ULE and Linux's fair scheduler decide over: a tree of
// groups (SMT cores, clusters, last-level caches, NUMA nodes, packages, the
// machine), the NUMA distance between any two CPUs, each CPU's capacity, and
// the Linux view of the same tree as per-CPU chains of scheduling domains.
// Topologies are values you can write down, so a scheduler can be tested on
// machines you do not own.
//
// # What shares what, and why schedulers care
//
// A CPU here is a hardware thread. From the closest sharing to the loosest:
//
//   - SMT: the threads of one core share its execution units and L1 (and
//     usually L2) caches. Two busy siblings each run slower than one alone,
//     so schedulers prefer a wholly idle core (Linux select_idle_core; ULE's
//     +128 load bias on busy SMT groups in cpu_search_lowest).
//   - Cluster: a few cores sharing an L2 (Intel E-core modules, Arm
//     clusters).
//   - LLC: cores sharing the last-level cache. A thread that moves within
//     its LLC finds its data still cached nearby; one that moves out pays to
//     refill it. This is cache affinity: ULE's SCHED_AFFINITY window and its
//     search for an idle CPU inside the LLC first, Linux's task_hot
//     (sysctl_sched_migration_cost) and its wakeup search limited to sd_llc.
//   - Node: a NUMA node, CPUs at the same distance from every memory bank.
//     Memory on another node is slower to reach, by the ratio of the
//     distances (LocalDistance 10 to the node itself); Linux builds one
//     balancing level per distinct distance and balances less eagerly beyond
//     node_reclaim_distance (30).
//   - Package: one socket. Machine: everything.
//
// Capacity says how much work a CPU does per unit time, CapacityScale (1024)
// for the fastest: the little cores of a big/little part have less, and
// Linux places and balances by capacity on such machines.
//
// # The group tree (FreeBSD's view)
//
// A [Topology] is a tree of [Group]s, FreeBSD's cpu_group tree: each group
// has its CPUs, a parent and children that partition its CPUs, ordered by
// first CPU. A group stands for every level at which its CPUs form a group
// ([Group.Levels]), so a package that is also one NUMA node and one L3 is a
// single group: FreeBSD's x86 cpu_topo skips topology nodes with the same
// cpuset as their parent, and smp_topo collapses single-child roots, so a
// group never has exactly one child. A one-CPU group that stands only for
// cache levels is left out when all its siblings are such, so its parent is
// a leaf (FreeBSD builds no cpu_group for an unshared cache); a single CPU
// next to bigger siblings keeps a group of its own at level SMT so that
// children still partition their parent. [Group.Share] and [Group.Flags]
// give FreeBSD's cg_level and cg_flags.
//
// Policies walk the tree both ways, and every walk is allocation-free:
//
//	for g := t.Leaf(c); g != nil; g = g.Parent() { … }      // pickcpu, tdq_idled
//	kids := g.Children()
//	for i := len(kids) - 1; i >= 0; i-- { … }               // cpu_search_*: last child first
//	for c, ok := g.CPUs().Last(); ok; c, ok = g.CPUs().Before(c) { … } // highest CPU first
//
// # The domain chains (Linux's view)
//
// [Topology.Domain] returns a CPU's lowest scheduling domain (rq->sd); its
// Parent links climb to the domain spanning the machine. The chain is built
// as kernel/sched/topology.c builds it on x86: one domain per level of SMT
// (the core), CLS (the cluster), MC (the LLC), PKG (cpu_cpu_mask, the CPU's
// node; left out when a package holds several nodes,
// x86_has_numa_in_package), NODE, and one NUMA level per further distinct
// distance (sched_init_numa), stopping at the first domain that spans every
// CPU. Each domain gets sd_init's flags and tunables, including
// SD_ASYM_CPUCAPACITY(_FULL) from asym_cpu_capacity_classify, and its groups:
// the child domains of its CPUs in the ring order build_sched_groups leaves
// (the last CPU of the span builds last, so its for_each_cpu_wrap order is
// the ring every CPU enters at its own group), or for NUMA levels the
// possibly overlapping groups of build_overlap_sched_groups with
// find_descended_sibling. Then, as cpu_attach_domain does, a parent that adds
// nothing (sd_parent_degenerate: same span, no flag the child lacks, flags
// needing groups ignored when it has one group) is removed and hands down
// SD_PREFER_SIBLING, and a lowest domain of one CPU or one useless group
// (sd_degenerate) is dropped. [Topology.DomainsText] prints the result in
// the format of the kernel's sched_verbose listing. The view is built on
// first use, which costs several times as much as building the tree.
//
// # The text form
//
// [Parse] and [Topology.String] use a compact form that lists what the
// machine holds from the top down. "<level>:<n> <contents>" is n identical
// groups, "cpu:<n>" is n CPUs and "cpu:<n>@<capacity>" n CPUs of that
// capacity; different siblings are joined by " + " inside parentheses. The
// levels are package, node, llc, cluster and core (the SMT level: each group
// is one core). Then come, when needed, " cpus=" with the CPU ids in
// depth-first order as comma-separated ids and ascending runs "lo-hi" (when
// they are not 0, 1, 2, …), and " distance=" with the NUMA distance rows
// separated by "/" (when they are not 10 and 20). For example:
//
//	cpu:2                                   two CPUs that share nothing described
//	package:2 node:2 llc:2 core:4 cpu:2     2 packages, 2 nodes each, 2 LLCs of 4 cores with 2 threads
//	llc:4 core:3 cpu:2                      4 LLCs of 3 two-thread cores
//	llc:1 (core:2 cpu:2 + cluster:1 cpu:4@600)
//	                                        2 big SMT cores and a cluster of 4 little cores
//	package:2 node:1 llc:1 core:4 cpu:2 cpus=0,8,1,9,2,10,3,11,4,12,5,13,6,14,7,15 distance=10,21/21,10
//	                                        a two-socket server numbered as Linux numbers x86 threads
//
// Parse accepts exactly the canonical text String prints, so every accepted
// text prints back to itself; another way of writing a valid machine is
// refused with an error that shows its canonical text. [ParseSpec] reads
// the same syntax, plus " offline=<cpulist>", into a [Spec] without that
// check.
//
// # Other forms
//
// A [Spec] is the same tree as Go values; [New] checks and builds it, and
// [Uniform] builds the common packages × nodes × LLCs × cores × threads
// machine. JSON ([Topology.MarshalJSON]) is the Spec as JSON. [DiscoverFS]
// reads a Linux sysfs tree and [Discover] the running Linux host within the
// process's affinity mask. [TwoCPU], [TwoSocketSMT], [FourLLC], [FourNode]
// and [BigLittle] are ready-made machines, the same as the sysfs trees under
// testdata/sysfs. Malformed input of every form returns an error that names
// the problem and where it is: a column of the text form, a line and column
// of the JSON (both followed by the item path, such as items[0].items[1],
// when [New] finds the problem), an item path of a Spec, or a sysfs file.
// JSON is read strictly: unknown keys, keys given twice and non-integer
// numbers are errors, never silently dropped. Only programmer misuse, such
// as asking about a CPU the topology does not have, panics.
//
// # Costs and concurrency
//
// A built Topology is immutable and safe for concurrent use; the zero
// Topology describes no machine and is not valid (NumCPUs reports 0 for it
// alone). GroupOf, Leaf,
// Capacity, Distance and Domain cost O(1), SharedLevel and the walks
// O(depth), CPUSet queries O(MaxCPUs/64); none allocates. A [CPUSet] is a
// 128-byte value: copy it freely, compare it with ==.
//
// # Names
//
//	FreeBSD (sys/sys/smp.h, subr_smp.c)   Linux (kernel/sched/topology.c)      here
//	struct cpu_group                      (sched_domain spans)                  Group
//	cpu_top                               -                                     Topology.Root
//	cg_mask, cg_count                     sched_domain_span, span_weight       Group.CPUs, Group.Count
//	cg_first, cg_last                     cpumask_first/last                   Group.First, Group.Last
//	cg_parent, cg_child[]                 sd->parent, sd->child                 Group.Parent, Group.Children
//	cg_level (CG_SHARE_L1/L2/L3)          SD_SHARE_CPUCAPACITY, SD_SHARE_LLC    Group.Share, Domain.Flags
//	cg_flags (CG_FLAG_SMT/HTT/NODE)       SD_NUMA …                            Group.Flags, Domain.Flags
//	smp_topo_find(cpu_top, cpu), tdq_cg   -                                     Topology.Leaf
//	-                                     cpu_smt_mask, topology_sibling_cpumask Topology.Siblings
//	-                                     cpu_to_node, node_distance           Topology.Node, Topology.Distance
//	-                                     arch_scale_cpu_capacity              Topology.Capacity
//	-                                     rq->sd, for_each_domain              Topology.Domain, Topology.Domains
//	-                                     sd->groups, sg->next                 Domain.Group(0), Domain.Group(i+1)
//	-                                     highest/lowest_flag_domain (sd_llc)  Topology.HighestFlagDomain, LowestFlagDomain
//	cpuset_t, CPU_ISSET, CPU_FFS          struct cpumask, cpumask_next         CPUSet, CPUSet.Has, CPUSet.First/After
//	smp_topo_1level, smp_topo_2level      default_topology[]                   Uniform, New
//	kern.sched.topology_spec (XML)        sched_verbose listing                Topology.Tree, Topology.DomainsText
//
// # Where this differs from the kernels
//
// FreeBSD's x86 code builds groups only for caches and "group" nodes and
// reads cg_level from the real cache level, so it may call an SMT core's
// group CG_SHARE_L2 where Share says ShareL1, and it has no package or node
// groups unless a cache spans them; this package keeps package and node
// groups in the tree and derives Share from the level. Sysfs discovery takes
// the highest cache level as the LLC and does not model die_cpus_list.
// Linux's group capacities here are the sums of CPU capacities on an idle
// machine (no RT or IRQ pressure), and SD_ASYM_PACKING, energy-aware
// scheduling and isolated CPUs are not modelled.
package topology
