// This file implements EEVDF's arithmetic on explicit values, so that any state a cfs_rq can be
// in can be set up and asked: the sums avg_vruntime and vruntime_eligible read ([Sums],
// [AvgVruntime], [VruntimeEligible]), the pick of v6.18 and v7.1 over a list of entities
// ([PickEligible]), and run queues built at a chosen state ([NewRunQueueAt]).

package cfs

import "fmt"

// Sums are what the kernel's avg_vruntime and vruntime_eligible read from a cfs_rq, as explicit
// values. A queue gives its own with [Queue.Sums]; any other values describe a state the
// kernel could be in, including ones that the enqueues and dequeues of a test would take long
// to reach (sums near the limits of s64, weights outside the nice table).
type Sums struct {
	// Version selects the units and the arithmetic: V66 and V618 average with scale_load_down
	// weights (1024 for nice 0), divide with div_s64 (a divisor truncated to 32 bits) and
	// compare in wrapping 64-bit arithmetic (V618 divides only when SumWeight is not 0, as
	// V71 does); V71 averages with full weights (1048576 for nice 0), divides
	// with div64_long and compares with a 128-bit product.
	Version Version
	// Zero is the reference point v0 the keys are relative to: cfs_rq->min_vruntime in v6.6,
	// cfs_rq->zero_vruntime in v6.18 and v7.1.
	Zero uint64
	// SumWVruntime is Σ (v_i - v0)·w_i over the entities on the timeline, in wrapping s64
	// arithmetic: cfs_rq->avg_vruntime (v6.6), cfs_rq->sum_w_vruntime (v6.18, v7.1).
	SumWVruntime int64
	// SumWeight is Σ w_i over the timeline, in the version's averaging units ([avgWeight]):
	// cfs_rq->avg_load (v6.6), cfs_rq->sum_weight (v6.18, v7.1).
	SumWeight uint64
	// Curr reports that the queue's running entity is still queued (curr && curr->on_rq); it
	// is off the timeline, so avg_vruntime adds it on the fly with CurrVruntime and
	// CurrWeight (in averaging units).
	Curr         bool
	CurrVruntime uint64
	CurrWeight   uint64
}

// Sums returns the sums q's avg_vruntime reads: its reference point, the timeline's sums and
// its running entity if that is queued. On a classic CFS queue the sums are 0 (v6.5 keeps
// none) and Version is V65.
func (q *Queue) Sums() Sums {
	v := q.cpu.params.Version
	s := Sums{Version: v, Zero: q.minVruntime, SumWVruntime: q.sumW, SumWeight: q.sumWeight}
	if c := q.currQueued(); c != nil {
		s.Curr, s.CurrVruntime, s.CurrWeight = true, c.Vruntime, avgWeight(v, c.load)
	}
	return s
}

// mustEEVDF panics, naming fn, unless s are the sums of an EEVDF version. It inlines, the panic
// out of line.
func (s *Sums) mustEEVDF(fn string) {
	if s.Version != V66 && s.Version != V618 && s.Version != V71 {
		s.notEEVDF(fn)
	}
}

//go:noinline
func (s *Sums) notEEVDF(fn string) {
	panic("cfs: " + fn + " of " + s.Version.String() + " sums: avg_vruntime is EEVDF's (v6.6, v6.18, v7.1)")
}

// withCurr returns S and W with the queued running entity added, in the kernel's wrapping
// arithmetic (s64 avg, long load).
func (s *Sums) withCurr() (avg, load int64) {
	avg, load = s.SumWVruntime, int64(s.SumWeight)
	if s.Curr {
		avg += int64(s.CurrVruntime-s.Zero) * int64(s.CurrWeight)
		load += int64(s.CurrWeight)
	}
	return avg, load
}

// delta returns V - v0, the floor of S/W as avg_vruntime computes it (see [AvgVruntime] and
// [floorAvg]).
func (s *Sums) delta() int64 {
	avg, load := s.withCurr()
	var currKey int64
	if s.Curr {
		currKey = int64(s.CurrVruntime - s.Zero)
	}
	return floorAvg(s.Version, avg, load, s.SumWeight != 0, currKey)
}

// eligibility returns the entity-independent part of vruntime_eligible.
func (s *Sums) eligibility() eligibility {
	avg, load := s.withCurr()
	return eligibility{avg: avg, load: load, v0: s.Zero, wide: s.Version >= V71}
}

// AvgVruntime returns V, the weighted average vruntime of a queue with sums s, rounded down:
// the kernel's avg_vruntime (kernel/sched/fair.c v6.6 blob df348aa55d3c, v7.1.5 blob
// abb76775aa72). With S and W the sums with the queued running entity added,
//
//	v6.6: V = v0 + div_s64(S < 0 ? S - (W-1) : S, W)   when W != 0, else v0
//	v7.1: V = v0 + div64_long(S < 0 ? S - (W-1) : S, W) when SumWeight != 0,
//	      else the running entity's vruntime if it is queued, else v0
//
// The subtraction makes the truncating division a floor, so an entity placed at V is eligible.
// div_s64 truncates its divisor to 32 bits: a v6.6 W of 2^31 or more divides by a different,
// possibly negative, number, as the kernel does. S and W wrap as the kernel's s64 and long do.
// v7.1's avg_vruntime also moves zero_vruntime to V (update_zero_vruntime), which leaves V
// unchanged; AvgVruntime changes nothing. The complexity is O(1). AvgVruntime panics if
// s.Version is not an EEVDF version.
func AvgVruntime(s Sums) uint64 {
	s.mustEEVDF("AvgVruntime")
	return s.Zero + uint64(s.delta())
}

// VruntimeEligible reports whether an entity at vruntime v would be eligible on a queue with
// sums s, that is, has a non-negative lag against the queue's average: Σ w_i·(v_i - v) >= 0
// over the queued entities, evaluated without a division as S >= (v - v0)·W (vruntime_eligible
// in v7.1, the body of entity_eligible in v6.6; S and W with the queued running entity added).
// v6.6 multiplies in wrapping 64-bit arithmetic, so a product past 2^63 wraps and can make a
// far-right entity eligible, as in the kernel; v7.1 compares with the exact 128-bit product.
// An entity at exactly V is eligible, and a lone entity always is. The complexity is O(1).
// VruntimeEligible panics if s.Version is not an EEVDF version.
func VruntimeEligible(s Sums, v uint64) bool {
	s.mustEEVDF("VruntimeEligible")
	return s.eligibility().ok(v)
}

// entityEligible reports whether se is eligible on q: [VruntimeEligible](q.Sums(), se.Vruntime),
// the kernel's entity_eligible, without building the Sums. It panics if q's CPU does not run
// an EEVDF version.
func entityEligible(q *Queue, se *Entity) bool {
	q.mustEEVDF("entityEligible")
	return q.eligibility().ok(se.Vruntime)
}

// An EntityState is one entity of a queue as explicit values: the input of [PickEligible] and
// of [NewRunQueueAt].
type EntityState struct {
	// Name names the task NewRunQueueAt creates; PickEligible ignores it.
	Name string
	// Class is the task's fair class (NewRunQueueAt; an Idle task weighs what Weight says).
	// A Weight that set_load_weight gives the class (a nice level's, or SCHED_IDLE's 3072)
	// carries the table's inverse, any other the computed one, as a group entity's does.
	Class Class
	// Weight is the load weight, se->load.weight, at full resolution (1048576 for nice 0,
	// [TaskLoad]); any value from 1 to 2^32, as a group entity's can be. The averaging weight
	// is [avgWeight] of it.
	Weight uint64
	// Vruntime and Deadline are se->vruntime and se->deadline.
	Vruntime, Deadline uint64
	// Slice is se->slice, the request size; 0 means Params.DefaultSlice. CustomSlice is
	// se->custom_slice (v7.1): the slice was asked for and survives placement.
	Slice       uint64
	CustomSlice bool
	// VProt is v7.1's protection point se->vprot, read for the running entity only.
	VProt uint64
	// VLag is se->vlag; for a running entity of v6.6 it holds the deadline stashed at its pick
	// (RUN_TO_PARITY keeps it while VLag == Deadline).
	VLag int64
}

// maxStateWeight is the largest Weight an EntityState may have: 2^32, beyond the largest
// weight a group entity can get (scale_load(MAX_SHARES) = 2^28) and small enough that every
// product the package forms with a time value stays inside 64 bits where the kernel's does.
const maxStateWeight = 1 << 32

// PickEligible returns pick_eevdf(cfs_rq, protect) of v6.18 or v7.1 (kernel/sched/fair.c
// v6.18.35 blob 7e0e2044d840, v7.1.5 blob abb76775aa72) on a queue described by explicit
// values: sums s, the entities queued on the timeline in timeline order (by deadline, ties in
// insertion order), the running entity curr (nil if there is none; currQueued says whether it
// is still queued) and the index of the next buddy in queued (-1 for none). It returns the
// index in queued of the entity picked, -1 for curr, or -2 with pickNone for an empty queue,
// and the reason. The rules are those of [Pick] on a queue of the version: a single queued
// entity is taken as it is; with PICK_BUDDY an eligible next buddy comes first (v7.1 only with
// protect, v6.18 whatever protect is); with protect a queued, eligible running entity whose
// vruntime is before its VProt is kept; otherwise the first eligible entity in timeline order
// (the earliest deadline), unless the eligible running entity has a strictly earlier deadline.
// Eligibility is that of [VruntimeEligible] on s, in the version's units and arithmetic
// (v6.18: scale_load_down weights, products in wrapping s64). s must describe the same queue
// (a queue's own [Queue.Sums]); PickEligible does not check that, so that states with
// inconsistent sums can be asked too. The complexity is O(n), the kernel's O(log n) descent
// finding the same entity. PickEligible panics if s and p are not both v6.18's or both v7.1's,
// or next is out of range.
func PickEligible(s Sums, queued []EntityState, curr *EntityState, currQueued bool, next int, protect bool, p *Params) (int, PickReason) {
	if (s.Version != V618 && s.Version != V71) || p.Version != s.Version {
		panic(fmt.Sprintf("cfs: PickEligible with %v sums and %v parameters: it is the pick of v6.18 and v7.1, with sums and parameters of the same version (v6.6's depends on the tree's shape: use Pick on a queue of NewRunQueueAt)", s.Version, p.Version))
	}
	if next < -1 || next >= len(queued) {
		panic(fmt.Sprintf("cfs: PickEligible: next buddy %d of %d queued entities", next, len(queued)))
	}
	if curr != nil && !currQueued {
		curr = nil
	}
	switch n := len(queued); {
	case n == 0 && curr == nil:
		return -2, pickNone
	case n == 0:
		return -1, pickOnly
	case n == 1 && curr == nil:
		return 0, pickOnly
	}
	el := s.eligibility()
	// v6.18 tests the buddy whatever protect is (fair.c blob 7e0e2044d840), v7.1 only when
	// protecting.
	if p.PickBuddy && next >= 0 && (protect || p.Version == V618) && el.ok(queued[next].Vruntime) {
		return next, pickNextBuddy
	}
	if curr != nil && !el.ok(curr.Vruntime) {
		curr = nil
	}
	if curr != nil && protect && before(curr.Vruntime, curr.VProt) {
		return -1, pickCurrProtected
	}
	best := -1
	for i := range queued {
		if el.ok(queued[i].Vruntime) {
			best = i
			break
		}
	}
	if best < 0 || (curr != nil && before(curr.Deadline, queued[best].Deadline)) {
		if curr == nil {
			return -2, pickNone
		}
		return -1, pickCurrDeadline
	}
	return best, pickEarliestDeadline
}

// NewRunQueueAt returns run queue id with parameters p whose root queue holds exactly the
// given state: one task per entry of queued, on the timeline, and curr (if not nil) as the
// running task, queued, off the timeline; the queue's reference point (min_vruntime,
// zero_vruntime in v7.1) is zero. Nothing is placed, charged or normalised: the vruntimes,
// deadlines, weights, slices, protection point and lag are the ones given, and the sums, load
// and counts are those of these entities, as the kernel's enqueue bookkeeping would leave them.
// It returns the queued tasks in order and the running one. Any state the kernel can reach can
// be set up this way and then asked ([Pick], [AvgVruntime] and [VruntimeEligible] of [Queue.Sums],
// [CheckPreemptWakeup] after a [RunQueue.Wakeup], a [RunQueue.Tick]).
//
// NewRunQueueAt returns an error, naming the entity, if p is invalid, a weight is outside 1 ..
// 2^32, or a slice exceeds one second (a zero slice becomes p.DefaultSlice).
func NewRunQueueAt(id int, p Params, zero uint64, queued []EntityState, curr *EntityState) (*RunQueue, []*Entity, *Entity, error) {
	if err := p.Validate(); err != nil {
		return nil, nil, nil, err
	}
	if id < 0 {
		return nil, nil, nil, fmt.Errorf("cfs: NewRunQueueAt: id %d", id)
	}
	check := func(what string, i int, e *EntityState) error {
		switch {
		case e.Weight < 1 || e.Weight > maxStateWeight:
			return fmt.Errorf("cfs: NewRunQueueAt: %s %d (%q): weight %d outside 1..2^32", what, i, e.Name, e.Weight)
		case e.Slice > maxTunable:
			return fmt.Errorf("cfs: NewRunQueueAt: %s %d (%q): slice %d ns is more than one second", what, i, e.Name, e.Slice)
		case e.Class > Idle:
			return fmt.Errorf("cfs: NewRunQueueAt: %s %d (%q): class %d", what, i, e.Name, e.Class)
		}
		return nil
	}
	for i := range queued {
		if err := check("entity", i, &queued[i]); err != nil {
			return nil, nil, nil, err
		}
	}
	if curr != nil {
		if err := check("running entity", 0, curr); err != nil {
			return nil, nil, nil, err
		}
	}
	c := NewRunQueue(id, p)
	q := &c.root
	q.minVruntime = zero
	make1 := func(e *EntityState) *Entity {
		t := NewTask(e.Name, e.Class, 0)
		c.attach(t)
		t.load = stateLoad(e.Class, e.Weight)
		t.Vruntime, t.Deadline, t.VProt, t.VLag = e.Vruntime, e.Deadline, e.VProt, e.VLag
		t.Slice, t.customSlice = e.Slice, e.CustomSlice && p.Version >= V618
		if t.Slice == 0 {
			t.Slice = p.DefaultSlice
		}
		return t
	}
	account := func(t *Entity) {
		t.onRQ = true
		q.setLoad(q.load.add(t.load.Weight))
		q.nrRunning++
		q.hNrRunning++
		q.hNrRunnable++
		if t.IsIdle() {
			q.idleNrRunning++
			q.idleHNrRunning++
		}
	}
	ts := make([]*Entity, len(queued))
	for i := range queued {
		ts[i] = make1(&queued[i])
		q.enqueueTree(ts[i])
		account(ts[i])
	}
	var run *Entity
	if curr != nil {
		run = make1(curr)
		q.curr, c.curr = run, run
		account(run)
	}
	return c, ts, run, nil
}

// stateLoad returns the load of a task of class c and weight w as the kernel would hold it:
// with the table inverse (sched_prio_to_wmult, WMULT_IDLEPRIO) when w is the weight
// set_load_weight gives a task of that class, and with the computed one (__update_inv_weight,
// as for a group entity) otherwise.
func stateLoad(c Class, w uint64) LoadWeight {
	if c == Idle {
		if w == ScaleLoad(weightIdlePrio) {
			return TaskLoad(Idle, 0)
		}
		return LoadWeight{Weight: w}
	}
	for n := minNice; n <= maxNice; n++ {
		if ScaleLoad(Weight(n)) == w {
			return TaskLoad(c, n)
		}
	}
	return LoadWeight{Weight: w}
}
