// This file implements loadIndex, the System's second record of what the searches read of every
// CPU (tdq_lowpri, TDQ_LOAD, whether TDQ_TRANSFERABLE is zero), kept as masks that test 64 CPUs
// at a time, and the searches that read it.

package ule

import (
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

// A loadIndex records, for every CPU, the facts of its CPULoad that decide the searches, as the
// CPUStates change them, in masks: bit c of pri[k] is bit k of CPU c's LowPri (bit planes),
// loaded[k] holds the CPUs whose Load is at least k (levels), and xfer those whose Transferable
// is not zero. A question about every CPU (which run worse than a priority, which have the least
// load among some) is then a few word operations per 64 CPUs: priorities are compared from the
// highest bit plane down as a comparator does it, loads by walking the levels. A change of
// LowPri flips the bits that differ; a load going up or down by one sets or clears one bit.
//
// Loads of bigLoad or more have no level: big counts the CPUs with such a load, and the searches
// use the index only while it is zero (which also keeps every load*256 and every group total far
// from wrapping). top is a high-water mark of the loads recorded: every load is at most top, and
// the searches walk no level above it (it never shrinks, which costs a search a few empty levels
// at most).
//
// Invariant (checkIndex in the tests, after every mutation), while stealOn: for every CPU c of
// the machine, the planes hold Loads[c].LowPri if priOn (and are zero otherwise); loaded[k] has c exactly when
// 1 <= k <= Loads[c].Load (k < bigLoad); xfer has c exactly when Loads[c].Transferable != 0; big
// counts the CPUs with Load >= bigLoad; top is at least every load below bigLoad. Ids the machine
// lacks are in no mask.
//
// The CPUStates keep it up to date; a write to System.Loads (a what-if analysis) bypasses it.
// That is why only the mutating methods (Add, Switch, SetPriority, SetNice, SetAffinity, and the
// Scheduler on top of them), which already require Loads to be consistent with the run queues,
// search with it; PickCPU, Lowest, Highest and Steal called directly read Loads alone.
type loadIndex struct {
	// stealOn says the index is kept (loaded, top, big, xfer) and stealIx may search: on
	// machines of at least indexMinCPUs CPUs. priOn says the priority planes are kept too and
	// lowestIDRunIx may search: when the machine also has a leaf of consecutive ids, not an SMT
	// core, of at least indexMinCPUs CPUs. Below that, the loops over every CPU cost less than
	// keeping the index.
	priOn, stealOn bool
	pri            [8]cpuBits
	loaded         [bigLoad]cpuBits
	top            int32
	xfer           cpuBits
	big            int32
	// acc and cand are scratch masks of the searches (only the words of the group searched are
	// written and read), kept here so that no search clears a whole mask.
	acc, cand cpuBits
}

// bigLoad is the load from which a CPU has no level and counts in big.
const bigLoad = 64

// indexMinCPUs is the number of CPUs from which the index's searches cost less than the loops
// over every CPU they replace, keeping the planes included (measured with bench/sim's ICount on
// the periodic task sets: a loss at 4 and 16 CPUs, a gain at 64).
const indexMinCPUs = 32

// wordBit returns the word and bit of CPU c in a cpuBits.
func wordBit(c topology.CPU) (int, uint64) {
	return int(c>>6) & (topology.MaxCPUs/64 - 1), 1 << (c & 63)
}

// setLowPri records that CPU c's LowPri changed from old to pri.
func (ix *loadIndex) setLowPri(c topology.CPU, old, pri uint8) {
	w, bit := wordBit(c)
	for d := old ^ pri; d != 0; d &= d - 1 {
		ix.pri[bits.TrailingZeros8(d)&7][w] ^= bit
	}
}

// loadUp records that CPU c's load went from old (non-negative) to old+1.
func (ix *loadIndex) loadUp(c topology.CPU, old int32) {
	l := old + 1
	if l >= bigLoad {
		if l == bigLoad {
			ix.big++
		}
		return
	}
	w, bit := wordBit(c)
	ix.loaded[l][w] |= bit
	ix.top = max(ix.top, l)
}

// loadDown records that CPU c's load went from old (positive) to old-1.
func (ix *loadIndex) loadDown(c topology.CPU, old int32) {
	if old >= bigLoad {
		if old == bigLoad {
			ix.big--
		}
		return
	}
	w, bit := wordBit(c)
	ix.loaded[old&(bigLoad-1)][w] &^= bit
}

// setXfer records whether CPU c has a transferable thread.
func (ix *loadIndex) setXfer(c topology.CPU, any bool) {
	w, bit := wordBit(c)
	if any {
		ix.xfer[w] |= bit
	} else {
		ix.xfer[w] &^= bit
	}
}

// worse returns the CPUs of word w whose LowPri is worse (greater) than pri: the test
// cpu_search_lowest makes of each CPU (tdq_lowpri > cs_pri), for 64 CPUs. It compares from the
// highest bit plane down, keeping in eq the CPUs whose bits so far equal pri's: where pri has a
// 0 and a CPU a 1, that CPU is greater. With pri < 0 every CPU is, with pri > 255 none.
func (ix *loadIndex) worse(w int, pri int32) uint64 {
	if pri < 0 {
		return ^uint64(0)
	}
	var gt uint64
	eq := ^uint64(0)
	for k := 7; k >= 0 && eq != 0; k-- {
		plane := ix.pri[k][w]
		if pri>>k&1 != 0 {
			eq &= plane
		} else {
			gt |= eq & plane
			eq &^= plane
		}
	}
	if pri > 255 {
		return 0
	}
	return gt
}

// idRunWords returns the words of a leaf of CPU ids lo..hi-1 and the masks of its first and last
// word.
func idRunWords(lo, hi int32) (wlo, whi int, first, last uint64) {
	return int(lo >> 6), int((hi - 1) >> 6), ^uint64(0) << (lo & 63), ^uint64(0) >> (63 - (hi-1)&63)
}

// lowestIDRunIx is lowestIDRun reading the index ix instead of every CPU's CPULoad; ix must
// agree with s.loads (its invariant), ix.big must be zero, and as for lowestIDRun the whole
// leaf nd is in the mask and there is no load limit.
//
// The kernel's loop visits the CPUs from the highest id down and draws once for each acceptable
// one (LowPri worse than pri; the preferred CPU also when running): the j-th acceptable CPU gets
// the j-th draw x_j, and the generator ends k draws on, k being the number of acceptable CPUs.
// So the end state is drawJump[k] applied to the start and x_j is drawJump[j] applied to it, and
// only the draws of CPUs that can win need computing. A CPU other than the preferred one compares
// load*256 - r with r = (x_j>>16)%128 < 128 < 256, so one with the least load m among them beats
// every one with more, and among those of load m the first visited with the largest r wins (the
// comparison is strict). The preferred CPU compares l*256 - r - 128 (l its load, less one when
// running): it beats every other CPU of load l and loses to every one of load l-1, so it wins
// exactly when l <= m, whatever its draw; only when running with l > 0 does it compete as any
// CPU of load l.
//
// So the search takes the acceptable CPUs from the priority planes, the CPUs of least load among
// them from the load levels (those below the first level that some of them lack), and visits
// those from the highest id down, each one's draw index being the number of
// acceptable CPUs at or above it (a popcount), until one draws r = 127, which none after it can
// beat. The complexity is O(CPUs/64) word operations per priority plane and per load level
// walked (the least load plus one), plus O(CPUs of least load) draws.
func (t *searchTree) lowestIDRunIx(nd *searchNode, s *lowestArgs, ix *loadIndex) int32 {
	const wmask = topology.MaxCPUs/64 - 1
	lo, hi, p := nd.idLo, nd.idHi, s.prefer
	wlo, whi, first, last := idRunWords(lo, hi)
	acc, cand := &ix.acc, &ix.cand
	pw, pbit := wordBit(topology.CPU(p))
	if p < lo || p >= hi {
		pw, pbit = -1, 0
	}
	// The acceptable CPUs (acc), their number (k), and the others than the preferred one (cand).
	k, others := 0, uint64(0)
	for w := wlo; w <= whi; w++ {
		a := ix.worse(w&wmask, s.pri)
		if w == wlo {
			a &= first
		}
		if w == whi {
			a &= last
		}
		if w == pw && s.running {
			a |= pbit // the preferred CPU's priority is not compared when running
		}
		acc[w&wmask] = a
		k += bits.OnesCount64(a)
		if w == pw {
			a &^= pbit
		}
		cand[w&wmask] = a
		others |= a
	}
	x0 := s.rnd.x
	end := &drawJump[k&(2*topology.MaxCPUs-1)]
	s.rnd.x = x0*end.mul + end.add
	if k == 0 {
		return -1
	}
	// Narrow cand to the others of least load m: the first level m+1 that some of them lack.
	m := int32(0)
	if others != 0 {
		for m = 0; m < ix.top; m++ {
			level := &ix.loaded[(m+1)&(bigLoad-1)]
			var below uint64
			for w := wlo; w <= whi; w++ {
				below |= cand[w&wmask] &^ level[w&wmask]
			}
			if below != 0 {
				for w := wlo; w <= whi; w++ {
					cand[w&wmask] &^= level[w&wmask]
				}
				break
			}
		}
	}
	if pw >= 0 && acc[pw]&pbit != 0 {
		l := s.loads[p&(topology.MaxCPUs-1)].Load
		if s.running {
			l--
		}
		switch {
		case !(s.running && l > 0):
			// Favoured by 128: it wins exactly when no other acceptable CPU has less load.
			if others == 0 || l <= m {
				return p
			}
		case others == 0 || l < m:
			return p // the only CPU of least load
		case l == m:
			cand[pw] |= pbit
		}
	}
	// Visit the candidates from the highest id down, each with its own draw.
	best, cpu := int32(-1), int32(-1)
	above := 0 // acceptable CPUs in the words above w
	for w := whi; w >= wlo; w-- {
		aw := acc[w&wmask]
		for cw := cand[w&wmask]; cw != 0; {
			b := 63 - bits.LeadingZeros64(cw)
			cw &^= 1 << b
			j := &drawJump[(above+bits.OnesCount64(aw>>b))&(2*topology.MaxCPUs-1)]
			if r := int32((x0*j.mul + j.add) >> 16 & 127); r > best {
				best, cpu = r, int32(w<<6|b)
				if r == 127 {
					return cpu
				}
			}
		}
		above += bits.OnesCount64(aw)
	}
	return cpu
}

// atLeast returns the CPUs of word w whose load is at least min. ix.big must be zero.
func (ix *loadIndex) atLeast(w int, min int32) uint64 {
	switch {
	case min <= 0:
		return ^uint64(0)
	case min >= bigLoad:
		return 0
	}
	return ix.loaded[min][w]
}

// candLeaf returns -1 if group n holds no CPU of cand, the id of the leaf that holds all of
// them if one does, and -2 otherwise. t.ranges must hold.
func (t *searchTree) candLeaf(n int32, cand *cpuBits) int32 {
	nd := &t.nodes[n]
	if nd.kidHi == nd.kidLo {
		for _, mw := range t.words[nd.wordLo:nd.wordHi] {
			if cand[mw.w&(topology.MaxCPUs/64-1)]&mw.bits != 0 {
				return n
			}
		}
		return -1
	}
	leaf := int32(-1)
	for w := range cand {
		for c := cand[w]; c != 0; c &= c - 1 {
			cpu := topology.CPU(w<<6 | bits.TrailingZeros64(c))
			if !t.holds(n, cpu) {
				continue
			}
			if l := t.leafOf[cpu]; leaf == -1 {
				leaf = l
			} else if l != leaf {
				return -2
			}
		}
	}
	return leaf
}

// highestLeafIx is highestLeaf when the CPUs it accepts are those of cand in leaf nd (at least
// one), reading the load planes of ix (ix.big must be zero). As in lowestIDRunIx, the leaf's
// loop draws once per accepted CPU, from the highest id down, so the generator ends drawJump[k]
// on; a CPU compares load*256 - r with r = (x_j>>16)%256 < 256, so only the accepted CPUs of the
// greatest load can win, the first visited with the least r (the comparison is strict), and the
// search stops at r = 0. The complexity is O(words of the leaf) per load level walked plus
// O(CPUs of greatest load) draws.
func (t *searchTree) highestLeafIx(nd *searchNode, rnd *Rand, ix *loadIndex, cand *cpuBits) int32 {
	const wmask = topology.MaxCPUs/64 - 1
	words := t.words[nd.wordLo:nd.wordHi]
	top := &ix.cand // the accepted CPUs of greatest load, narrowed plane by plane
	k := 0
	for _, mw := range words {
		a := cand[mw.w&wmask] & mw.bits
		top[mw.w&wmask] = a
		k += bits.OnesCount64(a)
	}
	// The greatest load M is the highest level some of them reach (none reach a higher one).
	for l := ix.top; l >= 1; l-- {
		level := &ix.loaded[l&(bigLoad-1)]
		var at uint64
		for _, mw := range words {
			at |= top[mw.w&wmask] & level[mw.w&wmask]
		}
		if at != 0 {
			for _, mw := range words {
				top[mw.w&wmask] &= level[mw.w&wmask]
			}
			break
		}
	}
	x0 := rnd.x
	end := &drawJump[k&(2*topology.MaxCPUs-1)]
	rnd.x = x0*end.mul + end.add
	best, cpu := int32(256), int32(-1)
	above := 0 // accepted CPUs in the words after i
	for i := len(words) - 1; i >= 0; i-- {
		mw := words[i]
		aw := cand[mw.w&wmask] & mw.bits
		for cw := top[mw.w&wmask]; cw != 0; {
			b := 63 - bits.LeadingZeros64(cw)
			cw &^= 1 << b
			j := &drawJump[(above+bits.OnesCount64(aw>>b))&(2*topology.MaxCPUs-1)]
			if r := int32((x0*j.mul + j.add) >> 16 & 255); r < best {
				best, cpu = r, mw.w<<6|int32(b)
				if r == 0 {
					return cpu
				}
			}
		}
		above += bits.OnesCount64(aw)
	}
	return cpu
}
