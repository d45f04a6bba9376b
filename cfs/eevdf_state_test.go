package cfs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Table tests of EEVDF's arithmetic on explicit values, at states that only explicit
// construction reaches (weights outside the nice table, sums near the limits of s64 and of
// div_s64's 32-bit divisor, a running entity with a protection point), worked out by hand from
//
//	v6.6: kernel/sched/fair.c blob df348aa55d3c (avg_vruntime, entity_eligible),
//	      include/linux/math64.h (div_s64(s64 dividend, s32 divisor))
//	v7.1: kernel/sched/fair.c blob abb76775aa72 (v7.1.5: avg_vruntime, vruntime_eligible with
//	      the __int128 product, pick_eevdf, protect_slice)
//
// The kernel is built with -fno-strict-overflow: signed sums and products wrap.

func TestAvgVruntimeSums(t *testing.T) {
	const z = uint64(1) << 40
	tests := []struct {
		name string
		s    Sums
		want int64 // V - Zero
	}{
		// Weights 1000 at key 7 and 3 at key -2 (no nice level has either): S = 7000 - 6 =
		// 6994, W = 1003; 6994/1003 = 6.97 truncates to 6.
		{"v7.1 weights off the table", Sums{Version: V71, Zero: z, SumWVruntime: 6994, SumWeight: 1003}, 6},
		// S = -6994: S - (W-1) = -7996, /1003 = -7.97 -> -7 = floor(-6.97).
		{"v7.1 negative sum floors", Sums{Version: V71, Zero: z, SumWVruntime: -6994, SumWeight: 1003}, -7},
		// S = -2006 = -2·W: -2006 - 1002 = -3008, /1003 = -2.999 -> -2: subtracting W-1, not W,
		// keeps an exact multiple exact.
		{"v7.1 negative exact multiple", Sums{Version: V71, Zero: z, SumWVruntime: -2006, SumWeight: 1003}, -2},
		// S = 2^63 - 1001, W = 1024, and a running entity at key 1 of weight 1024: S + 1024
		// wraps to -2^63 + 23; it is negative, so W' - 1 = 2047 is subtracted, which wraps
		// back to 2^63 - 2024; div_s64 by 2048 gives 2^52 - 1 (the true average is 2^53 - 0.5).
		{"v6.6 sum wraps through s64", Sums{Version: V66, Zero: z, SumWVruntime: math.MaxInt64 - 1000, SumWeight: 1024, Curr: true, CurrVruntime: z + 1, CurrWeight: 1024}, 1<<52 - 1},
		// W = 2^31 (8192 group entities at scale_load_down(MAX_SHARES) = 2^18, all at key 5):
		// div_s64's s32 divisor is -2^31, so S = 5·2^31 gives -5, left of every entity.
		{"v6.6 div_s64 divisor 2^31 turns negative", Sums{Version: V66, Zero: z, SumWVruntime: 5 << 31, SumWeight: 1 << 31}, -5},
		// W = 2^32 + 3 truncates to 3: S = 6 gives 2 (the true average is 0).
		{"v6.6 div_s64 divisor past 2^32", Sums{Version: V66, Zero: z, SumWVruntime: 6, SumWeight: 1<<32 + 3}, 2},
		// v7.1 divides with div64_long: the same sums give 0.
		{"v7.1 divisor past 2^32 in 64 bits", Sums{Version: V71, Zero: z, SumWVruntime: 6, SumWeight: 1<<32 + 3}, 0},
		// S = -2^63 + 5, W = 2: S - 1 = -2^63 + 4, /2 = -2^62 + 2 = floor(-2^62 + 2.5).
		{"v7.1 sum at the s64 floor", Sums{Version: V71, Zero: z, SumWVruntime: math.MinInt64 + 5, SumWeight: 2}, -1<<62 + 2},
		// S = -2^63 + 1, W = 3: S - 2 wraps to 2^63 - 1, /3 = 3074457345618258602: the floor
		// correction overflows and V lands far to the right, as the kernel's would.
		{"v7.1 floor correction wraps", Sums{Version: V71, Zero: z, SumWVruntime: math.MinInt64 + 1, SumWeight: 3}, 3074457345618258602},
		// No weight on the timeline: v7.1 takes a lone running entity's vruntime, v6.6 divides
		// its own key·w by w.
		{"v7.1 lone running entity", Sums{Version: V71, Zero: z, Curr: true, CurrVruntime: z - 12345, CurrWeight: 7}, -12345},
		{"v6.6 lone running entity", Sums{Version: V66, Zero: z, Curr: true, CurrVruntime: z - 12345, CurrWeight: 7}, -12345},
		{"v7.1 empty", Sums{Version: V71, Zero: z}, 0},
		{"v6.6 empty", Sums{Version: V66, Zero: z}, 0},
	}
	for _, tc := range tests {
		if got := int64(AvgVruntime(tc.s) - tc.s.Zero); got != tc.want {
			t.Errorf("%s: AvgVruntime(%+v) = v0%+d, want v0%+d", tc.name, tc.s, got, tc.want)
		}
	}
}

func TestVruntimeEligibleSums(t *testing.T) {
	const z = uint64(1) << 40
	tests := []struct {
		name string
		s    Sums
		key  int64 // v - Zero
		want bool
	}{
		// S = 0, W = 2, key 2^62: key·W = 2^63 wraps to -2^63 in v6.6's s64 product, and 0 >=
		// -2^63: an entity far to the right is eligible. v7.1's 128-bit product is 2^63 > 0.
		{"v6.6 product wraps: far right eligible", Sums{Version: V66, Zero: z, SumWeight: 2}, 1 << 62, true},
		{"v7.1 exact product: far right not eligible", Sums{Version: V71, Zero: z, SumWeight: 2}, 1 << 62, false},
		// S = -2^63, W = 4, key -2^62: key·W = -2^64 wraps to 0 in v6.6, and -2^63 < 0: an
		// entity far to the left is not eligible; v7.1 compares -2^63 >= -2^64: eligible.
		{"v6.6 product wraps: far left not eligible", Sums{Version: V66, Zero: z, SumWVruntime: math.MinInt64, SumWeight: 4}, -1 << 62, false},
		{"v7.1 exact product: far left eligible", Sums{Version: V71, Zero: z, SumWVruntime: math.MinInt64, SumWeight: 4}, -1 << 62, true},
		// S = 6994, W = 1003 (V = v0 + 6): 6·1003 = 6018 <= 6994, 7·1003 = 7021 > 6994.
		{"v7.1 at V", Sums{Version: V71, Zero: z, SumWVruntime: 6994, SumWeight: 1003}, 6, true},
		{"v7.1 one past V", Sums{Version: V71, Zero: z, SumWVruntime: 6994, SumWeight: 1003}, 7, false},
		// A running entity of weight 3072 (SCHED_IDLE's at full resolution) at key 10 joins an
		// entity of 1024 at key 0: S = 30720, W = 4096; 7·4096 = 28672 <= 30720 < 8·4096.
		{"v7.1 running entity counts, 7", Sums{Version: V71, Zero: z, SumWeight: 1024, Curr: true, CurrVruntime: z + 10, CurrWeight: 3072}, 7, true},
		{"v7.1 running entity counts, 8", Sums{Version: V71, Zero: z, SumWeight: 1024, Curr: true, CurrVruntime: z + 10, CurrWeight: 3072}, 8, false},
		// A lone entity: S = key·w, W = w, so the entity itself is eligible (S >= key·W).
		{"v6.6 lone running entity", Sums{Version: V66, Zero: z, Curr: true, CurrVruntime: z - 99, CurrWeight: 1}, -99, true},
		// Nothing queued: S = W = 0 and 0 >= key·0 for every key.
		{"v7.1 empty", Sums{Version: V71, Zero: z}, 1 << 40, true},
	}
	for _, tc := range tests {
		if got := VruntimeEligible(tc.s, tc.s.Zero+uint64(tc.key)); got != tc.want {
			t.Errorf("%s: VruntimeEligible(%+v, v0%+d) = %t, want %t", tc.name, tc.s, tc.key, got, tc.want)
		}
	}
}

func TestSumsPanics(t *testing.T) {
	assertPanics(t, "AvgVruntime(v6.5)", func() { AvgVruntime(Sums{Version: V65}) }, "cfs: AvgVruntime of v6.5 sums")
	assertPanics(t, "VruntimeEligible(0)", func() { VruntimeEligible(Sums{}, 0) }, "cfs: VruntimeEligible of Version(0) sums")
	p := preset(V71, 1)
	p66 := preset(V66, 1)
	assertPanics(t, "PickEligible(v6.6)", func() { PickEligible(Sums{Version: V66}, nil, nil, false, -1, true, &p66) }, "cfs: PickEligible with v6.6 sums and v6.6 parameters")
	p618 := preset(V618, 1)
	assertPanics(t, "PickEligible(v6.18 sums, v7.1 params)", func() { PickEligible(Sums{Version: V618}, nil, nil, false, -1, true, &p) }, "cfs: PickEligible with v6.18 sums and v7.1 parameters")
	assertPanics(t, "PickEligible(v7.1 sums, v6.18 params)", func() { PickEligible(Sums{Version: V71}, nil, nil, false, -1, true, &p618) }, "cfs: PickEligible with v7.1 sums and v6.18 parameters")
	assertPanics(t, "PickEligible(next 1 of 1)", func() {
		PickEligible(Sums{Version: V71}, make([]EntityState, 1), nil, false, 1, true, &p)
	}, "cfs: PickEligible: next buddy 1 of 1 queued entities")
}

// nice0 is a nice-0 task's weight at full resolution.
const nice0 = 1 << 20

// pickCase is one pick state of v6.18 or v7.1: entities on the timeline (deadline order), a running
// entity, a next buddy, and the expected pick (an index, -1 for the running entity).
type pickCase struct {
	name       string
	queued     []EntityState
	curr       *EntityState
	currQueued bool
	next       int
	protect    bool
	pickBuddy  bool
	want       int
	why        PickReason
}

// pickZero is the zero_vruntime of the pick tables (TestPickEligible, TestPickEligibleV618):
// their vruntimes, deadlines and protection points are offsets from it.
const pickZero = uint64(1) << 50

// pickEntity is a queued entity of weight w whose vruntime and deadline lie dv and dl from
// pickZero.
func pickEntity(dv, dl int64, w uint64) EntityState {
	return EntityState{Weight: w, Vruntime: pickZero + uint64(dv), Deadline: pickZero + uint64(dl)}
}

// pickRunning is pickEntity as the running entity, protected until dprot from pickZero.
func pickRunning(dv, dl, dprot int64, w uint64) *EntityState {
	s := pickEntity(dv, dl, w)
	s.VProt = pickZero + uint64(dprot)
	return &s
}

func TestPickEligible(t *testing.T) {
	const z = pickZero
	e, cur := pickEntity, pickRunning
	tests := []pickCase{
		// a (key -1000) and the running c (key 0) are eligible, b (key +1000) is not:
		// V = (-1000 + 0 + 1000)/3 = 0. c is before its VProt (500): protection keeps it
		// although a's deadline is earlier.
		{"protected running entity kept", []EntityState{e(-1000, 100, nice0), e(1000, 200, nice0)}, cur(0, 300, 500, nice0), true, -1, true, false, -1, pickCurrProtected},
		// The same with c exactly at VProt: protect_slice is vruntime < vprot, so it ends.
		{"protection ends at vprot", []EntityState{e(-1000, 100, nice0), e(1000, 200, nice0)}, cur(0, 300, 0, nice0), true, -1, true, false, 0, pickEarliestDeadline},
		// PREEMPT_SHORT judges without protection: a wins.
		{"protect false ignores vprot", []EntityState{e(-1000, 100, nice0), e(1000, 200, nice0)}, cur(0, 300, 500, nice0), true, -1, false, false, 0, pickEarliestDeadline},
		// c at key 3000 is past V = (-1000 + 1000 + 3000)/3 = 1000: not eligible, so its
		// protection does not matter; a is the earliest eligible deadline.
		{"ineligible running entity not kept", []EntityState{e(-1000, 100, nice0), e(1000, 200, nice0)}, cur(3000, 50, 9000, nice0), true, -1, true, false, 0, pickEarliestDeadline},
		// c eligible, unprotected, with a strictly earlier deadline (50 < 100) wins; with an
		// equal deadline the timeline's entity does.
		{"running entity earlier deadline", []EntityState{e(-1000, 100, nice0), e(1000, 200, nice0)}, cur(0, 50, 0, nice0), true, -1, true, false, -1, pickCurrDeadline},
		{"running entity equal deadline", []EntityState{e(-1000, 100, nice0), e(1000, 200, nice0)}, cur(0, 100, 0, nice0), true, -1, true, false, 0, pickEarliestDeadline},
		// A running entity that is no longer queued takes no part (and adds nothing to V:
		// the sums are those of a and b, V = 0, b at 1000 is not eligible).
		{"running entity not queued", []EntityState{e(-1000, 100, nice0), e(1000, 200, nice0)}, cur(-5000, 10, 9000, nice0), false, -1, true, false, 0, pickEarliestDeadline},
		// A group entity at MAX_SHARES (2^28) at key 0 outweighs a nice-0 task at key 100:
		// V = 100·2^20 / (2^28 + 2^20) = 0.39 -> 0, so the task, whose deadline is earliest, is
		// not eligible and the heavy entity is picked.
		{"heavy weight off the table", []EntityState{e(100, 150, nice0), e(0, 200, 1<<28)}, nil, false, -1, true, false, 1, pickEarliestDeadline},
		// Weight 3 (the lightest a group entity reaches after scale_load_down's floor, here at
		// full resolution) at key -100 against nice 0 at key 0: V = -300/1048579 -> floor -1,
		// and the nice-0 task at 0 is not eligible: the light one is picked.
		{"light weight off the table", []EntityState{e(0, 150, nice0), e(-100, 200, 3)}, nil, false, -1, true, false, 1, pickEarliestDeadline},
		// PICK_BUDDY: an eligible next buddy comes first, before protection; an ineligible one
		// does not; without protect the buddy is not considered.
		{"eligible next buddy", []EntityState{e(-1000, 100, nice0), e(-500, 200, nice0)}, cur(1500, 300, 9000, nice0), true, 1, true, true, 1, pickNextBuddy},
		{"ineligible next buddy", []EntityState{e(-1000, 100, nice0), e(1000, 200, nice0)}, cur(0, 300, 0, nice0), true, 1, true, true, 0, pickEarliestDeadline},
		{"next buddy without protect", []EntityState{e(-1000, 100, nice0), e(-500, 200, nice0)}, cur(1500, 300, 9000, nice0), true, 1, false, true, 0, pickEarliestDeadline},
		// One entity in all is taken without a test, queued or running.
		{"one queued", []EntityState{e(1<<40, 5, nice0)}, nil, false, -1, true, false, 0, pickOnly},
		{"one running", nil, cur(77, 5, 0, 3), true, -1, true, false, -1, pickOnly},
		{"empty", nil, nil, false, -1, true, false, -2, pickNone},
	}
	runPickCases(t, V71, z, tests)
}

// runPickCases asks PickEligible, on the queue's own Sums, and the pick of the same state built
// with NewRunQueueAt for each case, at version v (V618 or V71), and holds both to the case.
func runPickCases(t *testing.T, v Version, z uint64, tests []pickCase) {
	t.Helper()
	for _, tc := range tests {
		p := preset(v, 1)
		p.PickBuddy = tc.pickBuddy
		c, ts, run, err := NewRunQueueAt(0, p, z, tc.queued, tc.curr)
		if err != nil {
			t.Fatalf("%s: NewRunQueueAt: %v", tc.name, err)
		}
		if !tc.currQueued && run != nil {
			run.onRQ = false // as after a sleep that put it off the queue but left it current
			c.root.nrRunning--
			c.root.hNrRunning--
			c.root.hNrRunnable--
			c.root.load = c.root.load.sub(run.load.Weight)
		}
		q := c.Root()
		got, why := PickEligible(q.Sums(), tc.queued, tc.curr, tc.currQueued, tc.next, tc.protect, &p)
		if got != tc.want || why != tc.why {
			t.Errorf("%v %s: PickEligible = %d (%v), want %d (%v)", v, tc.name, got, why, tc.want, tc.why)
		}
		// The same state built as a queue: the kernel's tree descent must agree.
		if tc.next >= 0 {
			q.next = ts[tc.next]
		}
		se, qwhy := pickEEVDF(q, tc.protect, &p)
		var want *Entity
		switch {
		case tc.want == -1:
			want = run
		case tc.want >= 0:
			want = ts[tc.want]
		}
		if se != want || qwhy != tc.why {
			t.Errorf("%v %s: pick on NewRunQueueAt's queue = %v (%v), want %v (%v)", v, tc.name, se, qwhy, want, tc.why)
		}
	}
}

// TestPickEligibleMatchesQueue compares PickEligible with the queue's O(log n) pick, and
// AvgVruntime and VruntimeEligible on Queue.Sums with the queue's in-place arithmetic, on random
// states of v6.18 and v7.1 built with NewRunQueueAt: random weights (any, not only the nice table's), vruntimes
// around a reference point near the u64 wrap, deadlines with ties, a running entity with a
// protection point, and a next buddy.
func TestPickEligibleMatchesQueue(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 71))
	for iter := range 3000 {
		p := preset([]Version{V618, V71}[r.IntN(2)], 1)
		p.PickBuddy = r.IntN(2) == 0
		z := InitialMinVruntime + r.Uint64N(1<<24)
		n := r.IntN(12)
		queued := make([]EntityState, n)
		for i := range queued {
			queued[i] = EntityState{
				Weight:   1 + r.Uint64N(1<<r.IntN(29)),
				Vruntime: z + uint64(r.Int64N(2_000_000)-1_000_000),
				Deadline: z + uint64(r.Int64N(8)*250_000),
				Slice:    1 + r.Uint64N(3_000_000),
			}
		}
		var curr *EntityState
		if r.IntN(3) > 0 {
			curr = &EntityState{Weight: 1 + r.Uint64N(1<<20), Vruntime: z + uint64(r.Int64N(2_000_000)-1_000_000),
				Deadline: z + uint64(r.Int64N(8)*250_000), VProt: z + uint64(r.Int64N(2_000_000)-1_000_000)}
		}
		next := -1
		if n > 0 && r.IntN(2) == 0 {
			next = r.IntN(n)
		}
		checkStateAgainstQueue(t, fmt.Sprintf("iteration %d", iter), &p, z, queued, curr, next, r.IntN(4) > 0)
	}
}

// FuzzPickEligible is TestPickEligibleMatchesQueue on states decoded from the fuzzer's bytes: a
// header byte (features, next buddy, a running entity), 2 bytes of reference point (the low bit
// of the second chooses v6.18 over v7.1), then 6 bytes per entity (weight exponent and
// mantissa, vruntime offset, deadline step).
func FuzzPickEligible(f *testing.F) {
	f.Add([]byte{0x07, 0x12, 0x34, 20, 1, 0x80, 0x00, 1, 0, 10, 3, 0x7f, 0xff, 2, 0})
	f.Add([]byte{0x03, 0xff, 0xff, 28, 0, 0x00, 0x10, 0, 0, 0, 0, 0x00, 0x00, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		h := data[0]
		p := preset(V71, 1)
		if data[2]&1 != 0 {
			p = preset(V618, 1)
		}
		p.PickBuddy = h&1 != 0
		protect := h&2 != 0
		z := InitialMinVruntime + uint64(data[1])<<16 + uint64(data[2])<<8
		data = data[3:]
		entity := func(b []byte) EntityState {
			w := (uint64(b[1])<<8 | 1) << (b[0] % 25)
			return EntityState{
				Weight:   min(max(w, 1), maxStateWeight),
				Vruntime: z + uint64(int64(int16(uint16(b[2])<<8|uint16(b[3])))*64),
				Deadline: z + uint64(b[4]%8)*250_000,
				VProt:    z + uint64(int64(int8(b[5]))*1000),
			}
		}
		var curr *EntityState
		if h&4 != 0 && len(data) >= 6 {
			c := entity(data[:6])
			curr = &c
			data = data[6:]
		}
		var queued []EntityState
		for len(data) >= 6 && len(queued) < 24 {
			queued = append(queued, entity(data[:6]))
			data = data[6:]
		}
		next := -1
		if len(queued) > 0 && h&8 != 0 {
			next = int(h>>4) % len(queued)
		}
		checkStateAgainstQueue(t, "fuzz", &p, z, queued, curr, next, protect)
	})
}

// checkStateAgainstQueue builds the state (queued sorted into timeline order) with
// NewRunQueueAt, checks the queue's invariants and sums, and holds AvgVruntime,
// VruntimeEligible and PickEligible on the queue's Sums to the queue's own arithmetic and
// O(log n) pick.
func checkStateAgainstQueue(t *testing.T, name string, p *Params, z uint64, queued []EntityState, curr *EntityState, next int, protect bool) {
	t.Helper()
	slices.SortStableFunc(queued, func(a, b EntityState) int { return cmpDeadline(a.Deadline, b.Deadline) })
	c, ts, run, err := NewRunQueueAt(0, *p, z, queued, curr)
	if err != nil {
		t.Fatal(err)
	}
	checkCPU(t, c, nil)
	q := c.Root()
	// The queue's sums are those of the entities given.
	var sw int64
	var w uint64
	for _, e := range queued {
		aw := avgWeight(p.Version, LoadWeight{Weight: e.Weight}) // scale_load_down in v6.18
		sw += int64(e.Vruntime-z) * int64(aw)
		w += aw
	}
	if s := q.Sums(); s.SumWVruntime != sw || s.SumWeight != w || s.Zero != z || s.Curr != (curr != nil) {
		t.Fatalf("%s: Sums() = %+v, want S %d, W %d, zero %d", name, s, sw, w, z)
	}
	// The pure functions on the queue's sums agree with the queue's in-place arithmetic.
	if got, want := AvgVruntime(q.Sums()), q.minVruntime+uint64(q.avgDelta()); got != want {
		t.Fatalf("%s: AvgVruntime(Sums) = %d, the queue's %d", name, got, want)
	}
	el := q.eligibility()
	for _, e := range queued {
		for _, v := range []uint64{e.Vruntime, e.Vruntime - 1, e.Vruntime + 1} {
			if got, want := VruntimeEligible(q.Sums(), v), el.ok(v); got != want {
				t.Fatalf("%s: VruntimeEligible(Sums, %d) = %t, the queue's %t", name, v, got, want)
			}
		}
	}
	got, why := PickEligible(q.Sums(), queued, curr, true, next, protect, p)
	if next >= 0 {
		q.next = ts[next]
	}
	se, qwhy := pickEEVDF(q, protect, p)
	var want *Entity
	switch {
	case got == -1:
		want = run
	case got >= 0:
		want = ts[got]
	}
	if se != want || qwhy != why {
		t.Fatalf("%s: PickEligible = %d (%v); the queue picks %v (%v)", name, got, why, se, qwhy)
	}
}

// cmpDeadline orders deadlines wrap-aware, as the v7.1 timeline does.
func cmpDeadline(a, b uint64) int {
	switch {
	case before(a, b):
		return -1
	case before(b, a):
		return 1
	}
	return 0
}

func TestNewRunQueueAt(t *testing.T) {
	p := preset(V71, 1)
	bad := p
	bad.Tick = 0
	for _, tc := range []struct {
		name   string
		p      Params
		id     int
		queued []EntityState
		curr   *EntityState
		want   string
	}{
		{"invalid params", bad, 0, nil, nil, "cfs: Params.Tick is 0 in v7.1"},
		{"id", p, -1, nil, nil, "cfs: NewRunQueueAt: id -1"},
		{"weight 0", p, 0, []EntityState{{Name: "a", Weight: nice0}, {Name: "b"}}, nil, `cfs: NewRunQueueAt: entity 1 ("b"): weight 0 outside 1..2^32`},
		{"weight 2^32+1", p, 0, nil, &EntityState{Name: "r", Weight: 1<<32 + 1}, `cfs: NewRunQueueAt: running entity 0 ("r"): weight 4294967297 outside 1..2^32`},
		{"slice", p, 0, []EntityState{{Weight: 1, Slice: 2_000_000_000}}, nil, `cfs: NewRunQueueAt: entity 0 (""): slice 2000000000 ns is more than one second`},
		{"class", p, 0, []EntityState{{Weight: 1, Class: 7}}, nil, `cfs: NewRunQueueAt: entity 0 (""): class 7`},
	} {
		_, _, _, err := NewRunQueueAt(tc.id, tc.p, 0, tc.queued, tc.curr)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: NewRunQueueAt() error = %v, want %q", tc.name, err, tc.want)
		}
	}
	// A state as given: counts, load, the table inverse for a table weight and the computed
	// one otherwise, the slice default, and the v6.6 and classic orderings.
	for _, v := range []Version{V65, V66, V618, V71} {
		p := preset(v, 1)
		if !v.EEVDF() {
			p = preset(V65, 1)
		}
		c, ts, run, err := NewRunQueueAt(3, p, 1000, []EntityState{
			{Name: "b", Weight: nice0, Vruntime: 2000, Deadline: 2500},
			{Name: "a", Class: Idle, Weight: 3072, Vruntime: 1500, Deadline: 9000},
		}, &EntityState{Name: "r", Weight: 12345, Vruntime: 1200, Deadline: 1300, VProt: 1250, Slice: 300_000, CustomSlice: true})
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		checkCPU(t, c, nil)
		q := c.Root()
		if c.id != 3 || q.NrRunning() != 3 || q.IdleNrRunning() != 1 || q.Load().Weight != nice0+3072+12345 || c.Curr() != run || q.Curr() != run {
			t.Errorf("%v: id %d, nr %d, idle %d, load %d, curr %v", v, c.id, q.NrRunning(), q.IdleNrRunning(), q.Load().Weight, c.Curr())
		}
		if ts[0].Load() != TaskLoad(Normal, 0) || ts[1].Load() != TaskLoad(Idle, 0) || run.Load() != (LoadWeight{Weight: 12345}) {
			t.Errorf("%v: loads %v %v %v", v, ts[0].Load(), ts[1].Load(), run.Load())
		}
		wantFirst := ts[1] // by vruntime (classic, v6.6)
		if v >= V618 {
			wantFirst = ts[0] // by deadline
		}
		if q.First() != wantFirst || ts[0].Slice != p.DefaultSlice || run.Slice != 300_000 || run.VProt != 1250 || run.CustomSlice() != (v >= V618) {
			t.Errorf("%v: first %v, slices %d %d, vprot %d, custom %t", v, q.First(), ts[0].Slice, run.Slice, run.VProt, run.CustomSlice())
		}
	}
}
