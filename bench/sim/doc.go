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
// (a 4-ary heap keyed by time and then by the order events were scheduled): the clock interrupt
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
// end is rescheduled whenever a sibling starts or stops. Optional [Costs] charge a context
// switch, the cache refill after a migration, an IPI's latency and each clock interrupt.
//
// The policy is called at TickHz (ULE and 4BSD account in stathz ticks, CFS at hz), on every
// CPU, busy or idle. It decides what runs: the machine never chooses a thread itself. What the
// machine promises a policy, and expects of it, is the contract documented on [Policy].
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
// # Metrics, checkers and trace
//
// [Result] holds per-thread CPU time, share, run-queue wait, sleep, work done, voluntary and
// involuntary switches, migrations and wake-to-run latencies (exact, with nearest-rank
// percentiles); per-CPU busy, idle, interrupt and switch time; makespan and throughput.
// [WriteTable] puts several runs of one workload side by side.
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
// allocation once the machine has warmed up (thread creation, latency samples and a kept trace
// allocate). A run's cost is linear in its number of events. See the benchmarks for figures.
//
// # Kernel names
//
//	kernel                                        sim
//	hardclock / statclock, scheduler_tick         clock interrupt: Policy.Tick at TickHz
//	context_switch, sched_switch tracepoint       Record of KindSwitch; CPUStats.Switches
//	try_to_wake_up, sched_wakeup tracepoint       Record of KindWakeup; Policy.Wakeup
//	set_task_cpu, sched_migrate_task              Record of KindMigrate; ThreadStats.Migrations
//	resched_curr / need_resched, ipi_cpu(IPI_AST) sched.Env.Resched: at once or after Costs.IPI
//	smp_send_reschedule latency                   Costs.IPI
//	arch_scale_cpu_capacity, SMT contention       Config.Speed, Config.SMTFactor
//	nvcsw, nivcsw                                 ThreadStats.Voluntary, ThreadStats.Involuntary
//	se.sum_exec_runtime, td_runtime               ThreadStats.CPUTime
//	run_delay (schedstat), wake-up latency        ThreadStats.WaitTime, ThreadStats.Latency
//	kern.cp_time / /proc/stat idle, irq           CPUStats.Idle, CPUStats.Interrupt
//	pipe_write / pipe_read wake-ups (WF_SYNC)     workload pipes: Send, Recv
//	fork, exit, wait                              workload Fork, Exit, Join
package sim
