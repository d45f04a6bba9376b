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

// slice is Slice without a copy of the parameters.
func slice(q *Queue, se *Entity, p *Params) uint64 {
	nr := uint64(q.nrRunning)
	if p.AltPeriod && q.cpu != nil {
		nr = uint64(q.cpu.root.hNrRunning)
	}
	if !se.onRQ {
		nr++
	}
	slice := period(nr, p)
	for s, sq := se, q; s != nil; s = s.parent {
		if s != se {
			sq = s.q
		}
		load := sq.load
		if !s.onRQ {
			load = load.Add(s.load.Weight)
		}
		slice = CalcDelta(p.CalcDelta, slice, s.load.Weight, load)
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

// A sliceMemo is the last slice the tick computed for a task queued on a CPU's root queue
// (tickSlice), with everything slice read to compute it: the period's entity count, the
// queue's load (weight and cached inverse), the task's weight, whether the idle floor applied,
// and the tunables. A task that keeps running sees the same values at tick after tick while
// nothing is enqueued or dequeued, so the tick of a busy CPU usually finds its slice here.
type sliceMemo struct {
	nr                                       uint64 // 0: nothing remembered (a queued task makes nr at least 1)
	load                                     LoadWeight
	weight                                   uint64
	idle                                     bool
	latency, minGran, idleMinGran, nrLatency uint64 // the tunables (AltPeriod only through nr)
	method                                   DeltaMethod
	baseSlice                                bool
	slice                                    uint64
}

// tickSlice is slice(q, se, p) for the tick's check (tickResched): for a task queued on its
// CPU's root queue it returns the slice remembered in the CPU's sliceMemo when every value the
// computation reads is the one it was computed from (the tunables included, which a caller may
// change through [RunQueue.Params]), and otherwise computes it and remembers it. For such a
// task, slice reads: the count nr (the queue's nr_running, or the CPU's h_nr_running with
// ALT_PERIOD), the period of nr (NrLatency, MinGranularity, Latency), one __calc_delta of the
// period by the task's weight over the queue's load (the method, the load's weight and cached
// inverse), and with BASE_SLICE the floor (MinGranularity, or IdleMinGranularity for an idle
// task in a queue that is not all idle). Any other entity (a task in a group, a group entity, an
// entity not queued) takes slice itself.
func (q *Queue) tickSlice(se *Entity, p *Params) uint64 {
	if q.se != nil || !se.onRQ || se.myQ != nil {
		return slice(q, se, p)
	}
	nr := uint64(q.nrRunning)
	if p.AltPeriod {
		nr = uint64(q.cpu.root.hNrRunning)
	}
	idle := p.BaseSlice && se.class == Idle && !q.allIdle()
	m := &q.cpu.memo
	if m.nr == nr && m.load == q.load && m.weight == se.load.Weight && m.idle == idle &&
		m.latency == p.Latency && m.minGran == p.MinGranularity && m.idleMinGran == p.IdleMinGranularity &&
		m.nrLatency == p.NrLatency && m.method == p.CalcDelta && m.baseSlice == p.BaseSlice {
		return m.slice
	}
	s := slice(q, se, p)
	*m = sliceMemo{nr: nr, load: q.load, weight: se.load.Weight, idle: idle, latency: p.Latency,
		minGran: p.MinGranularity, idleMinGran: p.IdleMinGranularity, nrLatency: p.NrLatency,
		method: p.CalcDelta, baseSlice: p.BaseSlice, slice: s}
	return s
}

// VSlice returns [Slice] converted to virtual time with se's weight: the kernel's
// sched_vslice.
func VSlice(q *Queue, se *Entity, p *Params) uint64 {
	return CalcDeltaFair(p.CalcDelta, Slice(q, se, p), se.load)
}

// WakeupGran returns the wakeup granularity converted to se's virtual time: the kernel's
// wakeup_gran, calc_delta_fair(sysctl_sched_wakeup_granularity, se). A light se gets a larger
// virtual granularity, so it needs a larger lead to preempt, and is preempted more easily.
func WakeupGran(se *Entity, p *Params) uint64 {
	return CalcDeltaFair(p.CalcDelta, p.WakeupGranularity, se.load)
}
