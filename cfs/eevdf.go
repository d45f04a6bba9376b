// This file implements the arithmetic of EEVDF (v6.6 and v7.1) on a queue (eevdf_state.go has
// avg_vruntime and vruntime_eligible on explicit sums): the lag and its
// clamp (update_entity_lag / entity_lag), the virtual deadline, place_entity with lag
// preservation, and v7.1's slice protection point (set_protect_slice).

package cfs

import "math/bits"

// avgWeight is the weight an entity with load lw contributes to the queue's average vruntime:
// scale_load_down(weight) in v6.6 and v6.18 (1024 for nice 0; sum_w_vruntime_add in v6.18.35's
// fair.c blob 7e0e2044d840), the full weight in v7.1 (1048576 for nice 0; avg_vruntime_weight
// with sum_shift 0, since PARANOID_AVG is off).
func avgWeight(v Version, lw LoadWeight) uint64 {
	if v != V71 {
		return ScaleLoadDown(lw.Weight)
	}
	return lw.Weight
}

// divS64 is the kernel's div_s64(dividend, divisor): a signed 64-bit dividend divided, truncating
// toward zero, by a divisor that is first truncated to 32 bits (the parameter is s32), as v6.6's
// avg_vruntime, place_entity and reweight_entity pass their unsigned long divisors.
func divS64(a int64, b uint64) int64 { return a / int64(int32(b)) }

// entityKey is entity_key: the vruntime v relative to the queue's reference point v0
// (min_vruntime in v6.6, zero_vruntime in v7.1), as a signed 64-bit difference.
func (q *Queue) entityKey(v uint64) int64 { return int64(v - q.minVruntime) }

// currQueued returns q's running entity if it is still queued (curr && curr->on_rq), else nil.
func (q *Queue) currQueued() *Entity {
	if c := q.curr; c != nil && c.onRQ {
		return c
	}
	return nil
}

// sums returns S = Σ key_i·w_i and W = Σ w_i over the queue's timeline and its queued running
// entity, in the units of q's version, with the kernel's wrapping arithmetic: the avg and load
// that avg_vruntime and entity_eligible compute before dividing or comparing.
func (q *Queue) sums() (avg int64, load int64) {
	avg, load = q.sumW, int64(q.sumWeight)
	if c := q.currQueued(); c != nil {
		w := avgWeight(q.cpu.params.Version, c.load)
		avg += q.entityKey(c.Vruntime) * int64(w)
		load += int64(w)
	}
	return avg, load
}

// avgDelta returns the offset of the average vruntime from q's reference point: [floorAvg] of
// the queue's sums, read in place without building [Queue.Sums] for the queue's hot paths (a
// pick tests many vruntimes against one eligibility); [Sums] computes the same through the same
// floorAvg.
func (q *Queue) avgDelta() int64 {
	avg, load := q.sums()
	var currKey int64
	if c := q.currQueued(); c != nil {
		currKey = q.entityKey(c.Vruntime)
	}
	return floorAvg(q.cpu.params.Version, avg, load, q.sumWeight != 0, currKey)
}

// floorAvg is avg_vruntime's division of S by W, the sums with the queued running entity added:
// their floor, which the kernel takes by subtracting W-1 from a negative S before a truncating
// division, so that the result is never to the right of the true average and an entity exactly
// at it is eligible. v6.6 divides with div_s64 (a 32-bit divisor) whenever W is not 0 and
// returns S (0) otherwise; v6.18 and v7.1 divide only when the timeline has weight
// (timelineWeight) and otherwise return currKey, a lone running entity's own key (0 without
// one), v6.18 with div_s64, v7.1 with div64_long.
func floorAvg(v Version, avg, load int64, timelineWeight bool, currKey int64) int64 {
	if v != V66 {
		if !timelineWeight {
			return currKey
		}
		if v != V618 {
			if avg < 0 {
				avg -= load - 1
			}
			return avg / load
		}
	} else if load == 0 {
		return avg
	}
	if avg < 0 {
		avg -= load - 1
	}
	return divS64(avg, uint64(load))
}

// mustEEVDF panics unless q belongs to a CPU running an EEVDF version. It inlines, the panic
// out of line.
func (q *Queue) mustEEVDF(fn string) {
	if !q.cpu.params.Version.EEVDF() {
		q.notEEVDF(fn)
	}
}

//go:noinline
func (q *Queue) notEEVDF(fn string) {
	panic("cfs: " + fn + " on a queue of a classic CFS (" + q.cpu.params.Version.String() + ") CPU")
}

// eligibility is the part of entity_eligible that does not depend on the entity: the sums with
// the queued running entity, so that a pick can test many vruntimes at O(1) each.
type eligibility struct {
	avg, load int64
	v0        uint64
	wide      bool // v7.1: compare against the 128-bit product
}

func (q *Queue) eligibility() eligibility {
	avg, load := q.sums()
	return eligibility{avg: avg, load: load, v0: q.minVruntime, wide: q.cpu.params.Version >= V71}
}

// ok reports whether an entity at vruntime v is eligible: S >= key·W. v6.6 and v6.18 multiply
// in wrapping s64 (v6.18.35's vruntime_eligible); v7.1 compares with the exact 128-bit product
// (__int128 on 64-bit kernels).
func (e eligibility) ok(v uint64) bool {
	key := int64(v - e.v0)
	if !e.wide {
		return e.avg >= key*e.load
	}
	return ge128(e.avg, key, e.load)
}

// ge128 reports whether a >= x*y, with the product computed in 128-bit two's complement.
func ge128(a, x, y int64) bool {
	hi, lo := bits.Mul64(uint64(x), uint64(y))
	if x < 0 {
		hi -= uint64(y)
	}
	if y < 0 {
		hi -= uint64(x)
	}
	ahi := uint64(a >> 63) // sign extension of a
	if ahi != hi {
		return int64(ahi) > int64(hi)
	}
	return uint64(a) >= lo
}

// lagLimit returns the bound the kernel clamps se's virtual lag to when it leaves q: v6.6's
// calc_delta_fair(max(2·se.Slice, TICK_NSEC), se), or v7.1's calc_delta_fair(max_slice +
// TICK_NSEC, se) where max_slice is the longest slice among q's queued entities ([Queue.MaxSlice]).
// Its caller, [EntityLag], checks that q's CPU runs an EEVDF version.
func lagLimit(q *Queue, se *Entity, p *Params) int64 {
	var span uint64
	if p.Version == V66 {
		span = max(2*se.Slice, p.Tick)
	} else {
		span = q.MaxSlice() + p.Tick
	}
	return int64(CalcDeltaFair(p.CalcDelta, span, se.load))
}

// EntityLag returns the virtual lag of se on q when the queue's average vruntime is avg:
// avg - se.Vruntime, clamped to ±limit: update_entity_lag in v6.6, entity_lag in v7.1. The
// limit is v6.6's calc_delta_fair(max(2·se.Slice, TICK_NSEC), se), or v7.1's
// calc_delta_fair(max_slice + TICK_NSEC, se) where max_slice is the longest slice among q's
// queued entities ([Queue.MaxSlice]). A positive lag means se received less service than its
// share. v7.1's delayed-dequeue adjustments (keeping the larger of the old and the new lag,
// DELAY_ZERO's clip to at most 0) are not part of entity_lag; they are applied where the kernel
// applies them, in update_entity_lag when a delayed entity leaves its queue. EntityLag panics
// if q's CPU does not run an EEVDF version.
func EntityLag(q *Queue, se *Entity, avg uint64, p *Params) int64 {
	q.mustEEVDF("EntityLag")
	limit := lagLimit(q, se, p)
	return min(max(int64(avg-se.Vruntime), -limit), limit)
}

// virtualDeadline returns the virtual deadline of a request of slice nanoseconds made at
// vruntime by an entity of load lw: vruntime + [CalcDeltaFair](m, slice, lw), the EEVDF formula
// vd_i = ve_i + r_i/w_i of update_deadline and place_entity, with the version's __calc_delta.
// [PlaceEntity] gives it as Placement.Deadline; a queued entity's is Entity.Deadline.
func virtualDeadline(m DeltaMethod, vruntime, slice uint64, lw LoadWeight) uint64 {
	return vruntime + CalcDeltaFair(m, slice, lw)
}

// A Placement is where place_entity puts an entity joining a queue ([PlaceEntity]). Classic
// CFS (v6.5) sets only V and Vruntime.
type Placement struct {
	// V is the queue's average vruntime before the entity joins (EEVDF), or its min_vruntime
	// (classic CFS).
	V uint64
	// Lag is the virtual lag the entity is placed with, V - Vruntime: its saved VLag inflated
	// by (W + w)/W (PLACE_LAG), or 0.
	Lag int64
	// Load is W, the queue's weight before the entity joins (in the version's averaging
	// units), and Weight the entity's own w; both are 0 when no lag was applied.
	Load, Weight uint64
	// Vruntime and Deadline are the entity's new vruntime and virtual deadline; Slice its
	// request size and VSlice that request in virtual time as used for the deadline (halved
	// for a new task with PLACE_DEADLINE_INITIAL).
	Vruntime, Deadline, Slice, VSlice uint64
	// RelDeadline reports that the entity's relative deadline was restored (v7.1
	// PLACE_REL_DEADLINE) instead of a new one computed.
	RelDeadline bool
	// MoveZero reports that v7.1 re-centres zero_vruntime on the entity, because it
	// outweighs the queue (overflow avoidance; it does not change V).
	MoveZero bool
}

// placeEEVDF is [PlaceEntity] on an EEVDF version. It panics if q's CPU does not run an EEVDF
// version.
func placeEEVDF(q *Queue, se *Entity, initial bool, p *Params) Placement {
	q.mustEEVDF("PlaceEntity")
	v := q.cpu.params.Version
	pl := Placement{V: q.minVruntime + uint64(q.avgDelta()), Slice: se.Slice}
	if v == V66 || !se.customSlice {
		pl.Slice = p.DefaultSlice
	}
	pl.VSlice = CalcDeltaFair(p.CalcDelta, pl.Slice, se.load)
	if p.PlaceLag && q.nrRunning != 0 && (v == V66 || se.VLag != 0) {
		var load uint64
		if v == V66 {
			load = q.sumWeight
		} else {
			load = uint64(int64(q.sumWeight)) // long load
		}
		if c := q.currQueued(); c != nil {
			load += avgWeight(v, c.load)
		}
		w := avgWeight(v, se.load)
		pl.Load, pl.Weight = load, w
		lag := int64(uint64(se.VLag) * (load + w))
		if load == 0 {
			load = 1 // WARN_ON_ONCE(!load)
		}
		if v < V71 { // v6.18's place_entity: div_s64, and zero_vruntime stays where it is
			lag = divS64(lag, load)
		} else {
			lag /= int64(load)
			pl.MoveZero = int64(w) > int64(load)
		}
		pl.Lag = lag
	}
	pl.Vruntime = pl.V - uint64(pl.Lag)
	if v != V66 && se.relDeadline && (p.PlaceRelDeadline || v == V618) {
		pl.Deadline = se.Deadline + pl.Vruntime
		pl.RelDeadline = true
		return pl
	}
	if p.PlaceDeadlineInitial && initial {
		pl.VSlice /= 2
	}
	pl.Deadline = pl.Vruntime + pl.VSlice
	return pl
}

// protectPoint returns the vruntime up to which v7.1 protects se from preemption once it is
// picked on q (set_protect_slice, called by set_next_entity after se left the timeline): se's
// deadline, or, when a shorter slice applies, se's vruntime plus that slice converted with se's
// weight, whichever is earlier. The slice is the shortest queued slice ([Queue.MinSlice]) with
// RUN_TO_PARITY, Params.NormalizedSlice without it, and never more than se.Slice.
func protectPoint(q *Queue, se *Entity, p *Params) uint64 {
	slice := p.NormalizedSlice
	if p.RunToParity {
		slice = q.MinSlice()
	}
	slice = min(slice, se.Slice)
	vprot := se.Deadline
	if slice != se.Slice {
		vprot = MinVruntime(vprot, se.Vruntime+CalcDeltaFair(p.CalcDelta, slice, se.load))
	}
	return vprot
}

// protected reports whether v7.1's slice protection still holds for se, a running entity:
// its vruntime is before its protection point VProt (protect_slice).
func protected(se *Entity) bool { return before(se.Vruntime, se.VProt) }
