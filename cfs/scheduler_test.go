package cfs

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// schedVersions are the versions every Scheduler scenario runs under.
var schedVersions = []Version{V65, V66, V618, V71}

// forVersions runs f as a subtest "v=…" for each of schedVersions.
func forVersions(t *testing.T, f func(t *testing.T, v Version)) {
	t.Helper()
	for _, v := range schedVersions {
		t.Run("v="+v.String(), func(t *testing.T) { f(t, v) })
	}
}

func TestSchedulerTwoHogsOneCPU(t *testing.T) {
	forVersions(t, func(t *testing.T, v Version) {
		m := newSMPMachine(t, topology.Uniform(1, 1, 1, 1, 1), 1000, vparams(v))
		m.check = func() { m.checkInvariants() }
		a := m.spawn(0, sched.Attr{}, behaviour{})
		b := m.spawn(0, sched.Attr{}, behaviour{})
		m.run(2000)
		ra, rb := m.threads[a].ran, m.threads[b].ran
		if ra+rb != 2000 {
			t.Fatalf("ran %d + %d ticks, want 2000", ra, rb)
		}
		if ra < 950 || ra > 1050 {
			t.Errorf("hog a ran %d of 2000 ticks, want 50%% ± 2.5%%", ra)
		}
	})
}

func TestSchedulerSpreadsHogs(t *testing.T) {
	for _, tc := range []struct {
		name string
		topo *topology.Topology
	}{
		{"TwoCPU", topology.TwoCPU()},
		{"TwoSocketSMT", topology.TwoSocketSMT()},
		{"FourLLC", topology.FourLLC()},
		{"FourNode", topology.FourNode()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forVersions(t, func(t *testing.T, v Version) {
				m := newSMPMachine(t, tc.topo, 250, vparams(v))
				m.check = func() { m.checkInvariants() }
				n := tc.topo.NumCPUs()
				for range n {
					m.spawn(0, sched.Attr{}, behaviour{})
				}
				m.run(2000)
				for c, k := range m.perCPU() {
					if k != 1 {
						t.Fatalf("after 8 s, cpu%d has %d hogs, want 1 each: %v", c, k, m.perCPU())
					}
				}
			})
		})
	}
}

func TestSchedulerNewidlePull(t *testing.T) {
	forVersions(t, func(t *testing.T, v Version) {
		m := newSMPMachine(t, topology.TwoCPU(), 1000, vparams(v))
		m.check = func() { m.checkInvariants() }
		only0 := topology.CPUSetOf(0)
		a := m.spawn(0, sched.Attr{Affinity: only0}, behaviour{})
		b := m.spawn(0, sched.Attr{Affinity: only0}, behaviour{})
		// The sleeper is forked from cpu0, so it starts with half of cpu0's small spare
		// capacity as its utilisation; cpu1's spare capacity, what a migrate_util balance
		// moves, then exceeds either hog's utilisation.
		c := m.spawn(0, sched.Attr{Affinity: topology.CPUSetOf(1)}, behaviour{run: 3, sleep: 1 << 30})
		if m.running[1] != c {
			t.Fatalf("cpu1 runs %v, want the sleeper %v", m.running[1], c)
		}
		// Free the hogs; they stay queued on cpu0 until someone pulls.
		for _, id := range []sched.ID{a, b} {
			m.s.SetAttr(m.now(), id, sched.Attr{})
		}
		m.settle()
		if got := m.perCPU(); got[0] != 2 {
			t.Fatalf("before the sleep: per CPU %v, want both hogs on cpu0", got)
		}
		m.run(3) // the sleeper sleeps at its third tick; cpu1 goes newly idle
		if th := m.threads[c]; th.ran != 3 || !th.asleep {
			t.Fatalf("tick %d: the sleeper ran %d ticks, asleep %t; want 3, asleep", m.tick, th.ran, th.asleep)
		}
		if id := m.running[1]; id != a && id != b {
			t.Fatalf("after the sleep, cpu1 runs %v, want a hog pulled by newidle_balance", id)
		}
	})
}

func TestSchedulerPinnedNeverMoves(t *testing.T) {
	forVersions(t, testSchedulerPinnedNeverMoves)
}

func testSchedulerPinnedNeverMoves(t *testing.T, v Version) {
	topo := topology.FourLLC()
	m := newSMPMachine(t, topo, 250, vparams(v))
	var pinned []sched.ID
	for c := range topology.CPU(6) {
		pinned = append(pinned, m.spawn(c, sched.Attr{Affinity: topology.CPUSetOf(c)}, behaviour{}))
		pinned = append(pinned, m.spawn(c, sched.Attr{Affinity: topology.CPUSetOf(c)}, behaviour{run: 2, sleep: 3}))
	}
	for range 30 {
		m.spawn(0, sched.Attr{}, behaviour{run: 5, sleep: 2})
	}
	m.check = func() {
		m.checkInvariants()
		for _, id := range pinned {
			task, _ := m.s.Thread(id)
			if task.migrations() != 0 {
				t.Fatalf("tick %d: pinned %v migrated %d times", m.tick, id, task.migrations())
			}
		}
	}
	m.run(1000)
	for i, id := range pinned {
		th := m.threads[id]
		c := i / 2
		if th.ran == 0 || th.cpus[c] != th.ran {
			t.Errorf("pinned %v ran %d ticks, %d of them on its cpu%d", id, th.ran, th.cpus[c], c)
		}
	}
}

// runOn reports how many ticks the machine's threads ran on each CPU.
func (m *smpMachine) runOn() []int {
	per := make([]int, m.topo.NumIDs())
	for _, th := range m.threads {
		for c, k := range th.cpus {
			per[c] += k
		}
	}
	return per
}

// TestSchedulerWastedCoresGroupConstruction reproduces the "Scheduling Group Construction" bug
// of Lozi et al. (EuroSys 2016, section 3.2) on topology.FourNode: nodes 1 (cpu2-3) and 2
// (cpu4-5) are 22 apart, the farthest pair. An application of n hogs pinned to those two nodes
// and started on cpu2 stays on node 1 when every CPU shares the machine-wide NUMA groups built
// from cpu0's perspective ({0-5} and {2-7}: both nodes are in both groups, so every CPU of node 2
// sees node 1 as part of its local group), and spreads over both nodes with per-CPU groups.
func TestSchedulerWastedCoresGroupConstruction(t *testing.T) {
	app := topology.CPUSetOf(2, 3, 4, 5)
	for _, n := range []int{6, 8, 16} {
		for _, mode := range []smp.GroupConstruction{smp.GroupsPerCPU, smp.GroupsFirstCPU} {
			for _, v := range schedVersions {
				t.Run(fmt.Sprintf("hogs=%d/groups=%v/v=%v", n, mode, v), func(t *testing.T) {
					testWastedCores(t, v, n, mode, app)
				})
			}
		}
	}
}

func testWastedCores(t *testing.T, v Version, n int, mode smp.GroupConstruction, app topology.CPUSet) {
	sp := defaultSMPParams(v)
	sp.Groups = mode
	m := newSMPMachine(t, topology.FourNode(), 250, func() Params { p := vparams(v); p.SMP = sp; return p }())
	m.check = func() { m.checkInvariants() }
	for range n {
		m.spawn(2, sched.Attr{Affinity: app}, behaviour{})
	}
	m.run(1000)
	per := m.runOn()
	node1, node2 := per[2]+per[3], per[4]+per[5]
	if node1+node2 != 0 && per[0]+per[1]+per[6]+per[7] != 0 {
		t.Fatalf("pinned hogs ran outside cpu2-5: %v", per)
	}
	switch mode {
	case smp.GroupsFirstCPU:
		if node2 != 0 {
			t.Errorf("with the bug, node 2 ran the app for %d CPU-ticks, want 0 (per CPU %v)", node2, per)
		}
		if node1 != 2000 {
			t.Errorf("with the bug, node 1 ran %d CPU-ticks, want 2000 (both CPUs busy)", node1)
		}
	case smp.GroupsPerCPU:
		if node2 < 1900 || node1 < 1900 {
			t.Errorf("without the bug, nodes 1 and 2 ran %d and %d CPU-ticks, want both CPUs of each busy (per CPU %v)", node1, node2, per)
		}
	}
}

// TestSchedulerFourLLCConverges starts 23 hogs on cpu0 of topology.FourLLC (4 LLCs × 3 cores
// × 2 threads) and checks that balancing spreads them to 6, 6, 6 and 5 hogs per LLC with one
// hog per CPU; and that 12 hogs end up one per core, never two on SMT siblings while a core is
// idle.
func TestSchedulerFourLLCConverges(t *testing.T) {
	topo := topology.FourLLC()
	for _, n := range []int{23, 12, 8} {
		t.Run(fmt.Sprintf("hogs=%d", n), func(t *testing.T) {
			forVersions(t, func(t *testing.T, v Version) { testFourLLCConverges(t, topo, v, n) })
		})
	}
}

func testFourLLCConverges(t *testing.T, topo *topology.Topology, v Version, n int) {
	m := newSMPMachine(t, topo, 250, vparams(v))
	m.check = func() { m.checkInvariants() }
	var ids []sched.ID
	for range n {
		ids = append(ids, m.spawn(0, sched.Attr{Affinity: topology.CPUSetOf(0)}, behaviour{}))
	}
	for _, id := range ids {
		m.s.SetAttr(m.now(), id, sched.Attr{})
	}
	m.settle()
	m.run(250) // one second
	per := m.perCPU()
	llc := map[topology.CPU]int{}
	cores := 0
	for c := range topo.CPUs().All() {
		if per[c] > 1 {
			t.Fatalf("cpu%d has %d hogs: %v", c, per[c], per)
		}
		llc[m.s.sys.ds.llcid(c)] += per[c]
		if sib := topo.Siblings(c); c == firstCPU(sib) {
			busy := 0
			for s := range sib.All() {
				busy += per[s]
			}
			if busy > 0 {
				cores++
			}
		}
	}
	lo, hi := n, 0
	for _, k := range llc {
		lo, hi = min(lo, k), max(hi, k)
	}
	if hi-lo > 1 {
		t.Errorf("hogs per LLC %v, want balanced (differ by at most 1)", llc)
	}
	if want := min(n, 12); cores != want {
		t.Errorf("%d hogs occupy %d cores, want %d (no SMT siblings shared while a core idles): %v", n, cores, want, per)
	}
}

func firstCPU(s topology.CPUSet) topology.CPU {
	c, _ := s.First()
	return c
}

// TestSchedulerBigLittleMisfit runs two hogs on the little cores of topology.BigLittle and
// checks that misfit balancing moves them to the big cores' CPUs.
func TestSchedulerBigLittleMisfit(t *testing.T) {
	forVersions(t, testBigLittleMisfit)
}

func testBigLittleMisfit(t *testing.T, v Version) {
	topo := topology.BigLittle()
	m := newSMPMachine(t, topo, 250, vparams(v))
	m.check = func() { m.checkInvariants() }
	little := topology.CPUSetOf(4, 5, 6, 7)
	a := m.spawn(4, sched.Attr{Affinity: little}, behaviour{})
	b := m.spawn(5, sched.Attr{Affinity: little}, behaviour{})
	m.run(50)
	for _, id := range []sched.ID{a, b} {
		m.s.SetAttr(m.now(), id, sched.Attr{})
	}
	m.settle()
	m.run(250)
	per := m.perCPU()
	if per[4]+per[5]+per[6]+per[7] != 0 {
		t.Errorf("hogs still on little CPUs: %v", per)
	}
}

func TestSchedulerExplains(t *testing.T) {
	forVersions(t, testSchedulerExplains)
}

func testSchedulerExplains(t *testing.T, v Version) {
	m := newSMPMachine(t, topology.TwoCPU(), 1000, vparams(v))
	m.env.explaining = true
	only0 := topology.CPUSetOf(0)
	var ids []sched.ID
	for range 3 {
		ids = append(ids, m.spawn(0, sched.Attr{Affinity: only0}, behaviour{}))
	}
	for _, id := range ids {
		m.s.SetAttr(m.now(), id, sched.Attr{})
	}
	m.run(100)
	var placed, balanced bool
	for _, l := range m.env.log {
		placed = placed || strings.Contains(l, "placed on cpu0")
		balanced = balanced || strings.Contains(l, "busiest group {0}")
	}
	if !placed || !balanced {
		t.Errorf("explanations lack a placement (%t) or a balance from cpu0 (%t):\n%s", placed, balanced, strings.Join(m.env.log, "\n"))
	}
}

func TestSchedulerMisuse(t *testing.T) {
	forVersions(t, testSchedulerMisuse)
}

func testSchedulerMisuse(t *testing.T, v Version) {
	s := mustNew(t, vparams(v))
	if err := s.Start(sched.Config{}, &fakeEnv{tb: t}); err == nil {
		t.Errorf("Start with an empty config succeeded")
	}
	if err := s.Start(sched.Config{Topology: topology.TwoCPU(), Hz: 250}, &fakeEnv{tb: t}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddGroup(sched.Group{ID: 2, Parent: 5, Weight: 100}); err == nil {
		t.Errorf("AddGroup with a missing parent succeeded")
	}
	if err := s.AddGroup(sched.Group{ID: 1, Weight: 100}); err != nil {
		t.Errorf("AddGroup: %v", err)
	}
	if err := s.AddGroup(sched.Group{ID: 1, Weight: 100}); err == nil {
		t.Errorf("AddGroup of an existing group succeeded")
	}
	s.Fork(0, 0, -1, 0, sched.Attr{Class: sched.FIFO, RTPrio: 10})
	if s.Err() == nil {
		t.Errorf("a FIFO thread did not record an error")
	}
	if got, want := s.Name(), "cfs-"+v.String(); got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
	if s.TickHz() != 250 {
		t.Errorf("TickHz() = %d, want 250", s.TickHz())
	}
	defer func() {
		if r := recover(); r == nil {
			t.Errorf("Wakeup of an unknown thread did not panic")
		}
	}()
	s.Wakeup(0, 7, 0, 0)
}

// TestSchedulerGroupsAndAttrs runs two groups of weight 100 and 300 on one CPU, with a nice
// change, a SCHED_IDLE switch and a move between groups on the way, and checks the shares.
func TestSchedulerGroupsAndAttrs(t *testing.T) {
	forVersions(t, testSchedulerGroupsAndAttrs)
}

func testSchedulerGroupsAndAttrs(t *testing.T, v Version) {
	m := newSMPMachine(t, topology.Uniform(1, 1, 1, 1, 1), 1000, vparams(v))
	m.check = func() { m.checkInvariants() }
	if err := m.s.AddGroup(sched.Group{ID: 1, Weight: 100}); err != nil {
		t.Fatal(err)
	}
	if err := m.s.AddGroup(sched.Group{ID: 2, Weight: 300}); err != nil {
		t.Fatal(err)
	}
	a := m.spawn(0, sched.Attr{Group: 1}, behaviour{})
	b := m.spawn(0, sched.Attr{Group: 2}, behaviour{})
	c := m.spawn(0, sched.Attr{Group: 2, Nice: 5}, behaviour{})
	m.s.SetAttr(m.now(), c, sched.Attr{Group: 2, Class: sched.Idle})
	m.settle()
	m.s.SetAttr(m.now(), c, sched.Attr{Group: 1})
	m.settle()
	m.s.SetAttr(m.now(), c, sched.Attr{Group: 2})
	m.settle()
	for _, th := range m.threads {
		th.ran = 0
	}
	m.run(4000)
	ra, rb, rc := m.threads[a].ran, m.threads[b].ran, m.threads[c].ran
	// Group 1 gets 1/4, group 2 3/4 split evenly between b and c.
	if ra < 900 || ra > 1100 || rb < 1300 || rb > 1700 || rc < 1300 || rc > 1700 {
		t.Errorf("ran a %d, b %d, c %d of 4000 ticks, want about 1000, 1500, 1500", ra, rb, rc)
	}
}

// TestSchedulerStress runs a mixed machine under every version on five topologies and checks
// every invariant after every step: sleepers of nice 0 to 4 with uneven run and sleep phases,
// hogs, pinned threads, SCHED_BATCH and SCHED_IDLE threads, custom slices, threads in a
// weighted group, a nested group and an idle group, threads that exit and threads forked by
// running parents, and attribute changes (nice, slice, group, affinity) made at random moments
// to threads that may be running, queued, asleep or (v7.1) delayed. v7.1 must have produced
// delayed-dequeue tasks, and the other versions none; every hog outside the idle group and the
// SCHED_IDLE class must have run.
func TestSchedulerStress(t *testing.T) {
	for _, tc := range []struct {
		name string
		topo *topology.Topology
	}{
		{"TwoCPU", topology.TwoCPU()},
		{"TwoSocketSMT", topology.TwoSocketSMT()},
		{"FourLLC", topology.FourLLC()},
		{"FourNode", topology.FourNode()},
		{"BigLittle", topology.BigLittle()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forVersions(t, func(t *testing.T, v Version) { testSchedulerStress(t, tc.topo, v) })
		})
	}
}

func testSchedulerStress(t *testing.T, topo *topology.Topology, v Version) {
	m := newSMPMachine(t, topo, 1000, vparams(v))
	m.check = m.checkInvariants
	for _, g := range []sched.Group{
		{ID: 1, Weight: 100},
		{ID: 2, Weight: 300},
		{ID: 3, Parent: 2, Weight: 50},
		{ID: 4, Weight: 100, Idle: true},
	} {
		if err := m.s.AddGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(v), uint64(topo.NumCPUs())))
	n := topo.NumCPUs()
	cpus := topo.CPUs()
	cpuAt := func(i int) topology.CPU {
		c, _ := cpus.First()
		for range i % n {
			c, _ = cpus.After(c)
		}
		return c
	}
	groups := []sched.GroupID{0, 1, 2, 3, 4}
	var hogs []sched.ID
	for i := range 2 * n {
		attr := sched.Attr{Nice: i % 5, Group: groups[i%len(groups)]}
		if i%3 == 0 {
			attr.Slice = int64(100_000 + 300_000*(i%4))
		}
		m.spawn(cpuAt(i), attr, behaviour{run: 1 + rng.IntN(6), sleep: 1 + rng.IntN(8)})
	}
	for i := range n {
		attr := sched.Attr{Group: groups[(i+1)%4]} // never the idle group
		hogs = append(hogs, m.spawn(cpuAt(i), attr, behaviour{}))
	}
	for i := range max(n/2, 1) {
		c := cpuAt(2 * i)
		m.spawn(c, sched.Attr{Affinity: topology.CPUSetOf(c)}, behaviour{run: 2, sleep: 3})
		m.spawn(c, sched.Attr{Affinity: topology.CPUSetOf(c), Nice: 3}, behaviour{})
	}
	m.spawn(0, sched.Attr{Class: sched.Batch}, behaviour{run: 7, sleep: 2})
	m.spawn(0, sched.Attr{Class: sched.Idle}, behaviour{run: 3, sleep: 1})
	m.spawn(0, sched.Attr{Group: 4}, behaviour{})
	for tick := range 1500 {
		m.step()
		switch {
		case tick%97 == 0:
			// A running thread forks a short-lived child.
			c := cpuAt(rng.IntN(n))
			if p := m.running[c]; p >= 0 {
				m.fork(c, p, sched.Attr{Nice: rng.IntN(5)}, behaviour{run: 1 + rng.IntN(3), sleep: 2, exit: 5 + rng.IntN(20)})
				m.settle()
			}
		case tick%7 == 0:
			id := sched.ID(rng.IntN(len(m.threads)))
			if m.threads[id].exited {
				break
			}
			attr := sched.Attr{Nice: rng.IntN(8), Group: groups[rng.IntN(len(groups))]}
			switch rng.IntN(4) {
			case 0:
				attr.Slice = int64(rng.IntN(3_000_000))
			case 1:
				attr.Affinity = topology.CPUSetOf(cpuAt(rng.IntN(n)))
			case 2:
				attr.Class = sched.Batch
			}
			m.s.SetAttr(m.now(), id, attr)
			m.settle()
		}
	}
	if v >= V618 && m.delayed == 0 {
		t.Errorf("%v produced no delayed-dequeue task in %d checks", v, 1500)
	}
	if v < V618 && m.delayed != 0 {
		t.Errorf("%v found delayed-dequeue tasks %d times", v, m.delayed)
	}
	for _, id := range hogs {
		if m.threads[id].ran == 0 {
			t.Errorf("hog %v never ran", id)
		}
	}
}

// ineligibleRunning steps m until the thread running on cpu is not eligible on its queue (so
// that a sleep now is delayed in v7.1) and returns it.
func ineligibleRunning(t *testing.T, m *smpMachine, cpu topology.CPU) sched.ID {
	t.Helper()
	for range 100 {
		m.step()
		if id := m.running[cpu]; id >= 0 {
			task, _ := m.s.Thread(id)
			if !entityEligible(task.E.Queue(), task.E) {
				return id
			}
		}
	}
	t.Fatalf("no ineligible running thread on %v in 100 ticks", cpu)
	return -1
}

// TestSchedulerDelayed follows v7.1's delayed-dequeue tasks through the Scheduler (kernel
// danayer/linux-7.1.5 @ 7d33d86d5512: core.c blob 69c2aa8c6246, fair.c blob abb76775aa72): a
// sleep while not eligible leaves the task queued and on its CPU's list; waking it requeues it
// where it is (ttwu_runnable, no select_task_rq), even when the waker's CPU idles; an affinity
// change moves it still delayed (move_queued_task), to be dequeued by the pick of an idle
// destination or kept queued on a busy one; an exit is never delayed.
func TestSchedulerDelayed(t *testing.T) {
	two := topology.TwoCPU()
	only0 := topology.CPUSetOf(0)
	setup := func(t *testing.T) (*smpMachine, sched.ID, sched.ID) {
		m := newSMPMachine(t, two, 1000, vparams(V71))
		m.check = m.checkInvariants
		a := m.spawn(0, sched.Attr{Affinity: only0}, behaviour{})
		b := m.spawn(0, sched.Attr{Affinity: only0}, behaviour{})
		id := ineligibleRunning(t, m, 0)
		m.stop(0, sched.Sleep)
		m.settle()
		task, _ := m.s.Thread(id)
		if !task.E.Delayed() || !m.s.System().Tasks(0).contains(task) {
			t.Fatalf("sleep of ineligible %v: delayed %t, on cpu0's list %t; want both", id, task.E.Delayed(), m.s.System().Tasks(0).contains(task))
		}
		if st := m.s.stats()[0]; st.NrRunning != 2 || st.HNrRunning != 1 {
			t.Errorf("cpu0 stats nr_running %d, h_nr_runnable %d; want 2 and 1", st.NrRunning, st.HNrRunning)
		}
		if id == a {
			return m, a, b
		}
		return m, b, a
	}
	t.Run("wakeup requeues in place", func(t *testing.T) {
		m, d, _ := setup(t)
		m.s.SetAttr(m.now(), d, sched.Attr{}) // cpu1, idle, is allowed now
		m.settle()
		task, _ := m.s.Thread(d)
		if !task.E.Delayed() || task.CPU() != 0 {
			t.Fatalf("after the affinity widening: delayed %t on %v; want delayed on cpu0", task.E.Delayed(), task.CPU())
		}
		m.wake(d, 1, 0)
		m.settle()
		if task.E.Delayed() || !task.E.OnRQ() || task.CPU() != 0 || task.migrations() != 0 {
			t.Errorf("woken delayed task: delayed %t, on_rq %t, on %v, %d migrations; want runnable on cpu0, never migrated",
				task.E.Delayed(), task.E.OnRQ(), task.CPU(), task.migrations())
		}
	})
	t.Run("affinity moves it delayed to an idle CPU", func(t *testing.T) {
		m, d, _ := setup(t)
		m.s.SetAttr(m.now(), d, sched.Attr{Affinity: topology.CPUSetOf(1)})
		task, _ := m.s.Thread(d)
		if !task.E.Delayed() || task.CPU() != 1 || !m.env.pending.Has(1) {
			t.Fatalf("moved delayed task: delayed %t on %v, cpu1 reschedule pending %t; want delayed on cpu1, pending", task.E.Delayed(), task.CPU(), m.env.pending.Has(1))
		}
		m.settle() // cpu1's pick dequeues it for good
		if task.E.OnRQ() || m.running[1] >= 0 || m.s.System().Tasks(1).Len() != 0 {
			t.Errorf("after cpu1's pick: on_rq %t, cpu1 runs %v with %d listed; want it asleep, cpu1 idle", task.E.OnRQ(), m.running[1], m.s.System().Tasks(1).Len())
		}
		m.wake(d, 0, 0)
		m.settle()
		if m.running[1] != d {
			t.Errorf("woken again, %v does not run on cpu1 (runs %v)", d, m.running[1])
		}
	})
	t.Run("affinity moves it delayed to a busy CPU", func(t *testing.T) {
		m, d, _ := setup(t)
		c := m.spawn(1, sched.Attr{Affinity: topology.CPUSetOf(1)}, behaviour{})
		m.s.SetAttr(m.now(), d, sched.Attr{Affinity: topology.CPUSetOf(1)})
		m.settle()
		task, _ := m.s.Thread(d)
		if !task.E.Delayed() || task.CPU() != 1 || m.running[1] != c || !m.s.System().Tasks(1).contains(task) || task.migrations() != 1 {
			t.Errorf("moved delayed task: delayed %t on %v, cpu1 runs %v; want delayed on cpu1's list, %v still running", task.E.Delayed(), task.CPU(), m.running[1], c)
		}
	})
	t.Run("exit is never delayed", func(t *testing.T) {
		m := newSMPMachine(t, two, 1000, vparams(V71))
		m.check = m.checkInvariants
		m.spawn(0, sched.Attr{Affinity: only0}, behaviour{})
		m.spawn(0, sched.Attr{Affinity: only0}, behaviour{})
		id := ineligibleRunning(t, m, 0)
		m.stop(0, sched.Exit)
		m.settle()
		if _, ok := m.s.Thread(id); ok || m.s.System().Tasks(0).Len() != 1 || m.s.System().RunQueue(0).nrRunning() != 1 {
			t.Errorf("exit of ineligible %v: still known %t, cpu0 lists %d, h_nr_running %d; want forgotten, 1, 1", id, ok, m.s.System().Tasks(0).Len(), m.s.System().RunQueue(0).nrRunning())
		}
	})
}

// TestSchedulerPanics checks the documented panics of the Scheduler's methods, each naming the
// package and what was wrong: an unknown thread (never forked, or exited), a thread forked
// twice (which would put two tasks of one thread on the queues, picked on two CPUs), a wakeup
// of a runnable thread, a stop of a thread the CPU is not running, a CPU outside the machine in
// each method that takes one, and any call before Start.
func TestSchedulerPanics(t *testing.T) {
	forVersions(t, func(t *testing.T, v Version) {
		s := mustNew(t, vparams(v))
		if err := s.Start(sched.Config{Topology: topology.TwoCPU(), Hz: 250}, &fakeEnv{tb: t}); err != nil {
			t.Fatal(err)
		}
		s.Fork(0, 0, -1, 0, sched.Attr{})
		s.Wakeup(0, 0, 0, sched.WakeFork)
		s.Fork(0, 1, 0, 0, sched.Attr{}) // forked, never woken: not queued
		for _, tc := range []struct {
			name string
			f    func()
			want string
		}{
			{"Wakeup(unknown)", func() { s.Wakeup(0, 7, 0, 0) }, "cfs: Wakeup of unknown thread t7"},
			{"Wakeup(runnable)", func() { s.Wakeup(0, 0, 0, 0) }, "cfs: Scheduler.Wakeup of runnable thread t0"},
			{"Stop(unknown)", func() { s.Stop(0, 0, 7, sched.Sleep) }, "cfs: Stop of unknown thread t7"},
			{"Stop(sleep, not queued)", func() { s.Stop(0, 0, 1, sched.Sleep) }, "cfs: Stop of t1, which is not running on cpu0"},
			{"Stop(exit, not queued)", func() { s.Stop(0, 0, 1, sched.Exit) }, "cfs: Stop of t1, which is not running on cpu0"},
			{"SetAttr(unknown)", func() { s.SetAttr(0, 7, sched.Attr{}) }, "cfs: SetAttr of unknown thread t7"},
			{"Fork(existing, queued)", func() { s.Fork(0, 0, -1, 1, sched.Attr{}) }, "cfs: Fork of thread t0, which exists"},
			{"Fork(existing, not woken)", func() { s.Fork(0, 1, -1, 0, sched.Attr{}) }, "cfs: Fork of thread t1, which exists"},
			{"Fork(id -1)", func() { s.Fork(0, -1, -1, 0, sched.Attr{}) }, "cfs: Fork of negative thread id -1"},
			{"Fork(cpu2)", func() { s.Fork(0, 5, -1, 2, sched.Attr{}) }, "cfs: Fork on cpu2, which is not in the machine"},
			{"Wakeup(from cpu9)", func() { s.Wakeup(0, 1, 9, sched.WakeFork) }, "cfs: Wakeup on cpu9, which is not in the machine"},
			{"Pick(cpu2)", func() { s.Pick(0, 2) }, "cfs: Pick on cpu2, which is not in the machine"},
			{"Tick(cpu1024)", func() { s.Tick(0, 1024) }, "cfs: Tick on cpu1024, which is not in the machine"},
			{"Stop(cpu3)", func() { s.Stop(0, 3, 0, sched.Preempt) }, "cfs: Stop on cpu3, which is not in the machine"},
		} {
			assertPanics(t, tc.name, tc.f, tc.want)
		}
		// With cpu0 running t0: a stop of another thread on cpu0, known or not, or of t0 on
		// the other CPU.
		if id, ok := s.Pick(0, 0); !ok || id != 0 {
			t.Fatalf("Pick(cpu0) = %v, %t; want t0", id, ok)
		}
		assertPanics(t, "Stop(not running, cpu busy)", func() { s.Stop(0, 0, 1, sched.Preempt) }, "cfs: Stop of t1, which is not running on cpu0")
		assertPanics(t, "Stop(unknown, cpu busy)", func() { s.Stop(0, 0, 7, sched.Preempt) }, "cfs: Stop of unknown thread t7")
		assertPanics(t, "Stop(runs elsewhere)", func() { s.Stop(0, 1, 0, sched.Preempt) }, "cfs: Stop of t0, which is not running on cpu1")
		s.Stop(0, 0, 0, sched.Preempt) // the thread cpu0 runs
		un := mustNew(t, vparams(v))
		assertPanics(t, "Fork before Start", func() { un.Fork(0, 0, -1, 0, sched.Attr{}) }, "cfs: Fork before Start")
		assertPanics(t, "Tick before Start", func() { un.Tick(0, 0) }, "cfs: Tick before Start")
		assertPanics(t, "TickHz before Start", func() { un.TickHz() }, "cfs: TickHz before Start")
		assertPanics(t, "Tasks(cpu2)", func() { s.System().Tasks(2) }, "cfs: System.Tasks on cpu2")
	})
}

// TestCheckAttr checks which attributes the Scheduler refuses before a run (sched.AttrChecker)
// and that a real-time thread it accepts is reported by Err once it is created.
func TestCheckAttr(t *testing.T) {
	s := mustNew(t, vparams(V71))
	for _, tc := range []struct {
		name string
		a    sched.Attr
		want string
	}{
		{"normal", sched.Attr{Nice: 5}, ""},
		{"idle", sched.Attr{Class: sched.Idle}, ""},
		{"nice 20", sched.Attr{Nice: 20}, ""},
		{"slice", sched.Attr{Slice: 100_000}, ""},
		{"fifo 1 linux", sched.Attr{Class: sched.FIFO, RTPrio: 1}, ""},
		{"rr 99 linux", sched.Attr{Class: sched.RR, RTPrio: 99}, ""},
		{"normal with a freebsd scale", sched.Attr{RTScale: sched.RTFreeBSD}, ""},
		{"fifo 0 freebsd", sched.Attr{Class: sched.FIFO, RTScale: sched.RTFreeBSD}, "cfs: fifo priority 0 on the freebsd scale (rtprio(2)): Linux's real-time priorities are sched_setscheduler's 1..99"},
		{"rr 31 freebsd", sched.Attr{Class: sched.RR, RTPrio: 31, RTScale: sched.RTFreeBSD}, "cfs: rr priority 31 on the freebsd scale"},
		{"fifo 0 linux", sched.Attr{Class: sched.FIFO}, "cfs: sched: fifo priority 0 outside 1..99"},
		{"nice 21", sched.Attr{Nice: 21}, "cfs: sched: nice 21"},
		{"class 9", sched.Attr{Class: 9}, "cfs: sched: invalid class 9"},
	} {
		err := s.CheckAttr(tc.a)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%s: CheckAttr(%+v) = %v, want %q", tc.name, tc.a, err, tc.want)
		}
	}
	if err := s.Start(sched.Config{Topology: topology.TwoCPU(), Hz: 1000}, &fakeEnv{tb: t}); err != nil {
		t.Fatal(err)
	}
	s.Fork(0, 0, -1, 0, sched.Attr{})
	if err := s.Err(); err != nil {
		t.Fatalf("Err() after a normal thread = %v", err)
	}
	s.Fork(0, 1, -1, 0, sched.Attr{Class: sched.RR, RTPrio: 50})
	s.Fork(0, 2, -1, 0, sched.Attr{Class: sched.FIFO, RTPrio: 50})
	if err := s.Err(); err == nil || err.Error() != "cfs: thread t1: class rr is a real-time class, not modelled; it runs as SCHED_NORMAL" {
		t.Errorf("Err() after an RR thread = %v, want the first real-time thread named", err)
	}
	if e, _ := s.Thread(1); e.E.Class() != Normal {
		t.Errorf("RR thread runs as %v, want SCHED_NORMAL", e.E.Class())
	}
}

// TestNewidleBalanceWithoutOverload follows newidle_balance (fair.c v6.5 blob b3e25be58e2b):
// with rd->overload clear there is nothing to pull, but update_next_balance still brings
// rq->next_balance forward to the base domain's idle interval before it gives up.
func TestNewidleBalanceWithoutOverload(t *testing.T) {
	m := newSMPMachine(t, topology.TwoCPU(), 1000, DefaultParams())
	s := m.s
	s.sys.overload = false
	base := &s.sys.ds.Chain(0)[0]
	ds := &s.sys.dom[base.idx]
	ds.lastBalance, ds.interval = 0, 2
	s.sys.rqs[0].nextBalance = 500
	now := int64(10 * 1_000_000) // jiffy 10 at HZ 1000
	if s.sys.NewidleBalance(now, 0) {
		t.Fatal("newidleBalance pulled a task from an empty machine")
	}
	want := ds.lastBalance + balanceInterval(ds.interval, base.busyFactor(), false, s.sys.hz, s.sys.ncpu)
	if got := s.sys.rqs[0].nextBalance; got != want || want >= 500 {
		t.Errorf("next_balance = %d, want %d (the base domain's idle interval after its last balance)", got, want)
	}
}
