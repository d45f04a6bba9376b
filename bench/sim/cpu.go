package sim

// This file implements the machine's per-CPU state: what runs, how fast it progresses (speed and
// SMT sharing), and the accounting of busy, idle, interrupt and switch time.

import (
	"math/bits"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

type cpu struct {
	// cur is the running thread, or -1.
	cur int32
	// lastThread is the thread that ran last, for the switch cost; -1 at first. lastProc is its
	// process, kept when Costs.SwitchMM charges anything.
	lastThread, lastProc int32
	// stopped and stopWhy are the thread that stopped during the current reschedule and why,
	// until the next Pick: the previous thread of the switch record.
	stopped int32
	stopWhy uint8
	online  bool
	busy    bool
	// needResched says a reschedule is queued in the machine's work list.
	needResched bool
	// ipiPending says an IPI is on its way, from ipiFrom.
	ipiPending bool
	ipiFrom    topology.CPU
	// busySibs is the number of busy SMT siblings.
	busySibs int32
	// speed is the CPU's speed alone, rate its current speed, both in 1/1024ths.
	speed, rate int64
	// segStart is when the running thread started (or resumes) making progress at rate.
	segStart int64
	// since is when the CPU became busy or idle.
	since    int64
	siblings []topology.CPU
	st       CPUStats
	// pickSwitch and pickExit are the switch (with migration) and idle-exit stalls charged at
	// the last pick, stallInt the interrupt time added to the current stall since: what
	// Result clips at the run's end.
	pickSwitch, pickExit, stallInt int64
	// exitFor is the thread, plus one, that a timer on this busy CPU woke at the current
	// instant and whose interrupt's way out (Costs.TimerExit) is not charged yet; 0 for none.
	exitFor int32
	// tickless is the time before which the idle CPU's clock interrupts need not call
	// Policy.Tick (TicklessIdle): set when a Pick leaves it idle, cleared by a Resched of it;
	// 0 when every interrupt calls Tick.
	tickless int64
	// missedIPI says a reschedule IPI to this idle CPU was lost (Idle.MissProbability): the IPI
	// slot is armed for its next clock interrupt, which reschedules it.
	missedIPI bool
	// idleAt is when the idle CPU last entered its idle loop: when it went idle, and again
	// after each reschedule that found nothing to run (sched_idletd calls cpu_idle anew, whose
	// check-then-halt window and idle timer start again). Idle.MissWindow and MissTimer count
	// from it.
	idleAt int64
	// asleep is when the idle CPU that lost an IPI wakes on its own timer (Idle.MissTimer):
	// until then its clock interrupts do not call Policy.Tick. 0 when it is not so asleep.
	asleep int64
	// tickState is what a clock interrupt finds the CPU doing when it is not in a stall: idle,
	// or running a thread of nice ≤ 0 or > 0. The clock interrupts are counted lazily, so that
	// a tick costs nothing per CPU: tickMark is the machine's tick count at the last change of
	// tickState, and stallTicks the ticks since then that found the CPU in a stall (counted at
	// once as CPUSys or CPUIntr); the others belong to tickState (see flushTicks).
	tickState            CPUState
	tickMark, stallTicks int64
}

// settle credits the running thread of c with the work done since segStart.
func (m *Machine) settle(c *cpu) {
	if c.cur < 0 || m.now <= c.segStart {
		return
	}
	t := &m.threads[c.cur]
	hi, lo := bits.Mul64(uint64(m.now-c.segStart), uint64(c.rate))
	done := int64(hi<<54 | lo>>10)
	c.segStart = m.now
	if t.remaining != forever {
		done = min(done, t.remaining)
		t.remaining -= done
	}
	t.st.Work += done
}

// armDone arms c's completion event for the end of its thread's run, or at the end of its stall
// if the thread has no work left (it then carries on with its script).
func (m *Machine) armDone(id topology.CPU) {
	c := &m.cpus[id]
	if t := &m.threads[c.cur]; t.remaining == forever {
		m.q.disarm(m.slotDone(id))
	} else {
		if m.spinning(t) {
			m.spinLeft(c, t)
		}
		m.q.arm(m.slotDone(id), m.doneAt(c, t))
	}
}

// spinning reports whether thread t is in a Spin with work left: the run it last began (a run
// with work left always follows one) is a Spin's.
func (m *Machine) spinning(t *thread) bool {
	return t.spin && t.remaining > 0
}

// spinLeft sets the work left to c's running thread t, which is in a Spin, to what ends it at
// the spin's end in wall-clock time at c's present speed, or to none if that end has passed: a
// loop reading the clock stops at the first read past the end, however long it was off the CPU
// or stalled before. It first credits the work done since segStart, which settle takes from
// the old figure.
func (m *Machine) spinLeft(c *cpu, t *thread) {
	m.settle(c)
	end := m.vars[t.vars+m.code[t.base+t.pc-1].a]
	from := max(c.segStart, m.now)
	t.remaining = 0
	if end > from {
		t.remaining = ((end-from)*c.rate + 1023) >> 10
	}
}

// doneAt returns when c's thread t ends its run, or its stall if it has no work left.
func (m *Machine) doneAt(c *cpu, t *thread) int64 {
	at := max(c.segStart, m.now)
	if t.remaining > 0 {
		at += (t.remaining<<10 + c.rate - 1) / c.rate
	}
	return at
}

// setBusy records that CPU c (id) became busy or idle, and slows down or speeds up its SMT
// siblings, unless it already was: a test the caller's inlined copy makes, since a CPU often
// stays idle through a reschedule that finds nothing to run.
func (m *Machine) setBusy(c *cpu, id topology.CPU, busy bool) {
	if c.busy != busy {
		m.changeBusy(c, id, busy)
	}
}

// changeBusy is setBusy for a CPU whose state changes.
func (m *Machine) changeBusy(c *cpu, id topology.CPU, busy bool) {
	if busy {
		c.st.Idle += m.now - c.since
	} else {
		c.st.Busy += m.now - c.since
	}
	c.busy, c.since = busy, m.now
	d := int32(1)
	if !busy {
		d = -1
	}
	for _, sid := range c.siblings {
		s := &m.cpus[sid]
		m.settle(s)
		s.busySibs += d
		rate := m.rateOf(s)
		if rate != s.rate {
			s.rate = rate
			if s.cur >= 0 {
				m.armDone(sid)
			}
		}
	}
}

func (m *Machine) rateOf(c *cpu) int64 {
	switch {
	case c.busySibs > 0:
		return max(c.speed*int64(m.cfg.SMTFactor)>>10, 1)
	case m.cfg.Idle.Spin && len(c.siblings) > 0:
		// Every sibling is idle, and spins.
		f := int64(m.cfg.Idle.SpinFactor)
		if f == 0 {
			f = DefaultSpinFactor
		}
		return max(c.speed*f>>10, 1)
	}
	return c.speed
}

// A CPUState is what a clock interrupt finds a CPU doing, as FreeBSD's statclock classifies it
// for kern.cp_time (CP_USER … CP_IDLE, in that order).
type CPUState uint8

const (
	// CPUUser: running a thread of nice 0 or less (CP_USER).
	CPUUser CPUState = iota
	// CPUNice: running a thread of positive nice (CP_NICE).
	CPUNice
	// CPUSys: in a switch, migration or idle-exit stall, the kernel's own work (CP_SYS).
	CPUSys
	// CPUIntr: in the stall of an earlier clock interrupt (Costs.Tick) (CP_INTR).
	CPUIntr
	// CPUIdle: running no thread (CP_IDLE).
	CPUIdle
	// NumCPUStates is the number of states.
	NumCPUStates = 5
)

// sampleStalls classifies, at the start of a clock interrupt, the CPUs it finds in a stall; the
// others' ticks are counted lazily for their tickState. It runs only when some cost can stall a
// CPU (an idle CPU is never in a stall: its segStart is not after now).
func (m *Machine) sampleStalls() {
	for _, id := range m.online {
		if c := &m.cpus[id]; c.segStart > m.now {
			st := CPUSys
			if c.segStart-m.now <= c.stallInt {
				st = CPUIntr
			}
			c.st.Ticks[st]++
			c.stallTicks++
		}
	}
}

// ticks returns the number of clock interrupts so far: every CPU samples each at its start.
func (m *Machine) ticks() int64 { return m.tickK - 1 }

// flushTicks credits c's ticks since the last change of its state to that state.
func (m *Machine) flushTicks(c *cpu) {
	n := m.ticks()
	c.st.Ticks[c.tickState] += n - c.tickMark - c.stallTicks
	c.tickMark, c.stallTicks = n, 0
}

// setTickState flushes c's ticks and gives it the state st.
func (m *Machine) setTickState(c *cpu, st CPUState) {
	if st != c.tickState {
		m.flushTicks(c)
		c.tickState = st
	}
}

// runState is what a clock interrupt finds a CPU running a thread of attributes a doing.
func runState(a *sched.Attr) CPUState {
	if a.Nice > 0 {
		return CPUNice
	}
	return CPUUser
}
