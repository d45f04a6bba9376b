// Package bsd4 implements FreeBSD's 4BSD scheduler (sys/kern/sched_4bsd.c): decay-usage
// priorities computed from a per-thread estimate of recent CPU use, one global run queue that
// every CPU serves, per-CPU run queues for threads that may not run everywhere, and the
// wake-up, preemption and quantum rules around them. Every decision is a pure function of
// explicit inputs ([Pick], [ShouldPreempt], [WakeCPU], [PickCPU], [SliceTick], [SwitchTick]),
// the policy decisions shaped F(state…, p *Params) (result, reason) with a typed reason (the
// tunables only where they are read); every formula is an exported function with the kernel's
// integer semantics ([DecayCPU], [UpdatePri], [ResetPriority], [ESTCPULim], [SchedCPU],
// [DecayPctCPU], [LoadAvg.Update]).
//
// The package has the three layers every policy of the module has (package sched's "One shape
// for every policy"): the pure decisions; a [System], all the state of one machine, whose
// methods are the kernel's entry points and return what the machine must do as values ([Wake],
// [Effect]) without ever calling it; and a [Scheduler], the thin adapter that drives a System
// for a machine such as the simulator in bench/sim (sched.Policy), the only caller of the
// sched.Env. The function the exported API offers is the one the Scheduler runs: each decision
// returns its reason whether or not anyone listens, and explaining only formats it.
//
// 4BSD is the baseline the seeds measure ULE against: seed 001 (FreeBSD 9, 2011: ULE up to
// twice as slow as 4BSD with more CPU-bound jobs than CPUs), seed 000 (2023: a kernel build is
// slightly faster with 4BSD than with stock ULE) and seed 002 (2018: 4BSD's idle wake-ups and
// preemption options).
//
// # Decay-usage scheduling
//
// A 4BSD thread's priority is not something it is given but something it earns back. Each
// statistics tick (stathz, 127 Hz) that finds a thread running adds one to its ts_estcpu, and
// every INVERSE_ESTCPU_WEIGHT (IEW) units of estcpu cost one priority level:
//
//	priority = PUSER + estcpu/IEW + (nice − PRIO_MIN)        (resetpriority)
//
// A CPU hog therefore sinks through the time-sharing range while it runs, and a thread that
// mostly sleeps stays near PUSER and runs first when it wakes. That alone would punish a thread
// forever for work it did long ago, so once a second schedcpu multiplies every awake thread's
// estcpu by
//
//	decay = 2·load / (2·load + 1)                            (decay_cpu, loadfactor)
//
// where load is the 1-minute load average. The kernel's comment proves that this forgets 90%
// of the usage in about 5·load seconds. Why should the forgetting depend on the load? Because
// estcpu grows by a thread's share of the CPU: with one runnable thread per CPU a hog gains 127
// a second, with four per CPU only about 32. Scaling the memory with the load keeps the
// equilibrium estcpu of a hog, and so its priority, comparable across loads; at a low load a
// thread recovers quickly, at a high one its past keeps counting for longer so that a burst of
// CPU use cannot be laundered by a second of sleep. A sleeping thread is not decayed by
// schedcpu at all; when it wakes, updatepri applies the decays it missed in one go, at the
// current load, and resets estcpu to zero if it slept longer than 5·loadfactor (a test that
// compares seconds with a fixed-point number, so it fires only when the load is close to zero;
// see [UpdatePri]).
//
// A ceiling bounds this: ESTCPULIM caps estcpu at IEW·40 − 1 (IEW·37 − 1 with the legacy
// 64-queue run queue), so estcpu/IEW never exceeds 39 and a thread's priority never exceeds
// PUSER + 79: nice, worth 40 levels, weighs as much as the whole of the CPU-usage term. Nice is
// thus an offset that usage must overcome: a nice 20 hog runs only while a nice 0 hog's estcpu
// exceeds its own by 20·IEW. On one CPU the two do not split it 50:50, as ULE's calendar queue
// made them do (seed 000), but 77:23 over the first simulated minute (TestSchedulerNiceSplit).
//
// # The same estcpu, a different priority: IEW = 8·ncpu
//
// The statistics clock runs on every CPU and charges whichever thread it interrupts. On a
// machine with n CPUs busy with n hogs, each hog gains 127 estcpu a second, exactly as on a
// uniprocessor; but the load average is n times larger, so the decay is slower and the
// equilibrium estcpu n times larger. Bruce Evans's fix (commit 67e14c35e9e18c53750d1cf461402741d643ee32,
// "the scheduler cannot tell the difference between this and 1 CPU providing scheduling ticks
// smp_ncpu times faster") divides by 8·ncpu instead of 8 ([InverseEstcpuWeight]). The
// consequence is that an estcpu of 240 costs 30 priority levels on a uniprocessor but 3 on an
// 8-CPU machine: a formula checked on one machine size says little about another, and a
// simulation must be given the machine's CPU count, not just the number of busy CPUs.
//
// # One global queue: what it buys and what it costs
//
// Runnable threads that may run anywhere sit on one 256-queue run queue ([runq.Runq]) shared by
// all CPUs (a 64-queue one before 2025). Every CPU that reschedules takes the best thread from
// it ([Pick]), so there is never a CPU idling while a thread that could run there waits
// elsewhere: work conservation comes free, with no load balancer, no migration heuristics and
// no stealing. That is why 4BSD has no Steal or Balance function and this package has none:
// there is no other CPU's queue to steal from. The cost is everything a shared queue costs: one
// lock (sched_lock) taken by every CPU on every switch, and no affinity: a thread runs on
// whichever CPU gets to it first, and its cache stays behind. kern.sched.runq_fuzz mitigates
// the second a little (a CPU prefers, among the first runq_fuzz threads of the best queue, one
// that last ran there), and is off by default.
//
// Threads that must stay on one CPU (bound with sched_bind, pinned, or with an affinity mask
// that excludes some CPU) go to that CPU's own run queue instead, runq_pcpu[cpu], chosen by
// [PickCPU] (the shortest allowed queue). A CPU chooses between the head of the global queue
// and the head of its own by priority, ties going to the global queue.
//
// When a thread is queued, sched_add decides who hears about it ([WakeCPU]): a remote CPU owning
// the per-CPU queue is kicked; for the global queue, every other idle CPU is sent an IPI at once
// (forward_wakeup), and they race for the thread. If no CPU is idle, only the waking CPU's own
// thread is compared: a timeshare thread never preempts another at once under the default
// options ([ShouldPreempt]: only interrupt threads preempt, and anything preempts the idle
// thread), but a better one makes the waking CPU reschedule at its next AST. Busy CPUs elsewhere
// learn of the thread only when their own quantum ends: sched_slice, realstathz/10 statistics
// ticks (100 ms), or in FreeBSD 9.0-era kernels sched_quantum hz ticks since the CPU's last
// context switch ([QuantumMode]).
//
// 4BSD's topology awareness ends there: it knows the set of CPUs (for IEW and the idle mask)
// and nothing of caches, SMT siblings or NUMA nodes; forward_wakeup treats all idle CPUs alike.
//
// # What a wake-up costs
//
// forward_wakeup makes a wake-up's cost grow with the machine. The kernel computes the mask of idle
// CPUs, walks the list of CPUs to try cpu_idle_wakeup on each one in the mask (a CPU waiting in
// mwait needs no interrupt), and sends IPI_AST to the rest with one ipi_selected call; each woken
// CPU then runs sched_choose, and all but one find nothing. The model has no cpu_idle_wakeup: every
// idle CPU is interrupted alike. When the [Scheduler]'s Env is a sched.ReschedSetter it hands the
// whole idle set to one ReschedSet call, as ipi_selected takes the mask, and the System marks the
// set's reschedules pending a word (64 CPUs) at a time, so that its own work per wake-up does not
// grow with the idle CPUs (the machine still interrupts each of them); with a plain Env it calls Resched
// once per idle CPU. A CPU that loses the race finds both queues empty at the cost of two counter
// tests. None of this changes a decision: [WakeCPU]'s Wake points at the idle set instead of
// copying it, and its reason is a handful of bytes, so the one implementation serves both the
// plain run and the explained one; the tests compare the Scheduler's calls and state with and
// without explanations, with and without ReschedSet.
//
// # What is modelled and what is not
//
// [Scheduler] follows sched_4bsd.c as read at freebsd/freebsd-src @e2650af1 (2021) and
// OlCe2/freebsd-src @0aefaccd (2024), on FreeBSD main's 256-queue run queue and priority layout.
// Main's sched_4bsd.c itself was not available to read: that its 2025-26 changes (the sysctls
// moved under kern.sched.4bsd, ESTCPULIM following RQ_PPQ) leave the modelled logic alone is
// inferred; runq_choose_fuzz rebuilt on runq_findq was confirmed in main's kern_switch.c. With
// [FreeBSD9Params] the 2011-12 code. It
// has no kernel mode: there are no interrupt threads (the ithread demotion on slice expiry is
// not modelled), no kernel sleep priorities (every sleep is one with priority 0: a woken thread
// is queued at the priority it slept with, even after a long sleep changed its user priority,
// and takes the user priority when picked, on its return to user mode; in the kernel a sleep
// such as PSOCK queues it at that priority), no priority lending, and no pinned threads (sched_pin is a short
// kernel-mode section). Bound threads are supported through [Scheduler.Bind]. schedcpu and
// loadav run from the lowest CPU's Tick, and schedcpu visits threads in ID order.
//
// # Presets, attributes and misuse
//
// [Presets] lists "main" ([DefaultParams]), "freebsd14" ([FreeBSD14Params]) and "freebsd9"
// ([FreeBSD9Params]); [Preset] loads one by name and [New] refuses Params that fail
// [Params.Validate] with an error. A workload's real-time priority is an rtprio(2) level
// (sched.RTFreeBSD, 0..31, 0 most important), mapped to PRI_MIN_REALTIME + level as rtp_to_pri
// does ([ClassPriority]); on the 64-queue layouts four levels share a queue. A Linux
// sched_priority (sched.RTLinux, 1..99) has no FreeBSD meaning, and FreeBSD has no
// SCHED_BATCH, per-thread slice or group scheduling: [Scheduler.CheckAttr] refuses them before a
// run, and a Scheduler given them anyway runs the nearest thing and reports the first through
// [Scheduler.Err]. The machine's bugs (a CPU outside the machine, an unknown thread, a second
// wake-up, a Stop of a thread not running there) panic with a message starting "bsd4: ".
//
// # Kernel names
//
//	sched_4bsd.c, kern_synch.c, kern_switch.c     bsd4
//	struct td_sched (ts_estcpu, ts_pctcpu,        Thread, Usage
//	  ts_cpticks, ts_slptime, ts_slice)
//	td_priority, td_user_pri, td_lastcpu          Thread.Pri, Thread.UserPri, Thread.LastCPU
//	runq, runq_pcpu[], runq_length[]              System (global and per-CPU runq.Runq), System.QueueLen
//	idle_cpus_mask, sched_tdcnt, averunnable      System.Idle, System.Load, System.LoadAvg
//	TDF_NEEDRESCHED, td_owepreempt                System (marked by Wake and Effect)
//	fixpt_t, FSHIFT, FSCALE                       Fixpt, FShift, FScale
//	loadfactor, decay_cpu                         LoadFactor, DecayCPU
//	INVERSE_ESTCPU_WEIGHT, ESTCPULIM              InverseEstcpuWeight, ESTCPULim
//	sched_clock_tick (estcpu part)                EstCPUTick
//	sched_clock_tick (slice part)                 SliceTick, TickReason
//	sched_clock (FreeBSD 9: switchticks quantum)  SwitchTick, TickReason
//	updatepri                                     UpdatePri
//	resetpriority                                 ResetPriority
//	rtp_to_pri (real-time and idle classes)       ClassPriority
//	schedcpu (one thread), ccpu, CCPU_SHIFT       SchedCPU, DecayPctCPU, CCPU, CCPUShift
//	schedcpu (all threads)                        System.SchedCPU
//	loadav, cexp[]                                LoadAvg.Update, CExp1, CExp5, CExp15
//	loadav_callout interval                       LoadavInterval
//	sched_choose, runq_choose_fuzz                Pick, PickReason
//	maybe_preempt                                 ShouldPreempt, PreemptReason
//	sched_add's tail: forward_wakeup,             WakeCPU, Wake, WakeReason
//	  kick_other_cpu, maybe_resched
//	ipi_selected (forward_wakeup's IPI_AST)       sched.ReschedSetter, when the Env is one
//	sched_pickcpu                                 PickCPU
//	sched_fork, sched_wakeup, sched_switch,       System.Fork, Wakeup, Pick, Stop,
//	  sched_clock, sched_nice, sched_affinity       Tick, SetAttr (Scheduler: the same, for a machine)
//	sched_bind, sched_unbind                      System.Bind, System.Unbind
//	sys/priority.h                                Layout, LayoutMain, LayoutLegacy, Layout2011
//	kern.sched.* sysctls, PREEMPTION options      Params
//	tdq_steal, sched_balance (ULE)                none: the global queue makes them unnecessary
//	(a debugger's look at runq, runq_pcpu, td_sched) System.Snapshot, State
//
// # Snapshots for the course
//
// [System.Snapshot] returns a [State]: the load average, sched_tdcnt, the global run queue and
// each CPU's queue as [runq.State] (an empty queue's "queues" is null in JSON), the thread each
// CPU runs, and every thread's CPU (running, or td_lastcpu), td_priority, td_user_pri, nice, ts_estcpu, ts_cpticks,
// ts_slptime, ts_pctcpu and ts_slice. It only reads: taking one never changes a decision.
package bsd4
