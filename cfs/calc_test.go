package cfs

import "testing"

// The expected values below follow kernel/sched/fair.c of v6.5 (blob b3e25be58e2b: __calc_delta,
// __update_inv_weight, calc_delta_fair) and, for DeltaDiv, the 64-bit __calc_delta of v7.1.5
// (blob abb76775aa72, commit db4551e2ba34). They were worked out by evaluating those formulas
// step by step with unsigned 128-bit products, independently of this package.

func TestCalcDeltaFair(t *testing.T) {
	tests := []struct {
		name       string
		delta      uint64
		lw         LoadWeight
		wmult, div uint64
	}{
		{"nice -20", 1_000_000, TaskLoad(Normal, -20), 11536, 11536},
		{"nice -10", 1_000_000, TaskLoad(Normal, -10), 107247, 107247},
		{"nice -1", 1_000_000, TaskLoad(Normal, -1), 801879, 801879},
		{"nice 0 is the identity", 1_000_000, TaskLoad(Normal, 0), 1_000_000, 1_000_000},
		{"nice 1", 1_000_000, TaskLoad(Normal, 1), 1248780, 1248780},
		{"nice 5", 1_000_000, TaskLoad(Normal, 5), 3056716, 3056716},
		{"nice 19", 1_000_000, TaskLoad(Normal, 19), 68266666, 68266666},
		{"SCHED_IDLE", 1_000_000, TaskLoad(Idle, 0), 341333333, 341333333},
		{"nice 19, 3 ms: wmult rounds down", 3_000_000, TaskLoad(Normal, 19), 204799999, 204800000},
		{"weight exactly NICE_0_LOAD without inverse is the identity", 1_000_000, LoadWeight{Weight: NiceZeroLoad}, 1_000_000, 1_000_000},
		{"weight NICE_0_LOAD+1, computed inverse", 1_000_000, LoadWeight{Weight: NiceZeroLoad + 1}, 999999, 999999},
		{"2^50 ns at SCHED_IDLE: 128-bit product vs wrapping product", 1 << 50, TaskLoad(Idle, 0), 384307168112803840, 0},
	}
	for _, tc := range tests {
		if got := CalcDeltaFair(DeltaWMult, tc.delta, tc.lw); got != tc.wmult {
			t.Errorf("%s: CalcDeltaFair(wmult, %d, %+v) = %d, want %d", tc.name, tc.delta, tc.lw, got, tc.wmult)
		}
		if got := CalcDeltaFair(DeltaDiv, tc.delta, tc.lw); got != tc.div {
			t.Errorf("%s: CalcDeltaFair(div, %d, %+v) = %d, want %d", tc.name, tc.delta, tc.lw, got, tc.div)
		}
	}
}

func TestCalcDelta(t *testing.T) {
	tests := []struct {
		name          string
		delta, weight uint64
		lw            LoadWeight
		wmult, div    uint64
	}{
		// sched_slice of a nice-0 entity sharing a 6 ms period with another nice-0 entity:
		// the sum's computed inverse 0xFFFFFFFF/2048 makes the slice 2 ns short.
		{"half of 6 ms", 6_000_000, NiceZeroLoad, LoadWeight{Weight: 2 << 20}, 2999998, 3000000},
		{"nice 0 against nice 1", 6_000_000, 1024 << 10, LoadWeight{Weight: (1024 + 820) << 10}, 3331885, 3331887},
		{"nice 1 against nice 0", 6_000_000, 820 << 10, LoadWeight{Weight: (1024 + 820) << 10}, 2668111, 2668112},
		{"two nice-4 tasks at 8 CPUs", 24_000_000, 423 << 10, LoadWeight{Weight: 2 * 423 << 10}, 11999998, 12000000},
		{"SCHED_IDLE against nice 0", 6_000_000, 3 << 10, LoadWeight{Weight: (1024 + 3) << 10}, 17526, 17526},
		{"nice 0 against SCHED_IDLE", 6_000_000, 1024 << 10, LoadWeight{Weight: (1024 + 3) << 10}, 5982471, 5982473},
		{"zero load: inverse 0xFFFFFFFF", 1000, 1024 << 10, LoadWeight{Weight: 0}, 1023999, 0},
		{"tiny weights floor at 2", 1000, 100, LoadWeight{Weight: 100}, 999, 1000},
		// fact = 2^45 needs the first shift adjustment (fls(2^13) = 14); the load's inverse
		// saturates at 1, so the wmult result is far off the true quotient 5e8, and the
		// division's product 1e9 * 2^55 wraps to 0 modulo 2^64.
		{"huge weights: saturated inverse", 1_000_000_000, 1 << 55, LoadWeight{Weight: 1 << 56}, 8192000000000, 0},
		// __calc_delta, v6.5: fact = (2^33-4) has fact_hi 1, so shift 31 and fact 2^32-2; the
		// load's inverse is 0xFFFFFFFF/2 (scale_load_down floors 1024 at 2); the product
		// 2^63-2^33+2 has fact_hi 2^31-2, fls 31, which brings shift to exactly 0 (still
		// valid) and fact to 2^32-4: the result is 3*(2^32-4), no shift.
		{"shift brought to exactly 0", 3, (1<<33 - 4) << 10, LoadWeight{Weight: 1024}, 3 * (1<<32 - 4), 3 * (1<<33 - 4)},
		{"2^62 ns at nice 0 with the table inverse", 1 << 62, NiceZeroLoad, TaskLoad(Normal, 0), 1 << 62, 0},
	}
	for _, tc := range tests {
		if got := CalcDelta(DeltaWMult, tc.delta, tc.weight, tc.lw); got != tc.wmult {
			t.Errorf("%s: CalcDelta(wmult, %d, %d, %+v) = %d, want %d", tc.name, tc.delta, tc.weight, tc.lw, got, tc.wmult)
		}
		if tc.lw.Weight == 0 {
			continue
		}
		if got := CalcDelta(DeltaDiv, tc.delta, tc.weight, tc.lw); got != tc.div {
			t.Errorf("%s: CalcDelta(div, %d, %d, %+v) = %d, want %d", tc.name, tc.delta, tc.weight, tc.lw, got, tc.div)
		}
	}
}

// TestCalcDeltaWMultNearExact checks the wmult form against exact division on the kernel's
// real domain, every nice level converting run time to virtual time: the table inverse is within
// 1 of 2^32/w, a relative error below w/2^32, so the result delta*1024/w is off by at most about
// delta/2^22 plus 1 for the truncation. The test allows twice that.
func TestCalcDeltaWMultNearExact(t *testing.T) {
	for nice := minNice; nice <= maxNice; nice++ {
		lw := TaskLoad(Normal, nice)
		for _, delta := range []uint64{1, 999, 1_000_000, 3_000_000, 1 << 40} {
			got := CalcDeltaFair(DeltaWMult, delta, lw)
			exact := CalcDeltaFair(DeltaDiv, delta, lw)
			diff := int64(got - exact)
			if bound := int64(delta>>21) + 1; diff > bound || diff < -bound {
				t.Errorf("nice %d: CalcDeltaFair(wmult, %d) = %d, exact %d: off by %d, bound %d", nice, delta, got, exact, diff, bound)
			}
		}
	}
}

func TestCalcDeltaPanics(t *testing.T) {
	assertPanics(t, "CalcDeltaWMult negative shift", func() { calcDeltaWMult(1, 1<<52, LoadWeight{Weight: 2048}) },
		"cfs: CalcDeltaWMult: negative shift")
	assertPanics(t, "CalcDeltaDiv zero load", func() { calcDeltaDiv(1, 1, LoadWeight{}) }, "cfs: CalcDeltaDiv: zero load weight")
	assertPanics(t, "CalcDelta unknown method", func() { CalcDelta(DeltaMethod(7), 1, 1, LoadWeight{Weight: 1}) }, "cfs: CalcDelta: unknown method 7")
}

func TestMulU64U32Shr(t *testing.T) {
	tests := []struct {
		a     uint64
		m     uint32
		shift uint
		want  uint64
	}{
		{1 << 63, 2, 1, 1 << 63},
		{^uint64(0), ^uint32(0), 32, 0xfffffffeffffffff},
		{12345, 678, 0, 12345 * 678},
		{^uint64(0), 2, 0, ^uint64(0) - 1}, // truncated to 64 bits
	}
	for _, tc := range tests {
		if got := mulU64U32Shr(tc.a, tc.m, tc.shift); got != tc.want {
			t.Errorf("mulU64U32Shr(%#x, %d, %d) = %#x, want %#x", tc.a, tc.m, tc.shift, got, tc.want)
		}
	}
}
