package bsd4

import "fmt"

// This file implements the quantum check of sched_clock_tick: when a running thread has had
// its turn.

// A TickReason explains one statistics tick's quantum check ([SliceTick], [SwitchTick]).
type TickReason struct {
	// Mode is the kind of quantum checked.
	Mode QuantumMode
	// Expired reports whether the running thread must give way: TDF_NEEDRESCHED (and, with
	// SliceQuantum, TDF_SLICEEND, which sends it to the tail of its queue).
	Expired bool
	// Left is what remains after this tick: ts_slice (refilled to the full slice on expiry),
	// or sched_quantum − (ticks − switchticks) hz ticks.
	Left int32
	// Limit is sched_slice in statistics ticks, or sched_quantum in hz ticks.
	Limit int32
}

// String explains the check, for example "slice expired (12 stathz ticks); refilled" or "9 of 12
// stathz ticks left".
func (e TickReason) String() string {
	unit := "stathz ticks"
	if e.Mode == SwitchQuantum {
		unit = "hz ticks since the last context switch"
		if e.Expired {
			return fmt.Sprintf("quantum of %d %s used up", e.Limit, unit)
		}
		return fmt.Sprintf("%d of %d %s left", e.Left, e.Limit, unit)
	}
	if e.Expired {
		return fmt.Sprintf("slice of %d %s used up; refilled", e.Limit, unit)
	}
	return fmt.Sprintf("%d of %d %s left", e.Left, e.Limit, unit)
}

// SliceTick is the per-thread slice check of sched_clock_tick (FreeBSD 9.3 and later, as read
// at @e2650af1): the slice is decremented and, when it reaches zero or below, refilled with
// sliceTicks (sched_slice) and reported expired. It returns whether the running thread must
// give way, and the reason, whose Left is the thread's new ts_slice. The idle thread is never
// checked. Note that a slice of 1, which sched_fork gives a new child, expires at the child's
// first statistics tick.
func SliceTick(slice, sliceTicks int32) (bool, TickReason) {
	slice--
	if slice <= 0 {
		return true, TickReason{Mode: SliceQuantum, Expired: true, Left: sliceTicks, Limit: sliceTicks}
	}
	return false, TickReason{Mode: SliceQuantum, Left: slice, Limit: sliceTicks}
}

// SwitchTick is the per-CPU quantum check of FreeBSD 8 and 9.0's sched_clock: the running
// thread must give way once ticks − switchticks ≥ quantum, all in hz ticks, where switchticks
// is the value of ticks at the CPU's last context switch. The subtraction is the kernel's int
// arithmetic, which survives the wrap-around of ticks. It returns whether the thread must give
// way, and the reason.
func SwitchTick(ticks, switchTicks, quantum int32) (bool, TickReason) {
	elapsed := ticks - switchTicks
	return elapsed >= quantum, TickReason{Mode: SwitchQuantum, Expired: elapsed >= quantum, Left: quantum - elapsed, Limit: quantum}
}
