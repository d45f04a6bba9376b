package sim_test

// This file implements the test-only toy policies: rr, a global FIFO round robin with a fixed
// slice that is correct, and broken, which breaks one invariant on purpose so that the checkers
// have something to catch.

import (
	"slices"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// rr is a global FIFO run queue with round-robin slices of slice ticks at hz: the simplest
// correct, work-conserving policy. It keeps its queue in a ring that grows only when full, so it
// does not allocate in steady state.
type rr struct {
	name  string
	hz    int
	slice int
	env   sched.Env
	cpus  []topology.CPU
	attr  []sched.Attr
	ring  []sched.ID
	head  int
	n     int
	// cur and ran are each CPU's thread (-1: idle) and how many ticks it has run; kicked says an
	// idle CPU has been asked to pick and has not yet.
	cur    []sched.ID
	ran    []int
	kicked []bool
	// free counts the CPUs that are idle and not kicked, so that a busy machine's wake-ups skip
	// the search for one; any caches whether a thread may run everywhere.
	free int
	any  []bool
}

// set changes CPU c's thread and kicked flag, keeping free up to date.
func (p *rr) set(c topology.CPU, cur sched.ID, kicked bool) {
	if p.cur[c] < 0 && !p.kicked[c] {
		p.free--
	}
	p.cur[c], p.kicked[c] = cur, kicked
	if cur < 0 && !kicked {
		p.free++
	}
}

func (p *rr) allowed(tid sched.ID, c topology.CPU) bool { return p.any[tid] || p.attr[tid].Allowed(c) }

func newRR(hz, slice int) *rr { return &rr{name: "toy-rr", hz: hz, slice: slice} }

func (p *rr) Name() string { return p.name }
func (p *rr) TickHz() int  { return p.hz }
func (p *rr) Queued() int  { return p.n }

func (p *rr) Start(cfg sched.Config, env sched.Env) error {
	p.env = env
	p.cpus = slices.Collect(cfg.Topology.CPUs().All())
	p.cur = make([]sched.ID, cfg.Topology.NumIDs())
	for i := range p.cur {
		p.cur[i] = -1
	}
	p.ran = make([]int, cfg.Topology.NumIDs())
	p.kicked = make([]bool, cfg.Topology.NumIDs())
	p.free = len(p.cpus)
	p.ring = make([]sched.ID, 16)
	return nil
}

func (p *rr) AddGroup(sched.Group) error { return nil }

func (p *rr) Fork(now int64, tid, parent sched.ID, cpu topology.CPU, attr sched.Attr) {
	if int(tid) >= len(p.attr) {
		// Double the tables: forking n threads then copies about n records, where appending
		// one at a time (a large slice grows by a quarter) copied about 4n.
		n := max(2*len(p.attr), int(tid)+1)
		p.attr = append(p.attr, make([]sched.Attr, n-len(p.attr))...)
		p.any = append(p.any, make([]bool, n-len(p.any))...)
	}
	p.SetAttr(now, tid, attr)
}

func (p *rr) push(tid sched.ID) {
	if p.n == len(p.ring) {
		bigger := make([]sched.ID, 2*len(p.ring))
		for i := range p.n {
			bigger[i] = p.ring[(p.head+i)%len(p.ring)]
		}
		p.ring, p.head = bigger, 0
	}
	p.ring[(p.head+p.n)%len(p.ring)] = tid
	p.n++
}

// take removes and returns the first queued thread allowed on cpu.
func (p *rr) take(cpu topology.CPU) (sched.ID, bool) {
	for i := range p.n {
		at := (p.head + i) % len(p.ring)
		tid := p.ring[at]
		if !p.allowed(tid, cpu) {
			continue
		}
		for j := i; j > 0; j-- { // close the gap towards the head
			p.ring[(p.head+j)%len(p.ring)] = p.ring[(p.head+j-1)%len(p.ring)]
		}
		p.head = (p.head + 1) % len(p.ring)
		p.n--
		return tid, true
	}
	return -1, false
}

// hasFor reports whether a queued thread may run on cpu.
func (p *rr) hasFor(cpu topology.CPU) bool {
	for i := range p.n {
		if p.allowed(p.ring[(p.head+i)%len(p.ring)], cpu) {
			return true
		}
	}
	return false
}

func (p *rr) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) {
	p.push(tid)
	if p.free == 0 {
		return
	}
	if p.cur[from] < 0 && !p.kicked[from] && p.allowed(tid, from) {
		p.kick(from)
		return
	}
	for _, c := range p.cpus {
		if p.cur[c] < 0 && !p.kicked[c] && p.allowed(tid, c) {
			p.kick(c)
			return
		}
	}
}

func (p *rr) kick(c topology.CPU) {
	p.set(c, p.cur[c], true)
	p.env.Resched(c)
}

func (p *rr) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	tid, ok := p.take(cpu)
	p.set(cpu, tid, false)
	if ok {
		p.ran[cpu] = 0
		if p.env.Explaining() {
			p.env.Explain(cpu, tid, "head of the global queue")
		}
	}
	return tid, ok
}

func (p *rr) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) {
	p.set(cpu, -1, p.kicked[cpu])
	if !why.Runnable() {
		return
	}
	p.push(tid)
	if p.allowed(tid, cpu) {
		return
	}
	for _, c := range p.cpus { // its affinity changed: wake a CPU it may run on
		if p.cur[c] < 0 && !p.kicked[c] && p.allowed(tid, c) {
			p.kick(c)
			return
		}
	}
}

func (p *rr) Tick(now int64, cpu topology.CPU) {
	if p.cur[cpu] < 0 {
		if !p.kicked[cpu] && p.hasFor(cpu) {
			p.kick(cpu)
		}
		return
	}
	p.ran[cpu]++
	if p.ran[cpu] >= p.slice { // the slice is over: the next thread's turn, or a new slice
		p.ran[cpu] = 0
		if p.hasFor(cpu) {
			p.env.Resched(cpu)
		}
	}
}

func (p *rr) SetAttr(now int64, tid sched.ID, attr sched.Attr) {
	p.attr[tid], p.any[tid] = attr, attr.Affinity.IsEmpty()
}

// A fault is the invariant a broken policy breaks.
type fault int

const (
	// lazyWake queues every thread on the first CPU and never wakes or steals for the others.
	lazyWake fault = iota
	// lifo puts a preempted thread back at the head, so a hog never lets the next thread in.
	lifo
	// duplicate hands the thread running on another CPU to an idle one.
	duplicate
	// lose forgets every second woken thread.
	lose
)

// broken is rr with one fault.
type broken struct {
	rr
	fault fault
	wakes int
	first topology.CPU
}

func newBroken(f fault) *broken {
	b := &broken{rr: *newRR(1000, 4), fault: f}
	b.name = "toy-broken"
	return b
}

func (p *broken) Start(cfg sched.Config, env sched.Env) error {
	cpus := cfg.Topology.CPUs()
	p.first, _ = cpus.First()
	return p.rr.Start(cfg, env)
}

func (p *broken) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) {
	p.wakes++
	switch p.fault {
	case lazyWake:
		p.push(tid)
		if p.cur[p.first] < 0 {
			p.env.Resched(p.first)
		}
	case lose:
		if p.wakes%2 == 0 {
			return // forgotten
		}
		p.rr.Wakeup(now, tid, from, flags)
	default:
		p.rr.Wakeup(now, tid, from, flags)
	}
}

func (p *broken) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	switch p.fault {
	case lazyWake:
		if cpu != p.first {
			return -1, false
		}
	case duplicate:
		for _, c := range p.cpus {
			if c != cpu && p.cur[c] >= 0 {
				return p.cur[c], true
			}
		}
	}
	return p.rr.Pick(now, cpu)
}

func (p *broken) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) {
	if p.fault == lifo && why.Runnable() {
		p.set(cpu, -1, p.kicked[cpu])
		p.push(tid)
		// Move it from the tail to the head.
		p.head = (p.head + len(p.ring) - 1) % len(p.ring)
		p.ring[p.head] = p.ring[(p.head+p.n)%len(p.ring)]
		return
	}
	p.rr.Stop(now, cpu, tid, why)
}

func (p *broken) Tick(now int64, cpu topology.CPU) {
	if p.fault == lazyWake && cpu != p.first {
		return
	}
	p.rr.Tick(now, cpu)
}
