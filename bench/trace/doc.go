// Package trace moves scheduling traces in and out of schedkit: it exports what the simulator
// recorded (a sim.Trace) as the files kernel people already read, and imports what real
// systems recorded as workloads the simulator can replay under any policy.
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
//
// Both walk the records once and stream: their memory is per thread and per CPU, never per
// record, so a trace of ten million records exports in the memory of a small one. One thing
// needs looking ahead: the simulator's Wakeup record names the waker's CPU, not the queue the
// policy put the wakee on, and the kernel's target_cpu (and the run-queue counters) need that
// queue. The exporters take it to be the CPU the thread next runs on, found by a cursor that
// runs ahead of the writer and holds at most MaxLookahead switches; a thread that does not run
// again within that window is counted on the CPU it last ran on.
//
// Perfetto's own protobuf format is not written: no maintained Go encoding of its schema is
// at hand, and the JSON form carries everything the simulator records.
//
// # Kernel and tool names
//
//	kernel / tool                                 trace
//	sched:sched_switch                            a sim.KindSwitch record; prev_state S, R+, R, X
//	sched:sched_wakeup, sched_wakeup_new          sim.KindWakeup (WakeFork: _new)
//	sched:sched_migrate_task                      sim.KindMigrate
//	sched:sched_process_fork, sched_process_exit  sim.KindFork (forked threads only), sim.KindExit
//	task_struct.prio (120+nice, 99-rt_priority)   KernelPrio
//	pid, comm (TASK_COMM_LEN)                     DefaultPIDBase + id, the thread's name cut to 15 bytes
//	swapper/N, pid 0, "<idle>-0"                  no thread running (id -1)
//	trace event "X" / "i" / "s","f" / "C"         a run / wake-up or migration / wake-up arrow / nr_running
package trace
