// This file implements the kernel's weighted time conversions: __calc_delta in its two 64-bit
// forms and calc_delta_fair.

package cfs

import (
	"fmt"
	"math/bits"

	"github.com/schedkit/schedkit/sched"
)

const (
	wmultConst = 0xFFFFFFFF // WMULT_CONST, ~0U
	wmultShift = 32         // WMULT_SHIFT
)

// A DeltaMethod selects how the 64-bit kernel computes delta*weight/lw.weight in __calc_delta.
type DeltaMethod uint8

const (
	// DeltaWMult multiplies by the 32-bit inverse of lw with the shift adjustments of v6.5 and
	// v6.6 (and of 32-bit kernels since v7.0).
	DeltaWMult DeltaMethod = iota
	// DeltaDiv divides by the full 64-bit weight, the product wrapping modulo 2^64: 64-bit
	// kernels since commit db4551e2ba34 ("sched/fair: Use full weight to __calc_delta()", in
	// v7.1).
	DeltaDiv
)

var deltaMethodNames = [...]string{DeltaWMult: "wmult", DeltaDiv: "div"}

// String returns "wmult" or "div".
func (m DeltaMethod) String() string { return sched.EnumName(deltaMethodNames[:], m, "DeltaMethod") }

// CalcDelta returns delta scaled by weight/lw.Weight with the kernel's integer semantics:
// __calc_delta(delta_exec, weight, lw). Method [DeltaWMult] is the v6.5 form: with fact =
// scale_load_down(weight) and inv = lw.Inverse(), fact and then fact*inv are shifted right until
// they fit 32 bits, each shift lowering the final shift from 32, and the result is
// (delta * fact) >> shift computed in 128 bits and truncated to 64 (mul_u64_u32_shr), usually 0
// or 1 below the exact quotient. The kernel guarantees a non-negative shift when weight is
// NICE_0_LOAD or weight <= lw.Weight; outside that domain the shift can become negative, which
// is undefined in C, and CalcDelta panics instead. [DeltaDiv] is the v7.1 64-bit form,
// (delta * weight) / lw.Weight in uint64, exact for delta < 2^44 ns (about 4.9 hours); it panics
// if lw.Weight is 0. CalcDelta panics if m is not a known method.
func CalcDelta(m DeltaMethod, delta, weight uint64, lw LoadWeight) uint64 {
	switch m {
	case DeltaWMult:
		return calcDeltaWMult(delta, weight, lw)
	case DeltaDiv:
		return calcDeltaDiv(delta, weight, lw)
	}
	panic(fmt.Sprintf("cfs: CalcDelta: unknown method %d", m))
}

// calcDeltaWMult is v6.5's __calc_delta: with fact = scale_load_down(weight) and inv =
// lw.Inverse(), it first shifts fact right until it fits 32 bits, multiplies it by inv as a
// 32x32->64 product, shifts that right until it fits 32 bits again, each time lowering the
// final shift from 32 by the amount shifted, and returns (delta * fact) >> shift computed in 128
// bits and truncated to 64 (mul_u64_u32_shr). The result is usually 0 or 1 below the exact
// quotient. The kernel guarantees a non-negative shift when weight is NICE_0_LOAD or
// weight <= lw.Weight; outside that domain the shift can become negative, which is undefined in
// C, and calcDeltaWMult panics instead.
func calcDeltaWMult(delta, weight uint64, lw LoadWeight) uint64 {
	fact := ScaleLoadDown(weight)
	shift := wmultShift
	inv := lw.Inverse()
	if hi := uint32(fact >> 32); hi != 0 {
		fs := bits.Len32(hi) // fls()
		shift -= fs
		fact >>= fs
	}
	fact = uint64(uint32(fact)) * uint64(inv) // mul_u32_u32
	if hi := uint32(fact >> 32); hi != 0 {
		fs := bits.Len32(hi)
		shift -= fs
		fact >>= fs
	}
	if shift < 0 {
		panic(fmt.Sprintf("cfs: CalcDeltaWMult: negative shift for weight %d over load %d", weight, lw.Weight))
	}
	return mulU64U32Shr(delta, uint32(fact), uint(shift))
}

// mulU64U32Shr is the kernel's mul_u64_u32_shr: (a * mul) >> shift in 128-bit arithmetic,
// truncated to 64 bits.
func mulU64U32Shr(a uint64, mul uint32, shift uint) uint64 {
	hi, lo := bits.Mul64(a, uint64(mul))
	if shift == 0 {
		return lo
	}
	return lo>>shift | hi<<(64-shift)
}

// calcDeltaDiv is v7.1's 64-bit __calc_delta: (delta * weight) / lw.Weight in uint64, the
// product wrapping modulo 2^64 before the division, as in C. With weight = NICE_0_LOAD the
// product is exact for delta < 2^44 ns (about 4.9 hours). calcDeltaDiv panics if lw.Weight is 0.
func calcDeltaDiv(delta, weight uint64, lw LoadWeight) uint64 {
	if lw.Weight == 0 {
		panic("cfs: CalcDeltaDiv: zero load weight")
	}
	return delta * weight / lw.Weight
}

// CalcDeltaFair converts delta nanoseconds of run time of an entity with load lw into virtual
// time: the kernel's calc_delta_fair. It is delta itself for a weight of exactly NICE_0_LOAD and
// otherwise CalcDelta(m, delta, NICE_0_LOAD, lw), about delta*1024/weight: heavy entities age
// slowly, light ones fast.
func CalcDeltaFair(m DeltaMethod, delta uint64, lw LoadWeight) uint64 {
	if lw.Weight == NiceZeroLoad {
		return delta
	}
	return CalcDelta(m, delta, NiceZeroLoad, lw)
}
