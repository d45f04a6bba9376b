package trace

// This file implements builder: the state machine, one small state per live task and per CPU,
// that turns a stream of scheduling transitions (runs, blocks, wake-ups by a waker, forks,
// exits), from whichever trace format, into a workload.Workload and the trace's own per-task
// timing.

import (
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
)

// noPrio is a task's prio before the trace shows one.
const noPrio = -2

type taskState uint8

const (
	tsRunning taskState = iota
	tsRunnable
	tsBlocked
	tsDead
)

// A cop is one op of a task's script as the builder keeps it until the import ends: 16 bytes
// instead of a workload.Op's 248, with pipes and templates as indices, since the names of the
// threads (their last comm) are known only at the end.
type cop struct {
	v     int64 // run, sleep: nanoseconds; nice: the nice value; setclass: the rtprio
	ref   int32 // send, recv: the pipe; fork: the template's task
	kind  workload.Kind
	class sched.Class
	scale sched.RTScale // setclass: the scale of v
}

// copSize and opSize are the bytes a cop and a workload.Op take, for the memory estimate.
const (
	copSize = 16
	opSize  = 248
)

// A task is the builder's state for one task.
type task struct {
	key   int64
	idx   int // index in the builder's tasks, stats and threads
	state taskState
	cpu   int   // the CPU it runs or last ran on, -1 before its first run
	since int64 // when the current state began (when running: the start of the part of the run not yet charged)
	burst int64 // CPU time since the last op that is not a run
	woken int64 // when it was last woken, or -1
	prio  int   // last Linux prio seen, or noPrio
	fresh bool  // forked and not yet woken: the wait for sched_wakeup_new is no sleep
	// attr are the attributes last noted (setAttr), once attrSet.
	attr    sched.Attr
	attrSet bool
	// syscall says a Go goroutine is in a system call: its P may run another goroutine, which
	// then ends the goroutine's run quietly (it is blocked in the kernel, not on the CPU).
	syscall bool
	// kthread is the per-CPU kernel thread class of the current name: kNone, or the CPU
	// (kAnyCPU for rcu_*) as kthreadCPU says.
	kthread    bool
	kthreadCPU int
	// sent says the task has woken another through a pipe: it is not dropped, or the wakee
	// would wait for it forever.
	sent bool
	// sched_stat_runtime: the runtime charged in the current run (raw and as credited to
	// Runtime), the number of events, the time before which none is credited (-1: no
	// bound, the trace shows the run's start) and the time since which the task has been
	// runnable when the trace shows it (-1 if not), from which the run's runtime is bounded.
	rtSum, rtCred, rtEvents int64
	rtFloor, rtFrom         int64
	// owed is the machine's cost of the steps the recording paid inside the task's runs that
	// its current burst has not yet been shortened by (buildOptions.deduct), in nanoseconds.
	owed int64
	ops  []cop
	// Summary mode: the totals the loop's distributions are made from.
	runs, sleeps         int64
	runTotal, sleepTotal int64
}

// A cpuSlot is the builder's state for one CPU: the task it runs, which only the builder
// changes, so that two tasks never run on one CPU at once.
type cpuSlot struct {
	cur   *task // the task running (possibly dead, finishing its exit), nil when idle or not known
	last  *task // the task that ran last, kept while the CPU idles: the replay machine's lastThread
	known bool  // the trace has shown what the CPU runs
	start int64 // when the CPU's record begins: 0, or later when its buffer lost its first events
}

// buildOptions are what the builder needs of an importer's options.
type buildOptions struct {
	summary  bool
	noPipes  bool
	kernel   KernelMode
	maxBytes int64
	// deduct, if not nil, shortens each recorded run by the costs the replay machine charges
	// at the same steps (ImportOptions.Costs).
	deduct *deductions
	// onCharge, if not nil, is told of every stretch of CPU time charged to a task: the
	// accounting tests' oracle.
	onCharge func(cpu int, key int64, from, to int64)
}

type builder struct {
	o       buildOptions
	threads []workload.Thread // the declarations, named at the end
	tasks   []*task
	stats   []TaskStats
	live    map[int64]*task
	pipes   map[[2]int32]int32 // (waker, wakee) → pipe index
	ends    [][2]int32         // pipe index → (waker, wakee)
	cpus    []cpuSlot
	start   int64 // the first event's time
	started bool
	last    int64
	nops    int64 // cops held, for the memory estimate
	warn    func(format string, args ...any)
}

func newBuilder(o buildOptions, warn func(string, ...any)) *builder {
	return &builder{o: o, live: map[int64]*task{}, pipes: map[[2]int32]int32{}, warn: warn}
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

// slot returns CPU cpu's state.
func (b *builder) slot(cpu int) *cpuSlot {
	for len(b.cpus) <= cpu {
		b.cpus = append(b.cpus, cpuSlot{})
	}
	return &b.cpus[cpu]
}

// label names tk in warnings: its current comm and pid.
func (b *builder) label(tk *task) string { return b.stats[tk.idx].Label() }

// newTask declares a task first seen at t (relative). A forked task's declaration is a template
// its parent forks.
func (b *builder) newTask(key int64, comm string, t int64, forked bool) *task {
	th := workload.Thread{Template: forked}
	if !forked {
		th.Start = workload.Duration(t)
	}
	b.threads = append(b.threads, th)
	b.stats = append(b.stats, TaskStats{Comm: comm, PID: key, Start: t, End: t, Forked: forked, KThreadCPU: -1})
	tk := &task{key: key, idx: len(b.tasks), since: t, woken: -1, prio: noPrio, cpu: -1, rtFloor: t, rtFrom: -1}
	tk.kthread, tk.kthreadCPU = kernelThread(comm)
	b.tasks = append(b.tasks, tk)
	b.live[key] = tk
	return tk
}

func (b *builder) st(tk *task) *TaskStats { return &b.stats[tk.idx] }

// op appends an op to tk's script, after its pending CPU burst.
func (b *builder) op(tk *task, op cop) {
	b.flush(tk)
	if !b.o.summary {
		tk.ops = append(tk.ops, op)
		b.nops++
	}
}

// flush ends tk's current CPU burst: a run op of the CPU time accumulated since the last op,
// less what the replay machine will charge of it (buildOptions.deduct); a burst the costs take
// whole makes no op, and what they take beyond it comes off the next.
func (b *builder) flush(tk *task) {
	if tk.burst <= 0 {
		return
	}
	run := tk.burst
	if d := b.o.deduct; d != nil {
		run, tk.owed = d.shorten(run, tk.owed)
	}
	tk.burst = 0
	switch {
	case b.o.summary:
		tk.runs++
		tk.runTotal += run
	case run > 0:
		tk.ops = append(tk.ops, cop{kind: workload.Run, v: min(run, int64(workload.MaxDuration))})
		b.nops++
	}
}

// setPrio notes the Linux kernel prio seen for tk; a change becomes a nice or class op.
func (b *builder) setPrio(tk *task, prio int) {
	if prio == tk.prio || prio < -1 {
		return
	}
	a, ok := attrFromPrio(prio)
	if !ok {
		if tk.prio == noPrio {
			b.warn("prio %d of %s is not one schedkit can express (SCHED_DEADLINE?); imported as SCHED_OTHER nice 0", prio, b.label(tk))
		}
		tk.prio = prio
		return
	}
	tk.prio = prio
	b.setAttr(tk, a)
}

// setAttr notes the class, nice value and real-time priority the trace shows for tk: the
// first become its declaration's, a later change a nice or class op.
func (b *builder) setAttr(tk *task, a sched.Attr) {
	th := &b.threads[tk.idx]
	if !tk.attrSet {
		// The first attributes the trace shows are taken to be the task's from its start.
		tk.attrSet = true
		th.Class, th.Nice, th.RTPrio, th.RTScale = a.Class, a.Nice, a.RTPrio, a.RTScale
		tk.attr = a
		return
	}
	old := tk.attr
	tk.attr = a
	switch {
	case a.Class.RealTime():
		if old.Class != a.Class || old.RTPrio != a.RTPrio || old.RTScale != a.RTScale {
			b.op(tk, cop{kind: workload.SetClass, class: a.Class, v: int64(a.RTPrio), scale: a.RTScale})
		}
	default:
		if old.Class != a.Class {
			b.op(tk, cop{kind: workload.SetClass, class: a.Class})
		}
		if old.Nice != a.Nice || old.Class.RealTime() {
			b.op(tk, cop{kind: workload.Nice, v: int64(a.Nice)})
		}
	}
}

// comm notes the name the trace now gives tk at t: exec and prctl(PR_SET_NAME) change it. The
// task takes the new name from that point: Renames records it, and the declaration is named
// after the last.
func (b *builder) comm(tk *task, comm string, t int64) {
	s := b.st(tk)
	if s.Comm == comm || comm == "" || comm == "<...>" {
		return
	}
	if s.Comm == "" {
		s.Comm = comm // the first name the trace gives it
		tk.kthread, tk.kthreadCPU = kernelThread(comm)
		return
	}
	s.Comm = comm
	s.Renames = append(s.Renames, Rename{At: t, Comm: comm})
	tk.kthread, tk.kthreadCPU = kernelThread(comm)
}

// charge charges tk, running, with the CPU time from tk.since to t on its CPU.
func (b *builder) charge(tk *task, t int64) {
	d := t - tk.since
	if d <= 0 {
		return
	}
	b.st(tk).CPUTime += d
	tk.burst += d
	if b.o.onCharge != nil {
		b.o.onCharge(tk.cpu, tk.key, tk.since, t)
	}
	tk.since = t
}

// run: tk starts running on cpu at t. Whatever else the builder had on cpu stops there at t
// (a task whose switch-out the trace lacks: taken to have blocked), and tk stops wherever else
// it ran, so that a CPU runs one task at a time and a task runs on one CPU. The readers warn
// of what they did not expect before calling it.
func (b *builder) run(tk *task, cpu int, t int64) {
	sl := b.slot(cpu)
	sl.known = true
	if sl.cur == tk && tk.state == tsRunning {
		return
	}
	if old := sl.cur; old != nil && old != tk {
		b.vacate(old, t)
	}
	s := b.st(tk)
	switch tk.state {
	case tsRunning:
		b.stop(tk, t, true) // on another CPU: it moved
		b.run(tk, cpu, t)
		return
	case tsBlocked:
		// A switch-in without a wake-up: the wake-up was lost or is not traced.
		b.wakeTask(tk, nil, t, false)
		b.run(tk, cpu, t)
		return
	case tsDead:
		return
	}
	s.WaitTime += t - tk.since
	if tk.woken >= 0 {
		lat := t - tk.woken
		s.Latencies++
		s.LatencySum += lat
		s.LatencyMax = max(s.LatencyMax, lat)
		tk.woken = -1
	}
	if tk.cpu >= 0 && tk.cpu != cpu {
		s.Migrations++
	}
	if d := b.o.deduct; d != nil {
		tk.owed += d.switchIn(sl.last, tk, cpu)
	}
	sl.last = tk
	tk.state, tk.cpu, tk.since = tsRunning, cpu, t
	tk.rtSum, tk.rtCred, tk.rtEvents, tk.rtFloor = 0, 0, 0, -1
	sl.cur = tk
	s.End = t
}

// runFrom: tk, which the trace has not shown yet, has been running on cpu since from (the
// CPU's record began with it running): a run whose start the trace does not show.
func (b *builder) runFrom(tk *task, cpu int, from int64) {
	sl := b.slot(cpu)
	sl.known, sl.cur, sl.last = true, tk, tk
	tk.state, tk.cpu, tk.since, tk.rtFloor = tsRunning, cpu, from, from
}

// occupy puts tk, which has exited, on cpu, uncharged: its exit path runs there until its last
// switch-out. Whatever else the builder had on cpu stops there.
func (b *builder) occupy(tk *task, cpu int) {
	sl := b.slot(cpu)
	sl.known = true
	if sl.cur == tk {
		return
	}
	if old := sl.cur; old != nil {
		b.vacate(old, b.last)
	}
	if tk.cpu >= 0 && tk.cpu < len(b.cpus) && b.cpus[tk.cpu].cur == tk {
		b.cpus[tk.cpu].cur = nil
	}
	tk.cpu = cpu
	sl.cur, sl.last = tk, tk
}

// vacate takes old off its CPU at t without a switch-out the trace shows: a live task is taken
// to have blocked there (a Go goroutine in a system call did: its P went to another).
func (b *builder) vacate(old *task, t int64) {
	if old.state == tsRunning {
		b.stop(old, t, false)
		return
	}
	if sl := b.slot(old.cpu); sl.cur == old {
		sl.cur = nil // a dead task that finished its exit
	}
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
func (b *builder) checkRuntime(tk *task, t, runStart int64) {
	if tk.rtEvents == 0 || tk.rtFloor >= 0 || tk.rtFrom < 0 {
		return
	}
	span := t - tk.rtFrom
	if tk.rtSum > span+runtimeSlack+span*runtimeSlackPPM/1e6 {
		b.warn("sched_stat_runtime charges %s %d ns in a run of %d ns, %d ns after it became runnable",
			b.label(tk), tk.rtSum, t-runStart, span)
	}
}

// stop: tk stops running at t; runnable says it stays runnable (preempted or yielded).
func (b *builder) stop(tk *task, t int64, runnable bool) {
	s := b.st(tk)
	if tk.state == tsRunning {
		start := tk.since
		b.charge(tk, t)
		s.Switches++
		b.checkRuntime(tk, t, start)
		tk.rtSum, tk.rtCred, tk.rtEvents = 0, 0, 0
		if sl := b.slot(tk.cpu); sl.cur == tk {
			sl.cur = nil
		}
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

// wakeTask: tk is woken at t by waker (nil for a timer, an interrupt or a task outside the
// trace); ipi says the waker sent a reschedule IPI for it (the trace shows the target CPU as
// another, idle one), whose send the waker's run holds.
func (b *builder) wakeTask(tk *task, waker *task, t int64, ipi bool) {
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
	if waker != nil && waker != tk && waker.state == tsRunning && !b.o.noPipes && !b.o.summary && b.piped(waker, tk) {
		pipe := b.pipe(waker, tk)
		// The waker's burst up to now, then its send; the wakee receives instead of sleeping.
		b.charge(waker, t)
		if d := b.o.deduct; d != nil {
			waker.owed += d.wakeup // its try_to_wake_up, inside its run; the replay charges its own
			if ipi {
				waker.owed += d.ipiSend
			}
		}
		b.op(waker, cop{kind: workload.Send, ref: pipe})
		b.op(tk, cop{kind: workload.Recv, ref: pipe})
		waker.sent = true
	} else if d > 0 {
		if b.o.summary {
			tk.sleeps++
			tk.sleepTotal += d
		} else {
			b.op(tk, cop{kind: workload.Sleep, v: min(d, int64(workload.MaxDuration))})
		}
	}
	tk.state, tk.since, tk.woken, tk.rtFrom = tsRunnable, t, t, t
	s.End = t
}

// piped reports whether a wake-up of wakee by waker becomes a message on a pipe: not when the
// kernel-thread mode replays one of them by its recorded times (a charge, or dropped).
func (b *builder) piped(waker, wakee *task) bool {
	switch b.o.kernel {
	case KernelCharge:
		return !wakee.kthread
	case KernelDrop:
		return !waker.kthread && !wakee.kthread
	}
	return true
}

func (b *builder) pipe(waker, wakee *task) int32 {
	k := [2]int32{int32(waker.idx), int32(wakee.idx)}
	if p, ok := b.pipes[k]; ok {
		return p
	}
	p := int32(len(b.ends))
	b.pipes[k] = p
	b.ends = append(b.ends, k)
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
			b.charge(parent, t)
			if d := b.o.deduct; d != nil {
				parent.owed += d.wakeup // wake_up_new_task, inside its run
			}
		}
		b.op(parent, cop{kind: workload.Fork, ref: int32(child.idx)})
	}
	b.st(child).Forked = true
	if parent != nil {
		b.st(child).Parent = parent.key
	}
	child.state, child.fresh = tsBlocked, true // until its sched_wakeup_new
	return child
}

// exit: tk exits at t. A running task stays on its CPU, uncharged, until its last switch-out.
func (b *builder) exit(tk *task, t int64) {
	if tk.state == tsDead {
		return
	}
	if tk.state == tsRunning {
		start := tk.since
		b.charge(tk, t)
		b.checkRuntime(tk, t, start)
	}
	b.flush(tk)
	s := b.st(tk)
	s.Exited, s.End = true, t
	tk.state = tsDead
	b.finish(tk) // the task stays in live until its last switch-out
}

// finish closes tk's script: in Summary mode, the loop its totals make.
func (b *builder) finish(tk *task) {
	if !b.o.summary {
		return
	}
	var body []cop
	if tk.runs > 0 {
		body = append(body, cop{kind: workload.Run, v: tk.runTotal / tk.runs})
	}
	if tk.sleeps > 0 {
		body = append(body, cop{kind: workload.Sleep, v: tk.sleepTotal / tk.sleeps})
	}
	tk.ops = body
	tk.runs = max(tk.runs, tk.sleeps) // the loop's count
}

// clampDur returns d as a Duration in 1..MaxDuration.
func clampDur(d int64) workload.Duration {
	return workload.Duration(min(max(d, 1), int64(workload.MaxDuration)))
}

// end closes every live task at the trace's end t.
func (b *builder) end(t int64) {
	for _, tk := range b.tasks {
		if tk.state == tsDead {
			continue
		}
		switch tk.state {
		case tsRunning:
			b.charge(tk, t)
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
	b.cpus = nil
}
