// This file implements the timeshare calendar arithmetic: where a batch thread is inserted, how
// the insertion offset advances at each stathz tick and how the dequeue offset catches up, in
// main (tdq_ts_off, tdq_ts_deq_off over 109 queues of one run queue) and in legacy and freebsd9
// (tdq_idx, tdq_ridx over a 64-queue run queue).

package ule

import "github.com/schedkit/schedkit/runq"

// AddFlags are the flags of sched_add and tdq_runq_add (sys/sys/sched.h SRQ_*), with the kernel's
// values.
type AddFlags uint8

const (
	SRQBoring    AddFlags = 0x00 // SRQ_BORING: nothing special
	SRQYielding  AddFlags = 0x01 // SRQ_YIELDING: the adding thread is about to switch; no preemption check
	SRQOurself   AddFlags = 0x02 // SRQ_OURSELF: the thread requeues itself in sched_switch; keep its CPU
	SRQIntr      AddFlags = 0x04 // SRQ_INTR: added from an interrupt handler
	SRQPreempted AddFlags = 0x08 // SRQ_PREEMPTED: goes to the head of its queue (and of the dequeue queue if batch)
	SRQBorrowing AddFlags = 0x10 // SRQ_BORROWING: priority lent (propagation); batch threads go to the dequeue queue
)

// Main calendar geometry: the batch priorities 115..223 are the 109 queues RQ_TS_POL_MIN..MAX of
// the single run queue, used circularly (RQ_TS_POL_MODULO).
const (
	TSModulo  = 109 // RQ_TS_POL_MODULO
	tsPolMin  = 115 // RQ_TS_POL_MIN = PRI_MIN_BATCH in main
	tsPolMax  = 223 // RQ_TS_POL_MAX
	rtPolMax  = 114 // RQ_RT_POL_MAX = PRI_MAX_INTERACT in main
	idPolMin  = 224 // RQ_ID_POL_MIN
	legacyNQS = 64  // RQ_NQS before the rework
)

// The policy ranges of main's single run queue (RQ_RT_POL_*, RQ_TS_POL_*, RQ_ID_POL_*).
var (
	RealtimeRange  = runq.Range{Lo: 0, Hi: rtPolMax}        // ITHD, REALTIME, KERN and INTERACT priorities: strict priority order
	TimeshareRange = runq.Range{Lo: tsPolMin, Hi: tsPolMax} // BATCH priorities: the circular calendar
	IdleRange      = runq.Range{Lo: idPolMin, Hi: 255}      // IDLE priorities: strict priority order
	legacyRange    = runq.Range{Lo: 0, Hi: legacyNQS - 1}   // the whole of a legacy 64-queue run queue
)

// CalendarIndex returns the calendar slot, 0..108, at which FreeBSD main's tdq_runq_add queues a
// batch thread of priority pri (115..223) given the insertion offset tsOff and the dequeue offset
// deqOff (both 0..108). The run-queue index is TimeshareRange.Lo plus the slot.
//
//   - With SRQBorrowing or SRQPreempted: deqOff, the queue being drained.
//   - Otherwise: norm(pri - 115 + tsOff), and if deqOff != tsOff and that slot lies in the window
//     still being drained (norm(slot - deqOff) < norm(tsOff - deqOff)), norm(deqOff - 1): the
//     thread goes just behind the window instead.
//
// norm(x) is (x + 109) % 109. CalendarIndex panics if pri is not a batch priority or an offset
// is 109 or more.
func CalendarIndex(pri, tsOff, deqOff uint8, flags AddFlags) uint8 {
	if pri < tsPolMin || pri > tsPolMax || tsOff >= TSModulo || deqOff >= TSModulo {
		panic("ule: CalendarIndex: priority or offset out of range")
	}
	if flags&(SRQBorrowing|SRQPreempted) != 0 {
		return deqOff
	}
	// Each norm here takes a value in -108..216, so it is one conditional step of 109, not a
	// division (TestCalendarIndexMatchesKernel compares with normalize_ts_off on every input).
	idx := int(pri) - tsPolMin + int(tsOff)
	if idx >= TSModulo {
		idx -= TSModulo
	}
	if deqOff != tsOff && modTS(idx-int(deqOff)) < modTS(int(tsOff)-int(deqOff)) {
		idx = modTS(int(deqOff) - 1)
	}
	return uint8(idx)
}

// modTS is normalize_ts_off, (x + 109) % 109, for x in -109..108: x, or x + 109 when x is negative.
func modTS(x int) int {
	if x < 0 {
		x += TSModulo
	}
	return x
}

// AdvanceCalendar is main's sched_clock step for the insertion offset, to be taken only when
// tsOff == deqOff (the drain has caught up): tsTicks (tdq_ts_ticks, u_char) grows by cnt and
// tsOff = (tsOff + 2*cnt - tsTicks/4) % 109, then tsTicks %= 4. On average the offset moves
// 7/4 of a slot per tick, because main has 109 timeshare queues where legacy had 64. Afterwards
// the caller advances the dequeue offset with AdvanceDeqOff.
func AdvanceCalendar(tsOff, tsTicks uint8, cnt int) (newTSOff, newTSTicks uint8) {
	tsTicks += uint8(cnt)
	off := int(tsOff) + 2*cnt - int(tsTicks)/4
	// A stat tick moves a valid offset by one or two slots, so the modulo is one conditional
	// subtraction (TestCalendarStepsMatchKernel); anything else takes the division.
	if uint(off) < 2*TSModulo {
		if off >= TSModulo {
			off -= TSModulo
		}
	} else {
		off %= TSModulo
	}
	return uint8(off), tsTicks % 4
}

// AdvanceDeqOff is tdq_advance_ts_deq_off: it moves the dequeue offset deqOff forward, one slot
// at a time and modulo 109, over empty calendar queues until it reaches tsOff or a non-empty
// queue. st is the status of main's run queue (slot s is queue TimeshareRange.Lo + s).
// knownEmpty says the queue at deqOff is known to be empty (it was just drained), so its status
// is not consulted for the first step.
func AdvanceDeqOff(deqOff, tsOff uint8, knownEmpty bool, st *runq.Status) uint8 {
	for deqOff != tsOff {
		if knownEmpty {
			knownEmpty = false
		} else if st.Has(runq.Index(tsPolMin + int(deqOff))) {
			break
		}
		deqOff = nextTS(deqOff)
	}
	return deqOff
}

// nextTS returns (d + 1) % 109 for every u_char d, without a division.
func nextTS(d uint8) uint8 {
	n := int(d) + 1 // at most 256
	switch {
	case n >= 2*TSModulo:
		n -= 2 * TSModulo
	case n >= TSModulo:
		n -= TSModulo
	}
	return uint8(n)
}

// LegacyCalendarIndex returns the queue, 0..63, of the legacy timeshare run queue at which
// tdq_runq_add queues a batch thread of priority pri (136..223) given the insertion index idx
// and the removal index ridx:
//
//   - with SRQBorrowing or SRQPreempted: ridx;
//   - otherwise q = (64*(pri-136)/88 + idx) % 64, and if ridx != idx and q == ridx,
//     q = (u_char)(q-1) % 64, which keeps a one-queue gap between the two indices while the
//     removal index drains.
//
// LegacyCalendarIndex panics if pri is not a legacy batch priority or an index is 64 or more.
func LegacyCalendarIndex(pri, idx, ridx uint8, flags AddFlags) uint8 {
	if pri < legacyLayout.MinBatch || pri > legacyLayout.MaxBatch || idx >= legacyNQS || ridx >= legacyNQS {
		panic("ule: LegacyCalendarIndex: priority or index out of range")
	}
	if flags&(SRQBorrowing|SRQPreempted) != 0 {
		return ridx
	}
	q := uint8(legacyNQS * (int(pri) - int(legacyLayout.MinBatch)) / legacyLayout.BatchRange())
	q = (q + idx) % legacyNQS
	if ridx != idx && q == ridx {
		q = (q - 1) % legacyNQS
	}
	return q
}

// FreeBSD9CalendarIndex returns the queue, 0..63, of FreeBSD 9.0's timeshare run queue at which
// tdq_runq_add queues a batch thread of priority pri (152..223) given the insertion index idx and
// the removal index ridx (sys/kern/sched_ule.c 1.290, rodrigc/bz-vimage @191fe557):
//
//   - with SRQBorrowing or SRQPreempted: ridx;
//   - otherwise q = ((pri-152)/TS_RQ_PPQ + idx) % 64, where TS_RQ_PPQ = 72/64 = 1 in integer
//     arithmetic, and if ridx != idx and q == ridx, q = (u_char)(q-1) % 64.
//
// Because 72 batch priorities meet 64 queues one to one, priorities 216..223 land 64..71 queues
// ahead of idx, that is 0..7 queues ahead: the worst batch priorities (nice +13 and above with
// a busy thread) wrap around to the head of the calendar, next to the best. The kernels of
// 2012 and later scale instead (LegacyCalendarIndex).
//
// FreeBSD9CalendarIndex panics if pri is not a freebsd9 batch priority or an index is 64 or more.
func FreeBSD9CalendarIndex(pri, idx, ridx uint8, flags AddFlags) uint8 {
	if pri < freebsd9Layout.MinBatch || pri > freebsd9Layout.MaxBatch || idx >= legacyNQS || ridx >= legacyNQS {
		panic("ule: FreeBSD9CalendarIndex: priority or index out of range")
	}
	if flags&(SRQBorrowing|SRQPreempted) != 0 {
		return ridx
	}
	ppq := freebsd9Layout.BatchRange() / legacyNQS // TS_RQ_PPQ
	q := uint8((int(pri-freebsd9Layout.MinBatch)/ppq + int(idx)) % legacyNQS)
	if ridx != idx && q == ridx {
		q = (q - 1) % legacyNQS
	}
	return q
}

// LegacyAdvance is legacy sched_clock's calendar step: when idx == ridx, idx moves to
// (idx+1) % 64, and if the queue at ridx is empty (ridxEmpty), ridx follows it. Otherwise the
// removal index is still draining and nothing moves.
func LegacyAdvance(idx, ridx uint8, ridxEmpty bool) (newIdx, newRidx uint8) {
	if idx == ridx {
		idx = (idx + 1) % legacyNQS
		if ridxEmpty {
			ridx = idx
		}
	}
	return idx, ridx
}

// LegacyRemove returns the removal index after a thread left queue q of the legacy timeshare
// run queue: tdq_runq_rem passes &tdq_ridx to runq_remove_idx only when idx != ridx, and
// runq_remove_idx moves it to (q+1) % 64 when queue q became empty and was the removal queue.
func LegacyRemove(idx, ridx, q uint8, becameEmpty bool) uint8 {
	if idx != ridx && becameEmpty && ridx == q {
		return (q + 1) % legacyNQS
	}
	return ridx
}
