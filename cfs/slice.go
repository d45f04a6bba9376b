// This file implements the period and slice arithmetic of classic CFS: __sched_period,
// sched_slice, sched_vslice and wakeup_gran.

package cfs

// Period returns the scheduling period for nr runnable entities: the kernel's __sched_period.
// It is Latency while nr <= NrLatency and nr * MinGranularity beyond, so that slices never
// shrink below the minimum granularity.
func Period(nr uint64, p *Params) uint64 { return period(nr, p) }

// period is Period without a copy of the parameters.
func period(nr uint64, p *Params) uint64 {
	if nr > p.NrLatency {
		return nr * p.MinGranularity
	}
	return p.Latency
}

// Slice returns the wall-clock slice se is entitled to on queue q: the kernel's sched_slice.
// The period is taken for the entities of q (every fair task of the CPU with ALT_PERIOD), plus
// se if it is not queued; it is then scaled by se's share of its queue's load at every level of
// the hierarchy, innermost first (se's weight added to a queue's load where se is not queued),
// with v6.5's wmult __calc_delta. With BASE_SLICE the result is floored at MinGranularity, or
// at IdleMinGranularity for an idle entity in a queue that is not all idle.
func Slice(q *Queue, se *Entity, p *Params) uint64 { return slice(q, se, p) }

// slice is Slice without a copy of the parameters: sched_slice. Its walk up the hierarchy has
// one fast form behind it, chosen by one rule: for a task queued on its CPU's root queue (one
// level), the walk's result is looked up in the CPU's memo (package cfs/internal/slicememo)
// under everything the walk reads, and computed and remembered only when any of that changed.
// The tick of a busy CPU, which asks at every tick while its task runs among the same
// competitors, usually finds it there.
func slice(q *Queue, se *Entity, p *Params) uint64 {
	nr := uint64(q.nrRunning)
	if p.AltPeriod && q.cpu != nil {
		nr = uint64(q.cpu.root.hNrRunning)
	}
	queued := se.onRQ
	if !queued {
		nr++
	}
	var slice uint64
	if queued && q.se == nil && se.myQ == nil && q.cpu != nil {
		m := &q.cpu.memo
		inv := uint64(q.load.invWeight) | uint64(p.CalcDelta)<<32
		var ok bool
		if slice, ok = m.Get(nr, q.load.Weight, inv, se.load.Weight, p.Latency, p.MinGranularity, p.NrLatency); !ok {
			slice = scaledPeriod(q, se, nr, p)
			m.Put(nr, q.load.Weight, inv, se.load.Weight, p.Latency, p.MinGranularity, p.NrLatency, slice)
		}
	} else {
		slice = scaledPeriod(q, se, nr, p)
	}
	if p.BaseSlice {
		minGran := p.MinGranularity
		if se.IsIdle() && !q.allIdle() {
			minGran = p.IdleMinGranularity
		}
		slice = max(slice, minGran)
	}
	return slice
}

// scaledPeriod is sched_slice's walk up the hierarchy (for_each_sched_entity): the period for nr
// entities, scaled by se's share of its queue's load at every level (se's weight added to a
// queue's load where se is not queued), with the version's __calc_delta.
func scaledPeriod(q *Queue, se *Entity, nr uint64, p *Params) uint64 {
	slice := period(nr, p)
	for s, sq := se, q; s != nil; s = s.parent {
		if s != se {
			sq = s.q
		}
		load := sq.load
		if !s.onRQ {
			load = load.add(s.load.Weight)
		}
		slice = CalcDelta(p.CalcDelta, slice, s.load.Weight, load)
	}
	return slice
}

// vslice returns [Slice] converted to virtual time with se's weight, [CalcDeltaFair] of it: the
// kernel's sched_vslice, START_DEBIT's offset in [PlaceEntity] (v6.5).
func vslice(q *Queue, se *Entity, p *Params) uint64 {
	return CalcDeltaFair(p.CalcDelta, Slice(q, se, p), se.load)
}

// wakeupGran returns the wakeup granularity converted to se's virtual time: the kernel's
// wakeup_gran, calc_delta_fair(sysctl_sched_wakeup_granularity, se). A light se gets a larger
// virtual granularity, so it needs a larger lead to preempt, and is preempted more easily.
func wakeupGran(se *Entity, p *Params) uint64 {
	return CalcDeltaFair(p.CalcDelta, p.WakeupGranularity, se.load)
}
