// This file implements the jump-ahead of sched_random: the generator moved over k draws at once,
// and the choice among candidates by their own draws.

package loadindex

import (
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

// drawJump[k] moves sched_random's state over k draws at once: k steps of x = x*69069 + 5
// are x = x*mul + add (mod 2^32), for k up to twice the CPUs a machine can hold.
var drawJump = func() (t [2 * topology.MaxCPUs]struct{ mul, add uint32 }) {
	t[0].mul = 1
	for k := 1; k < len(t); k++ {
		t[k].mul, t[k].add = t[k-1].mul*69069, t[k-1].add*69069+5
	}
	return t
}()

// jump returns the generator state x moved over k draws (k below 2*MaxCPUs).
func jump(x uint32, k int) uint32 {
	j := &drawJump[k&(2*topology.MaxCPUs-1)]
	return x*j.mul + j.add
}

// drawJumps returns the bit of cand (a subset of acc) whose draw is the greatest, the first from
// the highest bit down on ties, the j-th bit of acc from the top drawing the j-th number after
// x0, r = ((x>>16) ^ flip) & rmask, or -1 if cand is empty. cpu_search_lowest's draws are flip
// 0, rmask 127 (the greatest r wins); cpu_search_highest's are flip -1, rmask 255 (255 - r: the
// least r wins). It jumps to each bit's draw (its index is the number of bits of acc at or
// above it), so its cost is in the candidates alone.
//
// Whether a draw beats the best so far is taken without a branch (a maximum of keys, below): as a
// branch it was mispredicted about one time in five, since it depends on the draws. The kernel's loop ends early at a draw of rmask, which none can beat;
// here the loop goes on, and takes nothing more. (A form that stepped the generator over every
// bit of acc and compared at the candidates, for a cand that is most of acc, no longer pays once
// neither form branches on the draws: stepping costs a step per bit of acc, jumping a popcount
// and a table look-up per candidate.) When there are three candidates or more and they are
// every bit of acc between the highest and the lowest of them, as on an idle cache group,
// drawRun steps over them instead (for one or two, its set-up costs more than the jumps).
//
//go:noinline
func drawJumps(acc, cand uint64, x0 uint32, flip, rmask int32) int32 {
	if c := cand & (cand - 1); c&(c-1) != 0 { // three candidates or more
		hi, lo := 63-bits.LeadingZeros64(cand), bits.TrailingZeros64(cand)
		span := acc >> lo << lo << (63 - hi) // the bits of acc from hi down to lo, at the top
		if span == cand<<(63-hi) {
			return drawRun(acc, cand, x0, hi, lo, uint32(flip), uint32(rmask))
		}
		if bits.OnesCount64(span) <= 2*bits.OnesCount64(cand) {
			return drawSteps(span>>(63-hi), cand, jump(x0, bits.OnesCount64(acc>>lo)), uint32(flip)<<16, uint32(rmask)<<16)
		}
	}
	if cand == 0 {
		return -1
	}
	// Each candidate's key is its draw r, left in bits 16 and up of the generator's state, over its
	// bit b in the low bits: (x ^ flip<<16) & rmask<<16 | b. The greatest key has the greatest
	// draw and, among equal draws, the highest bit, the first visited. So the candidates can be
	// taken from the lowest bit up (clearing the lowest is cheaper than the highest), and the best
	// kept by a maximum, which the compiler makes a conditional move.
	fx, kmask, best := uint32(flip)<<16, uint32(rmask)<<16, uint32(0)
	for c := cand; c != 0; c &= c - 1 {
		b := bits.TrailingZeros64(c)
		best = max(best, (jump(x0, bits.OnesCount64(acc>>b))^fx)&kmask|uint32(b))
	}
	return int32(best & 63)
}

// drawSpan is drawJumps' choice for cpu_search_lowest (flip 0, rmask 127) when acc is one run
// of bits from hi down (a node of SMT pairs, its CPUs consecutive ids, all acceptable): the bit b
// of cand draws the (hi-b+1)-th number after x0, so a candidate's draw needs no count of acc's
// bits. It returns the winning bit and its draw r (-1 and 0 if cand is empty).
//
// cand is shifted up so that hi lands on bit 63: a candidate at bit s of the shifted mask then
// draws the (64-s)-th number, read from spanJump[s] without a subtraction, and its key (draw over
// s) orders as the key over b would, s being b plus a constant. The candidates are taken two a
// turn, one loop test and one maximum of three for two draws.
func drawSpan(hi int, cand uint64, x0 uint32) (b, r int32) {
	if cand == 0 {
		return -1, 0
	}
	best := uint32(0)
	c := cand << (63 - hi&63)
	for ; c&(c-1) != 0; c &= c - 1 { // two candidates a turn
		s := bits.TrailingZeros64(c)
		c &= c - 1
		t := bits.TrailingZeros64(c)
		js, jt := &spanJump[s], &spanJump[t]
		best = max(best, (x0*js.mul+js.add)&(127<<16)|uint32(s), (x0*jt.mul+jt.add)&(127<<16)|uint32(t))
	}
	if c != 0 {
		s := bits.TrailingZeros64(c)
		j := &spanJump[s]
		best = max(best, (x0*j.mul+j.add)&(127<<16)|uint32(s))
	}
	return int32(best&63) - int32(63-hi&63), int32(best >> 16)
}

// spanJump[s] is drawJump[64-s] (s below 64; spanJump[64] is never read, and is there so that
// an index of at most 64, a trailing-zero count, needs no bound test): drawSpan's draws by a
// candidate's place from the top of a 64-bit word.
var spanJump = func() (t [65]struct{ mul, add uint32 }) {
	for s := range 64 {
		t[s] = drawJump[64-s]
	}
	return t
}()

// drawBack is the inverse of 69069 modulo 2^32: x = (x - 5) * drawBack undoes a step of
// sched_random.
const drawBack = 0xa5e2a705

// drawSteps is drawJumps for three candidates or more when the other bits of acc between the
// lowest candidate and the highest are at most as many as they (span: those bits of acc, cand
// among them; x: the draw of span's lowest bit). It visits every bit of span from the lowest
// up, stepping the generator back once for each (the next bit up drew the number before), and
// keeps the greatest key (x ^ fx) & kmask | b at the candidates, as drawJumps does: a step back
// costs less than a jump with its popcount.
func drawSteps(span, cand uint64, x, fx, kmask uint32) int32 {
	best := uint32(0)
	for a := span; a != 0; a &= a - 1 {
		b := bits.TrailingZeros64(a)
		if cand>>b&1 != 0 {
			best = max(best, (x^fx)&kmask|uint32(b))
		}
		x = (x - 5) * drawBack
	}
	return int32(best & 63)
}

// drawRun is drawJumps when the bits of acc from hi down to lo (cand's highest and lowest) are
// all in cand: the n candidates draw the n numbers after those of the bits of acc above hi, one
// after the other. It steps the generator over them (a multiply and an add each, in place of a
// popcount and a table look-up) and keeps the greatest key, the draw ((x ^ flip) & rmask, in
// bits 16 and up) over the count of candidates left (the first on ties has the most), by a
// maximum instead of a branch; the winner is then the j-th bit of cand from the top.
func drawRun(acc, cand uint64, x0 uint32, hi, lo int, flip, rmask uint32) int32 {
	x := jump(x0, bits.OnesCount64(acc>>hi>>1))
	n := uint32(bits.OnesCount64(cand))
	kmask, best, c := rmask<<16, uint32(0), n
	if c&1 != 0 {
		x = x*69069 + 5
		best, c = (x^flip)&kmask|c, c-1
	}
	for ; c > 0; c -= 2 { // two draws a turn
		x1 := x*69069 + 5
		x = x1*69069 + 5
		best = max(best, (x1^flip)&kmask|c, (x^flip)&kmask|(c-1))
	}
	j := int(n - best&0xffff)
	if r := cand >> lo; r&(r+1) == 0 { // the candidates are consecutive bits
		return int32(hi - j)
	}
	for ; j > 0; j-- {
		cand &^= 1 << (63 - bits.LeadingZeros64(cand))
	}
	return int32(63 - bits.LeadingZeros64(cand))
}
