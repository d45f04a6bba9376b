// This file implements the fast forms of cpu_search_lowest: a node whose children are all leaves
// walked as one array (LowestFused), and a leaf of consecutive ids searched in the index
// (LowestRun).

package loadindex

import (
	"math"

	"github.com/schedkit/schedkit/topology"
)

// lowestArgs are struct cpu_search for cpu_search_lowest, with sched_random's state.
type lowestArgs struct {
	loads   *[topology.MaxCPUs]CPULoad
	mask    *topology.CPUSet
	pri     int32   // cs_pri: accept only CPUs whose lowpri is worse (greater)
	maxLoad int32   // cs_load
	prefer  int32   // cs_prefer
	running bool    // cs_running
	x       *uint32 // sched_random's state
	// all says the mask holds every CPU of the node searched.
	all bool
	// bound is the least load of the groups the caller searched before this one (see
	// LowestFused).
	bound int32
}

// Fused reports whether LowestFused and HighestFused search group n: the index keeps the fused
// walks and n's children are all leaves. Such a node is one array of CPUs in the kernel's
// visiting order (see flatCPU).
func (ix *Index) Fused(n int) bool { return ix.levels && ix.tree.nodes[n].leafKids }

// LowestFused is cpu_search_lowest on group n, whose children are all leaves (Fused): it returns
// the group's total load (256 per thread, less 128 at the preferred CPU), the chosen CPU (-1 if
// none) with its randomised load, and leaves the generator state *x where the kernel's loop
// leaves it. full says mask holds every CPU of the machine.
//
// The leaf loop and the child loop are one walk over the node's array, split at the leaf that
// holds the preferred CPU, if the node has it: that leaf takes lowestMixed, which knows the
// preferred CPU's rules; the others take lowestPairs (leaves of two CPUs) or lowestRuns, which
// count the acceptable CPUs of a leaf and jump the generator over their draws unless the leaf
// can be chosen. A group of SMT pairs numbered side by side, with every CPU in the mask and no
// load limit, is searched in the index instead (lowestPairsIx).
//
// bound is the least load among the groups the caller's loop searched before group n
// (math.MaxInt32 for none). cpu_search_lowest's caller chooses group n only if its total is at
// most that, so when the total exceeds bound the CPU may be left unsought (cpu -1): the index's
// search of a group of SMT pairs then stops once it has the total and has moved the generator
// over the group's draws. The total and the generator are always exact.
func (ix *Index) LowestFused(n int, mask *topology.CPUSet, full bool, pri, maxLoad, prefer int32, running bool, bound int32, x *uint32) (total, cpu, cpuLoad int32) {
	t := &ix.tree
	nd := &t.nodes[n]
	s := lowestArgs{loads: ix.loads, mask: mask, pri: pri, maxLoad: maxLoad, prefer: prefer, running: running, x: x, bound: bound}
	s.all = full || t.holdsAll(nd, mask)
	if ix.pairOn && ix.big == 0 && nd.pairBits != 0 && s.all && maxLoad == math.MaxInt32 {
		return t.lowestPairsIx(nd, &s, ix)
	}
	b := lowBest{load: math.MaxInt32, cpu: -1}
	lo, hi := nd.flatLo, nd.flatHi
	pl, ph := hi, hi // the preferred CPU's leaf, if it lies in this node
	if uint32(prefer) < uint32(len(t.flatLeaf)) {
		if r := t.flatLeaf[prefer]; r.lo < r.hi && r.lo >= lo && r.lo < hi {
			pl, ph = r.lo, r.hi
		}
	}
	pairs := nd.pairs
	xs := s.walk(t.flat[lo:pl], pairs, *x, &b)
	if pl < ph {
		xs = lowestMixed(t.flat[pl:ph], &s, xs, &b)
		xs = s.walk(t.flat[ph:hi], pairs, xs, &b)
	}
	*x = xs
	return b.total, b.cpu, b.cpuLoad
}

// walk walks whole leaves none of which holds the preferred CPU, by lowestPairs if they are all
// leaves of two CPUs and by lowestRuns otherwise, the mask tested only when it lacks CPUs of the
// node.
func (s *lowestArgs) walk(flat []flatCPU, pairs bool, x uint32, b *lowBest) uint32 {
	var mask *topology.CPUSet
	if !s.all {
		mask = s.mask
	}
	if pairs {
		return lowestPairs(flat, s.loads, mask, s.pri, s.maxLoad, x, b)
	}
	return lowestRuns(flat, s.loads, mask, s.pri, s.maxLoad, x, b)
}

// lowBest is the state LowestFused carries from leaf to leaf: the node's total so far and the
// best child's load, CPU and randomised CPU load. It lives in memory (it changes once per
// leaf), which leaves the registers to the per-CPU loops.
type lowBest struct{ total, load, cpu, cpuLoad int32 }

// leafDone folds a finished leaf (its total, chosen CPU and that CPU's randomised load) into b:
// the comparison of cpu_search_lowest's child loop.
func (b *lowBest) leafDone(ltotal, lcpu, lload int32) {
	b.total += ltotal
	if lcpu >= 0 && (ltotal < b.load || (ltotal == b.load && lload < b.cpuLoad)) {
		b.load, b.cpu, b.cpuLoad = ltotal, lcpu, lload
	}
}

// lowestRuns walks whole leaves none of which holds the preferred CPU; a nil mask holds every
// CPU. Without the preferred CPU, p is 0 for every CPU (so the randomised load and the compared
// load are one), the priority test always applies, and a leaf's total is a multiple of 256, so
// that the SMT rotation (the 128 bit) never applies.
//
// The loop only counts the acceptable CPUs of a leaf, the draws the kernel makes there, and at
// the leaf's end moves the generator over them at once (drawJump). A leaf can only be chosen if
// it has an acceptable CPU and its total is at most the best so far; only such a leaf is walked
// again by lowestAgain, with the draws, from the state the leaf started with.
func lowestRuns(flat []flatCPU, loads *[topology.MaxCPUs]CPULoad, mask *topology.CPUSet, pri, maxLoad int32, x uint32, b *lowBest) uint32 {
	bb := *b // on the stack: the loop addresses it from SP, which keeps a register free
	ltotal, k, start := int32(0), 0, 0
	for i, f := range flat {
		c := f & (topology.MaxCPUs - 1)
		ld := &loads[c]
		l := ld.Load
		ltotal += l
		if l <= maxLoad && int32(ld.LowPri) > pri && (mask == nil || mask.Has(topology.CPU(c))) {
			k++
		}
		if f&flatEnd != 0 {
			// The leaf's total is ltotal*256 (the same modulo 2^32 as the kernel's sum).
			if k != 0 && ltotal<<8 <= bb.load {
				lcpu, lload := lowestAgain(flat[start:i+1], loads, mask, pri, maxLoad, x)
				bb.leafDone(ltotal<<8, lcpu, lload)
			} else {
				bb.total += ltotal << 8
			}
			x = jump(x, k)
			ltotal, k, start = 0, 0, i+1
		}
	}
	*b = bb
	return x
}

// lowestPairs is lowestRuns over leaves of two CPUs each, a leaf per iteration, which spares
// the loop the test for a leaf's end; a leaf that can be chosen takes its draws here. The nil
// check of loads is made once before the loop, and the loop's bound proves both CPUs of a leaf
// in range.
func lowestPairs(flat []flatCPU, loads *[topology.MaxCPUs]CPULoad, mask *topology.CPUSet, pri, maxLoad int32, x uint32, b *lowBest) uint32 {
	bb := *b
	_ = loads[0]
	for i := 0; i < len(flat)-1; i += 2 {
		c0, c1 := flat[i]&(topology.MaxCPUs-1), flat[i+1]&(topology.MaxCPUs-1)
		ld0, ld1 := &loads[c0], &loads[c1]
		ok0 := ld0.Load <= maxLoad && int32(ld0.LowPri) > pri && (mask == nil || mask.Has(topology.CPU(c0)))
		ok1 := ld1.Load <= maxLoad && int32(ld1.LowPri) > pri && (mask == nil || mask.Has(topology.CPU(c1)))
		ltotal := (ld0.Load + ld1.Load) << 8
		if !(ok0 || ok1) || ltotal > bb.load {
			bb.total += ltotal
			if ok0 != ok1 {
				x = x*69069 + 5
			} else if ok0 {
				x = jump(x, 2)
			}
			continue
		}
		lcpu, lload := int32(-1), int32(math.MaxInt32)
		if ok0 {
			x = x*69069 + 5
			lcpu, lload = int32(c0), ld0.Load<<8-int32((x>>16)&127)
		}
		if ok1 {
			x = x*69069 + 5
			if load := ld1.Load<<8 - int32((x>>16)&127); lload > load {
				lcpu, lload = int32(c1), load
			}
		}
		bb.leafDone(ltotal, lcpu, lload)
	}
	*b = bb
	return x
}

// lowestAgain walks one leaf (flat) as the kernel's leaf loop does without a preferred CPU, the
// generator starting at x, and returns the CPU it chooses and that CPU's randomised load. A nil
// mask holds every CPU. It is not inlined, which keeps the callers' loops small enough for their
// registers.
//
//go:noinline
func lowestAgain(flat []flatCPU, loads *[topology.MaxCPUs]CPULoad, mask *topology.CPUSet, pri, maxLoad int32, x uint32) (cpu, cpuLoad int32) {
	cpu, cpuLoad = -1, math.MaxInt32
	for _, f := range flat {
		c := f & (topology.MaxCPUs - 1)
		ld := &loads[c]
		l := ld.Load
		if l <= maxLoad && int32(ld.LowPri) > pri && (mask == nil || mask.Has(topology.CPU(c))) {
			x = x*69069 + 5
			if load := l<<8 - int32((x>>16)&127); cpuLoad > load {
				cpu, cpuLoad = int32(c), load
			}
		}
	}
	return cpu, cpuLoad
}

// lowestMixed walks whole leaves that may hold the preferred CPU, with every rule of the
// kernel's leaf loop and child loop.
func lowestMixed(flat []flatCPU, s *lowestArgs, x uint32, b *lowBest) uint32 {
	loads, mask := s.loads, s.mask
	pri, maxLoad, prefer := s.pri, s.maxLoad, s.prefer
	// The current child's total, best (randomised load - p), CPU and randomised load.
	ltotal, lbest, lcpu, lload := int32(0), int32(math.MaxInt32), int32(-1), int32(0)
	for _, f := range flat {
		c := f & (topology.MaxCPUs - 1)
		ld := &loads[c]
		l := ld.Load
		if int32(c) != prefer {
			// Every CPU but the preferred one: p = 0 and the priority test always applies.
			ltotal += l << 8
			if l <= maxLoad && int32(ld.LowPri) > pri && mask.Has(topology.CPU(c)) {
				x = x*69069 + 5
				if load := l<<8 - int32((x>>16)&127); lbest > load {
					lbest, lcpu, lload = load, int32(c), load
				}
			}
		} else {
			running := s.running
			p := int32(128)
			if running {
				l--
			}
			load := l << 8
			ltotal += load - p
			if !(l > maxLoad || (int32(ld.LowPri) <= pri && !running) || !mask.Has(topology.CPU(c))) {
				if running && l > 0 {
					p = 0
				}
				x = x*69069 + 5
				load -= int32((x >> 16) % 128)
				if lbest > load-p {
					lbest, lcpu, lload = load-p, int32(c), load
				}
			}
		}
		if f&flatEnd == 0 {
			continue
		}
		if s.running && f&flatThread != 0 && ltotal >= 128 && ltotal&128 != 0 {
			b.total -= 128 // the SMT rotation changes the comparison, not the total
			ltotal += 128
		}
		b.leafDone(ltotal, lcpu, lload)
		ltotal, lbest, lcpu, lload = 0, math.MaxInt32, -1, 0
	}
	return x
}
