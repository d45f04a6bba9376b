// This file implements Index, the record of every CPU's CPULoad as masks of 64 CPUs a word, and
// the updates its owner makes.

package loadindex

import (
	"fmt"
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

// A CPULoad is what ULE's cross-CPU searches read of a CPU without its lock: TDQ_LOAD,
// tdq_transferable and tdq_lowpri.
type CPULoad struct {
	Load         int32 // tdq_load: the running thread (not the idle thread) plus the queued ones
	Transferable int32 // tdq_transferable: the queued threads that may migrate
	LowPri       uint8 // tdq_lowpri: the best priority of the running and the next thread
}

// cpuBits is a mask of CPUs, bit c%64 of word c/64 for CPU c, as topology.CPUSet holds them: the
// index's planes and levels, and the searches' scratch masks.
type cpuBits [topology.SetWords]uint64

// An Index records, for every CPU of one machine, the facts of its CPULoad that decide the
// searches, as the CPUs' owner changes them, in masks: bit c of pri[k] is bit k of CPU c's
// LowPri (bit planes), loaded[k] holds the CPUs whose Load is at least k (levels), xfer those
// whose Transferable is not zero and xferCPUs counts them; on machines of SMT pairs,
// pairLevel[t] holds the pairs whose total load is at least t (levels of pairs). A change of
// LowPri flips the bits that differ; a load going up or down by one sets or clears one bit.
//
// Loads of bigLoad or more have no level: big counts the CPUs with such a load, and the searches
// use the levels only while it is zero (which also keeps every load*256 and every group total
// far from wrapping). top is a high-water mark of the loads recorded: every load is at most top,
// and the searches walk no level above it (it never shrinks, which costs a search a few empty
// levels at most).
//
// Invariant (checked by the tests after every mutation): for every CPU c of the machine, the
// planes hold loads[c].LowPri if priOn (and are zero otherwise); loaded[k] has c exactly when
// 1 <= k <= loads[c].Load (k < bigLoad); xfer has c exactly when loads[c].Transferable != 0,
// and xferCPUs is the number of such CPUs; big counts the CPUs with Load >= bigLoad; top is at
// least every load below bigLoad; if pairOn, pairSum[i] is loads[2i].Load + loads[2i+1].Load (a
// missing CPU counting 0), pairLevel[t] has 2i exactly when 1 <= t <= pairSum[i]
// (t < 2*bigLoad), and nodeSum[i] holds the total load of the group of pairs numbered i (from 1),
// nodeSum[0] that of the CPUs in no such group, and grpSum[j] the total load of the group of such
// groups numbered j (from 1), grpSum[0] that of the other CPUs. Ids the machine lacks are in no
// other mask.
type Index struct {
	loads   *[topology.MaxCPUs]CPULoad
	machine *topology.Topology
	minCPUs int
	tree    searchTree
	all     topology.CPUSet // every CPU of the machine

	// levels says the load levels, the transferable mask and the fused walks are kept, on
	// machines of at least minCPUs CPUs; below that only xferCPUs is, and the searches walk the
	// CPUs (the caller's kernel-shaped loops), which costs less than keeping the rest. priOn
	// says the priority planes are kept too: when the machine also has a leaf of consecutive
	// ids, not an SMT core, of at least minCPUs CPUs, or keeps the pair totals. pairOn says the
	// pair totals are kept: when the machine also has a group of SMT pairs that pairRun
	// describes, of at least min(minCPUs, minPairCPUs) CPUs. countOn says the counts of
	// LowPri values are kept (priCount): when the planes are and the machine's ids take more
	// than one mask word.
	levels, priOn, pairOn, countOn bool
	// prunes says Highest may list candidates: the levels are kept and the groups are numbered
	// in preorder (searchTree.ranges).
	prunes bool

	pri [8]cpuBits
	// priCount[p] is the number of the machine's CPUs whose LowPri is p, and priSeen has bit p
	// exactly when priCount[p] is not zero, kept if countOn. A search for a CPU running worse
	// than pri finds none, and draws nothing, when priSeen has no bit above pri (noneWorse):
	// the search that sched_pickcpu makes before the least loaded CPU's mostly finds none on a
	// busy machine, and a word of planes per 64 CPUs told it so. On a machine of one word the
	// planes answer in one comparison, and the counts cost more than they save (bench/sim's
	// periodic set 16x100, 43 instructions a step more with them).
	priCount [256]uint16
	priSeen  [4]uint64
	loaded   [bigLoad]cpuBits
	top      int32
	xfer     cpuBits
	xferCPUs int32
	big      int32
	// pairSum[i] is the total load of CPUs 2i and 2i+1, and pairLevel[t] the pairs (at bit 2i)
	// whose total is at least t, as loaded is for CPUs (pairLevel[0] is unused; totals from
	// 2*bigLoad have no level, which only CPUs counted in big can make). nodeSum[i] is the
	// total load of the group of pairs numbered i (searchNode.sum, from 1), and grpSum[j] that
	// of the group of such groups numbered j (a node of pairKids, searchNode.grp, from 1: a
	// package of last-level caches, whose total LowestPairGroups reads); home[c] is i | j<<16
	// for each CPU c (i and j 0 for the other CPUs, whose loads nodeSum[0] and grpSum[0]
	// collect and nothing reads).
	pairLevel [2 * bigLoad]cpuBits
	pairSum   [topology.MaxCPUs / 2]int32
	nodeSum   [topology.MaxCPUs]int32 // up to MaxCPUs/2 used; the size lets a mask bound the index
	grpSum    [topology.MaxCPUs]int32
	home      [topology.MaxCPUs]uint32
	// tiedOn says grpLeast and grpTied are kept: when some node is pairGrand and no node of
	// pairKids has more than 64 nodes of SMT pairs. grpLeast[j] is then the least total of the
	// nodes of the group numbered j (its nodeSum[sumLo:sumHi]), and grpTied[j] has bit p exactly
	// when its p-th node in visiting order (nodeSum[sumLo+p]) has that total; sumPos[i] is that p
	// for node i, and grpNode[j] the group's node in the tree. LowestPairGroups, with every CPU
	// acceptable, reads from them which nodes of a group can hold the winner, where it took
	// their least and compared each node's total with it (a loop over the group's 16 nodes on a
	// machine of 1024 CPUs). Likewise, for each node i of those groups, nodeLeast[i] is the
	// least total of its pairs and nodeTied[i] has those pairs (at bit 2i of their word, as
	// pairLevel); nodeLoad[i] is the least load of those pairs' CPUs and nodeCand[i] has the CPUs
	// of those pairs at that load, which drawNodes reads where it found them from a guess and
	// two or more tests of the pair levels and of the load levels.
	tiedOn    bool
	grpLeast  [topology.MaxCPUs]int32
	grpTied   [topology.MaxCPUs]uint64
	sumPos    [topology.MaxCPUs]uint8
	grpNode   []int32
	nodeLeast [topology.MaxCPUs]int32
	nodeTied  [topology.MaxCPUs]uint64
	nodeLoad  [topology.MaxCPUs]int32
	nodeCand  [topology.MaxCPUs]uint64
	// And for each node numbered g of pairGrand (grandOf[n] = g for tree node n, else 0):
	// grandSum[g] is the total of its groups, grandLeast[g] their least total and grandTied[g]
	// has bit i for its i-th group (t.kids[kidLo+i]) at that total; group j is grpPos[j] of
	// grpGrand[j] (0 if in none), and grpBefore[j] is the number of CPUs of the groups visited
	// before it there (from the last to the first), grandCPUs[g] that of all. LowestPairGroups
	// takes a node's total and its groups of least total from them, where it summed and compared
	// each group's.
	grandOf    []int32
	grandNode  []int32
	grandSum   [topology.MaxCPUs / 2]int32
	grandLeast [topology.MaxCPUs / 2]int32
	grandTied  [topology.MaxCPUs / 2]uint64
	grandCPUs  [topology.MaxCPUs / 2]int32
	grpGrand   [topology.MaxCPUs]uint16
	grpPos     [topology.MaxCPUs]uint8
	grpBefore  [topology.MaxCPUs]int32
	// acc and cand are scratch masks of the searches (only the words of the group searched are
	// written and read), kept here so that no search clears a whole mask.
	acc, cand cpuBits
	// pairs and groups are LowestPairGroups' scratch records (a group's nodes' acceptable CPUs,
	// and the groups), as many as the machine has nodes (made when the pair totals are kept).
	pairs  []uint64
	groups []pairGroup
}

// bigLoad is the load from which a CPU has no level and counts in big. A machine of 100,000
// threads on 1024 CPUs holds about a hundred on each; the levels then cost 32 KiB, the pair
// levels 64 KiB, and the searches find the least load among them by binary search.
const bigLoad = 256

// minPairCPUs is the number of CPUs a group of SMT pairs needs for the pair totals to be kept
// (measured on bench/sim's mixed load of 64 CPUs in pairs).
const minPairCPUs = 16

// New returns the index of machine top, whose CPUs' CPULoads are loads, all zero: the CPUs'
// owner then records every change it makes (starting with each CPU's LowPri). minCPUs is the
// size of leaf from which the priority planes pay (see Index); loads must outlive the index.
func New(top *topology.Topology, loads *[topology.MaxCPUs]CPULoad, minCPUs int) *Index {
	ix := &Index{loads: loads, machine: top, minCPUs: minCPUs, all: top.CPUs(), levels: top.NumCPUs() >= minCPUs}
	if !ix.levels {
		return ix
	}
	ix.tree = newSearchTree(top)
	for i := range ix.tree.nodes {
		nd := &ix.tree.nodes[i]
		ix.priOn = ix.priOn || (nd.idLo+int32(max(minCPUs, 2)) <= nd.idHi && !nd.thread)
		ix.pairOn = ix.pairOn || bits.OnesCount64(nd.pairBits) >= min(minCPUs, minPairCPUs)
		grp := int32(0)
		if p := ix.tree.parent[i]; p >= 0 && ix.tree.nodes[p].pairKids {
			grp = ix.tree.nodes[p].grp
		}
		for b := nd.pairBits; b != 0; b &= b - 1 {
			ix.home[int(nd.pairWord)<<6|bits.TrailingZeros64(b)] = uint32(nd.sum) | uint32(grp)<<16
		}
	}
	ix.priOn = ix.priOn || ix.pairOn
	if ix.countOn = ix.priOn && ix.tree.nwords > 1; ix.countOn { // every CPU's LowPri starts at zero
		ix.priCount[0], ix.priSeen[0] = uint16(top.NumCPUs()), 1
	}
	if ix.pairOn {
		n := len(ix.tree.nodes)
		ix.pairs, ix.groups = make([]uint64, n), make([]pairGroup, 0, n)
		ix.newTied()
	}
	ix.prunes = ix.tree.ranges
	return ix
}

// wordBit returns the word and bit of CPU c in a cpuBits.
func wordBit(c topology.CPU) (int, uint64) {
	return int(c>>6) & (topology.SetWords - 1), 1 << (c & 63)
}

// Planes reports whether the priority planes are kept: only then need SetLowPri be called.
func (ix *Index) Planes() bool { return ix.priOn }

// SetLowPri records that CPU c's LowPri changed from old to pri: c's bit flips in each plane
// where old and pri differ. Nothing is written when they are equal; otherwise the eight planes
// are written whether or not they change, each with a mask of its bit of old^pri: a loop over
// the differing bits alone ran a number of times that varied from call to call, and its end was
// mispredicted about one time in five.
func (ix *Index) SetLowPri(c topology.CPU, old, pri uint8) {
	if ix.priOn && old != pri {
		ix.setSlotLowPri(&Slot{CPULoad: &CPULoad{LowPri: old}, cpu: c}, pri)
	}
}

// setSlotLowPri is SetLowPri for the CPU of Slot s, whose LowPri changes to pri, a different
// value, on a machine whose planes are kept. It is not inlined, so that the Slot's setter, which
// tests both conditions first, is: an unchanged LowPri costs the setter no call. The count of the
// old value goes down and that of the new one up, and priSeen follows them.
//
//go:noinline
func (ix *Index) setSlotLowPri(s *Slot, pri uint8) {
	w, at := int(s.cpu>>6)&(topology.SetWords-1), s.cpu&63
	old := s.LowPri
	if ix.countOn {
		ix.priCount[old]--
		if ix.priCount[old] == 0 {
			ix.priSeen[old>>6] &^= 1 << (old & 63)
		}
		ix.priCount[pri]++
		ix.priSeen[pri>>6] |= 1 << (pri & 63)
	}
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

// Levels reports whether the load levels are kept: only then need LoadUp and LoadDown be
// called.
func (ix *Index) Levels() bool { return ix.levels }

// LoadUp records that CPU c's load went up by one, to loads[c].Load. It is not inlined, which
// keeps the owner's tdq_load_add, whose call it is, small enough to be.
//
//go:noinline
func (ix *Index) LoadUp(c topology.CPU) {
	if !ix.levels {
		return
	}
	l := ix.loads[c&(topology.MaxCPUs-1)].Load
	if l >= bigLoad {
		if l == bigLoad {
			ix.big++
		}
	} else {
		w, bit := wordBit(c)
		ix.loaded[l&(bigLoad-1)][w] |= bit
		ix.top = max(ix.top, l)
	}
	if ix.pairOn {
		ix.pairAdd(c, 1)
		if ix.tiedOn { // after the levels, which it reads
			ix.tiedAdd(c, 1)
		}
	}
}

// LoadDown records that CPU c's load is about to go down by one, from loads[c].Load (positive).
//
//go:noinline
func (ix *Index) LoadDown(c topology.CPU) {
	if !ix.levels {
		return
	}
	old := ix.loads[c&(topology.MaxCPUs-1)].Load
	if old >= bigLoad {
		if old == bigLoad {
			ix.big--
		}
	} else {
		w, bit := wordBit(c)
		ix.loaded[old&(bigLoad-1)][w] &^= bit
	}
	if ix.pairOn {
		ix.pairAdd(c, -1)
		if ix.tiedOn { // after the levels, which it reads
			ix.tiedAdd(c, -1)
		}
	}
}

// pairAdd records that the load of CPU c, and so the total of its pair (c&^1, c|1), of the
// group of pairs that holds it and of that group's parent, went up (d = 1) or down (d = -1) by one: one level gains or
// loses the pair.
func (ix *Index) pairAdd(c topology.CPU, d int32) {
	i := c >> 1 & (topology.MaxCPUs/2 - 1)
	h := ix.home[c&(topology.MaxCPUs-1)]
	ix.nodeSum[h&(topology.MaxCPUs-1)] += d
	ix.grpSum[h>>16&(topology.MaxCPUs-1)] += d
	old := ix.pairSum[i]
	ix.pairSum[i] = old + d
	if l := max(old, old+d); l < 2*bigLoad {
		ix.pairLevel[l][i>>5] ^= 1 << (c & 62)
	}
}

// SetXfer records that CPU c's Transferable became non-zero (any) or zero.
func (ix *Index) SetXfer(c topology.CPU, any bool) {
	w, bit := wordBit(c)
	if any {
		ix.xfer[w] |= bit
		ix.xferCPUs++
	} else {
		ix.xfer[w] &^= bit
		ix.xferCPUs--
	}
}

// Transferable returns the number of CPUs with a transferable thread. While it is zero, no steal
// search (cpu_search_highest with a transferable thread required) can find a CPU, and none
// draws a random number.
func (ix *Index) Transferable() int { return int(ix.xferCPUs) }

// worse returns the CPUs of word w whose LowPri is worse (greater) than pri: the test
// cpu_search_lowest makes of each CPU (tdq_lowpri > cs_pri), for 64 CPUs. With pri < 0 every
// CPU is, with pri > 255 none.
//
// It compares from the lowest bit plane up, keeping in gt the CPUs whose bits so far (k and
// below) make a greater number than pri's: a CPU with bits 0..k is greater than pri's bits 0..k
// when its bit k is greater, or equal and its lower bits greater. Where pri's bit k is 1 the
// CPU's cannot be greater and must be 1 (gt &= plane); where it is 0 a CPU with a 1 is greater
// and one with a 0 is as before (gt |= plane). So each plane costs one operation.
func (ix *Index) worse(w int, pri int32) uint64 {
	if uint32(pri) > 255 {
		if pri < 0 {
			return ^uint64(0)
		}
		return 0
	}
	w &= topology.SetWords - 1
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

// noneWorse reports whether no CPU of the machine has a LowPri worse (greater) than pri, so
// that cpu_search_lowest with cs_pri pri accepts none of them (but the preferred CPU of a thread
// running there) and draws nothing. With pri < 0 it reports false, with pri > 255 true. The
// counts must be kept (countOn).
func (ix *Index) noneWorse(pri int32) bool {
	if uint32(pri) > 255 {
		return pri > 255
	}
	s := &ix.priSeen
	w := pri >> 6
	above := s[w&3] >> (pri & 63) >> 1 // the values above pri in its word
	for w++; w < 4; w++ {
		above |= s[w&3]
	}
	return above == 0
}

// leastLoad returns the least load among the CPUs of set (in word w, at least one), knowing it
// is at most hi: the least m such that some of them lacks level m+1. The levels are nested
// (level k+1 within level k), so "some lacks level m+1" holds from the least load on, and a
// binary search finds where.
func (ix *Index) leastLoad(set uint64, w int, hi int32) int32 {
	return leastLevel(set, ix.loaded[:], w, hi)
}

// leastPairTotal is leastLoad for the pairs of set (at their even bits) and the pair levels.
func (ix *Index) leastPairTotal(set uint64, w int, hi int32) int32 {
	return leastLevel(set, ix.pairLevel[:], w, hi)
}

// leastLevel is leastLoad over levels, whose number is a power of two. Level 1 is tried first:
// most searches find an idle CPU (load 0), which the binary search reached only after log2(hi)
// steps, hi being a high-water mark.
func leastLevel(set uint64, levels []cpuBits, w int, hi int32) int32 {
	if hi == 0 || set&^levels[1][w&(topology.SetWords-1)] != 0 {
		return 0
	}
	lo := int32(1)
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		if set&^levels[int(mid+1)&(len(levels)-1)][w&(topology.SetWords-1)] != 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// leastLevelNear is leastLevel from a guess g of the answer: it tests g, and while the answer is
// at most the last level tested, the levels 1, 2, 4, ... below it, and ends with a binary search
// between the last two levels tested (above g when the answer is). When the guess is the answer
// or close below it, that is two to four tests where the binary search over 1..hi makes log2(hi).
func leastLevelNear(set uint64, levels []cpuBits, w int, hi, g int32) int32 {
	w &= topology.SetWords - 1
	top := int32(len(levels) - 1)
	lo := int32(0)
	if g = min(max(g, 0), hi); set&^levels[(g+1)&top][w] == 0 {
		lo = g + 1
	} else {
		hi = g
		for step := int32(1); hi >= step; step <<= 1 {
			if set&^levels[(hi-step+1)&top][w] == 0 {
				lo = hi - step + 1
				break
			}
			hi -= step
		}
	}
	for lo < hi {
		mid := int32(uint32(lo+hi) >> 1)
		if set&^levels[(mid+1)&top][w] != 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// levelIs reports whether leastLevel's answer for set is g (g >= 1): some CPU of set lacks level
// g+1 and all have level g (the levels are nested). It is inlined, so that a caller whose guess
// is the answer, as it mostly is on an even load, pays two tests and no call of leastLevelNear.
func levelIs(set uint64, levels []cpuBits, w int, g int32) bool {
	top, w := int32(len(levels)-1), w&(topology.SetWords-1)
	return set&^levels[(g+1)&top][w] != 0 && set&^levels[g&top][w] == 0
}

// atLeast returns the CPUs of word w whose load is at least min. ix.big must be zero.
func (ix *Index) atLeast(w int, min int32) uint64 {
	switch {
	case min <= 0:
		return ^uint64(0)
	case min >= bigLoad:
		return 0
	}
	return ix.loaded[min][w&(topology.SetWords-1)]
}

// record records every CPU's load as its owner would have, change by change from zero (stepping
// each load up from zero in loads itself, and back).
func (ix *Index) record() {
	for c := range ix.all.All() {
		ld := &ix.loads[c]
		ix.SetLowPri(c, 0, ld.LowPri)
		load := ld.Load // stepped up from zero, as LoadUp reads it
		for ld.Load = 1; ld.Load <= load; ld.Load++ {
			ix.LoadUp(c)
		}
		ld.Load = load
		if ld.Transferable != 0 {
			ix.SetXfer(c, true)
		}
	}
}

// Check returns an error if ix does not record the loads it was made over (its invariant): the
// tests of ix's owner call it after every change. It rebuilds the index from the loads, at a cost
// of O(CPUs * load).
func (ix *Index) Check() error {
	want := New(ix.machine, ix.loads, ix.minCPUs)
	want.record()
	if ix.pri != want.pri || ix.priCount != want.priCount || ix.priSeen != want.priSeen || ix.loaded != want.loaded || ix.top < want.top || ix.xfer != want.xfer ||
		ix.xferCPUs != want.xferCPUs || ix.big != want.big ||
		ix.pairLevel != want.pairLevel || ix.pairSum != want.pairSum || ix.nodeSum != want.nodeSum || ix.grpSum != want.grpSum {
		return fmt.Errorf("loadindex: internal error: the index does not record the loads: top %d big %d xfer CPUs %d, want %d (at least) %d %d",
			ix.top, ix.big, ix.xferCPUs, want.top, want.big, want.xferCPUs)
	}
	return ix.checkTied()
}
