package trace

// This file implements ReadFtrace: ftrace text (tracefs's trace file, trace-cmd report,
// perf sched script) into a workload.

import (
	"bufio"
	"bytes"
	"errors"
	"io"
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
// sched_process_fork, sched_process_exit and sched_stat_runtime, in the field layouts the
// kernel has printed since Linux 4.3 (sched_wakeup without success=) and before it (with
// success=1 — accepted and ignored); sched_migrate_task is counted, and every other event
// (irq, sched_stat_wait, …) is skipped and counted by name in Imported.Skipped.
// sched_process_exit's group_dead (absent in Linux 6.14, present in 6.17 and 6.18) is
// optional, as is sched_stat_runtime's vruntime (printed before Linux 6.8; CFS's virtual
// clock, not used).
//
// sched_stat_runtime, where the trace has it (update_curr emits it for the running task
// at each tick, at its switch-out and when its run queue is updated, for CFS tasks before
// Linux 6.8 and every class but idle since), is the kernel's own accounting of the CPU time
// it charged the running task since its last charge or the start of its run (exec_start).
// It is summed in TaskStats.Runtime. It dates a run the trace shows without its switch-in
// (a task running when the trace began, or on a CPU whose events start late or are
// missing): when the first event showing the task running is its own sched_stat_runtime
// (recorded on its CPU), its run is taken to have begun runtime ns earlier, but not before
// the trace's start, the CPU's last sched_switch or the task's last event; otherwise at
// that event, as without it. And it checks the runs computed from switches: the runtime
// charged to a run cannot exceed the time from when its task became runnable (the wake-up,
// the fork, the preemption) to its switch-out but by a few microseconds (runtimeSlack), and
// a run that does is a Warning. A run charged less is not: the kernel does not charge the
// time the CPU spent in interrupts or a hypervisor took (with IRQ_TIME_ACCOUNTING,
// PARAVIRT_TIME_ACCOUNTING), which the switches include. The runs of the workload, CPUTime
// and what Replay compares stay the times between switches: the time a task held its CPU.
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
// A task that the trace shows first switching out was running when the trace began
// (TaskStats.RunningAtStart), first switching in was runnable (RunnableAtStart), first being
// woken was asleep (SleepingAtStart): the first two start at the trace's start with what the
// trace shows (a run of the part of the burst it covers, or a wait), the third starts at its
// wake-up. Nothing before the first event is invented. A running task first shown by its
// own sched_stat_runtime is RunningAtStart too, but starts when that charge dates its run.
//
// Problems that spoil the input — an event line whose header or fields do not parse, a line
// longer than 1 MiB, absurd numbers (a pid above 4M, a prio outside -1..139) — are an *Error
// naming file, line and field. Recoverable ones are counted Warnings: lost-event markers,
// timestamps that go back (the event is taken at the last time), a switch from a task the CPU
// was not running, a fork of a live pid (pid reuse without an exit), a truncated last line.
// ReadFtrace reads r once, streaming; its state is per live task (with Summary, nothing
// grows with the number of events). It never panics.
func ReadFtrace(r io.Reader, file string, o *ImportOptions) (*Imported, error) {
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
	cur     []int   // per CPU, the pid running (0: idle, -1: not known yet)
	swAt    []int64 // per CPU, the time of its last sched_switch (0 before the first)
	ncpu    int
}

// line handles one line of text.
func (fr *ftraceReader) line(line string) *fieldError {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "CPU:") || strings.HasPrefix(t, "#####") || strings.Contains(t, "EVENTS DROPPED]") {
		fr.w.warn("%s", clip(t))
		return nil
	}
	ev, rest, ok, err := parseHeader(line)
	if err != nil || !ok {
		return err
	}
	switch ev.name {
	case "sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_waking", "sched_migrate_task",
		"sched_process_fork", "sched_process_exit", "sched_stat_runtime":
	default:
		fr.skipped[ev.name]++
		return nil
	}
	if err := parseFields(&ev, rest); err != nil {
		return err
	}
	return fr.event(&ev)
}

func (fr *ftraceReader) curOn(cpu int) *int {
	for len(fr.cur) <= cpu {
		fr.cur = append(fr.cur, -1)
		fr.swAt = append(fr.swAt, 0)
	}
	fr.ncpu = max(fr.ncpu, cpu+1)
	return &fr.cur[cpu]
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
	if ev.pid > 0 && ev.name != "sched_switch" {
		// (A switch's task is its prev, which switchOut handles.) The task in whose context the event was recorded is the one running on that CPU: if
		// the trace has not shown it, it was running when the trace began; if the trace shows it
		// elsewhere, the events that put it here are missing (a recording of some tasks only,
		// such as perf sched record's).
		//
		// Its own sched_stat_runtime says since when: the kernel charged it runtime ns up to
		// now, so its run began at about t-runtime (its exec_start, which the kernel read at
		// most that long ago) — but not before the trace, the CPU's last switch, or its own
		// last event, which bound it.
		tk := b.live[int64(ev.pid)]
		own := ev.name == "sched_stat_runtime" && ev.pid == ev.pid2
		fr.curOn(ev.cpu)
		lo := fr.swAt[ev.cpu]
		switch {
		case tk == nil:
			at := int64(0)
			if own {
				at = max(t-ev.runtime, lo)
			}
			tk = b.newTask(int64(ev.pid), ev.task, at, false)
			tk.state, tk.since, tk.cpu = tsRunning, at, ev.cpu
			b.st(tk).RunningAtStart = true
			*fr.curOn(ev.cpu) = ev.pid
		case tk.state == tsRunnable || tk.state == tsBlocked:
			fr.w.warn("pid %d runs on CPU %d without a switch to it (events missing?)", ev.pid, ev.cpu)
			at := t
			if own {
				at = max(t-ev.runtime, lo, tk.since)
			}
			b.run(tk, ev.cpu, at)
			tk.rtFloor = at // the trace does not show the run's start
			*fr.curOn(ev.cpu) = ev.pid
		}
	}
	switch ev.name {
	case "sched_switch":
		cur := fr.curOn(ev.cpu)
		if *cur >= 0 && *cur != ev.prevPid {
			fr.w.warn("CPU %d switches from pid %d, but it was running pid %d (events lost?)", ev.cpu, ev.prevPid, *cur)
		}
		*cur = ev.nextPid
		fr.swAt[ev.cpu] = t
		if ev.prevPid != 0 {
			fr.switchOut(ev, t)
		}
		if ev.nextPid != 0 {
			tk := b.live[int64(ev.nextPid)]
			if tk == nil || tk.state == tsDead {
				if tk != nil {
					delete(b.live, tk.key)
				}
				tk = b.newTask(int64(ev.nextPid), ev.nextComm, 0, false)
				tk.state, tk.since = tsRunnable, 0
				b.st(tk).RunnableAtStart = true
			}
			b.setPrio(tk, ev.nextPrio)
			b.comm(tk, ev.nextComm)
			b.run(tk, ev.cpu, t)
		}
	case "sched_wakeup", "sched_wakeup_new", "sched_waking":
		fr.curOn(ev.cpu)
		if ev.pid2 == 0 {
			return nil
		}
		fr.curOn(ev.target)
		tk := b.live[int64(ev.pid2)]
		if tk == nil || tk.state == tsDead {
			if tk != nil {
				delete(b.live, tk.key)
			}
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
		b.comm(tk, ev.comm)
		var waker *task
		if ev.name != "sched_wakeup_new" && !ev.irq && ev.pid > 0 && ev.pid != ev.pid2 {
			if w := b.live[int64(ev.pid)]; w != nil && w.state == tsRunning && w.cpu == ev.cpu {
				waker = w
			}
		}
		b.wakeTask(tk, waker, t)
	case "sched_migrate_task":
		fr.curOn(ev.orig)
		fr.curOn(ev.dest)
	case "sched_process_fork":
		fr.curOn(ev.cpu)
		var parent *task
		if p := b.live[int64(ev.pid2)]; p != nil && p.state != tsDead && ev.pid2 != 0 {
			parent = p
		}
		if ev.childPid != 0 {
			b.fork(parent, int64(ev.childPid), ev.childComm, t)
		}
	case "sched_process_exit":
		fr.curOn(ev.cpu)
		if tk := b.live[int64(ev.pid2)]; tk != nil {
			b.exit(tk, t)
		}
	case "sched_stat_runtime":
		// The running task of some run queue: this CPU's (the event's own task, handled
		// above), or another's that this CPU updated holding its lock (a remote wake-up's
		// enqueue, a load balance). A task the importer does not have running is not charged.
		fr.curOn(ev.cpu)
		if tk := b.live[int64(ev.pid2)]; tk != nil && ev.pid2 != 0 {
			b.runtime(tk, ev.runtime, t)
		}
	}
	return nil
}

func (fr *ftraceReader) switchOut(ev *event, t int64) {
	b := fr.b
	key := int64(ev.prevPid)
	tk := b.live[key]
	if tk != nil && tk.state == tsDead {
		delete(b.live, key) // its last switch, after sched_process_exit
		return
	}
	if tk == nil {
		tk = b.newTask(key, ev.prevComm, 0, false)
		tk.state, tk.since, tk.cpu = tsRunning, 0, ev.cpu
		b.st(tk).RunningAtStart = true
	}
	b.setPrio(tk, ev.prevPrio)
	b.comm(tk, ev.prevComm)
	if tk.state != tsRunning {
		fr.w.warn("pid %d switches out but was not running (events lost?)", ev.prevPid)
		tk.state, tk.since = tsRunning, t
	}
	switch st := ev.prevState; {
	case strings.HasPrefix(st, "R"):
		b.stop(tk, t, true)
	case strings.HasPrefix(st, "X") || strings.HasPrefix(st, "Z"):
		b.exit(tk, t)
		delete(b.live, key)
	default:
		b.stop(tk, t, false)
	}
}

func (fr *ftraceReader) finish() (*Imported, error) {
	b := fr.b
	end := b.last
	b.end(end)
	w, err := b.workload()
	if err != nil {
		return nil, &Error{File: fr.w.file, Msg: err.Error()}
	}
	return &Imported{Workload: w, Tasks: b.stats, Duration: end, CPUs: max(fr.ncpu, 1), Events: fr.events,
		Skipped: fr.skipped, Warnings: fr.w.list, Warned: fr.w.n}, nil
}
