package cfs_test

import (
	"fmt"

	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// The machine-wide NUMA groups of topology.FourNode as cpu4 sees them, built per CPU and with
// the Wasted Cores bug (every CPU shares cpu0's view).
func ExampleNewDomains() {
	t := topology.FourNode()
	for _, mode := range []smp.GroupConstruction{smp.GroupsPerCPU, smp.GroupsFirstCPU} {
		ds := cfs.NewDomains(t, mode)
		ch := ds.Chain(4)
		fmt.Printf("%v: %v\n", mode, &ch[len(ch)-1])
	}
	// Output:
	// per-cpu: NUMA{0-7} groups {0-1,4-7} {0-3,6-7}
	// first-cpu: NUMA{0-7} groups {0-5} {2-7}
}

// An idle cpu0 of TwoCPU looks at cpu1, which runs two nice-0 hogs.
func ExampleFindBusiestGroup() {
	t := topology.TwoCPU()
	ds := cfs.NewDomains(t, smp.GroupsPerCPU)
	stats := []smp.CPUStat{
		{Capacity: 1024, CapacityOrig: 1024},
		{NrRunning: 2, HNrRunning: 2, Load: 2048, Util: 1024, Runnable: 2048, Capacity: 1024, CapacityOrig: 1024},
	}
	sd := ds.Base(0)
	env := cfs.LBEnv{SD: sd, DstCPU: 0, Idle: smp.CPUIdle, CPUs: sd.Span(), Stats: stats}
	sp := cfs.DefaultParams().SMP
	d, why := cfs.FindBusiestGroup(&env, &sp)
	fmt.Println(d.Explain(why))
	src, _ := cfs.FindBusiestQueue(&env, &d, &sp)
	fmt.Println("pull from", src)
	// Output:
	// PKG{0-1} from cpu0: busiest group {1} (overloaded: 2 tasks on 1 CPUs (0 idle), load 2048, util 1024, avg_load 2048), local {0} (has_spare: 0 tasks on 1 CPUs (1 idle), load 0, util 0): migrate_util 1024, because groups out of balance
	// pull from cpu1
}

// Three tasks on cpu1: the running one, one that ran 0.1 ms ago (cache hot) and one that ran
// 2 ms ago. detach_tasks takes the cold one; once balancing has failed more than
// cache_nice_tries times, the hot one too.
func ExampleDetachTasks() {
	t := topology.TwoCPU()
	ds := cfs.NewDomains(t, smp.GroupsPerCPU)
	c1 := cfs.NewRunQueue(1, cfs.DefaultParams())
	var list cfs.TaskList
	for _, name := range []string{"running", "hot", "cold"} {
		e := cfs.NewTask(name, cfs.Normal, 0)
		c1.Wakeup(e, 1)
		list.PushFront(cfs.NewSMPTask(e, t.CPUs(), 1))
	}
	c1.Schedule(1)
	now := uint64(10_000_000)
	list.Back().Prev().E.ExecStart = now - 100_000 // hot
	list.Front().E.ExecStart = now - 2_000_000     // cold
	stats := []smp.CPUStat{{Capacity: 1024}, {NrRunning: 3, HNrRunning: 3, Load: 3072, Capacity: 1024}}
	sp := cfs.DefaultParams().SMP
	for _, failed := range []int{0, 2} {
		env := cfs.LBEnv{SD: ds.Base(0), DstCPU: 0, Idle: smp.CPUIdle, CPUs: t.CPUs(), Stats: stats,
			NrBalanceFailed: failed}
		me := cfs.MigrateEnv{LBEnv: &env, Src: 1, SrcRQ: c1, Now: now, Migration: smp.MigrateTask, Imbalance: 2}
		chosen, d := cfs.DetachTasks(&me, &list, nil, &sp)
		fmt.Println(chosen, d)
	}
	// Output:
	// [cold] detached 1 of 3 examined (1 running, 1 cache hot)
	// [hot cold] detached 2 of 3 examined (1 running)
}

// v7.1's can_migrate_task leaves a delayed-dequeue task where it is unless the balance migrates
// load; v6.5 has no such test.
func ExampleCanMigrateTask() {
	t := topology.TwoCPU()
	ds := cfs.NewDomains(t, smp.GroupsPerCPU)
	p, _ := cfs.Preset("v7.1")
	c1 := cfs.NewRunQueue(1, p.ForCPUs(2))
	a, b := cfs.NewTask("a", cfs.Normal, 0), cfs.NewTask("b", cfs.Normal, 0)
	c1.Fork(nil, a, 0)
	c1.Fork(nil, b, 0)
	c1.Schedule(0)
	c1.Tick(1_000_000)
	c1.Schedule(1_000_000)
	c1.Sleep(a, 1_000_000) // not eligible: delayed
	task := cfs.NewSMPTask(a, t.CPUs(), 1)
	stats := []smp.CPUStat{{Capacity: 1024}, {NrRunning: 2, HNrRunning: 1, Load: 2048, Capacity: 1024}}
	for _, v := range []cfs.Version{cfs.V65, cfs.V71} {
		for _, m := range []smp.MigrationType{smp.MigrateTask, smp.MigrateLoad} {
			env := cfs.LBEnv{SD: ds.Base(0), DstCPU: 0, Idle: smp.CPUIdle, CPUs: t.CPUs(), Stats: stats}
			pv, _ := cfs.Preset(v.String())
			sp := pv.SMP
			me := cfs.MigrateEnv{LBEnv: &env, Src: 1, SrcRQ: c1, DstRQ: cfs.NewRunQueue(0, p.ForCPUs(2)), Now: 10_000_000, Migration: m}
			d, why := cfs.CanMigrateTask(&me, task, &sp)
			fmt.Printf("%v balancer, %v: %t (%v)\n", v, m, d.OK, why)
		}
	}
	// Output:
	// v6.5 balancer, migrate_task: true (cache cold)
	// v6.5 balancer, migrate_load: true (cache cold)
	// v7.1 balancer, migrate_task: false (delayed dequeue)
	// v7.1 balancer, migrate_load: true (cache cold)
}

// A wakeup on FourLLC: the waker runs on cpu0, the wakee last ran on cpu1, which is busy; the
// LLC's first idle core is found by the scan.
func ExampleSelectTaskRQ() {
	t := topology.FourLLC()
	ds := cfs.NewDomains(t, smp.GroupsPerCPU)
	stats := make([]smp.CPUStat, t.NumIDs())
	for c := range stats {
		stats[c] = smp.CPUStat{Capacity: 1024, CapacityOrig: 1024}
	}
	for _, c := range []topology.CPU{0, 1, 13} {
		stats[c].NrRunning, stats[c].HNrRunning, stats[c].Load, stats[c].Util = 1, 1, 1024, 1024
	}
	hasIdleCores := make([]bool, t.NumIDs())
	hasIdleCores[0] = true
	scan := make([]int, t.NumIDs())
	scan[0] = 6
	wakee := cfs.NewSMPTask(cfs.NewTask("wakee", cfs.Normal, 0), t.CPUs(), 1)
	env := cfs.WakeEnv{Domains: ds, Stats: stats, Task: wakee, This: 0, Prev: 1,
		HasIdleCores: hasIdleCores, NrIdleScan: scan}
	sp := cfs.DefaultParams().SMP
	pl, why := cfs.SelectTaskRQ(&env, &sp)
	fmt.Println(pl.Explain(why))
	// Output: placed on cpu2: idle core in the LLC (wake_affine at MC chose the previous CPU, target cpu1), 1 CPUs scanned
}

// env is a sched.Env that records reschedule requests.
type env struct{ pending topology.CPUSet }

func (e *env) Resched(c topology.CPU)                 { e.pending.Add(c) }
func (e *env) Explaining() bool                       { return false }
func (e *env) Explain(topology.CPU, sched.ID, string) {}

// A Scheduler on TwoCPU: two hogs forked on cpu0 end up one per CPU.
func ExampleScheduler() {
	t := topology.TwoCPU()
	s, err := cfs.New(cfs.DefaultParams())
	if err != nil {
		panic(err)
	}
	e := &env{}
	if err := s.Start(sched.Config{Topology: t, Hz: 250}, e); err != nil {
		panic(err)
	}
	running := map[topology.CPU]sched.ID{}
	for id := range sched.ID(2) {
		s.Fork(0, id, -1, 0, sched.Attr{})
		s.Wakeup(0, id, 0, sched.WakeFork)
		for c := range e.pending.All() {
			e.pending.Remove(c)
			if tid, ok := s.Pick(0, c); ok {
				running[c] = tid
			}
		}
	}
	fmt.Println(s.Name(), running)
	// Output: cfs-v6.5 map[cpu0:t0 cpu1:t1]
}

// A Linux real-time priority is accepted (the thread runs as SCHED_NORMAL and Err says so after
// the run); FreeBSD's rtprio(2) scale is refused before it.
func ExampleScheduler_CheckAttr() {
	s, _ := cfs.New(cfs.DefaultParams())
	fmt.Println(s.CheckAttr(sched.Attr{Class: sched.FIFO, RTPrio: 10}))
	fmt.Println(s.CheckAttr(sched.Attr{Class: sched.FIFO, RTPrio: 10, RTScale: sched.RTFreeBSD}))
	// Output:
	// <nil>
	// cfs: fifo priority 10 on the freebsd scale (rtprio(2)): Linux's real-time priorities are sched_setscheduler's 1..99
}

// recorder is a sched.Env for driving a System by hand: it keeps the CPUs asked to reschedule.
type recorder struct{ resched topology.CPUSet }

func (r *recorder) Resched(c topology.CPU)                 { r.resched.Add(c) }
func (r *recorder) Explaining() bool                       { return false }
func (r *recorder) Explain(topology.CPU, sched.ID, string) {}

// The System without the simulator: three tasks pinned to cpu0 wake there (the last fork has
// the smallest START_DEBIT and runs first), their affinity is then widened, and idle cpu1's
// balance at its base domain is asked, step by step. TwoCPU's CPUs are two packages, so the
// balance moves utilisation into cpu1's spare capacity (migrate_util): both waiting tasks go,
// and cpu1 is asked to reschedule.
func ExampleSystem() {
	t := topology.TwoCPU()
	env := &recorder{}
	s, err := cfs.NewSystem(cfs.DefaultParams(), t, 1000, env)
	if err != nil {
		panic(err)
	}
	var cpu0 topology.CPUSet
	cpu0.Add(0)
	var tasks []*cfs.Task
	for i := range 3 {
		task := s.Fork(0, cfs.NewTask(fmt.Sprint("t", i), cfs.Normal, 0), cpu0, 0)
		s.Wakeup(0, task, nil, 0, sched.WakeFork)
		tasks = append(tasks, task)
	}
	fmt.Println("cpu0 runs", s.Schedule(0, 0).E, "of", s.Tasks(0).Len(), "tasks")
	for _, task := range tasks {
		s.SetAttr(1_000_000, task, cfs.Normal, 0, nil, -1, t.CPUs())
	}
	env.resched = topology.CPUSet{}
	moved, _ := s.LoadBalance(2_000_000, 1, s.Domains().Base(1), smp.CPUIdle)
	fmt.Println("moved", moved, "cpu0", s.Tasks(0).Len(), "cpu1", s.Tasks(1).Len(), "resched", env.resched.String())
	fmt.Println("cpu1 runs", s.Schedule(2_000_000, 1).E)
	// Output:
	// cpu0 runs t2 of 3 tasks
	// moved 2 cpu0 1 cpu1 2 resched 1
	// cpu1 runs t1
}
