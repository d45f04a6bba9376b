// Package sim is a deterministic discrete-event machine that runs any scheduling policy on any
// topology and workload: the bench on which schedkit's ULE, 4BSD and CFS are compared, built to
// reproduce the problems the seeds report (a pipeline twenty times slower beside a CPU hog,
// nice 0 and nice 20 hogs splitting 50:50, jobs that take twice as long because threads are
// not migrated, the tail latency of a latency-sensitive group).
//
// A [Machine] is built from a [Config] (a topology, CPU speeds, clock rates, optional costs), a
// [Policy] and a workload.Workload, and [Machine.Run] plays it. [Run] does all three at once:
//
//	w, _ := workload.Parse("thread hog count=2\n\trun forever\nend\n")
//	r, _ := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, policy, w, time.Second)
//	fmt.Printf("%.2f\n", r.Threads[0].Share()) // 0.50 under a fair policy
//
// # The machine
//
// Time is an int64 count of nanoseconds. Everything that will happen is an event in one queue
// (a 4-ary heap keyed by time and then by the order events were scheduled, with a timer wheel in
// front of it for the sleeps that end more than a millisecond or so ahead): the clock interrupt
// of the CPUs, the end of a thread's current run on a CPU, the arrival of an IPI, the end of a
// thread's sleep, the creation of the workload's threads. The machine takes the earliest
// event, does what it causes at that instant (the policy's calls, the reschedules they ask for,
// the scripts of the threads that get a CPU), and moves on. Nothing happens between events, so
// a hog on an otherwise quiet CPU costs one event per clock interrupt, not one per nanosecond.
//
// Each CPU runs at a speed: its topology capacity (1024 is full speed) or Config.Speed, and,
// while another hardware thread of the same core is busy, DefaultSMTFactor/1024 of that (0.625:
// two siblings together do 1.25 times the work of one; see [DefaultSMTFactor] for the
// measurements behind it). A thread's run is an amount of work in nanoseconds at full speed; its
// end is rescheduled whenever a sibling starts or stops.
//
// # Time between a decision and its effect
//
// [Costs] charge each step of the path from a scheduling decision to its effect, named after
// the kernel or hardware step it stands for: the waker's try_to_wake_up (the waker spends it
// before the wakee is runnable), the reschedule IPI's latency, a timer's expiry after its
// deadline, the idle state's exit latency ([Idle.ExitLatency]), the context switch, the cache
// refill when a thread resumes after other threads ran on its CPU, the refill after a
// migration by the level of the topology crossed (SMT sibling, core of the same LLC, another
// LLC, another node), and the clock interrupt's work. Each is a [Cost]: a fixed figure or
// quantiles from which the machine draws, from its own stream seeded by Config.Seed, so that a
// run with costs is as deterministic as one without. A wake-up's latency counts from its cause
// (the waker's try_to_wake_up, the timer's deadline) to the woken thread's first progress, as a
// thread that timestamps its own wake-up (cyclictest, schbench) measures it. The policy's own
// work per wake-up and per balance pass is not charged apart: the measured wake-up and tick
// figures include it.
//
// A [Profile] is those costs measured on one machine, as data with the unit, method and date
// of every figure (a JSON file, read with [LoadProfile]; `schedbench calibrate` measures one on
// the machine it runs on). The zero Config is the ideal machine ([IdealProfile]: every cost 0, a
// woken thread runs the instant it is chosen), which the library keeps as its zero value so that
// a policy's decisions can be studied, and tested, on their own, and so that a Config says every
// cost it charges.
//
// A profile's figures are of two kinds ([ProfileFigureKind]), by one rule: a figure is CPU
// time ([CPUFigure]) if the kernel counts the time it stands for in the user+system time of a
// thread of the workload (the waker's try_to_wake_up, sending an IPI, the switch, the cache
// refills, the clock interrupt's work), and a latency ([LatencyFigure]) if it is wall time in
// which no thread of the workload runs for it (the IPI in flight, the idle state's exit and the
// idle loop's polling, both the idle task's, a timer's expiry after its deadline). A workload
// whose costs were calibrated from a real program's CPU time holds the CPU figures already:
// [Profile.Latencies] is the profile restricted to its latencies, "ci (latencies only)", which
// such a workload charges without counting anything twice.
//
// # Determinism
//
// The same Config, policy and workload give the same trace, byte for byte, on every
// architecture: the machine uses integer arithmetic only in everything that reaches the trace,
// orders simultaneous events by a sequence number, and draws the workload's random durations
// from a PCG stream per thread derived from Config.Seed and the thread's id, with the
// integer-only sampling of package workload. A thread draws the same durations whichever policy
// runs it (common random numbers), so differences between policies are differences of
// scheduling. [Trace.Hash] fingerprints a run; the tests pin one and run under GOARCH=386.
//
// # Stop conditions
//
// [Run] plays a workload until every thread has exited or a time limit. [RunUntil] takes a
// [Stop]: a time, named threads or groups that must have exited, a number of events, whichever
// comes first, and a warm-up whose statistics are discarded; Result.Ending says which condition
// ended the run, and the Result covers exactly Result.Start to Result.End (shares, idle time,
// makespan, latencies). A run with gzip beside a hog that never exits thus stops when gzip
// does, and measures gzip's share over its own run.
//
// # Metrics, checkers and trace
//
// [Result] holds per-thread CPU time, share, run-queue wait, sleep, work done, voluntary and
// involuntary switches, migrations, and three latency series, each a [Histogram]: wake-up
// latency (Wakeup), run-queue wait per dispatch (RunqWait), and schbench's request latency, from
// a wake-up to the end of the work it caused (Request). A Histogram keeps its samples exactly up
// to Config.ExactSamples and in log-linear buckets after, with a percentile at most 1/128 above
// the exact one; histograms merge, so percentiles can be asked of a thread, a group
// ([Result.Group]), a declaration or template ([Result.Decl]), or several runs. Per CPU: busy,
// idle, interrupt, switch and idle-exit time, and the clock interrupts by what they found the
// CPU doing, from which [Result.Accounting] derives seed 002's r/u/s/i/t/I/X columns (sampled
// kern.cp_time against exact td_runtime). Statistics are clipped to the run's end.
//
// From Results to output there is one pipeline, in the shape of golang.org/x/perf's benchfmt →
// benchproc → benchmath → benchtab: a Result is the record (its JSON form, schema
// [ResultSchema], is what a run keeps); [Summarize] groups runs into columns, one per policy
// with its repetitions ([Column], [Rep]), and reduces them to a [Summary] — per thread name, the
// median over the repetitions (bench/stat's [stat.Median], the one median of the bench layer) of
// its CPU share and latency percentiles, and per column the medians of the totals — with the
// threads' declarations kept for grouping ([Summary.Decls]); [Summary.Write] is the one writer,
// as text (the aligned table with a unit in every heading and a legend), CSV (a row per thread
// of each run) or JSON (the document of [RunsSchema], every run's whole Result). [WriteTable],
// [WriteTableOf] and [WriteCSV] are its one-run-per-policy forms. The JSON forms are published
// as a JSON Schema, bench/sim/result.schema.json, against which the tests validate every JSON
// output. bench/host's runs are Results too ([Result.Finish] completes one made outside the
// machine), so the command line puts the kernel's column beside the model's with the same
// writer.
//
// The statistics cost little while the machine runs. A series keeps its first latency sample
// in the thread and the next ones, unsorted, in chunks of sixteen (one cache line) that all
// series take in turn from one arena of the machine, so the thousands of series of a large
// workload write their samples into the few hundred kilobytes handed out last rather than at
// the scattered ends of thousands of arrays (which cost a cache and a TLB miss per sample); a
// series is sorted, counted and its minimum and maximum taken when a Result is made, and moves
// into a Histogram only when it outgrows its exact budget. A thread shares its program's
// attributes until its script changes them and derives its name from its declaration: a thread
// that blocks for good at once costs the machine about 400 bytes beside its policy's state
// (BenchmarkIdleThread measures the two together).
//
// # Inputs that cannot break it
//
// [Config.Validate] bounds every cost by [MaxCost], every time by [MaxTime] and the number of
// threads by [MaxThreadsLimit], so that no sum of times the machine forms can overflow int64; a
// negative or too large time limit is an error. A policy that cannot honour an attribute says
// so before the run ([AttrChecker]: the machine asks about every attribute set the workload can
// produce and names the thread), and one that ran something other than what was asked says so
// after ([ErrReporter]: Result.PolicyErr, included in [Result.Err]).
//
// # The idle loop
//
// [Idle] describes what an idle CPU does, for seed 002's lost wake-ups: a deep idle state that
// takes ExitLatency to leave, reschedule IPIs that are lost with a probability (drawn from a
// stream seeded by Config.Seed) within a window after the CPU went idle, so that the CPU finds
// the thread only at its next clock interrupt (or, with MissTimer, at its tickless idle timer),
// and an idle loop that spins, slowing its SMT siblings by SpinFactor.
//
// Three checkers watch invariants of a correct scheduler ([Invariant]): work conservation (no CPU
// idle while a thread that may run there waits, beyond a bound: the Wasted Cores invariant),
// starvation (no thread runnable without running beyond a bound) and the conservation of threads
// (a policy neither loses nor duplicates a thread; [Machine.Check] verifies it after any event).
// [Result.Err] turns their findings into a test assertion.
//
// The [Trace] records every switch, wake-up, migration, fork, exit, reschedule request (with the
// policy call that made it: a tick's decision, a wake-up's preemption), IPI, attribute change,
// violation and, with Config.Explain, the policy's own explanations, in 24-byte records that
// carry what Perfetto and ftrace exporters need (times, CPUs, thread ids and names, previous
// states, source and destination CPUs).
//
// # Cost
//
// Handling an event costs O(log n) for the event queue plus the policy's own work, and no
// allocation once the machine has warmed up (thread creation, exact latency samples until they
// reach their budget, and a kept trace allocate). A run's cost is linear in its number of
// events. See the benchmarks for figures: BenchmarkPeriodic runs SimSo's periodic task sets
// and reports events per second as SimSo counts them, and scripts/simcount gives the exact
// instructions per such event under callgrind.
//
// # Kernel names
//
//	kernel                                        sim
//	hardclock / statclock, scheduler_tick         clock interrupt: Policy.Tick at TickHz
//	NO_HZ_IDLE, tick_nohz_idle_stop_tick          TicklessIdle, Config.EveryTick
//	context_switch, sched_switch tracepoint       Record of KindSwitch; CPUStats.Switches
//	try_to_wake_up, sched_wakeup tracepoint       Record of KindWakeup; Policy.Wakeup
//	set_task_cpu, sched_migrate_task              Record of KindMigrate; ThreadStats.Migrations
//	resched_curr / need_resched, ipi_cpu(IPI_AST) sched.Env.Resched: at once or after Costs.IPI
//	smp_send_reschedule → scheduler_ipi latency   Costs.IPI
//	try_to_wake_up / sched_add of the waker       Costs.Wakeup
//	hrtimer expiry after the deadline → ttwu      Costs.Timer
//	hrtimer_interrupt's rest, irq_exit, schedule  Costs.TimerExit
//	context_switch, switch_to                     Costs.Switch
//	cache refill after other threads ran          Costs.Refill
//	cache refill after a migration, by level      Costs.Migration (SMT, LLC, Node, Remote)
//	scheduler_tick / hardclock interrupt time     Costs.Tick
//	a machine's measured costs                    Profile (schedbench calibrate)
//	arch_scale_cpu_capacity, SMT contention       Config.Speed, Config.SMTFactor
//	nvcsw, nivcsw                                 ThreadStats.Voluntary, ThreadStats.Involuntary
//	se.sum_exec_runtime, td_runtime               ThreadStats.CPUTime
//	run_delay (schedstat), wake-up latency        ThreadStats.WaitTime, RunqWait, Wakeup
//	schbench request latency                      ThreadStats.Request
//	kern.cp_time (statclock's CP_USER…CP_IDLE)    CPUStats.Ticks, Accounting.User…Idle
//	td_runtime of the idle threads                CPUStats.Idle, Accounting.IdleExact
//	/proc/stat irq                                CPUStats.Interrupt
//	cpu_idle C-state exit latency                 Idle.ExitLatency
//	kvm.halt_poll_ns, cpuidle POLL / haltpoll     Idle.PollWindow
//	kvm_vcpu_halt's polling: IPI by idle time     Idle.IPICurve
//	idle loop halting before an IPI (lost wakeup) Idle.MissProbability, Idle.MissWindow
//	tickless idle timer (getnextcpuevent(idle))   Idle.MissTimer
//	machdep.idle=spin                             Idle.Spin, Idle.SpinFactor
//	pipe_write / pipe_read wake-ups (WF_SYNC)     workload pipes: Send, Recv
//	fork, exit, wait                              workload Fork, Exit, Join
package sim
