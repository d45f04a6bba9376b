package cfs

import (
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// Expected placements worked out from select_task_rq_fair, wake_wide, wake_affine,
// select_idle_sibling, select_idle_cpu, select_idle_core, find_idlest_group and
// find_idlest_group_cpu of kernel/sched/fair.c v6.5 (sndrzt/linux-6.5 @
// f5744aac0f310da830e37f4e58136a92ed7f7195, blob b3e25be58e2b).

func TestWakeWide(t *testing.T) {
	for _, tc := range []struct {
		waker, wakee uint32
		llc          int
		want         bool
	}{
		{0, 0, 8, false},
		{64, 8, 8, true},  // slave 8 >= 8, master 64 >= 8·8
		{63, 8, 8, false}, // master below slave·llc
		{8, 64, 8, true},  // symmetric
		{100, 7, 8, false},
	} {
		if got := wakeWide(tc.waker, tc.wakee, tc.llc); got != tc.want {
			t.Errorf("WakeWide(%d, %d, %d) = %t, want %t", tc.waker, tc.wakee, tc.llc, got, tc.want)
		}
	}
}

// smp65 returns v6.5's default SMP tunables, a fresh copy for each caller.
func smp65() *smp.Params {
	p := defaultSMPParams(V65)
	return &p
}

func wakeFixture(topo *topology.Topology, nr map[topology.CPU]uint32, allowed topology.CPUSet) *WakeEnv {
	ds := NewDomains(topo, smp.GroupsPerCPU)
	n := topo.NumIDs()
	env := &WakeEnv{Domains: ds, Stats: statsFor(topo, nr),
		HasIdleCores: make([]bool, n), NrIdleScan: make([]int, n)}
	for c := range topo.CPUs().All() {
		env.NrIdleScan[ds.llcid(c)] = ds.llcSize(c)
		env.Stats[c].IdleStamp = 1
	}
	e := NewTask("p", Normal, 0)
	env.Task = NewSMPTask(e, allowed, 0)
	return env
}

func TestSelectIdleSibling(t *testing.T) {
	topo := topology.TwoSocketSMT() // LLC0 = cpu0-3,8-11; core k = {k, k+8}
	all := topo.CPUs()
	for _, tc := range []struct {
		name        string
		nr          map[topology.CPU]uint32
		prev, tgt   topology.CPU
		recent      topology.CPU
		idleCores   bool
		scan        int
		want        topology.CPU
		reason      PlaceReason
		clearIdleCr bool
	}{
		{"target idle", map[topology.CPU]uint32{1: 1}, 1, 0, 1, true, 8, 0, placeTargetIdle, false},
		{"prev idle, same LLC", map[topology.CPU]uint32{0: 1}, 2, 0, 2, true, 8, 2, placePrevIdle, false},
		{"recent idle", map[topology.CPU]uint32{0: 1, 2: 1}, 2, 0, 3, true, 8, 3, placeRecentIdle, false},
		// cpu0 and cpu1 busy: scan from cpu1 for an idle core; core {1,9} is half busy (cpu9
		// remembered), core {2,10} is idle.
		{"idle core", map[topology.CPU]uint32{0: 1, 1: 1}, 1, 0, 1, true, 8, 2, placeIdleCore, false},
		// No idle core known: an idle SMT sibling of prev first.
		{"idle smt sibling of prev", map[topology.CPU]uint32{0: 1, 1: 1}, 1, 0, 1, false, 8, 9, placeIdleSMT, false},
		// Every core of LLC0 half busy: the scan for an idle core fails, keeps the first idle
		// thread it saw (cpu9, the sibling of cpu1 where the scan starts), and clears the hint.
		{"no idle core left", map[topology.CPU]uint32{0: 1, 1: 1, 2: 1, 3: 1}, 1, 0, 1, true, 8, 9, placeIdleCPU, true},
		// SIS_UTIL bound: nr_idle_scan 0 means no scan at all.
		{"scan bound 0", map[topology.CPU]uint32{0: 1, 1: 1, 9: 1, 2: 1, 10: 1}, 1, 0, 1, false, 0, 0, placeTargetBusy, false},
		// Without an idle core: the idle CPU scan from cpu1: cpu1, 2 busy, 3 idle.
		{"idle cpu", map[topology.CPU]uint32{0: 1, 8: 1, 1: 1, 9: 1, 2: 1, 10: 1}, 1, 0, 1, false, 8, 3, placeIdleCPU, false},
		{"all busy", map[topology.CPU]uint32{0: 1, 1: 1, 2: 1, 3: 1, 8: 1, 9: 1, 10: 1, 11: 1}, 1, 0, 1, true, 8, 0, placeTargetBusy, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := wakeFixture(topo, tc.nr, all)
			env.Task.recentUsedCPU = tc.recent
			env.HasIdleCores[env.Domains.llcid(tc.tgt)] = tc.idleCores
			env.NrIdleScan[env.Domains.llcid(tc.tgt)] = tc.scan
			pl, why := SelectIdleSibling(env, tc.prev, tc.tgt, smp65())
			if pl.CPU != tc.want || why != tc.reason || pl.ClearIdleCores != tc.clearIdleCr {
				t.Errorf("SelectIdleSibling(prev %v, target %v) = %v %v clear %t, want %v %v %t", tc.prev, tc.tgt, pl.CPU, why, pl.ClearIdleCores, tc.want, tc.reason, tc.clearIdleCr)
			}
		})
	}
}

func TestWakeAffine(t *testing.T) {
	topo := topology.TwoSocketSMT()
	for _, tc := range []struct {
		name       string
		nr         map[topology.CPU]uint32
		this, prev topology.CPU
		sync       bool
		want       bool
	}{
		{"this idle, shares cache, prev busy", map[topology.CPU]uint32{1: 1}, 0, 1, false, true},
		{"both idle, same cache: prev", nil, 0, 1, false, false},
		{"prev idle, other socket", map[topology.CPU]uint32{0: 1}, 0, 4, false, false},
		{"sync, waker alone", map[topology.CPU]uint32{0: 1, 4: 2}, 0, 4, true, true},
		// WA_WEIGHT: this 1 task + wakee 1024 → 2048·100·1024 vs prev (3072-1024)·108·1024: this wins.
		{"weight: this lighter", map[topology.CPU]uint32{0: 1, 4: 3}, 0, 4, false, true},
		// this 2 tasks: 3072·100 vs prev 2 tasks (2048-1024)·108: prev.
		{"weight: this heavier", map[topology.CPU]uint32{0: 2, 4: 2}, 0, 4, false, false},
	} {
		env := wakeFixture(topo, tc.nr, topo.CPUs())
		env.Sync = tc.sync
		sd := env.Domains.Chain(tc.this)[len(env.Domains.Chain(tc.this))-1]
		if got := WakeAffine(env, &sd, tc.this, tc.prev, smp65()); got != tc.want {
			t.Errorf("%s: WakeAffine(this %v, prev %v) = %t, want %t", tc.name, tc.this, tc.prev, got, tc.want)
		}
	}
}

func TestSelectTaskRQFork(t *testing.T) {
	topo := topology.FourLLC()
	// LLC0 (cpu0-2,12-14) fully busy; a fork from cpu0 goes to the idlest LLC (the first of the
	// equally idle ones in cpu0's ring, LLC1), then to its first CPU that went idle most
	// recently (all stamps equal: the first, cpu3).
	nr := map[topology.CPU]uint32{}
	for _, c := range []topology.CPU{0, 1, 2, 12, 13, 14} {
		nr[c] = 1
	}
	env := wakeFixture(topo, nr, topo.CPUs())
	env.This, env.Prev, env.Fork = 0, 0, true
	pl, why := SelectTaskRQ(env, smp65())
	if pl.CPU != 3 || why != placeIdlest {
		t.Errorf("fork placement = %v, want cpu3 by the slow path", pl.Explain(why))
	}
	// Pinned to cpu12-14: the slow path stays in LLC0; everything busy, least loaded first.
	env = wakeFixture(topo, nr, topology.CPUSetOf(12, 13, 14))
	env.This, env.Prev, env.Fork = 0, 0, true
	pl, why = SelectTaskRQ(env, smp65())
	if pl.CPU != 12 {
		t.Errorf("pinned fork placement = %v, want cpu12", pl.Explain(why))
	}
	// A wakeup of a task whose previous CPU is idle and cache-affine goes there.
	env = wakeFixture(topo, nr, topo.CPUs())
	env.This, env.Prev = 0, 3
	pl, why = SelectTaskRQ(env, smp65())
	if pl.CPU != 3 || !pl.wantAffine {
		t.Errorf("wakeup placement = %v, want cpu3 (previous CPU, idle)", pl.Explain(why))
	}
	// Disallowed previous CPU: the fallback picks the first allowed CPU of prev's node.
	env = wakeFixture(topo, nr, topology.CPUSetOf(20))
	env.This, env.Prev = 0, 3
	pl, why = SelectTaskRQ(env, smp65())
	if pl.CPU != 20 {
		t.Errorf("wakeup of a task pinned to cpu20 = %v, want cpu20", pl.Explain(why))
	}
}
