package bsd4

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

const secondTicks = 127 // statistics ticks per second (stathz)

func up() *topology.Topology { return topology.Uniform(1, 1, 1, 1, 1) }

// TestSchedulerOneHog: a lone CPU hog gets the CPU at once and keeps it, and its priority sinks
// second by second as estcpu grows faster than schedcpu decays it at the (rising) load.
func TestSchedulerOneHog(t *testing.T) {
	m := newMachine(t, DefaultParams(), up(), 1000, 1)
	m.spawn(0, sched.Attr{}, job{})
	if m.running[0] != 0 {
		t.Fatalf("after the hog's wake-up cpu0 runs %v, want t0", m.running[0])
	}
	var pris []uint8
	for range 30 {
		m.run(secondTicks)
		th, _ := m.s.Thread(0)
		pris = append(pris, th.Pri)
	}
	if m.ran[0] != 30*secondTicks || m.idle != 0 {
		t.Errorf("hog ran %d ticks and the CPU idled %d, want %d and 0", m.ran[0], m.idle, 30*secondTicks)
	}
	if !slices.IsSorted(pris) || pris[29] < pris[0]+10 {
		t.Errorf("hog priorities by second = %v, want non-decreasing and rising by at least 10", pris)
	}
}

// TestSchedulerHogRecovers: a hog's priority rises while it runs and comes back to PUSER+20
// when it sleeps long enough: updatepri applies the decays it missed at wake-up.
func TestSchedulerHogRecovers(t *testing.T) {
	m := newMachine(t, DefaultParams(), up(), 1000, 1)
	m.spawn(0, sched.Attr{}, job{run: 40 * secondTicks, sleep: 10 * secondTicks})
	fresh := ResetPriority(0, 0, 8, LayoutMain())
	m.run(40*secondTicks - 1)
	th, _ := m.s.Thread(0)
	if th.Pri < fresh+25 || th.State() != Running {
		t.Fatalf("after 40 s of running the hog is %v at pri %d, want running at ≥ %d", th.State(), th.Pri, fresh+25)
	}
	before := th.Pri
	m.run(1) // the run ends: the hog sleeps
	if th.State() != Sleeping {
		t.Fatalf("hog is %v, want sleeping", th.State())
	}
	m.run(10 * secondTicks) // it wakes at the end of this
	if th.State() != Running || th.Pri != fresh || th.EstCPU > 8 {
		t.Errorf("after 10 s of sleep the hog is %v at pri %d estcpu %d (was pri %d), want running at %d with estcpu ≤ 8",
			th.State(), th.Pri, th.EstCPU, before, fresh)
	}
}

// TestSchedulerSharesGlobalQueue: three hogs on two CPUs share them through the global queue:
// each gets two thirds of a CPU and no CPU ever idles.
func TestSchedulerSharesGlobalQueue(t *testing.T) {
	m := newMachine(t, DefaultParams(), topology.Uniform(1, 1, 1, 2, 1), 1000, 1)
	for i := range 3 {
		m.spawn(sched.ID(i), sched.Attr{}, job{})
	}
	m.run(60 * secondTicks)
	want := 2 * 60 * secondTicks / 3
	for i := range 3 {
		if got := m.ran[sched.ID(i)]; got < want*95/100 || got > want*105/100 {
			t.Errorf("hog t%d ran %d ticks, want %d ± 5%%", i, got, want)
		}
	}
	if m.idle != 0 {
		t.Errorf("CPUs idled %d ticks with three hogs on two CPUs, want 0", m.idle)
	}
}

// TestSchedulerNiceSplit: a nice 0 hog and a nice 20 hog on one CPU split it clearly unequally
// (77:23 over the first minute with seed 1). Contrast seed 000: ULE's calendar queue gave them
// "about 50:50". With 4BSD nice adds 20 levels while the usage term is capped at 39, so the nice
// 20 hog runs only when the other's estcpu exceeds its own by about 160.
func TestSchedulerNiceSplit(t *testing.T) {
	m := newMachine(t, DefaultParams(), up(), 1000, 1)
	m.spawn(0, sched.Attr{Nice: 0}, job{})
	m.spawn(1, sched.Attr{Nice: 20}, job{})
	m.run(60 * secondTicks)
	total := float64(60 * secondTicks)
	nice0, nice20 := float64(m.ran[0])/total, float64(m.ran[1])/total
	if nice0 < 0.70 || nice20 < 0.10 || nice20 > 0.30 {
		t.Errorf("nice 0 : nice 20 = %.2f : %.2f, want ≥ 0.70 : 0.10-0.30", nice0, nice20)
	}
	t.Logf("nice 0 : nice 20 = %.2f : %.2f", nice0, nice20)
}

// TestSchedulerQuantum: two hogs on one CPU take turns of exactly sched_slice = 12 statistics
// ticks in main; in FreeBSD 9 the per-CPU quantum of hz/10 = 100 hz ticks ends after 13
// statistics ticks (102.4 ms), the first tick at which ticks − switchticks ≥ 100.
func TestSchedulerQuantum(t *testing.T) {
	for _, tc := range []struct {
		p    Params
		want int
	}{{DefaultParams(), 12}, {FreeBSD9Params(), 13}} {
		t.Run(tc.p.Name, func(t *testing.T) {
			m := newMachine(t, tc.p, up(), 1000, 1)
			m.spawn(0, sched.Attr{}, job{})
			m.spawn(1, sched.Attr{}, job{})
			m.run(10 * secondTicks)
			for id := range sched.ID(2) {
				runs := m.runLens[id]
				if len(runs) < 10 {
					t.Fatalf("t%d had %d runs, want at least 10", id, len(runs))
				}
				for i, n := range runs[1:] { // the first run of a forked thread is a 1-tick slice (main)
					if n != tc.want {
						t.Fatalf("t%d run %d lasted %d ticks, want %d (all runs %v)", id, i+1, n, tc.want, runs)
					}
				}
			}
		})
	}
}

// TestSchedulerPreemptedToHead: a thread preempted by an owed preemption (FULL_PREEMPTION here)
// goes back to the head of its queue and runs before an equal thread that was waiting; one
// rescheduled by an AST (the default options) goes to the tail.
func TestSchedulerPreemptedToHead(t *testing.T) {
	full := DefaultParams()
	full.FullPreemption = true
	for _, tc := range []struct {
		p    Params
		next sched.ID
	}{{full, 0}, {DefaultParams(), 1}} {
		t.Run(fmt.Sprintf("full=%t", tc.p.FullPreemption), func(t *testing.T) {
			m := newMachine(t, tc.p, up(), 1000, 1)
			m.spawn(0, sched.Attr{}, job{})
			m.spawn(1, sched.Attr{}, job{})
			m.s.Fork(0, 2, -1, 0, sched.Attr{Nice: -20})
			if m.running[0] != 0 {
				t.Fatalf("cpu0 runs %v, want t0", m.running[0])
			}
			m.s.Wakeup(0, 2, 0, sched.WakeFork)
			m.settle()
			if m.running[0] != 2 {
				t.Fatalf("after the nice -20 wake-up cpu0 runs %v, want t2", m.running[0])
			}
			m.s.Stop(0, 0, 2, sched.Sleep)
			m.running[0] = -1
			m.pick(0)
			if m.running[0] != tc.next {
				t.Errorf("after t2 sleeps cpu0 runs %v, want %v", m.running[0], tc.next)
			}
		})
	}
}

// TestSchedulerAffinity: a thread allowed only on cpu1 is queued on cpu1's own queue and runs
// nowhere else, while two free hogs share what is left.
func TestSchedulerAffinity(t *testing.T) {
	m := newMachine(t, DefaultParams(), topology.Uniform(1, 1, 1, 2, 1), 1000, 1)
	m.spawn(0, sched.Attr{Affinity: topology.CPUSetOf(1)}, job{})
	m.spawn(1, sched.Attr{}, job{})
	m.spawn(2, sched.Attr{}, job{})
	for range 20 * secondTicks {
		m.step()
		if m.running[0] == 0 {
			t.Fatalf("tick %d: the thread pinned to cpu1 runs on cpu0", m.tick)
		}
	}
	if m.ran[0] == 0 || m.idle != 0 {
		t.Errorf("affine thread ran %d ticks, CPUs idled %d; want > 0 and 0", m.ran[0], m.idle)
	}
	// Bind it to cpu0 instead: it must move there.
	m.s.SetAttr(m.now(), 0, sched.Attr{})
	m.s.Bind(m.now(), 0, 0)
	m.settle()
	for range 5 * secondTicks {
		m.step()
		if m.running[1] == 0 {
			t.Fatalf("tick %d: the thread bound to cpu0 runs on cpu1", m.tick)
		}
	}
	m.s.Unbind(m.now(), 0)
}

// TestSchedulerExitChargesParent: sched_exit adds the child's estcpu to the parent's.
func TestSchedulerExitChargesParent(t *testing.T) {
	m := newMachine(t, DefaultParams(), up(), 1000, 1)
	m.s.Fork(0, 0, -1, 0, sched.Attr{})
	m.s.Fork(0, 1, 0, 0, sched.Attr{})
	m.s.Wakeup(0, 1, 0, sched.WakeFork)
	m.settle()
	m.run(100)
	child, _ := m.s.Thread(1)
	parent, _ := m.s.Thread(0)
	want := ESTCPULim(parent.EstCPU+child.EstCPU, 8, 1)
	if child.EstCPU == 0 {
		t.Fatal("child accumulated no estcpu")
	}
	m.s.Stop(m.now(), 0, 1, sched.Exit)
	m.running[0] = -1
	if parent.EstCPU != want {
		t.Errorf("parent estcpu after the child's exit = %d, want %d", parent.EstCPU, want)
	}
	if _, ok := m.s.Thread(1); ok {
		t.Error("exited child is still known")
	}
	m.pick(0)
	m.verify(true)
}

// TestSchedulerNiceRequeue: renicing a queued thread moves it to its new queue.
func TestSchedulerNiceRequeue(t *testing.T) {
	m := newMachine(t, DefaultParams(), up(), 1000, 1)
	m.spawn(0, sched.Attr{}, job{})
	m.spawn(1, sched.Attr{}, job{})
	th, _ := m.s.Thread(1)
	m.s.SetAttr(m.now(), 1, sched.Attr{Nice: 10})
	m.settle()
	if idx, ok := th.Index(); !ok || th.Pri != 86 || idx != 86 {
		t.Errorf("reniced thread at pri %d on queue %d (%t), want 86 on 86", th.Pri, idx, ok)
	}
	m.s.SetAttr(m.now(), 1, sched.Attr{Class: sched.FIFO, RTPrio: 31})
	m.settle()
	if m.running[0] != 0 || th.Pri != 8 {
		t.Errorf("after becoming FIFO 31 the thread has pri %d and cpu0 runs %v, want 8 and t0 (no preemption)", th.Pri, m.running[0])
	}
}

// TestSchedulerExplain: explanations are built only when the machine asks, and the same seed
// gives the same run, explanation for explanation.
func TestSchedulerExplain(t *testing.T) {
	run := func(seed uint64) []string {
		m := newMachine(t, DefaultParams(), topology.Uniform(1, 1, 1, 2, 1), 1000, seed)
		m.env.explaining = true
		for i := range 3 {
			m.spawn(sched.ID(i), sched.Attr{Nice: i}, job{run: 20 + 7*i, sleep: 30})
		}
		m.run(20 * secondTicks)
		return m.env.log
	}
	a, b := run(7), run(7)
	if !slices.Equal(a, b) {
		t.Error("two runs with the same seed explained differently")
	}
	joined := strings.Join(a, "\n")
	for _, want := range []string{"from the global queue", "forward_wakeup", "slice of 12 stathz ticks used up"} {
		if !strings.Contains(joined, want) {
			t.Errorf("explanations do not mention %q", want)
		}
	}
	// Not explaining: fakeEnv fails the test if Explain is called.
	m := newMachine(t, DefaultParams(), up(), 1000, 7)
	m.spawn(0, sched.Attr{}, job{run: 5, sleep: 5})
	m.run(5 * secondTicks)
}

func TestSchedulerMisuse(t *testing.T) {
	newS := func() (*Scheduler, *fakeEnv) {
		env := &fakeEnv{t: t}
		s := mustNew(t, DefaultParams())
		if err := s.Start(sched.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Hz: 1000}, env); err != nil {
			t.Fatal(err)
		}
		s.Fork(0, 0, -1, 0, sched.Attr{})
		return s, env
	}
	const outside = topology.CPU(7)
	tests := []struct {
		name string
		f    func(s *Scheduler)
		want string
	}{
		{"Fork existing", func(s *Scheduler) { s.Fork(0, 0, -1, 0, sched.Attr{}) }, "bsd4: Fork of thread t0, which exists"},
		{"Fork negative", func(s *Scheduler) { s.Fork(0, -3, -1, 0, sched.Attr{}) }, "bsd4: Fork of negative thread id -3"},
		{"Fork bad attr", func(s *Scheduler) { s.Fork(0, 1, -1, 0, sched.Attr{Nice: 40}) }, "bsd4: Fork of t1 with invalid attributes: sched: nice 40 outside -20..20"},
		{"Fork outside machine", func(s *Scheduler) { s.Fork(0, 1, -1, outside, sched.Attr{}) }, "bsd4: Fork on cpu7, which is not in the machine"},
		{"Wakeup unknown", func(s *Scheduler) { s.Wakeup(0, 9, 0, 0) }, "bsd4: Wakeup of unknown thread t9"},
		{"Wakeup twice", func(s *Scheduler) { s.Wakeup(0, 0, 0, sched.WakeFork); s.Wakeup(0, 0, 0, 0) }, "bsd4: Wakeup of queued thread t0"},
		{"Wakeup from outside machine", func(s *Scheduler) { s.Wakeup(0, 0, outside, sched.WakeFork) }, "bsd4: Wakeup on cpu7, which is not in the machine"},
		{"Pick on busy CPU", func(s *Scheduler) { s.Wakeup(0, 0, 0, sched.WakeFork); s.Pick(0, 0); s.Pick(0, 0) }, "bsd4: Pick on cpu0, which runs t0"},
		{"Pick outside machine", func(s *Scheduler) { s.Pick(0, outside) }, "bsd4: Pick on cpu7, which is not in the machine"},
		{"Pick beyond MaxCPUs", func(s *Scheduler) { s.Pick(0, topology.MaxCPUs) }, "bsd4: Pick on cpu1024, which is not in the machine"},
		{"Tick outside machine", func(s *Scheduler) { s.Tick(0, outside) }, "bsd4: Tick on cpu7, which is not in the machine"},
		{"Stop outside machine", func(s *Scheduler) { s.Stop(0, outside, 0, sched.Sleep) }, "bsd4: Stop on cpu7, which is not in the machine"},
		{"Stop of a thread not running", func(s *Scheduler) { s.Stop(0, 1, 0, sched.Sleep) }, "bsd4: Stop of t0, which is not running on cpu1"},
		{"SetAttr bad attr", func(s *Scheduler) { s.SetAttr(0, 0, sched.Attr{Class: 9}) }, "bsd4: SetAttr of t0 with invalid attributes: sched: invalid class 9"},
		{"Bind outside machine", func(s *Scheduler) { s.Bind(0, 0, 7) }, "bsd4: Bind on cpu7, which is not in the machine"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newS()
			defer func() {
				r := recover()
				if r == nil {
					t.Fatal("no panic")
				}
				if msg := fmt.Sprint(r); msg != tc.want {
					t.Errorf("panic %q, want %q", msg, tc.want)
				}
			}()
			tc.f(s)
		})
	}
	var zero Scheduler
	func() {
		defer func() {
			if msg := fmt.Sprint(recover()); msg != "bsd4: Pick before Start" {
				t.Errorf("Pick before Start: panic %q", msg)
			}
		}()
		zero.Pick(0, 0)
	}()
	bad := DefaultParams()
	bad.Fold = 3
	if _, err := New(bad); err == nil || !strings.HasPrefix(err.Error(), "bsd4: RQ_PPQ 3 ") {
		t.Errorf("New(Fold 3) = %v, want the bsd4: RQ_PPQ error", err)
	}
	s, env := newS()
	if err := s.Start(sched.Config{Topology: up(), Hz: 1000}, env); err == nil {
		t.Error("second Start returned nil, want an error")
	}
	if err := mustNew(t, DefaultParams()).Start(sched.Config{Hz: 1000}, env); err == nil {
		t.Error("Start without a topology returned nil, want an error")
	}
	if err := s.AddGroup(sched.Group{ID: 1, Weight: 100}); err == nil {
		t.Error("AddGroup returned nil, want an error")
	}
}

// TestSchedulerIdlePoll: without IPI wake-ups (kern.sched.ipiwakeup.enabled=0) an idle CPU
// finds a thread queued by a busy CPU only at its next clock interrupt.
func TestSchedulerIdlePoll(t *testing.T) {
	p := DefaultParams()
	p.IPIWakeup = false
	m := newMachine(t, p, topology.Uniform(1, 1, 1, 2, 1), 1000, 1)
	m.spawn(0, sched.Attr{}, job{})
	m.spawn(1, sched.Attr{}, job{})
	if m.running[0] != 0 || m.running[1] != -1 {
		t.Fatalf("after two wake-ups from cpu0 the CPUs run %v, want [t0 idle]", m.running)
	}
	m.step() // t0's 1-tick fork slice ends too, so the two may swap CPUs
	if got := []sched.ID{m.running[0], m.running[1]}; !slices.Contains(got, 0) || !slices.Contains(got, 1) {
		t.Errorf("after one tick the CPUs run %v, want t0 and t1", got)
	}
}

// TestWakeupQueuesAtSleepPriority follows sched_wakeup (sched_4bsd.c @e2650af1): a thread that
// slept more than a second catches up on its decay (updatepri) and gets a new user priority
// (resetpriority), but only td_user_pri changes; sched_add queues it at td_priority, the
// priority it went to sleep with, and it takes the user priority when it returns to user mode
// (sched_userret), which in the model is when it is picked.
func TestWakeupQueuesAtSleepPriority(t *testing.T) {
	m := newMachine(t, DefaultParams(), up(), 1000, 1)
	m.spawn(0, sched.Attr{}, job{}) // a hog, so that the CPU is busy when the sleeper wakes
	m.spawn(1, sched.Attr{}, job{run: 20 * secondTicks, sleep: 1 << 30})
	th, _ := m.s.Thread(1)
	for !m.jobs[1].asleep {
		m.step()
	}
	// schedcpu still decays a sleeper and resets its priority during its first second asleep;
	// after that td_priority stays as it is until the thread runs again.
	m.run(10 * secondTicks)
	before := th.Pri
	m.s.Wakeup(m.now(), 1, 0, 0)
	if th.Pri != before || th.UserPri >= before {
		t.Fatalf("woken after 10 s asleep: queued at %d with user priority %d; want the priority it slept at, %d, and a better user priority",
			th.Pri, th.UserPri, before)
	}
	m.jobs[1].asleep, m.jobs[1].left = false, 20*secondTicks
	m.settle()
	for th.state != Running {
		m.step()
	}
	if th.Pri != th.UserPri {
		t.Errorf("picked at priority %d, want its user priority %d (sched_userret)", th.Pri, th.UserPri)
	}
}

// CheckAttr accepts what FreeBSD offers and refuses the rest, naming it; what is run anyway is
// reported by Err, naming the first thread.
func TestSchedulerCheckAttr(t *testing.T) {
	s := mustNew(t, FreeBSD14Params())
	for _, tc := range []struct {
		a    sched.Attr
		want string // "" for accepted
	}{
		{sched.Attr{}, ""},
		{sched.Attr{Class: sched.Idle}, ""},
		{sched.Attr{Class: sched.FIFO, RTPrio: 0, RTScale: sched.RTFreeBSD}, ""},
		{sched.Attr{Class: sched.RR, RTPrio: 31, RTScale: sched.RTFreeBSD}, ""},
		{sched.Attr{Class: sched.RR, RTPrio: 10}, "bsd4: rr priority 10 is on the linux scale; FreeBSD's rtprio(2) takes 0..31 (RTScale freebsd)"},
		{sched.Attr{Class: sched.Batch}, "bsd4: FreeBSD has no SCHED_BATCH class"},
		{sched.Attr{Slice: 1}, "bsd4: a requested slice (1 ns) has no 4BSD equivalent"},
		{sched.Attr{Group: 4}, "bsd4: no group scheduling in 4BSD (group 4)"},
		{sched.Attr{Class: sched.FIFO, RTPrio: 32, RTScale: sched.RTFreeBSD}, "bsd4: sched: fifo priority 32 outside 0..31 (freebsd scale)"},
	} {
		got := ""
		if err := s.CheckAttr(tc.a); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckAttr(%+v) = %q, want %q", tc.a, got, tc.want)
		}
	}
	m := newMachine(t, FreeBSD14Params(), topology.Uniform(1, 1, 1, 2, 1), 1000, 1)
	m.s.Fork(0, 0, -1, 0, sched.Attr{Class: sched.FIFO, RTPrio: 2, RTScale: sched.RTFreeBSD})
	if err := m.s.Err(); err != nil {
		t.Fatalf("Err after an accepted fork = %v", err)
	}
	// rtp_to_pri on the legacy layout: PRI_MIN_REALTIME 16 + 2, in queue 18/4 = 4.
	if th, _ := m.s.Thread(0); th.UserPri != 18 {
		t.Errorf("rtprio 2 has user priority %d, want 18", th.UserPri)
	}
	m.s.Fork(0, 1, -1, 0, sched.Attr{Class: sched.Batch})
	m.s.SetAttr(0, 0, sched.Attr{Slice: 5})
	if err := m.s.Err(); err == nil || err.Error() != "thread t1 ran otherwise than asked: bsd4: FreeBSD has no SCHED_BATCH class" {
		t.Errorf("Err = %v, want t1's SCHED_BATCH", err)
	}
}

// A clock interrupt far in the future ends: schedcpu runs once, as the kernel's schedcpu
// thread, which sleeps a second after each run, would, and its next run is a second after that
// interrupt, or the end of time. Before, each skipped second was one schedcpu, and at
// math.MaxInt64 the next run's time overflowed and the loop never ended.
func TestSchedulerTickFarAhead(t *testing.T) {
	for _, now := range []int64{100 * 1e9, 1e18, math.MaxInt64 - 1, math.MaxInt64} {
		s := mustNew(t, DefaultParams())
		if err := s.Start(sched.Config{Topology: up(), Hz: 1000, StatHz: 127}, &fakeEnv{t: t}); err != nil {
			t.Fatal(err)
		}
		s.Fork(0, 0, -1, 0, sched.Attr{})
		s.Wakeup(0, 0, 0, sched.WakeFork)
		s.Pick(0, 0)
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.Tick(now, 0)
			s.Tick(now, 0) // the next schedcpu is not due yet, or (at the end of time) due at once
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Tick(%d) has not returned after 10 s", now)
		}
		want := min(now, math.MaxInt64-1e9) + 1e9
		if s.sys.nextSchedCPU != want {
			t.Errorf("after Tick(%d): next schedcpu at %d, want %d", now, s.sys.nextSchedCPU, want)
		}
	}
}
