package sim

// This file implements the machine's per-CPU state: what runs, how fast it progresses (speed and
// SMT sharing), and the accounting of busy, idle, interrupt and switch time.

import (
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

type cpu struct {
	// cur is the running thread, or -1.
	cur int32
	// lastThread is the thread that ran last, for the switch cost; -1 at first.
	lastThread int32
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
	t := &m.threads[c.cur]
	switch {
	case t.remaining == forever:
		m.q.disarm(m.slotDone(id))
	case t.remaining == 0:
		m.q.arm(m.slotDone(id), max(c.segStart, m.now))
	default:
		need := (t.remaining<<10 + c.rate - 1) / c.rate
		m.q.arm(m.slotDone(id), max(c.segStart, m.now)+need)
	}
}

// setBusy records that CPU id became busy or idle, and slows down or speeds up its SMT siblings.
func (m *Machine) setBusy(id topology.CPU, busy bool) {
	c := &m.cpus[id]
	if c.busy == busy {
		return
	}
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
	if c.busySibs > 0 {
		return max(c.speed*int64(m.cfg.SMTFactor)>>10, 1)
	}
	return c.speed
}
