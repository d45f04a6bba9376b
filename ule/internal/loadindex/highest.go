// This file implements the fast forms of cpu_search_highest: the candidates a search can choose
// taken from the index (highestPruned), and a node whose children are all leaves walked as one array
// (HighestFused).

package loadindex

import (
	"math"
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

// maxPruned is the most candidates highestPruned looks at one by one to find the group that holds them
// all; with more, the search runs in full from the group it was asked about.
const maxPruned = 8

// highestPruned is sched_highest(n, mask, minLoad, minTrans) answered from the candidates where it
// can be. The CPUs the search accepts — load at least minLoad, at least minTrans transferable
// threads, in the mask — are its candidates; a group without one is never chosen and draws
// nothing, so:
//
//   - with no candidate under n, it is done: -1, no draw;
//   - with all of them in one leaf (n itself, or with at most maxPruned candidates one leaf
//     below it), it is done: that leaf's choice (highestLeafIx), with the draws the kernel's
//     loop makes there;
//   - otherwise, with a few of them, the kernel's search from n chooses what its search from the
//     lowest group holding them all chooses, with the same draws (every other child on the way
//     holds no candidate), and highestPruned returns that group with done false; with more, or when
//     the index cannot list them (the levels are not kept, a load of bigLoad or more, minTrans
//     above 1), it returns n.
//
// When it is done it has moved *x as the kernel's search would; otherwise it has changed nothing
// and the caller runs the kernel's search from the group returned. While no CPU has a
// transferable thread, a search with minTrans >= 1 is done at once.
func (ix *Index) highestPruned(n int, mask *topology.CPUSet, minLoad, minTrans int32, x *uint32) (cpu int32, from int, done bool) {
	switch {
	case minTrans >= 1 && ix.xferCPUs == 0:
		return -1, n, true
	case !ix.prunes || ix.big != 0 || minTrans > 1:
		return -1, n, false
	}
	t := &ix.tree
	nd := &t.nodes[n]
	cand := &ix.acc
	k := 0
	if nd.kidHi == nd.kidLo {
		// A leaf: its candidates, which highestLeafIx draws for.
		for _, mw := range t.words[nd.wordLo:nd.wordHi] {
			i := int(mw.w) & (topology.SetWords - 1)
			c := ix.candidates(i, mask, minLoad, minTrans) & mw.bits
			cand[i] = c
			k += bits.OnesCount64(c)
		}
		if k == 0 {
			return -1, n, true
		}
		return t.highestLeafIx(nd, x, ix, cand), n, true
	}
	for w := nd.wlo; w <= nd.whi; w++ {
		i := int(w) & (topology.SetWords - 1)
		c := ix.candidates(i, mask, minLoad, minTrans) & ix.all.Word(i)
		cand[i] = c
		k += bits.OnesCount64(c)
	}
	switch {
	case k == 0:
		return -1, n, true
	case k > maxPruned:
		return -1, n, false
	}
	// The leaves holding the candidates: in preorder, the group holding the first and the last
	// holds every one between them.
	lo, hi := int32(math.MaxInt32), int32(-1)
	for w := nd.wlo; w <= nd.whi; w++ {
		for c := cand[w&(topology.SetWords-1)]; c != 0; c &= c - 1 {
			cpu := topology.CPU(w<<6 | int32(bits.TrailingZeros64(c)))
			if t.holds(int32(n), cpu) {
				lo, hi = min(lo, t.leafOf[cpu]), max(hi, t.leafOf[cpu])
			}
		}
	}
	switch {
	case hi < 0:
		return -1, n, true
	case lo == hi:
		return t.highestLeafIx(&t.nodes[lo], x, ix, cand), n, true
	}
	a := lo
	for !t.holds(a, t.cpus[t.nodes[hi].cpuLo]) {
		a = t.parent[a]
	}
	return -1, int(a), false
}

// candidates returns the CPUs of word w the highest search accepts, whatever their group: load at
// least minLoad, a transferable thread if minTrans is 1, in mask.
func (ix *Index) candidates(w int, mask *topology.CPUSet, minLoad, minTrans int32) uint64 {
	c := ix.atLeast(w, minLoad) & mask.Word(w)
	if minTrans >= 1 {
		c &= ix.xfer[w&(topology.SetWords-1)]
	}
	return c
}

// HighestFused is cpu_search_highest on group n, whose children are all leaves (Fused): it
// returns the group's total load, the chosen CPU (-1 if none) with its randomised load, and
// leaves the generator state *x where the kernel's loops leave it. The leaf loop and the child
// loop are one walk over the node's array.
func (ix *Index) HighestFused(n int, mask *topology.CPUSet, minLoad, minTrans int32, x *uint32) (total, cpu, cpuLoad int32) {
	t := &ix.tree
	nd := &t.nodes[n]
	loads := ix.loads
	xs := *x // sched_random's state, kept in a register for the loop
	// The best child so far lives in memory (it changes once per child), which leaves the
	// registers to the per-CPU loop.
	best := struct{ total, load, cpu, cpuLoad int32 }{0, math.MinInt32, -1, 0}
	ltotal, lbest, lcpu := int32(0), int32(math.MinInt32), int32(-1)
	for _, f := range t.flat[nd.flatLo:nd.flatHi] {
		c := f & (topology.MaxCPUs - 1)
		ld := &loads[c]
		l := ld.Load
		ltotal += l << 8
		if l >= minLoad && ld.Transferable >= minTrans && mask.Has(topology.CPU(c)) {
			xs = xs*69069 + 5
			if load := l<<8 - int32((xs>>16)&255); load > lbest {
				lbest, lcpu = load, int32(c)
			}
		}
		if f&flatEnd == 0 {
			continue
		}
		b := &best
		b.total += ltotal
		if lcpu >= 0 && (ltotal > b.load || (ltotal == b.load && lbest > b.cpuLoad)) {
			b.load, b.cpu, b.cpuLoad = ltotal, lcpu, lbest
		}
		ltotal, lbest, lcpu = 0, math.MinInt32, -1
	}
	*x = xs
	return best.total, best.cpu, best.cpuLoad
}

// highestLeafIx is the kernel's leaf loop of cpu_search_highest when the CPUs it accepts are
// those of cand in leaf nd (at least one), reading the load levels (ix.big must be zero). As in
// LowestRun, the loop draws once per accepted CPU, from the highest id down, so the generator
// ends drawJump[k] on; a CPU compares load*256 - r with r = (x_j>>16)%256 < 256, so only the
// accepted CPUs of the greatest load can win, the first visited with the least r (the comparison
// is strict), and the search stops at r = 0. The complexity is O(words of the leaf) per load
// level walked plus O(CPUs of greatest load) draws.
func (t *searchTree) highestLeafIx(nd *searchNode, x *uint32, ix *Index, cand *cpuBits) int32 {
	const wmask = topology.SetWords - 1
	words := t.words[nd.wordLo:nd.wordHi]
	if len(words) == 1 {
		return ix.highestWordIx(words[0], x, cand)
	}
	top := &ix.cand // the accepted CPUs of greatest load, narrowed level by level
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
	x0 := *x
	*x = jump(x0, k)
	best, cpu := int32(256), int32(-1)
	above := 0 // accepted CPUs in the words after i
	for i := len(words) - 1; i >= 0; i-- {
		mw := words[i]
		aw := cand[mw.w&wmask] & mw.bits
		for cw := top[mw.w&wmask]; cw != 0; {
			b := 63 - bits.LeadingZeros64(cw)
			cw &^= 1 << b
			if r := int32(jump(x0, above+bits.OnesCount64(aw>>b)) >> 16 & 255); r < best {
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

// highestWordIx is highestLeafIx for a leaf whose CPUs all lie in one mask word (mw): the
// greatest load M among the accepted CPUs by a binary search of the levels (they are nested, so
// "some reach level l" holds up to M; top, a high-water mark, can be far above it), and the draws
// of those of load M by drawJumps with cpu_search_highest's comparison.
func (ix *Index) highestWordIx(mw maskWord, x *uint32, cand *cpuBits) int32 {
	w := int(mw.w) & (topology.SetWords - 1)
	acc := cand[w] & mw.bits
	x0 := *x
	*x = jump(x0, bits.OnesCount64(acc))
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

// A Candidates lists, when there are few, the CPUs a steal search can choose: those with load at
// least the steal threshold and a transferable thread. A group that holds none of them makes
// cpu_search_highest find nothing and draw nothing, so a climb through the groups
// (tdq_idled) need not search it. Unlisted, every group may hold one.
type Candidates struct {
	n        int
	cpu      [maxPruned]topology.CPU
	unlisted bool
}

// StealCandidates returns the CPUs with load at least minLoad and a transferable thread, listed
// when the index can list them, there are at most maxPruned of them and the machine has more
// than one group (with one, the climb searches it once); unlisted otherwise, and from a nil
// Index. While no CPU has a transferable thread it answers at once (none), on every machine:
// the climb then searches no group (each search would find nothing and draw nothing), which
// spares the searches of the one group of a flat machine. The complexity is O(CPUs/64).
func (ix *Index) StealCandidates(minLoad int32) Candidates {
	unlisted := Candidates{unlisted: true}
	var cs Candidates
	switch {
	case ix == nil:
		return unlisted
	case ix.xferCPUs == 0:
		return cs
	case len(ix.machine.AllGroups()) == 1 || !ix.levels || ix.big != 0:
		return unlisted
	}
	for w := range ix.tree.nwords {
		for c := ix.atLeast(w, minLoad) & ix.xfer[w&(topology.SetWords-1)] & ix.all.Word(w); c != 0; c &= c - 1 {
			if cs.n == len(cs.cpu) {
				return unlisted
			}
			cs.cpu[cs.n] = topology.CPU(w<<6 | bits.TrailingZeros64(c))
			cs.n++
		}
	}
	return cs
}

// In reports whether group g holds one of the candidates, or may (unlisted).
func (cs *Candidates) In(g *topology.Group) bool {
	if cs.unlisted {
		return true
	}
	for _, c := range cs.cpu[:cs.n] {
		if g.Has(c) {
			return true
		}
	}
	return false
}

// Drop removes c from the candidates (a victim refused).
func (cs *Candidates) Drop(c topology.CPU) {
	for i, x := range cs.cpu[:cs.n] {
		if x == c {
			cs.n--
			cs.cpu[i] = cs.cpu[cs.n]
			return
		}
	}
}
