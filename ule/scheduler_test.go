package ule

import (
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

func TestSchedulerHogsFillCPUs(t *testing.T) {
	m := newTestMachine(t, DefaultParams(), topology.Uniform(1, 1, 1, 2, 1))
	m.fork(0, 0, sched.Attr{})
	m.serve()
	// One hog: it runs on cpu0, cpu1 stays idle.
	for range 300 {
		m.tick()
	}
	if m.running(0) != 0 || m.running(1) != -1 {
		t.Fatalf("one hog: cpu0 runs %v, cpu1 %v", m.running(0), m.running(1))
	}
	// A second hog forked from cpu0 goes to the idle cpu1 (PickCPU: least loaded, lower priority).
	m.fork(1, 0, sched.Attr{})
	if m.running(1) != 1 || m.running(0) != 0 {
		t.Fatalf("two hogs: cpu0 runs %v, cpu1 %v", m.running(0), m.running(1))
	}
}

func TestSchedulerSliceExpiry(t *testing.T) {
	m := newTestMachine(t, DefaultParams(), topology.Uniform(1, 1, 1, 1, 1))
	m.fork(0, 0, sched.Attr{})
	m.fork(1, 0, sched.Attr{})
	m.serve()
	// Two hogs share one CPU in slices of tdq_slice(sysload 2) = 12 stat ticks.
	var order []sched.ID
	for range 12 * 8 {
		m.tick()
		order = append(order, m.running(0))
	}
	switches := 0
	for i := 1; i < len(order); i++ {
		if order[i] != order[i-1] {
			switches++
		}
	}
	if switches < 6 || switches > 9 {
		t.Fatalf("%d switches in 96 ticks, want about one per 12-tick slice: %v", switches, order)
	}
	if m.runs[0] < 3 || m.runs[1] < 3 {
		t.Fatalf("runs %v: both hogs must get slices", m.runs)
	}
}

// sleeperCycle runs tid (on cpu) for run ticks, sleeps it for slp ticks and wakes it from
// waker, then returns how many ticks passed until it ran again (capped at limit).
func sleeperCycle(m *testMachine, tid sched.ID, cpu, waker topology.CPU, run, slp, limit int) int {
	for range run {
		m.tick()
		if m.running(cpu) != tid {
			break
		}
	}
	if m.running(cpu) == tid {
		m.sleep(cpu)
	}
	for range slp {
		m.tick()
	}
	m.wake(tid, waker)
	wait := 0
	for m.running(cpu) != tid && wait < limit {
		m.tick()
		wait++
	}
	return wait
}

func TestSchedulerSleeperBecomesInteractive(t *testing.T) {
	for _, p := range []Params{DefaultParams(), LegacyParams()} {
		t.Run(p.Version.String(), func(t *testing.T) {
			top := topology.Uniform(1, 1, 1, 2, 1)
			m := newTestMachine(t, p, top)
			one := topology.CPUSetOf(1)
			m.fork(0, 1, sched.Attr{Affinity: one}) // the hog
			m.fork(1, 1, sched.Attr{Affinity: one}) // the sleeper
			m.serve()
			var waits []int
			for range 40 {
				for m.running(1) != 1 {
					m.tick()
				}
				waits = append(waits, sleeperCycle(m, 1, 1, 0, 1, 12, 100))
			}
			l := p.Layout()
			sl, hog := m.s.thread(1), m.s.thread(0)
			if sl.UserPri > l.MaxInteract || hog.UserPri < l.MinBatch {
				t.Fatalf("sleeper user priority %d (score %d), hog %d: want interactive and batch", sl.UserPri, sl.Score(&m.s.params), hog.UserPri)
			}
			// Once interactive, a remote wake-up preempts the batch hog at once
			// (sched_shouldpreempt's remote rule): the last waits are zero.
			if w := waits[len(waits)-5:]; slices.Max(w) != 0 {
				t.Fatalf("interactive sleeper still waits: %v", waits)
			}
		})
	}
}

// seed000Waits plays seed 000's gzip-and-hog experiment at the level of ULE's decisions: on a
// 2-CPU machine, a nice-20 hog and a "gzip" thread share cpu1 (cpuset -l); gzip runs 2 stat
// ticks, sleeps 1 and is woken from cpu0 (tar). It returns gzip's waits, in stat ticks, from
// each wake-up to running.
func seed000Waits(t *testing.T, p Params) []int {
	top := topology.Uniform(1, 1, 1, 2, 1)
	m := newTestMachine(t, p, top)
	one := topology.CPUSetOf(1)
	m.fork(0, 1, sched.Attr{Nice: 20, Affinity: one})
	m.serve()
	for range 500 { // the hog earns its batch priority
		m.tick()
	}
	m.fork(1, 1, sched.Attr{Affinity: one})
	var waits []int
	for range 60 {
		for m.running(1) != 1 {
			m.tick()
		}
		waits = append(waits, sleeperCycle(m, 1, 1, 0, 2, 1, 100))
	}
	if g := m.s.thread(1); g.UserPri <= p.Layout().MaxInteract {
		t.Fatalf("%s: gzip became interactive (user priority %d); the experiment needs a batch gzip", p.Name, g.UserPri)
	}
	return waits[10:]
}

func mean(x []int) float64 {
	s := 0
	for _, v := range x {
		s += v
	}
	return float64(s) / float64(len(x))
}

func TestSchedulerSeed000Rows(t *testing.T) {
	// Seed 000's table: only pick_short=1 with preempt_thresh=224 fixes the wait.
	rows := []struct {
		pickShort bool
		thresh    int
		slow      bool
	}{
		{false, 48, true},
		{false, 224, true}, // preempts, but the preempted hog goes back to the head and runs again
		{true, 48, true},   // gzip is queued first but must wait for the hog's slice to end
		{true, 224, false},
	}
	for _, r := range rows {
		p := Seed000Params(r.pickShort, r.thresh)
		waits := seed000Waits(t, p)
		avg := mean(waits)
		t.Logf("%s: mean wait %.2f stat ticks", p.Name, avg)
		if r.slow && avg < 5 {
			t.Errorf("%s: mean wait %.2f ticks, want about a slice", p.Name, avg)
		}
		if !r.slow && avg > 0.5 {
			t.Errorf("%s: mean wait %.2f ticks, want none", p.Name, avg)
		}
	}
}

func TestSchedulerSeed000Mechanism(t *testing.T) {
	// Row (0, 224): the wake-up does preempt the hog (a Resched of cpu1), yet Pick returns the
	// hog, requeued at the head of the dequeue queue (SRQ_PREEMPTED).
	p := Seed000Params(false, 224)
	m := newTestMachine(t, p, topology.Uniform(1, 1, 1, 2, 1))
	m.env.explaining = true
	one := topology.CPUSetOf(1)
	m.fork(0, 1, sched.Attr{Nice: 20, Affinity: one})
	m.serve()
	for range 500 {
		m.tick()
	}
	m.fork(1, 1, sched.Attr{Affinity: one})
	for m.running(1) != 1 {
		m.tick()
	}
	m.tick()
	m.tick()
	m.sleep(1)
	m.tick()
	m.env.log = nil
	m.s.Wakeup(m.now, 1, 0, 0)
	if !slices.Equal(m.env.resched, []topology.CPU{1}) {
		t.Fatalf("wake-up kicks %v, want cpu1 preempted", m.env.resched)
	}
	if !strings.Contains(strings.Join(m.env.log, "\n"), "preempt_thresh 224: preempt") {
		t.Fatalf("explanation lacks the threshold rule: %q", m.env.log)
	}
	m.serve()
	if m.running(1) != 0 {
		t.Fatalf("after the preemption cpu1 runs %v, want the hog again", m.running(1))
	}
	if hog := m.s.thread(0); !strings.Contains(strings.Join(m.env.log, "\n"), "preempted=true") || hog.State != Running {
		t.Fatalf("hog not preempted and re-picked: %q", m.env.log)
	}
}

func TestSchedulerIdleSteals(t *testing.T) {
	for _, limit := range []int{2, 0} { // tdq_trysteal in sched_switch, or the idle loop's tdq_idled
		p := DefaultParams()
		p.TryStealLimit = limit
		p.Balance = false
		m := newTestMachine(t, p, topology.Uniform(1, 1, 1, 2, 1))
		m.fork(0, 1, sched.Attr{Affinity: topology.CPUSetOf(1)})
		m.fork(1, 0, sched.Attr{Affinity: topology.CPUSetOf(0)})
		m.fork(2, 0, sched.Attr{})
		m.serve()
		// t2 queued behind t1 on cpu0 (cpu1 runs t0 and no CPU runs worse priority).
		if m.running(0) != 1 || m.running(1) != 0 || m.s.thread(2).State != OnRunq || m.s.thread(2).CPU != 0 {
			t.Fatalf("limit %d: setup cpu0 %v cpu1 %v t2 %v", limit, m.running(0), m.running(1), m.s.thread(2))
		}
		m.sleep(1) // cpu1 goes idle and steals t2 from cpu0 (load 2 >= steal_thresh)
		if m.running(1) != 2 {
			t.Fatalf("limit %d: idle cpu1 runs %v, want t2 stolen", limit, m.running(1))
		}
	}
}

func TestSchedulerBalancer(t *testing.T) {
	p := DefaultParams()
	p.StealIdle = false // only the periodic balancer can move work
	m := newTestMachine(t, p, topology.Uniform(1, 1, 1, 2, 1))
	zero := topology.CPUSetOf(0)
	for id := range sched.ID(3) {
		m.fork(id, 0, sched.Attr{Affinity: zero})
	}
	m.serve()
	for id := range sched.ID(3) {
		m.s.SetAttr(m.now, id, sched.Attr{})
	}
	if m.running(1) != -1 || m.s.sys.cpus[0].Load() != 3 {
		t.Fatalf("setup: cpu1 runs %v, cpu0 load %d", m.running(1), m.s.sys.cpus[0].Load())
	}
	// balance_ticks starts at balance_interval (127): the balancer runs on the 127th tick and
	// moves one thread to the idle cpu1.
	for range 126 {
		m.tick()
	}
	if m.running(1) != -1 {
		t.Fatalf("cpu1 busy before the balancer ran")
	}
	m.tick()
	if m.running(1) == -1 || m.s.sys.cpus[0].Load() != 2 {
		t.Fatalf("after the balancer: cpu1 runs %v, cpu0 load %d", m.running(1), m.s.sys.cpus[0].Load())
	}
	// The next period is jittered: max(127/2, 1) + random % 127.
	if m.s.balanceTicks < 63 || m.s.balanceTicks > 63+126 {
		t.Fatalf("next balance in %d ticks", m.s.balanceTicks)
	}
}

func TestSchedulerDeterministic(t *testing.T) {
	run := func(seed uint64) []string {
		top := topology.Uniform(1, 1, 2, 2, 2)
		env := &fakeEnv{explaining: true}
		s := mustNew(t, DefaultParams())
		if err := s.Start(sched.Config{Topology: top, Hz: 1000, StatHz: 127, Seed: seed}, env); err != nil {
			t.Fatal(err)
		}
		m := &testMachine{t: t, s: s, env: env, top: top, cur: make([]sched.ID, top.NumIDs()), step: int64(1e9) / 127, runs: map[sched.ID]int{}}
		for i := range m.cur {
			m.cur[i] = -1
		}
		for id := range sched.ID(12) {
			m.fork(id, topology.CPU(id%8), sched.Attr{Nice: int(id%5) - 2})
		}
		m.serve()
		for i := range 400 {
			m.tick()
			if i%7 == 3 {
				if id := m.running(topology.CPU(i % 8)); id >= 0 && id%3 == 0 {
					m.sleep(topology.CPU(i % 8))
					m.wake(id, topology.CPU((i+1)%8))
				}
			}
		}
		return env.log
	}
	a, b := run(7), run(7)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different explanation logs")
	}
	if len(a) < 100 {
		t.Fatalf("only %d explanations", len(a))
	}
}

func TestSchedulerExplainsOnlyWhenAsked(t *testing.T) {
	m := newTestMachine(t, DefaultParams(), topology.Uniform(1, 1, 1, 2, 1))
	m.fork(0, 0, sched.Attr{})
	m.serve()
	for range 50 {
		m.tick()
	}
	if len(m.env.log) != 0 {
		t.Fatalf("explanations recorded while not explaining: %q", m.env.log)
	}
}

func TestSchedulerMisc(t *testing.T) {
	s := mustNew(t, DefaultParams())
	if err := s.AddGroup(sched.Group{ID: 1, Weight: 100}); err == nil {
		t.Error("AddGroup succeeded")
	}
	if err := s.Start(sched.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Hz: 1000}, nil); err == nil {
		t.Error("Start with nil Env succeeded")
	}
	bad := DefaultParams()
	bad.Interact = 0
	if _, err := New(bad); err == nil || !strings.HasPrefix(err.Error(), "ule: Params.Interact 0 ") {
		t.Errorf("New with Interact 0 = %v, want the ule: Params.Interact error", err)
	}
	m := newTestMachine(t, DefaultParams(), topology.Uniform(1, 1, 1, 2, 1))
	if m.s.TickHz() != 127 || m.s.Name() != "ule-main" || m.s.Ticks(0) != 600_000 || m.s.Ticks(1e9) != 601_000 {
		t.Errorf("TickHz %d Name %q Ticks %d %d", m.s.TickHz(), m.s.Name(), m.s.Ticks(0), m.s.Ticks(1e9))
	}
	// Real-time and idle classes map onto their ranges; exit forgets the thread.
	m.fork(0, 0, sched.Attr{Class: sched.FIFO, RTPrio: 0, RTScale: sched.RTFreeBSD})
	m.fork(1, 1, sched.Attr{Class: sched.Idle})
	if p := m.s.thread(0).Priority; p != 8 {
		t.Errorf("rtprio(2) FIFO level 0 has priority %d, want 8", p)
	}
	if p := m.s.thread(1).Priority; p != PriMinIdle {
		t.Errorf("SCHED_IDLE has priority %d, want %d", p, PriMinIdle)
	}
	m.fork(2, 1, sched.Attr{Class: sched.RR, RTPrio: 30, RTScale: sched.RTFreeBSD})
	if m.running(1) != 2 {
		t.Errorf("a real-time thread did not preempt the idle-class one: cpu1 runs %v", m.running(1))
	}
	m.s.Stop(m.now, 1, 2, sched.Exit)
	m.cur[1] = -1
	m.pick(1)
	if m.s.thread(2) != nil || m.running(1) != 1 {
		t.Errorf("after exit: thread %v, cpu1 runs %v", m.s.thread(2), m.running(1))
	}
	// Nice changes the user priority of a queued thread.
	m.fork(3, 0, sched.Attr{})
	before := m.s.thread(3).UserPri
	m.s.SetAttr(m.now, 3, sched.Attr{Nice: 20})
	if after := m.s.thread(3).UserPri; after != before+25 {
		t.Errorf("nice 20: user priority %d -> %d, want +25", before, after)
	}
	m.check()
}

// At hz 1 SCHED_SLP_RUN_FORK = (hz/2) << 10 is 0 and sched_interact_fork divides by it
// (sys/kern/sched_ule.c, mchoo7/freebsd-src @3521c70f): Start must refuse such a machine with an
// error rather than fail at the first fork. hz 2 is the smallest that works.
func TestSchedulerStartRefusesHz1(t *testing.T) {
	top := topology.Uniform(1, 1, 1, 1, 1)
	for _, p := range []Params{DefaultParams(), LegacyParams()} {
		p.Slice = 1 // realstathz/10 is 0 at stathz 1 and 2: only Hz is left to refuse
		err := mustNew(t, p).Start(sched.Config{Topology: top, Hz: 1, StatHz: 1}, &fakeEnv{})
		if err == nil || !strings.HasPrefix(err.Error(), "ule: Params.Hz 1 ") {
			t.Errorf("%s: Start(Hz 1) = %v, want the ule: Params.Hz error", p.Name, err)
		}
		bad := p
		bad.Hz = 1
		if err := bad.Validate(); err == nil {
			t.Errorf("%s: Params{Hz: 1}.Validate() = nil, want an error", p.Name)
		}
		if _, err := New(bad); err == nil {
			t.Errorf("%s: New(Params{Hz: 1}) succeeded", p.Name)
		}
		s := mustNew(t, p)
		if err := s.Start(sched.Config{Topology: top, Hz: 2, StatHz: 2}, &fakeEnv{}); err != nil {
			t.Fatalf("%s: Start(Hz 2) = %v, want nil", p.Name, err)
		}
		if got := SlpRunFork(s.Params().Hz); got != 1024 {
			t.Errorf("SlpRunFork(2) = %d, want 1024", got)
		}
		// A fork from a parent with 4096 shifted ticks of history runs sched_interact_fork at
		// the smallest hz: ratio 4096/1024 = 4.
		s.Fork(0, 0, -1, 0, sched.Attr{})
		s.thread(0).RunTime, s.thread(0).SlpTime = 3072, 1024
		s.Fork(0, 1, 0, 0, sched.Attr{})
		if c := s.thread(1); c == nil || c.RunTime != 768 || c.SlpTime != 256 {
			t.Errorf("%s: child forked at hz 2 = %+v, want RunTime 768, SlpTime 256", p.Name, c)
		}
	}
}

// The documented panics of Stop, Wakeup, SetAttr and Fork, each with its "ule: " message.
func TestSchedulerMisusePanics(t *testing.T) {
	m := newTestMachine(t, DefaultParams(), topology.Uniform(1, 1, 1, 2, 1))
	m.fork(0, 0, sched.Attr{})
	m.serve()
	if m.running(0) != 0 || m.running(1) != -1 {
		t.Fatalf("running %v %v, want thread 0 on cpu0 and cpu1 idle", m.running(0), m.running(1))
	}
	tests := []struct {
		name, want string
		f          func()
	}{
		{"Stop unknown", "ule: Stop of unknown thread", func() { m.s.Stop(0, 0, 7, sched.Sleep) }},
		{"Stop not running there", "ule: Stop of ", func() { m.s.Stop(0, 1, 0, sched.Sleep) }},
		{"Wakeup unknown", "ule: Wakeup of unknown thread", func() { m.s.Wakeup(0, 7, 0, 0) }},
		{"SetAttr unknown", "ule: SetAttr of unknown thread", func() { m.s.SetAttr(0, -1, sched.Attr{}) }},
		{"Fork in use", "ule: Fork of thread", func() { m.s.Fork(0, 0, -1, 0, sched.Attr{}) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				if !strings.HasPrefix(msg, tc.want) {
					t.Errorf("panic %q, want one starting %q", msg, tc.want)
				}
			}()
			tc.f()
		})
	}
}
