package cfs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

func TestSchedulerTwoHogsOneCPU(t *testing.T) {
	m := newSMPMachine(t, topology.Uniform(1, 1, 1, 1, 1), 1000, SchedulerOptions{})
	m.check = func() { m.checkInvariants(false) }
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
			m := newSMPMachine(t, tc.topo, 250, SchedulerOptions{})
			m.check = func() { m.checkInvariants(false) }
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
	}
}

func TestSchedulerNewidlePull(t *testing.T) {
	m := newSMPMachine(t, topology.TwoCPU(), 1000, SchedulerOptions{})
	m.check = func() { m.checkInvariants(false) }
	only0 := topology.CPUSetOf(0)
	a := m.spawn(0, sched.Attr{Affinity: only0}, behaviour{})
	b := m.spawn(0, sched.Attr{Affinity: only0}, behaviour{})
	c := m.spawn(1, sched.Attr{Affinity: topology.CPUSetOf(1)}, behaviour{run: 3, sleep: 1 << 30})
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
	if id := m.running[1]; id != a && id != b {
		t.Fatalf("after the sleep, cpu1 runs %v, want a hog pulled by newidle_balance", id)
	}
}

func TestSchedulerPinnedNeverMoves(t *testing.T) {
	topo := topology.FourLLC()
	m := newSMPMachine(t, topo, 250, SchedulerOptions{})
	var pinned []sched.ID
	for c := range topology.CPU(6) {
		pinned = append(pinned, m.spawn(c, sched.Attr{Affinity: topology.CPUSetOf(c)}, behaviour{}))
		pinned = append(pinned, m.spawn(c, sched.Attr{Affinity: topology.CPUSetOf(c)}, behaviour{run: 2, sleep: 3}))
	}
	for range 30 {
		m.spawn(0, sched.Attr{}, behaviour{run: 5, sleep: 2})
	}
	m.check = func() {
		m.checkInvariants(false)
		for _, id := range pinned {
			task, _ := m.s.Task(id)
			if task.Migrations() != 0 {
				t.Fatalf("tick %d: pinned %v migrated %d times", m.tick, id, task.Migrations())
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
		for _, mode := range []GroupConstruction{GroupsPerCPU, GroupsFirstCPU} {
			t.Run(fmt.Sprintf("hogs=%d/groups=%v", n, mode), func(t *testing.T) {
				smp := DefaultSMPParams(V65)
				smp.Groups = mode
				m := newSMPMachine(t, topology.FourNode(), 250, SchedulerOptions{SMP: &smp})
				m.check = func() { m.checkInvariants(false) }
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
				case GroupsFirstCPU:
					if node2 != 0 {
						t.Errorf("with the bug, node 2 ran the app for %d CPU-ticks, want 0 (per CPU %v)", node2, per)
					}
					if node1 != 2000 {
						t.Errorf("with the bug, node 1 ran %d CPU-ticks, want 2000 (both CPUs busy)", node1)
					}
				case GroupsPerCPU:
					if node2 < 1900 || node1 < 1900 {
						t.Errorf("without the bug, nodes 1 and 2 ran %d and %d CPU-ticks, want both CPUs of each busy (per CPU %v)", node1, node2, per)
					}
				}
			})
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
			m := newSMPMachine(t, topo, 250, SchedulerOptions{})
			m.check = func() { m.checkInvariants(false) }
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
				llc[m.s.ds.LLCID(c)] += per[c]
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
		})
	}
}

func firstCPU(s topology.CPUSet) topology.CPU {
	c, _ := s.First()
	return c
}

// TestSchedulerBigLittleMisfit runs two hogs on the little cores of topology.BigLittle and
// checks that misfit balancing moves them to the big cores' CPUs.
func TestSchedulerBigLittleMisfit(t *testing.T) {
	topo := topology.BigLittle()
	m := newSMPMachine(t, topo, 250, SchedulerOptions{})
	m.check = func() { m.checkInvariants(false) }
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
	m := newSMPMachine(t, topology.TwoCPU(), 1000, SchedulerOptions{})
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
	s := NewScheduler(SchedulerOptions{})
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
	if got, want := s.Name(), "cfs-v6.5"; got != want {
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
	m := newSMPMachine(t, topology.Uniform(1, 1, 1, 1, 1), 1000, SchedulerOptions{})
	m.check = func() { m.checkInvariants(true) }
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
