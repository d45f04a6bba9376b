// This file implements loadIndex, the System's second record of what the searches read of every
// CPU (tdq_lowpri, TDQ_LOAD, whether TDQ_TRANSFERABLE is zero), kept as masks that test 64 CPUs
// at a time, and the searches that read it.

package ule

import (
	"math"
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

// A loadIndex records, for every CPU, the facts of its CPULoad that decide the searches, as the
// CPUStates change them, in masks: bit c of pri[k] is bit k of CPU c's LowPri (bit planes),
// loaded[k] holds the CPUs whose Load is at least k (levels), and xfer those whose Transferable
// is not zero; on machines of SMT pairs, pairLevel[t] holds the pairs whose total load is at
// least t (levels of pairs). A question about every CPU (which run worse than a priority, which have the least
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
// counts the CPUs with Load >= bigLoad; top is at least every load below bigLoad; if pairOn,
// pairSum[i] is Loads[2i].Load + Loads[2i+1].Load (a missing CPU counting 0), pairLevel[t] has
// 2i exactly when 1 <= t <= pairSum[i] (t < 2*bigLoad), and nodeSum[i+1] holds the total load
// of the group of pairs whose first CPU is 2i, nodeSum[0] that of the CPUs in no such group. Ids the machine lacks are in no other mask.
//
// The CPUStates keep it up to date; a write to System.Loads (a what-if analysis) bypasses it.
// That is why only the mutating methods (Add, Switch, SetPriority, SetNice, SetAffinity, and the
// Scheduler on top of them), which already require Loads to be consistent with the run queues,
// search with it; PickCPU, Lowest, Highest and Steal called directly read Loads alone.
type loadIndex struct {
	// stealOn says the index is kept (loaded, top, big, xfer) and stealIx may search: on
	// machines of at least indexMinCPUs CPUs. priOn says the priority planes are kept too and
	// lowestIDRunIx may search: when the machine also has a leaf of consecutive ids, not an SMT
	// core, of at least indexMinCPUs CPUs, or keeps the pair totals. Below that, the loops over
	// every CPU cost less than keeping the index.
	priOn, stealOn bool
	pri            [8]cpuBits
	loaded         [bigLoad]cpuBits
	top            int32
	xfer           cpuBits
	big            int32
	// pairOn says the pair totals are kept too and lowestPairsIx may search: when the machine
	// also has a group of SMT pairs that pairRun describes, of at least indexMinPairCPUs CPUs.
	// pairSum[i] is the total load of CPUs 2i and 2i+1, and pairLevel[t] the pairs (at bit 2i)
	// whose total is at least t, as loaded is for CPUs (pairLevel[0] is unused; totals from
	// 2*bigLoad have no level, which only CPUs counted in big can make). nodeSum[i+1] is the
	// total load of the group of pairs whose first pair is i (the CPUs 2i, 2i+1, …), and home[c]
	// that i+1 for each CPU c of such a group (0 for the other CPUs, whose loads nodeSum[0]
	// collects and nothing reads).
	pairOn    bool
	pairLevel [2 * bigLoad]cpuBits
	pairSum   [topology.MaxCPUs / 2]int32
	nodeSum   [topology.MaxCPUs/2 + 1]int32
	home      [topology.MaxCPUs]uint16
	// acc and cand are scratch masks of the searches (only the words of the group searched are
	// written and read), kept here so that no search clears a whole mask.
	acc, cand cpuBits
}

// bigLoad is the load from which a CPU has no level and counts in big.
const bigLoad = 64

// indexMinPairCPUs is the number of CPUs a group of SMT pairs needs for the pair totals to be
// kept (measured as indexMinCPUs was, on bench/sim's mixed load of 64 CPUs in pairs).
const indexMinPairCPUs = 16

// indexMinCPUs is the number of CPUs from which the index's searches cost less than the loops
// over every CPU they replace, keeping the planes included (measured with bench/sim's ICount and
// Periodic on the periodic task sets: a loss at 4 CPUs, a gain at 16 and 64; before lowestIDRun's
// loop took its decisions by masks, a loss at 16 too).
const indexMinCPUs = 16

// wordBit returns the word and bit of CPU c in a cpuBits.
func wordBit(c topology.CPU) (int, uint64) {
	return int(c>>6) & (topology.MaxCPUs/64 - 1), 1 << (c & 63)
}

// setLowPri records that CPU c's LowPri changed from old to pri: c's bit flips in each plane
// where old and pri differ. The eight planes are written whether or not they change, each
// with a mask of its bit of old^pri (mask.go): a loop over the differing bits alone ran a
// number of times that varied from call to call, and its end was mispredicted about one time
// in five. It is not inlined, so that CPUState.setLowPri, which calls it only on machines with
// the planes, is.
//
//go:noinline
func (ix *loadIndex) setLowPri(c topology.CPU, old, pri uint8) {
	w, at := int(c>>6)&(topology.MaxCPUs/64-1), c&63
	d := uint64(old ^ pri)
	pl := &ix.pri
	pl[0][w] ^= d & 1 << at
	pl[1][w] ^= d >> 1 & 1 << at
	pl[2][w] ^= d >> 2 & 1 << at
	pl[3][w] ^= d >> 3 & 1 << at
	pl[4][w] ^= d >> 4 & 1 << at
	pl[5][w] ^= d >> 5 & 1 << at
	pl[6][w] ^= d >> 6 & 1 << at
	pl[7][w] ^= d >> 7 & 1 << at
}

// loadUp records that cs's load is about to go up by one. It is not inlined, and takes the
// CPUState alone, which keeps CPUState.LoadAdd, whose call it is, small enough to be (on
// machines without the index it costs a nil test).
//
//go:noinline
func (ix *loadIndex) loadUp(cs *CPUState) {
	c, l := cs.ID, cs.sum.Load+1
	if ix.pairOn {
		ix.pairAdd(c, 1)
	}
	if l >= bigLoad {
		if l == bigLoad {
			ix.big++
		}
		return
	}
	w, bit := wordBit(c)
	ix.loaded[l&(bigLoad-1)][w] |= bit
	ix.top = max(ix.top, l)
}

// levelDown records that CPU c's load went from old (positive) to old-1, in the levels: the
// part of the index that CPUState.LoadRemove updates inline (pairAdd is the other).
func (ix *loadIndex) levelDown(c topology.CPU, old int32) {
	if old >= bigLoad {
		if old == bigLoad {
			ix.big--
		}
		return
	}
	w, bit := wordBit(c)
	ix.loaded[old&(bigLoad-1)][w] &^= bit
}

// pairAdd records that the load of CPU c, and so the total of its pair (c&^1, c|1) and of the
// group of pairs that holds it, went up (d = 1) or down (d = -1) by one: one level gains or
// loses the pair.
func (ix *loadIndex) pairAdd(c topology.CPU, d int32) {
	i := c >> 1 & (topology.MaxCPUs/2 - 1)
	ix.nodeSum[min(ix.home[c&(topology.MaxCPUs-1)], topology.MaxCPUs/2)] += d
	old := ix.pairSum[i]
	ix.pairSum[i] = old + d
	if l := max(old, old+d); l < 2*bigLoad {
		ix.pairLevel[l][i>>5] ^= 1 << (c & 62)
	}
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
// cpu_search_lowest makes of each CPU (tdq_lowpri > cs_pri), for 64 CPUs. With pri < 0 every
// CPU is, with pri > 255 none.
//
// It compares from the lowest bit plane up, keeping in gt the CPUs whose bits so far (k and
// below) make a greater number than pri's: a CPU with bits 0..k is greater than pri's bits 0..k
// when its bit k is greater, or equal and its lower bits greater. Where pri's bit k is 1 the
// CPU's cannot be greater and must be 1 (gt &= plane); where it is 0 a CPU with a 1 is greater
// and one with a 0 is as before (gt |= plane). So each plane costs one operation.
func (ix *loadIndex) worse(w int, pri int32) uint64 {
	if uint32(pri) > 255 {
		if pri < 0 {
			return ^uint64(0)
		}
		return 0
	}
	w &= topology.MaxCPUs/64 - 1
	pl, u := &ix.pri, uint32(pri)
	// Below pri's lowest 0 bit gt stays empty (gt &= plane from nothing), so the comparison
	// could start there, but where that is depends on pri, and a jump into the planes there was
	// mispredicted one time in two; all eight planes cost less.
	gt := planeGT(0, pl[0][w], u)
	gt = planeGT(gt, pl[1][w], u>>1)
	gt = planeGT(gt, pl[2][w], u>>2)
	gt = planeGT(gt, pl[3][w], u>>3)
	gt = planeGT(gt, pl[4][w], u>>4)
	gt = planeGT(gt, pl[5][w], u>>5)
	gt = planeGT(gt, pl[6][w], u>>6)
	return planeGT(gt, pl[7][w], u>>7)
}

// planeGT is one plane of worse's comparison: gt for bits 0..k from gt for bits 0..k-1, the
// plane of bit k and pri's bit k (the low bit of b). The planes are written out one by one,
// which lets the compiler address each with a constant offset.
func planeGT(gt, plane uint64, b uint32) uint64 {
	if b&1 != 0 {
		return gt & plane
	}
	return gt | plane
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
	if wlo == whi {
		return lowestWordIx(wlo, first&last, s.pri, p, s.running, s.rnd, ix, s.loads)
	}
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

// lowestWordIx is lowestIDRunIx for a leaf whose CPUs all lie in word w of the masks, leaf
// being their bits (every machine of up to 64 CPUs), with lowestArgs' fields as arguments: the
// same steps on one word each, in registers. The draws of the candidates (cand, the CPUs that
// can win) are taken by drawJumps, which jumps to each candidate's draw (its index is the number
// of acceptable CPUs at or above it).
func lowestWordIx(w int, leaf uint64, pri, p int32, running bool, rnd *Rand, ix *loadIndex, loads *[topology.MaxCPUs]CPULoad) int32 {
	w &= topology.MaxCPUs/64 - 1
	pbit := uint64(0)
	if uint32(p>>6) == uint32(w) && leaf>>(p&63)&1 != 0 {
		pbit = 1 << (p & 63)
	}
	acc := ix.worse(w, pri) & leaf // the acceptable CPUs
	if running {
		acc |= pbit // the preferred CPU's priority is not compared when running
	}
	k := bits.OnesCount64(acc)
	x0 := rnd.x
	end := &drawJump[k&(2*topology.MaxCPUs-1)]
	rnd.x = x0*end.mul + end.add
	if acc == 0 {
		return -1
	}
	// Narrow the others than the preferred CPU to those of least load m: the first level m+1
	// that some of them lack.
	cand := acc &^ pbit
	m := int32(0)
	if cand != 0 {
		for top := ix.top; m < top; m++ {
			if below := cand &^ ix.loaded[(m+1)&(bigLoad-1)][w]; below != 0 {
				cand = below
				break
			}
		}
	}
	if acc&pbit != 0 {
		l := loads[p&(topology.MaxCPUs-1)].Load
		if running {
			l--
		}
		others := acc&^pbit != 0
		switch {
		case !(running && l > 0):
			// Favoured by 128: it wins exactly when no other acceptable CPU has less load.
			if !others || l <= m {
				return p
			}
		case !others || l < m:
			return p // the only CPU of least load
		case l == m:
			cand |= pbit
		}
	}
	return int32(w<<6) + drawJumps(acc, cand, x0, 0, 127)
}

// drawJumps returns the bit of cand (a subset of acc) whose draw is the greatest, the first from
// the highest bit down on ties, the j-th bit of acc from the top drawing the j-th number after
// x0, r = ((x>>16) ^ flip) & rmask, or -1 if cand is empty. cpu_search_lowest's draws are flip
// 0, rmask 127 (the greatest r wins); cpu_search_highest's are flip -1, rmask 255 (255 - r: the
// least r wins). It jumps to each bit's draw (its index is the number of bits of acc at or
// above it), so its cost is in the candidates alone.
//
// Whether a draw beats the best so far is taken as a mask (mask.go): as a branch it was
// mispredicted about one time in five. The kernel's loop ends early at a draw of rmask, which
// none can beat; here the loop goes on, and takes nothing more. (A form that stepped the
// generator over every bit of acc and compared at the candidates, for a cand that is most of
// acc, no longer pays once neither form branches on the draws: stepping costs a step per bit of
// acc, jumping a popcount and a table look-up per candidate.)
//
//go:noinline
func drawJumps(acc, cand uint64, x0 uint32, flip, rmask int32) int32 {
	best, at := int32(-1), int32(-1)
	for c := cand; c != 0; {
		b := int32(63 - bits.LeadingZeros64(c))
		c ^= 1 << b
		j := &drawJump[bits.OnesCount64(acc>>b)&(2*topology.MaxCPUs-1)]
		r := (int32((x0*j.mul+j.add)>>16) ^ flip) & rmask
		take := (best - r) >> 31 // best < r; both lie in -1..255
		best ^= (best ^ r) & take
		at ^= (at ^ b) & take
	}
	return at
}

// lowestPairsIx is lowestLeaves on a node nd of SMT pairs (nd.pairBits: the pairs 2i, 2i+1
// of consecutive ids in one mask word, visited from the highest id down) with every CPU in the
// mask and no load limit, reading the index ix (pair totals kept, ix.big zero) instead of every
// CPU's CPULoad. It returns what lowestLeaves returns and leaves the generator where it does.
//
// The kernel's loop over the node: for each pair, from the last to the first, the pair's own
// search (cpu_search_lowest on the leaf: a draw for each acceptable CPU, the least randomised
// load l*256 - r winning, the first on ties) and then the child comparison (the pair's total
// below the best so far, or equal with a lower randomised load). Every CPU's draw is its place
// among the node's acceptable CPUs in visiting order, which is the order of ids from the highest
// down: so the generator ends drawJump[k] on (k acceptable CPUs), and any one CPU's draw is at
// hand (the acceptable CPUs at or above it).
//
// Leave aside the pair of the preferred CPU. Every other pair's total is 256 times its load,
// pairSum, with nothing added (no CPU of it is preferred, so its total has no 128 bit and the SMT
// rotation never applies), and the comparison keeps the first pair of least (total, randomised
// load). So among the pairs with an acceptable CPU the winner has the least pairSum T (the
// pair-total planes give those pairs, from the highest plane down), and among those pairs the
// first acceptable CPU in visiting order of least l*256 - r wins: with r < 128 < 256 that is one
// of the least load m (the load levels give them) with the greatest draw, the first on ties —
// the choice drawJumps makes. The pair of the preferred CPU is searched as
// lowestLeaves searches it (lowestMixed, from its own place in the stream of draws) and compared
// with that winner as the kernel's loop would: the lesser (total, randomised load) wins, and on
// equality the one visited first.
//
// The node's total is 256 times the sum of its loads, less 128 for the preferred CPU and 256
// more if the thread runs there; the pair-total planes give the sum (the SMT rotation changes a
// pair's comparison, not the total). The complexity is O(1) word operations per priority plane,
// pair-total plane and load level walked, and a draw per CPU that could win.
func (t *searchTree) lowestPairsIx(nd *searchNode, s *lowestArgs, ix *loadIndex) (total, cpu, cpuLoad int32) {
	const even = 0x5555555555555555
	w := int(nd.pairWord) & (topology.MaxCPUs/64 - 1)
	node, p := nd.pairBits, s.prefer
	var pbit, qbits uint64 // the preferred CPU and its pair
	if uint32(p>>6) == uint32(w) && node>>(p&63)&1 != 0 {
		pbit, qbits = 1<<(p&63), 3<<(p&62)
	}
	acc := ix.worse(w, s.pri) & node
	if s.running {
		acc |= pbit // the preferred CPU's priority is not compared when running
	}
	k := bits.OnesCount64(acc)
	x0 := s.rnd.x
	end := &drawJump[k&(2*topology.MaxCPUs-1)]
	s.rnd.x = x0*end.mul + end.add
	total = ix.nodeSum[min(nd.pairLo>>1+1, topology.MaxCPUs/2)] << 8
	if pbit != 0 {
		total -= 128
		if s.running {
			total -= 256
		}
	}
	if acc == 0 {
		return total, -1, 0
	}
	best := lowBest{load: math.MaxInt32, cpu: -1}
	if pairs := (acc | acc>>1) & even &^ qbits; pairs != 0 {
		// The pairs of least total T (the first level T+1 some of them lack, a binary search:
		// no pair reaches 2*top+1), and their acceptable CPUs of least load m (the first level
		// m+1 some of them lack; none of them exceeds T).
		tot := ix.leastPairTotal(pairs, w, min(2*ix.top, 2*bigLoad-2))
		pairs &^= ix.pairLevel[(tot+1)&(2*bigLoad-1)][w]
		cand := acc & (pairs | pairs<<1)
		m := ix.leastLoad(cand, w, min(ix.top, tot))
		cand &^= ix.loaded[(m+1)&(bigLoad-1)][w]
		b := drawJumps(acc, cand, x0, 0, 127)
		j := &drawJump[bits.OnesCount64(acc>>b)&(2*topology.MaxCPUs-1)]
		best.load, best.cpu, best.cpuLoad = tot<<8, int32(w<<6)+b, m<<8-int32((x0*j.mul+j.add)>>16&127)
	}
	if acc&qbits != 0 {
		// The preferred CPU's pair, from the draw after those of the acceptable CPUs above it.
		q := p &^ 1
		j := &drawJump[bits.OnesCount64(acc>>(q&63)>>2)&(2*topology.MaxCPUs-1)]
		r := t.flatLeaf[p&(topology.MaxCPUs-1)]
		bq := lowBest{load: math.MaxInt32, cpu: -1}
		lowestMixed(t.flat[r.lo:r.hi], s, x0*j.mul+j.add, &bq)
		if best.cpu < 0 || bq.load < best.load || (bq.load == best.load && (bq.cpuLoad < best.cpuLoad || (bq.cpuLoad == best.cpuLoad && q > best.cpu))) {
			best = bq
		}
	}
	return total, best.cpu, best.cpuLoad
}

// leastLoad returns the least load among the CPUs of set (in word w, at least one), knowing it
// is at most hi: the least m such that some of them lacks level m+1. The levels are nested
// (level k+1 within level k), so "some lacks level m+1" holds from the least load on, and a
// binary search finds where.
func (ix *loadIndex) leastLoad(set uint64, w int, hi int32) int32 {
	lo := int32(0)
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		if set&^ix.loaded[(mid+1)&(bigLoad-1)][w&(topology.MaxCPUs/64-1)] != 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// leastPairTotal is leastLoad for the pairs of set (at their even bits) and the pair levels.
func (ix *loadIndex) leastPairTotal(set uint64, w int, hi int32) int32 {
	lo := int32(0)
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		if set&^ix.pairLevel[(mid+1)&(2*bigLoad-1)][w&(topology.MaxCPUs/64-1)] != 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// highestWordIx is highestLeafIx for a leaf whose CPUs all lie in one mask word (mw): the greatest
// load M among the accepted CPUs by a binary search of the levels (they are nested, so "some
// reach level l" holds up to M; top, a high-water mark, can be far above it), and the draws of
// those of load M by drawJumps with cpu_search_highest's comparison.
func highestWordIx(mw maskWord, rnd *Rand, ix *loadIndex, cand *cpuBits) int32 {
	w := int(mw.w) & (topology.MaxCPUs/64 - 1)
	acc := cand[w] & mw.bits
	k := bits.OnesCount64(acc)
	x0 := rnd.x
	end := &drawJump[k&(2*topology.MaxCPUs-1)]
	rnd.x = x0*end.mul + end.add
	lo, hi := int32(0), min(ix.top, bigLoad-1)
	for lo < hi {
		mid := int32(uint32(lo+hi+1) >> 1)
		if acc&ix.loaded[mid&(bigLoad-1)][w] != 0 {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	top := acc
	if lo > 0 {
		top &= ix.loaded[lo&(bigLoad-1)][w]
	}
	b := drawJumps(acc, top, x0, -1, 255)
	if b < 0 {
		return -1
	}
	return int32(w<<6) + b
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
	if len(words) == 1 {
		return highestWordIx(words[0], rnd, ix, cand)
	}
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
