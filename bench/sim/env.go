package sim

// This file implements env, the sched.Env the machine gives its policy.

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// env is the machine as its policy sees it. It is a separate type so that Machine's own method
// set does not carry Resched and Explain.
type env struct {
	m *Machine
}

var _ sched.ReschedSetter = (*env)(nil)

// Resched queues a reschedule of CPU id: at once (before the current instant ends) when id is the
// CPU on whose behalf the policy was called or IPIs cost nothing, else when an IPI sent now
// arrives (Costs.IPI, or Idle.IPICurve for an idle CPU, drawn for each IPI). It does nothing if id is already due to reschedule. It panics if id is not a CPU of the
// machine.
func (e *env) Resched(id topology.CPU) {
	m := e.m
	if uint(id) >= uint(len(m.cpus)) || !m.cpus[id].online {
		panic(fmt.Sprintf("sim: %s asked to reschedule %v, not a CPU of the machine", m.pol.Name(), id))
	}
	c := &m.cpus[id]
	c.tickless = 0 // the policy's TicklessIdle promise ends with a reschedule
	if c.needResched || c.ipiPending {
		return
	}
	if m.trace != nil {
		running := sched.ID(-1)
		if int(m.ctx) < len(m.cpus) {
			running = sched.ID(m.cpus[m.ctx].cur)
		}
		m.trace.add(Record{Time: m.now, Kind: KindResched, CPU: id, Thread: running, Other: int32(m.ctx),
			Arg: uint8(m.call)})
	}
	if m.missAt > 0 && id != m.ctx && c.cur < 0 && m.missed(c) {
		// Lost: the CPU's next clock interrupt, after its Policy.Tick, finds the work, or with
		// Idle.MissTimer its idle timer.
		if !c.missedIPI {
			c.missedIPI = true
			at := m.lostUntil(c)
			if m.cfg.Idle.MissTimer > 0 {
				c.asleep = at
			}
			m.q.arm(m.slotIPI(id), at)
		}
		return
	}
	if id == m.ctx || !m.ipis {
		c.needResched = true
		m.work = append(m.work, work{kind: workResched, cpu: id})
		return
	}
	c.ipiPending, c.ipiFrom = true, m.ctx
	if m.ipiSends {
		m.sendIPI(m.ctx)
	}
	at := m.now + m.ipiLatency(c)
	if c.missedIPI {
		at = min(at, m.q.timeOf(m.slotIPI(id))) // an earlier lost IPI still wakes it at its tick
	}
	m.q.arm(m.slotIPI(id), at)
}

// ReschedSet reschedules every CPU of set, in ascending order, exactly as that many calls of
// Resched do (sched.ReschedSetter): each CPU still gets its own IPI.
func (e *env) ReschedSet(set topology.CPUSet) {
	for c := range set.All() {
		e.Resched(c)
	}
}

// Explaining reports whether explanations are recorded (Config.Explain).
func (e *env) Explaining() bool { return e.m.cfg.Explain }

// Explain adds an Explain record with the text why, when explanations are recorded.
func (e *env) Explain(id topology.CPU, tid sched.ID, why string) {
	m := e.m
	if !m.cfg.Explain {
		return
	}
	i := m.trace.addString(why)
	m.trace.add(Record{Time: m.now, Kind: KindExplain, CPU: id, Thread: tid, Other: i, Arg: uint8(m.call)})
}
