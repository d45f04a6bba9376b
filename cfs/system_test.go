package cfs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// reschedEnv records the CPUs a System asks to reschedule.
type reschedEnv struct{ cpus topology.CPUSet }

func (e *reschedEnv) Resched(c topology.CPU)                 { e.cpus.Add(c) }
func (e *reschedEnv) Explaining() bool                       { return false }
func (e *reschedEnv) Explain(topology.CPU, sched.ID, string) {}

// pinnedSystem returns a System on topo with n nice-0 tasks woken onto cpu0 (pinned there
// for the wakeup), cpu0 running one of them, and every task then allowed everywhere.
func pinnedSystem(t *testing.T, v Version, topo *topology.Topology, n int) (*System, *reschedEnv, []*Task) {
	t.Helper()
	env := &reschedEnv{}
	s, err := NewSystem(vparams(v), topo, 1000, env)
	if err != nil {
		t.Fatal(err)
	}
	var cpu0 topology.CPUSet
	cpu0.Add(0)
	ts := make([]*Task, n)
	for i := range ts {
		ts[i] = s.Fork(0, NewTask(fmt.Sprint("t", i), Normal, 0), cpu0, 0)
		s.Wakeup(0, ts[i], nil, 0, sched.WakeFork)
	}
	s.Schedule(0, 0)
	for _, task := range ts {
		s.SetAttr(1_000_000, task, Normal, 0, nil, -1, topo.CPUs())
	}
	env.cpus = topology.CPUSet{}
	return s, env, ts
}

// checkSystem checks every CPU's invariants and that the statistics match the queues.
func checkSystem(t *testing.T, s *System) {
	t.Helper()
	checkSums(t, s)
	for c := range s.topo.CPUs().All() {
		rq := &s.rqs[c]
		if err := cpuErrShares(rq.c, nil, false); err != nil {
			t.Fatalf("cpu%d: %v", c, err)
		}
		if got, want := int(s.stats[c].NrRunning), rq.c.Root().HNrRunning(); got != want {
			t.Fatalf("cpu%d: stats NrRunning %d, queues %d", c, got, want)
		}
		for p := rq.tasks.head; p != nil; p = p.next {
			if p.cpu != c {
				t.Fatalf("cpu%d lists %v, which says cpu%d", c, p, p.cpu)
			}
		}
	}
}

// TestSystemSteps drives the balancing steps one at a time, without a Scheduler, on every
// version: a newly idle pull, an explicit active balance between two CPUs, and a periodic
// rebalance that sets next_balance.
func TestSystemSteps(t *testing.T) {
	forVersions(t, func(t *testing.T, v Version) {
		two := topology.Uniform(1, 1, 1, 2, 1) // one LLC of two CPUs
		s, env, ts := pinnedSystem(t, v, two, 3)
		checkSystem(t, s)
		if !s.Overload() || s.Tasks(0).Len() != 3 || s.Curr(0) == nil || s.Curr(1) != nil {
			t.Fatalf("setup: overload %t, cpu0 %d tasks, curr %v / %v", s.Overload(), s.Tasks(0).Len(), s.Curr(0), s.Curr(1))
		}
		// cpu1 is about to idle: newidle_balance pulls one waiting task (CONFIG_PREEMPTION's
		// one-task pull), and asks cpu1 to reschedule.
		if !s.NewidleBalance(2_000_000, 1) {
			t.Fatal("NewidleBalance did not pull")
		}
		checkSystem(t, s)
		if s.Tasks(1).Len() != 1 || s.Tasks(0).Len() != 2 || !env.cpus.Has(1) {
			t.Fatalf("after NewidleBalance: cpu0 %d, cpu1 %d tasks, resched %v", s.Tasks(0).Len(), s.Tasks(1).Len(), env.cpus.String())
		}
		pulled := s.Tasks(1).Front()
		if got := s.Schedule(2_000_000, 1); got != pulled || s.Curr(1) != pulled {
			t.Fatalf("cpu1 picks %v, want the pulled %v", got, pulled)
		}
		// Push cpu0's waiting task to cpu1 by hand: the stopper puts cpu0's running task back
		// and moves the least recently run task that may go, which is the one waiting.
		run := s.Curr(0)
		var waiting *Task
		for _, task := range ts {
			if task != run && task != pulled {
				waiting = task
			}
		}
		if got := s.ActiveBalance(3_000_000, 0, 1); got != waiting {
			t.Fatalf("ActiveBalance(cpu0 -> cpu1) moved %v, want %v", got, waiting)
		}
		checkSystem(t, s)
		if s.RunQueue(0).Curr() != nil || s.Tasks(1).Len() != 2 {
			t.Fatalf("after ActiveBalance: cpu0 curr %v, cpu1 %d tasks", s.RunQueue(0).Curr(), s.Tasks(1).Len())
		}
		// cpu0 now runs its last task: the stopper preempts it, so active balance pushes the
		// task that was running (the point of active balance); then cpu0 has nothing to push.
		last := s.Schedule(3_000_000, 0)
		if got := s.ActiveBalance(4_000_000, 0, 1); got != last || last == nil {
			t.Fatalf("ActiveBalance of a CPU running one task moved %v, want that task %v", got, last)
		}
		if got := s.ActiveBalance(4_000_000, 0, 1); got != nil {
			t.Fatalf("ActiveBalance of an empty CPU moved %v", got)
		}
		checkSystem(t, s)
		if s.Tasks(0).Len() != 0 || s.Tasks(1).Len() != 3 {
			t.Fatalf("after the pushes: cpu0 %d, cpu1 %d tasks", s.Tasks(0).Len(), s.Tasks(1).Len())
		}
		// A periodic rebalance of idle cpu0 pulls work back and sets next_balance ahead.
		s.RebalanceDomains(5_000_000, 0, smp.CPUIdle)
		if s.Tasks(0).Len() == 0 {
			t.Fatalf("RebalanceDomains(idle cpu0) pulled nothing from cpu1's %d tasks", s.Tasks(1).Len())
		}
		if nb := s.NextBalance(0); nb <= 5 {
			t.Fatalf("NextBalance(cpu0) = %d after a rebalance at jiffy 5", nb)
		}
		checkSystem(t, s)
	})
}

// TestSystemSelectTaskRQ checks the System's select_task_rq_fair: an idle sibling in the LLC is
// chosen for a wakee whose previous CPU is busy, and the chosen CPU's task is not moved.
func TestSystemSelectTaskRQ(t *testing.T) {
	s, _, ts := pinnedSystem(t, V65, topology.Uniform(1, 1, 1, 2, 1), 2)
	sleeper := s.Curr(0)
	s.Stop(1_500_000, 0, sleeper, sched.Sleep)
	s.Schedule(1_500_000, 0)
	pl, why := s.SelectTaskRQ(2_000_000, sleeper, 0, 0)
	if pl.CPU != 1 || why != placeIdleCPU {
		t.Errorf("SelectTaskRQ = %v, want the idle cpu1", pl.Explain(why))
	}
	if sleeper.CPU() != 0 || sleeper.E.OnRQ() {
		t.Errorf("SelectTaskRQ moved the task: cpu%d, on_rq %t", sleeper.CPU(), sleeper.E.OnRQ())
	}
	pl, _, _, _ = s.Wakeup(2_000_000, sleeper, nil, 0, 0)
	if pl.CPU != 1 || sleeper.CPU() != 1 || s.Tasks(1).Front() != sleeper {
		t.Errorf("Wakeup placed %v on cpu%d", sleeper, sleeper.CPU())
	}
	checkSystem(t, s)
	_ = ts
}

// TestSystemMisuse lists NewSystem's errors and the System's named panics.
func TestSystemMisuse(t *testing.T) {
	bad := DefaultParams()
	bad.NrLatency = 0
	for _, tc := range []struct {
		name string
		p    Params
		topo *topology.Topology
		hz   int
		want string
	}{
		{"invalid params", bad, topology.TwoCPU(), 1000, "cfs: Params.NrLatency is 0 in v6.5"},
		{"no topology", DefaultParams(), nil, 1000, "cfs: NewSystem without a topology"},
		{"hz 0", DefaultParams(), topology.TwoCPU(), 0, "cfs: NewSystem: hz 0"},
	} {
		if _, err := NewSystem(tc.p, tc.topo, tc.hz, nil); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: NewSystem error = %v, want %q", tc.name, err, tc.want)
		}
	}
	s, _, ts := pinnedSystem(t, V71, topology.TwoCPU(), 2)
	run := s.Curr(0)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"Schedule(cpu2)", func() { s.Schedule(0, 2) }, "cfs: System.Schedule on cpu2, which is not a CPU of the machine (0-1)"},
		{"Tick(cpu5)", func() { s.Tick(0, 5) }, "cfs: System.Tick on cpu5"},
		{"Fork(cpu2)", func() { s.Fork(0, NewTask("x", Normal, 0), s.topo.CPUs(), 2) }, "cfs: System.Fork on cpu2"},
		{"Wakeup(from cpu2)", func() { s.Wakeup(0, ts[0], nil, 2, 0) }, "cfs: System.Wakeup on cpu2"},
		{"Wakeup(runnable)", func() { s.Wakeup(0, run, nil, 0, 0) }, "cfs: System.Wakeup of runnable task"},
		{"Stop(cpu3)", func() { s.Stop(0, 3, run, sched.Preempt) }, "cfs: System.Stop on cpu3"},
		{"LoadBalance(cpu9)", func() { s.LoadBalance(0, 9, s.Domains().Base(0), smp.CPUIdle) }, "cfs: System.LoadBalance on cpu9"},
		{"NewidleBalance(cpu9)", func() { s.NewidleBalance(0, 9) }, "cfs: System.NewidleBalance on cpu9"},
		{"ActiveBalance(to cpu9)", func() { s.ActiveBalance(0, 0, 9) }, "cfs: System.ActiveBalance on cpu9"},
		{"RebalanceDomains(cpu9)", func() { s.RebalanceDomains(0, 9, smp.CPUIdle) }, "cfs: System.RebalanceDomains on cpu9"},
		{"SelectTaskRQ(from cpu9)", func() { s.SelectTaskRQ(0, run, 9, 0) }, "cfs: System.SelectTaskRQ on cpu9"},
		{"Move(running)", func() { s.Move(0, run, 1) }, "cfs: System.Move of"},
		{"Move(cpu7)", func() { s.Move(0, run, 7) }, "cfs: System.Move on cpu7"},
		{"RunQueue(cpu2)", func() { s.RunQueue(2) }, "cfs: System.RunQueue on cpu2"},
		{"Curr(cpu2)", func() { s.Curr(2) }, "cfs: System.Curr on cpu2"},
		{"SetAttr(no CPU)", func() { s.SetAttr(0, run, Normal, 0, nil, -1, topology.CPUSet{}) }, "cfs: System.SetAttr with no allowed CPU"},
	} {
		assertPanics(t, tc.name, tc.f, tc.want)
	}
}
