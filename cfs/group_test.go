package cfs

import (
	"strings"
	"testing"
)

// calc_group_shares (kernel/sched/fair.c v6.5, blob b3e25be58e2b) with instantaneous loads; the
// cgroup cpu.weight mapping of cpu_weight_write_u64 / cpu_weight_read_u64 (kernel/sched/core.c
// v6.5, blob c52c2eba7c73); sched_group_set_idle and __sched_group_set_shares.

func TestGroupShares(t *testing.T) {
	tests := []struct {
		name                   string
		tg, load, others, want uint64
	}{
		{"alone on one CPU: the full shares", NiceZeroLoad, 1024, 0, NiceZeroLoad},
		{"any load alone gets the full shares", NiceZeroLoad, 3, 0, NiceZeroLoad},
		{"half the group's load here", NiceZeroLoad, 1024, 1024, NiceZeroLoad / 2},
		{"a quarter", NiceZeroLoad, 1024, 3072, NiceZeroLoad / 4},
		{"truncating division", NiceZeroLoad, 1, 2, 349525},
		{"no load here: MIN_SHARES, unscaled", NiceZeroLoad, 0, 4096, 2},
		{"no load anywhere", NiceZeroLoad, 0, 0, 2},
		{"idle group", ScaleLoad(3), 1024, 0, 3072},
		{"tiny shares over many CPUs stay proportional", ScaleLoad(15), 1024, 7 * 1024, 1920},
	}
	for _, tc := range tests {
		if got := GroupShares(tc.tg, tc.load, tc.others); got != tc.want {
			t.Errorf("%s: GroupShares(%d, %d, %d) = %d, want %d", tc.name, tc.tg, tc.load, tc.others, got, tc.want)
		}
	}
}

func TestGroupWeight(t *testing.T) {
	g := NewGroup("g", nil, 1)
	if g.Shares() != NiceZeroLoad || g.CPUWeight() != 100 || g.Idle() || g.Name() != "g" || g.parent != nil {
		t.Fatalf("NewGroup = shares %d, cpu.weight %d, idle %t; want %d, 100, false", g.Shares(), g.CPUWeight(), g.Idle(), NiceZeroLoad)
	}
	tests := []struct {
		w      uint64
		shares uint64
	}{
		{1, ScaleLoad(10)}, {33, ScaleLoad(338)}, {100, NiceZeroLoad}, {200, ScaleLoad(2048)}, {10000, ScaleLoad(102400)},
	}
	for _, tc := range tests {
		if err := g.SetCPUWeight(tc.w); err != nil {
			t.Fatalf("SetCPUWeight(%d) = %v", tc.w, err)
		}
		if g.Shares() != tc.shares || g.CPUWeight() != tc.w {
			t.Errorf("SetCPUWeight(%d): shares %d, cpu.weight %d; want %d, %d", tc.w, g.Shares(), g.CPUWeight(), tc.shares, tc.w)
		}
	}
	for _, w := range []uint64{0, 10001} {
		if err := g.SetCPUWeight(w); err == nil || !strings.Contains(err.Error(), "outside [1, 10000]") {
			t.Errorf("SetCPUWeight(%d) = %v, want a range error", w, err)
		}
	}
	if err := g.SetShares(1); err != nil || g.Shares() != ScaleLoad(minShares) {
		t.Errorf("SetShares(1) = %v, shares %d; want nil, %d", err, g.Shares(), ScaleLoad(minShares))
	}
	if err := g.SetShares(1 << 40); err != nil || g.Shares() != ScaleLoad(maxShares) {
		t.Errorf("SetShares(2^40) = %v, shares %d; want nil, %d", err, g.Shares(), ScaleLoad(maxShares))
	}
	g.SetIdle(true)
	if !g.Idle() || g.Shares() != 3072 {
		t.Errorf("SetIdle(true): idle %t, shares %d; want true, 3072", g.Idle(), g.Shares())
	}
	if err := g.SetShares(NiceZeroLoad); err == nil {
		t.Errorf("SetShares on an idle group = nil, want an error")
	}
	g.SetIdle(false)
	if g.Idle() || g.Shares() != NiceZeroLoad {
		t.Errorf("SetIdle(false): idle %t, shares %d; want false, %d (reset, as the kernel does)", g.Idle(), g.Shares(), NiceZeroLoad)
	}
	// sched_group_set_idle returns early when the flag does not change: custom shares stay.
	if err := g.SetCPUWeight(200); err != nil {
		t.Fatal(err)
	}
	g.SetIdle(false)
	if g.Shares() != 2*NiceZeroLoad {
		t.Errorf("SetIdle(false) on a group that is not idle: shares %d, want %d (unchanged)", g.Shares(), 2*NiceZeroLoad)
	}
}

// TestGroupOnTwoCPUs checks the group entity weights when a group's load is spread over CPUs.
func TestGroupOnTwoCPUs(t *testing.T) {
	p := DefaultParams()
	g := NewGroup("g", nil, 2)
	c0, c1 := NewRunQueue(0, p), NewRunQueue(1, p)
	a, b, x := NewTask("a", Normal, 0), NewTask("b", Normal, 0), NewTask("x", Normal, 0)
	a.SetGroup(g)
	b.SetGroup(g)
	c0.Fork(nil, a, 0)
	c0.Fork(nil, x, 0)
	if w := g.Entity(c0).Load().Weight; w != NiceZeroLoad {
		t.Errorf("group entity weight with all its load on CPU 0 = %d, want %d", w, NiceZeroLoad)
	}
	c1.Fork(nil, b, 0)
	// CPU 1's entity is weighed when b is enqueued there; CPU 0's only at its next update.
	if w := g.Entity(c1).Load().Weight; w != NiceZeroLoad/2 {
		t.Errorf("group entity weight on CPU 1 with half the load = %d, want %d", w, NiceZeroLoad/2)
	}
	c0.Schedule(0)
	c0.Tick(1_000_000)
	if w := g.Entity(c0).Load().Weight; w != NiceZeroLoad/2 {
		t.Errorf("group entity weight on CPU 0 after a tick = %d, want %d", w, NiceZeroLoad/2)
	}
	checkCPU(t, c0, nil)
	checkCPU(t, c1, nil)
	if g.queue(c1).HNrRunning() != 1 || g.Entity(c1).group != g || g.Entity(c1).myQueue() != g.queue(c1) {
		t.Errorf("group state on CPU 1 is not linked as expected")
	}
	if NewGroup("h", nil, 2).Entity(c0) != nil || NewGroup("h", nil, 2).queue(c0) != nil {
		t.Errorf("an unused group reports state on a CPU")
	}
}

func TestGroupPanics(t *testing.T) {
	c := NewRunQueue(0, DefaultParams())
	g := NewGroup("g", nil, 1)
	a := NewTask("a", Normal, 0)
	a.SetGroup(g)
	c.Fork(nil, a, 0)
	assertPanics(t, "NewGroup 0 CPUs", func() { NewGroup("x", nil, 0) }, "cfs: NewGroup: 0 CPUs")
	assertPanics(t, "SetShares busy", func() { _ = g.SetShares(5000) }, "cfs: Group.SetShares of a group with queued entities")
	assertPanics(t, "SetIdle busy", func() { g.SetIdle(true) }, "cfs: Group.SetIdle of a group with queued entities")
	assertPanics(t, "group used on a CPU it was not made for", func() {
		b := NewTask("b", Normal, 0)
		b.SetGroup(NewGroup("small", nil, 1))
		NewRunQueue(3, DefaultParams()).Fork(nil, b, 0)
	}, `cfs: group "small" was created for 1 CPUs, used on CPU 3`)
}
