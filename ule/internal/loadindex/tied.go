// This file keeps, for each group of nodes of SMT pairs (a package of last-level caches), the
// least total of its nodes and which nodes have it (Index.grpLeast, Index.grpTied).

package loadindex

import (
	"fmt"
	"math"

	"github.com/schedkit/schedkit/topology"
)

// newTied numbers the groups of nodes of SMT pairs for grpLeast and grpTied, and sets tiedOn
// when some node is pairGrand and no group has more than 64 nodes; every total is then zero, so
// each group's least is zero and every one of its nodes has it.
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
	if ix.tiedOn = grand && fits && len(ix.grpNode) <= topology.MaxCPUs; !ix.tiedOn {
		return
	}
	for j := 1; j < len(ix.grpNode); j++ {
		ix.grpTied[j] = ix.tiedAt(j, 0)
	}
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

// tiedAdd keeps the least total of the group of CPU c's node, and the nodes that have it, when
// pairAdd(c, d) has just changed that node's total by d (1 or -1): a node going up leaves the
// tied nodes, and when it was the last of them the least is one more, which the nodes now at it
// have (one loop over the group's totals); a node going down joins them, or alone has a new
// least.
func (ix *Index) tiedAdd(c topology.CPU, d int32) {
	h := ix.home[c&(topology.MaxCPUs-1)]
	j, i := h>>16&(topology.MaxCPUs-1), h&(topology.MaxCPUs-1)
	if j == 0 {
		return // in no group of nodes of SMT pairs
	}
	b := uint64(1) << (ix.sumPos[i] & 63)
	s, least, tied := ix.nodeSum[i], ix.grpLeast[j], ix.grpTied[j]
	switch {
	case d > 0:
		if tied&b == 0 {
			return
		}
		if tied &^= b; tied == 0 { // it was the last at the least, which is now its total
			least, tied = s, ix.tiedAt(int(j), s)
		}
	case s < least:
		least, tied = s, b
	case s == least:
		tied |= b
	}
	ix.grpLeast[j], ix.grpTied[j] = least, tied
}

// checkTied returns an error if grpLeast and grpTied are kept (tiedOn) and do not hold each
// group's least total and its nodes at it, taken from the totals afresh.
func (ix *Index) checkTied() error {
	if !ix.tiedOn {
		return nil
	}
	for j := 1; j < len(ix.grpNode); j++ {
		nd := &ix.tree.nodes[ix.grpNode[j]]
		least := int32(math.MaxInt32)
		for _, v := range ix.nodeSum[nd.sumLo:nd.sumHi] {
			least = min(least, v)
		}
		if want := ix.tiedAt(j, least); ix.grpLeast[j] != least || ix.grpTied[j] != want {
			return fmt.Errorf("loadindex: internal error: group %d of nodes of SMT pairs has least total %d at nodes %#x, want %d at %#x",
				j, ix.grpLeast[j], ix.grpTied[j], least, want)
		}
	}
	return nil
}
