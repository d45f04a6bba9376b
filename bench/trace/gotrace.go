package trace

// This file implements ReadGoTrace: a Go execution trace (runtime/trace, go test -trace) into a
// workload, through golang.org/x/exp/trace.

import (
	"errors"
	"io"
	"path"
	"strconv"

	xtrace "golang.org/x/exp/trace"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// ReadGoTrace imports a Go execution trace (the format of Go 1.22 and later, as runtime/trace
// and `go test -trace` write it) read from r; file names the input in errors. It reads the
// events with golang.org/x/exp/trace.
//
// By default each goroutine becomes a thread, named after the function it started in
// (main.worker-17 for goroutine 17): the question it answers is "how would these goroutines
// fare as OS threads under ULE or EEVDF?". The goroutine state transitions map to the builder's:
//
//	Go trace                                   workload
//	Runnable → Running (on P n)                the thread runs (on CPU n: Ps are the CPUs)
//	Running → Runnable (preempted, yield)      still runnable: its CPU burst goes on
//	Running → Waiting (chan, select, sync,     the burst ends; the wait becomes a receive on a
//	  sleep, network) … Waiting → Runnable      pipe from the goroutine that unblocked it, or a
//	                                           sleep when none did (timers, the netpoller)
//	Running → Syscall → Running                running throughout (a syscall is CPU time)
//	NotExist → Runnable                        a fork by the creating goroutine (a template)
//	… → NotExist                               the script ends: the thread exits
//	Undetermined → … (first generation)        RunningAtStart, RunnableAtStart, SleepingAtStart
//
// With ImportOptions.GoThreads each M (OS thread) becomes a thread instead: it runs while a
// goroutine runs on it and sleeps otherwise; its wake-ups are sleeps, since the trace does not
// say which M a goroutine's unblocker woke.
//
// What the import ignores is the Go scheduler's own work: which P and M run a goroutine,
// work stealing, the GC's assists and stop-the-world pauses (as time the goroutines are not
// running), and user tasks, regions and logs. Replayed, the goroutines are scheduled by the
// simulated kernel policy alone, as if each were an OS thread (GOMAXPROCS is the replay
// machine's CPU count). Errors come from the trace reader (a truncated or corrupt trace) and
// are an *Error naming file; ReadGoTrace never panics on bad input.
func ReadGoTrace(r io.Reader, file string, o *ImportOptions) (im *Imported, err error) {
	defer func() {
		if p := recover(); p != nil {
			// x/exp/trace is not fuzzed for every corruption: keep ReadGoTrace's promise.
			im, err = nil, &Error{File: file, Msg: "corrupt Go trace: " + panicText(p)}
		}
	}()
	xr, err := xtrace.NewReader(r)
	if err != nil {
		return nil, &Error{File: file, Msg: err.Error()}
	}
	wr := &warner{file: file, max: o.maxWarnings()}
	bo := o.build()
	bo.kernel = KernelKeep // goroutines and Ms are no kernel threads, whatever their names
	g := &goReader{b: newBuilder(bo, wr.warn), skipped: map[string]int64{}, threads: o != nil && o.GoThreads}
	for {
		ev, err := xr.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &Error{File: file, Msg: err.Error()}
		}
		if g.b.started && int64(ev.Time())-g.b.start > int64(workload.MaxDuration) {
			return nil, &Error{File: file, Field: "time", Msg: "the trace spans more than the 2^48 ns a workload can"}
		}
		g.event(&ev)
		if b := g.b; b.o.maxBytes > 0 && g.events&4095 == 0 && b.memBytes() > b.o.maxBytes {
			return nil, &Error{File: file, Msg: memoryMessage(b)}
		}
	}
	b := g.b
	end := b.last
	b.end(end)
	res, err := b.workload(max(g.ncpu, 1))
	if err != nil {
		return nil, &Error{File: file, Msg: err.Error()}
	}
	return &Imported{Workload: res.w, Tasks: res.tasks, Dropped: res.dropped, Charged: res.charged, Duration: end,
		CPUs: max(g.ncpu, 1), Events: g.events, Skipped: g.skipped, Warnings: wr.list, Warned: wr.n}, nil
}

func panicText(p any) string {
	if e, ok := p.(error); ok {
		return e.Error()
	}
	if s, ok := p.(string); ok {
		return s
	}
	return "panic"
}

type goReader struct {
	b       *builder
	skipped map[string]int64
	events  int64
	ncpu    int
	threads bool
	// For GoThreads: the M each running goroutine runs on.
	onM map[xtrace.GoID]xtrace.ThreadID
}

// goName names a goroutine after the function its start stack begins in, as pprof prints
// it: the package's last path element, the receiver and the function (sync.(*WaitGroup).Wait,
// main.worker.func1).
func goName(st xtrace.StateTransition) string {
	name := ""
	for f := range st.Stack.Frames() {
		name = f.Func // the outermost frame is the goroutine's start function
	}
	if name == "" {
		return "g"
	}
	return path.Base(name)
}

func (g *goReader) event(ev *xtrace.Event) {
	if ev.Kind() != xtrace.EventStateTransition {
		g.skipped[ev.Kind().String()]++
		return
	}
	st := ev.StateTransition()
	if st.Resource.Kind != xtrace.ResourceGoroutine {
		g.skipped["StateTransition/"+st.Resource.Kind.String()]++
		return
	}
	g.events++
	b := g.b
	t := b.at(int64(ev.Time()))
	id := st.Resource.Goroutine()
	from, to := st.Goroutine()
	cpu := -1
	if p := ev.Proc(); p != xtrace.NoProc && p >= 0 && p < maxCPU {
		cpu = int(p)
		g.ncpu = max(g.ncpu, cpu+1)
	}
	if g.threads {
		g.threadEvent(ev, id, from, to, cpu, t)
		return
	}
	key := int64(id)
	tk := b.live[key]
	if tk == nil && to != xtrace.GoNotExist && from != xtrace.GoNotExist {
		tk = g.preexisting(key, goName(st), from, cpu, t)
	}
	switch to {
	case xtrace.GoRunnable:
		g.runnable(ev, st, tk, id, from, t)
	case xtrace.GoRunning:
		if tk == nil {
			break
		}
		if from == xtrace.GoSyscall {
			tk.syscall = false
			if tk.state == tsRunning && (cpu < 0 || cpu == tk.cpu) {
				break // back from the system call on its P
			}
		}
		b.run(tk, g.procOf(tk, cpu), t)
	case xtrace.GoSyscall:
		if tk != nil && from == xtrace.GoRunning {
			tk.syscall = true
		}
	case xtrace.GoWaiting:
		if tk != nil && (from == xtrace.GoRunning || from == xtrace.GoSyscall) {
			tk.syscall = false
			if tk.state == tsRunning {
				b.stop(tk, t, false)
			}
		}
	case xtrace.GoNotExist:
		if tk != nil {
			b.exit(tk, t)
			b.vacate(tk, t)
			delete(b.live, key)
		}
	}
}

// runnable is goroutine id (tk, nil if new) becoming runnable from state from at t, in ev's
// transition st: created (a fork of the running goroutine that created it), preempted or
// yielding, or woken by the event's goroutine.
func (g *goReader) runnable(ev *xtrace.Event, st xtrace.StateTransition, tk *task, id xtrace.GoID, from xtrace.GoState, t int64) {
	b := g.b
	switch from {
	case xtrace.GoNotExist:
		var parent *task
		if p := b.live[int64(ev.Goroutine())]; p != nil && ev.Goroutine() != xtrace.NoGoroutine && p.state == tsRunning {
			parent = p
		}
		child := b.fork(parent, int64(id), goName(st), t)
		b.wakeTask(child, nil, t, false)
	case xtrace.GoRunning, xtrace.GoSyscall:
		tk.syscall = false
		if tk.state == tsRunning {
			b.stop(tk, t, true)
		}
	case xtrace.GoWaiting:
		var waker *task
		if w := ev.Goroutine(); w != xtrace.NoGoroutine && w != id {
			waker = b.live[int64(w)]
		}
		b.wakeTask(tk, waker, t, false)
	}
}

// preexisting adds goroutine key, named name, that existed before the trace (or whose creation
// the trace lost), first seen leaving state from at t on P cpu (-1: none): running since the
// start if it was running and the P is free, runnable since the start, or else blocked.
func (g *goReader) preexisting(key int64, name string, from xtrace.GoState, cpu int, t int64) *task {
	b := g.b
	tk := b.newTask(key, name, 0, false)
	switch {
	case (from == xtrace.GoRunning || from == xtrace.GoSyscall) && cpu >= 0 && b.slot(cpu).cur == nil:
		b.runFrom(tk, cpu, 0)
		tk.syscall = from == xtrace.GoSyscall
		b.st(tk).RunningAtStart = true
	case from == xtrace.GoRunnable:
		tk.state, tk.since = tsRunnable, 0
		b.st(tk).RunnableAtStart = true
	default:
		// Waiting, or in a system call without a P: not on a CPU.
		tk.state, tk.since = tsBlocked, t
		b.st(tk).SleepingAtStart = true
		b.st(tk).Start = t
	}
	return tk
}

// procOf returns the CPU (P) a goroutine runs on: the event's P, or, for an event without
// one, the P it last ran on (or 0).
func (g *goReader) procOf(tk *task, cpu int) int {
	switch {
	case cpu >= 0:
		return cpu
	case tk.cpu >= 0:
		return tk.cpu
	}
	g.ncpu = max(g.ncpu, 1)
	return 0
}

// threadEvent handles a goroutine transition for the M-level import.
func (g *goReader) threadEvent(ev *xtrace.Event, id xtrace.GoID, from, to xtrace.GoState, cpu int, t int64) {
	b := g.b
	if g.onM == nil {
		g.onM = map[xtrace.GoID]xtrace.ThreadID{}
	}
	m := ev.Thread()
	if m == xtrace.NoThread {
		return
	}
	get := func(m xtrace.ThreadID) *task {
		tk := b.live[int64(m)]
		if tk == nil {
			tk = b.newTask(int64(m), "M"+strconv.FormatInt(int64(m), 10), t, false)
			tk.state, tk.since = tsBlocked, t
		}
		return tk
	}
	switch {
	case to == xtrace.GoRunning && from != xtrace.GoSyscall:
		tk := get(m)
		if tk.state == tsBlocked {
			b.wakeTask(tk, nil, t, false)
		}
		if tk.state != tsRunning || cpu >= 0 && cpu != tk.cpu {
			b.run(tk, g.procOf(tk, cpu), t)
		}
		g.onM[id] = m
	case from == xtrace.GoRunning && to != xtrace.GoSyscall, from == xtrace.GoSyscall && to != xtrace.GoRunning:
		mm, ok := g.onM[id]
		if !ok {
			mm = m
		}
		delete(g.onM, id)
		if tk := b.live[int64(mm)]; tk != nil && tk.state == tsRunning {
			b.stop(tk, t, false)
		}
	}
}
