package trace

// This file implements ReadFtrace: ftrace text (tracefs's trace file, trace-cmd report,
// perf sched script) into a workload.

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// maxLine is the longest line ReadFtrace accepts.
const maxLine = 1 << 20

// ReadFtrace imports the scheduler events of an ftrace text trace read from r; file names the
// input in errors and warnings. It reads the three forms Linux tools print:
//
//   - /sys/kernel/tracing/trace and trace_pipe: "comm-pid [cpu] flags ts: event: fields", with
//     the irq-flags column of Linux 4.x to 6.x (four or five characters) and the optional
//     record-tgid column "(tgid)";
//   - `trace-cmd report` (2.x, 3.x), with or without -N (the sched_switch and sched_wakeup
//     plugin forms "comm:pid [prio] S ==> comm:pid [prio]" and "comm:pid [prio] CPU:003" are read
//     too), with or without -t, with an instance name before each line, and with -l (the
//     latency format "comm-pid 0dNs3. ts:", whose flags say which wake-ups came from
//     interrupts: use it, or tracefs's own file, to keep interrupts from passing for wakers);
//   - `perf sched script` and `perf script`: "comm pid [cpu] ts: sched:event: fields".
//
// The events used are sched_switch, sched_wakeup, sched_waking, sched_wakeup_new,
// sched_process_fork, sched_process_exit, sched_process_exec, task_rename and
// sched_stat_runtime, in the field layouts the
// kernel has printed since Linux 4.3 (sched_wakeup without success=) and before it (with
// success=1 — accepted and ignored); sched_migrate_task is counted, and every other event
// (irq, sched_stat_wait, …) is skipped and counted by name in Imported.Skipped.
// sched_process_exit's group_dead (absent in Linux 6.14, present in 6.17 and 6.18) is
// optional, as is sched_stat_runtime's vruntime (printed before Linux 6.8; CFS's virtual
// clock, not used).
//
// CPU time is what each task's switch-in/switch-out pairs on each CPU say, and nothing else:
// the reader keeps, per CPU, the task it runs, and only a switch (or an event recorded in a
// task's context, which shows the task on that CPU) changes it. Two tasks never run on one CPU
// at once, and one task never runs on two: when the trace lacks a switch (events lost, a task
// the tracer does not show switching out, a recording filtered to some tasks), the task the
// reader had on the CPU stops there when another shows up (taken to have blocked), a task
// shown on a second CPU stops on the first, and a counted Warning says so. A task running on
// a CPU when the CPU's record begins (the trace's start, or, after tracefs's "##### CPU N
// buffer started ####", the CPU's first event) has run since then. The CPU time of all tasks
// is therefore at most CPUs × the trace's duration.
//
// sched_stat_runtime, where the trace has it (update_curr emits it for the running task at each
// tick, at its switch-out and when its run queue is updated, for CFS tasks before Linux 6.8
// and every class but idle since), is the kernel's own accounting of the CPU time it charged
// the running task since its last charge or the start of its run (exec_start). It is summed
// in TaskStats.Runtime as a cross-check of the switches, never a source of runs: the runtime
// charged to a run cannot exceed the time from when its task became runnable (the wake-up,
// the fork, the preemption) to its switch-out but by a few microseconds (runtimeSlack), and a
// run that does is a Warning. A run charged less is not: the kernel does not charge the time
// the CPU spent in interrupts or a hypervisor took (with IRQ_TIME_ACCOUNTING,
// PARAVIRT_TIME_ACCOUNTING), which the switches include.
//
// Names follow the trace: sched_process_exec renames the task to the base name of the file it
// runs, task_rename (prctl PR_SET_NAME, a write to /proc/PID/comm) to its new comm, and an
// event field showing another comm does too, each from that point (TaskStats.Renames); the
// thread is named after the last (TaskStats.Comm, TaskStats.Label: tar-4469, not the sh it
// was forked as). tracefs's column of comms comes from its cache of them (saved_cmdlines,
// "<...>" when it misses) and names nothing.
//
// Each task (pid; pid 0, the idle task, is none) becomes a thread whose script is what the
// trace shows it doing: a run per CPU burst (preemptions do not end a burst: the thread's
// CPU need does not change with who preempts it), then, for each time it blocks, either a
// sleep of the blocked time or, when the wake-up names a waker, a receive on a pipe into which
// the waker sends at that instant, so that under another policy the wakee still waits for its
// waker. The waker is the task in whose context sched_waking (or, without it, sched_wakeup)
// was recorded, unless the irq-flags column (tracefs, trace-cmd report -l) says hard or soft
// interrupt context (then it is a timer or device: a sleep); text without that column
// (trace-cmd report without -l, perf) attributes an interrupt's wake-up to the interrupted
// task, a false dependency that TestReadFtraceReal's two trace-cmd imports show side by side. A sched_process_fork makes the child a template
// its parent forks at that point; sched_process_exit ends a script. Kernel prio gives nice
// (100..139) or real-time priority (0..98, imported as SCHED_FIFO: ftrace does not print
// the policy); a later change of prio becomes a nice or class op.
//
// ftrace does not record affinities, yields (prev_state R without + is also a return to
// user space with need_resched) or control groups: the threads are imported unpinned, their
// yields as preemptions, in the root group.
//
// A task that the trace shows first running was running when its CPU's record began
// (TaskStats.RunningAtStart), first switching in was runnable (RunnableAtStart), first being
// woken was asleep (SleepingAtStart): the first two start at the trace's start with what the
// trace shows (a run of the part of the burst it covers, or a wait), the third starts at its
// wake-up. Nothing before the first event is invented.
//
// Per-CPU kernel threads (migration/N, ksoftirqd/N, kworker/N:M, rcu_*, …) are kept as
// CPU-time charges on their CPU, dropped or kept as other tasks, as ImportOptions.KernelThreads
// says (see KernelMode).
//
// Problems that spoil the input — an event line whose header or fields do not parse, a line
// longer than 1 MiB, absurd numbers (a pid above 4M, a prio outside -1..139) — are an *Error
// naming file, line and field, as is an exact import that would need more memory than
// ImportOptions.MemoryLimit. Recoverable ones are counted Warnings: lost-event markers,
// timestamps that go back (the event is taken at the last time), a CPU running a task without
// a switch to it, a task on two CPUs, a fork of a live pid (pid reuse without an exit), a
// truncated last line.
// ReadFtrace reads r once, streaming; its state is per live task (with Summary, nothing
// grows with the number of events). It never panics.
// ReadFtrace panics if r is nil.
func ReadFtrace(r io.Reader, file string, o *ImportOptions) (*Imported, error) {
	if r == nil {
		panic("trace: ReadFtrace of a nil reader")
	}
	wr := &warner{file: file, max: o.maxWarnings()}
	fr := &ftraceReader{b: newBuilder(o.build(), wr.warn), w: wr, skipped: map[string]int64{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var lineNo int
	for {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// Gather a long line up to maxLine.
			long := append([]byte(nil), raw...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxLine {
				raw, err = br.ReadSlice('\n')
				long = append(long, raw...)
			}
			if len(long) > maxLine {
				return nil, &Error{File: file, Line: lineNo + 1, Msg: "line longer than 1 MiB"}
			}
			raw = long
		}
		if len(raw) == 0 && err != nil {
			if err == io.EOF {
				break
			}
			return nil, &Error{File: file, Line: lineNo, Msg: err.Error()}
		}
		lineNo++
		wr.line = lineNo
		last := err == io.EOF
		line := string(bytes.TrimRight(raw, "\r\n"))
		if perr := fr.line(line); perr != nil {
			if last && raw[len(raw)-1] != '\n' {
				wr.warn("truncated last line ignored: %s", perr.msg)
				break
			}
			return nil, &Error{File: file, Line: lineNo, Field: perr.field, Msg: perr.msg}
		}
		if err != nil {
			if err == io.EOF {
				break
			}
			return nil, &Error{File: file, Line: lineNo, Msg: err.Error()}
		}
	}
	wr.line = 0
	return fr.finish()
}

type ftraceReader struct {
	b       *builder
	w       *warner
	skipped map[string]int64
	events  int64
	lastTS  int64
	first   bool
	ncpu    int
	// restart lists the CPUs whose buffer began late ("##### CPU N buffer started ####"):
	// their record begins at their next event.
	restart map[int]bool
}

// lineKind tells the lines the reader handles besides events.
func (fr *ftraceReader) marker(t string) bool {
	switch {
	case strings.HasPrefix(t, "##### CPU ") && strings.HasSuffix(t, "buffer started ####"):
		// tracefs prints this before the first event of a CPU whose ring buffer overwrote its
		// oldest events: the CPU's record begins there, not at the trace's start.
		n, err := strconv.Atoi(strings.Fields(t)[2])
		if err == nil && n >= 0 && n < maxCPU {
			if fr.restart == nil {
				fr.restart = map[int]bool{}
			}
			fr.restart[n] = true
		}
		fr.w.warn("%s: the events of CPU %s before it were overwritten", clip(t), strings.Fields(t)[2])
		return true
	case strings.HasPrefix(t, "CPU:") || strings.HasPrefix(t, "#####") || strings.Contains(t, "EVENTS DROPPED]"):
		fr.w.warn("%s", clip(t))
		return true
	case strings.HasPrefix(t, "CPU ") && strings.HasSuffix(t, " is empty"):
		return true // trace-cmd report: a CPU without events
	}
	return false
}

// line handles one line of text.
func (fr *ftraceReader) line(line string) *fieldError {
	if t := strings.TrimSpace(line); fr.marker(t) {
		return nil
	}
	ev, rest, ok, err := parseHeader(line)
	if err != nil || !ok {
		return err
	}
	switch ev.name {
	case "sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_waking", "sched_migrate_task",
		"sched_process_fork", "sched_process_exit", "sched_stat_runtime", "sched_process_exec", "task_rename":
	default:
		fr.skipped[ev.name]++
		return nil
	}
	if err := parseFields(&ev, rest); err != nil {
		return err
	}
	return fr.event(&ev)
}

// slot returns the builder's state of cpu, noting the CPU; t is the time of an event on it.
func (fr *ftraceReader) slot(cpu int, t int64) *cpuSlot {
	fr.ncpu = max(fr.ncpu, cpu+1)
	sl := fr.b.slot(cpu)
	if fr.restart[cpu] {
		delete(fr.restart, cpu)
		if !sl.known {
			sl.start = t
		}
	}
	return sl
}

// context notes that pid (comm) is running on cpu at t: the task in whose context an event
// was recorded, or the prev of a switch. When the CPU's record has just begun, pid has been
// running on it since then; when the reader had another task (or none) there, the events
// between were lost, and the other task is taken to have blocked at t.
func (fr *ftraceReader) context(cpu, pid int, comm string, t int64) {
	b := fr.b
	sl := fr.slot(cpu, t)
	if pid < 0 {
		return
	}
	if comm == "<...>" {
		comm = "" // tracefs's saved_cmdlines did not have the pid; the event fields will tell
	}
	var tk *task
	if pid > 0 {
		tk = b.live[int64(pid)]
	}
	if sl.known && sl.cur == tk {
		return
	}
	if !sl.known && pid == 0 {
		sl.known = true
		return
	}
	if tk != nil && tk.state == tsDead {
		b.occupy(tk, cpu) // an exited task's exit path, running again after a preemption
		return
	}
	if !sl.known && tk == nil {
		// The CPU's first event: the task has run on it since the CPU's record began.
		tk = b.newTask(int64(pid), comm, sl.start, false)
		b.st(tk).RunningAtStart = true
		b.runFrom(tk, cpu, sl.start)
		return
	}
	// The trace lacks the switch that put pid (or the idle task) here.
	switch {
	case !sl.known:
		fr.w.warn("CPU %d's first event shows pid %d running, which the trace had elsewhere (a switch lost?)", cpu, pid)
	case sl.cur != nil:
		fr.w.warn("CPU %d runs pid %d without a switch to it from %s (events lost?)", cpu, pid, b.label(sl.cur))
	default:
		fr.w.warn("CPU %d runs pid %d without a switch to it from idle (events lost?)", cpu, pid)
	}
	if pid == 0 {
		if sl.cur != nil {
			b.vacate(sl.cur, t)
		}
		sl.known = true
		return
	}
	if tk == nil {
		tk = b.newTask(int64(pid), comm, t, false)
		tk.state = tsRunnable
	} else if tk.state == tsRunning {
		fr.w.warn("pid %d runs on CPU %d while running on CPU %d (events lost?)", pid, cpu, tk.cpu)
	}
	b.run(tk, cpu, t)
	tk.rtFloor = t // the trace does not show the run's start
}

func (fr *ftraceReader) event(ev *event) *fieldError {
	b := fr.b
	if b.started && ev.ts-b.start > int64(workload.MaxDuration) {
		return badField("timestamp", "%d ns after the first event, beyond the 2^48 ns a workload can span", ev.ts-b.start)
	}
	fr.events++
	if fr.first && ev.ts < fr.lastTS {
		fr.w.warn("timestamp goes back by %d ns; the event is taken at the previous time", fr.lastTS-ev.ts)
	} else {
		fr.lastTS = ev.ts
	}
	fr.first = true
	t := b.at(ev.ts)
	if ev.name == "sched_switch" {
		fr.context(ev.cpu, ev.prevPid, ev.prevComm, t) // a switch's task is its prev
	} else {
		fr.context(ev.cpu, ev.pid, ev.task, t)
	}
	switch ev.name {
	case "sched_switch":
		if ev.prevPid != 0 {
			fr.switchOut(ev, t)
		}
		if ev.nextPid != 0 {
			fr.switchIn(ev, t)
		}
	case "sched_wakeup", "sched_wakeup_new", "sched_waking":
		if !fr.wakeup(ev, t) {
			return nil // as the event had not been: no memory check either
		}
	case "sched_migrate_task":
		fr.slot(ev.orig, t)
		fr.slot(ev.dest, t)
	case "sched_process_fork":
		var parent *task
		if p := b.live[int64(ev.pid2)]; p != nil && p.state != tsDead && ev.pid2 != 0 {
			parent = p
		}
		if ev.childPid != 0 {
			child := b.fork(parent, int64(ev.childPid), ev.childComm, t)
			b.st(child).Parent = int64(ev.pid2)
		}
	case "sched_process_exit":
		if tk := b.live[int64(ev.pid2)]; tk != nil {
			b.exit(tk, t)
		}
	case "sched_process_exec":
		fr.exec(ev, t)
	case "task_rename":
		if tk := b.live[int64(ev.pid2)]; tk != nil {
			b.comm(tk, ev.comm, t)
		}
	case "sched_stat_runtime":
		// The running task of some run queue: this CPU's (the event's own task), or another's
		// that this CPU updated holding its lock (a remote wake-up's enqueue, a load balance).
		// A task the importer does not have running is not charged. The runtime is a
		// cross-check of the switches' accounting, not a source of runs.
		if tk := b.live[int64(ev.pid2)]; tk != nil && ev.pid2 != 0 {
			b.runtime(tk, ev.runtime, t)
		}
	}
	if b.o.maxBytes > 0 && fr.events&4095 == 0 && b.memBytes() > b.o.maxBytes {
		return &fieldError{msg: memoryMessage(b)}
	}
	return nil
}

// switchIn is the switch-in half of a sched_switch: the next task runs on the event's CPU from
// t (a task the trace has not shown before was runnable from the start).
func (fr *ftraceReader) switchIn(ev *event, t int64) {
	b := fr.b
	tk := b.live[int64(ev.nextPid)]
	if tk != nil && tk.state == tsDead {
		// It exited and was preempted on its exit path: back on a CPU, uncharged,
		// until its last switch-out.
		b.occupy(tk, ev.cpu)
		return
	}
	if tk == nil {
		tk = b.newTask(int64(ev.nextPid), ev.nextComm, 0, false)
		tk.state, tk.since = tsRunnable, 0
		b.st(tk).RunnableAtStart = true
	} else if tk.state == tsRunning && tk.cpu != ev.cpu {
		fr.w.warn("%s switched in on CPU %d while running on CPU %d (events lost?)", b.label(tk), ev.cpu, tk.cpu)
	}
	b.setPrio(tk, ev.nextPrio)
	b.comm(tk, ev.nextComm, t)
	b.run(tk, ev.cpu, t)
}

// wakeup is a sched_wakeup, sched_wakeup_new or sched_waking: the task becomes runnable at t,
// woken by the event's task when that runs on the event's CPU and is another task. It reports
// false for a wake-up it leaves out: of pid 0, or of an exited task on its exit path.
func (fr *ftraceReader) wakeup(ev *event, t int64) bool {
	b := fr.b
	if ev.pid2 == 0 {
		return false
	}
	fr.slot(ev.target, t)
	tk := b.live[int64(ev.pid2)]
	if tk != nil && tk.state == tsDead {
		return false
	}
	if tk == nil {
		tk = b.newTask(int64(ev.pid2), ev.comm, t, false)
		tk.state, tk.since = tsBlocked, t
		if ev.name == "sched_wakeup_new" {
			b.st(tk).Forked = true
			tk.fresh = true
		} else {
			b.st(tk).SleepingAtStart = true
		}
	}
	b.setPrio(tk, ev.prio)
	b.comm(tk, ev.comm, t)
	var waker *task
	if ev.name != "sched_wakeup_new" && !ev.irq && ev.pid > 0 && ev.pid != ev.pid2 {
		if w := b.live[int64(ev.pid)]; w != nil && w.state == tsRunning && w.cpu == ev.cpu {
			waker = w
		}
	}
	// A wake-up onto another CPU that the trace shows idle sent it a reschedule IPI (this
	// is what a replay machine charges the waker as Costs.IPISend).
	ipi := waker != nil && ev.target >= 0 && ev.target != ev.cpu && ev.target < len(b.cpus) &&
		b.cpus[ev.target].known && b.cpus[ev.target].cur == nil
	b.wakeTask(tk, waker, t, ipi)
	return true
}

// exec is a sched_process_exec: the exec'ing task takes the name of the file it runs
// (begin_new_exec sets comm to its base name, cut to TASK_COMM_LEN-1 bytes); a thread other
// than the leader that execs takes the leader's pid (old_pid → pid, de_thread).
func (fr *ftraceReader) exec(ev *event, t int64) {
	b := fr.b
	tk := b.live[int64(ev.childPid)]
	if ev.childPid != ev.pid2 && tk != nil {
		if old := b.live[int64(ev.pid2)]; old != nil && old != tk {
			b.exit(old, t)
		}
		delete(b.live, tk.key)
		tk.key = int64(ev.pid2)
		b.live[tk.key] = tk
		b.st(tk).PID = tk.key
	}
	if tk = b.live[int64(ev.pid2)]; tk != nil {
		b.comm(tk, ev.comm, t)
	}
}

func (fr *ftraceReader) switchOut(ev *event, t int64) {
	b := fr.b
	key := int64(ev.prevPid)
	tk := b.live[key]
	if tk != nil && tk.state == tsDead {
		b.vacate(tk, t)
		if st := ev.prevState; !strings.HasPrefix(st, "R") && !strings.HasPrefix(st, "D") {
			delete(b.live, key) // its last switch, after sched_process_exit
		}
		return
	}
	if tk == nil {
		return // context() made it running; a pid 0 prev has no task
	}
	b.setPrio(tk, ev.prevPrio)
	b.comm(tk, ev.prevComm, t)
	if tk.state != tsRunning {
		fr.w.warn("pid %d switches out but was not running (events lost?)", ev.prevPid)
		b.run(tk, ev.cpu, t)
	}
	switch st := ev.prevState; {
	case strings.HasPrefix(st, "R"):
		b.stop(tk, t, true)
	case strings.HasPrefix(st, "X") || strings.HasPrefix(st, "Z"):
		b.exit(tk, t)
		b.vacate(tk, t)
		delete(b.live, key)
	default:
		b.stop(tk, t, false)
	}
}

func (fr *ftraceReader) finish() (*Imported, error) {
	b := fr.b
	end := b.last
	b.end(end)
	res, err := b.workload(fr.ncpu)
	if err != nil {
		return nil, &Error{File: fr.w.file, Msg: err.Error()}
	}
	return &Imported{Workload: res.w, Tasks: res.tasks, Dropped: res.dropped, Charged: res.charged, Duration: end,
		CPUs: max(fr.ncpu, 1), Events: fr.events, Skipped: fr.skipped, Warnings: fr.w.list, Warned: fr.w.n}, nil
}
