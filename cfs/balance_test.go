package cfs

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// The expected values below are worked out by hand from kernel/sched/fair.c of v6.5
// (sndrzt/linux-6.5 @ f5744aac0f310da830e37f4e58136a92ed7f7195, blob b3e25be58e2b):
// group_classify, group_has_capacity, group_is_overloaded, find_busiest_group,
// calculate_imbalance, find_busiest_queue, adjust_numa_imbalance, get_sd_balance_interval and
// update_idle_cpu_scan; and kernel/sched/topology.c (blob d3a3b2646ec4) for imb_numa_nr.

func TestClassifyGroup(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    groupStats
		imb  bool
		want groupType
	}{
		{"3 tasks on 2 CPUs, util full", groupStats{SumNrRunning: 3, GroupWeight: 2, GroupCapacity: 2048, GroupUtil: 2048, GroupRunnable: 3072}, false, groupOverloaded},
		{"3 tasks on 2 CPUs, runnable beyond pct", groupStats{SumNrRunning: 3, GroupWeight: 2, GroupCapacity: 2048, GroupUtil: 1500, GroupRunnable: 3072}, false, groupOverloaded},
		{"3 tasks on 2 CPUs, little util and runnable", groupStats{SumNrRunning: 3, GroupWeight: 2, GroupCapacity: 2048, GroupUtil: 1500, GroupRunnable: 2300}, false, groupHasSpare},
		{"2 tasks on 2 CPUs, util full", groupStats{SumNrRunning: 2, GroupWeight: 2, GroupCapacity: 2048, GroupUtil: 2048, GroupRunnable: 2048}, false, groupFullyBusy},
		{"2 tasks on 2 CPUs, util 1750 (= cap*100/117 rounded down)", groupStats{SumNrRunning: 2, GroupWeight: 2, GroupCapacity: 2048, GroupUtil: 1750, GroupRunnable: 2048}, false, groupHasSpare},
		{"2 tasks on 2 CPUs, util 1751", groupStats{SumNrRunning: 2, GroupWeight: 2, GroupCapacity: 2048, GroupUtil: 1751, GroupRunnable: 2048}, false, groupFullyBusy},
		{"1 task on 2 CPUs", groupStats{SumNrRunning: 1, GroupWeight: 2, GroupCapacity: 2048, GroupUtil: 2048, GroupRunnable: 1024}, false, groupHasSpare},
		{"imbalanced flag", groupStats{SumNrRunning: 1, GroupWeight: 2, GroupCapacity: 2048, GroupUtil: 1024, GroupRunnable: 1024}, true, groupImbalanced},
		{"overloaded beats imbalanced", groupStats{SumNrRunning: 3, GroupWeight: 2, GroupCapacity: 2048, GroupUtil: 2048, GroupRunnable: 3072}, true, groupOverloaded},
		{"misfit", groupStats{SumNrRunning: 1, GroupWeight: 4, GroupCapacity: 2400, GroupUtil: 600, GroupRunnable: 1024, MisfitTaskLoad: 1023}, false, groupMisfitTask},
	} {
		if got := groupClassify(117, tc.imb, &tc.s); got != tc.want {
			t.Errorf("%s: ClassifyGroup(117, %t, %+v) = %v, want %v", tc.name, tc.imb, tc.s, got, tc.want)
		}
	}
}

func TestAdjustNumaImbalance(t *testing.T) {
	for _, tc := range []struct{ imb, dst, nr, want int32 }{
		{2, 1, 2, 0},  // small imbalance tolerated while the destination is lightly loaded
		{3, 1, 2, 3},  // more than NUMA_IMBALANCE_MIN
		{2, 3, 2, 2},  // destination above imb_numa_nr: no tolerance
		{-1, 1, 4, 0}, // the wrapped idle difference of calculate_imbalance arrives as -1
		{-1, 5, 4, -1},
	} {
		if got := adjustNumaImbalance(tc.imb, tc.dst, tc.nr); got != tc.want {
			t.Errorf("AdjustNumaImbalance(%d, %d, %d) = %d, want %d", tc.imb, tc.dst, tc.nr, got, tc.want)
		}
	}
}

func TestBalanceInterval(t *testing.T) {
	for _, tc := range []struct {
		ms, hz, ncpus int
		busy          bool
		want          int64
	}{
		{6, 250, 24, false, 2}, // 6 ms = 1.5 jiffies, rounded up
		{6, 250, 24, true, 23}, // 96 ms = 24 jiffies, minus 1
		{2, 1000, 2, true, 31}, // 32 ms - 1
		{1024, 250, 1024, true, 4095},
		{48, 100, 1, true, 10}, // clamped to HZ*ncpus/10
		{1, 100, 24, false, 1}, // at least one jiffy
		{512, 1000, 24, false, 512},
	} {
		if got := balanceInterval(tc.ms, 16, tc.busy, tc.hz, tc.ncpus); got != tc.want {
			t.Errorf("BalanceInterval(%d, 16, %t, %d, %d) = %d, want %d", tc.ms, tc.busy, tc.hz, tc.ncpus, got, tc.want)
		}
	}
}

func TestIdleCPUScan(t *testing.T) {
	for _, tc := range []struct {
		sum  uint64
		llc  int
		want int
	}{
		{0, 6, 6},
		{6 * 512, 6, 3},    // x = 512: 512²·117²/(10000·1024) = 350; (1024-350)·6/1024 = 3
		{6 * 875, 6, 0},    // x = 875 ≈ 1024·100/117: the scan stops
		{6 * 1024, 6, 0},   // saturated
		{16 * 256, 16, 14}, // x = 256: 87; (1024-87)·16/1024 = 14
	} {
		if got := idleCPUScan(tc.sum, tc.llc, 117); got != tc.want {
			t.Errorf("IdleCPUScan(%d, %d, 117) = %d, want %d", tc.sum, tc.llc, got, tc.want)
		}
	}
}

// statsFor builds idle statistics for every CPU of t and applies set for some of them: nr hogs
// of nice 0 each on a CPU, with full utilisation when nr > 0.
func statsFor(t *topology.Topology, nr map[topology.CPU]uint32) []smp.CPUStat {
	st := make([]smp.CPUStat, t.NumIDs())
	for c := range t.CPUs().All() {
		cp := uint64(t.Capacity(c))
		n := nr[c]
		st[c] = smp.CPUStat{NrRunning: n, HNrRunning: n, Load: 1024 * uint64(n), Runnable: 1024 * uint64(n), Capacity: cp, CapacityOrig: cp}
		if n > 0 {
			st[c].Util = cp
		}
	}
	return st
}

func TestFindBusiestGroup(t *testing.T) {
	llc0 := map[topology.CPU]uint32{}
	for _, c := range []topology.CPU{0, 1, 2, 12, 13, 14} {
		llc0[c] = 2
	}
	full0 := map[topology.CPU]uint32{}
	for _, c := range []topology.CPU{0, 1, 2, 12, 13, 14} {
		full0[c] = 1
	}
	for _, tc := range []struct {
		name      string
		topo      *topology.Topology
		dst       topology.CPU
		level     int
		idle      smp.IdleType
		nr        map[topology.CPU]uint32
		group     string // "" for balanced
		reason    BalanceReason
		migration smp.MigrationType
		imbalance int64
	}{
		// FourLLC PKG from idle cpu3: LLC0 runs 12 hogs on 6 CPUs (overloaded, avg_load 2048);
		// the MC child prefers siblings, local has spare, 12 > 0+1: forced; across LLCs an
		// overloaded busiest gives migrate_util of the local spare capacity, 6144 - 0.
		{"FourLLC overloaded LLC, idle dst", topology.FourLLC(), 3, 2, smp.CPUIdle, llc0, "{0-2,12-14}", forcePreferSibling, smp.MigrateUtil, 6144},
		// LLC0 fully busy (6 hogs on 6 CPUs): prefer sibling, nr_diff 6 - 0, halved: 3 tasks.
		{"FourLLC fully busy LLC, idle dst", topology.FourLLC(), 3, 2, smp.CPUIdle, full0, "{0-2,12-14}", forcePreferSibling, smp.MigrateTask, 3},
		// The same from a busy cpu3 with 5 hogs in its own LLC: 6 > 5+1 fails, busiest not
		// overloaded and dst busy: balanced.
		{"FourLLC fully busy LLC, busy dst", topology.FourLLC(), 3, 2, smp.CPUNotIdle,
			map[topology.CPU]uint32{0: 1, 1: 1, 2: 1, 12: 1, 13: 1, 14: 1, 3: 1, 4: 1, 5: 1, 15: 1, 16: 1}, "", balanceDstBusy, 0, 0},
		// TwoCPU from busy cpu0 with 1 hog against 3 on cpu1: local fully busy, busiest
		// overloaded (avg 3072), domain average 2048: migrate_load min(1024·1024, 1024·1024)/1024.
		{"TwoCPU 1 vs 3 hogs", topology.TwoCPU(), 0, 0, smp.CPUNotIdle, map[topology.CPU]uint32{0: 1, 1: 3}, "{1}", forceImbalance, smp.MigrateLoad, 1024},
		// TwoCPU 2 vs 3 hogs: both overloaded; 100·3072 > 117·2048, domain average 2560:
		// migrate_load min(512·1024, 512·1024)/1024.
		{"TwoCPU 2 vs 3 hogs", topology.TwoCPU(), 0, 0, smp.CPUNotIdle, map[topology.CPU]uint32{0: 2, 1: 3}, "{1}", forceImbalance, smp.MigrateLoad, 512},
		// TwoCPU 6 vs 7 hogs: 100·7168 <= 117·6144: within imbalance_pct.
		{"TwoCPU 6 vs 7 hogs", topology.TwoCPU(), 0, 0, smp.CPUNotIdle, map[topology.CPU]uint32{0: 6, 1: 7}, "", balanceWithinPct, 0, 0},
		// TwoCPU 3 vs 2 hogs: the local group is the busier one.
		{"TwoCPU 3 vs 2 hogs", topology.TwoCPU(), 0, 0, smp.CPUNotIdle, map[topology.CPU]uint32{0: 3, 1: 2}, "", balanceLocalAvgAbove, 0, 0},
		// TwoCPU idle cpu0, one hog on cpu1: a single CPU group running one task.
		{"TwoCPU idle vs 1 hog", topology.TwoCPU(), 0, 0, smp.CPUIdle, map[topology.CPU]uint32{1: 1}, "", balanceSingleTask, 0, 0},
		// TwoCPU idle cpu0, 2 hogs on cpu1: busiest overloaded, single CPUs do not share the
		// LLC here (no cache information): migrate_util of cpu0's capacity.
		{"TwoCPU idle vs 2 hogs", topology.TwoCPU(), 0, 0, smp.CPUIdle, map[topology.CPU]uint32{1: 2}, "{1}", forceImbalance, smp.MigrateUtil, 1024},
		// Nothing to pull anywhere.
		{"FourNode all idle", topology.FourNode(), 4, 0, smp.CPUIdle, nil, "", balanceNoBusiest, 0, 0},
		// TwoSocketSMT MC from idle cpu1: core {0,8} runs 3 hogs (overloaded); the SMT child
		// prefers siblings: local has spare; inside the LLC, migrate_task: nr_diff 3, halved: 1.
		{"TwoSocketSMT core overloaded", topology.TwoSocketSMT(), 1, 1, smp.CPUIdle, map[topology.CPU]uint32{0: 2, 8: 1}, "{0,8}", forcePreferSibling, smp.MigrateTask, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := NewDomains(tc.topo, smp.GroupsPerCPU)
			sd := &ds.Chain(tc.dst)[tc.level]
			env := LBEnv{SD: sd, DstCPU: tc.dst, Idle: tc.idle, CPUs: sd.Span(), Stats: statsFor(tc.topo, tc.nr)}
			sp := defaultSMPParams(V65)
			d, why := FindBusiestGroup(&env, &sp)
			got := ""
			if d.Group != nil {
				got = d.Group.String()
			}
			if got != tc.group || why != tc.reason || (d.Group != nil && (d.Migration != tc.migration || d.Imbalance != tc.imbalance)) {
				t.Errorf("FindBusiestGroup at %v = %q %v %v %d, want %q %v %v %d\n%v", sd, got, why, d.Migration, d.Imbalance,
					tc.group, tc.reason, tc.migration, tc.imbalance, d.Explain(why))
			}
		})
	}
}

func TestFindBusiestQueue(t *testing.T) {
	topo := topology.FourLLC()
	ds := NewDomains(topo, smp.GroupsPerCPU)
	sd := &ds.Chain(3)[2]
	g := sd.Group(3) // LLC0 seen from cpu3's ring
	if g.String() != "{0-2,12-14}" {
		t.Fatalf("group 3 of %v is %v", sd, g)
	}
	st := statsFor(topo, map[topology.CPU]uint32{0: 1, 1: 3, 2: 2, 12: 2, 13: 1})
	st[12].Load = 5000 // heavier tasks on cpu12
	st[12].Util = 700
	st[1].Util = 900
	st[13].Load = 9000 // a single heavy task
	env := LBEnv{SD: sd, DstCPU: 3, Idle: smp.CPUIdle, CPUs: sd.Span(), Stats: st}
	sp := defaultSMPParams(V65)
	for _, tc := range []struct {
		m    smp.MigrationType
		imb  int64
		want topology.CPU
		ok   bool
	}{
		{smp.MigrateLoad, 8000, 12, true}, // cpu13's lone task (9000) exceeds the imbalance
		{smp.MigrateLoad, 10000, 13, true},
		// The largest cpu_util_cfs_boost among CPUs with more than one task (fair.c v6.5
		// find_busiest_queue): max(util, runnable) capped at capacity_orig, so with two or
		// more tasks every CPU reaches its capacity, and the first in the group (cpu1) keeps
		// the tie although cpu2's own util (1024) is higher than cpu1's (900).
		{smp.MigrateUtil, 1, 1, true},
		{smp.MigrateTask, 1, 1, true}, // most tasks, first found on ties
		{smp.MigrateMisfit, 1, 0, false},
	} {
		d := BusiestGroup{Group: g, Migration: tc.m, Imbalance: tc.imb}
		got, ok := FindBusiestQueue(&env, &d, &sp)
		if got != tc.want || ok != tc.ok {
			t.Errorf("FindBusiestQueue(%v, imbalance %d) = %v, %t, want %v, %t", tc.m, tc.imb, got, ok, tc.want, tc.ok)
		}
	}
}

func TestShouldWeBalance(t *testing.T) {
	topo := topology.FourLLC()
	ds := NewDomains(topo, smp.GroupsPerCPU)
	st := statsFor(topo, map[topology.CPU]uint32{3: 1})
	sp := defaultSMPParams(V65)
	for _, tc := range []struct {
		dst  topology.CPU
		idle smp.IdleType
		want bool
	}{
		{4, smp.CPUIdle, true},       // first idle CPU of LLC1's balance mask {3-5,15-17}: cpu4
		{5, smp.CPUIdle, false},      // not the first idle one
		{3, smp.CPUNotIdle, false},   // busy, and an idle CPU exists in the group
		{5, smp.CPUNewlyIdle, true},  // newly idle CPUs always may
		{3, smp.CPUNewlyIdle, false}, // but not with a task queued
	} {
		sd := &ds.Chain(tc.dst)[2]
		env := LBEnv{SD: sd, DstCPU: tc.dst, Idle: tc.idle, CPUs: sd.Span(), Stats: st}
		if got := ShouldWeBalance(&env, &sp); got != tc.want {
			t.Errorf("ShouldWeBalance(cpu%d, %v) = %t, want %t", tc.dst, tc.idle, got, tc.want)
		}
	}
}

func TestDomainsFourNode(t *testing.T) {
	topo := topology.FourNode()
	fixed := NewDomains(topo, smp.GroupsPerCPU)
	bug := NewDomains(topo, smp.GroupsFirstCPU)
	groups := func(d *SchedDomain) string {
		s := ""
		for i := range d.NumGroups() {
			s += d.Group(i).String()
		}
		return s
	}
	top := func(ds *Domains, c topology.CPU) *SchedDomain {
		ch := ds.Chain(c)
		return &ch[len(ch)-1]
	}
	for _, tc := range []struct {
		ds   *Domains
		cpu  topology.CPU
		want string
	}{
		{fixed, 0, "{0-5}{2-7}"},
		{fixed, 4, "{0-1,4-7}{0-3,6-7}"},
		{fixed, 2, "{0-3,6-7}{0-1,4-7}"},
		{bug, 0, "{0-5}{2-7}"},
		{bug, 4, "{0-5}{2-7}"},
		{bug, 2, "{0-5}{2-7}"},
	} {
		if got := groups(top(tc.ds, tc.cpu)); got != tc.want {
			t.Errorf("%v: top groups of cpu%d = %s, want %s", tc.ds.mode, tc.cpu, got, tc.want)
		}
	}
	// build_balance_mask: of cpu4's local top group {0-1,4-7} only cpu4 and cpu5 have it as
	// their own child span at that level.
	if got := top(fixed, 4).Group(0).balanceMask(); got != topology.CPUSetOf(4, 5) {
		t.Errorf("balance mask of cpu4's top local group = %v, want 4-5", got)
	}
	// imb_numa_nr (build_sched_domains, topology.c v6.5), computed on the chain as built,
	// before the node level degenerates: the first level above the 2-CPU LLC is that node level
	// (2 CPUs, one LLC), so nr_llcs = 1 and imb = max(1, 2>>3) = 1; imb_span is the first NUMA
	// level's 4 CPUs, so the NUMA levels of 4, 6 and 8 CPUs get 1·1, 1·max(1, 6/4) = 1 and
	// 1·(8/4) = 2. (Computed on the chain after degenerate removal, as the model once did, the
	// first level above the LLC would be the 4-CPU NUMA level and every value 2.)
	ch := fixed.Chain(0)
	var got []int
	for i := range ch {
		got = append(got, ch[i].imbNumaNr)
	}
	if fmt.Sprint(got) != "[0 1 1 2]" {
		t.Errorf("imb_numa_nr along cpu0's chain %v, want [0 1 1 2]", got)
	}
	// TwoSocketSMT, built as SMT, CLS, MC (the 8-CPU socket, the LLC), PKG and NODE (the same
	// 8 CPUs, both degenerate), NUMA (16): the first level above the LLC is PKG with one LLC,
	// imb = max(1, 8>>3) = 1, imb_span the first SD_NUMA level's 16 CPUs (NODE has no SD_NUMA),
	// so NUMA gets 1·(16/16) = 1.
	two := NewDomains(topology.TwoSocketSMT(), smp.GroupsPerCPU)
	tch := two.Chain(0)
	if last := tch[len(tch)-1]; last.imbNumaNr != 1 {
		t.Errorf("TwoSocketSMT: imb_numa_nr of cpu0's top domain = %d, want 1", last.imbNumaNr)
	}
	if fixed.llcSize(0) != 2 || !fixed.shareCache(0, 1) || fixed.shareCache(1, 2) {
		t.Errorf("LLC of cpu0: size %d, shares with cpu1 %t, with cpu2 %t", fixed.llcSize(0), fixed.shareCache(0, 1), fixed.shareCache(1, 2))
	}
}
