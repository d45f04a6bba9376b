// This file implements cpu_search_lowest on a group of groups of SMT pairs, and on a group of
// those (a machine's packages of last-level caches, and the machine): LowestPairGroups, in two
// passes, the totals first and the draws only where they decide.

package loadindex

import (
	"math"
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

// A pairGroup is a group of nodes of SMT pairs that LowestPairGroups searches (a child of the
// group searched, or that group itself), in visiting order: its nodes are
// searchTree.refs[ref:ref+n]; k is the number of acceptable CPUs in the groups visited before
// it; total is its total; any says some CPU of it is acceptable, pref that it holds the
// preferred CPU.
type pairGroup struct {
	ref, n, k, total int32
	any, pref        bool
}

// LowestPairGroups is cpu_search_lowest on group n when its children are all groups of SMT pairs
// the index searches (lowestPairsIx; a package's last-level caches of SMT cores), or when its
// children are all such groups of groups (a machine of such packages), over a mask holding all
// its CPUs (full: every CPU of the machine) and without a load limit. It returns what the
// kernel's recursion returns, leaves the generator where it does, and true; or false, having
// changed nothing, when the index does not answer (n is not such a group, the mask lacks CPUs,
// there is a load limit, or a CPU's load reaches bigLoad).
//
// A node of pairKids is searched by the kernel's loop over its children, each in the index
// (lowestPairsIx) with the best total so far as its bound. A node of pairGrand (a machine of
// packages) is searched in two passes. The kernel's loops keep, at each level, the first child
// in visiting order of least (total, randomised load of the CPU it chose), comparing strictly; a
// group of groups takes its child with the least total and, among those, the least randomised
// load, which is that of the CPU its own best child chose. So the CPU chosen is, among the nodes
// of SMT pairs with an acceptable CPU and the least total of their group, in the groups with an
// acceptable CPU and the least total, the first in visiting order whose chosen CPU has the least
// randomised load. The first pass (pairTotals) takes every group's total and acceptable CPUs, a
// word of priority planes per 64 CPUs and a sum per node, and moves the generator over every
// draw; the second (pairWinner) visits only the nodes that can hold the winner, each from its
// own place in the stream of draws. A node's chosen CPU other than the preferred one has load m
// and randomised load m*256 - r, r < 128: a node whose m*256 - 127 is not below the best so far
// cannot win and draws nothing. The node holding the preferred CPU is searched whole
// (lowestPairsIx). Where the kernel's bounded search of each child searched every node whose
// total was at most the best so far (21 of 64 a global search on BenchmarkHuge's machine of 1024
// CPUs), the second pass visits some 14.
//
// With pri < 0 every CPU of the node is acceptable (the mask holds them all and there is no
// load limit), and a node of pairGrand takes the same two passes without the priority planes
// (pairTotalsAll, pairWinnerAll): the acceptable CPUs before each node are counted once, when
// the tree is made, and the node's total, the least total of its groups and which groups have
// it, and in each group the least total of its nodes and which nodes have it, are kept in the
// index (grandSum, grandLeast, grandTied, grpLeast, grpTied; when no node has more than 64
// children, tiedOn, else the node takes the two passes with the planes).
func (ix *Index) LowestPairGroups(n int, mask *topology.CPUSet, full bool, pri, maxLoad, prefer int32, running bool, x *uint32) (total, cpu, cpuLoad int32, ok bool) {
	t := &ix.tree
	if !ix.levels || !ix.pairOn || ix.big != 0 || maxLoad != math.MaxInt32 {
		return 0, -1, 0, false
	}
	nd := &t.nodes[n]
	if !(nd.pairKids || nd.pairGrand) || !(full || nd.fullLo < nd.fullHi && mask.WordsFull(int(nd.fullLo), int(nd.fullHi)) ||
		nd.fullLo == nd.fullHi && t.holdsAll(nd, mask)) {
		return 0, -1, 0, false
	}
	s := lowestArgs{loads: ix.loads, mask: mask, pri: pri, maxLoad: maxLoad, prefer: prefer, running: running, x: x, all: true, bound: math.MaxInt32}
	if nd.pairGrand && pri < 0 && ix.tiedOn { // every CPU acceptable (sched_pickcpu's last search)
		x0 := *x
		total, tied := ix.pairTotalsAll(n, &s)
		cpu, cpuLoad = ix.pairWinnerAll(t.kids[nd.kidLo:nd.kidHi], &s, x0, tied)
		return total, cpu, cpuLoad, true
	}
	if nd.pairGrand {
		x0 := *x
		total, least := ix.pairTotals(t.kids[nd.kidLo:nd.kidHi], &s)
		if least == math.MaxInt32 {
			return total, -1, 0, true // no acceptable CPU
		}
		cpu, cpuLoad = ix.pairWinner(&s, x0, least)
		return total, cpu, cpuLoad, true
	}
	// A node of pairKids: the kernel's loop over its children, from the last to the first,
	// taking a child whose total is below the best so far, or equal with a lower randomised
	// load, each child searched in the index (lowestPairsIx) with that best as its bound. With a
	// few children (a machine of 64 CPUs in two caches) this costs less than the two passes.
	bload := int32(math.MaxInt32)
	cpu = -1
	kids := t.kids[nd.kidLo:nd.kidHi]
	for i := len(kids) - 1; i >= 0; i-- {
		s.bound = bload
		load, lcpu, lload := t.lowestPairsIx(&t.nodes[kids[i]], &s, ix)
		total += load
		if lcpu >= 0 && (load < bload || (load == bload && lload < cpuLoad)) {
			bload, cpu, cpuLoad = load, lcpu, lload
		}
	}
	return total, cpu, cpuLoad, true
}

// pairTotals is LowestPairGroups' first pass over groups (visited from the last to the first):
// it records each group in ix.groups, counting its acceptable CPUs a mask word at a time, moves
// the generator over every draw, and returns the total of the groups and the least total of a
// group with an acceptable CPU (math.MaxInt32 if none has one).
func (ix *Index) pairTotals(groups []int32, s *lowestArgs) (total, least int32) {
	t := &ix.tree
	gs, k := ix.groups[:0], int32(0)
	pw, pbit := prefWord(s.prefer)
	least = math.MaxInt32
	for i := len(groups) - 1; i >= 0; i-- {
		g := &t.nodes[groups[i]]
		pg := pairGroup{ref: g.refLo, n: g.refHi - g.refLo, k: k}
		any, gk := uint64(0), 0
		for _, mw := range t.words[g.wordLo:g.wordHi] {
			acc := ix.worse(int(mw.w), s.pri) & mw.bits
			if mw.w == pw && mw.bits&pbit != 0 {
				pg.pref = true
				if s.running {
					acc |= pbit // its priority is not compared when the thread runs there
				}
			}
			any |= acc
			gk += bits.OnesCount64(acc)
		}
		pg.total = ix.grpSum[min(g.grp, topology.MaxCPUs/2)] << 8 // its nodes' totals, kept
		if pg.pref {                                              // the preferred CPU's node, as lowestPairsIx makes it
			pg.total -= 128
			if s.running {
				pg.total -= 256
			}
		}
		pg.any = any != 0
		gs = append(gs, pg)
		k += int32(gk)
		total += pg.total
		if pg.any {
			least = min(least, pg.total)
		}
	}
	*s.x = jump(*s.x, int(k))
	ix.groups = gs
	return total, least
}

// prefWord returns the mask word and bit of the preferred CPU p (-1 and 0 if p is no CPU).
func prefWord(p int32) (int32, uint64) {
	if uint32(p) >= topology.MaxCPUs {
		return -1, 0
	}
	return p >> 6, 1 << (p & 63)
}

// pairWinner is LowestPairGroups' second pass, from the generator's state x0 before the search:
// of the groups of total least, the nodes with an acceptable CPU and their group's least total
// can hold the winner; it visits them in order, each with its own draws: the node of the
// preferred CPU searched whole, any other by its candidates (pairDraw), and returns the first of
// least randomised load, with that load. (A node holding the preferred CPU has a total of 128
// modulo 256 and the others 0: when it can hold the winner, it is the only one.)
func (ix *Index) pairWinner(s *lowestArgs, x0 uint32, least int32) (cpu, cpuLoad int32) {
	t := &ix.tree
	cpu, cpuLoad = -1, math.MaxInt32
	pass := &noCPUs // the CPUs whose load cannot beat cpuLoad (passLevel)
	for _, g := range ix.groups {
		if !g.any || g.total != least {
			continue
		}
		refs := t.refs[g.ref : g.ref+g.n]
		es := ix.pairs[:len(refs)]
		lt, pj, prefLeast := ix.pairAccs(refs, es, s, g.pref)
		k := g.k
		for j := range refs {
			ref := &refs[j]
			acc := es[j]
			x := jump(x0, int(k))
			k += int32(bits.OnesCount64(acc))
			if acc == 0 || prefLeast != (j == pj) || (!prefLeast && int64(ix.nodeSum[min(ref.sum, topology.MaxCPUs/2)]) != lt) {
				continue
			}
			c, l := int32(-1), int32(math.MaxInt32)
			if prefLeast { // the preferred CPU's node, searched whole from its own draws
				ps := *s
				ps.x = &x
				_, c, l = t.lowestPairsIx(&t.nodes[ref.node], &ps, ix)
			} else if acc&^pass[ref.word&(topology.SetWords-1)] != 0 {
				c, l = ix.pairDraw(ref, acc, x, cpuLoad, int32(lt))
			}
			if l < cpuLoad {
				cpu, cpuLoad = c, l
				pass = ix.passLevel(cpuLoad)
			}
		}
	}
	return cpu, cpuLoad
}

// pairAccs writes into es the acceptable CPUs of each node of refs (a group's, pref saying it
// holds the preferred CPU) and returns the least total of the nodes with one other than the
// preferred CPU's (in threads), the index of the preferred CPU's node (-1 if none), and whether
// that node has an acceptable CPU and a total below the others' (256 per thread less 128, or 384
// when the thread runs there): then it alone can hold the winner.
func (ix *Index) pairAccs(refs []pairRef, es []uint64, s *lowestArgs, pref bool) (lt int64, pj int, prefLeast bool) {
	pw, pbit := prefWord(s.prefer)
	cw, worse := int32(-1), uint64(0)
	lt, pj = math.MaxInt32, -1
	for j := range refs {
		ref := &refs[j]
		if ref.word != cw { // the nodes of a word share its planes' comparison
			cw, worse = ref.word, ix.worse(int(ref.word), s.pri)
		}
		acc := worse & ref.bits
		if pref && ref.word == pw && ref.bits&pbit != 0 {
			pj = j
			if s.running {
				acc |= pbit
			}
		} else if acc != 0 {
			lt = min(lt, int64(ix.nodeSum[min(ref.sum, topology.MaxCPUs/2)]))
		}
		es[j] = acc
	}
	if pj >= 0 && es[pj] != 0 {
		tp := int64(ix.nodeSum[min(refs[pj].sum, topology.MaxCPUs/2)])
		prefLeast = tp <= lt || (s.running && tp == lt+1)
	}
	return lt, pj, prefLeast
}

// pairDraw returns the CPU node ref chooses and its randomised load, the node having the
// acceptable CPUs acc, the total sum (in threads) and the generator's state x before their
// draws, as lowestPairsIx chooses
// it without the preferred CPU: of its pairs of least total, the CPUs of least load m, and of
// those the first with the greatest draw r, at m*256 - r. When that load cannot be below best
// (m*256 - 127 >= best), it draws nothing and returns -1 and math.MaxInt32. Its callers pass
// over a node none of whose acceptable CPUs is loaded little enough for that (passLevel) without
// calling it: once a draw of 127 has been taken at load m, the nodes after it that tie at m go
// that way, by one mask test.
func (ix *Index) pairDraw(ref *pairRef, acc uint64, x uint32, best, sum int32) (cpu, cpuLoad int32) {
	const even = 0x5555555555555555
	w := int(ref.word) & (topology.SetWords - 1)
	pairs := (acc | acc>>1) & even
	// The least pair total is at most the node's mean when every pair is acceptable, and close
	// below it on an even load; the least load of those pairs' CPUs, at most half their total.
	mean := pairMean(sum, ref.perPair)
	tot, hi := mean, min(2*ix.top, 2*bigLoad-2)
	if !(tot >= 1 && tot <= hi && levelIs(pairs, ix.pairLevel[:], w, tot)) { // the guess tested inline
		tot = leastLevelNear(pairs, ix.pairLevel[:], w, hi, mean)
	}
	pairs &^= ix.pairLevel[(tot+1)&(2*bigLoad-1)][w]
	cand := acc & (pairs | pairs<<1)
	m, hi := int32(uint32(tot)>>1), min(ix.top, tot) // tot/2, tot being at least 0
	if !(m >= 1 && m <= hi && levelIs(cand, ix.loaded[:], w, m)) {
		m = leastLevelNear(cand, ix.loaded[:], w, hi, m)
	}
	if m<<8-127 >= best {
		return -1, math.MaxInt32
	}
	cand &^= ix.loaded[(m+1)&(bigLoad-1)][w]
	if acc == ref.bits { // every CPU of the node acceptable: one run of bits
		b, r := drawSpan(63-bits.LeadingZeros64(acc), cand, x)
		return ref.word<<6 + b, m<<8 - r
	}
	b := drawJumps(acc, cand, x, 0, 127)
	r := int32(jump(x, bits.OnesCount64(acc>>b)) >> 16 & 127)
	return ref.word<<6 + b, m<<8 - r
}

// pairTotalsAll is pairTotals when every CPU of node n's groups is acceptable (pri < 0, the mask
// holding them all), from what the index keeps: the node's total (grandSum) and its groups of
// least total (grandTied, grandLeast), the group of the preferred CPU counting 128 less, and 256
// less again when the thread runs there, as lowestPairsIx makes its nodes' totals. It moves the
// generator over every draw and returns the total of the groups and the groups of least total
// (bit i for the i-th child): the preferred CPU's group alone when it is one of them, its total
// then being below the others'.
func (ix *Index) pairTotalsAll(n int, s *lowestArgs) (total int32, tied uint64) {
	g := ix.grandOf[n] & (topology.MaxCPUs/2 - 1)
	total, tied = ix.grandSum[g]<<8, ix.grandTied[g]
	*s.x = jump(*s.x, int(ix.grandCPUs[g]))
	if uint32(s.prefer) >= topology.MaxCPUs {
		return total, tied
	}
	if j := ix.home[s.prefer] >> 16 & (topology.MaxCPUs - 1); j != 0 && int32(ix.grpGrand[j]) == g {
		total -= 128
		if s.running {
			total -= 256
		}
		if v, least := ix.grpSum[j], ix.grandLeast[g]; v == least || (s.running && v == least+1) {
			tied = 1 << (ix.grpPos[j] & 63)
		}
	}
	return total, tied
}

// homeSum returns the index of the preferred CPU p's node's total in Index.nodeSum (-1 if p is
// no CPU or its node has none).
func (ix *Index) homeSum(p int32) int32 {
	if uint32(p) >= topology.MaxCPUs {
		return -1
	}
	return int32(ix.home[p] & 0xffff)
}

// pairWinnerAll is pairWinner when every CPU of the groups is acceptable, over the groups of
// least total that pairTotalsAll found (tied, bit i for groups[i]), visited from the last to the
// first. In such a group, with lt the least total of its nodes (kept in the index, grpLeast),
// the preferred CPU's node (total tp) alone can hold the winner when tp is lt, or when the
// thread runs there and tp is lt+1 (pairAccs' test, lt being the least of the other nodes'
// totals whenever tp is above it); otherwise the nodes of total lt (kept too, grpTied) can,
// each by its candidates (drawNodes, as pairDraw), but for those none of whose CPUs is loaded
// little enough to beat the best so far (passLevel), some 4.9 of 13.7 a search, passed over by
// one mask test.
func (ix *Index) pairWinnerAll(groups []int32, s *lowestArgs, x0 uint32, tied uint64) (cpu, cpuLoad int32) {
	t := &ix.tree
	cpu, cpuLoad = -1, math.MaxInt32
	pass := &noCPUs // the CPUs whose load cannot beat cpuLoad (passLevel)
	home := ix.homeSum(s.prefer)
	for tied != 0 {
		i := 63 - bits.LeadingZeros64(tied)
		tied &^= 1 << i
		g := &t.nodes[groups[i]]
		refs := t.refs[g.refLo:g.refHi]
		j := g.grp & (topology.MaxCPUs - 1)
		gk := ix.grpBefore[j] // the CPUs of the groups before g
		lt := ix.grpLeast[j]  // the least total of its nodes, and those at it, kept (tiedAdd)
		if home >= g.sumLo && home < g.sumHi {
			pj := int(home - g.sumLo)
			if tp := ix.nodeSum[home&(topology.MaxCPUs-1)]; tp == lt || (s.running && tp == lt+1) {
				ps := *s
				x := jump(x0, int(gk)+int(refs[pj].before))
				ps.x = &x
				_, c, l := t.lowestPairsIx(&t.nodes[refs[pj].node], &ps, ix)
				if l < cpuLoad {
					cpu, cpuLoad = c, l
					pass = ix.passLevel(cpuLoad)
				}
				continue
			}
		}
		cpu, cpuLoad, pass = ix.drawNodes(refs, ix.grpTied[j], jump(x0, int(gk)), cpu, cpuLoad, pass)
	}
	return cpu, cpuLoad
}

// drawNodes is pairWinnerAll's loop over a group's nodes of least total (refs, every CPU
// acceptable, tied having bit j for refs[j] of that total, x the generator's state before the
// group's draws), in visiting order: each not passed over (passLevel) draws as pairDraw draws
// for a node whose CPUs are all acceptable, in this one frame, its least pair total and the
// pairs at it read from the index (nodeLeast, nodeTied) where pairDraw finds them from a guess,
// and the best (cpu, cpuLoad) and its pass level are kept as it goes. (With a call of pairDraw
// per node, the call and the registers saved around it cost some 30 instructions a node
// drawn.)
func (ix *Index) drawNodes(refs []pairRef, tied uint64, x uint32, cpu, cpuLoad int32, pass *cpuBits) (int32, int32, *cpuBits) {
	for ; tied != 0; tied &= tied - 1 {
		ref := &refs[bits.TrailingZeros64(tied)]
		w := int(ref.word) & (topology.SetWords - 1)
		acc := ref.bits
		if acc&^pass[w] == 0 {
			continue // passed over: none of its CPUs can beat the best so far
		}
		// Of its pairs of least total, the CPUs of least load, and that load, kept (tiedAdd).
		n := ref.sum & (topology.MaxCPUs - 1)
		m, cand := ix.nodeLoad[n], ix.nodeCand[n]
		if m<<8-127 >= cpuLoad {
			continue
		}
		// drawSpan's draws, in this frame: its call, and the loop's values saved and reloaded
		// around it, cost some 20 instructions a node drawn.
		x0, lz := jump(x, int(ref.before)), bits.LeadingZeros64(acc)
		best := uint32(0)
		c := cand << (lz & 63)
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
		if l := m<<8 - int32(best>>16); l < cpuLoad {
			cpu, cpuLoad = ref.word<<6+int32(best&63)-int32(lz), l
			pass = ix.passLevel(cpuLoad)
		}
	}
	return cpu, cpuLoad, pass
}

// pairRecip returns ceil(2^31 / n) for a node of n pairs (1 <= n <= 32): pairMean divides a total
// by n with it, by a multiply and a shift in place of a division.
func pairRecip(n int) uint32 {
	if n < 1 || n > 32 {
		panic("loadindex: pairRecip of a number of pairs outside 1..32")
	}
	return uint32((1<<31 + uint64(n) - 1) / uint64(n))
}

// pairMean returns sum/n for sum in 0..2^26 (a node's total in threads, each CPU's load below
// bigLoad) and perPair = pairRecip(n): sum*perPair/2^31 is sum/n plus less than sum/2^31, and
// sum/n's fraction is at most 1 - 1/n, so the floor is sum/n's exactly when sum < 2^31/n.
func pairMean(sum int32, perPair uint32) int32 {
	return int32(uint64(uint32(sum)) * uint64(perPair) >> 31)
}

// passLevel returns the load level a node's CPUs must not all lie in for it to beat a best
// randomised load best, as pairDraw's callers read it: a CPU of load m can win only if
// m*256 - 127 < best, that is if m is at most lim = (best+126)>>8, so the level is lim+1; every
// CPU (everyCPU) when lim < 0, and none (noCPUs) when best is too great for the levels.
func (ix *Index) passLevel(best int32) *cpuBits {
	if best >= (bigLoad-1)<<8-126 {
		return &noCPUs
	}
	lim := (best + 126) >> 8
	if lim < 0 {
		return &everyCPU
	}
	return &ix.loaded[(lim+1)&(bigLoad-1)]
}

// noCPUs and everyCPU are the masks of no CPU and of every CPU, for passLevel.
var noCPUs, everyCPU = cpuBits{}, func() (b cpuBits) {
	for i := range b {
		b[i] = ^uint64(0)
	}
	return b
}()
