package ule_test

// Tests of the decisions (Pick, ShouldPreempt, PickCPU, StealFrom, Steal, Balance) on the
// topology fixtures: 2 CPUs sharing a cache (Uniform(1,1,1,2,1)), two SMT sockets
// (Uniform(2,1,1,2,2): packages {0-3} and {4-7}, cores {0,1} {2,3} …) and four LLCs of three
// SMT cores (Uniform(1,1,4,3,2): LLCs {0-5} {6-11} {12-17} {18-23}). Each expected answer is
// derived in a comment from sched_ule.c (main @3521c70f, legacy @366ae94e).

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

var (
	twoCPU  = topology.Uniform(1, 1, 1, 2, 1)
	twoSMT  = topology.Uniform(2, 1, 1, 2, 2)
	fourLLC = topology.Uniform(1, 1, 4, 3, 2)
	oneCPU  = topology.Uniform(1, 1, 1, 1, 1)
)

// newThread returns a bound time-sharing thread of priority pri allowed on every CPU of top.
func newThread(id int, pri uint8, top *topology.Topology) *ule.Thread {
	t := ule.InitThread(&ule.Thread{Class: ule.ClassTimeshare, Priority: pri, BasePri: pri, UserPri: pri, Affinity: top.CPUs()})
	t.ID = schedID(id)
	return t
}

func mustSystem(t testing.TB, p ule.Params, top *topology.Topology) *ule.System {
	t.Helper()
	s, err := ule.NewSystem(p, top)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestShouldPreempt(t *testing.T) {
	main, legacy, seed := ule.DefaultParams(), ule.LegacyParams(), ule.Seed000Params(true, 224)
	off := ule.DefaultParams()
	off.PreemptThresh = 0
	tests := []struct {
		name      string
		p         *ule.Params
		pri, cpri int
		remote    bool
		want      bool
		rule      ule.PreemptRule
	}{
		{"main: realtime preempts batch", &main, 39, 120, false, true, ule.PreemptThreshold},
		{"main: 40 is not < 40", &main, 40, 120, false, false, ule.PreemptNo},
		{"main: interactive does not preempt batch locally", &main, 56, 120, false, false, ule.PreemptNo},
		{"main: interactive preempts batch remotely", &main, 56, 120, true, true, ule.PreemptRemoteInteract},
		{"main: 114 is still interactive", &main, 114, 115, true, true, ule.PreemptRemoteInteract},
		// sched_shouldpreempt(100, 114, 1), main @3521c70f: 100 < 114; 114 < PRI_MIN_IDLE;
		// preempt_thresh 40 != 0; 100 is not < 40; remote and 100 <= PRI_MAX_INTERACT 114,
		// but cpri 114 is not > 114: return 0. Interactive work is not interrupted remotely.
		{"main: remote over cpri 114 (interactive) no", &main, 100, 114, true, false, ule.PreemptNo},
		// Legacy @366ae94e, PRI_MAX_INTERACT = 88 + 48 - 1 = 135: the same at 135.
		{"legacy: remote over cpri 135 (interactive) no", &legacy, 100, 135, true, false, ule.PreemptNo},
		{"main: not over interactive work remotely", &main, 56, 100, true, false, ule.PreemptNo},
		{"main: equal never", &main, 120, 120, false, false, ule.PreemptNotBetter},
		{"main: idle always", &main, 230, 255, false, true, ule.PreemptIdle},
		{"main: idle-class cpri is idle", &main, 200, 224, false, true, ule.PreemptIdle},
		{"disabled", &off, 10, 120, true, false, ule.PreemptDisabled},
		{"disabled still preempts idle", &off, 10, 255, false, true, ule.PreemptIdle},
		{"legacy: 48 <= 48", &legacy, 48, 120, false, true, ule.PreemptThreshold},
		{"legacy: 49 no", &legacy, 49, 120, false, false, ule.PreemptNo},
		{"legacy: interactive 88 over batch 140 remotely", &legacy, 88, 140, true, true, ule.PreemptRemoteInteract},
		{"legacy: 135 over 136 remotely", &legacy, 135, 136, true, true, ule.PreemptRemoteInteract},
		{"seed000: boosted sleeper 136 preempts the hog", &seed, 136, 223, false, true, ule.PreemptThreshold},
		{"seed000: batch over batch", &seed, 200, 223, true, true, ule.PreemptThreshold},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, why := ule.ShouldPreempt(tc.pri, tc.cpri, tc.remote, tc.p)
			if got != tc.want || why.Rule != tc.rule {
				t.Errorf("ShouldPreempt(%d, %d, %v) = %v (%v), want %v by rule %d", tc.pri, tc.cpri, tc.remote, got, why, tc.want, tc.rule)
			}
			if why.String() == "" {
				t.Errorf("empty explanation")
			}
		})
	}
}

// TestPreemptReasonString pins the explanations, including the comparison legacy's
// PreemptAtThresh turns into "<=".
func TestPreemptReasonString(t *testing.T) {
	main, legacy := ule.DefaultParams(), ule.LegacyParams()
	off := ule.DefaultParams()
	off.PreemptThresh = 0
	tests := []struct {
		p         *ule.Params
		pri, cpri int
		remote    bool
		want      string
	}{
		{&off, 10, 120, false, "preempt_thresh 0: no preemption"},
		{&main, 39, 120, false, "pri 39 < preempt_thresh 40: preempt"},
		{&legacy, 48, 120, false, "pri 48 <= preempt_thresh 48: preempt"},
		{&main, 120, 120, false, "pri 120 >= cpri 120: no preemption"},
		{&main, 230, 255, false, "cpri 255 is idle: preempt"},
		{&main, 56, 120, true, "remote: interactive pri 56 over batch cpri 120: preempt"},
		{&main, 56, 120, false, "pri 56 not < preempt_thresh 40, cpri 120: no preemption"},
	}
	for _, tc := range tests {
		if _, why := ule.ShouldPreempt(tc.pri, tc.cpri, tc.remote, tc.p); why.String() != tc.want {
			t.Errorf("ShouldPreempt(%d, %d, %v) explains %q, want %q", tc.pri, tc.cpri, tc.remote, why.String(), tc.want)
		}
	}
}

func TestPickOrderMain(t *testing.T) {
	p := ule.DefaultParams()
	c := ule.NewCPUState(0, &p)
	idle := newThread(1, 230, oneCPU)
	idle.Class = ule.ClassIdle
	batchA := newThread(2, 200, oneCPU)
	batchB := newThread(3, 120, oneCPU)
	inter := newThread(4, 80, oneCPU)
	for _, th := range []*ule.Thread{idle, batchA, batchB, inter} {
		c.Add(th, ule.SRQBoring)
	}
	// Calendar at offsets 0/0: batchA (200) in slot 85, batchB (120) in slot 5. The real-time
	// range comes first, then the calendar from slot 0 (batchB before batchA), then idle.
	want := []*ule.Thread{inter, batchB, batchA, idle}
	rules := []ule.PickRule{ule.PickRealtime, ule.PickCalendar, ule.PickCalendar, ule.PickIdleClass}
	for i, w := range want {
		got, why := c.Choose()
		if got != w || why.Rule != rules[i] {
			t.Fatalf("choice %d = %v (%v), want %v by rule %d", i, got, why, w, rules[i])
		}
	}
	if got, why := c.Choose(); got != nil || why.Rule != ule.PickIdle || c.LowPri() != ule.PriMaxIdle {
		t.Fatalf("empty Choose = %v (%v), LowPri %d", got, why, c.LowPri())
	}
}

func TestPickCalendarIsCircular(t *testing.T) {
	p := ule.DefaultParams()
	c := ule.NewCPUState(0, &p)
	// Move the insertion offset to slot 100 with an empty queue: each tick advances it by 7/4.
	for c.TSOff < 100 {
		c.ClockQueue(1)
	}
	if c.DeqOff != c.TSOff {
		t.Fatalf("empty calendar: deq %d != ts %d", c.DeqOff, c.TSOff)
	}
	off := c.TSOff
	late := newThread(1, 223, oneCPU)  // slot (108 + off) % 109 = off - 1: the very end of the circle
	early := newThread(2, 130, oneCPU) // slot (15 + off) % 109: wraps past 108 when off >= 94
	c.Add(late, 0)
	c.Add(early, 0)
	if i, _ := early.Link.Index(); int(i) != 115+(15+int(off))%109 {
		t.Fatalf("early queued at %d, want %d", i, 115+(15+int(off))%109)
	}
	got, why := ule.Pick(c)
	if got != early || why.Start != off {
		t.Fatalf("Pick = %v (%v), want early scanned from %d", got, why, off)
	}
}

func TestPickPreemptedGoesToHead(t *testing.T) {
	for _, p := range []ule.Params{ule.DefaultParams(), ule.LegacyParams()} {
		c := ule.NewCPUState(0, &p)
		a := newThread(1, 200, oneCPU)
		b := newThread(2, 150, oneCPU)
		c.Add(a, 0)
		// A preempted batch thread goes to the dequeue queue's head whatever its priority.
		c.Add(b, ule.SRQPreempted)
		if got, _ := ule.Pick(c); got != b {
			t.Errorf("%v: Pick = %v, want the preempted thread", p.Version, got)
		}
	}
}

func TestPickLegacyFoldsRealtime(t *testing.T) {
	// Legacy RQ_PPQ 4: real-time priorities 16..19 share queue 4, so FIFO order decides between
	// POSIX levels 31 (pri 16) and 28 (pri 19): seed 003's bug. Main keeps them apart.
	for _, tc := range []struct {
		p     ule.Params
		first int
	}{{ule.LegacyParams(), 1}, {ule.DefaultParams(), 2}} {
		c := ule.NewCPUState(0, &tc.p)
		lo := newThread(1, 19, oneCPU)
		lo.Class = ule.ClassFIFO
		hi := newThread(2, 16, oneCPU)
		hi.Class = ule.ClassFIFO
		if tc.p.Version == ule.Main {
			lo.Priority, hi.Priority = 11, 8
		}
		c.Add(lo, 0)
		c.Add(hi, 0)
		if got, _ := ule.Pick(c); int(got.ID) != tc.first {
			t.Errorf("%v: Pick = %v, want t%d", tc.p.Version, got, tc.first)
		}
	}
}

func TestPickShortPlacement(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     ule.Params
		queue int
	}{
		{"legacy pick_short: tdq_realtime at pri/4", ule.Seed000Params(true, 48), 200 / 4},
		{"main pick_short: last real-time queue", func() ule.Params { p := ule.DefaultParams(); p.PickShort = true; return p }(), 114},
	} {
		c := ule.NewCPUState(0, &tc.p)
		hog := newThread(1, 150, oneCPU)
		short := newThread(2, 200, oneCPU)
		short.Short = true
		c.Add(hog, 0)
		c.Add(short, 0)
		if i, _ := short.Link.Index(); int(i) != tc.queue {
			t.Errorf("%s: queued at %d, want %d", tc.name, i, tc.queue)
		}
		if got, why := ule.Pick(c); got != short || why.Rule != ule.PickRealtime {
			t.Errorf("%s: Pick = %v (%v), want the partial-slice user from the real-time range", tc.name, got, why)
		}
	}
}

func TestPickCPU(t *testing.T) {
	p := ule.DefaultParams()
	// busy gives cpu load threads of priority lowpri, one of them running: its load is load and
	// its LowPri lowpri.
	id := 100
	busy := func(s *ule.System, cpu topology.CPU, load int32, lowpri uint8) {
		for range load {
			id++
			th := ule.InitThread(&ule.Thread{ID: sched.ID(id), Class: ule.ClassTimeshare, Priority: lowpri, BasePri: lowpri, UserPri: lowpri, Affinity: topology.CPUSetOf(cpu)})
			s.CPU(cpu).Add(th, 0)
		}
		s.CPU(cpu).Choose()
	}
	t.Run("affinity: previous CPU idle and warm", func(t *testing.T) {
		s := mustSystem(t, p, twoSMT)
		th := newThread(1, 140, twoSMT)
		th.CPU, th.RLTick = 2, 100
		r := ule.NewRand(0, 0)
		// 101 - 100 = 1 < 2*affinity: affine at CG_SHARE_L2; cpu2 and its sibling cpu3 idle.
		cpu, why := s.PickCPU(th, 0, 101, 0, false, &r)
		if cpu != 2 || why.Rule != ule.PickCPUAffinity {
			t.Fatalf("PickCPU = %d (%v), want 2 by affinity", cpu, why)
		}
	})
	t.Run("busy SMT sibling: idle core of the LLC", func(t *testing.T) {
		s := mustSystem(t, p, twoSMT)
		busy(s, 3, 1, 150)
		th := newThread(1, 140, twoSMT)
		th.CPU, th.RLTick = 2, 100
		r := ule.NewRand(0, 0)
		// cpu3 busy breaks the SMT affinity test. The LLC group is llc{0-3} (affine at L3:
		// 1 < 3). sched_lowest(llc, pri 223): children last first. smt{2,3}: cpu3 lowpri 150
		// <= 223 is refused; cpu2 (preferred, p=128) draws 5%128 = 5: total 256-128 = 128.
		// smt{0,1}: total 0 < 128 wins. Its CPUs, highest first: cpu1 draws 36287%128 = 63,
		// load -63; cpu0 draws 53438%128 = 62, load -62, not better. cpu1.
		cpu, why := s.PickCPU(th, 0, 101, 0, false, &r)
		if cpu != 1 || why.Rule != ule.PickCPULLCIdle || why.LLC == nil || why.LLC.CPUs() != topology.CPURange(0, 3) {
			t.Fatalf("PickCPU = %d (%v), want 1 idle in llc{0-3}", cpu, why)
		}
	})
	t.Run("expired affinity: lower priority globally", func(t *testing.T) {
		s := mustSystem(t, p, twoCPU)
		busy(s, 0, 1, 150)
		busy(s, 1, 2, 120)
		th := newThread(1, 140, twoCPU)
		th.CPU, th.RLTick = 1, 100
		r := ule.NewRand(1, 0)
		// 110 - 100 >= 3: no cache group; the global search wants lowpri > 140: only cpu0.
		cpu, why := s.PickCPU(th, 1, 110, 0, false, &r)
		if cpu != 0 || why.Rule != ule.PickCPULowerPri || why.LLC != nil {
			t.Fatalf("PickCPU = %d (%v), want 0 running worse priority", cpu, why)
		}
	})
	t.Run("everything better: least loaded", func(t *testing.T) {
		s := mustSystem(t, p, twoCPU)
		busy(s, 0, 3, 100)
		busy(s, 1, 1, 100)
		th := newThread(1, 140, twoCPU)
		th.CPU, th.RLTick = 0, 0
		r := ule.NewRand(0, 0)
		// No CPU runs worse than 140; least loaded: cpu1 (256) over cpu0 (768 - 128).
		cpu, why := s.PickCPU(th, 0, 5000, 0, false, &r)
		if cpu != 1 || why.Rule != ule.PickCPULeastLoaded {
			t.Fatalf("PickCPU = %d (%v), want 1 least loaded", cpu, why)
		}
	})
	t.Run("local override", func(t *testing.T) {
		s := mustSystem(t, p, twoCPU)
		busy(s, 0, 1, 200)
		busy(s, 1, 1, 150)
		th := newThread(1, 120, twoCPU)
		th.CPU, th.RLTick = 1, 0
		r := ule.NewRand(0, 0)
		// The search prefers cpu1 (its load counts 128 less); but self (cpu0) runs worse
		// priority (200 > 120), cpu1 is busy and load(0) 1 <= load(1)+1: stay on cpu0.
		cpu, why := s.PickCPU(th, 0, 5000, 0, false, &r)
		if cpu != 0 || why.Rule != ule.PickCPULocal {
			t.Fatalf("PickCPU = %d (%v), want 0 by the local override", cpu, why)
		}
	})
	t.Run("ourself and pinned stay", func(t *testing.T) {
		s := mustSystem(t, p, twoCPU)
		th := newThread(1, 120, twoCPU)
		th.CPU = 1
		r := ule.NewRand(0, 0)
		if cpu, why := s.PickCPU(th, 0, 0, ule.SRQOurself, false, &r); cpu != 1 || why.Rule != ule.PickCPUStay {
			t.Errorf("SRQOurself: PickCPU = %d (%v)", cpu, why)
		}
		th.Pinned = 1
		if cpu, why := s.PickCPU(th, 0, 0, 0, false, &r); cpu != 1 || why.Rule != ule.PickCPUStay {
			t.Errorf("pinned: PickCPU = %d (%v)", cpu, why)
		}
	})
	t.Run("affinity mask", func(t *testing.T) {
		s := mustSystem(t, p, twoCPU)
		busy(s, 0, 4, 100)
		th := newThread(1, 140, twoCPU)
		th.CPU, th.RLTick = 1, 100
		th.Affinity = topology.CPUSetOf(0)
		r := ule.NewRand(0, 0)
		if cpu, why := s.PickCPU(th, 1, 101, 0, false, &r); cpu != 0 {
			t.Errorf("PickCPU = %d (%v), want 0, the only allowed CPU", cpu, why)
		}
	})
	t.Run("interrupt thread on idle self", func(t *testing.T) {
		s := mustSystem(t, p, twoCPU)
		th := newThread(1, 5, twoCPU)
		th.Class, th.CPU = ule.ClassIthd, 1
		r := ule.NewRand(0, 0)
		if cpu, why := s.PickCPU(th, 0, 0, 0, true, &r); cpu != 0 || why.Rule != ule.PickCPUIntrIdle {
			t.Errorf("PickCPU = %d (%v), want 0", cpu, why)
		}
	})
	t.Run("LLC locality beats idle elsewhere", func(t *testing.T) {
		s := mustSystem(t, p, fourLLC)
		for c := topology.CPU(6); c <= 11; c++ {
			if c != 10 {
				busy(s, c, 1, 150)
			}
		}
		th := newThread(1, 140, fourLLC)
		th.CPU, th.RLTick = 7, 100
		r := ule.NewRand(20, 0)
		// cpu7 is busy; llc{6-11} is affine (1 < 3); its only idle CPU is cpu10. Self
		// (cpu20) idles, so the local override does not apply (it needs a busy target).
		cpu, why := s.PickCPU(th, 20, 101, 0, false, &r)
		if cpu != 10 || why.Rule != ule.PickCPULLCIdle {
			t.Fatalf("PickCPU = %d (%v), want 10 in the thread's LLC", cpu, why)
		}
	})
	t.Run("legacy affinity is signed", func(t *testing.T) {
		s := mustSystem(t, ule.LegacyParams(), twoCPU)
		th := newThread(1, 140, twoCPU)
		th.CPU, th.RLTick = 1, 1<<31-6
		r := ule.NewRand(0, 0)
		// 11 ticks after ts_rltick, across the signed wrap: legacy's int test
		// ts_rltick (INT_MAX-5) > ticks - 2 (INT_MIN+3) holds, so the stale cache still
		// counts as warm; main's unsigned ticks - ts_rltick = 11 < 2 does not.
		if cpu, why := s.PickCPU(th, 0, 1<<31+5, 0, false, &r); cpu != 1 || why.Rule != ule.PickCPUAffinity {
			t.Errorf("legacy PickCPU = %d (%v), want 1 by affinity", cpu, why)
		}
		m := mustSystem(t, p, twoCPU)
		if _, why := m.PickCPU(th, 0, 1<<31+5, 0, false, &r); why.Rule == ule.PickCPUAffinity {
			t.Errorf("main PickCPU used affinity: %v", why)
		}
	})
}

func TestStealFrom(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    ule.Params
		want int
	}{
		{"main takes the first eligible", ule.DefaultParams(), 1},
		{"legacy skips the head", ule.LegacyParams(), 2},
	} {
		c := ule.NewCPUState(0, &tc.p)
		for i := 1; i <= 3; i++ {
			c.Add(newThread(i, 200, twoCPU), 0) // same priority: one calendar queue, FIFO
		}
		if got, _ := ule.StealFrom(c, 1); got == nil || int(got.ID) != tc.want {
			t.Errorf("%s: StealFrom = %v, want t%d", tc.name, got, tc.want)
		}
	}
	p := ule.LegacyParams()
	c := ule.NewCPUState(0, &p)
	only := newThread(1, 200, twoCPU)
	c.Add(only, 0)
	if got, _ := ule.StealFrom(c, 1); got != only {
		t.Errorf("legacy with a lone thread: StealFrom = %v, want it as the last resort", got)
	}
	// Main in 2024 (@366ae94e) sets first once: the head is the fallback even though the
	// thread visited after it may not run on the thief.
	notThere := newThread(2, 210, twoCPU)
	notThere.Affinity = topology.CPUSetOf(0)
	c.Add(notThere, 0)
	if got, _ := ule.StealFrom(c, 1); got != only {
		t.Errorf("legacy, second thread not allowed: StealFrom = %v, want the head", got)
	}
	pinned := newThread(3, 20, twoCPU)
	pinned.Pinned = 1
	c.Add(pinned, 0)
	if got, _ := ule.StealFrom(c, 1); got != only {
		t.Errorf("pinned real-time thread: StealFrom = %v, want the batch head", got)
	}
	// FreeBSD 10-14 (@d8d5f036): first = td for every thread visited, so the fallback tests
	// the last thread visited, notThere, which may not run on cpu1: nothing is stolen.
	p.CalendarSteal = ule.StealSkipPrevious
	if got, _ := ule.StealFrom(c, 1); got != nil {
		t.Errorf("StealSkipPrevious, tail not allowed: StealFrom = %v, want nil", got)
	}
	p.CalendarSteal = ule.StealSkipFirst
	c.Remove(only)
	if got, _ := ule.StealFrom(c, 1); got != nil {
		t.Errorf("nothing eligible: StealFrom = %v", got)
	}
	idle := newThread(4, 240, twoCPU)
	idle.Class = ule.ClassIdle
	c.Add(idle, 0)
	if got, _ := ule.StealFrom(c, 1); got != idle {
		t.Errorf("idle range: StealFrom = %v", got)
	}
}

// The four forms of the calendar steal on queues whose first thread is eligible and whose last
// is not, worked out from runq_steal_from in each source (see CalendarSteal for the commits:
// freebsd/freebsd-src @d8d5f036 and sobomax/freebsd14_vendor @0f7ff342 for SkipPrevious,
// OlCe2/freebsd-src @366ae94e for SkipFirst, oza/FreeBSD-8.0-dyntick @cff798ab for
// OneQueue). Legacy placement with tdq_idx = tdq_ridx = r: priority p goes to queue
// (64*(p-136)/88 + r) % 64, so at r = 0 priority 200 is queue 46, 205 queue 50, 210 queue 53,
// 220 queue 61; at r = 5 they are 51, 55, 58 and 2.
func TestStealFromCalendarForms(t *testing.T) {
	type th struct {
		pri     uint8
		allowed bool // may run on the thief, cpu1
	}
	all := []ule.CalendarSteal{ule.StealFirstEligible, ule.StealSkipFirst, ule.StealSkipPrevious, ule.StealOneQueue}
	for _, tc := range []struct {
		name string
		ridx uint8
		ths  []th
		want [4]int // thread number (1-based) per form in the order of all, 0 for nil
	}{
		// One queue [t1 allowed, t2 not], ridx 0, so a single pass. FirstEligible: t1.
		// SkipFirst: first = t1, t2 refused, fallback t1. SkipPrevious and OneQueue: first =
		// t1, t2 refused and first = t2; the fallback tests t2 (refused; OneQueue has no
		// fallback at all): nil.
		{"head allowed, tail not, ridx 0", 0, []th{{200, true}, {200, false}}, [4]int{1, 1, 0, 0}},
		// The same queue at 51 with ridx 5: the second pass from queue 0 visits t1 again with
		// first set, and every form takes it.
		{"head allowed, tail not, ridx 5", 5, []th{{200, true}, {200, false}}, [4]int{1, 1, 1, 1}},
		// Two queues at 46 [t1] and 53 [t2 allowed, t3 not]: t2 follows a visited thread in
		// every skipping form except OneQueue, whose only pass looks at queue 46 and has no
		// fallback.
		{"two queues, ridx 0", 0, []th{{200, true}, {210, true}, {210, false}}, [4]int{1, 2, 2, 0}},
		// ridx 5: t1 at 51, t2 at 55, t3 (refused) at 2. FirstEligible runs from 5: t1.
		// SkipFirst and SkipPrevious: first = t1, then t2 is allowed: t2. OneQueue: pass 1
		// looks at 51 only (first set), pass 2 at 2 only: t3 refused, no fallback: nil.
		{"one queue per pass, ridx 5", 5, []th{{200, true}, {205, true}, {220, false}}, [4]int{1, 2, 2, 0}},
		// A lone thread below ridx (queue 2 at ridx 5): pass 1 finds nothing; pass 2 visits it
		// first. SkipFirst and SkipPrevious fall back to it; OneQueue (8.0) cannot steal it.
		{"lone thread below ridx", 5, []th{{220, true}}, [4]int{1, 1, 1, 0}},
		// A lone thread at or after ridx: OneQueue's second pass revisits it with first set.
		{"lone thread above ridx", 5, []th{{200, true}}, [4]int{1, 1, 1, 1}},
		// ridx 0 and a lone thread: OneQueue makes one pass and never returns the first thread.
		{"lone thread, ridx 0", 0, []th{{200, true}}, [4]int{1, 1, 1, 0}},
	} {
		for i, mode := range all {
			t.Run(fmt.Sprintf("%s/%v", tc.name, mode), func(t *testing.T) {
				p := ule.LegacyParams()
				p.CalendarSteal = mode
				c := ule.NewCPUState(0, &p)
				c.Idx, c.Ridx = tc.ridx, tc.ridx
				for j, x := range tc.ths {
					th := newThread(j+1, x.pri, twoCPU)
					if !x.allowed {
						th.Affinity = topology.CPUSetOf(0)
					}
					c.Add(th, 0)
				}
				got, _ := ule.StealFrom(c, 1)
				gotID := 0
				if got != nil {
					gotID = int(got.ID)
				}
				if gotID != tc.want[i] {
					t.Errorf("StealFrom(%v, ridx %d) = t%d, want t%d (0 = nil)", mode, tc.ridx, gotID, tc.want[i])
				}
			})
		}
	}
}

// Legacy runq_steal_from(rq, cpu, start) (OlCe2/freebsd-src sys/kern/sched_ule.c @366ae94e)
// scans from start = tdq_ridx to the last queue and then, because start != 0, once more from
// queue 0. With tdq_idx = tdq_ridx = 5, priority 136 lands in queue (64*0/88 + 5) % 64 = 5 and
// priority 220 in (64*84/88 + 5) % 64 = (61 + 5) % 64 = 2, behind the removal index.
func TestStealFromLegacyWraps(t *testing.T) {
	p := ule.LegacyParams()
	for _, tc := range []struct {
		name      string
		pris      []uint8 // added in order as threads 1, 2, …
		wantID    int
		wantQueue runq.Index
	}{
		// Pass 1 visits the head (136, queue 5) and sets it aside as first; queues 6..63 are
		// empty; pass 2 from queue 0 reaches queue 2, where thread 2 is eligible and first is
		// set: it is returned, and the head stays for the victim.
		{"second pass finds a thread below ridx", []uint8{136, 220}, 2, 2},
		// Pass 1 finds nothing; pass 2 visits thread 1 in queue 2 first and sets it aside;
		// nothing else qualifies, so the eligible first is returned.
		{"only a thread below ridx", []uint8{220}, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ule.NewCPUState(0, &p)
			c.Idx, c.Ridx = 5, 5
			for i, pri := range tc.pris {
				c.Add(newThread(i+1, pri, twoCPU), 0)
			}
			got, _ := ule.StealFrom(c, 1)
			if got == nil || int(got.ID) != tc.wantID {
				t.Fatalf("StealFrom(ridx 5, pris %v) = %v, want t%d", tc.pris, got, tc.wantID)
			}
			if q, _ := got.Index(); q != tc.wantQueue {
				t.Errorf("StealFrom(ridx 5, pris %v) took t%d from queue %d, want queue %d", tc.pris, tc.wantID, q, tc.wantQueue)
			}
		})
	}
}

// load puts n threads of priority pri on cpu: one running, the rest queued.
func load(s *ule.System, cpu topology.CPU, n int, pri uint8, id *int, mod func(*ule.Thread)) {
	c := s.CPU(cpu)
	for range n {
		*id++
		th := newThread(*id, pri, s.Topology())
		if mod != nil {
			mod(th)
		}
		c.Add(th, 0)
	}
	if n > 0 {
		c.Choose()
	}
}

func TestSteal(t *testing.T) {
	p := ule.DefaultParams()
	t.Run("sibling group before the other socket", func(t *testing.T) {
		s := mustSystem(t, p, twoSMT)
		id := 0
		load(s, 1, 1, 150, &id, nil)
		load(s, 2, 3, 150, &id, nil)
		load(s, 5, 4, 150, &id, nil)
		r := ule.NewRand(0, 0)
		// smt{0,1}: cpu1 has load 1 < steal_thresh. llc{0-3} has two children: search the
		// sibling smt{2,3}: cpu2 (load 3, 2 transferable). cpu5 is more loaded but farther.
		victim, th, why := s.Steal(0, 0, &r)
		if th == nil || victim != 2 || why.Rule != ule.StealFound || why.Group.CPUs() != topology.CPURange(2, 3) || why.Searches != 2 {
			t.Fatalf("Steal = cpu%d %v (%v), want cpu2 found in smt{2,3} after 2 searches", victim, th, why)
		}
		checkCPUs(t, s)
	})
	t.Run("refused victim, climb two levels", func(t *testing.T) {
		s := mustSystem(t, p, twoSMT)
		id := 0
		load(s, 2, 3, 150, &id, func(th *ule.Thread) { th.Affinity = topology.CPUSetOf(2) })
		load(s, 5, 4, 150, &id, nil)
		r := ule.NewRand(0, 0)
		// cpu2's threads may not run on cpu0: refused and dropped from the mask; smt{2,3}
		// again: nothing; back to llc{0-3}, whose parent has two children: llc{4-7}: cpu5.
		victim, th, why := s.Steal(0, 0, &r)
		if th == nil || victim != 5 || why.Refused != 1 || why.Group.CPUs() != topology.CPURange(4, 7) {
			t.Fatalf("Steal = cpu%d %v (%v), want cpu5 from llc{4-7} after one refusal", victim, th, why)
		}
	})
	t.Run("trysteal stops at its level limit", func(t *testing.T) {
		s := mustSystem(t, p, fourLLC)
		id := 0
		load(s, 14, 3, 150, &id, nil)
		r := ule.NewRand(0, 0)
		// Level 1: smt{0,1}; level 2: llc{0-5} (three children, so no sibling shortcut);
		// level 3 would be the machine, beyond trysteal_limit 2.
		if _, th, why := s.Steal(0, 2, &r); th != nil || why.Rule != ule.StealNone || why.Searches != 2 {
			t.Fatalf("trysteal = %v (%v), want nothing after 2 searches", th, why)
		}
		victim, th, why := s.Steal(0, 0, &r)
		if th == nil || victim != 14 || why.Searches != 3 {
			t.Fatalf("idled = cpu%d %v (%v), want cpu14 after 3 searches", victim, th, why)
		}
	})
	// tdq_trysteal (mchoo7/freebsd-src sys/kern/sched_ule.c @3521c70f) starts with i = 1 and
	// gives up when ++i > trysteal_limit: with a limit of 1 only the thief's own leaf group is
	// searched, and a victim tdq_move cannot rob (-1) ends the search at once (break), where
	// tdq_idled would drop it from the mask and search on. With nothing found, Steal returns
	// the zero CPU.
	t.Run("trysteal limit 1 searches the leaf only", func(t *testing.T) {
		s := mustSystem(t, p, twoSMT)
		id := 0
		load(s, 2, 3, 150, &id, nil)
		r := ule.NewRand(0, 0)
		// smt{0,1} has no CPU with load >= 2; ++i = 2 > 1: stop before the sibling smt{2,3}.
		victim, th, why := s.Steal(0, 1, &r)
		if victim != 0 || th != nil || why.Rule != ule.StealNone || why.Searches != 1 {
			t.Fatalf("trysteal(limit 1) = cpu%d %v (%v), want cpu0 <nil>, nothing after 1 search", victim, th, why)
		}
	})
	t.Run("trysteal stops at a refused victim", func(t *testing.T) {
		s := mustSystem(t, p, topology.Uniform(1, 1, 1, 4, 1))
		id := 0
		load(s, 1, 4, 150, &id, func(th *ule.Thread) { th.Affinity = topology.CPUSetOf(1) })
		load(s, 2, 3, 150, &id, nil)
		r := ule.NewRand(0, 0)
		// sched_highest picks cpu1 (load 4, 3 transferable) but none of its threads may run on
		// cpu0: tdq_trysteal breaks; cpu2 is never tried.
		victim, th, why := s.Steal(0, 1, &r)
		if victim != 0 || th != nil || why.Rule != ule.StealNone || why.Refused != 1 || why.Searches != 1 {
			t.Fatalf("trysteal(limit 1) = cpu%d %v (%v), want cpu0 <nil>, nothing after 1 search and 1 refusal", victim, th, why)
		}
		// tdq_idled drops cpu1 from the mask and finds cpu2 in the same group.
		victim, th, why = s.Steal(0, 0, &r)
		if victim != 2 || th == nil || why.Refused != 1 || why.Searches != 2 {
			t.Fatalf("idled = cpu%d %v (%v), want cpu2 after 2 searches and 1 refusal", victim, th, why)
		}
	})
	t.Run("thresholds", func(t *testing.T) {
		s := mustSystem(t, p, twoCPU)
		id := 0
		load(s, 1, 1, 150, &id, nil)
		r := ule.NewRand(0, 0)
		if _, th, why := s.Steal(0, 0, &r); th != nil || why.Rule != ule.StealNone {
			t.Errorf("load 1 < steal_thresh 2: Steal = %v (%v)", th, why)
		}
		load(s, 0, 1, 150, &id, nil)
		if victim, th, why := s.Steal(0, 0, &r); victim != 0 || th != nil || why.Rule != ule.StealHasWork {
			t.Errorf("thief busy: Steal = cpu%d %v (%v), want cpu0 <nil>", victim, th, why)
		}
		q := p
		q.StealIdle = false
		s2 := mustSystem(t, q, twoCPU)
		if victim, th, why := s2.Steal(0, 0, &r); victim != 0 || th != nil || why.Rule != ule.StealDisabled {
			t.Errorf("steal_idle 0: Steal = cpu%d %v (%v), want cpu0 <nil>", victim, th, why)
		}
	})
}

func TestMoveAndBalance(t *testing.T) {
	p := ule.DefaultParams()
	t.Run("one move per donor", func(t *testing.T) {
		s := mustSystem(t, p, fourLLC)
		id := 0
		load(s, 3, 6, 150, &id, nil)
		r := ule.NewRand(0, 0)
		moves := s.Balance(0, &r, nil)
		// sched_balance_group: cpu3 is the only CPU with load; it gives one thread to the
		// least loaded CPU and leaves the donor mask; nobody else has load: done.
		if len(moves) != 1 || moves[0].From != 3 || moves[0].PickCPU || moves[0].Kick != ule.KickIdle {
			t.Fatalf("Balance = %+v, want one move from cpu3 waking an idle CPU", moves)
		}
		if s.CPU(3).Load() != 5 || s.CPU(moves[0].To).Load() != 1 || moves[0].Thread.CPU != moves[0].To {
			t.Fatalf("loads after the move: cpu3 %d, cpu%d %d", s.CPU(3).Load(), moves[0].To, s.CPU(moves[0].To).Load())
		}
		checkCPUs(t, s)
	})
	t.Run("lone running thread is asked to move", func(t *testing.T) {
		s := mustSystem(t, p, twoCPU)
		id := 0
		load(s, 0, 1, 150, &id, nil)
		r := ule.NewRand(0, 0)
		moves := s.Balance(0, &r, nil)
		if len(moves) != 1 || !moves[0].PickCPU || moves[0].Kick != ule.KickAST || !s.CPU(0).Cur.PickCPU {
			t.Fatalf("Balance = %+v, want TDF_PICKCPU on cpu0's thread", moves)
		}
	})
	t.Run("balanced machine: nothing", func(t *testing.T) {
		s := mustSystem(t, p, twoCPU)
		id := 0
		load(s, 0, 2, 150, &id, nil)
		load(s, 1, 2, 150, &id, nil)
		r := ule.NewRand(0, 0)
		// The donor needs a receiver with load <= its load - 1 = 1: none.
		if moves := s.Balance(0, &r, nil); len(moves) != 0 {
			t.Fatalf("Balance = %+v, want nothing", moves)
		}
	})
	t.Run("move respects affinity", func(t *testing.T) {
		s := mustSystem(t, p, twoCPU)
		id := 0
		load(s, 0, 3, 150, &id, func(th *ule.Thread) { th.Affinity = topology.CPUSetOf(0) })
		if th, _ := s.Move(0, 1); th != nil {
			t.Fatalf("Move took %v, which may not run on cpu1", th)
		}
		r := ule.NewRand(0, 0)
		if moves := s.Balance(0, &r, nil); len(moves) != 0 {
			t.Fatalf("Balance = %+v, want nothing movable", moves)
		}
	})
}

// checkCPUs checks the load counts of every CPU of s against its queues.
func checkCPUs(t *testing.T, s *ule.System) {
	t.Helper()
	for c := range s.Topology().CPUs().All() {
		cs := s.CPU(c)
		n := 0
		for range cs.Queued() {
			n++
		}
		if cs.Cur != nil {
			n++
		}
		if n != cs.Load() {
			t.Fatalf("cpu%d: load %d, counted %d", c, cs.Load(), n)
		}
	}
}

// TestBalanceLastDonorRepicks follows sched_balance_group (sched_ule.c @3521c70f and OlCe2
// @366ae94e): hmask starts as CPU_FILL, every id of a cpuset_t, so on a machine with fewer than
// MAXCPU CPUs the low mask still holds ids of absent CPUs and CPU_EMPTY never stops the loop.
// Here cpu0 (load 3) can give nothing (its queued threads are pinned), and cpu1, the next
// donor, runs its only thread: the kernel asks that thread to pick a CPU again (TDF_PICKCPU
// and an AST), even though no real CPU is left for low.
func TestBalanceLastDonorRepicks(t *testing.T) {
	s := mustSystem(t, ule.DefaultParams(), twoCPU)
	id := 0
	load(s, 0, 3, 150, &id, func(th *ule.Thread) { th.Pinned = 1 })
	load(s, 1, 1, 150, &id, nil)
	if s.CPU(0).Load() != 3 || s.CPU(0).Transferable() != 0 || s.CPU(1).Load() != 1 {
		t.Fatalf("setup: loads %d %d, cpu0 transferable %d", s.CPU(0).Load(), s.CPU(1).Load(), s.CPU(0).Transferable())
	}
	r := ule.NewRand(0, 0)
	moves := s.Balance(0, &r, nil)
	if len(moves) != 1 || !moves[0].PickCPU || moves[0].From != 1 || !s.CPU(1).Cur.PickCPU {
		t.Errorf("Balance = %+v, want one PickCPU request on cpu1's running thread", moves)
	}
}

// StealFrom's reason names where the thread came from: worked from the same queues as
// TestStealFrom (a lone calendar thread is runq_steal_from's fallback in legacy and an eligible
// thread met by the scan in main; a real-time and an idle-class thread by runq_steal).
func TestStealFromReason(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     ule.Params
		class ule.Class
		pri   uint8
		want  ule.StealFromRule
	}{
		{"main, lone calendar thread", ule.DefaultParams(), ule.ClassTimeshare, 200, ule.StealFromCalendar},
		{"legacy, lone calendar thread", ule.LegacyParams(), ule.ClassTimeshare, 200, ule.StealFromFallback},
		{"main, real-time range", ule.DefaultParams(), ule.ClassTimeshare, 20, ule.StealFromRealtime},
		{"legacy, real-time queue", ule.LegacyParams(), ule.ClassTimeshare, 20, ule.StealFromRealtime},
		{"main, idle range", ule.DefaultParams(), ule.ClassIdle, 240, ule.StealFromIdleClass},
		{"legacy, idle queue", ule.LegacyParams(), ule.ClassIdle, 240, ule.StealFromIdleClass},
	} {
		c := ule.NewCPUState(0, &tc.p)
		th := newThread(1, tc.pri, twoCPU)
		th.Class = tc.class
		c.Add(th, 0)
		got, why := ule.StealFrom(c, 1)
		q, _ := th.Link.Index()
		if got != th || why.Rule != tc.want || why.Queue != q || why.Form != tc.p.CalendarSteal {
			t.Errorf("%s: StealFrom = %v (%v), want t1 by rule %d from queue %d", tc.name, got, why, tc.want, q)
		}
		th.Affinity = topology.CPUSetOf(0)
		if got, why := ule.StealFrom(c, 1); got != nil || why.Rule != ule.StealFromNothing {
			t.Errorf("%s, pinned to cpu0 by affinity: StealFrom = %v (%v), want nothing", tc.name, got, why)
		}
	}
}
