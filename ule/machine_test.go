package ule

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// fakeEnv records what a Scheduler asks of the machine.
type fakeEnv struct {
	resched    []topology.CPU
	explaining bool
	log        []string
}

func (e *fakeEnv) Resched(cpu topology.CPU) { e.resched = append(e.resched, cpu) }
func (e *fakeEnv) Explaining() bool         { return e.explaining }
func (e *fakeEnv) Explain(cpu topology.CPU, tid sched.ID, why string) {
	e.log = append(e.log, fmt.Sprintf("cpu%d %v: %s", cpu, tid, why))
}

// thread returns the state of thread tid, or nil if tid is unknown or has exited.
func (s *Scheduler) thread(tid sched.ID) *Thread {
	t, _ := s.threads.Lookup(tid)
	return t
}

// testMachine drives a Scheduler tick by tick, the way a machine would, for hand-checkable
// sequences. It is not a simulator: threads do only what the test tells them.
type testMachine struct {
	t    testing.TB
	s    *Scheduler
	env  *fakeEnv
	top  *topology.Topology
	cur  []sched.ID // the thread running on each CPU, -1 when idle
	now  int64
	step int64 // ns per stat tick
	// switches counts Pick results per thread.
	runs map[sched.ID]int
}

// mustNew returns New(p) or fails the test.
func mustNew(t testing.TB, p Params) *Scheduler {
	t.Helper()
	s, err := New(p)
	if err != nil {
		t.Fatalf("New(%s): %v", p.Name, err)
	}
	return s
}

func newTestMachine(t testing.TB, p Params, top *topology.Topology) *testMachine {
	t.Helper()
	env := &fakeEnv{}
	s := mustNew(t, p)
	cfg := sched.Config{Topology: top, Hz: 1000, StatHz: 127, Seed: 0}
	if err := s.Start(cfg, env); err != nil {
		t.Fatalf("Start: %v", err)
	}
	// Keep the load index (and check it after every step) on every machine: the System Start
	// made, still idle, is made again with the index's masks from one CPU on.
	var err error
	if s.sys, err = newSystem(s.params, top, 1); err != nil {
		t.Fatalf("newSystem: %v", err)
	}
	m := &testMachine{t: t, s: s, env: env, top: top, cur: make([]sched.ID, top.NumIDs()), step: int64(1e9) / 127, runs: map[sched.ID]int{}}
	for i := range m.cur {
		m.cur[i] = -1
	}
	return m
}

// fork creates and wakes a thread on cpu at the current time.
func (m *testMachine) fork(tid sched.ID, cpu topology.CPU, a sched.Attr) {
	m.s.Fork(m.now, tid, -1, cpu, a)
	m.s.Wakeup(m.now, tid, cpu, sched.WakeFork)
	m.check()
	m.serve()
}

// serve handles the pending reschedules: stop the running thread as preempted, pick again.
func (m *testMachine) serve() {
	for len(m.env.resched) > 0 {
		cpu := m.env.resched[0]
		m.env.resched = m.env.resched[1:]
		if m.cur[cpu] >= 0 {
			m.s.Stop(m.now, cpu, m.cur[cpu], sched.Preempt)
			m.cur[cpu] = -1
			m.check()
		}
		m.pick(cpu)
	}
}

func (m *testMachine) pick(cpu topology.CPU) {
	if id, ok := m.s.Pick(m.now, cpu); ok {
		m.cur[cpu] = id
		m.runs[id]++
	} else {
		m.cur[cpu] = -1
	}
	m.check()
}

// tick advances one stat tick: every CPU ticks, then reschedules are served.
func (m *testMachine) tick() {
	m.now += m.step
	for c := range m.top.CPUs().All() {
		m.s.Tick(m.now, c)
		m.check()
	}
	m.serve()
}

// sleep puts the thread running on cpu to sleep and picks the next one.
func (m *testMachine) sleep(cpu topology.CPU) sched.ID {
	id := m.cur[cpu]
	if id < 0 {
		m.t.Fatalf("sleep: cpu%d idles", cpu)
	}
	m.s.Stop(m.now, cpu, id, sched.Sleep)
	m.cur[cpu] = -1
	m.check()
	m.pick(cpu)
	m.serve()
	return id
}

// wake wakes tid from CPU from and serves the reschedules.
func (m *testMachine) wake(tid sched.ID, from topology.CPU) {
	m.s.Wakeup(m.now, tid, from, 0)
	m.check()
	m.serve()
}

// running returns the thread on cpu, -1 if idle.
func (m *testMachine) running(cpu topology.CPU) sched.ID { return m.cur[cpu] }

func (m *testMachine) check() {
	m.t.Helper()
	checkSystem(m.t, m.s.sys)
	for c := range m.top.CPUs().All() {
		cs := &m.s.sys.cpus[c]
		switch {
		case m.cur[c] < 0 && cs.Cur != nil:
			m.t.Fatalf("cpu%d: machine idle, scheduler runs %v", c, cs.Cur)
		case m.cur[c] >= 0 && (cs.Cur == nil || cs.Cur.ID != m.cur[c]):
			m.t.Fatalf("cpu%d: machine runs %v, scheduler %v", c, m.cur[c], cs.Cur)
		}
	}
}

func TestSmokeOneHog(t *testing.T) {
	m := newTestMachine(t, DefaultParams(), topology.Uniform(1, 1, 1, 1, 1))
	m.fork(0, 0, sched.Attr{})
	m.serve()
	if m.running(0) != 0 {
		t.Fatalf("hog not running: %v", m.running(0))
	}
	for range 1000 {
		m.tick()
		if m.running(0) != 0 {
			t.Fatalf("hog lost the CPU")
		}
	}
	th := m.s.thread(0)
	t.Logf("hog: %v score=%d user=%d", th, th.Score(&m.s.params), th.UserPri)
}

func schedIDInternal(i int) sched.ID { return sched.ID(i) }
