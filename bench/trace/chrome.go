package trace

// This file implements WriteChrome: a sim.Trace in the Chrome trace-event JSON format that
// Perfetto UI (ui.perfetto.dev) and chrome://tracing open.

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// The Chrome trace's processes: one holds a track per CPU, the other a track per thread.
const (
	chromeCPUs    = 0
	chromeThreads = 1
)

// ChromeOptions tune WriteChrome. The zero value (or nil) gives the defaults.
type ChromeOptions struct {
	// NoThreadTracks leaves out the per-thread tracks (running and runnable slices), halving
	// the output.
	NoThreadTracks bool
	// NoCounters leaves out the run-queue length counters.
	NoCounters bool
	// NoFlows leaves out the wake-up arrows.
	NoFlows bool
}

// WriteChrome writes the kept records of t to w in the JSON Object Format of the Trace Event
// Format (the document "Trace Event Format", Google, 2016, which chrome://tracing and
// Perfetto's JSON importer read):
//
//   - process 0, "CPUs", has one track per CPU (thread id N named "cpuN"), holding a complete
//     event (ph "X") per stretch a thread ran there, named after the thread, with its id,
//     pid (as WriteFtrace numbers it) and why it stopped as arguments;
//   - process 1, "threads", has one track per thread (thread id = schedkit id + 1, named
//     after it), with "running" slices (argument cpu) and "runnable" slices (argument
//     queue: the CPU it waits for);
//   - every wake-up is an instant event (ph "i", scope thread) on the waker's CPU track,
//     with wakee, waker, flags and target_cpu, and a flow (ph "s" then "f", binding point
//     "e") from it to the slice where the wakee next runs, when that slice lasts: a run of
//     no time (the simulator's instantaneous fork, join and exit steps) is a slice Perfetto
//     binds no flow to (its importer counts flow_no_enclosing_slice), so it gets no arrow.
//     The flow's two events are written when that slice ends;
//   - every migration is an instant event on the destination CPU's track with orig_cpu and
//     dest_cpu;
//   - every fork and exit is an instant event on its CPU's track;
//   - a counter (ph "C") per CPU, "cpuN nr_running", counts the thread running there plus
//     those waiting on its queue (queues as WriteFtrace's target_cpu: see MaxLookahead).
//
// Timestamps are microseconds with three decimals, so nanoseconds survive exactly. The file
// does not set displayTimeUnit: the format defines it as a display hint, but Perfetto's
// importer before its 2022 releases (v20.1, checked by TestPerfettoReadsChrome) took "ns" to
// mean that ts and dur are nanoseconds and read every time a thousand times too short.
// Events are written when they end, so they are not sorted by ts; both readers sort. WriteChrome streams like WriteFtrace and returns the first error
// of w.
// WriteChrome panics if t is nil.
func WriteChrome(w io.Writer, t *sim.Trace, o *ChromeOptions) error {
	if t == nil {
		panic("trace: WriteChrome of a nil trace")
	}
	if o == nil {
		o = &ChromeOptions{}
	}
	cw := &chromeWriter{e: newExporter(t, 0), o: o, bw: bufio.NewWriterSize(w, 64<<10)}
	return cw.write()
}

type chromeWriter struct {
	e     *exporter
	o     *ChromeOptions
	bw    *bufio.Writer
	b     []byte
	first bool
	err   error
	// per CPU: when the running thread started; per thread: when it started waiting.
	runSince  []int64
	waitSince []int64
	// The wake-up flows not yet written: per thread, where its latest wake-up was while it
	// waits to run; per CPU, the wake-up that led to the slice now running there.
	wokeOn, runWokeOn []topology.CPU // sim.NoCPU: none
	wokeAt, runWokeAt []int64
	flows             uint64
	lastCount         []int // per CPU, the nr_running last written, or -1
}

func (cw *chromeWriter) write() error {
	e := cw.e
	n := len(e.t.Threads)
	cw.runSince = make([]int64, e.ncpu)
	cw.lastCount = make([]int, e.ncpu)
	for i := range cw.lastCount {
		cw.lastCount[i] = -1
	}
	cw.waitSince = make([]int64, n)
	for i := range cw.waitSince {
		cw.waitSince[i] = -1
	}
	cw.wokeOn, cw.wokeAt = make([]topology.CPU, n), make([]int64, n)
	for i := range cw.wokeOn {
		cw.wokeOn[i] = sim.NoCPU
	}
	cw.runWokeOn, cw.runWokeAt = make([]topology.CPU, e.ncpu), make([]int64, e.ncpu)
	for i := range cw.runWokeOn {
		cw.runWokeOn[i] = sim.NoCPU
	}
	cw.b = make([]byte, 0, 512)
	cw.raw(`{"traceEvents":[` + "\n")
	cw.first = true
	cw.meta(chromeCPUs, -1, "process_name", "CPUs")
	for c := range e.ncpu {
		cw.meta(chromeCPUs, c, "thread_name", "cpu"+strconv.Itoa(c))
		cw.sortIndex(chromeCPUs, c, c)
	}
	if !cw.o.NoThreadTracks {
		cw.meta(chromeThreads, -1, "process_name", "threads")
		for i := range e.t.Threads {
			cw.meta(chromeThreads, i+1, "thread_name", e.t.Threads[i].Name)
			cw.sortIndex(chromeThreads, i+1, i)
		}
	}
	var end int64
	for i := range e.t.Records {
		r := &e.t.Records[i]
		end = r.Time
		cw.record(i, r)
		if cw.err != nil {
			return cw.err
		}
	}
	// Close what is still open at the last record's time.
	for c := range e.ncpu {
		if id := e.cur[c]; e.valid(id) {
			cw.cpuSlice(topology.CPU(c), id, end, "running")
		}
	}
	if !cw.o.NoThreadTracks {
		for id := range cw.waitSince {
			if cw.waitSince[id] >= 0 {
				cw.threadSlice(sched.ID(id), cw.waitSince[id], end, "runnable", "queue", int64(e.q.waitOn[id]))
			}
		}
	}
	cw.raw("\n]}\n")
	if cw.err != nil {
		return cw.err
	}
	return cw.bw.Flush()
}

func (cw *chromeWriter) record(i int, r *sim.Record) {
	e := cw.e
	cpu := e.cpuOf(r)
	switch r.Kind {
	case sim.KindSwitch:
		prev, next := sched.ID(r.Other), r.Thread
		if e.valid(prev) {
			cw.cpuSlice(cpu, prev, r.Time, sched.StopReason(r.Arg).String())
		}
		e.advance(i, r)
		if e.valid(prev) && sched.StopReason(r.Arg).Runnable() {
			cw.waitSince[prev] = r.Time
			cw.count(e.target, r.Time)
		}
		if e.valid(next) {
			cw.runSince[cpu] = r.Time
			if s := cw.waitSince[next]; s >= 0 && !cw.o.NoThreadTracks {
				cw.threadSlice(next, s, r.Time, "runnable", "queue", int64(e.left))
			}
			cw.waitSince[next] = -1
			cw.runWokeOn[cpu], cw.runWokeAt[cpu] = cw.wokeOn[next], cw.wokeAt[next]
			cw.wokeOn[next] = sim.NoCPU
			cw.count(e.left, r.Time)
		}
		cw.count(cpu, r.Time)
	case sim.KindWakeup:
		e.advance(i, r)
		if e.valid(r.Thread) {
			cw.waitSince[r.Thread] = r.Time
		}
		cw.begin(r.Time, cpu, 'i', "wakeup")
		cw.str(`,"s":"t","args":{"wakee":`)
		cw.quote(cw.name(r.Thread))
		cw.str(`,"waker":`)
		cw.quote(cw.nameOr(sched.ID(r.Other), "timer"))
		cw.str(`,"flags":`)
		cw.quote(wakeFlags(sched.WakeFlags(r.Arg)))
		cw.str(`,"target_cpu":`)
		cw.int(int64(e.target))
		cw.str("}}")
		if !cw.o.NoFlows && e.valid(r.Thread) {
			cw.wokeOn[r.Thread], cw.wokeAt[r.Thread] = cpu, r.Time
		}
		cw.count(e.target, r.Time)
	case sim.KindMigrate:
		e.advance(i, r)
		cw.begin(r.Time, cpu, 'i', "migrate")
		cw.str(`,"s":"t","args":{"thread":`)
		cw.quote(cw.name(r.Thread))
		cw.str(`,"orig_cpu":`)
		cw.int(int64(r.Other))
		cw.str(`,"dest_cpu":`)
		cw.int(int64(cpu))
		cw.str("}}")
	case sim.KindFork, sim.KindExit:
		e.advance(i, r)
		cw.begin(r.Time, cpu, 'i', r.Kind.String())
		cw.str(`,"s":"t","args":{"thread":`)
		cw.quote(cw.name(r.Thread))
		cw.str(`,"parent":`)
		cw.quote(cw.nameOr(sched.ID(r.Other), "machine"))
		cw.str("}}")
	default:
		e.advance(i, r)
	}
}

func wakeFlags(f sched.WakeFlags) string {
	switch {
	case f&sched.WakeFork != 0 && f&sched.WakeSync != 0:
		return "fork|sync"
	case f&sched.WakeFork != 0:
		return "fork"
	case f&sched.WakeSync != 0:
		return "sync"
	}
	return ""
}

func (cw *chromeWriter) name(id sched.ID) string {
	if !cw.e.valid(id) {
		return "idle"
	}
	return cw.e.t.Threads[id].Name
}

// nameOr returns the name of thread id, or none when id names no thread: a wake-up by a
// timer, a thread the machine created.
func (cw *chromeWriter) nameOr(id sched.ID, none string) string {
	if !cw.e.valid(id) {
		return none
	}
	return cw.name(id)
}

// cpuSlice writes the stretch thread id ran on cpu until end, and its thread-track twin.
func (cw *chromeWriter) cpuSlice(cpu topology.CPU, id sched.ID, end int64, why string) {
	start := cw.runSince[cpu]
	cw.begin(start, cpu, 'X', cw.name(id))
	cw.str(`,"dur":`)
	cw.ts(end - start)
	cw.str(`,"args":{"id":`)
	cw.int(int64(id))
	cw.str(`,"pid":`)
	cw.int(int64(cw.e.pid(id)))
	cw.str(`,"prio":`)
	cw.int(int64(cw.e.prio(id)))
	cw.str(`,"end_state":`)
	cw.quote(why)
	cw.str("}}")
	if !cw.o.NoThreadTracks {
		cw.threadSlice(id, start, end, "running", "cpu", int64(cpu))
	}
	if from := cw.runWokeOn[cpu]; from != sim.NoCPU {
		cw.runWokeOn[cpu] = sim.NoCPU
		if end > start {
			cw.flows++
			cw.flowEvent('s', cw.flows, from, cw.runWokeAt[cpu])
			cw.flowEvent('f', cw.flows, cpu, start)
		}
	}
}

func (cw *chromeWriter) threadSlice(id sched.ID, start, end int64, name, key string, v int64) {
	cw.sep()
	cw.str(`{"ph":"X","pid":1,"tid":`)
	cw.int(int64(id) + 1)
	cw.str(`,"ts":`)
	cw.ts(start)
	cw.str(`,"dur":`)
	cw.ts(end - start)
	cw.str(`,"name":"`)
	cw.str(name)
	cw.str(`","args":{"`)
	cw.str(key)
	cw.str(`":`)
	if topology.CPU(v) == sim.NoCPU {
		v = -1
	}
	cw.int(v)
	cw.str("}}")
}

func (cw *chromeWriter) flowEvent(ph byte, id uint64, cpu topology.CPU, ts int64) {
	cw.sep()
	cw.str(`{"ph":"`)
	cw.b = append(cw.b, ph)
	cw.str(`","id":`)
	cw.b = strconv.AppendUint(cw.b, id, 10)
	cw.str(`,"pid":0,"tid":`)
	cw.int(int64(cpu))
	cw.str(`,"ts":`)
	cw.ts(ts)
	cw.str(`,"name":"wakeup","cat":"wakeup","bp":"e"}`)
}

// count writes CPU c's nr_running counter at ts if it changed.
func (cw *chromeWriter) count(c topology.CPU, ts int64) {
	if cw.o.NoCounters {
		return
	}
	n, changed := cw.e.nrRunning(c, cw.lastCount)
	if !changed {
		return
	}
	cw.sep()
	cw.str(`{"ph":"C","pid":0,"ts":`)
	cw.ts(ts)
	cw.str(`,"name":"cpu`)
	cw.int(int64(c))
	cw.str(` nr_running","args":{"nr_running":`)
	cw.int(int64(n))
	cw.str("}}")
}

// begin starts an event of phase ph on cpu's track.
func (cw *chromeWriter) begin(ts int64, cpu topology.CPU, ph byte, name string) {
	cw.sep()
	cw.str(`{"ph":"`)
	cw.b = append(cw.b, ph)
	cw.str(`","pid":0,"tid":`)
	cw.int(int64(cpu))
	cw.str(`,"ts":`)
	cw.ts(ts)
	cw.str(`,"name":`)
	cw.quote(name)
	cw.str(`,"cat":"sched"`)
}

func (cw *chromeWriter) meta(pid, tid int, what, name string) {
	cw.sep()
	cw.str(`{"ph":"M","pid":`)
	cw.int(int64(pid))
	if tid >= 0 {
		cw.str(`,"tid":`)
		cw.int(int64(tid))
	}
	cw.str(`,"name":"` + what + `","args":{"name":`)
	cw.quote(name)
	cw.str("}}")
}

func (cw *chromeWriter) sortIndex(pid, tid, idx int) {
	cw.sep()
	cw.str(`{"ph":"M","pid":`)
	cw.int(int64(pid))
	cw.str(`,"tid":`)
	cw.int(int64(tid))
	cw.str(`,"name":"thread_sort_index","args":{"sort_index":`)
	cw.int(int64(idx))
	cw.str("}}")
}

// sep ends the previous event (flushing it) and separates the next.
func (cw *chromeWriter) sep() {
	if cw.first {
		cw.first = false
		return
	}
	cw.str(",\n")
	if len(cw.b) > 32<<10 {
		cw.flush()
	}
}

func (cw *chromeWriter) flush() {
	if cw.err == nil {
		_, cw.err = cw.bw.Write(cw.b)
	}
	cw.b = cw.b[:0]
}

func (cw *chromeWriter) raw(s string) {
	cw.str(s)
	cw.flush()
}

func (cw *chromeWriter) str(s string) { cw.b = append(cw.b, s...) }

func (cw *chromeWriter) int(v int64) { cw.b = strconv.AppendInt(cw.b, v, 10) }

// ts appends ns as microseconds with three decimals.
func (cw *chromeWriter) ts(ns int64) {
	if ns < 0 {
		cw.b = append(cw.b, '-')
		ns = -ns
	}
	cw.b = strconv.AppendInt(cw.b, ns/1000, 10)
	cw.b = append(cw.b, '.')
	cw.b = appendPad(cw.b, ns%1000, 3, '0')
}

// quote appends s as a JSON string.
func (cw *chromeWriter) quote(s string) {
	b := append(cw.b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	cw.b = append(b, '"')
}
