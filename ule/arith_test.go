package ule_test

// Table tests for ULE's arithmetic. Expected values are worked out by hand from the kernel
// source:
//   main:   mchoo7/freebsd-src sys/kern/sched_ule.c @3521c70fa20cb998249455b3157c49b5c76262d6
//   legacy: OlCe2/freebsd-src  sys/kern/sched_ule.c @366ae94e2732ac400423aa3b111336e07c3aa779
// (the function each table follows is named in its test). Run and sleep times are in hz ticks
// shifted left by 10; hz is 1000 unless a case says otherwise.

import (
	"testing"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/ule"
)

// sched_interact_score (main and legacy are identical).
func TestInteractScore(t *testing.T) {
	const max32 = 1<<32 - 1
	tests := []struct {
		name               string
		run, slp, interact uint32
		want               int
	}{
		{"fast path r>=s", 5, 0, 30, 50},
		{"fast path both zero", 0, 0, 30, 50},
		{"fast path equal", 7000, 7000, 30, 50},
		{"sleeper scores 0", 1000, 100000, 30, 0},
		{"sleeper 10%", 10000, 100000, 30, 5},
		{"sleeper half", 50000, 100000, 30, 25},
		{"sleeper just below r==s", 99999, 100000, 30, 49},
		{"truncated div exceeds 50", 98, 99, 30, 98},
		{"huge sleep", 0, max32, 30, 0},
		{"thresh>50 both zero", 0, 0, 60, 0},
		{"thresh>50 equal", 7, 7, 60, 50},
		{"thresh>50 runner", 1000, 500, 100, 75},
		{"thresh>50 u_int wrap", 99, 98, 60, 2},
		{"thresh>50 near max", max32, max32 - 1, 100, 50},
		{"thresh 50 still fast", 10, 5, 50, 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ule.InteractScore(tc.run, tc.slp, tc.interact); got != tc.want {
				t.Errorf("InteractScore(%d, %d, %d) = %d, want %d", tc.run, tc.slp, tc.interact, got, tc.want)
			}
		})
	}
}

// sched_interact_update: SCHED_SLP_RUN_MAX = 5,120,000 at hz 1000; 2*max = 10,240,000;
// max/5*6 = 6,144,000.
func TestInteractUpdate(t *testing.T) {
	tests := []struct {
		name             string
		run, slp         uint32
		hz               int
		wantRun, wantSlp uint32
	}{
		{"below max", 1_000_000, 4_000_000, 1000, 1_000_000, 4_000_000},
		{"at max: scale 4/5", 5_119_999, 1, 1000, 4_095_996, 0},
		{"at 6,144,000: still 4/5", 6_144_000, 0, 1000, 4_915_200, 0},
		{"above 6/5 max: halve", 6_144_001, 0, 1000, 3_072_000, 0},
		{"halve both", 3_000_000, 3_500_000, 1000, 1_500_000, 1_750_000},
		{"at 2*max: halve", 5_120_000, 5_120_000, 1000, 2_560_000, 2_560_000},
		{"over 2*max, runner", 8_000_000, 3_000_000, 1000, 5_120_000, 1},
		{"over 2*max, sleeper", 3_000_000, 8_000_000, 1000, 1, 5_120_000},
		{"over 2*max, tie goes to sleep", 6_000_000, 6_000_000, 1000, 1, 5_120_000},
		{"u_int sum wraps", 1<<32 - 1, 2, 1000, 1<<32 - 1, 2},
		{"hz 100: below max 512,000", 200_000, 300_000, 100, 200_000, 300_000},
		{"hz 100: scale 4/5", 300_000, 300_000, 100, 240_000, 240_000},
		{"hz 100: halve", 400_000, 300_000, 100, 200_000, 150_000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, s := ule.InteractUpdate(tc.run, tc.slp, tc.hz)
			if r != tc.wantRun || s != tc.wantSlp {
				t.Errorf("InteractUpdate(%d, %d, %d) = %d, %d, want %d, %d", tc.run, tc.slp, tc.hz, r, s, tc.wantRun, tc.wantSlp)
			}
		})
	}
}

// sched_interact_fork: SCHED_SLP_RUN_FORK = 512,000 at hz 1000; the sum is an int.
func TestInteractFork(t *testing.T) {
	tests := []struct {
		name             string
		run, slp         uint32
		hz               int
		wantRun, wantSlp uint32
	}{
		{"below fork", 100_000, 400_000, 1000, 100_000, 400_000},
		{"at fork", 512_000, 0, 1000, 512_000, 0},
		{"ratio 1", 512_000, 1, 1000, 512_000, 1},
		{"ratio 7", 1_000_000, 3_000_000, 1000, 142_857, 428_571},
		{"int sum negative: kept", 1 << 31, 0, 1000, 1 << 31, 0},
		{"hz 100 ratio 3", 153_600, 0, 100, 51_200, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, s := ule.InteractFork(tc.run, tc.slp, tc.hz)
			if r != tc.wantRun || s != tc.wantSlp {
				t.Errorf("InteractFork(%d, %d, %d) = %d, %d, want %d, %d", tc.run, tc.slp, tc.hz, r, s, tc.wantRun, tc.wantSlp)
			}
		})
	}
}

// sched_priority, main (PRI_MIN_INTERACT 56, range 59; PRI_MIN_BATCH 115, CPU range 59,
// SCHED_PRI_NICE(n) = (n+20)*5/4) and legacy (88, 48; SCHED_PRI_MIN 156, range 48).
func TestTimesharePriority(t *testing.T) {
	w := func(ticks, ftick, ltick uint32) ule.Window {
		return ule.Window{Ticks: ticks, FTick: ftick, LTick: ltick}
	}
	tests := []struct {
		name        string
		v           ule.Version
		score, nice int
		w           ule.Window
		want        uint8
	}{
		{"main interactive 0", ule.Main, 0, 0, w(0, 0, 0), 56},
		{"main interactive 29", ule.Main, 29, 0, w(0, 0, 0), 113},
		{"main interactive 20+5", ule.Main, 20, 5, w(0, 0, 0), 105},
		{"main nice clamps score at 0", ule.Main, 10, -20, w(0, 0, 0), 56},
		{"main score 30 is batch", ule.Main, 30, 0, w(0, 0, 10000), 140},
		{"main batch 0%", ule.Main, 50, 0, w(0, 0, 10000), 140},
		{"main batch 50%", ule.Main, 50, 0, w(5_120_000, 0, 10000), 169},
		{"main batch 100%", ule.Main, 50, 0, w(10_240_000, 0, 10000), 198},
		{"main batch 100% nice 20", ule.Main, 50, 20, w(10_240_000, 0, 10000), 223},
		{"main batch 0% nice -20", ule.Main, 50, -20, w(0, 0, 10000), 115},
		{"main batch nice 1", ule.Main, 50, 1, w(0, 0, 10000), 141},
		{"main batch nice -1", ule.Main, 50, -1, w(0, 0, 10000), 138},
		{"main empty window len 1", ule.Main, 50, 0, w(0, 5, 5), 140},
		{"main window across the wrap", ule.Main, 50, 0, w(10_240_000, 1<<32-5000, 5000), 198},
		{"legacy interactive 0", ule.Legacy, 0, 0, w(0, 0, 0), 88},
		{"legacy interactive 29", ule.Legacy, 29, 0, w(0, 0, 0), 134},
		{"legacy batch no ticks", ule.Legacy, 50, 0, w(0, 0, 10000), 156},
		{"legacy batch 100%", ule.Legacy, 50, 0, w(10_240_000, 0, 10000), 203},
		{"legacy batch 100% nice 20", ule.Legacy, 50, 20, w(10_240_000, 0, 10000), 223},
		{"legacy batch 100% nice -20", ule.Legacy, 50, -20, w(10_240_000, 0, 10000), 183},
		{"legacy batch 50%", ule.Legacy, 50, 0, w(5_120_000, 0, 10000), 179},
		{"legacy short window uses hz", ule.Legacy, 50, 0, w(512_000, 0, 500), 179},
		// Main SCHED_TICK_LENGTH = max(ltick - ftick, 1): a one-tick window with 1024 shifted
		// ticks (100 %) gives ((58*1024 + 0)/1 + 512) >> 10 = 58, so 115 + 58 + 25 = 198
		// (mchoo7/freebsd-src sys/kern/sched_ule.c @3521c70f, sched_priority).
		{"main one-tick window 100%", ule.Main, 50, 0, w(1024, 7, 8), 198},
		// Legacy SCHED_PRI_TICKS = (ticks >> 10) / (roundup(max(ltick-ftick, hz), 48) / 48)
		// with roundup(x, 48) = ((x + 47) / 48) * 48 (OlCe2/freebsd-src sys/kern/sched_ule.c
		// @366ae94e, sys/sys/param.h). Window lengths on and just past a multiple of 48 pin
		// the "+ 47":
		//   len 1008 = 21*48: roundup 1008, per 21; 420 ticks / 21 = 20, pri 156 + 20 = 176;
		//   len 1009 = 21*48+1: roundup 1056, per 22; 420 / 22 = 19, pri 175;
		//   len 1056 = 22*48: per 22; 440 / 22 = 20, pri 176;
		//   len 1057 = 22*48+1: per 23; 440 / 23 = 19, pri 175.
		{"legacy len 1008 = 0 mod 48", ule.Legacy, 50, 0, w(420<<10, 5000, 6008), 176},
		{"legacy len 1009 = 1 mod 48", ule.Legacy, 50, 0, w(420<<10, 5000, 6009), 175},
		{"legacy len 1056 = 0 mod 48", ule.Legacy, 50, 0, w(440<<10, 3000, 4056), 176},
		{"legacy len 1057 = 1 mod 48", ule.Legacy, 50, 0, w(440<<10, 3000, 4057), 175},
		// A window whose ftick lies 10 ticks after its ltick (never produced by
		// sched_pctcpu_update): SCHED_TICK_TOTAL = (u_int)(0 - 10) = 2^32 - 10, and
		// roundup(2^32 - 10, 48) wraps to 0, so SCHED_PRI_TICKS would divide by zero and
		// the kernel would trap. TimesharePriority does not panic: it divides by 1 instead,
		// 156 + min(20/1, 47) = 176.
		{"legacy roundup wraps to 0", ule.Legacy, 50, 0, w(20<<10, 10, 0), 176},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ule.TimesharePriority(tc.v, 30, tc.score, tc.nice, tc.w, 1000); got != tc.want {
				t.Errorf("TimesharePriority(%v, 30, %d, %d, %+v, 1000) = %d, want %d", tc.v, tc.score, tc.nice, tc.w, got, tc.want)
			}
		})
	}
}

// tdq_slice with sched_slice 12 and sched_slice_min 2 (stathz 127).
func TestSliceFor(t *testing.T) {
	want := map[int]int{0: 12, 1: 12, 2: 12, 3: 6, 4: 4, 5: 3, 6: 2, 7: 2, 100: 2}
	for sysload, w := range want {
		if got := ule.SliceFor(sysload, 12, 2); got != w {
			t.Errorf("SliceFor(%d, 12, 2) = %d, want %d", sysload, got, w)
		}
	}
	if got := ule.SliceFor(6, 25, 4); got != 5 {
		t.Errorf("SliceFor(6, 25, 4) = %d, want 5", got)
	}
	// tdq_slice (mchoo7/freebsd-src sys/kern/sched_ule.c @3521c70f) returns sched_slice_min
	// once load = sysload - 1 reaches SCHED_SLICE_MIN_DIVISOR (6), whatever sched_slice/load
	// would give. The kernel always sets sched_slice_min = sched_slice/6, which makes the two
	// agree at load 6; a sliceMin that is not slice/6 shows which branch answered: at load 6
	// (sysload 7) the answer is sliceMin 1, not 12/6 = 2; at load 5 it is 12/5 = 2.
	if got := ule.SliceFor(7, 12, 1); got != 1 {
		t.Errorf("SliceFor(7, 12, 1) = %d, want 1", got)
	}
	if got := ule.SliceFor(6, 12, 1); got != 2 {
		t.Errorf("SliceFor(6, 12, 1) = %d, want 2", got)
	}
}

// The end of sched_clock.
func TestSliceTick(t *testing.T) {
	tests := []struct {
		name     string
		class    ule.Class
		used     uint32
		limit    int
		wantUsed uint32
		want     ule.SliceResult
	}{
		{"running", ule.ClassTimeshare, 3, 12, 4, ule.SliceRunning},
		{"expires", ule.ClassTimeshare, 11, 12, 0, ule.SliceExpired},
		{"forked child near the end", ule.ClassTimeshare, 10, 12, 11, ule.SliceRunning},
		{"rr expires", ule.ClassRealtime, 1, 2, 0, ule.SliceExpired},
		{"fifo exempt", ule.ClassFIFO, 100, 2, 100, ule.SliceExempt},
		{"ithd expires", ule.ClassIthd, 11, 12, 0, ule.SliceExpiredIthd},
		{"already past a shrunken slice", ule.ClassTimeshare, 9, 2, 0, ule.SliceExpired},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			used, r := ule.SliceTick(tc.class, tc.used, 1, tc.limit)
			if used != tc.wantUsed || r != tc.want {
				t.Errorf("SliceTick(%v, %d, 1, %d) = %d, %v, want %d, %v", tc.class, tc.used, tc.limit, used, r, tc.wantUsed, tc.want)
			}
		})
	}
}

// sched_pctcpu_update: main t_max 11000, t_tgt 10000; legacy SCHED_TICK_TARG 10000, MAX 11000.
func TestPctCPUUpdate(t *testing.T) {
	w := func(ticks, ftick, ltick uint32) ule.Window {
		return ule.Window{Ticks: ticks, FTick: ftick, LTick: ltick}
	}
	tests := []struct {
		name string
		v    ule.Version
		in   ule.Window
		t    uint32
		run  bool
		want ule.Window
	}{
		{"main run 100", ule.Main, w(0, 0, 0), 100, true, w(102_400, 0, 100)},
		{"main idle 50", ule.Main, w(102_400, 0, 100), 150, false, w(102_400, 0, 150)},
		{"main long gap running", ule.Main, w(5_120_000, 0, 1000), 20000, true, w(10_240_000, 10000, 20000)},
		{"main long gap asleep", ule.Main, w(5_120_000, 0, 1000), 20000, false, w(0, 10000, 20000)},
		{"main gap exactly t_tgt", ule.Main, w(1024, 0, 1000), 11000, false, w(0, 1000, 11000)},
		{"main decay", ule.Main, w(11_264_000, 0, 11000), 11001, true, w(10_240_000, 1001, 11001)},
		{"main across the wrap", ule.Main, w(5_120_000, 1<<32-5050, 1<<32-50), 50, true, w(5_222_400, 1<<32-5050, 50)},
		{"legacy decay", ule.Legacy, w(11_264_000, 0, 11000), 11001, true, w(10_240_000, 1001, 11001)},
		{"legacy long gap asleep", ule.Legacy, w(1024, 0, 1000), 20000, false, w(0, 10000, 20000)},
		{"legacy long gap running keeps old ltick", ule.Legacy, w(1024, 0, 1000), 20000, true, w(19_456_000, 10000, 20000)},
		{"legacy run 100", ule.Legacy, w(0, 0, 0), 100, true, w(102_400, 0, 100)},
		// Boundaries, with windows not starting at 0 (main: mchoo7/freebsd-src
		// sys/kern/sched_ule.c @3521c70f; legacy: OlCe2/freebsd-src @366ae94e;
		// sched_pctcpu_update in both).
		//
		// Main, lu_span == t_tgt exactly (11000 - 1000 = 10000) while t - ftick = 10500 is
		// below t_max 11000: the "lu_span >= t_tgt" branch forgets the past: ticks 0,
		// ftick = 11000 - 10000 = 1000.
		{"main lu_span exactly t_tgt, inside t_max", ule.Main, w(102_400, 500, 1000), 11000, false, w(0, 1000, 11000)},
		// Main, t - ftick == t_max exactly (13000 - 2000 = 11000), lu_span 1000: rescale,
		// ticks = 5,120,000 / (12000 - 2000) * (10000 - 1000) = 512 * 9000 = 4,608,000,
		// ftick = 3000; then running adds 1000 << 10: 5,632,000.
		{"main t-ftick exactly t_max", ule.Main, w(5_120_000, 2000, 12000), 13000, true, w(5_632_000, 3000, 13000)},
		// Legacy, the same window: t - ftick = 11000 >= SCHED_TICK_MAX = 10000 + 1000, so
		// ticks = 5,120,000 / (ltick - ftick = 10000) * (12000 - (13000 - 10000)) = 512 * 9000,
		// ftick = 3000, then + (13000 - 12000) << 10.
		{"legacy t-ftick exactly SCHED_TICK_MAX", ule.Legacy, w(5_120_000, 2000, 12000), 13000, true, w(5_632_000, 3000, 13000)},
		// Legacy, t - ftick = 9500 < SCHED_TICK_MAX 11000 (though >= SCHED_TICK_TARG - hz):
		// no rescaling; running adds (10500 - 10000) << 10 = 512,000.
		{"legacy t-ftick below SCHED_TICK_MAX", ule.Legacy, w(4_608_000, 1000, 10000), 10500, true, w(5_120_000, 1000, 10500)},
		// Legacy, (u_int)(t - ltick) == SCHED_TICK_TARG exactly (11000 - 1000 = 10000) while
		// t - ftick = 10500 < SCHED_TICK_MAX: the ">=" branch forgets the past (ticks 0,
		// ftick 11000 - 10000 = 1000), then running adds (11000 - 1000) << 10.
		{"legacy t-ltick exactly SCHED_TICK_TARG, inside SCHED_TICK_MAX", ule.Legacy, w(1024, 500, 1000), 11000, true, w(10_240_000, 1000, 11000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ule.PctCPUUpdate(tc.v, tc.in, tc.t, tc.run, 1000); got != tc.want {
				t.Errorf("PctCPUUpdate(%v, %+v, %d, %v, 1000) = %+v, want %+v", tc.v, tc.in, tc.t, tc.run, got, tc.want)
			}
		})
	}
}

// sched_pctcpu: FSCALE 2048 is 100 %.
func TestPctCPU(t *testing.T) {
	tests := []struct {
		v    ule.Version
		w    ule.Window
		want uint32
	}{
		{ule.Main, ule.Window{Ticks: 10_240_000, LTick: 10000}, 2048},
		{ule.Main, ule.Window{Ticks: 5_120_000, LTick: 10000}, 1024},
		{ule.Main, ule.Window{Ticks: 0, LTick: 10000}, 0},
		{ule.Legacy, ule.Window{Ticks: 10_240_000, LTick: 10000}, 2048},
		{ule.Legacy, ule.Window{Ticks: 5_120_000, LTick: 10000}, 1024},
		{ule.Legacy, ule.Window{Ticks: 0, LTick: 10000}, 0},
		// Main rounds to nearest: ((ticks << 1) + len/2) / len (mchoo7/freebsd-src
		// sys/kern/sched_ule.c @3521c70f, sched_pctcpu). 2*5,122,700 = 10,245,400;
		// + 5000 = 10,250,400; / 10000 = 1025 (truncation alone would give 1024).
		{ule.Main, ule.Window{Ticks: 5_122_700, FTick: 3000, LTick: 13000}, 1025},
		// len 4: (2*1 + 2) / 4 = 1.
		{ule.Main, ule.Window{Ticks: 1, FTick: 100, LTick: 104}, 1},
		// A one-tick window: len = max(1, 1) = 1, (2*1024 + 0) / 1 = 2048, 100 %.
		{ule.Main, ule.Window{Ticks: 1024, FTick: 7, LTick: 8}, 2048},
	}
	for _, tc := range tests {
		if got := ule.PctCPU(tc.v, tc.w, 1000); got != tc.want {
			t.Errorf("PctCPU(%v, %+v, 1000) = %d, want %d", tc.v, tc.w, got, tc.want)
		}
	}
}

// tdq_runq_add's batch branch (main).
func TestCalendarIndex(t *testing.T) {
	tests := []struct {
		name               string
		pri, tsOff, deqOff uint8
		flags              ule.AddFlags
		want               uint8
	}{
		{"first slot", 115, 0, 0, 0, 0},
		{"last slot", 223, 0, 0, 0, 108},
		{"offset wraps", 140, 100, 100, 0, 16},
		{"at the insertion offset", 115, 10, 5, 0, 10},
		{"inside the drain window goes behind it", 221, 10, 5, 0, 4},
		{"the dequeue slot itself is avoided", 219, 10, 5, 0, 4},
		{"window across the wrap", 223, 2, 105, 0, 104},
		{"behind slot 0 is 108", 222, 3, 0, 0, 108},
		{"past the window", 116, 3, 0, 0, 4},
		{"preempted goes to the dequeue slot", 200, 50, 40, ule.SRQPreempted, 40},
		{"borrowing goes to the dequeue slot", 200, 50, 40, ule.SRQBorrowing, 40},
		{"yielding is ordinary", 200, 50, 50, ule.SRQYielding | ule.SRQOurself, 26},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ule.CalendarIndex(tc.pri, tc.tsOff, tc.deqOff, tc.flags); got != tc.want {
				t.Errorf("CalendarIndex(%d, %d, %d, %#x) = %d, want %d", tc.pri, tc.tsOff, tc.deqOff, tc.flags, got, tc.want)
			}
		})
	}
	for _, bad := range [][3]uint8{{114, 0, 0}, {224, 0, 0}, {115, 109, 0}, {115, 0, 109}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("CalendarIndex(%d, %d, %d, 0) did not panic", bad[0], bad[1], bad[2])
				}
			}()
			ule.CalendarIndex(bad[0], bad[1], bad[2], 0)
		}()
	}
}

// sched_clock's offset step (main): 7 slots per 4 ticks.
func TestAdvanceCalendar(t *testing.T) {
	tests := []struct {
		off, ticks         uint8
		cnt                int
		wantOff, wantTicks uint8
	}{
		{0, 0, 1, 2, 1},
		{2, 1, 1, 4, 2},
		{4, 2, 1, 6, 3},
		{6, 3, 1, 7, 0},
		{107, 0, 1, 0, 1},
		{108, 3, 1, 0, 0},
		{0, 0, 2, 4, 2},
		{0, 3, 4, 7, 3},
	}
	for _, tc := range tests {
		off, ticks := ule.AdvanceCalendar(tc.off, tc.ticks, tc.cnt)
		if off != tc.wantOff || ticks != tc.wantTicks {
			t.Errorf("AdvanceCalendar(%d, %d, %d) = %d, %d, want %d, %d", tc.off, tc.ticks, tc.cnt, off, ticks, tc.wantOff, tc.wantTicks)
		}
	}
}

// tdq_advance_ts_deq_off.
func TestAdvanceDeqOff(t *testing.T) {
	var st runq.Status
	st.Set(115 + 7)
	st.Set(115 + 5)
	tests := []struct {
		name       string
		deq, ts    uint8
		knownEmpty bool
		want       uint8
	}{
		{"caught up", 5, 5, false, 5},
		{"non-empty stops", 5, 10, false, 5},
		{"known empty skips once", 5, 10, true, 7},
		{"empty run to next queue", 6, 10, false, 7},
		{"reaches the insertion offset", 8, 10, false, 10},
		{"wraps", 107, 2, false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ule.AdvanceDeqOff(tc.deq, tc.ts, tc.knownEmpty, &st); got != tc.want {
				t.Errorf("AdvanceDeqOff(%d, %d, %v, {120,122}) = %d, want %d", tc.deq, tc.ts, tc.knownEmpty, got, tc.want)
			}
		})
	}
}

// Legacy tdq_runq_add, sched_clock and runq_remove_idx (RQ_NQS 64, PRI_BATCH_RANGE 88).
func TestLegacyCalendar(t *testing.T) {
	idx := []struct {
		name           string
		pri, idx, ridx uint8
		flags          ule.AddFlags
		want           uint8
	}{
		{"first", 136, 0, 0, 0, 0},
		{"137 shares queue 0", 137, 0, 0, 0, 0},
		{"last", 223, 0, 0, 0, 63},
		{"middle", 180, 10, 10, 0, 42},
		{"wraps", 223, 10, 10, 0, 9},
		{"avoid ridx", 223, 10, 9, 0, 8},
		{"avoid ridx 0", 223, 1, 0, 0, 63},
		{"preempted to ridx", 200, 10, 9, ule.SRQPreempted, 9},
	}
	for _, tc := range idx {
		if got := ule.LegacyCalendarIndex(tc.pri, tc.idx, tc.ridx, tc.flags); got != tc.want {
			t.Errorf("%s: LegacyCalendarIndex(%d, %d, %d, %#x) = %d, want %d", tc.name, tc.pri, tc.idx, tc.ridx, tc.flags, got, tc.want)
		}
	}
	adv := []struct {
		idx, ridx   uint8
		empty       bool
		wIdx, wRidx uint8
	}{{5, 5, true, 6, 6}, {5, 5, false, 6, 5}, {5, 4, true, 5, 4}, {63, 63, true, 0, 0}}
	for _, tc := range adv {
		i, r := ule.LegacyAdvance(tc.idx, tc.ridx, tc.empty)
		if i != tc.wIdx || r != tc.wRidx {
			t.Errorf("LegacyAdvance(%d, %d, %v) = %d, %d, want %d, %d", tc.idx, tc.ridx, tc.empty, i, r, tc.wIdx, tc.wRidx)
		}
	}
	rem := []struct {
		idx, ridx, q uint8
		empty        bool
		want         uint8
	}{{6, 5, 5, true, 6}, {6, 5, 5, false, 5}, {5, 5, 5, true, 5}, {6, 5, 7, true, 5}, {0, 63, 63, true, 0}}
	for _, tc := range rem {
		if got := ule.LegacyRemove(tc.idx, tc.ridx, tc.q, tc.empty); got != tc.want {
			t.Errorf("LegacyRemove(%d, %d, %d, %v) = %d, want %d", tc.idx, tc.ridx, tc.q, tc.empty, got, tc.want)
		}
	}
}

// sched_random and sched_setup_smp's seeding.
func TestRand(t *testing.T) {
	r := ule.NewRand(0, 0)
	for i, want := range []uint32{5, 36287, 53438, 58975} {
		if got := r.Next(); got != want {
			t.Fatalf("cpu0 draw %d = %d, want %d", i, got, want)
		}
	}
	if r.State() != 3864998865 {
		t.Errorf("cpu0 state after 4 draws = %d, want 3864998865", r.State())
	}
	r = ule.NewRand(3, 0)
	for i, want := range []uint32{21774, 33470, 4331} {
		if got := r.Next(); got != want {
			t.Fatalf("cpu3 draw %d = %d, want %d", i, got, want)
		}
	}
	a, b, z := ule.NewRand(0, 1), ule.NewRand(0, 2), ule.NewRand(0, 0)
	if a.State() == b.State() || a.State() == z.State() {
		t.Errorf("seeds 0, 1, 2 give states %d %d %d", z.State(), a.State(), b.State())
	}
}

// sched_initticks' derived values at hz 1000 and stathz 127.
func TestParamsDerived(t *testing.T) {
	p := ule.DefaultParams()
	checks := []struct {
		name      string
		got, want int
	}{
		{"realstathz", p.RealStatHz(), 127},
		{"sched_slice", p.SliceTicks(), 12},
		{"sched_slice_min", p.SliceMinTicks(), 2},
		{"tickincr", int(p.TickIncr()), 8062},
		{"affinity", p.AffinityTicks(), 1},
		{"balance_interval", p.BalanceTicks(), 127},
		{"sched_idlespinthresh", p.IdleSpinThreshold(), 157},
		{"preempt_thresh", p.PreemptThresh, 40},
		{"static_boost", p.StaticBoost, 115},
		{"quantum", p.QuantumMicros(), 94_488},
	}
	p.Hz, p.StatHz = 100, 128
	checks = append(checks, []struct {
		name      string
		got, want int
	}{
		{"tickincr hz100", int(p.TickIncr()), 800},
		{"affinity hz100", p.AffinityTicks(), 1},
		{"slice stathz 128", p.SliceTicks(), 12},
	}...)
	p.Hz, p.StatHz = 1, 2000
	checks = append(checks, struct {
		name      string
		got, want int
	}{"tickincr floor 1", int(p.TickIncr()), 1})
	p.Hz, p.StatHz = 4000, 0
	checks = append(checks, struct {
		name      string
		got, want int
	}{"affinity hz4000", p.AffinityTicks(), 4})
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	l := ule.LegacyParams()
	if l.PreemptThresh != 48 || !l.PreemptAtThresh || l.StaticBoost != 136 || l.CalendarSteal != ule.StealSkipFirst {
		t.Errorf("LegacyParams() = %+v", l)
	}
}

// sys/sys/priority.h, both layouts, and the derived sched_ule.c ranges.
func TestLayouts(t *testing.T) {
	m, l := ule.Main.Layout(), ule.Legacy.Layout()
	type r = [2]uint8
	checks := []struct {
		name      string
		got, want r
	}{
		{"main ithd", r{m.MinIthd, m.MaxIthd}, r{0, 7}},
		{"main realtime", r{m.MinRealtime, m.MaxRealtime}, r{8, 39}},
		{"main kern", r{m.MinKern, m.MaxKern}, r{40, 55}},
		{"main timeshare", r{m.MinTimeshare, m.MaxTimeshare}, r{56, 223}},
		{"main interact", r{m.MinInteract, m.MaxInteract}, r{56, 114}},
		{"main batch", r{m.MinBatch, m.MaxBatch}, r{115, 223}},
		{"main idle", r{m.MinIdle, m.MaxIdle}, r{224, 255}},
		{"legacy ithd", r{l.MinIthd, l.MaxIthd}, r{0, 15}},
		{"legacy realtime", r{l.MinRealtime, l.MaxRealtime}, r{16, 47}},
		{"legacy kern", r{l.MinKern, l.MaxKern}, r{48, 87}},
		{"legacy timeshare", r{l.MinTimeshare, l.MaxTimeshare}, r{88, 223}},
		{"legacy interact", r{l.MinInteract, l.MaxInteract}, r{88, 135}},
		{"legacy batch", r{l.MinBatch, l.MaxBatch}, r{136, 223}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if m.NResv != 50 || l.NResv != 40 || m.BatchRange() != 109 || l.BatchRange() != 88 || m.InteractRange() != 59 || l.InteractRange() != 48 {
		t.Errorf("NResv %d/%d, batch range %d/%d, interact range %d/%d", m.NResv, l.NResv, m.BatchRange(), l.BatchRange(), m.InteractRange(), l.InteractRange())
	}
	// POSIX SCHED_FIFO priority q maps to PRI_MIN_REALTIME + 31 - q: 39-q in main, 47-q in legacy.
	if got := m.RealtimePriority(ule.RTPPrioMax - 31); got != 8 {
		t.Errorf("main RealtimePriority(0) = %d, want 8", got)
	}
	if got := l.RealtimePriority(ule.RTPPrioMax - 0); got != 47 {
		t.Errorf("legacy RealtimePriority(31) = %d, want 47", got)
	}
	if got := m.IdlePriority(40); got != 255 {
		t.Errorf("IdlePriority(40) = %d, want 255 (clamped)", got)
	}
}
