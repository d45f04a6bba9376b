package cfs

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// fakeEnv is a sched.Env that records reschedule requests for the test machine to carry out.
type fakeEnv struct {
	pending    topology.CPUSet
	explaining bool
	log        []string
	tb         testing.TB
}

func (e *fakeEnv) Resched(cpu topology.CPU) { e.pending.Add(cpu) }
func (e *fakeEnv) Explaining() bool         { return e.explaining }
func (e *fakeEnv) Explain(cpu topology.CPU, tid sched.ID, why string) {
	if !e.explaining {
		e.tb.Fatalf("Explain(%v, %v, %q) called while not explaining", cpu, tid, why)
	}
	if why == "" {
		e.tb.Fatalf("Explain(%v, %v) with an empty explanation", cpu, tid)
	}
	e.log = append(e.log, fmt.Sprintf("%v %v: %s", cpu, tid, why))
}

// behaviour is a test thread's script: run for run ticks, then sleep for sleep ticks, forever;
// run 0 is a hog that never sleeps. A thread with exit > 0 exits at the end of the tick in which
// it has run exit ticks in all.
type behaviour struct {
	run, sleep int
	exit       int
}

type mthread struct {
	id      sched.ID
	b       behaviour
	left    int // ticks left in the current run phase
	wakeAt  int // tick at which a sleeping thread wakes
	asleep  bool
	ran     int // ticks found running
	cpus    []int
	exited  bool
	created bool
	unborn  bool // forked but not yet woken: its estimate belongs to no CPU yet
}

// smpMachine is a small tick-driven test driver for a Scheduler, the machine of the simulator's
// Policy contract reduced to what the tests need: each tick it wakes the sleepers that are due,
// calls Tick on every CPU in ascending order, stops the threads whose run phase ended, then
// carries out every Resched request (Stop with Preempt, then Pick) until none is left, and
// counts the ticks each thread was found running.
type smpMachine struct {
	tb      testing.TB
	s       *Scheduler
	env     *fakeEnv
	topo    *topology.Topology
	running []sched.ID
	threads []*mthread
	tick    int
	off     int64 // nanoseconds past the current tick, for calls between ticks
	tickNS  int64
	check   func()
	delayed int // checks that found a delayed-dequeue task (v7.1)
}

func newSMPMachine(tb testing.TB, topo *topology.Topology, hz int, p Params) *smpMachine {
	env := &fakeEnv{tb: tb}
	s := mustNew(tb, p)
	if err := s.Start(sched.Config{Topology: topo, Hz: hz}, env); err != nil {
		tb.Fatalf("Start: %v", err)
	}
	m := &smpMachine{tb: tb, s: s, env: env, topo: topo, running: make([]sched.ID, topo.NumIDs()), tickNS: 1_000_000_000 / int64(hz)}
	for i := range m.running {
		m.running[i] = -1
	}
	return m
}

func (m *smpMachine) now() int64 { return int64(m.tick)*m.tickNS + m.off }

// spawn forks a thread with attr on cpu (parent -1) and wakes it.
func (m *smpMachine) spawn(cpu topology.CPU, attr sched.Attr, b behaviour) sched.ID {
	id := m.fork(cpu, -1, attr, b)
	m.settle()
	return id
}

// fork creates a thread with attr on cpu, forked by parent (cpu's running thread, or -1), and
// wakes it with WakeFork, leaving any reschedule pending.
func (m *smpMachine) fork(cpu topology.CPU, parent sched.ID, attr sched.Attr, b behaviour) sched.ID {
	id := sched.ID(len(m.threads))
	th := &mthread{id: id, b: b, left: b.run, created: true, cpus: make([]int, m.topo.NumIDs())}
	m.threads = append(m.threads, th)
	m.s.Fork(m.now(), id, parent, cpu, attr)
	m.s.Wakeup(m.now(), id, cpu, sched.WakeFork)
	return id
}

// stop stops cpu's running thread for reason why and picks the next one.
func (m *smpMachine) stop(c topology.CPU, why sched.StopReason) {
	id := m.running[c]
	th := m.threads[id]
	m.s.Stop(m.now(), c, id, why)
	m.checkFresh(c)
	m.running[c] = -1
	switch why {
	case sched.Sleep:
		th.asleep, th.wakeAt = true, m.tick+th.b.sleep
	case sched.Exit:
		th.exited = true
	}
	m.pick(c)
}

// wake wakes sleeping thread id from CPU from.
func (m *smpMachine) wake(id sched.ID, from topology.CPU, flags sched.WakeFlags) {
	th := m.threads[id]
	th.asleep, th.unborn = false, false
	th.left = th.b.run
	m.s.Wakeup(m.now(), id, from, flags)
}

// resched carries out cpu's pending reschedule, if any.
func (m *smpMachine) resched(c topology.CPU) {
	if !m.env.pending.Has(c) {
		return
	}
	m.env.pending.Remove(c)
	if id := m.running[c]; id >= 0 {
		m.s.Stop(m.now(), c, id, sched.Preempt)
		m.running[c] = -1
	}
	m.pick(c)
}

// settle carries out pending reschedules, lowest CPU first, until none is left.
func (m *smpMachine) settle() {
	for guard := 0; !m.env.pending.IsEmpty(); guard++ {
		if guard > 10*m.topo.NumCPUs()+100 {
			m.tb.Fatalf("tick %d: reschedules do not settle", m.tick)
		}
		c, _ := m.env.pending.First()
		m.resched(c)
	}
	if m.check != nil {
		m.check()
	}
}

func (m *smpMachine) pick(c topology.CPU) {
	id, ok := m.s.Pick(m.now(), c)
	m.checkFresh(c)
	if !ok {
		return
	}
	for o, r := range m.running {
		if r == id {
			m.tb.Fatalf("tick %d: Pick(%v) returned %v, already running on cpu%d", m.tick, c, id, o)
		}
	}
	th := m.threads[id]
	if th.asleep || th.exited {
		m.tb.Fatalf("tick %d: Pick(%v) returned %v, which is not runnable", m.tick, c, id)
	}
	m.running[c] = id
}

// checkFresh checks that a pick or a stop leaves cpu c's statistics up to date: refreshing them
// again (System.Schedule skips the refresh after a new-idle balance that pulled nothing, after
// the pick that followed a pull, and after a pick or a preemption that changed nothing refresh
// reads) changes nothing, and the overload flag is set if c holds two tasks or more.
func (m *smpMachine) checkFresh(c topology.CPU) {
	sys := m.s.sys
	st, multi := sys.stats[c], sys.flat.Has(c)
	sys.refresh(&sys.rqs[c])
	if sys.stats[c] != st || sys.flat.Has(c) != multi {
		m.tb.Fatalf("tick %d cpu%d: statistics after the pick %+v, refreshed %+v", m.tick, c, st, sys.stats[c])
	}
	if st.NrRunning > 1 && !sys.overload {
		m.tb.Fatalf("tick %d cpu%d: %d tasks after the pick and no overload flag", m.tick, c, st.NrRunning)
	}
}

// step advances the machine by one tick.
func (m *smpMachine) step() {
	m.tick++
	m.off = 0
	now := m.now()
	for _, th := range m.threads {
		if th.asleep && !th.exited && th.wakeAt <= m.tick {
			t, _ := m.s.Thread(th.id)
			m.wake(th.id, t.CPU(), 0)
		}
	}
	m.settle()
	for c := range m.topo.CPUs().All() {
		m.s.Tick(now, c)
		id := m.running[c]
		if id < 0 {
			continue
		}
		th := m.threads[id]
		th.ran++
		th.cpus[c]++
		if th.b.exit > 0 && th.ran >= th.b.exit {
			m.stop(c, sched.Exit)
			continue
		}
		if th.b.run > 0 {
			th.left--
			if th.left <= 0 {
				m.stop(c, sched.Sleep)
			}
		}
	}
	m.settle()
}

func (m *smpMachine) run(ticks int) {
	for range ticks {
		m.step()
	}
}

// checkInvariants checks the scheduler's state against the machine's: every CPU's fair state
// (without the group-weight check, which the SMP code refreshes lazily), each thread queued
// on exactly its task's CPU's list exactly while runnable or delayed (v7.1: asleep but still
// queued), the CPU running what the machine thinks, and the statistics matching the queues.
func (m *smpMachine) checkInvariants() {
	m.tb.Helper()
	s := m.s
	checkSums(m.tb, s.sys)
	for c := range m.topo.CPUs().All() {
		rq := &s.sys.rqs[c]
		if err := cpuErrShares(rq.c, nil, false); err != nil {
			m.tb.Fatalf("tick %d cpu%d: %v", m.tick, c, err)
		}
		var curID sched.ID = -1
		if e := rq.c.Curr(); e != nil {
			curID = e.task.th.id
		}
		if curID != m.running[c] {
			m.tb.Fatalf("tick %d cpu%d: scheduler runs %v, machine %v", m.tick, c, curID, m.running[c])
		}
		n := 0
		for t := rq.tasks.Front(); t != nil; t = t.Next() {
			n++
			if t.CPU() != c || !t.E.OnRQ() || t.E.cpu != rq.c {
				m.tb.Fatalf("tick %d cpu%d: %v on the list but cpu %v, on_rq %t", m.tick, c, t, t.CPU(), t.E.OnRQ())
			}
			// A running task whose affinity changed leaves at the reschedule it asked for.
			if !t.allowedOn(c) && (t.E != rq.c.Curr() || !m.env.pending.Has(c)) {
				m.tb.Fatalf("tick %d cpu%d: %v queued on a CPU it may not use (%v)", m.tick, c, t, t.Allowed())
			}
		}
		if n != rq.tasks.Len() || n != rq.c.nrRunning() {
			m.tb.Fatalf("tick %d cpu%d: list %d (len %d), h_nr_running %d", m.tick, c, n, rq.tasks.Len(), rq.c.nrRunning())
		}
		runnable := 0
		for t := rq.tasks.Front(); t != nil; t = t.Next() {
			if !t.E.Delayed() {
				runnable++
			}
		}
		if runnable != rq.c.Root().HNrRunnable() {
			m.tb.Fatalf("tick %d cpu%d: %d runnable tasks listed, h_nr_runnable %d", m.tick, c, runnable, rq.c.Root().HNrRunnable())
		}
		st := s.sys.stats[c]
		if int(st.NrRunning) != n || int(st.HNrRunning) != runnable || st.Runnable != uint64(runnable)*1024 ||
			st.Load != ScaleLoadDown(rq.c.Root().Load().Weight) {
			m.tb.Fatalf("tick %d cpu%d: stats %+v out of date", m.tick, c, st)
		}
		// The fast form of a flat domain's balance (findBusiestFlat) relies on these two.
		if st.Capacity != st.CapacityOrig {
			m.tb.Fatalf("tick %d cpu%d: capacity %d of %d", m.tick, c, st.Capacity, st.CapacityOrig)
		}
		if multi := s.sys.flat.Has(c); multi != (st.NrRunning > 1) {
			m.tb.Fatalf("tick %d cpu%d: in the set of CPUs with two tasks or more %t, nr_running %d", m.tick, c, multi, st.NrRunning)
		}
		if e := rq.c.Curr(); e != nil && e.Delayed() {
			m.tb.Fatalf("tick %d cpu%d: runs delayed task %v", m.tick, c, e)
		}
		if rq.c.Curr() == nil && n != 0 && !m.env.pending.Has(c) {
			m.tb.Fatalf("tick %d cpu%d: idle with %d tasks queued and no reschedule pending", m.tick, c, n)
		}
	}
	// loadBalance keeps its lb_env and migration env between balances and copies a mask into
	// them only when they do not hold it: they must hold what they claim to.
	if d := s.sys.lbSpan; d != nil && !s.sys.lb.CPUs.Equal(d.span) {
		m.tb.Fatalf("tick %d: the kept lb_env's cpus %v are not the span %v of %s", m.tick, s.sys.lb.CPUs, d.span, d.Name())
	}
	if mk := s.sys.meMask; mk != nil && !s.sys.me.DstGroupMask.Equal(*mk) {
		m.tb.Fatalf("tick %d: the kept dst_grpmask %v is not %v", m.tick, s.sys.me.DstGroupMask, *mk)
	}
	m.checkUtil()
	for _, th := range m.threads {
		if th.exited {
			if _, ok := s.Thread(th.id); ok {
				m.tb.Fatalf("tick %d: thread %v exited but is still known", m.tick, th.id)
			}
			continue
		}
		t, ok := s.Thread(th.id)
		if !ok {
			m.tb.Fatalf("tick %d: thread %v lost", m.tick, th.id)
		}
		if t.E.Delayed() {
			m.delayed++
		}
		if runnable := t.E.OnRQ() && !t.E.Delayed(); runnable == th.asleep {
			m.tb.Fatalf("tick %d: %v on_rq %t, delayed %t, asleep %t", m.tick, th.id, t.E.OnRQ(), t.E.Delayed(), th.asleep)
		}
	}
}

// checkUtil checks the utilisation bookkeeping. Every live task's estimate belongs to one
// CPU's signal: the CPU whose list holds it, or for a sleeper the CPU it slept on (a task
// forked but not yet woken belongs to none). With both
// brought up to the current tick (estimates as [Scheduler.wakeUtil] would detach them), the
// signal U of a CPU and the sum S of the estimates belonging to it obey
//
//	-(2^k - 1) <= S - U <= (2^k - 1)·N
//
// with k = utilShift and N the number of tasks that ever belonged to the CPU (here: every
// thread created). Proof sketch: attaching or detaching an estimate changes S and U alike, or
// (a detach saturating U at 0) leaves S - U = S' >= 0 and smaller than before; a tick's gain
// is added to both; a tick's decay takes floor(U/2^k) off U and floor(u/2^k) off each
// estimate u, so S - U becomes (S - U)(1 - 2^-k) plus the truncations, between -(1 - 2^-k)
// and n(1 - 2^-k) for n estimates, which keeps S - U within the two bounds. U is unsigned: an
// underflow would break the upper bound on U. The statistics' Util is the signal capped at
// capacity, as of the CPU's last refresh, so only that cap is checked.
func (m *smpMachine) checkUtil() {
	m.tb.Helper()
	s := m.s
	j := s.sys.jiffies(m.now())
	sh := s.sys.utilShift
	sum := make([]uint64, m.topo.NumIDs())
	for _, th := range m.threads {
		t, ok := s.Thread(th.id)
		if !ok || th.unborn {
			continue
		}
		if t.utilTick > j {
			m.tb.Fatalf("tick %d: %v's utilisation is of tick %d, after the current tick %d", m.tick, t, t.utilTick, j)
		}
		sum[t.CPU()] += decayUtil(t.util, j-t.utilTick, sh)
	}
	slack := uint64(1)<<sh - 1
	for c := range m.topo.CPUs().All() {
		rq := &s.sys.rqs[c]
		if rq.utilTick > j {
			m.tb.Fatalf("tick %d cpu%d: utilisation signal of tick %d, after the current tick %d", m.tick, c, rq.utilTick, j)
		}
		u := decayUtil(rq.util, j-rq.utilTick, sh)
		if u > sum[c]+slack || sum[c] > u+slack*uint64(len(m.threads)) {
			m.tb.Fatalf("tick %d cpu%d: utilisation signal %d, its tasks' estimates sum to %d; want the difference within [-%d, %d]",
				m.tick, c, u, sum[c], slack, slack*uint64(len(m.threads)))
		}
		if st := s.sys.stats[c]; st.Util > st.Capacity {
			m.tb.Fatalf("tick %d cpu%d: Util %d above capacity %d", m.tick, c, st.Util, st.Capacity)
		}
	}
}

// perCPU returns how many hogs run on each CPU now.
func (m *smpMachine) perCPU() []int {
	n := make([]int, m.topo.NumIDs())
	for c := range m.topo.CPUs().All() {
		n[c] = m.s.sys.rqs[c].c.nrRunning()
	}
	return n
}
