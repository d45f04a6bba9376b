package cfs

import (
	"testing"
)

// Tables: sched_prio_to_weight and sched_prio_to_wmult of kernel/sched/core.c, v6.5 (blob
// c52c2eba7c73), identical in v6.6 and v7.1.

func TestWeightTable(t *testing.T) {
	tests := []struct {
		nice   int
		weight uint64
		inv    uint32
	}{
		{-20, 88761, 48388},
		{-10, 9548, 449829},
		{-1, 1277, 3363326},
		{0, 1024, 4194304},
		{1, 820, 5237765},
		{5, 335, 12820798},
		{10, 110, 39045157},
		{19, 15, 286331153},
	}
	for _, tc := range tests {
		if got := Weight(tc.nice); got != tc.weight {
			t.Errorf("Weight(%d) = %d, want %d", tc.nice, got, tc.weight)
		}
		if got := invWeightOf(tc.nice); got != tc.inv {
			t.Errorf("invWeightOf(%d) = %d, want %d", tc.nice, got, tc.inv)
		}
	}
}

// TestWeightTableShape checks every entry against the properties the kernel's comments state:
// the inverse is 2^32/weight, within one of the exact quotient (the table mostly rounds to the
// nearest but truncates for nice 13, 14, 16 and 17), and neighbouring weights differ by about
// 1.25 (the table was hand-smoothed: the ratio varies between 1.20 and 1.28).
func TestWeightTableShape(t *testing.T) {
	for nice := minNice; nice <= maxNice; nice++ {
		w := Weight(nice)
		if lo := uint32((1 << 32) / w); invWeightOf(nice) != lo && invWeightOf(nice) != lo+1 {
			t.Errorf("invWeightOf(%d) = %d, want 2^32/%d = %d or one more", nice, invWeightOf(nice), w, lo)
		}
		if nice == maxNice {
			continue
		}
		r := float64(w) / float64(Weight(nice+1))
		if r < 1.19 || r > 1.29 {
			t.Errorf("Weight(%d)/Weight(%d) = %.3f, want about 1.25", nice, nice+1, r)
		}
	}
}

func TestScaleLoad(t *testing.T) {
	tests := []struct {
		name     string
		in, down uint64
	}{
		{"zero", 0, 0},
		{"one is floored to 2", 1, 2},
		{"2047 is floored to 2", 2047, 2},
		{"3072 is 3", 3072, 3},
		{"nice 0", NiceZeroLoad, 1024},
		{"truncates", 1024*1024 + 1023, 1024},
	}
	for _, tc := range tests {
		if got := ScaleLoadDown(tc.in); got != tc.down {
			t.Errorf("%s: ScaleLoadDown(%d) = %d, want %d", tc.name, tc.in, got, tc.down)
		}
	}
	if got := ScaleLoad(1024); got != NiceZeroLoad {
		t.Errorf("ScaleLoad(1024) = %d, want %d", got, NiceZeroLoad)
	}
}

func TestTaskLoad(t *testing.T) {
	tests := []struct {
		policy Class
		nice   int
		want   LoadWeight
	}{
		{Normal, 0, LoadWeight{1 << 20, 4194304}},
		{Batch, 5, LoadWeight{335 << 10, 12820798}},
		{Idle, 0, LoadWeight{3 << 10, 1431655765}},
		{Idle, -20, LoadWeight{3 << 10, 1431655765}}, // nice is ignored for SCHED_IDLE
	}
	for _, tc := range tests {
		if got := TaskLoad(tc.policy, tc.nice); got != tc.want {
			t.Errorf("TaskLoad(%v, %d) = %+v, want %+v", tc.policy, tc.nice, got, tc.want)
		}
	}
}

// TestInverse checks __update_inv_weight (kernel/sched/fair.c, v6.5): a cached inverse is kept,
// otherwise 0xFFFFFFFF / scale_load_down(weight), saturating at both ends.
func TestInverse(t *testing.T) {
	tests := []struct {
		name string
		lw   LoadWeight
		want uint32
	}{
		{"table inverse kept", LoadWeight{1 << 20, 4194304}, 4194304},
		{"computed nice 0", LoadWeight{Weight: 1 << 20}, 4194303},
		{"sum of two nice 0", LoadWeight{Weight: 2 << 20}, 2097151},
		{"zero weight", LoadWeight{}, 0xFFFFFFFF},
		{"tiny weight floors to 2", LoadWeight{Weight: 100}, 0x7FFFFFFF},
		{"huge weight", LoadWeight{Weight: 1 << 56}, 1},
		{"Add drops the cache", LoadWeight{1 << 20, 4194304}.add(0), 4194303},
		{"Sub drops the cache", LoadWeight{2 << 20, 1}.sub(1 << 20), 4194303},
	}
	for _, tc := range tests {
		if got := tc.lw.Inverse(); got != tc.want {
			t.Errorf("%s: %+v.Inverse() = %d, want %d", tc.name, tc.lw, got, tc.want)
		}
	}
}

func TestWeightPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
		msg  string
	}{
		{"Weight(-21)", func() { Weight(-21) }, "cfs: Weight: nice -21 outside [-20, 19]"},
		{"invWeightOf(20)", func() { invWeightOf(20) }, "cfs: invWeightOf: nice 20 outside [-20, 19]"},
		{"TaskLoad bad class", func() { TaskLoad(Class(9), 0) }, "cfs: TaskLoad: unknown class 9"},
	}
	for _, tc := range tests {
		assertPanics(t, tc.name, tc.f, tc.msg)
	}
}
