package cfs

import (
	"testing"
)

// Table tests of EEVDF's arithmetic, worked out by hand from the kernel source:
//
//	v6.6: kernel/sched/fair.c blob df348aa55d3c (lxdklp/linux-6.6.y @ 5fda8f9c "linux 6.6.0"),
//	      include/linux/math64.h (div_s64 takes an s32 divisor)
//	v7.1: kernel/sched/fair.c blob abb76775aa72 (danayer/linux-7.1.5 @ 7d33d86d)
//
// Weights: nice 0 = 1024 (v6.6 averaging weight) = 1048576 (v7.1, full); nice 5 = 335 /
// 343040; nice 19 = 15 / 15360; nice -20 = 88761 / 90891264. calc_delta_fair values are the
// wmult form in v6.6 and the dividing form in v7.1 (see calc_test.go).

var v0 uint64 = 1<<64 - 2000 // a reference point just before the u64 wrap (a variable, so that sums wrap)

func TestAvgVruntime(t *testing.T) {
	n0 := func(dv int64) rigSpec { return rigSpec{nice: 0, dv: dv, dd: 1} }
	n5 := func(dv int64) rigSpec { return rigSpec{nice: 5, dv: dv, dd: 1} }
	// Seventeen group entities at MAX_SHARES (scale_load(1<<18) = 2^28 each): W = 17·2^28 is
	// past 2^32, and one of them 1700 to the right makes S = 1700·2^28.
	maxShares := make([]rigSpec, 17)
	for i := range maxShares {
		maxShares[i] = rigSpec{weight: 1 << 28, dd: 1}
	}
	maxShares[0].dv = 1700
	// 16385 of them all at v0 in v6.6 (scale_load_down: 2^18 each): W = 2^32 + 2^18, which
	// div_s64 truncates to 2^18; S = 0.
	levelShares := make([]rigSpec, 16385)
	for i := range levelShares {
		levelShares[i] = rigSpec{weight: 1 << 28, dd: 1}
	}
	tests := []struct {
		name  string
		v     Version
		specs []rigSpec
		curr  int
		want  int64 // V - v0
	}{
		// S = 3000·1024 - 5000·335 = 1397000, W = 1359: 1397000/1359 = 1027.96 -> 1027.
		{"v6.6 positive sum truncates", V66, []rigSpec{n0(3000), n5(-5000)}, -1, 1027},
		// S = -1397000: the kernel subtracts W-1 first: -1398358/1359 = -1028.96 -> -1028,
		// the floor of -1027.96, never to the right of the true average.
		{"v6.6 negative sum floors", V66, []rigSpec{n0(-3000), n5(5000)}, -1, -1028},
		{"v6.6 running entity counts", V66, []rigSpec{n0(-3000), n5(5000)}, 1, -1028},
		// Full weights: S = 3000·1048576 - 5000·343040 = 1430528000, W = 1391616 -> 1027.
		{"v7.1 full weights, same V for tasks", V71, []rigSpec{n0(3000), n5(-5000)}, -1, 1027},
		{"v7.1 negative sum floors", V71, []rigSpec{n0(-3000), n5(5000)}, 0, -1028},
		// A group entity of weight 3000 load units: v6.6 averages with scale_load_down(3000)
		// = max(2, 2) = 2: S = 1000·1024, W = 1026 -> 998.05 -> 998; v7.1 with 3000:
		// S = 1000·1048576, W = 1051576 -> 997.15 -> 997.
		{"v6.6 scaled-down group weight", V66, []rigSpec{{weight: 3000, dd: 1}, n0(1000)}, -1, 998},
		{"v7.1 full group weight", V71, []rigSpec{{weight: 3000, dd: 1}, n0(1000)}, -1, 997},
		// v7.1's avg_vruntime divides with div64_long, a 64-bit divisor: 1700·2^28 / (17·2^28)
		// = 100. (v6.6's div_s64 would truncate W to 32 bits, 2^28, and give 1700.)
		{"v7.1 weight past 2^32 divides in 64 bits", V71, maxShares, -1, 100},
		// v6.6's avg_vruntime subtracts W-1 only from a negative S: S = 0 stays 0, and 0 over
		// the truncated divisor is 0. (Subtracting W-1 = 2^32 + 2^18 - 1 first would give
		// -16384 once divided by 2^18.)
		{"v6.6 level entities, weight past 2^32", V66, levelShares, -1, 0},
		// A lone running entity is the average (v7.1 returns its key without dividing).
		{"v6.6 lone running entity", V66, []rigSpec{n5(5000)}, 0, 5000},
		{"v7.1 lone running entity", V71, []rigSpec{n5(-5000)}, 0, -5000},
	}
	for _, tc := range tests {
		c, _ := rigEEVDF(t, preset(tc.v, 1), v0, tc.specs, tc.curr)
		if got := int64(AvgVruntime(c.Root().Sums()) - v0); got != tc.want {
			t.Errorf("%s: AvgVruntime() = v0%+d, want v0%+d", tc.name, got, tc.want)
		}
	}
	for _, v := range []Version{V66, V618, V71} {
		c := NewRunQueue(0, preset(v, 1))
		if got := AvgVruntime(c.Root().Sums()); got != InitialMinVruntime {
			t.Errorf("%v: AvgVruntime(empty) = %d, want the initial reference point %d", v, got, InitialMinVruntime)
		}
	}
	// v7.1's avg_vruntime moves zero_vruntime to V; the sums follow, so V does not change.
	c, _ := rigEEVDF(t, preset(V71, 1), v0, []rigSpec{n0(3000), n5(-5000)}, -1)
	q := c.Root()
	if got := q.avgVruntime(); got != v0+1027 || q.zeroVruntime() != v0+1027 || AvgVruntime(q.Sums()) != v0+1027 {
		t.Errorf("v7.1 avg_vruntime() = v0%+d, zero_vruntime moved by %+d, V afterwards v0%+d; want +1027 each",
			int64(got-v0), int64(q.zeroVruntime()-v0), int64(AvgVruntime(q.Sums())-v0))
	}
	// S' = S - 1027·W = 1430528000 - 1429189632 = 1338368: the remainder of the floor division.
	if q.sumWVruntime() != 1_338_368 || q.sumWeight != 1_391_616 {
		t.Errorf("v7.1 sums after the move = (%d, %d), want (1338368, 1391616)", q.sumWVruntime(), q.sumWeight)
	}
	checkCPU(t, c, nil)
}

func TestDivS64(t *testing.T) {
	// div_s64(s64 dividend, s32 divisor) truncates toward zero; v6.6 passes unsigned long
	// loads, which the s32 parameter truncates to their low 32 bits.
	tests := []struct {
		a    int64
		b    uint64
		want int64
	}{
		{7, 2, 3},
		{-7, 2, -3},
		{-1398358, 1359, -1028},
		{-7, 1<<32 + 2, -3},   // the divisor's high bits are lost
		{100, 1<<31 + 100, 0}, // 0x80000064 as s32 is -2147483548
	}
	for _, tc := range tests {
		if got := divS64(tc.a, tc.b); got != tc.want {
			t.Errorf("divS64(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestVruntimeEligible(t *testing.T) {
	two := []rigSpec{{nice: 0, dv: 0, dd: 1}, {nice: 0, dv: 1, dd: 1}}
	heavy := []rigSpec{{nice: -20, dv: 0, dd: 1}, {nice: -20, dv: 0, dd: 1}}
	tests := []struct {
		name  string
		v     Version
		specs []rigSpec
		probe uint64
		want  bool
	}{
		// Keys 0 and 1, weights equal: S = 1·w, W = 2w. V = v0 + floor(1/2) = v0.
		{"v6.6 at V", V66, two, v0, true},               // S=1024 >= 0·2048
		{"v6.6 one past V", V66, two, v0 + 1, false},    // 1024 >= 1·2048 fails
		{"v7.1 at V", V71, two, v0, true},               // 1048576 >= 0
		{"v7.1 one past V", V71, two, v0 + 1, false},    // 1048576 >= 2097152 fails
		{"v6.6 far left", V66, two, v0 - 1<<30, true},   // negative key
		{"v7.1 far right", V71, two, v0 + 1<<30, false}, // positive key
		// Two nice -20 entities at v0: S = 0, W = 2·88761 = 177522 (v6.6). Probe key 2^46:
		// 2^46·177522 wraps in s64 to a negative value, so v6.6's "0 >= key·load" holds
		// although the entity is far right of V.
		{"v6.6 wrapping product", V66, heavy, v0 + 1<<46, true},
		// v7.1, W = 2·90891264 = 181782528: 2^36·W = 1.25e19 would wrap in s64 to a
		// negative value as well; the __int128 comparison gets it right.
		{"v7.1 128-bit product", V71, heavy, v0 + 1<<36, false},
		{"v7.1 128-bit product, far", V71, heavy, v0 + 1<<46, false},
		{"v7.1 128-bit product, far left", V71, heavy, v0 - 1<<46, true},
	}
	for _, tc := range tests {
		c, _ := rigEEVDF(t, preset(tc.v, 1), v0, tc.specs, -1)
		if got := VruntimeEligible(c.Root().Sums(), tc.probe); got != tc.want {
			t.Errorf("%s: VruntimeEligible(v0%+d) = %t, want %t", tc.name, int64(tc.probe-v0), got, tc.want)
		}
	}
	// entity_eligible of the entities themselves, and a lone entity is always eligible.
	c, ts := rigEEVDF(t, preset(V66, 1), v0, two, -1)
	if !entityEligible(c.Root(), ts[0]) || entityEligible(c.Root(), ts[1]) {
		t.Errorf("entityEligible(key 0, key 1) = %t, %t; want true, false", entityEligible(c.Root(), ts[0]), entityEligible(c.Root(), ts[1]))
	}
	c, ts = rigEEVDF(t, preset(V71, 1), v0, []rigSpec{{nice: 7, dv: 12345, dd: 1}}, 0)
	if !entityEligible(c.Root(), ts[0]) {
		t.Errorf("entityEligible(lone running entity) = false")
	}
}

func TestLagLimit(t *testing.T) {
	tests := []struct {
		name  string
		v     Version
		specs []rigSpec
		se    int
		want  int64
	}{
		// v6.6: calc_delta_fair(max(2·slice, TICK_NSEC)) with the entity's own slice.
		{"v6.6 nice 0, 2×0.75 ms", V66, []rigSpec{{nice: 0, slice: 750_000}}, 0, 1_500_000},
		{"v6.6 nice 0, the tick floor", V66, []rigSpec{{nice: 0, slice: 300_000}}, 0, 1_000_000},
		// wmult: 1.5 ms·1024/15 with the table inverse 286331153 = 102399999 (not ...400000).
		{"v6.6 nice 19", V66, []rigSpec{{nice: 19, slice: 750_000}}, 0, 102_399_999},
		// v7.1: calc_delta_fair(max_slice + TICK_NSEC) over the queue, divided exactly:
		// 1.7 ms·1048576/15360 = 116053333.
		{"v7.1 nice 19", V71, []rigSpec{{nice: 19, slice: 700_000}, {nice: 0, slice: 100_000}}, 0, 116_053_333},
		// A longer custom slice elsewhere on the queue raises everyone's limit: 3 ms + 1 ms.
		{"v7.1 longest slice on the queue", V71, []rigSpec{{nice: 0, slice: 700_000}, {nice: 0, slice: 3_000_000}}, 0, 4_000_000},
	}
	for _, tc := range tests {
		c, ts := rigEEVDF(t, preset(tc.v, 1), v0, tc.specs, -1)
		if got := lagLimit(c.Root(), ts[tc.se], c.Params()); got != tc.want {
			t.Errorf("%s: lagLimit() = %d, want %d", tc.name, got, tc.want)
		}
	}
	// The clamp: V = v0 (one entity at v0 and the probed one at v0 - 2 ms and v0 + 2 ms is
	// not a steady state, so probe EntityLag with an explicit average).
	c, ts := rigEEVDF(t, preset(V66, 1), v0, []rigSpec{{nice: 0, slice: 750_000}}, -1)
	p := c.Params()
	for _, tc := range []struct {
		avg  uint64
		want int64
	}{
		{v0 + 2_000_000, 1_500_000}, {v0 - 2_000_000, -1_500_000}, {v0 + 1000, 1000}, {v0 - 1_500_000, -1_500_000},
	} {
		if got := EntityLag(c.Root(), ts[0], tc.avg, p); got != tc.want {
			t.Errorf("EntityLag(V = v%+d) = %d, want %d", int64(tc.avg-v0), got, tc.want)
		}
	}
}

func TestVirtualDeadline(t *testing.T) {
	tests := []struct {
		m     DeltaMethod
		nice  int
		slice uint64
		want  uint64 // deadline - vruntime
	}{
		{DeltaWMult, 0, 750_000, 750_000},
		{DeltaWMult, 5, 750_000, 2_292_537}, // 750000·1024/335 through the table inverse 12820798
		{DeltaDiv, 5, 700_000, 2_139_701},   // 700000·1048576/343040
		{DeltaDiv, -20, 700_000, 8_075},     // 700000·1048576/90891264
		{DeltaWMult, 19, 375_000, 25_599_999},
	}
	for _, tc := range tests {
		v := v0 - 100
		if got := virtualDeadline(tc.m, v, tc.slice, TaskLoad(Normal, tc.nice)) - v; got != tc.want {
			t.Errorf("virtualDeadline(%v, nice %d, slice %d) = v%+d, want v%+d", tc.m, tc.nice, tc.slice, got, tc.want)
		}
	}
}

func TestPlaceEEVDF(t *testing.T) {
	twoAtV0 := []rigSpec{{nice: 0, dd: 1, slice: 700_000}, {nice: 0, dd: 1, slice: 700_000}}
	tests := []struct {
		name     string
		v        Version
		specs    []rigSpec // the queue, V = v0 unless said otherwise
		nice     int
		vlag     int64
		initial  bool
		custom   uint64 // v7.1 custom slice
		relDl    uint64 // v7.1 relative deadline carried over, if not 0
		noLag    bool   // PLACE_LAG off
		wantLag  int64
		wantDl   int64 // deadline - vruntime
		moveZero bool
		lw       bool   // check Placement.Load and Weight against load and weight
		load     uint64 // W, in the version's averaging units
		weight   uint64 // w
	}{
		// lag·(W + w)/W = 3000·(2048 + 1024)/2048 = 4500.
		{name: "v6.6 lag inflated", v: V66, specs: twoAtV0, vlag: 3000, wantLag: 4500, wantDl: 750_000},
		// -3001·3072/2048 = -4501.5, truncated toward zero: -4501.
		{name: "v6.6 negative lag truncates", v: V66, specs: twoAtV0, vlag: -3001, wantLag: -4501, wantDl: 750_000},
		// nice 5 (w 335): 3000·2383/2048 = 3490.7 -> 3490; vslice 750000·1024/335 = 2292537.
		{name: "v6.6 light entity", v: V66, specs: twoAtV0, nice: 5, vlag: 3000, wantLag: 3490, wantDl: 2_292_537},
		{name: "v6.6 initial halves the slice", v: V66, specs: twoAtV0, initial: true, wantDl: 375_000},
		{name: "v6.6 PLACE_LAG off", v: V66, specs: twoAtV0, vlag: 3000, noLag: true, wantDl: 750_000},
		{name: "v6.6 empty queue keeps no lag", v: V66, vlag: 3000, wantDl: 750_000},
		// v7.1 full weights: 3000·(2097152 + 1048576)/2097152 = 4500; slice 0.70 ms.
		{name: "v7.1 lag inflated", v: V71, specs: twoAtV0, vlag: 3000, wantLag: 4500, wantDl: 700_000},
		{name: "v7.1 light entity", v: V71, specs: twoAtV0, nice: 5, vlag: 3000, wantLag: 3490, wantDl: 2_139_701},
		{name: "v7.1 initial halves the slice", v: V71, specs: twoAtV0, initial: true, wantDl: 350_000},
		{name: "v7.1 custom slice", v: V71, specs: twoAtV0, custom: 100_000, wantDl: 100_000},
		{name: "v7.1 relative deadline restored", v: V71, specs: twoAtV0, vlag: -3000, relDl: 123_456, wantLag: -4500, wantDl: 123_456},
		// A nice -20 entity joining one nice-19 entity: lag 1000·(15360 + 90891264)/15360 =
		// 5918400, and since w > W v7.1 re-centres zero_vruntime on the newcomer.
		{name: "v7.1 heavy newcomer moves zero_vruntime", v: V71, specs: []rigSpec{{nice: 19, dd: 1}}, nice: -20, vlag: 1000, wantLag: 5_918_400, wantDl: 8075, moveZero: true},
		// v6.6's place_entity enters the PLACE_LAG branch for any lag, 0 included, weighing the
		// queue (scale_load_down: W = 2048, w = 1024); v7.1's requires se->vlag != 0 and
		// leaves W and w alone.
		{name: "v6.6 zero lag still weighs the queue", v: V66, specs: twoAtV0, wantDl: 750_000, lw: true, load: 2048, weight: 1024},
		{name: "v7.1 zero lag skips PLACE_LAG", v: V71, specs: twoAtV0, wantDl: 700_000, lw: true},
		// v7.1 sets update_zero only if weight > load: a nice-0 newcomer joining one nice-0
		// entity (w = W = 1048576) leaves zero_vruntime where it is. Lag 3000·2W/W = 6000.
		{name: "v7.1 newcomer as heavy as the queue", v: V71, specs: []rigSpec{{nice: 0, dd: 1}}, vlag: 3000, wantLag: 6000, wantDl: 700_000,
			lw: true, load: 1 << 20, weight: 1 << 20},
		// v6.18's place_entity (fair.c blob 7e0e2044d840) weighs with scale_load_down like v6.6
		// (W = 2048, w = 1024: 3000·3072/2048 = 4500), skips a zero lag like v7.1, divides with
		// div_s64 (-3001·3072/2048 = -4501.5 -> -4501) and never moves zero_vruntime: the heavy
		// newcomer's lag is 1000·(15 + 88761)/15 = 5918400 and its vslice 700000·(1024·48388)
		// >> 32 = 8075 (__calc_delta with sched_prio_to_wmult[-20]).
		{name: "v6.18 lag inflated in scaled-down weights", v: V618, specs: twoAtV0, vlag: 3000, wantLag: 4500, wantDl: 700_000,
			lw: true, load: 2048, weight: 1024},
		{name: "v6.18 negative lag truncates", v: V618, specs: twoAtV0, vlag: -3001, wantLag: -4501, wantDl: 700_000},
		{name: "v6.18 zero lag skips PLACE_LAG", v: V618, specs: twoAtV0, wantDl: 700_000, lw: true},
		{name: "v6.18 heavy newcomer keeps zero_vruntime", v: V618, specs: []rigSpec{{nice: 19, dd: 1}}, nice: -20, vlag: 1000,
			wantLag: 5_918_400, wantDl: 8075, lw: true, load: 15, weight: 88761},
		{name: "v6.6 heavy newcomer", v: V66, specs: []rigSpec{{nice: 19, dd: 1}}, nice: -20, vlag: 1000, wantLag: 5_918_400, wantDl: 8652},
	}
	for _, tc := range tests {
		p := preset(tc.v, 1)
		p.PlaceLag = !tc.noLag
		c, _ := rigEEVDF(t, p, v0, tc.specs, -1)
		q := c.Root()
		se := NewTask("se", Normal, tc.nice)
		c.attach(se)
		se.VLag = tc.vlag
		if tc.custom != 0 {
			se.SetSlice(tc.custom)
		}
		if tc.relDl != 0 {
			se.Deadline, se.relDeadline = tc.relDl, true
		}
		pl := placeEEVDF(q, se, tc.initial, &p)
		if pl.V != v0 || pl.Lag != tc.wantLag || pl.Vruntime != v0-uint64(tc.wantLag) ||
			int64(pl.Deadline-pl.Vruntime) != tc.wantDl || pl.MoveZero != tc.moveZero || pl.RelDeadline != (tc.relDl != 0) {
			t.Errorf("%s: placeEEVDF() = V v0%+d, lag %d, vruntime V%+d, deadline vruntime%+d, move zero %t, rel %t; want V v0, lag %d, vruntime V%+d, deadline vruntime%+d, move zero %t",
				tc.name, int64(pl.V-v0), pl.Lag, int64(pl.Vruntime-pl.V), int64(pl.Deadline-pl.Vruntime), pl.MoveZero, pl.RelDeadline,
				tc.wantLag, -tc.wantLag, tc.wantDl, tc.moveZero)
		}
		if tc.lw && (pl.Load != tc.load || pl.Weight != tc.weight) {
			t.Errorf("%s: placeEEVDF() load %d, weight %d; want %d, %d", tc.name, pl.Load, pl.Weight, tc.load, tc.weight)
		}
		// Applying it: v7.1 moves zero_vruntime to V, and onto the newcomer when it is heavy.
		q.placeEntity(se, 0, &p)
		if tc.moveZero && q.zeroVruntime() != se.Vruntime {
			t.Errorf("%s: zero_vruntime v0%+d after placement, want the newcomer's vruntime v0%+d", tc.name, int64(q.zeroVruntime()-v0), int64(se.Vruntime-v0))
		}
	}
}

func TestProtectPoint(t *testing.T) {
	tests := []struct {
		name   string
		ncpus  int
		parity bool
		nice   int
		slice  uint64 // the running entity's slice
		other  uint64 // the other queued entity's slice
		want   uint64 // vprot - vruntime
	}{
		{"equal slices: the deadline", 1, true, 0, 700_000, 700_000, 700_000},
		{"a shorter slice queued", 1, true, 0, 700_000, 100_000, 100_000},
		// nice 5: 100000·1048576/343040 = 305671.
		{"a shorter slice, light entity", 1, true, 5, 700_000, 100_000, 305_671},
		{"a longer slice queued: the deadline", 1, true, 0, 700_000, 3_000_000, 700_000},
		// Without RUN_TO_PARITY the quantum is the unscaled 0.70 ms, less than the 2.8 ms
		// default slice of an 8-CPU machine.
		{"no RUN_TO_PARITY, 8 CPUs", 8, false, 0, 2_800_000, 2_800_000, 700_000},
		{"no RUN_TO_PARITY, 1 CPU", 1, false, 0, 700_000, 100_000, 700_000},
	}
	for _, tc := range tests {
		p := preset(V71, tc.ncpus)
		p.RunToParity = tc.parity
		c, ts := rigEEVDF(t, p, v0, []rigSpec{{nice: tc.nice, slice: tc.slice}, {nice: 0, slice: tc.other}}, -1)
		se := ts[0]
		se.Deadline = se.Vruntime + CalcDeltaFair(p.CalcDelta, se.Slice, se.load)
		q := c.Root()
		q.dequeueTree(se) // set_next_entity takes it off the timeline first
		if got := protectPoint(q, se, &p) - se.Vruntime; got != tc.want {
			t.Errorf("%s: protectPoint() = vruntime%+d, want vruntime%+d", tc.name, got, tc.want)
		}
	}
}

func TestClampSlice(t *testing.T) {
	tests := []struct {
		runtime, want uint64
		custom        bool
	}{
		{0, 0, false}, {1, 100_000, true}, {99_999, 100_000, true}, {100_000, 100_000, true},
		{3_000_000, 3_000_000, true}, {100_000_000, 100_000_000, true}, {1 << 40, 100_000_000, true},
	}
	for _, tc := range tests {
		if got, custom := clampSlice(tc.runtime); got != tc.want || custom != tc.custom {
			t.Errorf("ClampSlice(%d) = %d, %t; want %d, %t", tc.runtime, got, custom, tc.want, tc.custom)
		}
	}
}
