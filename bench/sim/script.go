package sim

// This file implements the interpreter of behaviour scripts: what a thread does when it is on a
// CPU with no work left in its current run.

import (
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// advance runs thread tid's script on CPU id from its program counter until the thread starts a
// run, blocks, yields or exits. Every op but those takes no simulated time.
func (m *Machine) advance(id topology.CPU, tid int32) {
	for {
		t := &m.threads[tid] // again after every op: a fork may move the slice
		in := &m.code[t.base+t.pc]
		switch in.op {
		case opRun, opSpin:
			t.pc++
			t.fresh = false
			m.beginRun(id, t, in)
			m.armDone(id)
			return
		case opSleep:
			t.pc++
			m.armSleep(tid, m.now+max(int64(in.dist.Sample(&t.rng)), 1))
			m.block(id)
			return
		case opSend, opRecv:
			if t.opLeft == 0 {
				t.opLeft = in.n
			}
			if !m.transfer(id, tid, &m.pipes[in.a], in.op == opSend) {
				return
			}
			m.threads[tid].pc++
		case opFork:
			if !m.fork(id, tid, in) {
				return
			}
		case opJoin:
			if t.children > 0 {
				t.joining = true
				m.block(id)
				return
			}
			t.pc++
		case opYield:
			t.pc++
			m.stop(id, sched.Yield)
			m.pick(id)
			return
		case opExit:
			m.exit(id, tid)
			return
		case opJump:
			t.pc = in.a
		case opPollReady:
			// Ready when the messages are there, or the pipe is full (a Poll of more than
			// a pipe holds then takes the rest as Recv does).
			if p := &m.pipes[in.a]; p.msgs >= in.n || (p.cap > 0 && p.msgs >= p.cap) {
				t.pc = in.b
			} else {
				t.pc++
			}
		case opRepeatInit:
			m.vars[t.vars+in.a] = in.n
			t.pc++
		case opRepeatNext:
			v := &m.vars[t.vars+in.a]
			*v--
			if *v > 0 {
				t.pc = in.b
			} else {
				t.pc++
			}
		case opEveryInit:
			t.pc++
			if m.everyInit(id, tid, in) {
				return
			}
		case opEveryNext:
			if !m.everyNext(id, tid, in) {
				return
			}
		case opSetAttr:
			t.pc++
			m.setAttrOp(id, tid, in)
		}
	}
}

// beginRun sets thread t's work for its Run or Spin op in on CPU id, and whether it spins.
func (m *Machine) beginRun(id topology.CPU, t *thread, in *instr) {
	if t.spin = in.op == opSpin; t.spin {
		t.remaining = m.spinStart(id, t, in)
		return
	}
	t.remaining = runLength(in, t)
}

// spinStart begins thread t's spin in on CPU id and returns a placeholder for its work, which
// armDone replaces with the work up to the spin's end; the end is kept in the spin's variable.
// The clock read that starts a spin is the thread's first progress, after any stall the CPU
// is in.
func (m *Machine) spinStart(id topology.CPU, t *thread, in *instr) int64 {
	c := &m.cpus[id]
	m.settle(c)
	m.vars[t.vars+in.a] = max(m.now, c.segStart) + runLength(in, t)
	return 1
}

// runLength draws the length of thread t's Run or Spin op in: forever, or a sample of at least
// 1 ns.
func runLength(in *instr, t *thread) int64 {
	if in.dist.Kind == workload.Forever {
		return forever
	}
	return max(int64(in.dist.Sample(&t.rng)), 1)
}

// setAttrOp runs thread tid's SetAttr op on CPU id: its attributes changed as the op says, and
// the policy told.
func (m *Machine) setAttrOp(id topology.CPU, tid int32, in *instr) {
	t := &m.threads[tid]
	a := *m.attrOf(t)
	m.progs[t.prog].attrs[in.a].apply(&a)
	m.setAttrOf(t, a)
	m.setAttr(id, tid)
}

// fork runs thread tid's Fork op on CPU id: the children left to create (opLeft), each woken
// with the fork's costs paid by the parent. It reports false when the thread stopped to pay,
// or the machine could not create a child; the op then resumes with the children left.
func (m *Machine) fork(id topology.CPU, tid int32, in *instr) bool {
	t := &m.threads[tid]
	if t.opLeft == 0 {
		t.opLeft = in.n
	}
	for t.opLeft > 0 {
		if m.pays && m.pay(id, tid, 1) {
			return false
		}
		t.opLeft--
		child, ok := m.create(in.a, tid, id)
		if !ok {
			return false
		}
		m.payer = tid
		m.wake(child, id, sched.WakeFork, tid, m.paidFrom(&m.threads[tid]))
		m.payer = nobody
		t = &m.threads[tid] // the child may have moved the threads
		if m.paid(id, t) {
			return false
		}
	}
	t.pc++
	return true
}

// everyNext ends a period of thread tid's Every on CPU id: on to the op after it once its count
// is done, else back to the body at the next period that has not begun, the thread asleep
// until then if it is in the future. It reports false when the thread blocked.
func (m *Machine) everyNext(id topology.CPU, tid int32, in *instr) bool {
	t := &m.threads[tid]
	v := m.vars[t.vars+in.a : t.vars+in.a+3]
	v[2]++
	if in.n > 0 && v[2] >= in.n {
		t.pc++
		return true
	}
	// The next period starts at base + k*period; periods that have already begun are skipped.
	period := int64(in.dist.A)
	k := v[1] + 1
	if next := v[0] + k*period; next < m.now {
		k = (m.now - v[0] + period - 1) / period
	}
	v[1] = k
	t.pc = in.b
	if next := v[0] + k*period; next > m.now {
		m.armSleep(tid, next)
		m.block(id)
		return false
	}
	return true
}

// transfer passes the messages left of thread tid's Send (send) or Recv on CPU id through pipe
// p, one at a time: a sender waits while the pipe is full, a receiver while it is empty, each in
// its own queue of the pipe, and every message wakes the threads waiting at the other end that
// woken says. It reports false when tid blocked, or stopped to pay for the wake-ups it causes;
// the op then resumes with the messages left (opLeft).
func (m *Machine) transfer(id topology.CPU, tid int32, p *pipe, send bool) bool {
	t := &m.threads[tid]
	ownHead, ownTail, otherHead, otherTail := &p.recvHead, &p.recvTail, &p.sendHead, &p.sendTail
	if send {
		ownHead, ownTail, otherHead, otherTail = otherHead, otherTail, ownHead, ownTail
	}
	for t.opLeft > 0 {
		if send && p.cap > 0 && p.msgs >= p.cap || !send && p.msgs == 0 {
			m.pipePush(ownHead, ownTail, tid)
			m.block(id)
			return false
		}
		n := m.woken(p, send)
		if m.pays && n > 0 && m.pay(id, tid, n) {
			return false
		}
		if send {
			p.msgs++
		} else {
			p.msgs--
			m.messages++
		}
		t.opLeft--
		if n > 0 {
			m.payer = tid
			for range n {
				o := m.pipePop(otherHead, otherTail)
				m.wake(o, id, sched.WakeSync, tid, m.paidFrom(&m.threads[tid]))
			}
			m.payer = nobody
			t = &m.threads[tid]
		}
		if m.paid(id, t) {
			return false
		}
	}
	return true
}

// everyInit starts the periods of an every for thread tid on CPU id (see workload.PhaseMode)
// and reports whether the thread then sleeps until its first period.
func (m *Machine) everyInit(id topology.CPU, tid int32, in *instr) bool {
	t := &m.threads[tid]
	v := m.vars[t.vars+in.a : t.vars+in.a+3]
	period, phase := int64(in.dist.A), in.n
	if workload.PhaseMode(in.b) == workload.PhaseArrival {
		v[0], v[1], v[2] = m.now+phase, 0, 0
		if phase > 0 {
			m.armSleep(tid, v[0])
			m.block(id)
			return true
		}
		return false
	}
	if workload.PhaseMode(in.b) == workload.PhaseStagger {
		if n := int64(m.progs[t.prog].decl.Instances()); n > 1 {
			phase += int64(t.instance) * period / n
		}
	}
	// The first period starts at or after the moment the thread became runnable to get here,
	// if it ran nothing since; else at or after now.
	ready := m.now
	if t.fresh {
		ready = t.readyAt
	}
	k := ceilDiv(ready-phase, period)
	first := phase + k*period
	v[0], v[1], v[2] = first, 0, 0
	if first > m.now {
		m.armSleep(tid, first)
		m.block(id)
		return true
	}
	if t.forked && t.fresh {
		// The thread waited in the run queue since its creation, inside its first period:
		// that wait is the period's wake-up latency.
		m.record(&t.lat[WakeupLatency], m.now-first)
		t.forked = false
	}
	if t.reqStart < 0 {
		t.reqStart = first
	}
	return false
}

// ceilDiv returns ⌈a/b⌉ for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}

// woken returns how many of the threads blocked at the other end of pipe p the next message
// sent (send) or received wakes: a message sent wakes the first blocked receiver; a message
// received wakes the first blocked sender, or, where the pipe has a room of more than one
// message (workload.Pipe.Room), nobody until the receive leaves that much room and then as
// many blocked senders as there is room for.
func (m *Machine) woken(p *pipe, send bool) int {
	if send {
		if p.recvHead == nobody {
			return 0
		}
		return 1
	}
	if p.sendHead == nobody {
		return 0
	}
	if p.room <= 1 {
		return 1
	}
	free := p.cap - p.msgs + 1 // the room once this message is out
	if free < p.room {
		return 0
	}
	n := 0
	for o := p.sendHead; o != nobody && int64(n) < free; o = m.threads[o].pipeNext {
		n++
	}
	return n
}

// pay makes thread tid, running on id, pay for the n wake-ups it is about to cause
// (Costs.Wakeup each: the waker's try_to_wake_up) before causing them, and reports whether it
// must wait for that: the first time, it stalls the CPU for the drawn costs, keeps the time it
// began in the thread's wokeAt (a running thread does not use it otherwise) and sets paying,
// and its script resumes at the same op when the stall ends; then (paying set, or costs of 0
// drawn) it reports false and the op goes on. The caller ends with paid once the wake-ups are
// done.
func (m *Machine) pay(id topology.CPU, tid int32, n int) bool {
	t := &m.threads[tid]
	if t.paying {
		return false
	}
	var d int64
	for range n {
		d += m.cfg.Costs.Wakeup.sample(&m.costRng)
	}
	if d == 0 {
		return false
	}
	t.paying, t.wokeAt = true, m.now
	m.stallRunning(id, d)
	return true
}

// paid ends the step of thread t, running on id, in which it caused the wake-ups it paid for
// (pay): it clears paying, so that the next step pays again, and makes t pay the IPIs the
// wake-ups sent (payOwed) if they sent any. It reports whether t stalls for them.
func (m *Machine) paid(id topology.CPU, t *thread) bool {
	t.paying = false
	return m.owed > 0 && m.payOwed(id, t)
}

// payOwed makes thread t, running on id, pay the IPIs its wake-up just sent (Costs.IPISend,
// owed): it stalls the CPU that long, and its script resumes after the op's step it has done
// (the next op, if that was the op's last step). It reports true.
func (m *Machine) payOwed(id topology.CPU, t *thread) bool {
	if t.opLeft == 0 {
		t.pc++
	}
	d := m.owed
	m.owed = 0
	m.stallRunning(id, d)
	return true
}

// stallRunning stalls the thread running on id for d more, counted as the scheduler's work
// (CPUStats.Switch): its script resumes when the stall ends.
func (m *Machine) stallRunning(id topology.CPU, d int64) {
	c := &m.cpus[id]
	c.st.Switch += d
	if c.segStart > m.now {
		c.pickSwitch += d // after an interrupt's stall begun at this instant
	} else {
		c.pickSwitch, c.pickExit, c.stallInt = d, 0, 0
		c.segStart = m.now
	}
	c.segStart += d
	m.q.arm(m.slotDone(id), c.segStart)
}

// sendIPI charges the cost of sending an IPI from CPU from (Costs.IPISend): to the thread whose
// script is waking another there, owed until its op's step is done (payOwed), or as interrupt
// time to the thread running there.
func (m *Machine) sendIPI(from topology.CPU) {
	c := &m.cpus[from]
	if c.cur < 0 {
		return
	}
	d := m.cfg.Costs.IPISend.sample(&m.costRng)
	if m.payer >= 0 && c.cur == m.payer {
		m.owed += d
		return
	}
	m.chargeInterrupt(from, d)
}

// paidFrom returns the time the wake-up that waker t is causing began: when it began paying
// for it, or now.
func (m *Machine) paidFrom(t *thread) int64 {
	if t.paying {
		return t.wokeAt
	}
	return m.now
}

// block stops the running thread of id, which has just blocked, and picks the next.
func (m *Machine) block(id topology.CPU) {
	m.stop(id, sched.Sleep)
	m.pick(id)
}

// exit ends thread tid, running on id: it wakes the parent if the parent waits for its last
// child (as exit_notify does before the final switch), stops the thread and picks the next.
func (m *Machine) exit(id topology.CPU, tid int32) {
	if pid := m.threads[tid].parent; pid >= 0 {
		p := &m.threads[pid]
		p.children--
		if p.children == 0 && p.joining && p.state == tBlocked {
			m.wake(pid, id, 0, tid, m.now)
		}
	}
	if m.trace != nil {
		m.trace.add(Record{Time: m.now, Kind: KindExit, CPU: id, Thread: sched.ID(tid), Other: m.threads[tid].parent})
	}
	m.stop(id, sched.Exit)
	m.progs[m.threads[tid].prog].exited++
	m.exitsSeen++
	m.live--
	if m.live == 0 {
		m.finished = m.now
	}
	m.pick(id)
}

// setAttr tells the policy about thread tid's new attributes; if its CPU id is no longer
// allowed, the machine reschedules id, as the kernels' affinity code moves a running thread.
func (m *Machine) setAttr(id topology.CPU, tid int32) {
	t := &m.threads[tid]
	if m.trace != nil {
		a := m.attrOf(t)
		m.trace.add(Record{Time: m.now, Kind: KindSetAttr, CPU: id, Thread: sched.ID(tid),
			Other: int32(a.Nice+64) | int32(a.Class)<<8 | int32(a.RTPrio)<<16})
	}
	m.setTickState(&m.cpus[id], runState(m.attrOf(t)))
	m.call, m.ctx = CallSetAttr, id
	m.pol.SetAttr(m.now, sched.ID(tid), *m.attrOf(t))
	if !m.allowed(t, id) {
		m.call = CallMachine
		m.env.Resched(id)
	}
}
