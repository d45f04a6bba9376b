package cfs

import "testing"

// TestAvgVruntimeFloorOddWeight checks the floor of v7.1's avg_vruntime (kernel/sched/fair.c
// v7.1.5 blob abb76775aa72): a negative weighted sum S has weight-1 subtracted before
// div64_long truncates, so V = floor(S/W). Task weights are multiples of 1024 (the nice table
// scaled up), so S and W are too and S mod W is never -1, where the two differ; a group
// entity's weight, calc_group_shares clamped to [MIN_SHARES, tg->shares], need not be. Here a
// group entity of weight 1048575 sits one nanosecond right of the reference point and a nice-0
// task (1048576) one left: S = 1048575 - 1048576 = -1, W = 2097151, and floor(-1/W) = -1, where
// subtracting W-2 would have given 0. The second case puts the group entity on the CPU
// (its key joins S in avg_vruntime, as curr is not on the timeline).
func TestAvgVruntimeFloorOddWeight(t *testing.T) {
	const v0 = uint64(1) << 40
	specs := []rigSpec{
		{weight: 1048575, dv: 1, dd: 700_000, slice: 700_000},
		{nice: 0, dv: -1, dd: 700_000, slice: 700_000},
	}
	for _, tc := range []struct {
		name string
		curr int
		want int64
	}{
		{"both queued", -1, -1},
		{"group entity running", 0, -1},
	} {
		c, _ := rigEEVDF(t, preset(V71, 1), v0, specs, tc.curr)
		if got := int64(AvgVruntime(c.Root()) - v0); got != tc.want {
			t.Errorf("%s: AvgVruntime = v0%+d, want v0%+d", tc.name, got, tc.want)
		}
	}
}
