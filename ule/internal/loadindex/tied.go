// This file keeps, for each group of nodes of SMT pairs (a package of last-level caches), the
// least total of its nodes and which nodes have it (Index.grpLeast, Index.grpTied), and for each
// of those nodes the least total of its pairs and which pairs have it (Index.nodeLeast,
// Index.nodeTied).

package loadindex

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

// newTied numbers the groups of nodes of SMT pairs for grpLeast and grpTied, and sets tiedOn
// when some node is pairGrand and no group has more than 64 nodes; every total is then zero, so
// each group's least is zero and every one of its nodes has it, and likewise each node's pairs.
func (ix *Index) newTied() {
	t := &ix.tree
	grand, fits, grps := false, true, int32(0)
	for i := range t.nodes {
		grps = max(grps, t.nodes[i].grp)
	}
	ix.grpNode = make([]int32, grps+1)
	for i := range t.nodes {
		nd := &t.nodes[i]
		grand = grand || nd.pairGrand
		if !nd.pairKids {
			continue
		}
		ix.grpNode[nd.grp] = int32(i)
		fits = fits && nd.sumHi-nd.sumLo <= 64
		for p := range nd.sumHi - nd.sumLo {
			ix.sumPos[nd.sumLo+p] = uint8(p)
		}
	}
	if ix.tiedOn = grand && fits && len(ix.grpNode) <= topology.MaxCPUs && ix.newGrand(); !ix.tiedOn {
		return
	}
	for j := 1; j < len(ix.grpNode); j++ {
		ix.grpTied[j] = ix.tiedAt(j, 0)
		nd := &t.nodes[ix.grpNode[j]]
		for p := range nd.sumHi - nd.sumLo {
			ref := &t.refs[nd.refLo+p]
			ix.nodeTied[nd.sumLo+p] = ix.pairsAt(ref, 0)
			ix.nodeLoad[nd.sumLo+p], ix.nodeCand[nd.sumLo+p] = 0, ix.nodeTied[nd.sumLo+p]|ix.nodeTied[nd.sumLo+p]<<1
		}
	}
}

// newGrand numbers the nodes of pairGrand for grandSum, grandLeast and grandTied, every group's
// total being zero, and reports whether each has at most 64 groups.
func (ix *Index) newGrand() bool {
	t := &ix.tree
	ix.grandOf, ix.grandNode = make([]int32, len(t.nodes)), []int32{-1}
	for i := range t.nodes {
		nd := &t.nodes[i]
		if !nd.pairGrand {
			continue
		}
		g := int32(len(ix.grandNode))
		kids := t.kids[nd.kidLo:nd.kidHi]
		if len(kids) > 64 || g >= topology.MaxCPUs/2 {
			return false
		}
		ix.grandOf[i], ix.grandNode = g, append(ix.grandNode, int32(i))
		k := int32(0)
		for p := len(kids) - 1; p >= 0; p-- { // in visiting order
			j := t.nodes[kids[p]].grp
			ix.grpGrand[j], ix.grpPos[j], ix.grpBefore[j] = uint16(g), uint8(p), k
			k += t.nodes[kids[p]].nCPUs
		}
		ix.grandCPUs[g], ix.grandTied[g] = k, ix.grandAt(g, 0)
	}
	return true
}

// grandAt returns the groups of node g of pairGrand (bit i for its i-th child) whose total is s.
func (ix *Index) grandAt(g int32, s int32) uint64 {
	t := &ix.tree
	nd := &t.nodes[ix.grandNode[g]]
	tied := uint64(0)
	for i, k := range t.kids[nd.kidLo:nd.kidHi] {
		if ix.grpSum[t.nodes[k].grp&(topology.MaxCPUs-1)] == s {
			tied |= 1 << (i & 63)
		}
	}
	return tied
}

// tiedAt returns the nodes of group j (bit p for its p-th node) whose total is s.
func (ix *Index) tiedAt(j int, s int32) uint64 {
	nd := &ix.tree.nodes[ix.grpNode[j]]
	tied := uint64(0)
	for p, v := range ix.nodeSum[nd.sumLo:nd.sumHi] {
		if v == s {
			tied |= 1 << (p & 63)
		}
	}
	return tied
}

// pairsAt returns the pairs of node ref (at the even bits of its word) whose total is s, s being
// their least total: those below pair level s+1 when it is kept, else from the totals one by one.
func (ix *Index) pairsAt(ref *pairRef, s int32) uint64 {
	const even = 0x5555555555555555
	if s >= 0 && s+1 < 2*bigLoad {
		return ref.bits & even &^ ix.pairLevel[(s+1)&(2*bigLoad-1)][ref.word&(topology.SetWords-1)]
	}
	tied := uint64(0)
	for b := ref.bits & even; b != 0; b &= b - 1 {
		c := int(ref.word)<<6 | bits.TrailingZeros64(b)
		if ix.pairSum[c>>1&(topology.MaxCPUs/2-1)] == s {
			tied |= b & -b
		}
	}
	return tied
}

// tiedAdd keeps the least totals and the tied members of CPU c's node and of its group when
// pairAdd(c, d) has just changed the totals of c's pair and node by d (1 or -1). For each: a
// member going up leaves the tied ones, and when it was the last of them the least is one more,
// which the members now at it have (one loop over the totals); a member going down joins them,
// or alone has a new least.
func (ix *Index) tiedAdd(c topology.CPU, d int32) {
	h := ix.home[c&(topology.MaxCPUs-1)]
	j, i := h>>16&(topology.MaxCPUs-1), h&(topology.MaxCPUs-1)
	if j == 0 {
		return // in no group of nodes of SMT pairs
	}
	p := ix.sumPos[i] & 63
	ix.nodeLeast[i], ix.nodeTied[i] = keepTied(ix.pairSum[c>>1&(topology.MaxCPUs/2-1)], d, 1<<(c&62), ix.nodeLeast[i], ix.nodeTied[i],
		func(s int32) uint64 { return ix.pairsAt(&ix.tree.refs[ix.tree.nodes[ix.grpNode[j]].refLo+int32(p)], s) })
	w := int(c>>6) & (topology.SetWords - 1)
	if cand := ix.nodeTied[i] | ix.nodeTied[i]<<1; ix.big == 0 { // the levels hold every load
		// From the least load before, mostly the least load after or one less.
		m := ix.nodeLoad[i]
		switch {
		case m >= 1 && m <= ix.top && levelIs(cand, ix.loaded[:], w, m):
		case m+1 <= ix.top && levelIs(cand, ix.loaded[:], w, m+1):
			m++
		default:
			m = leastLevelNear(cand, ix.loaded[:], w, ix.top, m-1)
		}
		ix.nodeLoad[i], ix.nodeCand[i] = m, cand&^ix.loaded[(m+1)&(bigLoad-1)][w]
	} else {
		ix.nodeLoad[i], ix.nodeCand[i] = ix.leastCPUs(ix.nodeTied[i], w, c, d)
	}
	ix.grpLeast[j], ix.grpTied[j] = keepTied(ix.nodeSum[i], d, 1<<p, ix.grpLeast[j], ix.grpTied[j],
		func(s int32) uint64 { return ix.tiedAt(int(j), s) })
	if g := int32(ix.grpGrand[j]) & (topology.MaxCPUs/2 - 1); g != 0 {
		ix.grandSum[g] += d
		ix.grandLeast[g], ix.grandTied[g] = keepTied(ix.grpSum[j], d, 1<<(ix.grpPos[j]&63), ix.grandLeast[g], ix.grandTied[g],
			func(s int32) uint64 { return ix.grandAt(g, s) })
	}
}

// leastCPUs returns the least load of the CPUs of pairs (at the even bits of mask word w) and
// those CPUs at it, CPU c's load being d less than loads[c] when d < 0 (LoadDown records a
// load about to go down; LoadUp one gone up), from the loads one by one: tiedAdd takes them from
// the load levels when those hold every load (big is zero).
func (ix *Index) leastCPUs(pairs uint64, w int, c topology.CPU, d int32) (int32, uint64) {
	m, cand := int32(math.MaxInt32), uint64(0)
	for b := pairs | pairs<<1; b != 0; b &= b - 1 {
		cc := w<<6 | bits.TrailingZeros64(b)
		l := ix.loads[cc&(topology.MaxCPUs-1)].Load
		if cc == int(c) && d < 0 {
			l += d
		}
		if l < m {
			m, cand = l, 0
		}
		if l == m {
			cand |= b & -b
		}
	}
	return m, cand
}

// keepTied returns the least and the tied members (a mask) of a set of totals after the member
// at bit b changed by d (1 or -1) to s, from their least and tied before; at(s) returns the
// members whose total is s.
func keepTied(s, d int32, b uint64, least int32, tied uint64, at func(int32) uint64) (int32, uint64) {
	switch {
	case d > 0:
		if tied&b != 0 {
			if tied &^= b; tied == 0 { // it was the last at the least, which is now its total
				return s, at(s)
			}
		}
	case s < least:
		return s, b
	case s == least:
		tied |= b
	}
	return least, tied
}

// checkTied returns an error if grpLeast, grpTied, nodeLeast and nodeTied are kept (tiedOn) and
// do not hold each group's least node total and the nodes at it, and each of its nodes' least
// pair total and the pairs at it, taken from the totals afresh.
func (ix *Index) checkTied() error {
	if !ix.tiedOn {
		return nil
	}
	for j := 1; j < len(ix.grpNode); j++ {
		nd := &ix.tree.nodes[ix.grpNode[j]]
		least := int32(math.MaxInt32)
		for p, v := range ix.nodeSum[nd.sumLo:nd.sumHi] {
			least = min(least, v)
			ref, lp := &ix.tree.refs[nd.refLo+int32(p)], int32(math.MaxInt32)
			for b := ref.bits; b != 0; b &= b - 1 {
				lp = min(lp, ix.pairSum[(int(ref.word)<<6|bits.TrailingZeros64(b))>>1])
			}
			n := nd.sumLo + int32(p)
			if want := ix.pairsAt(ref, lp); ix.nodeLeast[n] != lp || ix.nodeTied[n] != want {
				return fmt.Errorf("loadindex: internal error: node %d of SMT pairs has least pair total %d at pairs %#x, want %d at %#x",
					n, ix.nodeLeast[n], ix.nodeTied[n], lp, want)
			}
			if m, cand := ix.leastCPUs(ix.nodeTied[n], int(ref.word), 0, 0); ix.nodeLoad[n] != m || ix.nodeCand[n] != cand {
				return fmt.Errorf("loadindex: internal error: node %d of SMT pairs has least load %d at CPUs %#x of its least pairs, want %d at %#x",
					n, ix.nodeLoad[n], ix.nodeCand[n], m, cand)
			}
		}
		if want := ix.tiedAt(j, least); ix.grpLeast[j] != least || ix.grpTied[j] != want {
			return fmt.Errorf("loadindex: internal error: group %d of nodes of SMT pairs has least total %d at nodes %#x, want %d at %#x",
				j, ix.grpLeast[j], ix.grpTied[j], least, want)
		}
	}
	for g := int32(1); g < int32(len(ix.grandNode)); g++ {
		nd := &ix.tree.nodes[ix.grandNode[g]]
		sum, least := int32(0), int32(math.MaxInt32)
		for _, k := range ix.tree.kids[nd.kidLo:nd.kidHi] {
			v := ix.grpSum[ix.tree.nodes[k].grp]
			sum, least = sum+v, min(least, v)
		}
		if want := ix.grandAt(g, least); ix.grandSum[g] != sum || ix.grandLeast[g] != least || ix.grandTied[g] != want {
			return fmt.Errorf("loadindex: internal error: node %d of packages has total %d, least %d at %#x, want %d, %d at %#x",
				g, ix.grandSum[g], ix.grandLeast[g], ix.grandTied[g], sum, least, want)
		}
	}
	return nil
}
