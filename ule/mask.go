// This file implements the all-ones-or-zero masks with which the branch-free loops select.

package ule

// A data-dependent branch whose outcome the processor cannot foresee (a CPU's priority against
// the thread's, a random draw against the best so far) costs a pipeline flush when it is
// mispredicted, as much as a score of simple instructions. The loops that take such a decision
// for every CPU they visit turn it into a mask m, all ones (-1) when the condition holds and
// zero otherwise, and select with x ^ (x^y)&m, which is y when m is all ones and x when it is
// zero: a few more instructions, and no branch to mispredict. A predictable branch (a loop's
// bound, a rare exit, a parameter fixed for the whole loop) costs less than that arithmetic,
// and stays a branch. The compiler turns some branches into conditional moves by itself, but
// not reliably: the masks say it in the code.

// ltMask returns -1 if a < b and 0 otherwise: the difference of two int32 cannot overflow in
// int64, so its sign is the comparison's.
func ltMask(a, b int32) int32 { return int32((int64(a) - int64(b)) >> 63) }

// eqMask returns -1 if a == b and 0 otherwise: uint32(a^b) - 1 is negative in int64 exactly
// when a^b is zero.
func eqMask(a, b int32) int32 { return int32((int64(uint32(a^b)) - 1) >> 63) }

// boolMask returns -1 if b and 0 otherwise.
func boolMask(b bool) int32 {
	m := int32(0)
	if b {
		m = -1
	}
	return m
}
