package trace

// This file implements TaskStats, what a trace says of one task: its identity and names, its
// timing as recorded, and what the trace does not show.

import "strconv"

// A TaskStats is what a trace says about one task: its identity, its timing as recorded, and
// what the trace does not show.
type TaskStats struct {
	// Name is the task's thread declaration in the imported workload, made of its last name and
	// its pid (tar-4469); SimName is the name the simulator gives its thread (Name.0 for a forked
	// task, whose declaration is a template).
	Name, SimName string
	// Comm and PID are the task's name (the last the trace shows: exec and prctl change it) and
	// id in the trace (a goroutine's id for Go traces, whose Comm is the function the goroutine
	// started in).
	Comm string
	PID  int64
	// Parent is the id of the task the trace shows forking it, or 0 (ftrace's sched_process_fork
	// parent pid, a goroutine's creator; KTR has no fork).
	Parent int64
	// Renames are the names the task took after its first, in order, each with when it took it
	// (sched_process_exec, task_rename, or an event showing another comm).
	Renames []Rename
	// Start and End are when the trace first and last shows the task, in nanoseconds from the
	// trace's first event.
	Start, End int64
	// CPUTime, WaitTime and Sleep are the nanoseconds the trace shows it running, runnable
	// and blocked. CPUTime is what the task's switch-in/switch-out pairs on each CPU add up to:
	// the runs of all tasks on one CPU never overlap, so that the CPU time of all tasks is at
	// most the trace's CPUs × its duration.
	CPUTime, WaitTime, Sleep int64
	// Wakeups counts its wake-ups; LatencySum and LatencyMax are the total and the largest
	// wake-up-to-run latency over the wake-ups followed by a run.
	Wakeups, Latencies     int64
	LatencySum, LatencyMax int64
	// Switches counts its switch-outs; Preemptions those that left it runnable.
	Switches, Preemptions int64
	// Migrations counts its moves between CPUs.
	Migrations int64
	// Runtime is the CPU time the kernel's own accounting charged to the task, the sum of the
	// runtime fields of the sched_stat_runtime events for it (ftrace only, where the trace has
	// them: the CFS class before Linux 6.8, every class but idle since), counted while the
	// importer has the task running and, for a run whose beginning the trace does not show,
	// only for the part of it the trace covers; RuntimeEvents counts the events. It is a
	// cross-check of CPUTime, never a source of it: the kernel charges from rq_clock_task,
	// which leaves out the time the CPU spent in interrupts or stolen by a hypervisor (with
	// IRQ_TIME_ACCOUNTING, PARAVIRT_TIME_ACCOUNTING), so CPUTime − Runtime is about that time,
	// and a run charged more than it lasted is a Warning.
	Runtime, RuntimeEvents int64
	// RunningAtStart, RunnableAtStart and SleepingAtStart mark a task that the trace first shows
	// switching out, switching in or being woken without having shown it before: it existed
	// before the trace began, and its first interval is only the part the trace covers.
	RunningAtStart, RunnableAtStart, SleepingAtStart bool
	// Forked says the trace shows its creation; Exited its exit.
	Forked, Exited bool
	// KThread says the task's last name is a per-CPU kernel thread's (see KernelMode);
	// KThreadCPU is the CPU the name binds it to, or -1 (rcu_*, bound to none).
	KThread    bool
	KThreadCPU int
	// Charged says the import kept the task as a CPU-time charge (KernelCharge): pinned to
	// KThreadCPU, its wake-ups sleeps of their recorded length.
	Charged bool
}

// A Rename is a name a task took, and when (nanoseconds from the trace's first event).
type Rename struct {
	At   int64
	Comm string
}

// Label returns the task's last name and its pid as the tables print it: "tar-4469",
// "main.worker-17".
func (t *TaskStats) Label() string {
	return t.Comm + "-" + strconv.FormatInt(t.PID, 10)
}

// MeanLatency returns the mean wake-up-to-run latency, or 0 without samples.
func (t *TaskStats) MeanLatency() int64 {
	if t.Latencies == 0 {
		return 0
	}
	return t.LatencySum / t.Latencies
}
