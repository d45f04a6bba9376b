// This file implements cpu_search_lowest read from the index: a leaf of consecutive ids
// (LowestRun) and a group of SMT pairs (lowestPairsIx).

package loadindex

import (
	"math"
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

// LowestRun is sched_lowest(n, mask, pri, maxLoad, prefer, running) for a group n that is a leaf
// of consecutive ids, all in the mask (full says mask holds every CPU of the machine), without a
// load limit (maxLoad INT_MAX), searched in the index: it returns the chosen CPU (-1 if none)
// and true, having moved *x as the kernel's loop does. It returns false, having changed nothing,
// when the index does not answer: the planes are not kept, n is not such a leaf, the mask lacks
// some of its CPUs, there is a load limit, or a CPU's load reaches bigLoad.
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
// CPU of load l (preferred).
//
// So the search takes the acceptable CPUs from the priority planes, the CPUs of least load among
// them from the load levels (those below the first level that some of them lack), and visits
// those from the highest id down, each one's draw index being the number of acceptable CPUs at or
// above it (a popcount). The complexity is O(CPUs/64) word operations per priority plane and per
// load level walked (the least load plus one), plus O(CPUs of least load) draws.
func (ix *Index) LowestRun(n int, mask *topology.CPUSet, full bool, pri, maxLoad, prefer int32, running bool, x *uint32) (int32, bool) {
	t := &ix.tree
	nd := &t.nodes[n]
	if !ix.Runs(n) || maxLoad != math.MaxInt32 || ix.big != 0 || !(full || t.holdsAll(nd, mask)) {
		return -1, false
	}
	wlo, whi, first, last := idRunWords(nd.idLo, nd.idHi)
	if wlo == whi {
		return ix.lowestWordIx(wlo, first&last, pri, prefer, running, x), true
	}
	return ix.lowestWordsIx(nd, pri, prefer, running, x), true
}

// Runs reports whether LowestRun may answer for group n: the planes are kept and n is a leaf of
// consecutive ids.
func (ix *Index) Runs(n int) bool { return ix.priOn && ix.tree.nodes[n].idLo < ix.tree.nodes[n].idHi }

// preferred decides, for the preferred CPU when it is acceptable and has load l (less one when
// running), against the least load m of the other acceptable CPUs (others says there are any):
// win, it wins whatever the draws; join, it competes with the others of load m at its draw.
// Favoured by 128, it wins exactly when no other acceptable CPU has less load, unless it is
// running with a thread left, when it competes as any CPU of its load.
func preferred(l int32, running, others bool, m int32) (win, join bool) {
	if !(running && l > 0) {
		return !others || l <= m, false
	}
	return !others || l < m, l == m
}

// lowestWordIx is LowestRun for a leaf whose CPUs all lie in word w of the masks, leaf being
// their bits (every machine of up to 64 CPUs): the same steps on one word, in registers. The
// draws of the candidates (cand, the CPUs that can win) are taken by drawJumps.
func (ix *Index) lowestWordIx(w int, leaf uint64, pri, p int32, running bool, x *uint32) int32 {
	w &= topology.SetWords - 1
	pbit := uint64(0)
	if uint32(p>>6) == uint32(w) && leaf>>(p&63)&1 != 0 {
		pbit = 1 << (p & 63)
	}
	acc := ix.worse(w, pri) & leaf // the acceptable CPUs
	if running {
		acc |= pbit // the preferred CPU's priority is not compared when running
	}
	x0 := *x
	*x = jump(x0, bits.OnesCount64(acc))
	if acc == 0 {
		return -1
	}
	// Narrow the others than the preferred CPU to those of least load m: the first level m+1
	// that some of them lack.
	cand := acc &^ pbit
	m := int32(0)
	if cand != 0 {
		m = ix.leastLoad(cand, w, ix.top)
		cand &^= ix.loaded[(m+1)&(bigLoad-1)][w]
	}
	if acc&pbit != 0 {
		l := ix.loads[p&(topology.MaxCPUs-1)].Load
		if running {
			l--
		}
		win, join := preferred(l, running, acc&^pbit != 0, m)
		if win {
			return p
		}
		if join {
			cand |= pbit
		}
	}
	return int32(w<<6) + drawJumps(acc, cand, x0, 0, 127)
}

// lowestWordsIx is LowestRun for a leaf nd over several words of the masks, with the scratch
// masks ix.acc (the acceptable CPUs) and ix.cand (the CPUs that can win).
func (ix *Index) lowestWordsIx(nd *searchNode, pri, p int32, running bool, x *uint32) int32 {
	const wmask = topology.SetWords - 1
	wlo, whi, first, last := idRunWords(nd.idLo, nd.idHi)
	acc, cand := &ix.acc, &ix.cand
	pw, pbit := wordBit(topology.CPU(p))
	if p < nd.idLo || p >= nd.idHi {
		pw, pbit = -1, 0
	}
	// The acceptable CPUs (acc), their number (k), and the others than the preferred one (cand).
	k, others := 0, uint64(0)
	for w := wlo; w <= whi; w++ {
		a := ix.worse(w&wmask, pri)
		if w == wlo {
			a &= first
		}
		if w == whi {
			a &= last
		}
		if w == pw && running {
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
	x0 := *x
	*x = jump(x0, k)
	if k == 0 {
		return -1
	}
	m := int32(0)
	if others != 0 {
		m = ix.narrowLeast(cand, wlo, whi)
	}
	if pw >= 0 && acc[pw]&pbit != 0 {
		l := ix.loads[p&(topology.MaxCPUs-1)].Load
		if running {
			l--
		}
		win, join := preferred(l, running, others != 0, m)
		if win {
			return p
		}
		if join {
			cand[pw] |= pbit
		}
	}
	return visitDraws(acc, cand, wlo, whi, x0)
}

// narrowLeast narrows cand (words wlo..whi, not all empty) to its CPUs of least load m and
// returns m: the first level m+1 that some of them lack, found by a binary search as leastLoad
// finds it in one word (no load exceeds top, so level top+1 holds none of them).
func (ix *Index) narrowLeast(cand *cpuBits, wlo, whi int) int32 {
	const wmask = topology.SetWords - 1
	lo, hi := int32(0), ix.top
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		level := &ix.loaded[(mid+1)&(bigLoad-1)]
		var below uint64
		for w := wlo; w <= whi; w++ {
			below |= cand[w&wmask] &^ level[w&wmask]
		}
		if below != 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	level := &ix.loaded[(lo+1)&(bigLoad-1)]
	for w := wlo; w <= whi; w++ {
		cand[w&wmask] &^= level[w&wmask]
	}
	return lo
}

// visitDraws visits the CPUs of cand (words wlo..whi) from the highest id down, each with its own
// draw (its index is the number of CPUs of acc at or above it), and returns the first whose draw
// r = (x>>16)%128 is the greatest, stopping at r = 127, which none after it can beat.
func visitDraws(acc, cand *cpuBits, wlo, whi int, x0 uint32) int32 {
	const wmask = topology.SetWords - 1
	best, cpu := int32(-1), int32(-1)
	above := 0 // acceptable CPUs in the words above w
	for w := whi; w >= wlo; w-- {
		aw := acc[w&wmask]
		for cw := cand[w&wmask]; cw != 0; {
			b := 63 - bits.LeadingZeros64(cw)
			cw &^= 1 << b
			if r := int32(jump(x0, above+bits.OnesCount64(aw>>b)) >> 16 & 127); r > best {
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

// lowestPairsIx is LowestFused on a node nd of SMT pairs (nd.pairBits: the pairs 2i, 2i+1 of
// consecutive ids in one mask word, visited from the highest id down) with every CPU in the mask
// and no load limit, reading the index (pair totals kept, ix.big zero) instead of every CPU's
// CPULoad. It returns what the walk returns and leaves the generator where it does.
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
// pair-total levels give those pairs), and among those pairs the first acceptable CPU in
// visiting order of least l*256 - r wins: with r < 128 < 256 that is one of the least load m (the
// load levels give them) with the greatest draw, the first on ties — the choice drawJumps makes.
// The pair of the preferred CPU is searched as the walk searches it (lowestPrefPair, from its
// own place in the stream of draws) and compared with that winner as the kernel's loop would: the
// lesser (total, randomised load) wins, and on equality the one visited first.
//
// The node's total is 256 times the sum of its loads, less 128 for the preferred CPU and 256
// more if the thread runs there; the pair totals give the sum (the SMT rotation changes a pair's
// comparison, not the total). The complexity is O(1) word operations per priority plane,
// pair-total level and load level walked, and a draw per CPU that could win.
func (t *searchTree) lowestPairsIx(nd *searchNode, s *lowestArgs, ix *Index) (total, cpu, cpuLoad int32) {
	const even = 0x5555555555555555
	w := int(nd.pairWord) & (topology.SetWords - 1)
	node, p := nd.pairBits, s.prefer
	var pbit, qbits uint64 // the preferred CPU and its pair
	if uint32(p>>6) == uint32(w) && node>>(p&63)&1 != 0 {
		pbit, qbits = 1<<(p&63), 3<<(p&62)
	}
	acc := ix.worse(w, s.pri) & node
	if s.running {
		acc |= pbit // the preferred CPU's priority is not compared when running
	}
	x0 := *s.x
	*s.x = jump(x0, bits.OnesCount64(acc))
	total = ix.nodeSum[min(nd.sum, topology.MaxCPUs/2)] << 8
	if pbit != 0 {
		total -= 128
		if s.running {
			total -= 256
		}
	}
	if acc == 0 || total > s.bound {
		// No CPU to choose, or none the caller would take (see LowestFused).
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
		r := int32(jump(x0, bits.OnesCount64(acc>>b)) >> 16 & 127)
		best.load, best.cpu, best.cpuLoad = tot<<8, int32(w<<6)+b, m<<8-r
	}
	if acc&qbits != 0 {
		// The preferred CPU's pair, from the draw after those of the acceptable CPUs above it.
		q := p &^ 1
		thread := t.flat[t.flatLeaf[p&(topology.MaxCPUs-1)].lo+1]&flatThread != 0
		bq := ix.lowestPrefPair(q, acc>>(q&63)&3, thread, s, jump(x0, bits.OnesCount64(acc>>(q&63)>>2)))
		if best.cpu < 0 || bq.load < best.load || (bq.load == best.load && (bq.cpuLoad < best.cpuLoad || (bq.cpuLoad == best.cpuLoad && q > best.cpu))) {
			best = bq
		}
	}
	return total, best.cpu, best.cpuLoad
}

// lowestPrefPair is lowestMixed on the pair of CPUs q+1 and q (q even) that holds the preferred
// CPU, for lowestPairsIx (every CPU in the mask, no load limit): acc2 has bit i set if CPU q+i
// is acceptable (for the preferred CPU, its priority or running), thread says the pair is an SMT
// group, and x is the generator's state before the pair's draws. It returns the pair's compared
// total (the SMT rotation applied), chosen CPU (-1 if none) and its randomised load, as the
// kernel's leaf loop and child comparison make them; total is not set.
func (ix *Index) lowestPrefPair(q int32, acc2 uint64, thread bool, s *lowestArgs, x uint32) lowBest {
	b := lowBest{load: math.MaxInt32, cpu: -1}
	bload, ltotal := int32(math.MaxInt32), int32(0)
	for i := int32(1); i >= 0; i-- { // the kernel visits q+1, then q
		c := q + i
		l, p := ix.loads[c&(topology.MaxCPUs-1)].Load, int32(0)
		if c == s.prefer {
			if s.running {
				l--
			}
			p = 128
			if s.running && l > 0 {
				ltotal -= 128 // the total counts the 128; the comparison does not
				p = 0
			}
		}
		ltotal += l<<8 - p
		if acc2>>i&1 == 0 {
			continue
		}
		x = x*69069 + 5
		if load := l<<8 - int32((x>>16)%128); bload > load-p {
			bload, b.cpu, b.cpuLoad = load-p, c, load
		}
	}
	if s.running && thread && ltotal >= 128 && ltotal&128 != 0 {
		ltotal += 128
	}
	if b.cpu >= 0 {
		b.load = ltotal
	}
	return b
}
