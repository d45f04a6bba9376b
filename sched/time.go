package sched

// This file implements the conversion of a machine's nanoseconds into a kernel's clock ticks.

// NanosPerSecond is the number of nanoseconds in a second: a machine's times are int64
// nanoseconds, a kernel's clocks count hz ticks per second.
const NanosPerSecond = 1_000_000_000

// Ticks returns the number of whole periods of an hz clock that fit in now nanoseconds,
// ⌊now·hz / 10⁹⌋ for now ≥ 0: the kernel's ticks (FreeBSD) or jiffies (Linux) since boot,
// without the offset either kernel starts its counter at. It splits now into whole seconds
// and the rest, so that the products never overflow: it is exact for every now ≥ 0 and
// 0 < hz ≤ MaxHz, where now·hz itself would overflow int64 after about 106 days at hz 1000.
// Callers that wrap the count as the kernel does (an int or u_int ticks) convert the result.
// The complexity is O(1): two divisions by a constant, which compile to multiplications.
func Ticks(now int64, hz int) int64 {
	h := int64(hz)
	return (now/NanosPerSecond)*h + (now%NanosPerSecond)*h/NanosPerSecond
}
