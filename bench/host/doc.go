// Package host plays a workload of package workload on the real kernel of the machine it runs
// on, with real OS threads, and measures it as the simulator in bench/sim measures a simulated
// run, so that the model's prediction can be put beside the kernel's behaviour: [Run] for one
// run, [Compare] for the model-vs-host table, [MeasurePipeline] for the costs of real programs.
// It runs on Linux only; elsewhere Run returns [ErrNotSupported].
//
// # Threads
//
// Each workload thread is a goroutine locked to its own OS thread (runtime.LockOSThread, never
// unlocked, so the thread ends with the goroutine), which sets its own attributes and then
// interprets its behaviour script:
//
//	behaviour   on the host
//	run D       a spin loop until the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID) has advanced
//	            by D: D of CPU, however long that takes in wall time; forever: until the end.
//	            The clock is read about log2(D/1 us) times, halving what is left each round:
//	            the kernel charges the task at each read (update_curr), which may reschedule it
//	            where a program that only computes meets the scheduler at the tick alone
//	sleep D     a FUTEX_WAIT_BITSET with an absolute CLOCK_MONOTONIC timeout of now + D (an
//	            hrtimer as clock_nanosleep's, which a halt of the run ends by FUTEX_WAKE); the
//	            wake-up latency is the time it resumed minus the deadline (timer slack 1 ns)
//	every P N   the body at the start and then at each absolute multiple of P, skipping periods
//	            that have begun, as the simulator does; the latency of each period as for sleep
//	send/recv   a pipe is two eventfd(2) semaphores, items and (with a capacity) slots: send takes
//	            a slot and gives an item, recv the reverse; taking from zero blocks in poll(2),
//	            and a take that blocked is a wake-up, whose latency counts from the give that
//	            woke it (the first after the take found zero, stamped before its write) to the
//	            thread's clock read after its take, as the simulator counts from the waker's call
//	fork/join   new locked goroutines from the template; join waits for the children's exit
//	yield       sched_yield(2)
//	nice        setpriority(PRIO_PROCESS, tid, n)
//	class       sched_setattr(2): SCHED_OTHER, BATCH, IDLE, FIFO, RR with sched_priority
//	slice=      sched_attr.sched_runtime, the custom slice of EEVDF kernels (6.12 and later)
//	cpus        sched_setaffinity(2)
//	group       a write of the TID to the group's tasks (v1) or cgroup.threads (v2)
//	process=    not honoured: every thread is a thread of the runner's one process (the model of
//	            a workload the runner plays is made so too, for the model-vs-host table)
//
// A thread's counts come from the kernel, read by the thread itself at its start and its end:
// /proc/self/task/TID/schedstat (se.sum_exec_runtime, sched_info.run_delay, pcount) gives
// CPUTime, WaitTime and Result.Timeslices; its status file the voluntary and involuntary
// context switches; its sched file se.nr_migrations. Work is the CPU time the spin loops
// counted; Sleep is what remains of the lifetime. /proc/stat gives each CPU's busy and idle time,
// the whole machine's, other programs' work included. The wake-up latencies go into each
// thread's Wakeup histogram (the simulator's sim.Histogram, exact up to its budget) and, for
// every, the time from each period's deadline to the end of its work into Request, so
// [Result.Latency] and the simulator's percentiles read them alike.
//
// The Go runtime must stay out of the way. A goroutine that Go preempts is parked, and its
// locked thread sleeps until another thread hands the goroutine back: a sleep the kernel would
// see and schedule around. So the spin loop and the clock reads it calls are nosplit (no
// preemption point, synchronous or asynchronous), sleeps and polls are raw system calls that
// keep their P, Run raises GOMAXPROCS by [MaxThreads] so that every thread has a P, and turns the
// garbage collector off for the run (a collection's stop-the-world would wait for every spinning
// thread). The runtime keeps the main OS thread when a goroutine locked to it ends, so every
// thread gives back its original class, nice value, affinity and cgroup before it ends.
//
// A goroutine that never passes through the Go scheduler is still asked to yield: sysmon
// (runtime/proc.go, retake) calls preemptone on every P whose schedtick has not moved for
// forcePreemptNS (10 ms), and only execute moves it, which a locked goroutine reaches only
// after it was parked. preemptone sets the goroutine's stackguard0 to stackPreempt and sends
// its thread SIGURG (preemptM; GODEBUG=asyncpreemptoff=1 leaves the signal out). The signal
// interrupted a thread's sleep or poll, an extra wake-up every 10-20 ms: so each thread blocks
// SIGURG for the run, and the one preemptM leaves pending is taken when the thread ends. The
// synchronous request remains: at the thread's next call of a function with a stack check,
// newstack parks the goroutine (gopreempt_m, then stoplockedm: the thread waits on a futex)
// until another M takes it from the global run queue and hands it back (startlockedm), one
// futex sleep and wake-up of the thread in each 10-20 ms that the workload does not declare.
// With the signal blocked the request mostly arrives during a sleep and is honoured just after
// the wake-up, so the sleep and the blocking take read the clock in nosplit code (a raw
// clock_gettime) before any stack check: the park comes after the latency's end, not inside it.
// Nothing short of keeping the thread out of Go code avoids it: a goroutine in a real system
// call (syscall.Syscall) is not preempted, but sysmon then takes its P at each look
// (retake's sysretake) and, having taken one, looks again 20 us later.
//
// # Control groups
//
// A workload with groups gets a private parent under the cpu controller, schedkit-PID-N in the
// runner's own cgroup (cgroup v1 where the cpu controller is mounted, such as
// /sys/fs/cgroup/cpu; else v2, where the runner's cgroup must delegate cpu), one child per
// workload group nested as declared, with cpu.shares = weight × 1024 / 100 (v1: the inverse of
// the kernel's sched_weight_from_cgroup) or cpu.weight (v2), and cpu.idle. Threads of the
// workload's root group go into the parent itself, so that they compete with the groups as the
// simulator's root group does. The parent competes with the rest of the machine at the weight of
// a process (Options.Weight raises it, to shield a measurement from the other programs of a busy
// machine); on v2 the process moves into the parent (a threaded domain) for
// the run. Real-time threads stay out of groups: a new cpu group has no real-time runtime
// (cpu.rt_runtime_us = 0). Nothing outside the parent is written, except the runner's own
// threads' way back to where they were.
//
// # Safety
//
// Before it starts anything, Run checks what the host cannot do for the workload — nice values
// and classes it has no permission for (tried on a throw-away thread), CPUs outside the
// process's affinity mask, a missing cpu controller or cpu.idle, custom slices before Linux 6.12,
// programs of peers that are not installed — and returns a *[MissingError] naming each, or with
// Options.SkipUnsupported leaves those requests out and lists them in Result.Skipped. The ops
// poll and until, which the runner does not play, are not among them: a thread that reaches
// one stops the run with an error naming it.
//
// Every run has a total time limit ([Options.Limit], at most [MaxLimit]). A real-time thread
// must be pinned to fewer CPUs than the process has, and all of them together may not cover every
// CPU, so that the runner always has a CPU to run on; a run with real-time threads is limited to
// [MaxRTLimit], the spinning thread checks the deadline itself, and at the limit plus a quarter
// of [Grace] the runner demotes every real-time thread still alive to SCHED_OTHER.
//
// Threads, peer processes and groups are gone when Run returns, after a normal end, an error or
// a panic in a workload thread; SIGINT, SIGTERM and SIGHUP stop the run, clean up and are raised
// again with their default action (Options.KeepSignals leaves them alone). Peers run in a process
// group of their own, killed as a whole at the end of the run, and start with a parent-death
// signal. A runner killed with SIGKILL can do none of this: its threads die with it and each
// peer's first process by its parent-death signal, but what a peer forked (the tar and gzip of
// `sh -c "tar … | gzip"`) lives on, and its cgroups stay. The next Run, before it starts anything,
// kills the processes left in the cgroups of runners that no longer run and removes those
// groups, and kills the process groups of their peers, which each runner records while it runs
// in a file of its own under the temporary directory (schedkit-host-UID/PID-START-N).
//
// # Peers and calibration
//
// A [Peer] is a real program (hackbench and cyclictest from rt-tests, perf bench sched messaging
// and pipe, stress-ng) started in a workload group with a class, nice value and affinity (through
// sh, taskset, chrt and nice, so that everything it forks starts there), beside the workload's
// threads: seed 004's idle cgroup running perf bench sched messaging beside a latency probe.
// [ParsePerfBench], [ParseHackbench], [ParseCyclictest] and [ParseStressNG] read their outputs.
// [MeasurePipeline] runs real programs connected by pipes and measures each as it exits (CPU,
// run-queue wait, switches, bytes and calls of reads and writes): the calibration source of the
// scenario layer, from which [Seed000Costs] were measured.
//
// # Model vs host
//
// [Compare] runs each [Experiment] on the host a few times (in rounds: every experiment's first
// repetition, then every second one, so that a slow spell of the machine falls on one
// repetition of several rows, not on all of one row's) and under simulated policies on the
// discovered topology (topology.Discover), nearest preset first ([NearestPolicy]: classic CFS
// before 6.6, EEVDF v6.6 before 6.12, v6.18 (delayed dequeue and custom slices as 6.12 added
// them, with v6.6's arithmetic) up to 7.0, then v7.1, the model's latest), with the ratio of the model's figure to the host's median,
// a verdict on the host's range, and a t test in ministat's words ([HostVsModel]: Welch's t of
// the host's runs against the nearest model's over as many seeds, the one-sample t interval of
// the host's runs where the model gives the same figure for every seed). The host's figures are
// as noisy as the machine is busy: pin the measured threads, repeat, and read the range and the
// share of the CPU time "others" took while the row's runs ran (/proc/stat's busy time less the
// runs' own from getrusage: other programs, the kernel's threads, a hypervisor's steal); a row
// above BusyShare is flagged busy. The load average is printed too, but counts the runs' own
// threads, so it flags a row only where the share cannot be read (BusyLoad).
//
// The models charge a machine profile (CompareOptions.Profile: sim.DefaultProfile, or the host
// profile Calibrate measured; for Linux's presets at the profile's HZ), so that a latency they
// print is a prediction. Besides seed 000's and seed 004's experiments, LatencyExperiments puts
// the real benchmarks beside workloads that model them, whose system calls cost the profile's
// program figures: perf bench sched pipe (processes and threads, one CPU and free), hackbench
// (process and thread × pipe and socket, 1, 2 and 4 groups) and cyclictest (idle and loaded
// CPU; its latency histogram read by ParseCyclictestHistogram). Each row has a Goal: the
// latency rows' p50 within ±25 % and p99 within a factor 2, the benchmarks' times within ±15 %,
// the throughput rows within ±10 %.
//
// # Machine profiles
//
// [Calibrate] measures what each step between a scheduling decision and its effect costs on
// this machine and returns it as a sim.Profile (schedbench calibrate writes it): perf bench sched
// pipe on one CPU with processes and threads (the switch, and the switch of address space, each
// round trip less as many wake-ups as its reads blocked: one on Linux 6.18, where the woken
// reader preempts the writer before the writer's own read), a
// futex ping-pong across CPUs (the IPI), a futex wake-up on one CPU of a thread that does not
// preempt the waker (try_to_wake_up), a sleeper's lateness at absolute 1 ms deadlines on an idle
// CPU and beside a SCHED_IDLE hog (the timer and the idle exit; beside the hog traced, where it
// runs as root with perf, so that the timer is the deadline to the sleeper's sched_waking and
// not the way to its switch-in after it, see timerFigure; that way, less the switch and the
// refill, is the figure timer_exit, measured only so), the gaps a spinning SCHED_FIFO
// thread sees at the clock interrupts (the tick), and a working set's refill after another
// thread ran and after a migration; [Derive] says which measurement each figure is taken from.
// It refuses a busy machine and writes nothing when a measurement cannot be made. The idle exit
// is the idle CPU's lateness less the timer's quantile by quantile, since the model draws the
// two at one point of their distributions; [CalibrateTimer] (schedbench calibrate -timer)
// measures the timer's figures again alone, with a profile's switch and refill ([DeriveTimer]).
//
// The program figures ([ProgramFigures]) are what the workloads' own work costs: a pipe's and a
// socket's write and read, a copy-on-write fault (the first write to a page of a memfd mapped
// MAP_PRIVATE, as a child of fork takes on the pages it shares with its parent) and a small
// process's exit (kill(SIGKILL) of a sleeping sleep(1) to the wait4 that reaps it), the last
// two also beside a CPU kept busy by another process spinning (fault_busy, exit_busy), as
// hackbench's children run beside each other. The spinner is a process of its own: a spinning
// thread of the probing process kept the probe's address space loaded on the busy CPU, and each
// fault then flushed that CPU's TLB by an IPI and waited for it (flush_tlb_multi), 10-17 µs a
// fault on the project's CI machine against 1.5-2 µs, which a single-threaded child of fork
// never pays (profiles calibrated before 2026-12-07 04:00 UTC have that in fault_busy). A pipe's or a
// socket's message costs more when another CPU writes and reads the same pipe at the same time
// (pipe100_shared, socket100_shared: its lock and buffer move between the CPUs' caches at each
// message); hackbench's messages charge these, since every receiver's pipe is written by senders
// on every CPU (on the CI machine 3.6 µs of CPU a message in hackbench -g 1 -l 5000, counted by
// perf stat, where the one-thread figure is 2.4 µs). pipe100_fanout and socket100_fanout measure
// the message in hackbench's shape: a sender on one CPU writing round-robin into hackbench's 20
// pipes or socket pairs, each kept up to 128 messages deep, and a receiver on the other
// CPU reading them, the two kept in step through memory so that neither sleeps, each sample a
// message's write plus its read; every message crosses between the CPUs (for a socket, the skb
// unix_stream_sendmsg allocates is freed by the reader's unix_stream_read_generic on the other
// CPU), and no model charges them yet. hackbench's process mode charges the faults: each child takes 15 copy-on-write faults inside the timed region, 14 in
// glibc's exit(), then exits. switch_mm_ring is the switch of address space in hackbench's
// shape: a token passed around a ring of 20 processes on one CPU (cat(1), each woken by the one
// before through a pipe), a hop less the hop of the same ring of threads, where perf bench sched
// pipe's switch_mm alternates between two processes only; on the CI machine a ring of three
// processes already costs most of it (a hop there 7 µs with two processes, 10-16 µs with three,
// 15-21 µs with twenty, threads 4-8 µs, on 2026-12-06 at load averages of 10 to 32); hackbench's process mode
// charges it as its switch of address space where the profile has it (Experiment.Costs). [CalibrateProgram] (schedbench calibrate -program) re-measures
// them alone into an existing profile.
//
// # Kernel names
//
//	kernel / tool                               here
//	sched_setattr, setpriority                  setClass, setNice; Peer through chrt, nice
//	sched_setaffinity                           setAffinity; Peer through taskset
//	cpu.shares, cpu.weight, cpu.idle            Group.Weight, Group.Idle in a private parent
//	/proc/PID/task/TID/schedstat                Schedstat, ParseSchedstat
//	/proc/PID/task/TID/status (nvcsw, nivcsw)   Switches, ParseStatus
//	/proc/PID/task/TID/sched se.nr_migrations   ParseMigrations
//	/proc/stat cpuN, /proc/loadavg, /proc/PID/io CPUTimes, ParseProcStat, ParseLoadavg, ParseIO
//	hackbench, perf bench sched, cyclictest     Peer, ParseHackbench, ParsePerfBench, ParseCyclictest
//	stress-ng --metrics-brief                   Peer, ParseStressNG
//	tar cf - | gzip (seed 000)                  MeasurePipeline, Seed000Real, Seed000Workload
//	cyclictest -h histogram                     ParseCyclictestHistogram, CyclicHistogram
//	perf bench sched pipe, futex, clock_nanosleep  Calibrate's probes, Measurements, Derive
package host
