// This file implements the wrap-around aware vruntime arithmetic and entity placement:
// entity_before, max_vruntime, min_vruntime, entity_is_long_sleeper and place_entity.

package cfs

// InitialMinVruntime is the min_vruntime of a fresh queue, 2^64 - 2^20 (init_cfs_rq in v6.5),
// chosen so that the u64 virtual clock wraps early and wrap bugs show up quickly.
const InitialMinVruntime uint64 = 1<<64 - 1<<20

// Before reports whether vruntime a is before vruntime b, wrap-around aware: int64(a-b) < 0,
// the kernel's entity_before. It orders correctly any two values less than 2^63 apart.
func Before(a, b uint64) bool { return before(a, b) }

// before is [Before], the order of the timelines' keys too.
func before(a, b uint64) bool { return int64(a-b) < 0 }

// MaxVruntime returns v if it is after m (int64(v-m) > 0) and m otherwise: the kernel's
// max_vruntime.
func MaxVruntime(m, v uint64) uint64 {
	if int64(v-m) > 0 {
		return v
	}
	return m
}

// MinVruntime returns v if it is before m (int64(v-m) < 0) and m otherwise: the kernel's
// min_vruntime.
func MinVruntime(m, v uint64) uint64 {
	if int64(v-m) < 0 {
		return v
	}
	return m
}

// longSleepThreshold is 2^63 / scale_load_down(NICE_0_LOAD): sleeps longer than this (about
// 104 days) may have let min_vruntime run away by more than 2^63.
const longSleepThreshold = (1 << 63) / 1024

// isLongSleeper reports whether an entity that last ran at execStart has slept so long by now
// that its old vruntime can no longer be compared with the queue's: the kernel's
// entity_is_long_sleeper (execStart != 0, now > execStart and now - execStart > 2^63/1024 ns).
func isLongSleeper(execStart, now uint64) bool {
	if execStart == 0 || now <= execStart {
		return false
	}
	return now-execStart > longSleepThreshold
}

// PlaceEntity returns where place_entity puts se when it is enqueued on q at time now (initial
// for a new task), without changing anything. On classic CFS (v6.5) only V (q's min_vruntime)
// and Vruntime are set, as described below; on an EEVDF version every field is, as described
// on [Placement], and now is not read.
//
// v6.5: with initial (a fork) the base is q's min_vruntime plus, with START_DEBIT, one virtual
// slice of se (sched_vslice: [CalcDeltaFair] of [Slice], computed as if se were already
// queued); on a wakeup the base is min_vruntime minus Latency (MinGranularity for an idle
// entity), halved with GENTLE_FAIR_SLEEPERS. The vruntime is the later of se.Vruntime and the base, so that sleeping
// never earns more credit than that, or the base itself for a long sleeper
// (entity_is_long_sleeper: one that slept more than about 104 days).
//
// EEVDF (v6.6, v7.1): the slice becomes Params.DefaultSlice unless se has a custom slice
// (v7.1). With PLACE_LAG and a non-empty queue (v7.1: and a non-zero saved lag) the entity
// keeps its saved virtual lag, inflated so that its own arrival, which pulls the average
// towards it, does not shrink it:
//
//	lag = VLag · (W + w) / W      (s64 arithmetic, truncating division; W = 1 if it is 0)
//
// where W is the queue's averaging weight (timeline plus queued running entity) and w se's own;
// v6.6 divides with div_s64, whose divisor is 32 bits. The vruntime is V - lag. The deadline is
// the vruntime plus the virtual slice, halved for a new task with PLACE_DEADLINE_INITIAL; in
// v7.1 an entity that left without sleeping gets its relative deadline back instead
// (PLACE_REL_DEADLINE). The complexity is O(1).
func PlaceEntity(q *Queue, se *Entity, initial bool, now uint64, p *Params) Placement {
	if p.Version.EEVDF() {
		return placeEEVDF(q, se, initial, p)
	}
	return Placement{V: q.minVruntime, Vruntime: placeClassic(q, se, initial, now, p)}
}

// placeClassic returns the vruntime v6.5's place_entity gives se when it is enqueued on q at time
// now, without changing anything. With initial (a fork) the base is q's min_vruntime plus, with
// START_DEBIT, one virtual slice of se ([vslice], computed as if se were already queued); on a
// wakeup the base is min_vruntime minus Latency (MinGranularity for an idle entity), halved with
// GENTLE_FAIR_SLEEPERS. The result is the later of se.Vruntime and the base, so that sleeping
// never earns more credit than that, or the base itself for a long sleeper
// (entity_is_long_sleeper: one that slept more than about 104 days).
func placeClassic(q *Queue, se *Entity, initial bool, now uint64, p *Params) uint64 {
	v := q.minVruntime
	if initial && p.StartDebit {
		v += vslice(q, se, p)
	}
	if !initial {
		thresh := p.Latency
		if se.IsIdle() {
			thresh = p.MinGranularity
		}
		if p.GentleFairSleepers {
			thresh >>= 1
		}
		v -= thresh
	}
	if isLongSleeper(se.ExecStart, now) {
		return v
	}
	return MaxVruntime(se.Vruntime, v)
}
