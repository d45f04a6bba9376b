package cfs

import (
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// FuzzScheduler decodes a byte string into a sequence of Policy calls that the simulator's
// machine could make (bench/sim/policy.go: Start once, groups before their threads, Pick only
// on a CPU without a current thread, Stop only of the current thread and followed by Pick,
// Wakeup only of a thread that is not runnable, nothing after an exit, time non-decreasing,
// every CPU ticked at each tick) and runs it against a Scheduler of the version the first byte
// selects, on one of five topologies, checking every invariant of the scheduler and of its CPUs
// after every call. The calls: fork (with or without a running parent, woken at once or later,
// in any class, group, affinity, nice and slice), wakeup (sync or not), stop with each reason
// (a preemption only when the scheduler asked for it), tick, time passing between ticks,
// setattr (nice, class, group, affinity, slice) of any live thread, and carrying out one or all
// pending reschedules.
func FuzzScheduler(f *testing.F) {
	f.Add([]byte{2, 0, 0, 1, 0, 1, 2, 3, 0, 0, 2, 0, 0, 1, 0, 0, 3, 0, 0, 3, 0, 0})
	f.Add([]byte{5, 0, 0x10, 0x81, 0, 0x20, 2, 0, 0, 0x40, 7, 0, 0, 3, 0, 0, 2, 1, 0, 3, 0, 0, 1, 0, 1, 5, 0, 0x33})
	f.Add([]byte{8, 0, 3, 4, 0, 7, 9, 0, 11, 12, 7, 0, 0, 3, 0, 0, 3, 0, 0, 2, 0, 0, 2, 1, 2, 3, 0, 0, 1, 0, 0, 4, 200, 0, 5, 1, 0x8f, 3, 0, 0})
	f.Add([]byte{0x8b, 0, 1, 2, 0, 5, 6, 0, 9, 10, 7, 0, 0, 3, 0, 0, 2, 0, 3, 3, 0, 0, 1, 0, 0, 6, 0, 0, 5, 0, 0x47, 3, 0, 0, 2, 1, 0})
	f.Add([]byte{14, 0, 0x42, 0x13, 0, 0x42, 0x23, 7, 0, 0, 3, 0, 0, 3, 0, 0, 2, 0, 0, 2, 1, 0, 1, 0, 0, 1, 1, 1, 3, 0, 0, 5, 0, 0xc5, 3, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 3*400 {
			return
		}
		runSchedulerOps(t, data)
	})
}

// fuzzGroups are the control groups every fuzzed machine starts with: two weighted groups, a
// nested one and an idle one.
var fuzzGroups = []sched.Group{
	{ID: 1, Weight: 100},
	{ID: 2, Weight: 300},
	{ID: 3, Parent: 2, Weight: 50},
	{ID: 4, Weight: 100, Idle: true},
}

// fuzzAttr decodes a thread's attributes from two bytes.
func fuzzAttr(m *smpMachine, a, b byte) sched.Attr {
	attr := sched.Attr{Nice: int(b>>1)%40 - 20, Group: sched.GroupID(int(a>>2) % (len(fuzzGroups) + 1))}
	switch (a >> 4) % 5 {
	case 1:
		attr.Class = sched.Batch
	case 2:
		attr.Class = sched.Idle
	case 3:
		attr.Class, attr.RTPrio = sched.FIFO, 1+int(b%90)
	}
	if b&0x80 != 0 {
		attr.Affinity = topology.CPUSetOf(m.cpuAt(int(a)))
	}
	if a&0x40 != 0 {
		attr.Slice = int64(b%32) * 100_000
	}
	return attr
}

// cpuAt returns the CPU of the machine's i-th CPU, counting modulo their number.
func (m *smpMachine) cpuAt(i int) topology.CPU {
	cpus := m.topo.CPUs()
	c, _ := cpus.First()
	for range i % m.topo.NumCPUs() {
		c, _ = cpus.After(c)
	}
	return c
}

// nthThread returns the i-th thread (modulo their number) for which ok holds, if any.
func (m *smpMachine) nthThread(i int, ok func(*mthread) bool) (*mthread, bool) {
	var cand []*mthread
	for _, th := range m.threads {
		if ok(th) {
			cand = append(cand, th)
		}
	}
	if len(cand) == 0 {
		return nil, false
	}
	return cand[i%len(cand)], true
}

func runSchedulerOps(t *testing.T, data []byte) {
	v := schedVersions[int(data[0]&0x7f)%len(schedVersions)]
	topo := fuzzTopos[int(data[0]&0x7f)/len(schedVersions)%len(fuzzTopos)]()
	m := newSMPMachine(t, topo, 1000, vparams(v))
	m.env.explaining = data[0]&0x80 != 0
	for _, g := range fuzzGroups {
		if err := m.s.AddGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	forkCPU := map[sched.ID]topology.CPU{}
	for i := 1; i+2 < len(data); i += 3 {
		op, a, b := data[i], data[i+1], data[i+2]
		m.env.log = m.env.log[:0]
		switch op % 8 {
		case 0: // fork
			if len(m.threads) >= 48 {
				break
			}
			c := m.cpuAt(int(a))
			parent := sched.ID(-1)
			if p := m.running[c]; p >= 0 && op&0x10 != 0 {
				parent = p
			}
			attr := fuzzAttr(m, a, b)
			if op&0x20 != 0 { // created now, woken later
				id := sched.ID(len(m.threads))
				m.threads = append(m.threads, &mthread{id: id, asleep: true, created: true, unborn: true, cpus: make([]int, m.topo.NumIDs())})
				m.s.Fork(m.now(), id, parent, c, attr)
				forkCPU[id] = c
				break
			}
			m.fork(c, parent, attr, behaviour{})
		case 1: // wakeup
			th, ok := m.nthThread(int(a), func(th *mthread) bool { return th.asleep && !th.exited })
			if !ok {
				break
			}
			if c, ok := forkCPU[th.id]; ok {
				delete(forkCPU, th.id)
				m.wake(th.id, c, sched.WakeFork)
				break
			}
			flags := sched.WakeFlags(0)
			if b&1 != 0 {
				flags = sched.WakeSync
			}
			m.wake(th.id, m.cpuAt(int(b>>1)), flags)
		case 2: // stop
			c := m.cpuAt(int(a))
			if m.running[c] < 0 {
				break
			}
			m.stop(c, [...]sched.StopReason{sched.Sleep, sched.Yield, sched.Exit}[int(b)%3])
		case 3: // tick
			m.tick++
			m.off = 0
			for c := range m.topo.CPUs().All() {
				m.s.Tick(m.now(), c)
			}
		case 4: // time passes
			m.off = min(m.off+int64(a)*m.tickNS/256, m.tickNS-1)
		case 5: // setattr
			th, ok := m.nthThread(int(a), func(th *mthread) bool { return !th.exited })
			if !ok {
				break
			}
			m.s.SetAttr(m.now(), th.id, fuzzAttr(m, op>>3|a&0x40, b))
		case 6: // one pending reschedule
			m.resched(m.cpuAt(int(a)))
		case 7: // all pending reschedules
			m.settle()
		}
		m.checkInvariants()
	}
	m.settle()
}
