// This file implements the time slice: its length for a given load (tdq_slice, td_slice) and its
// expiry at a stathz tick (the end of sched_clock).

package ule

import "github.com/schedkit/schedkit/sched"

// SliceFor returns the slice, in stathz ticks, of a time-sharing thread on a CPU whose sysload
// (tdq_sysload: running and queued threads that count for load) is sysload: tdq_slice. With
// load = sysload - 1 (the threads waiting besides the running one), it is sliceMin if
// load >= 6 (SCHED_SLICE_MIN_DIVISOR), slice if load <= 1, and slice/load otherwise, so that the
// waiting threads together wait about one slice. At 127 Hz (slice 12, sliceMin 2), sysload 0..2
// gives 12, 3 gives 6, 4 gives 4, 5 gives 3 and 6 or more gives 2.
func SliceFor(sysload, slice, sliceMin int) int {
	load := sysload - 1
	if load >= 6 {
		return sliceMin
	}
	if load <= 1 {
		return slice
	}
	return slice / load
}

// A SliceResult says what a stathz tick did to the running thread's slice.
type SliceResult uint8

const (
	// SliceRunning: the slice goes on.
	SliceRunning SliceResult = iota
	// SliceExempt: FIFO threads and the idle thread are never sliced (sched_clock returns
	// before the slice check).
	SliceExempt
	// SliceExpired: a thread used its whole slice and must switch (TDF_SLICEEND plus an AST;
	// it goes to the tail of its queue).
	SliceExpired
	// SliceExpiredIthd: an interrupt thread used its whole slice: it is preempted
	// (td_owepreempt) and, if base+RQ_PPQ < PRI_MAX_ITHD, demoted by RQ_PPQ.
	SliceExpiredIthd
)

// String returns a short description of r.
func (r SliceResult) String() string {
	return sched.EnumName([]string{SliceRunning: "slice running", SliceExempt: "no slice (FIFO or idle thread)",
		SliceExpired: "slice expired", SliceExpiredIthd: "ithread slice expired"}, r, "SliceResult")
}

// SliceTick charges cnt stathz ticks to a thread of class class that has used used ticks of a
// slice of limit ticks, the end of sched_clock: FIFO threads are exempt; otherwise
// used += cnt, and if used >= limit the slice expires and used restarts at 0.
func SliceTick(class Class, used uint32, cnt int, limit int) (newUsed uint32, r SliceResult) {
	if class.FIFO() {
		return used, SliceExempt
	}
	used += uint32(cnt)
	if used >= uint32(limit) {
		if class.Base() == ClassIthd {
			return 0, SliceExpiredIthd
		}
		return 0, SliceExpired
	}
	return used, SliceRunning
}
