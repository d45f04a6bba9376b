package trace

// This file implements ReadKTR: FreeBSD's KTR_SCHED trace, as `ktrdump -ct` prints it and
// schedgraph.py reads it, into a workload.

import (
	"bufio"
	"cmp"
	"errors"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/ule"
)

// ktrNanoMarker is the comment line WriteKTR puts before ktrdump's heading: its timestamps
// are nanoseconds. schedgraph.py prints "Can't parse" for it, as for the heading, and counts
// nanoseconds with its own default of 1 GHz.
const ktrNanoMarker = "# schedkit: KTR timestamps in nanoseconds"

type ktrKind uint8

const (
	kRunning ktrKind = iota
	kBlocked
	kYield
	kRunqAdd
	kExit
	kPrio
	kOther // used and not needed: idle, runq rem, spinning, wokeup, lend prio, statclock, load
)

// A ktrEvent is one used KTR line, kept until the lines are sorted by time.
type ktrEvent struct {
	ts   int64
	seq  int32 // line order
	cpu  int32
	th   int32 // the source thread, index in ktrReader.ids
	link int32 // the linked thread, or -1
	prio int16 // -1: none
	nice int8
	kind ktrKind
	hasN bool // nice is there
}

type ktrReader struct {
	b        *builder
	w        *warner
	layout   ule.Layout
	ids      []string
	idx      map[string]int32
	events   []ktrEvent
	skipped  map[string]int64
	used     int64
	ncpu     int
	nano     bool
	stathz   int
	statTick int64 // statclock events on CPU 0
}

// ReadKTR imports a FreeBSD KTR_SCHED trace, the text `ktrdump -ct` prints (a kernel built with
// options KTR, KTR_COMPILE=(KTR_SCHED), KTR_MASK=(KTR_SCHED)) and FreeBSD's
// tools/sched/schedgraph.py reads, from r; file names the input in errors and warnings. The
// format and the events are described in this package's ktr.go from schedgraph.py's parser
// and sys/sys/ktr.h; the package documentation's table maps them to the workload.
//
// ktrdump prints the newest entry first: ReadKTR holds the events it uses (about 40 bytes
// each; a KTR ring holds KTR_ENTRIES of them, 32768 by default) and sorts them by time (the
// file's order breaking ties), so a file in either order reads the same. The timestamps are
// cycle counts: ImportOptions.KTRClockHz gives their rate; without it, ReadKTR does as
// schedgraph.py does, from the statclock points on CPU 0 and their stathz (ticks/s = span /
// count × stathz), and without those takes a tick for a nanosecond, with a warning (WriteKTR's
// own traces say their timestamps are nanoseconds). Priorities are read in the layout of
// ImportOptions.KTRVersion's sys/sys/priority.h (the zero value, ule.Main, FreeBSD main's since
// the 2025 rework; ule.Legacy for FreeBSD 13 and 14; ule.FreeBSD9 for traces of 2011, such as
// Kargl's).
//
// The accounting is ReadFtrace's: a thread's CPU time is what its "running" states and its
// switch-out states ("sleep" and the other inhibitors, "yielding") on each CPU say, a CPU runs
// one thread at a time (a thread that runs without the one before it switching out stops the
// other, with a counted warning; the idle thread's "running" leaves the CPU idle) and a thread
// one CPU, so that the CPU time of all threads is at most CPUs × span. A "runq add" linked to a
// thread running on the event's CPU is a wake-up by it (a message on a pipe in the workload);
// linked to the idle thread, or to a thread not running there, a sleep. Threads are named by
// sched_tdname's td_name and keyed by tid (the "PID" of TaskStats): an exec renames one. KTR
// has no fork event: a thread first seen being added to a run queue is taken to be new (or
// asleep since before the trace), without a wake-up or a latency. Real-time, interrupt and
// idle-class priorities become FIFO threads on rtprio(2) levels (interrupt threads at level 0)
// and SCHED_IDLE ones; time-sharing priorities change with CPU use and say nothing of nice,
// which is 0 unless the line carries schedkit's "nice" attribute.
//
// Bad input is never a panic: a KTRGRAPH line that does not parse is an *Error naming the
// line and the field; lines that are not KTRGRAPH are skipped and counted (as "(not
// KTRGRAPH)"), events of other groups and kinds by "group/type:name"; a file with no KTRGRAPH
// line at all is an error.
func ReadKTR(r io.Reader, file string, o *ImportOptions) (*Imported, error) {
	wr := &warner{file: file, max: o.maxWarnings()}
	bo := o.build()
	bo.kernel = KernelKeep // FreeBSD's kernel threads have no Linux names
	kr := &ktrReader{b: newBuilder(bo, wr.warn), w: wr, idx: map[string]int32{}, skipped: map[string]int64{}}
	var version ule.Version
	var clock float64
	if o != nil {
		version, clock = o.KTRVersion, o.KTRClockHz
	}
	kr.layout = version.Layout()
	if clock < 0 || math.IsNaN(clock) || math.IsInf(clock, 0) {
		return nil, &Error{File: file, Field: "clock", Msg: "the KTR clock rate must be a positive number of ticks per second"}
	}
	br := bufio.NewScanner(r)
	br.Buffer(make([]byte, 64<<10), maxLine)
	lineNo := 0
	for br.Scan() {
		lineNo++
		wr.line = lineNo
		if perr := kr.line(br.Text(), int32(lineNo)); perr != nil {
			return nil, &Error{File: file, Line: lineNo, Field: perr.field, Msg: perr.msg}
		}
		if bo.maxBytes > 0 && lineNo&4095 == 0 && int64(len(kr.events))*64+kr.b.memBytes() > bo.maxBytes {
			return nil, &Error{File: file, Line: lineNo, Msg: memoryMessage(kr.b)}
		}
	}
	if err := br.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &Error{File: file, Line: lineNo + 1, Msg: "line longer than 1 MiB"}
		}
		return nil, &Error{File: file, Line: lineNo, Msg: err.Error()}
	}
	wr.line = 0
	if len(kr.events) == 0 && kr.used == 0 {
		return nil, &Error{File: file, Msg: "no KTRGRAPH line: not the ktrdump -ct text of a KTR_SCHED trace"}
	}
	return kr.finish(clock)
}

// line reads one line of text.
func (kr *ktrReader) line(text string, seq int32) *fieldError {
	if strings.TrimSpace(text) == ktrNanoMarker {
		kr.nano = true
		return nil
	}
	l, ok, err := parseKTRLine(text)
	if err != nil {
		return err
	}
	if !ok {
		if strings.TrimSpace(text) != "" {
			kr.skipped["(not KTRGRAPH)"]++
		}
		return nil
	}
	kr.ncpu = max(kr.ncpu, l.cpu+1)
	ev := ktrEvent{ts: l.ts, seq: seq, cpu: int32(l.cpu), link: -1, prio: -1, kind: kOther}
	switch {
	case l.group == "load" && l.etype == "counter":
		kr.used++ // a CPU's load: the run queues follow from the states
		return nil
	case l.group != "thread":
		kr.skipped[l.group+"/"+l.etype+":"+l.data]++
		return nil
	}
	switch l.etype + ":" + l.data {
	case "state:running":
		ev.kind = kRunning
	case "state:sleep", "state:suspended", "state:swapped", "state:blocked", "state:iwait":
		ev.kind = kBlocked
	case "state:yielding":
		ev.kind = kYield
	case "state:runq add":
		ev.kind = kRunqAdd
	case "state:thread exit", "state:proc exit":
		ev.kind = kExit
	case "point:prio", "point:priority change":
		ev.kind = kPrio
		if p, ok := intAttr(l.attrs, "new prio"); ok && p >= 0 && p <= 255 {
			ev.prio = int16(p)
		}
	case "state:idle", "state:runq rem", "state:spinning", "point:wokeup", "point:lend prio":
		kr.used++
		return nil
	case "point:statclock":
		kr.used++
		if hz, ok := intAttr(l.attrs, "stathz"); ok && hz > 0 {
			kr.stathz = hz
			if l.cpu == 0 {
				kr.statTick++
			}
		}
		return nil
	default:
		kr.skipped[l.group+"/"+l.etype+":"+l.data]++
		return nil
	}
	kr.used++
	ev.th = kr.thread(l.id)
	if ev.kind != kPrio {
		if p, ok := intAttr(l.attrs, "prio"); ok && p >= 0 && p <= 255 {
			ev.prio = int16(p)
		}
	}
	if n, ok := intAttr(l.attrs, "nice"); ok && n >= -128 && n <= 127 {
		ev.nice, ev.hasN = int8(n), true
	}
	if v, ok := attr(l.attrs, "linkedto"); ok {
		ev.link = kr.thread(v)
	}
	kr.events = append(kr.events, ev)
	return nil
}

// thread returns the index of the source id.
func (kr *ktrReader) thread(id string) int32 {
	if i, ok := kr.idx[id]; ok {
		return i
	}
	i := int32(len(kr.ids))
	kr.ids = append(kr.ids, id)
	kr.idx[id] = i
	return i
}

// finish sorts the events by time, converts ticks to nanoseconds and runs them through the
// builder.
func (kr *ktrReader) finish(clock float64) (*Imported, error) {
	evs := kr.events
	if len(evs) > 1 && evs[0].ts > evs[len(evs)-1].ts {
		// ktrdump's order, newest first: the later line is the older at equal times.
		for i := range evs {
			evs[i].seq = -evs[i].seq
		}
	}
	slices.SortStableFunc(evs, func(a, b ktrEvent) int {
		return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.seq, b.seq))
	})
	var t0, span int64
	if len(evs) > 0 {
		t0, span = evs[0].ts, evs[len(evs)-1].ts-evs[0].ts
	}
	switch {
	case clock > 0:
	case kr.nano:
		clock = 1e9
	case kr.stathz > 0 && kr.statTick > 0 && span > 0:
		clock = float64(span) / float64(kr.statTick) * float64(kr.stathz)
	default:
		clock = 1e9
		kr.w.warn("no clock rate: the trace has no statclock events and none was given (ImportOptions.KTRClockHz); a tick is taken as a nanosecond, as schedgraph.py's 1 GHz default")
	}
	ns := func(ts int64) int64 {
		if clock == 1e9 {
			return ts - t0
		}
		return int64(math.Round(float64(ts-t0) * 1e9 / clock))
	}
	if len(evs) > 0 && ns(evs[len(evs)-1].ts) > int64(workload.MaxDuration) {
		return nil, &Error{File: kr.w.file, Field: "timestamp", Msg: "the trace spans more than the 2^48 ns a workload can (is the clock rate right?)"}
	}
	for i := range evs {
		kr.event(&evs[i], ns(evs[i].ts))
	}
	b := kr.b
	end := b.last
	b.end(end)
	res, err := b.workload(max(kr.ncpu, 1))
	if err != nil {
		return nil, &Error{File: kr.w.file, Msg: err.Error()}
	}
	return &Imported{Workload: res.w, Tasks: res.tasks, Dropped: res.dropped, Charged: res.charged, Duration: end,
		CPUs: max(kr.ncpu, 1), Events: kr.used, Skipped: kr.skipped, Warnings: kr.w.list, Warned: kr.w.n}, nil
}

// key returns the builder's key of thread index th: its tid, or, for an id without one, a key
// above every tid.
func (kr *ktrReader) key(th int32) (key int64, name string) {
	name, tid := splitTdname(kr.ids[th])
	if tid < 0 {
		return 1<<40 + int64(th), name
	}
	return int64(tid), name
}

// task returns the live task of thread index th, renamed if its name changed, or nil.
func (kr *ktrReader) task(th int32, t int64) *task {
	key, name := kr.key(th)
	tk := kr.b.live[key]
	if tk != nil && tk.state != tsDead {
		kr.b.comm(tk, name, t)
		return tk
	}
	return nil
}

// attrs sets tk's attributes from ev's priority and nice value, where the event has them
// (a nice value the event leaves out stays as it was for a thread that is not real-time).
func (kr *ktrReader) attrs(ev *ktrEvent, tk *task) {
	if ev.prio < 0 {
		return
	}
	if a, ok := ktrAttr(int(ev.prio), int(ev.nice), &kr.layout); ok {
		if !ev.hasN && !a.Class.RealTime() && tk.attrSet && !tk.attr.Class.RealTime() {
			a.Nice = tk.attr.Nice
		}
		kr.b.setAttr(tk, a)
	}
}

// running is a thread (tk, nil if the trace has not shown it: key and name) that is not the
// idle thread starting to run on CPU slot sl at t: a thread new to the trace was runnable from
// the start.
func (kr *ktrReader) running(ev *ktrEvent, tk *task, key int64, name string, sl *cpuSlot, t int64) {
	b, cpu := kr.b, int(ev.cpu)
	if tk == nil {
		if old := b.live[key]; old != nil {
			delete(b.live, key)
		}
		tk = b.newTask(key, name, 0, false)
		tk.state, tk.since = tsRunnable, 0
		b.st(tk).RunnableAtStart = true
	}
	if sl.cur != nil && sl.cur != tk && sl.cur.state == tsRunning {
		kr.w.warn("CPU %d runs %s without %s switching out (events lost?)", cpu, b.label(tk), b.label(sl.cur))
	}
	if tk.state == tsRunning && tk.cpu != cpu {
		kr.w.warn("%s runs on CPU %d while running on CPU %d (events lost?)", b.label(tk), cpu, tk.cpu)
	}
	kr.attrs(ev, tk)
	b.run(tk, cpu, t)
}

// stopping is a thread that is not the idle thread switching out of CPU slot sl at t, blocked
// or yielding: a thread new to the trace was running since the CPU's record began.
func (kr *ktrReader) stopping(ev *ktrEvent, tk *task, key int64, name string, sl *cpuSlot, t int64) {
	b, cpu := kr.b, int(ev.cpu)
	if tk == nil {
		// Running since the CPU's record began, if the CPU is free; else a lost switch.
		tk = b.newTask(key, name, 0, false)
		b.st(tk).RunningAtStart = true
		if !sl.known {
			b.runFrom(tk, cpu, sl.start)
		} else {
			tk.state = tsRunnable
		}
	}
	if tk.state != tsRunning || tk.cpu != cpu {
		kr.w.warn("%s switches out on CPU %d but was not running there (events lost?)", b.label(tk), cpu)
		b.run(tk, cpu, t)
		tk.rtFloor = t
	}
	kr.attrs(ev, tk)
	b.stop(tk, t, ev.kind == kYield)
}

// event runs one event at t (nanoseconds from the first) through the builder.
func (kr *ktrReader) event(ev *ktrEvent, ts int64) {
	b := kr.b
	t := b.at(ts)
	cpu := int(ev.cpu)
	sl := b.slot(cpu)
	key, name := kr.key(ev.th)
	idle := isIdleThread(name)
	tk := kr.task(ev.th, t)
	switch ev.kind {
	case kRunning:
		if idle {
			if sl.cur != nil {
				if sl.cur.state == tsRunning {
					kr.w.warn("CPU %d goes idle without %s switching out (events lost?)", cpu, b.label(sl.cur))
				}
				b.vacate(sl.cur, t)
			}
			sl.known = true
			return
		}
		kr.running(ev, tk, key, name, sl, t)
	case kBlocked, kYield:
		if idle {
			return
		}
		kr.stopping(ev, tk, key, name, sl, t)
	case kRunqAdd:
		if idle {
			return
		}
		if tk == nil {
			if old := b.live[key]; old != nil {
				delete(b.live, key)
			}
			tk = b.newTask(key, name, t, false)
			tk.state, tk.since, tk.fresh = tsBlocked, t, true
			b.st(tk).SleepingAtStart = true
		}
		var waker *task
		if ev.link >= 0 && ev.link != ev.th {
			if w := kr.task(ev.link, t); w != nil && w.state == tsRunning && w.cpu == cpu {
				waker = w
			}
		}
		b.wakeTask(tk, waker, t, false)
	case kExit:
		if tk != nil {
			b.exit(tk, t)
		}
	case kPrio:
		if tk != nil && !idle {
			kr.attrs(ev, tk)
		}
	}
	sl.known = true
}
