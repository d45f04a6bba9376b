package trace

// This file implements WriteKTR: a sim.Trace as the KTR_SCHED text `ktrdump -ct` prints, which
// FreeBSD's schedgraph.py opens.

import (
	"bufio"
	"io"
	"strconv"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// KTROptions tune WriteKTR. The zero value (or nil) gives the defaults.
type KTROptions struct {
	// Version is the FreeBSD whose priority layout (sys/sys/priority.h) the priorities are
	// printed in; the zero value is ule.Main.
	Version ule.Version
	// Entries keeps only the newest Entries entries, as a kernel's ring of KTR_ENTRIES does;
	// 0 keeps every one.
	Entries int
}

// ktrTidBase is the tid WriteKTR gives thread 0 (FreeBSD's first tid is PID_MAX+1, 100000); the
// idle thread of CPU c is ktrTidBase + threads + c.
const ktrTidBase = 100000

// WriteKTR writes the kept records of t to w as `ktrdump -ct` prints a KTR_SCHED trace of
// FreeBSD's scheduler (ule or 4bsd), for FreeBSD's tools/sched/schedgraph.py and ReadKTR: a
// line saying the timestamps are nanoseconds, ktrdump's heading, then one line per entry,
// "%6d %3d %16d " (index, CPU, timestamp) and the KTRGRAPH message, newest first as ktrdump
// prints its ring. Thread n is "NAME tid 100000+n" (sched_tdname), the idle thread of CPU c
// "idle: cpuC tid …". The records become the entries sched_ule.c and sched_4bsd.c log:
//
//	Switch    the previous thread's "sleep" (wmesg:"schedkit"), "yielding" (preempted or
//	          yielded) or nothing (exited), or the idle thread's "idle"; the next thread's
//	          "running", or the idle thread's; each with prio and schedkit's nice attribute
//	Wakeup    the wakee's "runq add" linked to the waker, and the waker's "wokeup" point linked
//	          to the wakee; a timer's wake-up is linked to the idle thread of the waker's CPU,
//	          as the kernel links one that fires on an idle CPU (ReadKTR takes it for no waker)
//	Exit      "thread exit"
//	SetAttr   a "prio" point, prio and new prio, linked to the thread
//	          and, after each, a "load" counter "CPU N load" for each CPU whose thread count
//	          (running and queued, tdq_load) changed
//
// Fork, Migrate and the other records have no KTR_SCHED entry (a new thread shows with its
// first "runq add"). Priorities are ktrPrio's: 4BSD's time-sharing priority of a thread without
// CPU history for a time-sharing thread (the policies' own move with CPU use, which the
// records do not carry), PRI_MIN_REALTIME + level for a real-time one, PRI_MIN_IDLE for an
// idle-class one, in KTROptions.Version's layout. Read schedgraph.py's output with a clock of
// 1 GHz (its default without statclock events, or its second argument "1").
//
// ktrdump prints the newest entry first, so WriteKTR holds its lines until the last (about 100
// bytes an entry, or KTROptions.Entries of them); its other memory is per thread and per CPU.
// It returns the first error of w.
// WriteKTR panics if t is nil.
func WriteKTR(w io.Writer, t *sim.Trace, o *KTROptions) error {
	if t == nil {
		panic("trace: WriteKTR of a nil trace")
	}
	if o == nil {
		o = &KTROptions{}
	}
	e := newExporter(t, 0)
	kw := &ktrWriter{e: e, layout: o.Version.Layout(), ring: o.Entries, load: make([]int, e.ncpu)}
	for i := range kw.load {
		kw.load[i] = -1
	}
	for i := range t.Records {
		r := &t.Records[i]
		var before sched.Attr
		if r.Kind == sim.KindSetAttr && e.valid(r.Thread) {
			before = e.attr[r.Thread]
		}
		e.advance(i, r)
		kw.record(r, before)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(ktrNanoMarker + "\n")
	bw.WriteString("index  cpu timestamp        trace\n------ --- ---------------- ----- \n")
	n := kw.count()
	for k := n - 1; k >= 0; k-- {
		if _, err := bw.Write(kw.entry(k)); err != nil {
			return err
		}
	}
	return bw.Flush()
}

type ktrWriter struct {
	e      *exporter
	layout ule.Layout
	// The entries: every one in arena (line k is arena[offs[k]:offs[k+1]]), or, with a ring,
	// the newest ring of them in slots.
	arena   []byte
	offs    []int
	ring    int
	slots   [][]byte
	written int // entries made
	load    []int
	buf     []byte
}

func (kw *ktrWriter) count() int {
	if kw.ring > 0 {
		return min(kw.written, kw.ring)
	}
	return len(kw.offs)
}

// entry returns the k-th kept entry, oldest first.
func (kw *ktrWriter) entry(k int) []byte {
	if kw.ring > 0 {
		first := kw.written - kw.count()
		return kw.slots[(first+k)%kw.ring]
	}
	end := len(kw.arena)
	if k+1 < len(kw.offs) {
		end = kw.offs[k+1]
	}
	return kw.arena[kw.offs[k]:end]
}

// emit makes an entry: the index, CPU and time, then msg.
func (kw *ktrWriter) emit(cpu topology.CPU, ns int64, msg []byte) {
	b := kw.buf[:0]
	b = appendPad(b, int64(kw.written), 6, ' ')
	b = append(b, ' ')
	b = appendPad(b, int64(cpu), 3, ' ')
	b = append(b, ' ')
	b = appendPad(b, ns, 16, ' ')
	b = append(b, ' ')
	b = append(b, msg...)
	b = append(b, '\n')
	kw.buf = b
	if kw.ring > 0 {
		if len(kw.slots) < kw.ring {
			kw.slots = append(kw.slots, nil)
		}
		s := kw.written % kw.ring
		kw.slots[s] = append(kw.slots[s][:0], b...)
	} else {
		kw.offs = append(kw.offs, len(kw.arena))
		kw.arena = append(kw.arena, b...)
	}
	kw.written++
}

// id appends the source id of thread id (or, for none, CPU cpu's idle thread).
func (kw *ktrWriter) id(b []byte, id sched.ID, cpu topology.CPU) []byte {
	e := kw.e
	if !e.valid(id) {
		b = append(b, "idle: cpu"...)
		b = strconv.AppendInt(b, int64(cpu), 10)
		b = append(b, " tid "...)
		return strconv.AppendInt(b, int64(ktrTidBase+len(e.attr)+int(cpu)), 10)
	}
	for _, c := range []byte(e.t.Threads[id].Name) {
		if c == '"' {
			c = '\''
		}
		b = append(b, c)
	}
	b = append(b, " tid "...)
	return strconv.AppendInt(b, int64(ktrTidBase+int(id)), 10)
}

// head appends `KTRGRAPH group:"thread", id:"ID", TYPE:"DATA", attributes: `.
func (kw *ktrWriter) head(b []byte, id sched.ID, cpu topology.CPU, etype, data string) []byte {
	b = append(b, `KTRGRAPH group:"thread", id:"`...)
	b = kw.id(b, id, cpu)
	b = append(b, `", `...)
	b = append(b, etype...)
	b = append(b, `:"`...)
	b = append(b, data...)
	return append(b, `", attributes: `...)
}

// prio appends "prio:P" and, for a thread, schedkit's "nice:N".
func (kw *ktrWriter) prio(b []byte, id sched.ID) []byte {
	b = append(b, "prio:"...)
	if !kw.e.valid(id) {
		b = strconv.AppendInt(b, int64(kw.layout.MaxIdle), 10)
		return b
	}
	a := kw.e.attr[id]
	b = strconv.AppendInt(b, int64(ktrPrio(a, &kw.layout)), 10)
	b = append(b, ", nice:"...)
	return strconv.AppendInt(b, int64(a.Nice), 10)
}

// record makes the entries of r, after the exporter's state has been advanced past it; before
// is a SetAttr's thread's attributes before it.
func (kw *ktrWriter) record(r *sim.Record, before sched.Attr) {
	e := kw.e
	cpu := e.cpuOf(r)
	var msg []byte
	switch r.Kind {
	case sim.KindSwitch:
		prev, next := sched.ID(r.Other), r.Thread
		switch {
		case !e.valid(prev):
			msg = kw.head(msg, -1, cpu, "state", "idle")
			msg = kw.prio(msg, -1)
			kw.emit(cpu, r.Time, msg)
		case sched.StopReason(r.Arg) == sched.Exit:
		case sched.StopReason(r.Arg).Runnable():
			msg = kw.head(msg, prev, cpu, "state", "yielding")
			msg = kw.prio(msg, prev)
			msg = append(msg, `, wmesg:"(null)", lockname:"(null)"`...)
			kw.emit(cpu, r.Time, msg)
		default:
			msg = kw.head(msg, prev, cpu, "state", "sleep")
			msg = kw.prio(msg, prev)
			msg = append(msg, `, wmesg:"schedkit", lockname:"(null)"`...)
			kw.emit(cpu, r.Time, msg)
		}
		msg = kw.head(msg[:0], next, cpu, "state", "running")
		msg = kw.prio(msg, next)
		kw.emit(cpu, r.Time, msg)
		kw.loads(r.Time, cpu, e.target, e.left)
	case sim.KindWakeup:
		waker := sched.ID(r.Other)
		if !e.valid(waker) {
			waker = -1
		}
		msg = kw.head(msg, r.Thread, cpu, "state", "runq add")
		msg = kw.prio(msg, r.Thread)
		msg = append(msg, `, linkedto:"`...)
		msg = kw.id(msg, waker, cpu)
		msg = append(msg, '"')
		kw.emit(cpu, r.Time, msg)
		msg = kw.head(msg[:0], waker, cpu, "point", "wokeup")
		msg = append(msg, `linkedto:"`...)
		msg = kw.id(msg, r.Thread, cpu)
		msg = append(msg, '"')
		kw.emit(cpu, r.Time, msg)
		kw.loads(r.Time, cpu, e.target, sim.NoCPU)
	case sim.KindExit:
		msg = kw.head(msg, r.Thread, cpu, "state", "thread exit")
		msg = kw.prio(msg, r.Thread)
		kw.emit(cpu, r.Time, msg)
		kw.loads(r.Time, cpu, sim.NoCPU, sim.NoCPU)
	case sim.KindSetAttr:
		if !e.valid(r.Thread) {
			return
		}
		msg = kw.head(msg, r.Thread, cpu, "point", "prio")
		msg = append(msg, "prio:"...)
		msg = strconv.AppendInt(msg, int64(ktrPrio(before, &kw.layout)), 10)
		msg = append(msg, ", new prio:"...)
		msg = strconv.AppendInt(msg, int64(ktrPrio(e.attr[r.Thread], &kw.layout)), 10)
		msg = append(msg, `, linkedto:"`...)
		msg = kw.id(msg, r.Thread, cpu)
		msg = append(msg, '"')
		kw.emit(cpu, r.Time, msg)
	case sim.KindMigrate:
		if r.Other >= 0 && int(r.Other) < e.ncpu {
			kw.loads(r.Time, cpu, topology.CPU(r.Other), sim.NoCPU)
		}
	}
}

// loads makes a "CPU N load" counter entry for each of the CPUs given whose thread count
// changed.
func (kw *ktrWriter) loads(ns int64, cpus ...topology.CPU) {
	for _, c := range cpus {
		n, changed := kw.e.nrRunning(c, kw.load)
		if !changed {
			continue
		}
		msg := append(kw.buf[:0:0], `KTRGRAPH group:"load", id:"CPU `...)
		msg = strconv.AppendInt(msg, int64(c), 10)
		msg = append(msg, ` load", counter:`...)
		msg = strconv.AppendInt(msg, int64(n), 10)
		msg = append(msg, ", attributes: none"...)
		kw.emit(c, ns, msg)
	}
}
