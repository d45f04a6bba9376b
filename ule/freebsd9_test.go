package ule_test

// Table tests for Version FreeBSD9 (preset "freebsd9"). Expected values are worked out by hand
// from FreeBSD 9-CURRENT's sys/kern/sched_ule.c 1.290 of 2011-01-14 and its sys/sys/priority.h
// (rodrigc/bz-vimage @191fe5570364da41649df401cb58beb5c92393c6); each test names the function
// it follows. hz is 1000 unless a case says otherwise.

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// priority.h of 2011: PRI_MIN_REALTIME 48, PRI_MIN_KERN 80, PRI_MIN_TIMESHARE 120,
// PRI_MIN_IDLE 224; sched_ule.c: PRI_INTERACT_RANGE = (104 - 40)/2 = 32.
func TestFreeBSD9Layout(t *testing.T) {
	l := ule.FreeBSD9.Layout()
	got := []int{int(l.MaxIthd), int(l.MinRealtime), int(l.MaxRealtime), int(l.MinKern), int(l.MaxKern),
		int(l.MinTimeshare), int(l.MaxInteract), int(l.MinBatch), int(l.MaxBatch), int(l.MinIdle),
		l.InteractRange(), l.BatchRange(), int(l.Fold)}
	want := []int{47, 48, 79, 80, 119, 120, 151, 152, 223, 224, 32, 72, 4}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("FreeBSD9 layout = %v, want %v", got, want)
	}
	if ule.FreeBSD9.String() != "freebsd9" {
		t.Errorf("String = %q", ule.FreeBSD9.String())
	}
}

// tdq_runq_add (1.290): pri = (pri - PRI_MIN_BATCH) / TS_RQ_PPQ with TS_RQ_PPQ =
// ((223 - 152) + 1) / 64 = 1; pri = (pri + tdq_idx) % 64; the one-queue gap before tdq_ridx.
func TestFreeBSD9CalendarIndex(t *testing.T) {
	tests := []struct {
		name           string
		pri, idx, ridx uint8
		flags          ule.AddFlags
		want           uint8
	}{
		{"best batch priority", 152, 0, 0, 0, 0},
		{"one priority per queue", 180, 0, 0, 0, 28},
		{"203, a hog's priority", 203, 0, 0, 0, 51},
		{"215, the last queue", 215, 0, 0, 0, 63},
		{"216 wraps onto queue 0", 216, 0, 0, 0, 0},
		{"223 wraps onto queue 7", 223, 0, 0, 0, 7},
		{"offset by idx", 180, 40, 40, 0, 4},
		{"wrapped and offset", 223, 60, 60, 0, 3},
		{"lands on ridx while draining: one back", 214, 5, 3, 0, 2},
		{"ridx behind idx, no collision", 152, 0, 63, 0, 0},
		{"ridx 0 reached from behind", 212, 4, 0, 0, 63},
		{"no gap when idx == ridx", 214, 3, 3, 0, 1},
		{"preempted: ridx", 200, 10, 7, ule.SRQPreempted, 7},
		{"borrowing: ridx", 152, 10, 7, ule.SRQBorrowing, 7},
	}
	for _, tc := range tests {
		if got := ule.FreeBSD9CalendarIndex(tc.pri, tc.idx, tc.ridx, tc.flags); got != tc.want {
			t.Errorf("%s: FreeBSD9CalendarIndex(%d, %d, %d, %#x) = %d, want %d", tc.name, tc.pri, tc.idx, tc.ridx, tc.flags, got, tc.want)
		}
	}
	for _, bad := range [][3]uint8{{151, 0, 0}, {224, 0, 0}, {180, 64, 0}, {180, 0, 64}} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("FreeBSD9CalendarIndex%v did not panic", bad)
				}
			}()
			ule.FreeBSD9CalendarIndex(bad[0], bad[1], bad[2], 0)
		}()
	}
}

// sched_priority (1.290): interactive PRI_MIN_INTERACT + ((PRI_MAX_INTERACT - PRI_MIN_INTERACT
// + 1) / sched_interact) * score; batch SCHED_PRI_MIN (172) + SCHED_PRI_TICKS + nice, with
// SCHED_PRI_TICKS = SCHED_TICK_HZ / (roundup(SCHED_TICK_TOTAL, 32) / 32) and no clamp.
func TestFreeBSD9TimesharePriority(t *testing.T) {
	w := func(ticks, ftick, ltick uint32) ule.Window {
		return ule.Window{Ticks: ticks, FTick: ftick, LTick: ltick}
	}
	tests := []struct {
		name            string
		interact        uint32
		score, nice, hz int
		w               ule.Window
		want            uint8
	}{
		{"interactive 0", 30, 0, 0, 1000, w(0, 0, 0), 120},
		// 32/30 = 1 first, then * 29 (legacy multiplies first: 88 + 48*29/30 = 134).
		{"interactive 29: divide first", 30, 29, 0, 1000, w(0, 0, 0), 149},
		{"interactive 20 nice -5", 30, 20, -5, 1000, w(0, 0, 0), 135},
		{"threshold 10: 32/10 = 3", 10, 9, 0, 1000, w(0, 0, 0), 147},
		{"threshold 40: 32/40 = 0", 40, 39, 0, 1000, w(0, 0, 0), 120},
		{"score 30 is batch", 30, 30, 0, 1000, w(0, 0, 10000), 172},
		{"batch no ticks", 30, 50, 0, 1000, w(0, 0, 10000), 172},
		{"batch no ticks nice 20", 30, 50, 20, 1000, w(0, 0, 10000), 192},
		// 10000 / (roundup(10000, 32)/32 = 313) = 31.
		{"batch 100% of 10000", 30, 50, 0, 1000, w(10_240_000, 0, 10000), 203},
		// 10240 / (10240/32 = 320) = 32: SCHED_PRI_MAX + 1, no clamp in 2011.
		{"batch 100% of 10240", 30, 50, 0, 1000, w(10240<<10, 0, 10240), 204},
		{"batch 100% nice 20 is an idle priority", 30, 50, 20, 1000, w(10240<<10, 0, 10240), 224},
		{"batch 100% nice -20", 30, 50, -20, 1000, w(10_240_000, 0, 10000), 183},
		{"batch 50%", 30, 50, 0, 1000, w(5_120_000, 0, 10000), 187},
		// SCHED_TICK_TOTAL = max(500, hz) = 1000: 500 / (1024/32 = 32) = 15.
		{"short window uses hz", 30, 50, 0, 1000, w(512_000, 0, 500), 187},
		{"hz 100", 30, 50, 0, 100, w(1000<<10, 0, 1000), 172 + 1000/32},
	}
	for _, tc := range tests {
		if got := ule.TimesharePriority(ule.FreeBSD9, tc.interact, tc.score, tc.nice, tc.w, tc.hz); got != tc.want {
			t.Errorf("%s: TimesharePriority = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// sched_tick, sched_pctcpu_update and sched_wakeup (1.290): SCHED_TICK_TARG = 10*hz,
// SCHED_TICK_MAX = 11*hz.
func TestFreeBSD9PctCPUUpdate(t *testing.T) {
	w := func(ticks, ftick, ltick uint32) ule.Window {
		return ule.Window{Ticks: ticks, FTick: ftick, LTick: ltick}
	}
	tests := []struct {
		name string
		w    ule.Window
		t    uint32
		run  bool
		want ule.Window
	}{
		{"run 100 ticks", w(0, 0, 0), 100, true, w(102_400, 0, 100)},
		// ftick + 11000 = 13000 is not < ltick 13000: no rescaling yet (legacy rescales here).
		{"run to exactly ftick + SCHED_TICK_MAX", w(5_120_000, 2000, 12000), 13000, true, w(6_144_000, 2000, 13000)},
		// 11_265_024 / 11001 = 1024, * 10000; ftick = 11001 - 10000.
		{"run past ftick + SCHED_TICK_MAX rescales", w(11_264_000, 0, 11000), 11001, true, w(10_240_000, 1001, 11001)},
		{"wake with no ticks: unchanged", w(0, 0, 50), 5000, false, w(0, 0, 50)},
		// 150 - hz/10 = 50 < ltick 100 and the window (hz) is under SCHED_TICK_MAX.
		{"wake soon after running: unchanged", w(102_400, 0, 100), 150, false, w(102_400, 0, 100)},
		// ltick 1000 is not > 20000 - 10000: the history is forgotten.
		{"wake after a long sleep", w(1024, 0, 1000), 20000, false, w(0, 10000, 20000)},
		// 2_048_000 / 2200 = 930, * 10000; ftick = 2200 - 10000 wraps below 0 as an int.
		{"wake after 200 ticks", w(2_048_000, 0, 2000), 2200, false, w(9_300_000, 1<<32-7800, 2200)},
	}
	for _, tc := range tests {
		if got := ule.PctCPUUpdate(ule.FreeBSD9, tc.w, tc.t, tc.run, 1000); got != tc.want {
			t.Errorf("%s: PctCPUUpdate(%+v, %d, %t) = %+v, want %+v", tc.name, tc.w, tc.t, tc.run, got, tc.want)
		}
	}
}

// sched_shouldpreempt with preempt_thresh = PRI_MIN_KERN = 80 (options PREEMPTION) and the
// remote rule at PRI_MAX_INTERACT = 151.
func TestFreeBSD9ShouldPreempt(t *testing.T) {
	p := ule.FreeBSD9Params()
	if p.PreemptThresh != 80 || !p.PreemptAtThresh || p.StaticBoost != 152 || p.Version != ule.FreeBSD9 {
		t.Fatalf("FreeBSD9Params: thresh %d at %t boost %d version %v", p.PreemptThresh, p.PreemptAtThresh, p.StaticBoost, p.Version)
	}
	tests := []struct {
		pri, cpri int
		remote    bool
		want      bool
	}{
		{80, 200, false, true},   // a kernel thread at PRI_MIN_KERN: <= preempt_thresh
		{81, 200, false, false},  // beyond the threshold, locally
		{79, 80, false, true},    // a real-time thread preempts a kernel one
		{151, 152, true, true},   // interactive over batch, remotely
		{151, 152, false, false}, // … but not locally
		{150, 151, true, false},  // interactive over interactive
		{200, 255, false, true},  // always preempt idle
		{200, 200, true, false},  // not better
	}
	for _, tc := range tests {
		if got, why := ule.ShouldPreempt(tc.pri, tc.cpri, tc.remote, &p); got != tc.want {
			t.Errorf("ShouldPreempt(%d, %d, remote %t) = %t (%v), want %t", tc.pri, tc.cpri, tc.remote, got, why, tc.want)
		}
	}
}

// tdq_runq_add and tdq_choose (1.290): priorities below PRI_MIN_BATCH, the interactive ones
// included, go to tdq_realtime at pri/4; batch threads to the calendar one priority per queue,
// so a nice +20 hog (216..223) is queued just ahead of idx and runs before a nice 0 one.
func TestFreeBSD9Queues(t *testing.T) {
	p := ule.FreeBSD9Params()
	c := ule.NewCPUState(0, &p)
	top := topology.Uniform(1, 1, 1, 1, 1)
	inter := newThread(1, 130, top)
	hog := newThread(2, 200, top)
	niced := newThread(3, 220, top)
	for _, th := range []*ule.Thread{hog, niced, inter} {
		c.Add(th, 0)
	}
	if q, _ := inter.Link.Index(); q != 130/4 || c.Runq().Len() != 1 {
		t.Errorf("interactive 130 in tdq_realtime queue %d (len %d), want 32", q, c.Runq().Len())
	}
	if q, _ := hog.Link.Index(); q != 48 {
		t.Errorf("200 in calendar queue %d, want 48", q)
	}
	if q, _ := niced.Link.Index(); q != 4 {
		t.Errorf("220 in calendar queue %d, want 4 (68 mod 64)", q)
	}
	order := []ule.Thread{}
	for range 3 {
		th, _ := c.Choose()
		order = append(order, *th)
	}
	if order[0].ID != 1 || order[1].ID != 3 || order[2].ID != 2 {
		t.Errorf("choose order %v %v %v, want t1 (interactive), t3 (220, wrapped), t2 (200)", order[0].ID, order[1].ID, order[2].ID)
	}
}

// tdq_notify (1.290): no IPI while one is pending (tdq_ipipending); otherwise
// sched_shouldpreempt(td_priority, the remote curthread's priority, remote).
func TestFreeBSD9NotifyThread(t *testing.T) {
	top := topology.Uniform(1, 1, 1, 2, 1)
	tests := []struct {
		name        string
		running     int // -1: idle
		queued      int // -1: none
		woken       uint8
		pending     bool
		want, want2 ule.Kick // NotifyRunning (2011), and Notify (legacy's form)
	}{
		// A queued interactive thread (140) is better than the newcomer (145), which is better
		// than the running batch thread: 2011 preempts, the lowpri form does not.
		{"queued better than the newcomer", 200, 140, 145, false, ule.KickPreempt, ule.KickNone},
		{"interactive over batch", 200, -1, 145, false, ule.KickPreempt, ule.KickPreempt},
		{"batch over batch", 200, -1, 160, false, ule.KickNone, ule.KickNone},
		{"real-time under preempt_thresh", 200, 140, 70, false, ule.KickPreempt, ule.KickPreempt},
		{"interactive over interactive", 140, -1, 130, false, ule.KickNone, ule.KickNone},
		{"idle CPU", -1, -1, 180, false, ule.KickIdle, ule.KickIdle},
		{"IPI pending", 200, -1, 70, true, ule.KickNone, ule.KickNone},
	}
	for _, tc := range tests {
		for i, notifyRunning := range []bool{true, false} {
			p := ule.FreeBSD9Params()
			p.NotifyRunning = notifyRunning
			c := ule.NewCPUState(1, &p)
			if tc.running >= 0 {
				c.Add(newThread(1, uint8(tc.running), top), 0)
				c.Choose()
			}
			if tc.queued >= 0 {
				c.Add(newThread(2, uint8(tc.queued), top), 0)
			}
			c.OwePreempt = tc.pending
			w := newThread(3, tc.woken, top)
			old := c.Add(w, 0)
			want := tc.want
			if i == 1 {
				want = tc.want2
			}
			if k, why := ule.NotifyThread(c, w, old); k != want {
				t.Errorf("%s (NotifyRunning %t): NotifyThread = %v (%v), want %v", tc.name, notifyRunning, k, why, want)
			}
		}
	}
}

// ExampleNotifyThread wakes an interactive thread onto a CPU that runs a batch thread and
// already queues a better interactive one: FreeBSD 9.0 sends IPI_PREEMPT, the 2024 form does not.
func ExampleNotifyThread() {
	top := topology.Uniform(1, 1, 1, 2, 1)
	for _, notifyRunning := range []bool{true, false} {
		p := ule.FreeBSD9Params()
		p.NotifyRunning = notifyRunning
		c := ule.NewCPUState(1, &p)
		c.Add(newThread(1, 200, top), 0)
		c.Choose()
		c.Add(newThread(2, 140, top), 0)
		w := newThread(3, 145, top)
		k, _ := ule.NotifyThread(c, w, c.Add(w, 0))
		fmt.Println(notifyRunning, k)
	}
	// Output:
	// true preempt
	// false none
}

// sched_switch (1.290): srqflag has SRQ_PREEMPTED when mi_switch got SW_PREEMPT, whether or
// not the slice had run out (there is no TDF_SLICEEND yet); legacy tests TDF_SLICEEND.
func TestFreeBSD9PreemptedAfterSliceEnd(t *testing.T) {
	one := topology.Uniform(1, 1, 1, 1, 1)
	for _, tc := range []struct {
		p          ule.Params
		preempted  bool
		firstAfter int
	}{
		{ule.FreeBSD9Params(), true, 1}, // head of tdq_ridx's queue: runs again
		{ule.LegacyParams(), false, 2},  // tail of its calendar queue, behind t2
	} {
		s := mustSystem(t, tc.p, one)
		id := 0
		load(s, 0, 2, 180, &id, nil) // t1 runs, t2 queued
		cur := s.CPU(0).Cur
		cur.SliceEnd, cur.OwePreempt = true, true
		r := ule.NewRand(0, 0)
		if got := s.Switch(0, ule.SwitchPreempt, 100, &r); got.Preempted != tc.preempted {
			t.Errorf("%v: Switch.Preempted = %t, want %t", tc.p.Version, got.Preempted, tc.preempted)
		}
		if th, _ := s.CPU(0).Choose(); th == nil || th.ID != schedID(tc.firstAfter) {
			t.Errorf("%v: next = %v, want t%d", tc.p.Version, th, tc.firstAfter)
		}
	}
}

// ExampleFreeBSD9CalendarIndex shows the 2011 calendar's wrap-around: with 72 batch priorities
// and 64 queues, the worst priorities share queues with the best.
func ExampleFreeBSD9CalendarIndex() {
	for _, pri := range []uint8{152, 203, 215, 216, 223} {
		fmt.Println(pri, ule.FreeBSD9CalendarIndex(pri, 0, 0, 0))
	}
	// Output:
	// 152 0
	// 203 51
	// 215 63
	// 216 0
	// 223 7
}

// Every (pri, idx, ridx) of FreeBSD9CalendarIndex against the properties tdq_runq_add gives
// it: a queue of 0..63; pri - 152 queues ahead of idx (mod 64) unless that is ridx while the
// calendar drains (idx != ridx), in which case one queue behind ridx.
func TestFreeBSD9CalendarIndexAll(t *testing.T) {
	for pri := 152; pri <= 223; pri++ {
		for idx := range 64 {
			for ridx := range 64 {
				got := int(ule.FreeBSD9CalendarIndex(uint8(pri), uint8(idx), uint8(ridx), 0))
				ahead := (pri - 152 + idx) % 64
				want := ahead
				if idx != ridx && ahead == ridx {
					want = (ridx + 63) % 64
				}
				if got != want {
					t.Fatalf("FreeBSD9CalendarIndex(%d, %d, %d) = %d, want %d", pri, idx, ridx, got, want)
				}
			}
		}
	}
}

// FreeBSD 9.0's batch priority against a naive model in int64 for consistent windows (run time
// at most the window, hz 100..1000): 172 + floor(run / ceil(max(len, hz)/32)) + nice, never
// above 172 + 32 + 20.
func TestFreeBSD9BatchPriorityModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2011))
	for range 20000 {
		hz := 100 + rng.IntN(901)
		length := rng.Int64N(int64(12 * hz))
		run := rng.Int64N(length + 1)
		ftick := rng.Int64N(1 << 30)
		nice := rng.IntN(41) - 20
		w := ule.Window{Ticks: uint32(run << 10), FTick: uint32(ftick), LTick: uint32(ftick + length)}
		want := int64(172 + nice)
		if run != 0 {
			total := max(length, int64(hz))
			want += run / ((total + 31) / 32)
		}
		got := ule.TimesharePriority(ule.FreeBSD9, 30, 50, nice, w, hz)
		if int64(got) != want || want > 172+32+20 {
			t.Fatalf("hz %d window %+v nice %d: TimesharePriority = %d, want %d", hz, w, nice, got, want)
		}
	}
}

// PctCPUUpdate(FreeBSD9, run) charges a stretch of running at once where 1.290's sched_tick
// charged one hz tick at a time, testing ftick + SCHED_TICK_MAX < ltick after each. The
// Scheduler charges at every stat tick, so a stretch is at most ceil(hz/stathz) = 8 hz ticks at
// hz 1000 and stathz 127. Against a naive model of the per-tick loop over such stretches: the
// same window while no rescaling happens, and after it a window of SCHED_TICK_TARG whose run
// time is the same to within the kernel's own truncation (a multiple of SCHED_TICK_TARG) and
// the stretch. (Over long stretches the two drift apart: the bulk form also
// rescales the run time charged after the threshold was crossed.)
func TestFreeBSD9PctCPUPerTick(t *testing.T) {
	const hz = 1000
	rng := rand.New(rand.NewPCG(1, 290))
	crossings := 0
	defer func() {
		if crossings < 1000 {
			t.Errorf("only %d of the stretches crossed the threshold", crossings)
		}
	}()
	for range 20000 {
		ftick := int32(rng.IntN(1 << 20))
		ltick := ftick + int32(rng.IntN(11*hz+1)) // sched_tick keeps ftick + SCHED_TICK_MAX >= ltick
		if rng.IntN(2) == 0 {
			ltick = ftick + 11*hz - int32(rng.IntN(9)) // just below the threshold
		}
		run := int32(rng.IntN(9))
		start := ule.Window{Ticks: uint32(rng.Int32N(ltick-ftick+1)) << 10, FTick: uint32(ftick), LTick: uint32(ltick)}
		// The naive per-hz-tick loop of sched_tick and sched_pctcpu_update.
		ticks, ft, lt := int32(start.Ticks), ftick, ltick
		rescaled := false
		for k := ltick + 1; k <= ltick+run; k++ {
			ticks += 1 << 10
			lt = k
			if ft+11*hz < lt {
				ticks = ticks / (k - ft) * (10 * hz)
				ft = k - 10*hz
				rescaled = true
			}
		}
		if rescaled {
			crossings++
		}
		got := ule.PctCPUUpdate(ule.FreeBSD9, start, uint32(ltick+run), true, hz)
		want := ule.Window{Ticks: uint32(ticks), FTick: uint32(ft), LTick: uint32(lt)}
		switch {
		case !rescaled && got != want:
			t.Fatalf("%+v run %d: got %+v, per tick %+v", start, run, got, want)
		case rescaled:
			if got.LTick-got.FTick != 10*hz || got.LTick != want.LTick {
				t.Fatalf("%+v run %d: rescaled to %+v, want a 10 s window ending at %d", start, run, got, want.LTick)
			}
			// ticks/(t - ftick)*TARG truncates to a multiple of TARG; the stretch adds at most 8
			// hz ticks on either side of the threshold.
			if d := int64(got.Ticks) - int64(want.Ticks); d > 10*hz+8<<10 || -d > 10*hz+8<<10 {
				t.Fatalf("%+v run %d: %d shifted ticks, per tick %d", start, run, got.Ticks, want.Ticks)
			}
		}
	}
}
