package bsd4

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
	calls      []string // every Resched, and every Pick the machine made, in order
	t          testing.TB
}

func (e *fakeEnv) Resched(cpu topology.CPU) {
	e.pending.Add(cpu)
	e.calls = append(e.calls, "resched "+cpu.String())
}
func (e *fakeEnv) Explaining() bool { return e.explaining }
func (e *fakeEnv) Explain(cpu topology.CPU, tid sched.ID, why string) {
	if !e.explaining {
		e.t.Fatalf("Explain(%v, %v, %q) called while not explaining", cpu, tid, why)
	}
	if why == "" {
		e.t.Fatalf("Explain(%v, %v) with an empty explanation", cpu, tid)
	}
	e.log = append(e.log, fmt.Sprintf("%v %v: %s", cpu, tid, why))
}

// setEnv is a fakeEnv that also reschedules sets of CPUs (sched.ReschedSetter), as its
// contract says: a Resched for each CPU in ascending order. It counts the calls.
type setEnv struct {
	*fakeEnv
	sets int
}

func (e *setEnv) ReschedSet(set topology.CPUSet) {
	e.sets++
	for c := range set.All() {
		e.Resched(c)
	}
}

// job is a test workload: a thread that runs for run statistics ticks, then sleeps for sleep
// ticks, forever (run 0 means a CPU hog that never sleeps).
type job struct {
	run, sleep int
	left       int // ticks left in the current phase
	wakeAt     int // tick at which a sleeping job wakes
	asleep     bool
}

// machine is a minimal tick-driven test driver for a Scheduler: it advances time one
// statistics tick at a time, carries out Resched requests at once (Stop with Preempt, then
// Pick), and counts the ticks each thread was found running, the way statclock samples.
type machine struct {
	t       testing.TB
	s       *Scheduler
	env     *fakeEnv
	cpus    topology.CPUSet
	running []sched.ID // by CPU, -1 when idle
	jobs    map[sched.ID]*job
	ids     []sched.ID // spawn order, for deterministic iteration
	ran     map[sched.ID]int
	runLens map[sched.ID][]int // lengths of completed runs, in ticks
	curRun  map[sched.ID]int
	idle    int // CPU-ticks spent idle
	tick    int
	tickNS  int64
	check   bool
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

func newMachine(t testing.TB, p Params, topo *topology.Topology, hz int, seed uint64) *machine {
	return newMachineEnv(t, p, topo, hz, seed, func(e *fakeEnv) sched.Env { return e })
}

// newMachineEnv is newMachine with the Scheduler started on wrap(env) instead of env.
func newMachineEnv(t testing.TB, p Params, topo *topology.Topology, hz int, seed uint64, wrap func(*fakeEnv) sched.Env) *machine {
	env := &fakeEnv{t: t}
	s := mustNew(t, p)
	cfg := sched.Config{Topology: topo, Hz: hz, StatHz: 127, Seed: seed}
	if err := s.Start(cfg, wrap(env)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	m := &machine{t: t, s: s, env: env, cpus: topo.CPUs(), running: make([]sched.ID, topo.NumIDs()),
		jobs: map[sched.ID]*job{}, ran: map[sched.ID]int{}, runLens: map[sched.ID][]int{}, curRun: map[sched.ID]int{},
		tickNS: 1_000_000_000 / 127, check: true}
	for i := range m.running {
		m.running[i] = -1
	}
	return m
}

func (m *machine) now() int64 { return int64(m.tick) * m.tickNS }

// spawn forks thread id with attr and behaviour j and makes it runnable from CPU 0.
func (m *machine) spawn(id sched.ID, attr sched.Attr, j job) {
	m.s.Fork(m.now(), id, -1, 0, attr)
	j.left = j.run
	m.jobs[id] = &j
	m.ids = append(m.ids, id)
	m.s.Wakeup(m.now(), id, 0, sched.WakeFork)
	m.settle()
}

// settle carries out pending reschedules until there are none.
func (m *machine) settle() {
	for !m.env.pending.IsEmpty() {
		c, _ := m.env.pending.First()
		m.env.pending.Remove(c)
		if id := m.running[c]; id >= 0 {
			m.endRun(id)
			m.env.calls = append(m.env.calls, fmt.Sprintf("preempt %v, owed %t", c, m.s.sys.pcpu[c].owePreempt))
			m.s.Stop(m.now(), c, id, sched.Preempt)
			m.running[c] = -1
		}
		m.pick(c)
	}
	m.verify(true)
}

func (m *machine) pick(c topology.CPU) {
	gIdx, lIdx := naivePick(m.s, c)
	queueOf := map[sched.ID]int32{}
	priOf := map[sched.ID]uint8{} // the priority it is queued at; Pick may change it
	for id, t := range m.s.sys.threads.All() {
		queueOf[id], priOf[id] = t.queue, t.Pri
	}
	id, ok := m.s.Pick(m.now(), c)
	m.env.calls = append(m.env.calls, fmt.Sprintf("pick %v: %v %t", c, id, ok))
	if !ok {
		if gIdx >= 0 || lIdx >= 0 {
			m.t.Fatalf("tick %d: %v idles while threads wait on queues %d (global) and %d (own)", m.tick, c, gIdx, lIdx)
		}
		return
	}
	th, _ := m.s.Thread(id)
	idx, fromLocal := int(m.s.p.Fold.Index(priOf[id])), queueOf[id] >= 0
	if th.Pri != th.UserPri {
		m.t.Fatalf("tick %d: %v picked %v at priority %d, want its user priority %d (sched_userret)", m.tick, c, th, th.Pri, th.UserPri)
	}
	switch {
	case gIdx >= 0 && (lIdx < 0 || gIdx < lIdx) && (fromLocal || idx != gIdx),
		lIdx >= 0 && (gIdx < 0 || lIdx < gIdx) && (!fromLocal || idx != lIdx),
		gIdx == lIdx && idx != gIdx:
		m.t.Fatalf("tick %d: %v picked %v (queue %d, own %t), want the best of global queue %d and own queue %d",
			m.tick, c, th, idx, fromLocal, gIdx, lIdx)
	}
	m.running[c] = id
}

// naivePick is the model of sched_choose: the best queue index among the threads the thread
// table says are queued on the global queue and on cpu's own, -1 for none. (Within a folded
// queue the order is FIFO, not by priority, so the model compares indices.)
func naivePick(s *Scheduler, cpu topology.CPU) (global, own int) {
	global, own = -1, -1
	for _, t := range s.sys.threads.All() {
		if t.state != Queued {
			continue
		}
		idx := int(s.p.Fold.Index(t.Pri))
		switch {
		case t.queue < 0 && (global < 0 || idx < global):
			global = idx
		case t.queue == int32(cpu) && (own < 0 || idx < own):
			own = idx
		}
	}
	return global, own
}

func (m *machine) endRun(id sched.ID) {
	if n := m.curRun[id]; n > 0 {
		m.runLens[id] = append(m.runLens[id], n)
	}
	m.curRun[id] = 0
}

func (m *machine) verify(quiescent bool) {
	if !m.check {
		return
	}
	if err := checkScheduler(m.s, quiescent); err != nil {
		m.t.Fatalf("tick %d: %v", m.tick, err)
	}
}

// step advances one statistics tick.
func (m *machine) step() {
	m.tick++
	now := m.now()
	for _, id := range m.ids {
		j := m.jobs[id]
		if j.asleep && m.tick >= j.wakeAt {
			j.asleep, j.left = false, j.run
			m.s.Wakeup(now, id, 0, 0)
			m.settle()
		}
	}
	for c := range m.cpus.All() {
		if id := m.running[c]; id >= 0 {
			m.ran[id]++
			m.curRun[id]++
		} else {
			m.idle++
		}
		m.s.Tick(now, c)
		m.verify(false)
	}
	for c := range m.cpus.All() {
		id := m.running[c]
		if id < 0 {
			continue
		}
		j := m.jobs[id]
		if j == nil || j.run == 0 { // threads forked by hand and hogs never sleep
			continue
		}
		if j.left--; j.left <= 0 {
			m.endRun(id)
			m.s.Stop(now, c, id, sched.Sleep)
			m.running[c] = -1
			j.asleep, j.wakeAt = true, m.tick+j.sleep
			m.pick(c)
		}
	}
	m.settle()
}

func (m *machine) run(ticks int) {
	for range ticks {
		m.step()
	}
}
