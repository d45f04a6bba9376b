package cfs

import (
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
