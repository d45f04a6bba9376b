package trace

// This file implements builder: the state machine, one small state per live task, that turns
// a stream of scheduling transitions (runs, blocks, wake-ups by a waker, forks, exits), from
// whichever trace format, into a workload.Workload and the trace's own per-task timing.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
)

// A TaskStats is what a trace says about one task: its identity, its timing as recorded, and
// what the trace does not show.
type TaskStats struct {
	// Name is the task's thread declaration in the imported workload; SimName is the name the
	// simulator gives its thread (Name.0 for a forked task, whose declaration is a template).
	Name, SimName string
	// Comm and PID are the task's name (the last the trace shows: exec changes it) and id in
	// the trace (a goroutine's id for Go traces).
	Comm string
	PID  int64
	// Start and End are when the trace first and last shows the task, in nanoseconds from the
	// trace's first event.
	Start, End int64
	// CPUTime, WaitTime and Sleep are the nanoseconds the trace shows it running, runnable
	// and blocked.
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
	// only for the part of it the trace covers; RuntimeEvents counts the events. The kernel
	// charges from rq_clock_task, which leaves out the time the CPU spent in interrupts or
	// stolen by a hypervisor (with IRQ_TIME_ACCOUNTING, PARAVIRT_TIME_ACCOUNTING): CPUTime −
	// Runtime is about that time. CPUTime, measured between switches, stays what the
	// workload's runs are made of and what Replay compares: it is the time the task held its
	// CPU, which is what a replay can reproduce.
	Runtime, RuntimeEvents int64
	// RunningAtStart, RunnableAtStart and SleepingAtStart mark a task that the trace first shows
	// switching out, switching in or being woken without having shown it before: it existed
	// before the trace began, and its first interval is only the part the trace covers.
	RunningAtStart, RunnableAtStart, SleepingAtStart bool
	// Forked says the trace shows its creation; Exited its exit.
	Forked, Exited bool
}

// MeanLatency returns the mean wake-up-to-run latency, or 0 without samples.
func (t *TaskStats) MeanLatency() int64 {
	if t.Latencies == 0 {
		return 0
	}
	return t.LatencySum / t.Latencies
}

// noPrio is a task's prio before the trace shows one.
const noPrio = -2

type taskState uint8

const (
	tsRunning taskState = iota
	tsRunnable
	tsBlocked
	tsDead
)

// A task is the builder's state for one live task.
type task struct {
	key   int64
	decl  int // index in the workload's threads
	stats int // index in the stats
	state taskState
	cpu   int
	since int64 // when the current state began
	burst int64 // CPU time since the last op that is not a run
	woken int64 // when it was last woken, or -1
	prio  int   // last prio seen, or -1
	fresh bool  // forked and not yet woken: the wait for sched_wakeup_new is no sleep
	// sched_stat_runtime: the runtime charged in the current run (raw and as credited to
	// Runtime), the number of events, the time before which none is credited (-1: no
	// bound, the trace shows the run's start) and the time since which the task has been
	// runnable when the trace shows it (-1 if not), from which the run's runtime is bounded.
	rtSum, rtCred, rtEvents int64
	rtFloor, rtFrom         int64
	ops                     []workload.Op
	// Summary mode: the totals the loop's distributions are made from.
	runs, sleeps         int64
	runTotal, sleepTotal int64
}

// buildOptions are what the builder needs of an importer's options.
type buildOptions struct {
	summary bool
	noPipes bool
}

type builder struct {
	o       buildOptions
	w       workload.Workload
	stats   []TaskStats
	live    map[int64]*task
	names   map[string]int
	pipes   map[[2]int]string // (waker decl, wakee decl) → pipe
	start   int64             // the first event's time
	started bool
	last    int64
	warn    func(format string, args ...any)
}

func newBuilder(o buildOptions, warn func(string, ...any)) *builder {
	return &builder{o: o, live: map[int64]*task{}, names: map[string]int{}, pipes: map[[2]int]string{}, warn: warn}
}

// at converts an absolute time to the builder's, relative to the first event.
func (b *builder) at(ts int64) int64 {
	if !b.started {
		b.started, b.start = true, ts
	}
	t := ts - b.start
	if t < b.last {
		t = b.last
	}
	b.last = t
	return t
}

// declName returns a valid, unique thread name for comm and key.
func (b *builder) declName(comm string, key int64) string {
	var sb strings.Builder
	for i, r := range comm {
		ok := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && (r == '-' || '0' <= r && r <= '9')
		if i == 0 && !ok {
			sb.WriteByte('t')
			sb.WriteByte('_')
			ok = r == '-' || '0' <= r && r <= '9'
		}
		if ok {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
		if sb.Len() > 32 {
			break
		}
	}
	if sb.Len() == 0 {
		sb.WriteString("task")
	}
	sb.WriteByte('-')
	sb.WriteString(strconv.FormatInt(key, 10))
	name := sb.String()
	if n := b.names[name]; n > 0 {
		b.names[name] = n + 1
		name += "-" + strconv.Itoa(n+1)
	} else {
		b.names[name] = 1
	}
	return name
}

// newTask declares a task first seen at t (relative). A forked task's declaration is a template
// its parent forks.
func (b *builder) newTask(key int64, comm string, t int64, forked bool) *task {
	name := b.declName(comm, key)
	th := workload.Thread{Name: name, Template: forked}
	if !forked {
		th.Start = workload.Duration(t)
	}
	b.w.Threads = append(b.w.Threads, th)
	simName := name
	if forked {
		simName += ".0"
	}
	b.stats = append(b.stats, TaskStats{Name: name, SimName: simName, Comm: comm, PID: key, Start: t, End: t, Forked: forked})
	tk := &task{key: key, decl: len(b.w.Threads) - 1, stats: len(b.stats) - 1, since: t, woken: -1, prio: noPrio, cpu: -1,
		rtFloor: t, rtFrom: -1}
	b.live[key] = tk
	return tk
}

func (b *builder) st(tk *task) *TaskStats { return &b.stats[tk.stats] }

// op appends an op to tk's script, after its pending CPU burst.
func (b *builder) op(tk *task, op workload.Op) {
	b.flush(tk)
	if !b.o.summary {
		tk.ops = append(tk.ops, op)
	}
}

// flush ends tk's current CPU burst: a run op of the CPU time accumulated since the last op.
func (b *builder) flush(tk *task) {
	if tk.burst <= 0 {
		return
	}
	if b.o.summary {
		tk.runs++
		tk.runTotal += tk.burst
	} else {
		d := workload.Duration(min(tk.burst, int64(workload.MaxDuration)))
		tk.ops = append(tk.ops, workload.RunOp(workload.Fixed(d)))
	}
	tk.burst = 0
}

// setPrio notes the kernel prio seen for tk; a change becomes a nice or class op.
func (b *builder) setPrio(tk *task, prio int) {
	if prio == tk.prio || prio < -1 {
		return
	}
	a, ok := attrFromPrio(prio)
	if !ok {
		if tk.prio == noPrio {
			b.warn("prio %d of %s is not one schedkit can express (SCHED_DEADLINE?); imported as SCHED_OTHER nice 0", prio, b.stats[tk.stats].Name)
		}
		tk.prio = prio
		return
	}
	first := tk.prio == noPrio
	tk.prio = prio
	th := &b.w.Threads[tk.decl]
	if first {
		// The first prio the trace shows is taken to be the task's from its start.
		th.Class, th.Nice, th.RTPrio = a.Class, a.Nice, a.RTPrio
		return
	}
	if a.Class.RealTime() {
		b.op(tk, workload.Op{Kind: workload.SetClass, Class: a.Class, N: a.RTPrio})
	} else {
		if th.Class.RealTime() {
			b.op(tk, workload.Op{Kind: workload.SetClass, Class: sched.Normal})
		}
		b.op(tk, workload.Op{Kind: workload.Nice, N: a.Nice})
	}
}

// comm notes the name the trace now gives tk: after an exec it changes. The declaration keeps
// the first; TaskStats.Comm follows.
func (b *builder) comm(tk *task, comm string) {
	if s := b.st(tk); s.Comm != comm && comm != "" {
		s.Comm = comm
	}
}

// run: tk starts running on cpu at t.
func (b *builder) run(tk *task, cpu int, t int64) {
	s := b.st(tk)
	switch tk.state {
	case tsRunnable:
		s.WaitTime += t - tk.since
		if tk.woken >= 0 {
			lat := t - tk.woken
			s.Latencies++
			s.LatencySum += lat
			s.LatencyMax = max(s.LatencyMax, lat)
			tk.woken = -1
		}
	case tsRunning:
		if tk.cpu != cpu {
			b.warn("%s switched in on CPU %d while running on CPU %d", s.Name, cpu, tk.cpu)
		}
		b.stop(tk, t, true)
		return
	case tsBlocked:
		// A switch-in without a wake-up: the wake-up was lost or is not traced.
		b.wakeTask(tk, nil, t)
		b.run(tk, cpu, t)
		return
	}
	if tk.cpu >= 0 && tk.cpu != cpu {
		s.Migrations++
	}
	tk.state, tk.cpu, tk.since = tsRunning, cpu, t
	tk.rtSum, tk.rtCred, tk.rtEvents, tk.rtFloor = 0, 0, 0, -1
	s.End = t
}

// runtimeSlack is how far the runtime sched_stat_runtime charges to a run may exceed the time
// from when the task became runnable to when it switched out before checkRuntime warns, in
// nanoseconds: 1 µs for timestamps printed to the microsecond (each truncated, so an interval
// between two is short by less than 1 µs), and a few µs for the scheduler's path between the
// clock update that dates the run's start (exec_start = rq_clock_task at the enqueue's or the
// pick's update_rq_clock) and a tracepoint that follows it (sched_wakeup, sched_wakeup_new
// and sched_switch are recorded after the update, interrupts off and the run-queue lock
// held: 3 µs measured on the VM that recorded testdata). runtimeSlackPPM adds 500 ppm of
// the interval for a trace clock other than the scheduler's (mono, global: NTP slews them by
// at most MAXFREQ, 500 ppm).
const (
	runtimeSlack    = 5000
	runtimeSlackPPM = 500
)

// runtime charges ns of CPU time to tk at t, as a sched_stat_runtime event for it does.
// Only a running task is charged.
func (b *builder) runtime(tk *task, ns, t int64) {
	if tk.state != tsRunning {
		return
	}
	s := b.st(tk)
	tk.rtSum += ns
	tk.rtEvents++
	s.RuntimeEvents++
	cred := tk.rtSum
	if tk.rtFloor >= 0 {
		cred = min(cred, max(t-tk.rtFloor, 0))
	}
	s.Runtime += cred - tk.rtCred
	tk.rtCred = cred
}

// checkRuntime compares, as tk's run ends at t, the runtime charged to it with the run. The
// kernel's exec_start is read when the run is picked (or, when the CPU skips a back-to-back
// clock update, at the wake-up's update), never before the task became runnable, and its
// last charge before the switch-out: the runtime of the run cannot exceed the time from then
// to t but by runtimeSlack. More would mean events the trace lacks or confuses (a lost
// switch, a reused pid). Less is no disagreement: interrupt and steal time are not charged.
func (b *builder) checkRuntime(tk *task, t int64) {
	if tk.rtEvents == 0 || tk.rtFloor >= 0 || tk.rtFrom < 0 {
		return
	}
	span := t - tk.rtFrom
	if tk.rtSum > span+runtimeSlack+span*runtimeSlackPPM/1e6 {
		b.warn("sched_stat_runtime charges %s %d ns in a run of %d ns, %d ns after it became runnable",
			b.st(tk).Name, tk.rtSum, t-tk.since, span)
	}
}

// stop: tk stops running at t; runnable says it stays runnable (preempted or yielded).
func (b *builder) stop(tk *task, t int64, runnable bool) {
	s := b.st(tk)
	if tk.state == tsRunning {
		d := t - tk.since
		s.CPUTime += d
		tk.burst += d
		s.Switches++
		b.checkRuntime(tk, t)
		tk.rtSum, tk.rtCred, tk.rtEvents = 0, 0, 0
	}
	s.End = t
	tk.since = t
	if runnable {
		s.Preemptions++
		tk.state, tk.rtFrom = tsRunnable, t
		return
	}
	b.flush(tk)
	tk.state, tk.rtFrom = tsBlocked, -1
}

// wake: tk is woken at t by waker (nil for a timer, an interrupt or a task outside the trace).
func (b *builder) wakeTask(tk *task, waker *task, t int64) {
	s := b.st(tk)
	if tk.state != tsBlocked {
		return
	}
	d := t - tk.since
	if tk.fresh {
		// As the simulator, count no latency for a new task's first wake-up. Its runtime is
		// bounded from its fork (sched_process_fork is recorded before wake_up_new_task reads
		// the clock; sched_wakeup_new after).
		tk.fresh = false
		tk.state, tk.since, tk.rtFrom = tsRunnable, t, tk.since
		return
	}
	s.Sleep += d
	s.Wakeups++
	if waker != nil && waker != tk && waker.state == tsRunning && !b.o.noPipes && !b.o.summary {
		pipe := b.pipe(waker, tk)
		// The waker's burst up to now, then its send; the wakee receives instead of sleeping.
		waker.burst += t - waker.since
		b.st(waker).CPUTime += t - waker.since
		waker.since = t
		b.op(waker, workload.SendOp(pipe, 1))
		b.op(tk, workload.RecvOp(pipe, 1))
	} else if d > 0 {
		if b.o.summary {
			tk.sleeps++
			tk.sleepTotal += d
		} else {
			b.op(tk, workload.SleepOp(workload.Fixed(workload.Duration(min(d, int64(workload.MaxDuration))))))
		}
	}
	tk.state, tk.since, tk.woken, tk.rtFrom = tsRunnable, t, t, t
	s.End = t
}

func (b *builder) pipe(waker, wakee *task) string {
	k := [2]int{waker.decl, wakee.decl}
	if p, ok := b.pipes[k]; ok {
		return p
	}
	p := "p-" + b.w.Threads[waker.decl].Name + "-" + b.w.Threads[wakee.decl].Name
	b.pipes[k] = p
	b.w.Pipes = append(b.w.Pipes, workload.Pipe{Name: p})
	return p
}

// fork: parent creates child (key, comm) at t; the child is runnable when woken.
func (b *builder) fork(parent *task, key int64, comm string, t int64) *task {
	if old := b.live[key]; old != nil && old.state != tsDead {
		b.warn("fork of pid %d, which is alive: the old task is taken to have exited", key)
		b.exit(old, t)
	}
	forked := parent != nil && !b.o.summary
	child := b.newTask(key, comm, t, forked)
	if forked {
		if parent.state == tsRunning {
			parent.burst += t - parent.since
			b.st(parent).CPUTime += t - parent.since
			parent.since = t
		}
		b.op(parent, workload.ForkOp(b.w.Threads[child.decl].Name, 1))
	}
	b.st(child).Forked = true
	child.state, child.fresh = tsBlocked, true // until its sched_wakeup_new
	return child
}

// exit: tk exits at t.
func (b *builder) exit(tk *task, t int64) {
	if tk.state == tsDead {
		return
	}
	if tk.state == tsRunning {
		d := t - tk.since
		b.st(tk).CPUTime += d
		tk.burst += d
		b.checkRuntime(tk, t)
	}
	b.flush(tk)
	s := b.st(tk)
	s.Exited, s.End = true, t
	tk.state = tsDead
	b.finish(tk) // the task stays in live until its last switch-out
}

// finish writes tk's script into its declaration.
func (b *builder) finish(tk *task) {
	th := &b.w.Threads[tk.decl]
	if b.o.summary {
		var body []workload.Op
		if tk.runs > 0 {
			body = append(body, workload.RunOp(workload.Exponential(clampDur(tk.runTotal/tk.runs))))
		}
		if tk.sleeps > 0 {
			body = append(body, workload.SleepOp(workload.Exponential(clampDur(tk.sleepTotal/tk.sleeps))))
		}
		n := max(tk.runs, tk.sleeps)
		if n > 0 {
			th.Ops = []workload.Op{workload.RepeatOp(int(min(n, workload.MaxRepeat)), body...)}
		}
	} else {
		th.Ops = tk.ops
	}
	if len(th.Ops) == 0 {
		th.Ops = []workload.Op{workload.RunOp(workload.Fixed(0))}
	}
	tk.ops = nil
}

// clampDur returns d as a Duration in 1..MaxDuration.
func clampDur(d int64) workload.Duration {
	return workload.Duration(min(max(d, 1), int64(workload.MaxDuration)))
}

// end closes every live task at the trace's end t.
func (b *builder) end(t int64) {
	for _, tk := range b.live {
		if tk.state == tsDead {
			continue
		}
		switch tk.state {
		case tsRunning:
			d := t - tk.since
			b.st(tk).CPUTime += d
			tk.burst += d
		case tsRunnable:
			b.st(tk).WaitTime += t - tk.since
		case tsBlocked:
			b.st(tk).Sleep += t - tk.since
		}
		b.flush(tk)
		b.st(tk).End = t
		b.finish(tk)
	}
	b.live = nil
}

// workload returns the workload, validated; a problem is an internal error of the importer.
func (b *builder) workload() (*workload.Workload, error) {
	w := b.w
	if len(w.Threads) == 0 {
		return nil, fmt.Errorf("the trace shows no task")
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("trace: internal error: the imported workload does not validate: %v", err)
	}
	return &w, nil
}
