package sim

// This file implements the machine's scheduling transitions: a thread created, woken or stopped,
// a CPU rescheduled and picking the next thread, with the stall the costs charge at a pick
// (switch, refill or migration, idle exit) and the switch record.

import (
	"fmt"
	"math/rand/v2"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// reschedule stops id's thread (Preempt) and picks again.
func (m *Machine) reschedule(id topology.CPU) {
	if m.cpus[id].cur >= 0 {
		m.stop(id, sched.Preempt)
	}
	m.pick(id)
}

// create makes a thread of program pi, calls Fork and returns its id; it reports false (and stops
// the run) when the thread limit is reached.
func (m *Machine) create(pi, parent int32, id topology.CPU) (int32, bool) {
	if len(m.threads) >= m.cfg.MaxThreads {
		m.err = fmt.Errorf("sim: more than %d threads at time %d", m.cfg.MaxThreads, m.now)
		return nobody, false
	}
	p := m.progs[pi]
	tid := int32(len(m.threads))
	p.made++
	m.threads = roomFor(m.threads, 1)
	m.threads = append(m.threads, thread{}) // only the fields that are not zero are set
	t := &m.threads[tid]
	t.prog, t.base, t.instance, t.parent = pi, p.base, int32(p.made-1), parent
	t.cpu, t.last, t.waitPrev, t.waitNext, t.pipeNext = nobody, nobody, nobody, nobody, nobody
	t.since, t.readyAt, t.reqStart = m.now, m.now, -1
	t.forked, t.fresh = true, true
	m.shareAttr(t, p)
	if p.nvars > 0 {
		t.vars = int32(len(m.vars))
		m.vars = append(m.vars, make([]int64, p.nvars)...)
	}
	t.rng = *rand.NewPCG(splitmix64(m.cfg.Seed), splitmix64(m.cfg.Seed^uint64(tid)*0x9E3779B97F4A7C15+1))
	t.st = counters{Start: m.now, End: -1}
	m.q.addSlots(1)
	m.live++
	if parent >= 0 {
		m.threads[parent].children++
	}
	if m.trace != nil {
		m.trace.addThread(ThreadInfo{Name: m.name(t), Parent: sched.ID(parent), Attr: *m.attrOf(t)})
		m.trace.add(Record{Time: m.now, Kind: KindFork, CPU: id, Thread: sched.ID(tid), Other: parent})
	}
	m.call, m.ctx = CallFork, id
	m.pol.Fork(m.now, sched.ID(tid), sched.ID(parent), id, *m.attrOf(t))
	return tid, true
}

// wake makes tid runnable, woken by waker (or a timer: -1) from CPU from, and calls Wakeup. at
// is when the wake-up's cause began, from which its latency counts: the timer's deadline, the
// start of the waker's Costs.Wakeup, or now.
func (m *Machine) wake(tid int32, from topology.CPU, flags sched.WakeFlags, waker int32, at int64) {
	t := &m.threads[tid]
	if t.state == tBlocked {
		t.st.Sleep += m.now - t.since
		t.woken, t.wokeAt = true, at
		t.reqStart, t.forked = at, false
		t.readyAt, t.fresh = m.now, true
		t.st.Wakeups++
	}
	t.state, t.since, t.joining = tRunnable, m.now, false
	m.waitPush(tid)
	if m.trace != nil {
		m.trace.add(Record{Time: m.now, Kind: KindWakeup, CPU: from, Thread: sched.ID(tid), Other: waker,
			Arg: uint8(flags)})
	}
	m.call, m.ctx = CallWakeup, from
	m.pol.Wakeup(m.now, sched.ID(tid), from, flags)
}

// stop takes the running thread off CPU id for reason why and calls Stop; the caller picks next.
func (m *Machine) stop(id topology.CPU, why sched.StopReason) {
	c := &m.cpus[id]
	tid := c.cur
	t := &m.threads[tid]
	m.settle(c)
	if c.segStart > m.now {
		// The thread leaves in the middle of a stall: only the part that passed was spent.
		sw, ex, in := m.stallAfter(c)
		c.st.Switch -= sw
		c.st.IdleExit -= ex
		c.st.Interrupt -= in
		c.segStart = m.now
	}
	m.q.disarm(m.slotDone(id))
	addRun(&t.st.CPUTime, &t.st.WaitTime, m.now-t.since)
	c.cur, c.stopped, c.stopWhy = nobody, tid, uint8(why)
	t.cpu, t.last, t.since = nobody, int32(id), m.now
	switch why {
	case sched.Preempt, sched.Yield:
		t.state = tRunnable
		m.waitPush(tid)
	case sched.Sleep:
		t.state, t.paying = tBlocked, false
		t.st.Voluntary++
		m.endRequest(t)
	case sched.Exit:
		t.state = tExited
		t.st.End = m.now
		m.endRequest(t)
	}
	m.call, m.ctx = CallStop, id
	m.pol.Stop(m.now, id, sched.ID(tid), why)
}

// endRequest measures t's request, if one is open, as it blocks or exits.
func (m *Machine) endRequest(t *thread) {
	if t.reqStart >= 0 {
		m.record(&t.lat[RequestLatency], m.now-t.reqStart)
		t.reqStart = -1
	}
}

// pick asks the policy what CPU id runs next and switches to it.
func (m *Machine) pick(id topology.CPU) {
	c := &m.cpus[id]
	c.needResched = false
	if c.ipiPending || c.missedIPI {
		c.ipiPending, c.missedIPI, c.asleep = false, false, 0
		m.q.disarm(m.slotIPI(id))
	}
	m.call, m.ctx = CallPick, id
	next, ok := m.pol.Pick(m.now, id)
	prev, why := c.stopped, c.stopWhy
	c.stopped = nobody
	if ok && !m.validPick(id, next) {
		ok = false
	}
	if !ok {
		if prev >= 0 {
			m.switchRecord(id, prev, nobody, why)
		}
		m.setTickState(c, CPUIdle)
		m.setBusy(c, id, false)
		c.idleAt = m.now
		if m.tickless != nil {
			m.call, m.ctx = CallPick, id
			c.tickless = m.tickless.IdleTickHorizon(m.now, id)
		}
		return
	}
	tid := int32(next)
	t := &m.threads[tid]
	m.waitRemove(tid)
	wait := m.now - t.since
	t.st.WaitTime += wait
	if m.cfg.Checks.Starvation > 0 && wait > int64(m.cfg.Checks.Starvation) && t.reported&(1<<Starvation) == 0 {
		m.violate(Starvation, id, tid, wait)
	}
	t.reported = 0
	migrated := t.last >= 0 && t.last != int32(id)
	var stall, exit int64
	if m.picks {
		stall = m.pickStall(c, id, t, tid, migrated)
		exit = c.pickExit
	}
	if t.woken {
		t.woken = false
		m.record(&t.lat[WakeupLatency], m.now+stall-t.wokeAt)
	}
	if migrated {
		t.st.Migrations++
		if m.trace != nil {
			m.trace.add(Record{Time: m.now, Kind: KindMigrate, CPU: id, Thread: next, Other: t.last})
		}
	}
	if prev != tid {
		// A dispatch; not a thread preempted and picked again at the same instant.
		m.record(&t.lat[RunqWait], wait)
		m.switchRecord(id, prev, tid, why)
		if prev >= 0 && (why == uint8(sched.Preempt) || why == uint8(sched.Yield)) {
			m.threads[prev].st.Involuntary++
		}
	}
	// The idle loop's exit is the CPU waking up for the thread, which waits meanwhile: its CPU
	// time starts once the CPU runs it, as the kernels' do (exec_start is set at the pick, after
	// the idle loop has left; the idle task is charged before that).
	t.st.WaitTime += exit
	t.state, t.cpu, t.since = tRunning, int32(id), m.now+exit
	c.cur, c.lastThread = tid, tid
	m.setTickState(c, runState(m.attrOf(t)))
	c.segStart = m.now + stall
	m.setBusy(c, id, true)
	switch {
	case t.remaining > 0 || stall > 0:
		m.armDone(id)
	default:
		m.work = append(m.work, work{kind: workAdvance, cpu: id, tid: tid})
	}
}

// pickStall returns the stall of thread tid (t), picked by CPU id (c), before it makes progress:
// the refill after a migration (by the level crossed) or after other threads ran on id, the
// switch, the way out of the timer interrupt that woke it on this busy CPU at this instant
// (Costs.TimerExit), and the idle exit if id has been idle; and charges it to c
// (CPUStats.Switch, Interrupt and IdleExit). It draws the costs in that order. It leaves pickSwitch, pickExit and stallInt for
// stallAfter; without a stall they are stale, which stallAfter never reads: the pick sets
// segStart to now, and the next clock interrupt that stalls the CPU resets stallInt.
func (m *Machine) pickStall(c *cpu, id topology.CPU, t *thread, tid int32, migrated bool) int64 {
	var sw int64
	k := &m.cfg.Costs
	switch {
	case migrated && m.migrates:
		sw += k.Migration.At(m.topo.SharedLevel(id, topology.CPU(t.last))).sample(&m.costRng)
	case !migrated && m.refills && t.last >= 0 && c.lastThread != tid:
		sw += k.Refill.sample(&m.costRng)
	}
	if m.switches && c.lastThread != tid {
		sw += k.Switch.sample(&m.costRng)
	}
	if m.switchMMs {
		if p := m.progs[t.prog].proc; c.lastProc != p {
			if c.lastProc >= 0 {
				sw += k.SwitchMM.sample(&m.costRng)
			}
			c.lastProc = p
		}
	}
	c.st.Switch += sw
	c.pickSwitch, c.pickExit, c.stallInt = sw, 0, 0
	if c.exitFor == tid+1 {
		// The sleeper a timer woke on this busy CPU preempts at once: the interrupt's way out
		// and schedule delay it (Costs.TimerExit), interrupt time of the CPU.
		x := k.TimerExit.sample(&m.costRng)
		c.exitFor = 0
		c.st.Interrupt += x
		c.stallInt = x
		sw += x
	}
	if m.exits && !c.busy && c.since < m.now && !m.polled(c) {
		var x int64
		if k := &m.cfg.Idle.ExitLatency; t.timerAt != 0 && !migrated && k.Varies() {
			x = k.at(int64(t.timerAt - 1))
		} else {
			x = k.sample(&m.costRng)
		}
		c.st.IdleExit += x
		c.pickExit = x
		sw += x
	}
	t.timerAt = 0
	return sw
}

// polled reports whether idle CPU c was still polling for work (Idle.PollWindow) when it
// picked: then it leaves idle without the exit latency. A zero window draws nothing.
func (m *Machine) polled(c *cpu) bool {
	w := &m.cfg.Idle.PollWindow
	return !w.IsZero() && m.now-c.since <= w.sample(&m.costRng)
}

func (m *Machine) switchRecord(id topology.CPU, prev, next int32, why uint8) {
	c := &m.cpus[id]
	c.st.Switches++
	if m.trace != nil {
		m.trace.add(Record{Time: m.now, Kind: KindSwitch, CPU: id, Thread: sched.ID(next), Other: prev, Arg: why})
	}
}

// validPick reports whether the policy's pick of tid for id is a runnable thread allowed there,
// and records a ThreadConservation violation if not.
func (m *Machine) validPick(id topology.CPU, tid sched.ID) bool {
	if tid < 0 || int(tid) >= len(m.threads) {
		m.violate(ThreadConservation, id, -1, 0)
		return false
	}
	t := &m.threads[tid]
	if t.state != tRunnable || !m.allowed(t, id) {
		m.violate(ThreadConservation, id, int32(tid), 0)
		return false
	}
	return true
}
