package cfs

import (
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// Expected values worked out from can_migrate_task, task_hot, detach_tasks and task_h_load of
// kernel/sched/fair.c v6.5 (sndrzt/linux-6.5 @ f5744aac0f310da830e37f4e58136a92ed7f7195, blob
// b3e25be58e2b).

// migrateFixture queues n nice-0 tasks on cpu1 of TwoCPU: the first runs, the others wait, and
// each task i last started running at execStart[i]. Each task joins the head of the list, so
// task 0, the running one, is at the tail, where detach_tasks starts.
func migrateFixture(t *testing.T, execStart []uint64, allowed []topology.CPUSet) (*MigrateEnv, []*Task, *TaskList) {
	t.Helper()
	topo := topology.TwoCPU()
	ds := NewDomains(topo, smp.GroupsPerCPU)
	c := NewRunQueue(1, DefaultParams())
	var list TaskList
	var tasks []*Task
	for i := range execStart {
		e := NewTask(string(rune('a'+i)), Normal, 0)
		c.Wakeup(e, 1)
		tk := NewSMPTask(e, allowed[i], 1)
		list.PushFront(tk)
		tasks = append(tasks, tk)
	}
	c.Schedule(1) // the leftmost (task 0) runs
	for i, tk := range tasks {
		tk.E.ExecStart = execStart[i]
	}
	st := statsFor(topo, map[topology.CPU]uint32{1: uint32(len(execStart))})
	sd := ds.Base(0)
	env := &LBEnv{SD: sd, DstCPU: 0, Idle: smp.CPUIdle, CPUs: sd.Span(), Stats: st}
	return &MigrateEnv{LBEnv: env, Src: 1, SrcRQ: c, Now: 10_000_000, Migration: smp.MigrateTask, Imbalance: 1, Flags: LBFAllPinned, DstGroupMask: sd.Group(0).balanceMask()}, tasks, &list
}

func TestCanMigrateTask(t *testing.T) {
	all := topology.CPUSetOf(0, 1)
	only1 := topology.CPUSetOf(1)
	now := uint64(10_000_000)
	me, tasks, _ := migrateFixture(t, []uint64{now, now - 100_000, now - 1_000_000, now - 100_000},
		[]topology.CPUSet{all, all, all, only1})
	if me.SD.cacheNiceTries() != 1 {
		t.Fatalf("TwoCPU's PKG domain has cache_nice_tries %d, want 1", me.SD.cacheNiceTries())
	}
	for _, tc := range []struct {
		name    string
		task    int
		failed  int
		flags   LBFlags
		cost    int64
		ok      bool
		reason  MigrateReason
		wantFlg LBFlags
	}{
		{"running", 0, 0, LBFAllPinned, 500_000, false, migrateRunning, 0},
		{"hot, no failure", 1, 0, LBFAllPinned, 500_000, false, migrateHot, 0},
		{"hot, failed once = cache_nice_tries", 1, 1, 0, 500_000, false, migrateHot, 0},
		{"hot, failed twice > cache_nice_tries", 1, 2, 0, 500_000, true, migrateHotForced, 0},
		{"cold: ran 1 ms ago", 2, 0, 0, 500_000, true, migrateOK, 0},
		{"hot, active balance", 1, 0, LBFActiveLB, 500_000, true, migrateActive, LBFActiveLB},
		{"migration cost 0: nothing hot", 1, 0, 0, 0, true, migrateOK, 0},
		{"migration cost -1: everything hot", 2, 0, 0, -1, false, migrateHot, 0},
		{"pinned elsewhere", 3, 0, LBFAllPinned, 500_000, false, migratePinned, LBFAllPinned | LBFSomePinned},
	} {
		env := *me
		lb := *me.LBEnv
		lb.NrBalanceFailed = tc.failed
		sp := defaultSMPParams(V65)
		sp.MigrationCost = tc.cost
		env.LBEnv = &lb
		env.Flags = tc.flags
		v, why := CanMigrateTask(&env, tasks[tc.task], &sp)
		if v.OK != tc.ok || why != tc.reason || v.Flags != tc.wantFlg {
			t.Errorf("%s: CanMigrateTask = %t %v %v, want %t %v %v", tc.name, v.OK, why, v.Flags, tc.ok, tc.reason, tc.wantFlg)
		}
	}
}

func TestTaskHotIdlePolicy(t *testing.T) {
	me, tasks, _ := migrateFixture(t, []uint64{0, 10_000_000}, []topology.CPUSet{topology.CPUSetOf(0, 1), topology.CPUSetOf(0, 1)})
	sp := defaultSMPParams(V65)
	tasks[1].E.class = Idle
	if taskHot(me, tasks[1], &sp) {
		t.Errorf("TaskHot of a SCHED_IDLE task that just ran = true, want false")
	}
	tasks[1].E.class = Normal
	if !taskHot(me, tasks[1], &sp) {
		t.Errorf("TaskHot of a SCHED_NORMAL task that just ran = false, want true")
	}
}

func TestDetachTasks(t *testing.T) {
	all := topology.CPUSetOf(0, 1)
	now := uint64(10_000_000)
	cold := now - 2_000_000
	hot := now - 100_000
	for _, tc := range []struct {
		name      string
		exec      []uint64
		idle      smp.IdleType
		m         smp.MigrationType
		imb       int64
		failed    int
		want      string // names of the chosen tasks in order
		examined  int
		imbalLeft int64
	}{
		// Tail first: task a (running, tail), then b, c, d; migrate_task 2 takes b and c.
		{"two tasks from the tail", []uint64{now, cold, cold, cold}, smp.CPUNotIdle, smp.MigrateTask, 2, 0, "bc", 3, 0},
		// A hot task is skipped while balancing has not failed enough.
		{"hot skipped", []uint64{now, hot, cold, cold}, smp.CPUNotIdle, smp.MigrateTask, 1, 0, "c", 3, 0},
		{"hot taken after failures", []uint64{now, hot, cold, cold}, smp.CPUNotIdle, smp.MigrateTask, 1, 2, "b", 2, 0},
		// An idle destination leaves the source at least one task: 3 tasks, 2 may go.
		{"idle dst keeps one", []uint64{now, cold, cold}, smp.CPUIdle, smp.MigrateTask, 5, 0, "bc", 3, 3},
		// Newly idle with CONFIG_PREEMPTION: one task.
		{"newly idle pulls one", []uint64{now, cold, cold}, smp.CPUNewlyIdle, smp.MigrateTask, 5, 0, "b", 2, 4},
		// migrate_load: each task's h_load is 1024·4096/4097 = 1023; 1500 takes one and leaves 477,
		// then 1023 > 477 skips the rest.
		{"load", []uint64{now, cold, cold, cold}, smp.CPUNotIdle, smp.MigrateLoad, 1500, 0, "b", 4, 477},
		// After 1 failure the load is halved for the comparison (shr_bound): 511 <= 477? no.
		// After 2 failures: 255 <= 477: the second task is taken too.
		{"load after failures", []uint64{now, cold, cold, cold}, smp.CPUNotIdle, smp.MigrateLoad, 1500, 2, "bc", 3, -546},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allowed := make([]topology.CPUSet, len(tc.exec))
			for i := range allowed {
				allowed[i] = all
			}
			me, _, list := migrateFixture(t, tc.exec, allowed)
			me.Idle, me.Migration, me.Imbalance, me.NrBalanceFailed = tc.idle, tc.m, tc.imb, tc.failed
			sp := defaultSMPParams(V65)
			chosen, d := DetachTasks(me, list, nil, &sp)
			got := ""
			for _, tk := range chosen {
				got += tk.E.Name
			}
			if got != tc.want || d.examined != tc.examined || d.Imbalance != tc.imbalLeft {
				t.Errorf("DetachTasks = %q examined %d imbalance %d, want %q %d %d (%v)", got, d.examined, d.Imbalance, tc.want, tc.examined, tc.imbalLeft, d)
			}
		})
	}
}

func TestTaskHLoad(t *testing.T) {
	c := NewRunQueue(0, DefaultParams())
	a := NewTask("a", Normal, 0)
	c.Wakeup(a, 1)
	if got := TaskHLoad(a); got != 1023 { // 1024·1024/(1024+1)
		t.Errorf("TaskHLoad of a lone nice-0 task = %d, want 1023", got)
	}
	g := NewGroup("g", nil, 1)
	b := NewTask("b", Normal, 0)
	b.SetGroup(g)
	d := NewTask("d", Normal, 0)
	d.SetGroup(g)
	c.Wakeup(b, 2)
	c.Wakeup(d, 3)
	// Root load 1024 (a) + 1024 (g's entity): h_load(root) 2048; h_load(g) =
	// 2048·1024/(2048+1) = 1023; b: 1024·1023/(2048+1) = 511.
	if got := TaskHLoad(b); got != 511 {
		t.Errorf("TaskHLoad of a task sharing a group = %d, want 511", got)
	}
}

// TestCanMigrateTaskV71 checks the two tests v7.1's can_migrate_task makes before the affinity
// test (danayer/linux-7.1.5 @ 7d33d86d5512, kernel/sched/fair.c blob abb76775aa72): a
// delayed-dequeue task moves only with migrate_load, and, while the domain's nr_balance_failed
// is 0, a task that is not eligible on its queue does not move to a CPU where its group's queue
// holds entities (task_is_ineligible_on_dst_cpu, with PLACE_LAG). Neither refusal touches the
// LBF flags. With v6.5's parameters both tests are off.
func TestCanMigrateTaskV71(t *testing.T) {
	topo := topology.TwoCPU()
	ds := NewDomains(topo, smp.GroupsPerCPU)
	sd := ds.Base(0)
	all := topology.CPUSetOf(0, 1)
	// src (cpu1, v7.1) as in delayedFixture: a (vruntime 1 ms) slept while V was 0.5 ms and was
	// delayed; b runs; x was forked at 1 ms, at V, so eligible. With woken set, a was woken
	// again: no longer delayed, still not eligible. grouped puts a, b and x in group g; dst
	// (cpu0) holds a task in the root queue (dstRoot) or in g (dstGroup).
	type fixture struct {
		src, dst *RunQueue
		a, x     *Task
	}
	build := func(grouped, woken, dstRoot, dstGroup bool) fixture {
		var g *Group
		if grouped {
			g = NewGroup("g", nil, 2)
		}
		src, dst := NewRunQueue(1, preset(V71, 2)), NewRunQueue(0, preset(V71, 2))
		a, b, x := NewTask("a", Normal, 0), NewTask("b", Normal, 0), NewTask("x", Normal, 0)
		for _, e := range []*Entity{a, b, x} {
			e.SetGroup(g)
		}
		src.Fork(nil, a, 0)
		src.Fork(nil, b, 0)
		src.Schedule(0)
		src.Tick(1_000_000)
		if src.Schedule(1_000_000) != b {
			t.Fatalf("b not picked at 1 ms")
		}
		src.Sleep(a, 1_000_000)
		src.Fork(nil, x, 1_000_000)
		if woken {
			src.Wakeup(a, 1_000_000)
		}
		if dstRoot {
			dst.Fork(nil, NewTask("r", Normal, 0), 0)
		}
		if dstGroup {
			y := NewTask("y", Normal, 0)
			y.SetGroup(g)
			dst.Fork(nil, y, 0)
		}
		for _, c := range []*RunQueue{src, dst} {
			if err := cpuErrShares(c, nil, false); err != nil { // g's weight on src is refreshed lazily
				t.Fatalf("CPU invariant: %v", err)
			}
		}
		if a.Delayed() == woken || entityEligible(a.Queue(), a) || !entityEligible(x.Queue(), x) {
			t.Fatalf("fixture: a delayed %t, a eligible %t, x eligible %t; want %t, false, true",
				a.Delayed(), entityEligible(a.Queue(), a), entityEligible(x.Queue(), x), !woken)
		}
		return fixture{src: src, dst: dst, a: NewSMPTask(a, all, 1), x: NewSMPTask(x, all, 1)}
	}
	for _, tc := range []struct {
		name              string
		v                 Version
		grouped, woken    bool
		dstRoot, dstGroup bool
		useX              bool
		m                 smp.MigrationType
		failed            int
		ok                bool
		reason            MigrateReason
		wantFlags         LBFlags
	}{
		{"delayed, migrate_task", V71, false, false, false, false, false, smp.MigrateTask, 0, false, migrateDelayed, LBFAllPinned},
		{"delayed, migrate_util", V71, false, false, false, false, false, smp.MigrateUtil, 3, false, migrateDelayed, LBFAllPinned},
		{"delayed, migrate_misfit", V71, false, false, false, false, false, smp.MigrateMisfit, 3, false, migrateDelayed, LBFAllPinned},
		{"delayed, migrate_load, idle destination", V71, false, false, false, false, false, smp.MigrateLoad, 0, true, migrateOK, 0},
		{"delayed, migrate_load, busy destination", V71, false, false, true, false, false, smp.MigrateLoad, 0, false, migrateIneligible, LBFAllPinned},
		{"delayed, migrate_load, busy destination, failed once", V71, false, false, true, false, false, smp.MigrateLoad, 1, true, migrateOK, 0},
		{"ineligible, busy destination", V71, false, true, true, false, false, smp.MigrateTask, 0, false, migrateIneligible, LBFAllPinned},
		{"ineligible, idle destination", V71, false, true, false, false, false, smp.MigrateTask, 0, true, migrateOK, 0},
		{"eligible, busy destination", V71, false, true, true, false, true, smp.MigrateTask, 0, true, migrateOK, 0},
		{"grouped ineligible, group idle on destination", V71, true, true, true, false, false, smp.MigrateTask, 0, true, migrateOK, 0},
		{"grouped ineligible, group busy on destination", V71, true, true, false, true, false, smp.MigrateTask, 0, false, migrateIneligible, LBFAllPinned},
		{"v6.5 balancer: delayed, migrate_task", V65, false, false, true, false, false, smp.MigrateTask, 0, true, migrateOK, 0},
		{"v6.5 balancer: ineligible, busy destination", V65, false, true, true, false, false, smp.MigrateTask, 0, true, migrateOK, 0},
	} {
		f := build(tc.grouped, tc.woken, tc.dstRoot, tc.dstGroup)
		tk := f.a
		if tc.useX {
			tk = f.x
		}
		st := statsFor(topo, map[topology.CPU]uint32{1: 3})
		env := &LBEnv{SD: sd, DstCPU: 0, Idle: smp.CPUIdle, CPUs: sd.Span(), Stats: st, NrBalanceFailed: tc.failed}
		sp := defaultSMPParams(tc.v)
		me := &MigrateEnv{LBEnv: env, Src: 1, SrcRQ: f.src, DstRQ: f.dst, Now: 10_000_000, Migration: tc.m, Imbalance: 1 << 20,
			Flags: LBFAllPinned, DstGroupMask: sd.Group(0).balanceMask()}
		v, why := CanMigrateTask(me, tk, &sp)
		if v.OK != tc.ok || why != tc.reason || v.Flags != tc.wantFlags {
			t.Errorf("%s: CanMigrateTask = %t, %v, flags %v; want %t, %v, %v", tc.name, v.OK, why, v.Flags, tc.ok, tc.reason, tc.wantFlags)
		}
	}
}
