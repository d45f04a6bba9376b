package sim

// This file implements Machine: construction, the event loop and the reschedule work list.

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A Machine runs one workload under one policy on one simulated machine. Build it with [New],
// then call [Machine.Run] (or [Machine.Step] for one event at a time). A Machine is not safe for
// concurrent use; separate Machines are independent and may run in parallel.
type Machine struct {
	cfg    Config
	pol    Policy
	topo   *topology.Topology
	env    env
	tickHz int64
	tickK  int64 // the number of the next clock interrupt
	// tickAt is the time of clock interrupt tickK (tickTime(tickK)), tickRem the remainder of
	// tickK·10⁹ / tickHz, and tickQ, tickR the quotient and remainder of 10⁹ / tickHz: the
	// next interrupt's time without a division (see nextTick).
	tickAt, tickRem, tickQ, tickR int64
	online                        []topology.CPU
	first                         topology.CPU
	nids                          int32
	now                           int64
	events                        uint64
	q                             eventQueue
	cpus                          []cpu
	threads                       []thread
	progs                         []*program
	// code is every program's code, one after the other (program.base), and attrs the
	// threads' attributes (thread.attr): the programs' (program.attrIx), then the threads' own
	// copies. Threads refer to them, and to their program, by index, so that the threads'
	// slice holds no pointer and the garbage collector does not scan it.
	code   []instr
	attrs  []sched.Attr
	pipes  []pipe
	spawns []spawn
	nspawn int
	work   []work
	// call and ctx are the policy method in progress and the CPU on whose behalf it runs.
	call Call
	ctx  topology.CPU
	// live counts the threads created or still to be created that have not exited.
	live     int
	finished int64
	// nwait counts the runnable, not running threads; waitHead and waitTail are their list, in
	// order of since, kept only while checking (see waitPush).
	waitHead, waitTail int32
	nwait              int
	messages           int64
	trace              *Trace
	viol               violations
	queued             Queuer
	// tickless is the policy's TicklessIdle, or nil if it is not one or Config.EveryTick or a
	// checker needs every Tick.
	tickless TicklessIdle
	err      error
	wl       *workload.Workload
	// The stop conditions of RunUntil and what ended the run.
	stopAt                  Stop
	nextLook                uint64 // the event count at which ended looks at stopAt.Events and Context
	watches                 []watch
	ranUntil                bool
	ending                  Ending
	exitsSeen, exitsChecked int64
	// warmed says the warm-up has been discarded: statistics count from statsFrom, and
	// eventsFrom is the event count then.
	warmed     bool
	statsFrom  int64
	eventsFrom uint64
	// idleRng draws lost IPIs; missAt is Idle.MissProbability as a threshold, 0 when off.
	idleRng rand.PCG
	missAt  uint64
	// costRng draws the costs that vary (see Cost). The flags say which costs charge
	// anything, so that the ideal machine's paths test a bool and draw nothing: pays
	// (Costs.Wakeup), slack (Costs.Timer), ipis (Costs.IPI or Idle.IPICurve), switches
	// (Costs.Switch), refills (Costs.Refill), migrates (Costs.Migration), ticked (Costs.Tick), switchMMs
	// (Costs.SwitchMM), ipiSends (Costs.IPISend), timerExits (Costs.TimerExit) and exits
	// (Idle.ExitLatency, when the idle loop does not spin); picks says that a pick may stall, stalls that some cost can stall a CPU,
	// so that a clock interrupt may find one in a stall.
	costRng                                                rand.PCG
	pays, slack, ipis, switches, refills, migrates, ticked bool
	exits, picks, stalls, switchMMs, ipiSends, timerExits  bool
	// payer is the thread whose script op is waking another (Costs.IPISend: it pays the IPIs
	// the wake-up sends, owed, before its script goes on), or -1.
	payer int32
	owed  int64
	// tickCap is half the policy's tick period: the longest a clock interrupt's cost is
	// charged (Costs.Tick).
	tickCap int64
	// checking says that some invariant of Config.Checks is checked at clock interrupts.
	checking bool
	// vars holds the threads' script variables (thread.vars).
	vars []int64
	// arena holds the threads' exact latency samples (liveSeries), budget of them at most per
	// series (Config.ExactSamples).
	arena  sampleArena
	budget uint32
	// sorted holds what the last Result took of each live series, thread tid's series k at
	// tid*numSeries+k; sortBuf and freshBuf are snapshotSeries' scratch space.
	sorted            []sortedSeries
	sortBuf, freshBuf []int64
}

// A spawn is a thread the machine creates by itself at time at.
type spawn struct {
	at   int64
	prog int32
}

// A work item is a reschedule or a script step to do before the current instant ends.
type work struct {
	kind uint8 // workResched, workAdvance or workTimerExit
	cpu  topology.CPU
	tid  int32
}

const (
	workResched = iota
	workAdvance
	// workTimerExit ends a timer wake-up on a busy CPU (Costs.TimerExit): queued after the
	// reschedules the wake-up asked for, so that it finds whether the sleeper preempted.
	workTimerExit
)

// Event slots: the clock interrupt of every CPU (they all tick at the same instants), the
// creation of the initial threads, then each CPU's end of run and IPI, then each thread's timer.
func (m *Machine) slotTick() int32               { return 0 }
func (m *Machine) slotSpawn() int32              { return 1 }
func (m *Machine) slotDone(c topology.CPU) int32 { return 2 + int32(c) }
func (m *Machine) slotIPI(c topology.CPU) int32  { return 2 + m.nids + int32(c) }
func (m *Machine) slotTimer(t int32) int32       { return 2 + 2*m.nids + t }

// tickTime returns the time of clock interrupt k: k/TickHz seconds, rounded down to the
// nanosecond without accumulating error. The product is taken on 128 bits, so that it does not
// overflow before MaxTime.
func (m *Machine) tickTime(k int64) int64 {
	hi, lo := bits.Mul64(uint64(k), uint64(time.Second))
	if hi >= uint64(m.tickHz) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(m.tickHz))
	return int64(min(q, math.MaxInt64))
}

// nextTick moves tickK, tickAt and tickRem on to the next clock interrupt: tickTime(k+1) is
// tickTime(k) + tickQ, and one more when the remainders of k·10⁹ and 10⁹ add up to tickHz or
// more; the time saturates at math.MaxInt64, as tickTime's does.
func (m *Machine) nextTick() {
	m.tickK++
	if m.tickAt > math.MaxInt64-m.tickQ-1 {
		m.tickAt = math.MaxInt64
		return
	}
	m.tickAt += m.tickQ
	if m.tickRem += m.tickR; m.tickRem >= m.tickHz {
		m.tickRem -= m.tickHz
		m.tickAt++
	}
}

// Now returns the current simulated time in nanoseconds.
func (m *Machine) Now() int64 { return m.now }

// Events returns the number of events handled so far: clock interrupts (one per CPU: a tick of
// 8 CPUs is 8 events, each a call of Policy.Tick), ends of runs and stalls, IPIs, timers and
// thread creations.
func (m *Machine) Events() uint64 { return m.events }

// Done reports whether every thread has exited, or the run stopped on an error.
func (m *Machine) Done() bool { return m.live == 0 || m.err != nil }

// Trace returns the trace the machine records (Config.Trace), which grows as it runs, or nil
// when it records none. Its Records are those made so far; a caller stepping the machine reads
// them between steps (schedbench explain -state puts each decision beside the policy's state).
func (m *Machine) Trace() *Trace { return m.trace }

// Run builds a machine for w under p as cfg describes (see [New]), runs it until every thread
// has exited or until has passed (see [Machine.Run]), and returns the result. It is
// RunUntil(cfg, p, w, Stop{Time: until}) for a positive until; see [RunUntil] for the other
// stop conditions and a warm-up.
func Run(cfg Config, p Policy, w *workload.Workload, until time.Duration) (*Result, error) {
	m, err := New(cfg, p, w)
	if err != nil {
		return nil, err
	}
	if err := m.Run(until); err != nil {
		return nil, err
	}
	return m.Result(), nil
}

// Run handles events in time order until every thread has exited or the next event is later than
// until; the machine's time is then the last exit, or until. It may be called again with a later
// until to carry on; [Machine.Result] returns the metrics. The error is non-nil if the run stopped
// early (a workload forked more than Config.MaxThreads threads), or, before anything runs, if
// until is negative or above MaxTime. [Machine.RunUntil] offers the other stop conditions.
//
// Run panics if the policy breaks the contract of [Policy] in a way the machine cannot carry on
// from (a Resched for a CPU that does not exist; rescheduling without end at one instant, that is
// more than 65536 + 64×(threads+CPUs) reschedules in a row while no thread's script moves on);
// the message starts with "sim: ". A workload that validates never trips them under a policy
// that keeps the contract. Picks of threads that are not runnable, or not allowed on the CPU,
// are recorded as violations of ThreadConservation instead, and the CPU idles.
func (m *Machine) Run(until time.Duration) error {
	if until < 0 || until > MaxTime {
		return fmt.Errorf("sim: until %v outside 0..%v", until, MaxTime)
	}
	defer m.setEnding()
	for m.live > 0 && m.err == nil && !m.q.empty() && m.q.top().t <= int64(until) {
		m.step()
	}
	if m.live > 0 && m.err == nil && m.now < int64(until) {
		m.now = int64(until)
	}
	return m.err
}

// setEnding records what ended a run of Machine.Run.
func (m *Machine) setEnding() {
	switch {
	case m.err != nil:
		m.ending = Failed
	case m.live == 0:
		m.ending = AllExited
	default:
		m.ending = TimeReached
	}
}

// Next returns the time of the next event, or false if there is none or the run is over.
func (m *Machine) Next() (int64, bool) {
	if m.live == 0 || m.err != nil || m.q.empty() {
		return 0, false
	}
	return m.q.top().t, true
}

// Step handles the next event and everything it causes at the same instant. It reports false,
// doing nothing, when every thread has exited or the run stopped on an error.
func (m *Machine) Step() bool {
	if m.live == 0 || m.err != nil || m.q.empty() {
		return false
	}
	m.step()
	return true
}

func (m *Machine) step() {
	e := m.q.top()
	m.now = e.t
	s := e.slot
	m.events++
	switch {
	case s == m.slotTick():
		m.nextTick()
		m.q.arm(s, m.tickAt)
		if m.stalls {
			m.sampleStalls()
		}
		for i, id := range m.online {
			if i > 0 {
				m.events++
			}
			// A clock interrupt on id, written out here: beyond the policy's Tick, it costs the
			// machine two predictable tests, and a drain only if there is work.
			if m.ticked && m.cpus[id].cur >= 0 {
				m.chargeInterrupt(id, min(m.cfg.Costs.Tick.sample(&m.costRng), m.tickCap))
			}
			if m.cpus[id].asleep > m.now && m.cpus[id].cur < 0 && id != m.first {
				// Asleep on its idle timer after a lost IPI (Idle.MissTimer): no interrupt.
				continue
			}
			if m.tickless != nil && m.cpus[id].cur < 0 && m.cpus[id].tickless > m.now {
				// An idle CPU whose policy said this Tick would do nothing (TicklessIdle).
				if m.checking {
					m.checkTick(id)
				}
				continue
			}
			m.call, m.ctx = CallTick, id
			m.pol.Tick(m.now, id)
			if m.checking {
				m.checkTick(id)
			}
			if len(m.work) > 0 {
				m.drain()
			}
		}
		return
	case s == m.slotSpawn():
		m.spawnDue()
	case s < m.slotIPI(0):
		// Removing the event leaves a hole at the root that the next event armed fills: the
		// thread's next run, or the timer of its next period if it blocks.
		m.q.disarm(s)
		m.done(topology.CPU(s - m.slotDone(0)))
	case s < m.slotTimer(0):
		m.q.disarm(s)
		m.ipi(topology.CPU(s - m.slotIPI(0)))
	default:
		m.q.disarmTimer(s)
		m.timer(s - m.slotTimer(0))
	}
	if len(m.work) > 0 {
		m.drain()
	}
}

// chargeInterrupt charges CPU id with an interrupt that takes cost (a clock interrupt's
// Costs.Tick, a timer's Costs.Wakeup): the running thread makes no progress for that long. Its
// completion event, if armed, only moves later (armDone's time, once the stall is added), and
// waits in the queue's late until its old time comes (eventQueue.armLater) instead of moving
// down the heap at every clock interrupt.
func (m *Machine) chargeInterrupt(id topology.CPU, cost int64) {
	c := &m.cpus[id]
	c.st.Interrupt += cost
	if c.cur < 0 {
		return
	}
	m.settle(c)
	if c.segStart > m.now {
		c.stallInt += cost
	} else {
		c.stallInt = cost
	}
	c.segStart = max(c.segStart, m.now) + cost
	if t := &m.threads[c.cur]; m.spinning(t) {
		m.spinLeft(c, t) // the interrupt took wall-clock time the spin counts
	}
	switch t, s := &m.threads[c.cur], m.slotDone(id); {
	case t.remaining == forever:
		m.q.disarm(s)
	case t.remaining > 0 || m.q.pending(s):
		m.q.armLater(s, m.doneAt(c, t))
	}
}

// done is the end of the running thread's run or stall on id.
func (m *Machine) done(id topology.CPU) {
	c := &m.cpus[id]
	m.settle(c)
	if t := &m.threads[c.cur]; t.remaining > 0 {
		m.armDone(id)
		return
	}
	m.advance(id, c.cur)
}

// ipi is the arrival of a reschedule IPI on id.
func (m *Machine) ipi(id topology.CPU) {
	c := &m.cpus[id]
	c.ipiPending, c.missedIPI, c.asleep = false, false, 0
	if m.trace != nil {
		m.trace.add(Record{Time: m.now, Kind: KindIPI, CPU: id, Thread: -1, Other: int32(c.ipiFrom)})
	}
	c.needResched = true
	m.work = append(m.work, work{kind: workResched, cpu: id})
}

// timer is the end of a sleep of thread tid, whose deadline its wokeAt holds (see armSleep).
// The timer fires on the CPU the thread ran on last; with a Costs.Wakeup, its interrupt takes
// that long from the thread running there. With a Costs.TimerExit and a thread running there,
// the CPU owes the interrupt's way out (cpu.exitFor): the pick of the sleeper at this instant
// stalls it that long (pickStall), else the work item queued after the wake-up's reschedules
// charges it to the thread running then (timerExit). A second timer on the CPU at the same
// instant takes the first one's place: one hrtimer_interrupt expires both, and leaves once.
func (m *Machine) timer(tid int32) {
	t := &m.threads[tid]
	id := topology.CPU(t.last)
	busy := m.cpus[id].cur >= 0
	if m.pays && busy {
		m.chargeInterrupt(id, m.cfg.Costs.Wakeup.sample(&m.costRng))
	}
	if m.timerExits && busy {
		m.cpus[id].exitFor = tid + 1
	}
	m.wake(tid, id, 0, nobody, t.wokeAt)
	if m.timerExits && busy {
		m.work = append(m.work, work{kind: workTimerExit, cpu: id, tid: tid})
	}
}

// timerExit ends thread tid's timer wake-up on CPU id: if the CPU did not pick the sleeper at
// the wake-up's instant, its interrupt's way out (Costs.TimerExit) is interrupt time of the
// thread running there, if any.
func (m *Machine) timerExit(id topology.CPU, tid int32) {
	c := &m.cpus[id]
	if c.exitFor != tid+1 {
		return // the sleeper preempted: pickStall charged it
	}
	c.exitFor = 0
	if c.cur >= 0 {
		m.chargeInterrupt(id, m.cfg.Costs.TimerExit.sample(&m.costRng))
	}
}

// armSleep arms thread tid's timer for the deadline at, late by the thread's timer slack
// (hrtimer_set_expires_range_ns: the timer fires at the range's end, the hard expiry) and a
// Costs.Timer, and keeps the deadline in its wokeAt, which a blocked thread does not use
// otherwise: its wake-up latency counts from the deadline, as a thread that timestamps its own
// wake-up counts it. A timer that another interrupt on the CPU would expire early, inside the
// range, is not modelled. A varying Costs.Timer's point of draw stays with the thread (timerAt)
// for the idle exit of its CPU (pickStall).
func (m *Machine) armSleep(tid int32, at int64) {
	t := &m.threads[tid]
	t.wokeAt = at
	at += m.progs[t.prog].slack
	if k := &m.cfg.Costs.Timer; m.slack && k.Varies() {
		u := draw(&m.costRng)
		at += k.at(u)
		t.timerAt = int32(u) + 1
	} else if m.slack {
		at += int64(k.Min)
	}
	m.q.armTimer(m.slotTimer(tid), at)
}

// spawnDue creates the initial threads whose time has come.
func (m *Machine) spawnDue() {
	for m.nspawn < len(m.spawns) && m.spawns[m.nspawn].at <= m.now {
		sp := m.spawns[m.nspawn]
		m.nspawn++
		m.live--
		if tid, ok := m.create(sp.prog, nobody, m.first); ok {
			m.wake(tid, m.first, sched.WakeFork, nobody, m.now)
		}
	}
	if m.nspawn < len(m.spawns) {
		m.q.arm(m.slotSpawn(), m.spawns[m.nspawn].at)
	} else {
		m.q.disarm(m.slotSpawn())
	}
}

// drain does the queued work of the current instant: reschedules and script steps, which may
// queue more.
//
// A policy that asks for a reschedule whenever it picks would keep the machine at one instant
// forever: drain panics after more than 1<<16 + 64*(threads+CPUs) work items in a row in which
// no thread's script moved on. A script step resets the count, since validated scripts do at
// most workload.MaxInstant steps per op at one instant (a thread yielding a million times at one
// instant is the workload's doing, not the policy's).
func (m *Machine) drain() {
	stuck := 0 // work items since a thread's script last moved on
	limit := 1<<16 + 64*(len(m.threads)+len(m.cpus))
	for i := 0; i < len(m.work); i++ {
		if stuck++; stuck > limit {
			panic(fmt.Sprintf("sim: %s keeps asking for reschedules at time %d", m.pol.Name(), m.now))
		}
		if i >= 1024 && 2*i >= len(m.work) {
			// Drop the items done so far, so that a long instant holds only the pending ones.
			m.work = m.work[:copy(m.work, m.work[i:])]
			i = 0
		}
		w := m.work[i]
		c := &m.cpus[w.cpu]
		switch w.kind {
		case workResched:
			if c.needResched {
				m.reschedule(w.cpu)
			}
		case workAdvance:
			if c.cur == w.tid && m.threads[w.tid].remaining == 0 && c.segStart <= m.now && !m.q.pending(m.slotDone(w.cpu)) {
				m.advance(w.cpu, w.tid)
				stuck = 0
				limit = 1<<16 + 64*(len(m.threads)+len(m.cpus)) // forks may have added threads
			}
		case workTimerExit:
			m.timerExit(w.cpu, w.tid)
		}
	}
	m.work = m.work[:0]
}
