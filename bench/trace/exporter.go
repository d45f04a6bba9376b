package trace

// This file implements exporter: the state every trace exporter keeps while it walks a
// sim.Trace once: what each CPU runs, each thread's attributes, and the run queues.

import (
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

type exporter struct {
	t       *sim.Trace
	ncpu    int
	pidBase int
	cur     []sched.ID   // per CPU, the running thread or -1
	attr    []sched.Attr // per thread, the attributes now
	q       *runQueues
	// After advance: the queue a woken or preempted thread waits on (Wakeup, Switch), and the
	// queue a thread that starts running left.
	target topology.CPU
	left   topology.CPU
}

func newExporter(t *sim.Trace, pidBase int) *exporter {
	if pidBase <= 0 {
		pidBase = DefaultPIDBase
	}
	n := numCPUs(t)
	e := &exporter{t: t, ncpu: n, pidBase: pidBase, cur: make([]sched.ID, n),
		attr: make([]sched.Attr, len(t.Threads)), q: newRunQueues(t, n)}
	for i := range e.cur {
		e.cur[i] = -1
	}
	for i := range t.Threads {
		e.attr[i] = t.Threads[i].Attr
	}
	return e
}

func (e *exporter) valid(id sched.ID) bool { return id >= 0 && int(id) < len(e.attr) }

// pid returns the pid of thread id, 0 for the idle task.
func (e *exporter) pid(id sched.ID) int {
	if !e.valid(id) {
		return 0
	}
	return e.pidBase + int(id)
}

// prio returns the kernel prio of thread id now, 120 for the idle task.
func (e *exporter) prio(id sched.ID) int {
	if !e.valid(id) {
		return defaultPrio
	}
	return KernelPrio(e.attr[id])
}

// current returns the task in whose context a line for CPU cpu is printed: the waker when
// there is one, else whatever runs there.
func (e *exporter) current(waker sched.ID, cpu topology.CPU) sched.ID {
	if e.valid(waker) {
		return waker
	}
	return e.cur[cpu]
}

// cpuOf returns r's CPU, or 0 when it names none the exporter knows.
func (e *exporter) cpuOf(r *sim.Record) topology.CPU {
	if r.CPU == sim.NoCPU || int(r.CPU) >= e.ncpu {
		return 0
	}
	return r.CPU
}

// nrRunning returns the number of threads on CPU c now, the one running there plus those
// waiting on its queue, and whether it differs from last[c], which it then updates to it: the
// exporters' run-queue counters write a CPU's count only when it changed. It reports no change
// for a c that is not a CPU of the machine (sim.NoCPU).
func (e *exporter) nrRunning(c topology.CPU, last []int) (n int, changed bool) {
	if c == sim.NoCPU || int(c) >= e.ncpu {
		return 0, false
	}
	n = e.q.queued[c]
	if e.cur[c] >= 0 {
		n++
	}
	if n == last[c] {
		return n, false
	}
	last[c] = n
	return n, true
}

// advance moves the state past record i.
func (e *exporter) advance(i int, r *sim.Record) {
	e.target, e.left = sim.NoCPU, sim.NoCPU
	cpu := e.cpuOf(r)
	switch r.Kind {
	case sim.KindWakeup:
		e.target = e.q.runnable(r.Thread, i, cpu)
		if e.target == sim.NoCPU {
			e.target = cpu
		}
	case sim.KindSwitch:
		prev := sched.ID(r.Other)
		if e.valid(prev) && sched.StopReason(r.Arg).Runnable() {
			e.target = e.q.runnable(prev, i, cpu)
		}
		if e.valid(r.Thread) {
			e.left = e.q.running(r.Thread, cpu)
			e.cur[cpu] = r.Thread
		} else {
			e.cur[cpu] = -1
		}
	case sim.KindExit:
		e.q.exited(r.Thread)
	case sim.KindSetAttr:
		if e.valid(r.Thread) {
			a := &e.attr[r.Thread]
			a.Nice = int(r.Other&0xff) - 64
			a.Class = sched.Class(r.Other >> 8 & 0xff)
			a.RTPrio = int(r.Other >> 16)
		}
	}
}
