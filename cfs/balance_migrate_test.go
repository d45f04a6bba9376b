package cfs

import (
	"testing"

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
	ds := NewDomains(topo, GroupsPerCPU)
	c := NewCPU(1, DefaultParams())
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
	env := &LBEnv{SD: sd, DstCPU: 0, Idle: CPUIdle, CPUs: sd.Span(), Stats: st, Params: DefaultSMPParams(V65)}
	return &MigrateEnv{LBEnv: env, Src: 1, SrcCPU: c, Now: 10_000_000, Migration: MigrateTask, Imbalance: 1, Flags: LBFAllPinned, DstGroupMask: sd.Group(0).BalanceMask()}, tasks, &list
}

func TestCanMigrateTask(t *testing.T) {
	all := topology.CPUSetOf(0, 1)
	only1 := topology.CPUSetOf(1)
	now := uint64(10_000_000)
	me, tasks, _ := migrateFixture(t, []uint64{now, now - 100_000, now - 1_000_000, now - 100_000},
		[]topology.CPUSet{all, all, all, only1})
	if me.SD.CacheNiceTries() != 1 {
		t.Fatalf("TwoCPU's PKG domain has cache_nice_tries %d, want 1", me.SD.CacheNiceTries())
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
		{"running", 0, 0, LBFAllPinned, 500_000, false, MigrateRunning, 0},
		{"hot, no failure", 1, 0, LBFAllPinned, 500_000, false, MigrateHot, 0},
		{"hot, failed once = cache_nice_tries", 1, 1, 0, 500_000, false, MigrateHot, 0},
		{"hot, failed twice > cache_nice_tries", 1, 2, 0, 500_000, true, MigrateHotForced, 0},
		{"cold: ran 1 ms ago", 2, 0, 0, 500_000, true, MigrateOK, 0},
		{"hot, active balance", 1, 0, LBFActiveLB, 500_000, true, MigrateActive, LBFActiveLB},
		{"migration cost 0: nothing hot", 1, 0, 0, 0, true, MigrateOK, 0},
		{"migration cost -1: everything hot", 2, 0, 0, -1, false, MigrateHot, 0},
		{"pinned elsewhere", 3, 0, LBFAllPinned, 500_000, false, MigratePinned, LBFAllPinned | LBFSomePinned},
	} {
		env := *me
		lb := *me.LBEnv
		lb.NrBalanceFailed = tc.failed
		lb.Params.MigrationCost = tc.cost
		env.LBEnv = &lb
		env.Flags = tc.flags
		v := CanMigrateTask(&env, tasks[tc.task])
		if v.OK != tc.ok || v.Reason != tc.reason || v.Flags != tc.wantFlg {
			t.Errorf("%s: CanMigrateTask = %t %v %v, want %t %v %v", tc.name, v.OK, v.Reason, v.Flags, tc.ok, tc.reason, tc.wantFlg)
		}
	}
}

func TestTaskHotIdlePolicy(t *testing.T) {
	me, tasks, _ := migrateFixture(t, []uint64{0, 10_000_000}, []topology.CPUSet{topology.CPUSetOf(0, 1), topology.CPUSetOf(0, 1)})
	tasks[1].E.policy = Idle
	if TaskHot(me, tasks[1]) {
		t.Errorf("TaskHot of a SCHED_IDLE task that just ran = true, want false")
	}
	tasks[1].E.policy = Normal
	if !TaskHot(me, tasks[1]) {
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
		idle      IdleType
		m         MigrationType
		imb       int64
		failed    int
		want      string // names of the chosen tasks in order
		examined  int
		imbalLeft int64
	}{
		// Tail first: task a (running, tail), then b, c, d; migrate_task 2 takes b and c.
		{"two tasks from the tail", []uint64{now, cold, cold, cold}, CPUNotIdle, MigrateTask, 2, 0, "bc", 3, 0},
		// A hot task is skipped while balancing has not failed enough.
		{"hot skipped", []uint64{now, hot, cold, cold}, CPUNotIdle, MigrateTask, 1, 0, "c", 3, 0},
		{"hot taken after failures", []uint64{now, hot, cold, cold}, CPUNotIdle, MigrateTask, 1, 2, "b", 2, 0},
		// An idle destination leaves the source at least one task: 3 tasks, 2 may go.
		{"idle dst keeps one", []uint64{now, cold, cold}, CPUIdle, MigrateTask, 5, 0, "bc", 3, 3},
		// Newly idle with CONFIG_PREEMPTION: one task.
		{"newly idle pulls one", []uint64{now, cold, cold}, CPUNewlyIdle, MigrateTask, 5, 0, "b", 2, 4},
		// migrate_load: each task's h_load is 1024·4096/4097 = 1023; 1500 takes one and leaves 477,
		// then 1023 > 477 skips the rest.
		{"load", []uint64{now, cold, cold, cold}, CPUNotIdle, MigrateLoad, 1500, 0, "b", 4, 477},
		// After 1 failure the load is halved for the comparison (shr_bound): 511 <= 477? no.
		// After 2 failures: 255 <= 477: the second task is taken too.
		{"load after failures", []uint64{now, cold, cold, cold}, CPUNotIdle, MigrateLoad, 1500, 2, "bc", 3, -546},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allowed := make([]topology.CPUSet, len(tc.exec))
			for i := range allowed {
				allowed[i] = all
			}
			me, _, list := migrateFixture(t, tc.exec, allowed)
			me.Idle, me.Migration, me.Imbalance, me.NrBalanceFailed = tc.idle, tc.m, tc.imb, tc.failed
			chosen, d := DetachTasks(me, list, nil)
			got := ""
			for _, tk := range chosen {
				got += tk.E.Name
			}
			if got != tc.want || d.Examined != tc.examined || d.Imbalance != tc.imbalLeft {
				t.Errorf("DetachTasks = %q examined %d imbalance %d, want %q %d %d (%v)", got, d.Examined, d.Imbalance, tc.want, tc.examined, tc.imbalLeft, d)
			}
		})
	}
}

func TestTaskHLoad(t *testing.T) {
	c := NewCPU(0, DefaultParams())
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
