package ule

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// This file keeps the branching forms of the functions that mask.go's masks made branch-free,
// as they were before, and checks on random inputs, boundaries included, that the two forms
// agree in everything they return and leave behind.

// extremeInt32 returns a random int32 that is often a boundary: 0, ±1, the extremes, or
// small.
func extremeInt32(r *rand.Rand) int32 {
	switch r.IntN(8) {
	case 0:
		return []int32{0, 1, -1, 2, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1, math.MinInt32 + 1}[r.IntN(8)]
	case 1:
		return int32(r.Uint32())
	}
	return int32(r.IntN(6))
}

func TestMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 1))
	for range 100000 {
		a, b := extremeInt32(r), extremeInt32(r)
		if r.IntN(4) == 0 {
			b = a
		}
		if got, want := ltMask(a, b), boolMask(a < b); got != want {
			t.Fatalf("ltMask(%d, %d) = %d, want %d", a, b, got, want)
		}
		if got, want := eqMask(a, b), boolMask(a == b); got != want {
			t.Fatalf("eqMask(%d, %d) = %d, want %d", a, b, got, want)
		}
	}
	if boolMask(true) != -1 || boolMask(false) != 0 {
		t.Fatal("boolMask")
	}
}

// lowestIDRunBranchy is lowestIDRun as it was before its loop was made branch-free: the walk
// split at p, and branches on each CPU's priority and on each comparison.
func lowestIDRunBranchy(loads *[topology.MaxCPUs]CPULoad, lo, hi, pri, p int32, running bool, x uint32) (cpu int32, xo uint32) {
	best := int32(math.MaxInt32)
	cpu = -1
	mid := lo // the walk before p ends at mid
	if lo <= p && p < hi {
		mid = p + 1
	}
	for i := hi - 1; i >= mid; i-- {
		ld := &loads[i&(topology.MaxCPUs-1)]
		if int32(ld.LowPri) <= pri {
			continue
		}
		x = x*69069 + 5
		if load := ld.Load<<8 - int32((x>>16)&127); best > load {
			best, cpu = load, i
		}
	}
	if mid == lo {
		return cpu, x
	}
	ld := &loads[p&(topology.MaxCPUs-1)]
	l, bonus := ld.Load, int32(128)
	if running {
		l--
		if l > 0 {
			bonus = 0
		}
	}
	if running || int32(ld.LowPri) > pri {
		x = x*69069 + 5
		if load := l<<8 - int32((x>>16)&127) - bonus; best > load {
			best, cpu = load, p
		}
	}
	for i := p - 1; i >= lo; i-- {
		ld := &loads[i&(topology.MaxCPUs-1)]
		if int32(ld.LowPri) <= pri {
			continue
		}
		x = x*69069 + 5
		if load := ld.Load<<8 - int32((x>>16)&127); best > load {
			best, cpu = load, i
		}
	}
	return cpu, x
}

// lowestIDRun returns what lowestIDRunBranchy returns, the CPU and the generator's state: on
// leaves anywhere in the id space (the first CPU, the last, one CPU, a thousand), p inside, at
// either end, next to the leaf and far outside it, running or not, priorities from the extremes
// through every value a LowPri can take, and loads that are small (the preferred CPU's 0, 1 and
// 2 decide its bonus), random or extreme (the int32 arithmetic wraps in both forms alike).
func TestLowestIDRunMatchesBranchy(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	var loads [topology.MaxCPUs]CPULoad
	for i := range 200000 {
		n := int32(1 + r.IntN(20))
		if i%50 == 0 {
			n = int32(1 + r.IntN(topology.MaxCPUs))
		}
		lo := int32(r.IntN(topology.MaxCPUs - int(n) + 1))
		if i%7 == 0 {
			lo = []int32{0, topology.MaxCPUs - n}[r.IntN(2)]
		}
		hi := lo + n
		for c := lo; c < hi; c++ {
			ld := CPULoad{Load: int32(r.IntN(4)), LowPri: uint8(r.IntN(256))}
			switch r.IntN(10) {
			case 0:
				ld.Load = extremeInt32(r)
			case 1:
				ld.LowPri = []uint8{0, 255, PriMaxIdle, 223}[r.IntN(4)]
			}
			loads[c] = ld
		}
		p := lo + int32(r.IntN(int(n)))
		switch r.IntN(6) {
		case 0:
			p = []int32{lo, hi - 1, lo - 1, hi, -1, math.MaxInt32, math.MinInt32}[r.IntN(7)]
		case 1:
			p = int32(r.IntN(topology.MaxCPUs))
		}
		pri := int32(r.IntN(258)) - 1
		if r.IntN(10) == 0 {
			pri = extremeInt32(r)
		}
		running := r.IntN(2) == 0
		x := r.Uint32()
		gc, gx := lowestIDRun(&loads, lo, hi, pri, p, running, x)
		wc, wx := lowestIDRunBranchy(&loads, lo, hi, pri, p, running, x)
		if gc != wc || gx != wx {
			t.Fatalf("leaf %d..%d pri %d p %d running %t x %#x: lowestIDRun = %d, %#x, branchy %d, %#x",
				lo, hi-1, pri, p, running, x, gc, gx, wc, wx)
		}
	}
}

// drawStepBranchy and drawJumpsBranchy are drawJumps's two forms before the draws were
// compared by masks: stepping the generator over every bit of acc, and jumping to each bit of
// cand's draw, both stopping at a draw of rmask.
func drawStepBranchy(acc, cand uint64, x uint32, flip, rmask int32) int32 {
	best, at := int32(-1), int32(-1)
	a := acc
	for {
		// Step to the next candidate that beats best (the inner loop changes only a and x).
		var b int32
		for {
			if a == 0 {
				return at
			}
			b = int32(63 - bits.LeadingZeros64(a))
			a ^= 1 << b
			x = x*69069 + 5
			if cand>>b&1 != 0 && (int32(x>>16)^flip)&rmask > best {
				break
			}
		}
		best, at = (int32(x>>16)^flip)&rmask, b
		if best == rmask {
			return at
		}
	}
}
func drawJumpsBranchy(acc, cand uint64, x0 uint32, flip, rmask int32) int32 {
	best, at := int32(-1), int32(-1)
	c := cand
	for {
		var b, r int32
		for {
			if c == 0 {
				return at
			}
			b = int32(63 - bits.LeadingZeros64(c))
			c ^= 1 << b
			j := &drawJump[bits.OnesCount64(acc>>b)&(2*topology.MaxCPUs-1)]
			if r = (int32((x0*j.mul+j.add)>>16) ^ flip) & rmask; r > best {
				break
			}
		}
		best, at = r, b
		if best == rmask {
			return at
		}
	}
}

// drawJumps returns what both branching forms return, on random words (dense, sparse, one bit,
// empty, full, the top and bottom bits), cand all of acc, part of it or nothing, with the
// lowest and the highest search's draws.
func TestDrawJumpsMatchesBranchy(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 3))
	for i := range 200000 {
		var acc uint64
		switch i % 6 {
		case 0:
			acc = r.Uint64()
		case 1:
			acc = r.Uint64() & r.Uint64() & r.Uint64()
		case 2:
			acc = ^uint64(0)
		case 3:
			acc = 1 << r.IntN(64)
		case 4:
			acc = []uint64{0, 1, 1 << 63, 1<<63 | 1}[r.IntN(4)]
		case 5:
			acc = r.Uint64() >> r.IntN(64)
		}
		cand := acc & (r.Uint64() | r.Uint64())
		switch r.IntN(5) {
		case 0:
			cand = acc
		case 1:
			cand = acc & r.Uint64() & r.Uint64()
		}
		x0 := r.Uint32()
		for _, d := range []struct{ flip, rmask int32 }{{0, 127}, {-1, 255}} {
			got := drawJumps(acc, cand, x0, d.flip, d.rmask)
			step := drawStepBranchy(acc, cand, x0, d.flip, d.rmask)
			jumps := drawJumpsBranchy(acc, cand, x0, d.flip, d.rmask)
			if got != step || got != jumps {
				t.Fatalf("acc %#x cand %#x x0 %#x flip %d rmask %d: drawJumps = %d, branchy drawStep %d, drawJumps %d",
					acc, cand, x0, d.flip, d.rmask, got, step, jumps)
			}
		}
	}
}

// setLowPriBranchy is loadIndex.setLowPri before its planes were written by masks: a loop over
// the bits where old and pri differ.
func (ix *loadIndex) setLowPriBranchy(c topology.CPU, old, pri uint8) {
	w, bit := wordBit(c)
	for d := old ^ pri; d != 0; d &= d - 1 {
		ix.pri[bits.TrailingZeros8(d)&7][w] ^= bit
	}
}

// setLowPri leaves the priority planes as setLowPriBranchy does, after random changes of
// random CPUs' LowPri (every CPU id, in every mask word, the extreme priorities often), each
// from the value the CPU had; and the planes then hold every CPU's LowPri.
func TestSetLowPriMatchesBranchy(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var got, want loadIndex
	var lp [topology.MaxCPUs]uint8
	for range 200000 {
		c := topology.CPU(r.IntN(topology.MaxCPUs))
		if r.IntN(4) == 0 {
			c = []topology.CPU{0, 63, 64, topology.MaxCPUs - 1}[r.IntN(4)]
		}
		pri := uint8(r.IntN(256))
		if r.IntN(4) == 0 {
			pri = []uint8{0, 255, PriMaxIdle, lp[c]}[r.IntN(4)]
		}
		got.setLowPri(c, lp[c], pri)
		want.setLowPriBranchy(c, lp[c], pri)
		lp[c] = pri
		if got.pri != want.pri {
			t.Fatalf("cpu %d LowPri -> %d: planes differ", c, pri)
		}
	}
	for c := range topology.MaxCPUs {
		v := uint8(0)
		for k := range 8 {
			v |= uint8(got.pri[k][c>>6]>>(c&63)&1) << k
		}
		if v != lp[c] {
			t.Fatalf("cpu %d: planes hold LowPri %d, want %d", c, v, lp[c])
		}
	}
}

// worseBranchy is loadIndex.worse before it compared all eight planes: a jump, by the number of
// pri's trailing one bits, to the first plane that can change the answer.
func (ix *loadIndex) worseBranchy(w int, pri int32) uint64 {
	if uint32(pri) > 255 {
		if pri < 0 {
			return ^uint64(0)
		}
		return 0
	}
	w &= topology.MaxCPUs/64 - 1
	pl, u := &ix.pri, uint32(pri)
	// Below pri's lowest 0 bit gt stays empty (gt &= plane from nothing), so the comparison
	// starts there: PRI_MAX_TIMESHARE (223, 0b11011111), which every sched_pickcpu search of a
	// cache group for an idle CPU compares with, takes three planes.
	var gt uint64
	switch bits.TrailingZeros32(^u) {
	case 0:
		gt = planeGT(gt, pl[0][w], u)
		fallthrough
	case 1:
		gt = planeGT(gt, pl[1][w], u>>1)
		fallthrough
	case 2:
		gt = planeGT(gt, pl[2][w], u>>2)
		fallthrough
	case 3:
		gt = planeGT(gt, pl[3][w], u>>3)
		fallthrough
	case 4:
		gt = planeGT(gt, pl[4][w], u>>4)
		fallthrough
	case 5:
		gt = planeGT(gt, pl[5][w], u>>5)
		fallthrough
	case 6:
		gt = planeGT(gt, pl[6][w], u>>6)
		fallthrough
	case 7:
		gt = planeGT(gt, pl[7][w], u>>7)
	}
	return gt
}

// worse returns what worseBranchy returns, and what comparing each CPU's LowPri with pri
// returns: on random planes (so random LowPri), every priority from -2 to 257 and the extremes,
// and every mask word.
func TestWorseMatchesBranchy(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 7))
	var ix loadIndex
	for range 500 {
		for k := range ix.pri {
			for w := range ix.pri[k] {
				ix.pri[k][w] = r.Uint64()
			}
		}
		w := r.IntN(topology.MaxCPUs / 64)
		pris := []int32{math.MinInt32, math.MaxInt32, -1000, 1000}
		for pri := int32(-2); pri <= 257; pri++ {
			pris = append(pris, pri)
		}
		for _, pri := range pris {
			got, want := ix.worse(w, pri), ix.worseBranchy(w, pri)
			var direct uint64
			for b := range 64 {
				lp := int32(0)
				for k := range ix.pri {
					lp |= int32(ix.pri[k][w]>>b&1) << k
				}
				if lp > pri {
					direct |= 1 << b
				}
			}
			if got != want || got != direct {
				t.Fatalf("word %d pri %d: worse = %#x, branchy %#x, direct %#x", w, pri, got, want, direct)
			}
		}
	}
}
