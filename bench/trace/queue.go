package trace

// This file implements runQueues: which CPU's run queue holds each runnable thread of a
// sim.Trace, found by looking ahead in the records, and the per-CPU queue lengths it implies.

import (
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// MaxLookahead bounds the switches an exporter holds while it looks ahead for the CPU a
// runnable thread will run on. A thread whose next run is further away than that (a starved
// thread, or one that never runs again) is counted on the CPU it last ran on.
const MaxLookahead = 1 << 16

// A switchIn is a record index at which a thread starts running, and the CPU.
type switchIn struct {
	idx int
	cpu topology.CPU
}

// runQueues answers "on which CPU's queue does thread x wait, having become runnable at
// record i?" The simulator's records do not say (a Wakeup names the waker's CPU, not the queue
// the policy chose); the answer they imply is the CPU of the thread's next switch-in, which is
// what the kernel's sched_wakeup calls target_cpu when no balancer moves the thread meanwhile.
//
// A single cursor runs ahead of the exporter over the records; each switch-in it passes is
// queued on its thread until that thread asks. Memory is one small queue per thread, bounded
// in total by MaxLookahead entries, never one entry per record: an exporter using it streams.
//
// It also keeps per-CPU counts of queued threads (the run-queue length without the running
// thread) and per-thread state: the CPU each thread last ran on and the queue it waits on.
type runQueues struct {
	recs    []sim.Record
	ahead   int          // next record the cursor examines
	pending [][]switchIn // per thread, switch-ins at indices the cursor passed, from head[x] on
	head    []int
	held    int // entries in pending
	last    []topology.CPU
	waitOn  []topology.CPU // queue a runnable thread waits on, or sim.NoCPU
	queued  []int          // per CPU
}

func newRunQueues(t *sim.Trace, ncpu int) *runQueues {
	n := len(t.Threads)
	q := &runQueues{recs: t.Records, pending: make([][]switchIn, n), head: make([]int, n),
		last: make([]topology.CPU, n), waitOn: make([]topology.CPU, n), queued: make([]int, ncpu)}
	for i := range q.last {
		q.last[i], q.waitOn[i] = sim.NoCPU, sim.NoCPU
	}
	return q
}

func (q *runQueues) valid(id sched.ID) bool { return id >= 0 && int(id) < len(q.last) }

// nextCPU returns the CPU of thread x's first switch-in after record i, and false if the
// lookahead bound or the end of the records comes first.
func (q *runQueues) nextCPU(x sched.ID, i int) (topology.CPU, bool) {
	p, h := q.pending[x], q.head[x]
	for h < len(p) && p[h].idx <= i {
		h++
		q.held--
	}
	if h == len(p) {
		p, h = p[:0], 0
	}
	q.pending[x], q.head[x] = p, h
	if h < len(p) {
		return p[h].cpu, true
	}
	if q.ahead <= i {
		q.ahead = i + 1
	}
	for q.ahead < len(q.recs) && q.held < MaxLookahead {
		j := q.ahead
		r := &q.recs[j]
		q.ahead++
		if r.Kind != sim.KindSwitch || !q.valid(r.Thread) {
			continue
		}
		q.push(r.Thread, switchIn{j, r.CPU})
		q.held++
		if r.Thread == x {
			return r.CPU, true
		}
	}
	return sim.NoCPU, false
}

// push queues s on thread x, reusing the space of the entries already taken.
func (q *runQueues) push(x sched.ID, s switchIn) {
	p, h := q.pending[x], q.head[x]
	if len(p) == cap(p) && h > 0 {
		n := copy(p, p[h:])
		p, q.head[x] = p[:n], 0
	}
	q.pending[x] = append(p, s)
}

// runnable records that thread x became runnable at record i, woken from CPU from, and
// returns the CPU whose queue it waits on.
func (q *runQueues) runnable(x sched.ID, i int, from topology.CPU) topology.CPU {
	if !q.valid(x) {
		return sim.NoCPU
	}
	c, ok := q.nextCPU(x, i)
	if !ok {
		c = q.last[x]
		if c == sim.NoCPU {
			c = from
		}
	}
	if int(c) >= len(q.queued) {
		c = sim.NoCPU
	}
	if q.waitOn[x] != sim.NoCPU {
		q.queued[q.waitOn[x]]--
	}
	q.waitOn[x] = c
	if c != sim.NoCPU {
		q.queued[c]++
	}
	return c
}

// running records that thread x started running on CPU c, and returns the queue it left
// (sim.NoCPU if it was on none).
func (q *runQueues) running(x sched.ID, c topology.CPU) topology.CPU {
	if !q.valid(x) {
		return sim.NoCPU
	}
	w := q.waitOn[x]
	if w != sim.NoCPU {
		q.queued[w]--
	}
	q.waitOn[x] = sim.NoCPU
	q.last[x] = c
	return w
}

// exited forgets thread x's look-ahead entries.
func (q *runQueues) exited(x sched.ID) {
	if !q.valid(x) {
		return
	}
	q.held -= len(q.pending[x]) - q.head[x]
	q.pending[x], q.head[x] = nil, 0
	if q.waitOn[x] != sim.NoCPU {
		q.queued[q.waitOn[x]]--
		q.waitOn[x] = sim.NoCPU
	}
}

// numCPUs returns one more than the largest CPU the records name, and at least 1.
func numCPUs(t *sim.Trace) int {
	n := 1
	for i := range t.Records {
		r := &t.Records[i]
		if r.CPU != sim.NoCPU && int(r.CPU) >= n {
			n = int(r.CPU) + 1
		}
		if r.Kind == sim.KindMigrate && r.Other >= 0 && topology.CPU(r.Other) != sim.NoCPU && int(r.Other) >= n {
			n = int(r.Other) + 1
		}
	}
	return n
}
