package cfs

import "testing"

// The rules in which v6.18 differs from v7.1, each worked out from v6.18.35's
// kernel/sched/fair.c (blob 7e0e2044d840) and, where it differs, v7.1.5's (blob abb76775aa72) as
// the model's V71 follows it. Vruntimes are relative to v0 (eevdf_test.go).

// TestAvgVruntimeV618 follows v6.18's avg_vruntime and vruntime_eligible: weights scaled down
// (sum_w_vruntime_add: scale_load_down), a div_s64 whose divisor is truncated to 32 bits, and the
// eligibility product in wrapping s64; v7.1 averages full weights, divides with div64_long and
// compares the exact 128-bit product.
func TestAvgVruntimeV618(t *testing.T) {
	// A group entity of weight 1048575 at +4095 and a nice-0 task at 0. v6.18: S = 4095·1023 =
	// 4189185, W = 1023 + 1024 = 2047, V = 2046 (2046.50 truncated). v7.1: S = 4095·1048575,
	// W = 2097151, V = 2047 (2047.499).
	specs := []rigSpec{{weight: 1048575, dv: 4095, dd: 700_000, slice: 700_000}, {nice: 0, dd: 700_000, slice: 700_000}}
	for _, tc := range []struct {
		v     Version
		want  int64
		sumW  uint64
		sumWV int64
	}{
		{V618, 2046, 2047, 4189185},
		{V71, 2047, 2097151, 4095 * 1048575},
	} {
		c, _ := rigEEVDF(t, preset(tc.v, 1), v0, specs, -1)
		s := c.Root().Sums()
		if got := int64(AvgVruntime(s) - v0); got != tc.want || s.SumWeight != tc.sumW || s.SumWVruntime != tc.sumWV {
			t.Errorf("%v: AvgVruntime = v0%+d, sums (%d, %d); want v0%+d, (%d, %d)", tc.v, got, s.SumWVruntime, s.SumWeight, tc.want, tc.sumWV, tc.sumW)
		}
	}
	// div_s64 takes an s32 divisor: W = 2^32 + 2 divides as 2, so S = 10 gives V = v0 + 5 in
	// v6.18, 0 in v7.1 (div64_long).
	for _, tc := range []struct {
		v    Version
		want uint64
	}{{V618, 5}, {V71, 0}} {
		if got := AvgVruntime(Sums{Version: tc.v, SumWVruntime: 10, SumWeight: 1<<32 + 2}); got != tc.want {
			t.Errorf("%v: AvgVruntime(S 10, W 2^32+2) = %d, want %d", tc.v, got, tc.want)
		}
	}
	// key·W = 2^24·2^40 = 2^64 wraps to 0 in s64, so S = 0 >= 0 and v6.18 calls the entity
	// eligible; the exact product is positive, so v7.1 does not.
	for _, tc := range []struct {
		v    Version
		want bool
	}{{V618, true}, {V71, false}} {
		if got := VruntimeEligible(Sums{Version: tc.v, SumWeight: 1 << 40}, 1<<24); got != tc.want {
			t.Errorf("%v: VruntimeEligible(W 2^40, key 2^24) = %t, want %t", tc.v, got, tc.want)
		}
	}
}

// TestDelayLeavesLagV618: v6.18's dequeue_entity returns as soon as it delays an ineligible
// sleeper (set_delayed), before update_entity_lag, so the entity keeps the lag of its last real
// dequeue; v7.1's updates it. Two nice-0 tasks are forked at 0 (placed at V with lag 0); the
// first picked, x, runs 1 ms and sleeps at vruntime 1 ms with V = (1 + 0)/2 ms, so its lag is
// -0.5 ms and it is delayed: v6.18 keeps lag 0, v7.1 saves -0.5 ms.
func TestDelayLeavesLagV618(t *testing.T) {
	for _, tc := range []struct {
		v    Version
		want int64
	}{{V618, 0}, {V71, -500_000}} {
		c := NewRunQueue(0, preset(tc.v, 1))
		a, b := NewTask("a", Normal, 0), NewTask("b", Normal, 0)
		c.Fork(nil, a, 0)
		c.Fork(nil, b, 0)
		x := c.Schedule(0)
		c.Sleep(x, 1_000_000)
		if !x.Delayed() || x.VLag != tc.want {
			t.Errorf("%v: %v delayed %t, lag %d; want delayed, lag %d", tc.v, x, x.Delayed(), x.VLag, tc.want)
		}
		checkCPU(t, c, nil)
	}
}

// TestRequeueDelayedV618 wakes a delayed entity whose lag must be clamped. a runs at 0, x (nice
// 0, slice 0.7 ms) is queued at +5 ms and sleeps, ineligible, so it is delayed. At its wakeup V =
// 2.5 ms and its lag, -2.5 ms, is clamped to -calc_delta_fair(0.7 ms + TICK_NSEC) = -1.7 ms.
// v6.18's requeue_delayed_entity moves it only for a positive lag: it stays at +5 ms, its saved
// lag the clamped one. v7.1's places it again with the clamped lag: with a alone left (W = w),
// -1.7 ms·2W/W = -3.4 ms from V = 0 (a's vruntime).
func TestRequeueDelayedV618(t *testing.T) {
	specs := []rigSpec{{nice: 0, dd: 700_000, slice: 700_000}, {nice: 0, dv: 5_000_000, dd: 700_000, slice: 700_000}}
	for _, tc := range []struct {
		v    Version
		want int64
	}{{V618, 5_000_000}, {V71, 3_400_000}} {
		c, ts := rigEEVDF(t, preset(tc.v, 1), v0, specs, 0)
		x := ts[1]
		c.Sleep(x, 0)
		if !x.Delayed() {
			t.Fatalf("%v: %v not delayed", tc.v, x)
		}
		c.Wakeup(x, 0)
		if got := int64(x.Vruntime - v0); got != tc.want || x.VLag != -1_700_000 || x.Delayed() {
			t.Errorf("%v: woken %v at v0%+d, lag %d, delayed %t; want v0%+d, lag -1700000, not delayed", tc.v, x, got, x.VLag, x.Delayed(), tc.want)
		}
		checkCPU(t, c, nil)
	}
}

// TestReweightV618 reweights a queued entity b (nice 0 at +3000, deadline 0.7 ms after its
// vruntime) to nice -5 (3121·1024) beside a running nice-19 entity a at 0. Both versions take the
// lag against V = (3000·1024)/(15 + 1024) = 2956 (the weights' ratio is the same at full
// resolution): -44, scaled to -44·1048576/3195904 = -14.4 -> -14. v6.18's reweight_entity keeps
// the deadline relative to b's vruntime (700000·1048576/3195904 = 229669.98 -> 229669) and puts
// b back with place_entity, whose PLACE_LAG inflates the lag by (W + w)/W with a alone left
// (W = 15): -14·3136/15 = -2926.9 -> -2926 from V = 0, so b is at +2926, its deadline 229669
// after (+232595). v7.1's keeps the deadline relative to V (700044 -> 229684.41 -> 229684) and
// puts b at V - lag = 2956 + 14 = +2970, its deadline at V + 229684 = +232640.
func TestReweightV618(t *testing.T) {
	specs := []rigSpec{{nice: 19, dd: 700_000, slice: 700_000}, {nice: 0, dv: 3000, dd: 700_000, slice: 700_000}}
	for _, tc := range []struct {
		v            Version
		vrun, dl     int64
		lag, nrAfter int64
	}{
		{V618, 2926, 232_595, -14, 2},
		{V71, 2970, 232_640, -14, 2},
	} {
		p := preset(tc.v, 1)
		c, ts := rigEEVDF(t, p, v0, specs, 0)
		b := ts[1]
		c.Root().reweightEntity(b, TaskLoad(Normal, -5), 0, &p)
		if got, dl := int64(b.Vruntime-v0), int64(b.Deadline-v0); got != tc.vrun || dl != tc.dl || b.VLag != tc.lag || int64(c.Root().nrRunning) != tc.nrAfter {
			t.Errorf("%v: reweighted b at v0%+d, deadline v0%+d, lag %d, nr %d; want v0%+d, v0%+d, %d, %d",
				tc.v, got, dl, b.VLag, c.Root().nrRunning, tc.vrun, tc.dl, tc.lag, tc.nrAfter)
		}
		checkCPU(t, c, nil)
	}
}

// TestPickBuddyV618: v6.18's pick_eevdf picks an eligible next buddy first whatever protect
// says; v7.1's only when it protects the running entity. a runs (deadline +100, protected), b is
// queued at V with a later deadline and is the next buddy. Ignoring protection (a
// PREEMPT_WAKEUP_SHORT pick), v6.18 picks b, v7.1 the earliest eligible deadline, a.
func TestPickBuddyV618(t *testing.T) {
	specs := []rigSpec{{nice: 0, dd: 100, slice: 700_000}, {nice: 0, dd: 700_000, slice: 700_000}}
	for _, tc := range []struct {
		v      Version
		want   int
		reason PickReason
	}{{V618, 1, pickNextBuddy}, {V71, 0, pickCurrDeadline}} {
		p := preset(tc.v, 1)
		c, ts := rigEEVDF(t, p, v0, specs, 0)
		ts[0].VProt = v0 + 100
		c.Root().next = ts[1]
		if got, why := pickEEVDF(c.Root(), false, &p); got != ts[tc.want] || why != tc.reason {
			t.Errorf("%v: pick without protection = %v (%v), want %v (%v)", tc.v, got, why, ts[tc.want], tc.reason)
		}
	}
}

// TestPickEligibleV618 holds PickEligible and the queue's pick of the same state to v6.18.35's
// pick_eevdf (kernel/sched/fair.c blob 7e0e2044d840): PICK_BUDDY before, and whatever,
// protect; slice protection (protect_slice: vruntime < vprot) after it; eligibility
// (vruntime_eligible) with scale_load_down weights (1024 for nice 0) and the product in wrapping
// s64. Vruntime and deadline offsets are from z, the queue's zero_vruntime.
func TestPickEligibleV618(t *testing.T) {
	const z = pickZero
	e, cur := pickEntity, pickRunning
	runPickCases(t, V618, z, []pickCase{
		// a at -1000, b at -500, the running c at +1500, all nice 0: S = (-1000 - 500 +
		// 1500)·1024 = 0, W = 3072, so a and b are eligible and c is not. The next buddy b is
		// taken without protection (PREEMPT_SHORT's question), where v7.1 takes a.
		{"next buddy without protect", []EntityState{e(-1000, 100, nice0), e(-500, 200, nice0)}, cur(1500, 300, 9000, nice0), true, 1, false, true, 1, pickNextBuddy},
		// The same without PICK_BUDDY: c is not eligible, a is first in deadline order.
		{"no PICK_BUDDY", []EntityState{e(-1000, 100, nice0), e(-500, 200, nice0)}, cur(1500, 300, 9000, nice0), true, 1, false, false, 0, pickEarliestDeadline},
		// b at +1000 is past V = 0: an ineligible buddy is passed over; c (key 0, eligible)
		// is not kept without protect, and a's deadline (100) is earlier than c's (300).
		{"ineligible next buddy without protect", []EntityState{e(-1000, 100, nice0), e(1000, 200, nice0)}, cur(0, 300, 500, nice0), true, 1, false, true, 0, pickEarliestDeadline},
		// All three at 0 are eligible and c is before its vprot (+500): the buddy test comes
		// before protect_slice, so b wins; without a buddy c's protection keeps it.
		{"buddy before protection", []EntityState{e(0, 100, nice0), e(0, 200, nice0)}, cur(0, 300, 500, nice0), true, 1, true, true, 1, pickNextBuddy},
		{"protection without buddy", []EntityState{e(0, 100, nice0), e(0, 200, nice0)}, cur(0, 300, 500, nice0), true, -1, true, true, -1, pickCurrProtected},
		// Weights in averaging units: b (nice 0, key 0, earliest deadline), a group entity a of
		// weight 1023 at -1000 and c (nice 0) at +1 on the timeline. scale_load_down(1023) =
		// max(2, 0) = 2, so S = -2000 + 1024 = -976 < 0·W: b is not eligible and the descent
		// finds a (-976 >= -1000·2050). v7.1's full weights give S = -1023000 + 1048576 >= 0
		// and pick b (below).
		{"scaled-down group weight", []EntityState{e(0, 100, nice0), e(-1000, 200, 1023), e(1, 300, nice0)}, nil, false, -1, true, false, 1, pickEarliestDeadline},
		// The wrapping product: b at +2^52 (earliest deadline) and a at 0, both nice 0: S =
		// 2^52·1024 = 2^62, W = 2048, and b's key·W = 2^63 wraps to -2^63 <= S, so b, far
		// right of V = 2^51, is eligible and picked, as in the kernel.
		{"wrapping eligibility product", []EntityState{e(1<<52, 100, nice0), e(0, 200, nice0)}, nil, false, -1, true, false, 0, pickEarliestDeadline},
		// One entity in all is taken without a test (cfs_rq->nr_queued == 1).
		{"one running", nil, cur(1<<40, 5, 0, 3), true, -1, false, true, -1, pickOnly},
	})
	runPickCases(t, V71, z, []pickCase{
		{"scaled-down group weight (v7.1 twin)", []EntityState{e(0, 100, nice0), e(-1000, 200, 1023), e(1, 300, nice0)}, nil, false, -1, true, false, 0, pickEarliestDeadline},
		{"next buddy without protect (v7.1 twin)", []EntityState{e(-1000, 100, nice0), e(-500, 200, nice0)}, cur(1500, 300, 9000, nice0), true, 1, false, true, 0, pickEarliestDeadline},
	})
}

// TestPreemptShortKeepsBuddiesV618: at the preempt label of a PREEMPT_WAKEUP_SHORT preemption
// v6.18's check_preempt_wakeup_fair only cancels the running entity's protection
// (cancel_protect_slice) before resched_curr_lazy; the model's v7.1 also clears the running
// entity's buddies. a runs at +10000 (slice 3 ms) and is, as rigged, its queue's next buddy; b
// waits at 0; w (slice 0.2 ms) wakes at V = 5000 with lag 0. a is not eligible, so neither
// PICK_BUDDY nor a's protection applies, and w, eligible with the earliest deadline, preempts.
func TestPreemptShortKeepsBuddiesV618(t *testing.T) {
	specs := []rigSpec{{nice: 0, dv: 10_000, dd: 3_000_000, slice: 3_000_000}, {nice: 0, dd: 3_000_000, slice: 3_000_000}}
	for _, tc := range []struct {
		v    Version
		kept bool
	}{{V618, true}, {V71, false}} {
		c, ts := rigEEVDF(t, preset(tc.v, 1), v0, specs, 0)
		a := ts[0]
		a.VProt = a.Deadline
		c.Root().next = a
		w := NewTask("w", Normal, 0)
		w.SetSlice(200_000)
		d, why := c.Wakeup(w, 0)
		if !d.Preempt || !d.short || why != wakeupPicked || a.VProt != a.Vruntime {
			t.Fatalf("%v: Wakeup(w) = %v (short %t), a's protection to v0%+d; want a PREEMPT_WAKEUP_SHORT preemption cancelling it", tc.v, d.Explain(why), d.short, int64(a.VProt-v0))
		}
		if kept := c.Root().next == a; kept != tc.kept {
			t.Errorf("%v: next buddy kept %t, want %t", tc.v, kept, tc.kept)
		}
		checkCPU(t, c, nil)
	}
}

// TestPresetV618 checks the v6.18 preset against v6.18.35's kernel/sched/features.h (blob
// 136a6584be79) and fair.c (blob 7e0e2044d840): the features of v7.1's preset (NEXT_BUDDY
// off), the 0.70 ms sysctl_sched_base_slice, and __calc_delta with inv_weight (DeltaWMult).
func TestPresetV618(t *testing.T) {
	p, err := Preset("v6.18")
	if err != nil {
		t.Fatal(err)
	}
	want := Params{Name: "cfs-v6.18", Version: V618, Scaling: ScalingLog, SMP: defaultSMPParams(V618), CalcDelta: DeltaWMult,
		DefaultSlice: 700_000, NormalizedSlice: 700_000, Tick: 1_000_000, PlaceLag: true, PlaceDeadlineInitial: true,
		PlaceRelDeadline: true, RunToParity: true, PreemptShort: true, PickBuddy: true, DelayDequeue: true, DelayZero: true,
		WakeupPreemption: true}
	if p != want {
		t.Errorf("Preset(v6.18) = %+v, want %+v", p, want)
	}
}
