package bsd4

import (
	"fmt"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/topology"
)

// checkScheduler walks the whole state and returns the first broken invariant:
//   - every queued thread is on exactly the queue its state names, at index Fold.Index(Pri);
//   - runq_length[c] equals the length of c's per-CPU queue;
//   - sched_tdcnt equals the number of queued plus running threads;
//   - every running thread is its CPU's current thread, and each CPU runs at most one;
//   - a CPU is in the idle set only if it runs nothing (quiescent: also the converse), and
//     with IPI wake-ups an idle CPU has nothing it could run (work conservation);
//   - estcpu never exceeds ESTCPULIM, and a time-sharing thread's priority lies in
//     PUSER..PUSER+79;
//   - a thread on a per-CPU queue is bound there or allowed there.
func checkScheduler(sc *Scheduler, quiescent bool) error {
	s := sc.sys
	queued, running := 0, 0
	onQueues := s.global.Len()
	for _, t := range s.threads.All() {
		switch t.state {
		case Queued:
			queued++
			idx, ok := t.Index()
			if !ok {
				return fmt.Errorf("%v is Queued but its link is not on a queue", t)
			}
			if idx != s.p.Fold.Index(t.Pri) {
				return fmt.Errorf("%v is on queue %d, want %d", t, idx, s.p.Fold.Index(t.Pri))
			}
			if t.queue >= 0 {
				c := topology.CPU(t.queue)
				if !t.bound && !t.Attr.Allowed(c) {
					return fmt.Errorf("%v is on %v's queue, which its affinity %v excludes", t, c, t.Attr.Affinity)
				}
				if t.bound && t.boundCPU != c {
					return fmt.Errorf("%v is bound to %v but queued on %v", t, t.boundCPU, c)
				}
				if !inQueue(&s.pcpu[c].runq, t) {
					return fmt.Errorf("%v claims %v's queue but is not on it", t, c)
				}
			} else if !inQueue(&s.global, t) {
				return fmt.Errorf("%v claims the global queue but is not on it", t)
			}
		case Running:
			running++
			if s.pcpu[t.cpu].cur != t {
				return fmt.Errorf("%v claims %v, which runs %v", t, t.cpu, s.pcpu[t.cpu].cur)
			}
			if t.Queued() {
				return fmt.Errorf("%v is running and queued", t)
			}
		default:
			if t.Queued() {
				return fmt.Errorf("%v is %v and queued", t, t.state)
			}
		}
		if lim := ESTCPULim(^uint32(0), s.iew, s.p.Fold); t.EstCPU > lim {
			return fmt.Errorf("%v has estcpu above ESTCPULIM %d", t, lim)
		}
		if l := s.p.Layout; t.Timeshare() && (t.Pri < l.MinTimeshare || t.Pri > l.MinTimeshare+79) {
			return fmt.Errorf("time-sharing %v outside %d..%d", t, l.MinTimeshare, l.MinTimeshare+79)
		}
	}
	for c := range s.cpus.All() {
		p := &s.pcpu[c]
		onQueues += p.runq.Len()
		if s.runqLength[c] != p.runq.Len() {
			return fmt.Errorf("runq_length[%v] = %d, queue holds %d", c, s.runqLength[c], p.runq.Len())
		}
		if p.cur != nil && s.idle.Has(c) {
			return fmt.Errorf("%v runs %v but is in the idle mask", c, p.cur)
		}
		if quiescent && p.cur == nil && !s.idle.Has(c) {
			return fmt.Errorf("%v runs nothing but is not in the idle mask", c)
		}
		if quiescent && s.p.IPIWakeup && p.cur == nil && (!s.global.Empty() || !p.runq.Empty()) {
			return fmt.Errorf("%v idles while %d threads wait on the global queue and %d on its own", c, s.global.Len(), p.runq.Len())
		}
		if p.cur != nil && (p.cur.state != Running || p.cur.cpu != c) {
			return fmt.Errorf("%v's current thread %v is %v on %v", c, p.cur, p.cur.state, p.cur.cpu)
		}
	}
	if onQueues != queued {
		return fmt.Errorf("queues hold %d threads, %d are Queued", onQueues, queued)
	}
	if s.load != queued+running {
		return fmt.Errorf("sched_tdcnt = %d, want %d queued + %d running", s.load, queued, running)
	}
	return nil
}

// inQueue reports whether t is on q, by walking q.
func inQueue(q *runq.Runq[Thread], t *Thread) bool {
	for _, x := range q.Elems() {
		if x == t {
			return true
		}
	}
	return false
}
