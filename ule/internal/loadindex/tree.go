// This file implements searchTree, the topology flattened for the fast searches.

package loadindex

import (
	"math/bits"
	"slices"

	"github.com/schedkit/schedkit/topology"
)

// A searchTree is the topology flattened for the searches: one node per group, indexed by
// topology.Group.ID, each holding its children's ids (in order) or, for a leaf, its CPUs from
// the highest down, the order in which sched_ule.c visits them.
type searchTree struct {
	nodes []searchNode
	kids  []int32
	cpus  []topology.CPU
	flat  []flatCPU
	// leafOf[c] is the id of CPU c's leaf. Ids number the groups in depth-first preorder, so
	// a group n holds the ids n..n+span-1 of its subtree (nodes[n].span), and CPU c is in group
	// n exactly when leafOf[c]-n < span, unsigned. ranges says the tree was checked to be
	// numbered so; without it the pruned search is not used.
	leafOf []int32
	ranges bool
	// flatLeaf[c] is the range of t.flat that CPU c's leaf occupies (lo = hi = 0 when c's leaf
	// is not the child of a node whose children are all leaves); a search finds from it whether
	// its preferred CPU lies in the node it walks.
	flatLeaf []flatRange
	// words holds, for each node whose children are all leaves, the mask words its CPUs occupy
	// (nodes[n].wordLo..wordHi): a search tests a whole mask against the node a word at a time.
	words []maskWord
	// parent[n] is the id of group n's parent (-1 for the root).
	parent []int32
	// refs holds the children of the nodes of pairKids (searchNode.refLo).
	refs []pairRef
	// nwords is the number of mask words the machine's ids take.
	nwords int
}

// A flatRange is a range t.flat[lo:hi].
type flatRange struct{ lo, hi int32 }

// A maskWord is the bits a node's CPUs take in word w of a cpuBits.
type maskWord struct {
	w    int32
	bits uint64
}

type searchNode struct {
	kidLo, kidHi   int32 // t.kids[kidLo:kidHi] are the children, first to last
	cpuLo, cpuHi   int32 // t.cpus[cpuLo:cpuHi] are a leaf's CPUs, last to first
	flatLo, flatHi int32 // for a node whose children are all leaves: t.flat[flatLo:flatHi]
	wordLo, wordHi int32 // for leaves and those nodes: t.words[wordLo:wordHi], its CPUs as mask words
	// fullLo, fullHi: when those words are four or more, whole and consecutive, their indices
	// (fullLo < fullHi), which LowestPairGroups tests as one run (topology.CPUSet.WordsFull, in
	// place of holdsAll); else 0, 0.
	fullLo, fullHi int32
	span           int32  // the number of groups in the subtree, this one included
	wlo, whi       int32  // the mask words its CPUs lie in: wlo..whi
	thread         bool   // cg_flags & CG_FLAG_THREAD
	leafKids       bool   // every child is a leaf
	pairs          bool   // every child is a leaf of two CPUs (SMT cores of two threads)
	idRun          bool   // a leaf whose CPUs, highest first, are consecutive ids
	idLo, idHi     int32  // for such a leaf: its CPUs are the ids idLo..idHi-1
	idBits         uint64 // for such a leaf within one mask word (idLo>>6): its bits there, else 0
	// pairBits, for a node of SMT pairs that lowestPairsIx can search (pairRun: its CPUs are
	// consecutive ids from an even one, in one mask word, each child the pair 2i, 2i+1, so that
	// t.flat visits them from the highest id down), are its CPUs' bits in word pairWord; else 0.
	pairBits uint64
	pairWord int32
	pairLo   int32 // the node's first CPU
	// sum, for a node of SMT pairs, is the index of its total in Index.nodeSum (from 1): the
	// children of each node of pairKids are numbered one after the other in visiting order, and
	// sumLo..sumHi-1 are theirs.
	sum, sumLo, sumHi int32
	// pairKids says every child is such a node of SMT pairs (pairBits), none a thread group:
	// LowestPairGroups searches the node (its mask words are kept for holdsAll).
	pairKids bool
	// pairGrand says every child is a node of pairKids, none a thread group (a machine's
	// packages of last-level caches of SMT pairs): LowestPairGroups searches it too (its mask
	// words are kept for holdsAll).
	pairGrand bool
	// refLo, refHi: for a node of pairKids, t.refs[refLo:refHi] are its children in visiting
	// order (from the last to the first), and nCPUs is the number of their CPUs; grp is the
	// index of its total in Index.grpSum (from 1).
	refLo, refHi, nCPUs, grp int32
}

// A pairRef is a node of SMT pairs as LowestPairGroups reads it: its bits in mask word word, the
// index of its total in Index.nodeSum, its id, the number of CPUs of the nodes before it in its
// parent's visiting order, and the reciprocal of its number of pairs.
type pairRef struct {
	bits   uint64
	word   int32
	sum    int32
	node   int32
	before int16
	// perPair is pairRecip of its number of pairs: pairDraw divides the node's total by
	// multiplying (pairMean).
	perPair uint32
}

// A flatCPU is one CPU in the visiting order of a node whose children are all leaves: the
// children from the last to the first, each one's CPUs from the highest to the lowest. The
// last CPU of each child carries flatEnd, and flatThread if that child is an SMT group. Walking
// this array in one loop does what the kernel's recursion does over the bottom two levels of the
// tree, without a call per leaf.
type flatCPU uint32

const (
	flatEnd    flatCPU = 1 << 16
	flatThread flatCPU = 1 << 17
)

// newSearchTree flattens top: its nodes and leaves, the fused walks of the nodes whose children
// are all leaves, and the preorder numbering the pruned searches rely on.
func newSearchTree(top *topology.Topology) searchTree {
	groups := top.AllGroups()
	t := searchTree{nodes: make([]searchNode, len(groups)), parent: make([]int32, len(groups))}
	t.parent[0] = -1
	for _, g := range groups {
		t.addGroup(g)
	}
	t.nwords = (top.NumIDs() + 63) / 64
	for _, g := range groups {
		t.addFlat(g)
	}
	t.flatLeaf = make([]flatRange, top.NumIDs())
	for i, lo := 0, 0; i < len(t.flat); i++ {
		if t.flat[i]&flatEnd == 0 {
			continue
		}
		for _, f := range t.flat[lo : i+1] {
			t.flatLeaf[f&(topology.MaxCPUs-1)] = flatRange{int32(lo), int32(i + 1)}
		}
		lo = i + 1
	}
	t.number(groups)
	sums, grps := int32(0), int32(0) // the nodes of SMT pairs, and of pairKids, numbered so far
	for _, g := range groups {
		n := &t.nodes[g.ID()]
		kids := t.kids[n.kidLo:n.kidHi]
		n.pairKids = len(kids) > 0
		for _, k := range kids {
			n.pairKids = n.pairKids && t.nodes[k].pairBits != 0 && !t.nodes[k].thread
		}
		if n.pairKids && n.wordLo == n.wordHi {
			// Its mask words, for holdsAll.
			t.addWords(n, slices.Collect(g.CPUs().All()))
		}
		if n.pairKids {
			grps++
			n.grp = grps
			n.refLo, n.sumLo = int32(len(t.refs)), sums+1
			for _, k := range slices.Backward(kids) {
				kn := &t.nodes[k]
				sums++
				kn.sum = sums
				np := max(bits.OnesCount64(kn.pairBits)/2, 1)
				t.refs = append(t.refs, pairRef{bits: kn.pairBits, word: kn.pairWord, sum: kn.sum, node: k, before: int16(n.nCPUs), perPair: pairRecip(np)})
				n.nCPUs += int32(bits.OnesCount64(kn.pairBits))
			}
			n.refHi, n.sumHi = int32(len(t.refs)), sums+1
		}
	}
	for i := range t.nodes {
		if n := &t.nodes[i]; n.pairBits != 0 && n.sum == 0 {
			sums++
			n.sum = sums
		}
	}
	for _, g := range groups {
		n := &t.nodes[g.ID()]
		kids := t.kids[n.kidLo:n.kidHi]
		n.pairGrand = len(kids) > 0
		for _, k := range kids {
			n.pairGrand = n.pairGrand && t.nodes[k].pairKids && !t.nodes[k].thread
		}
		if n.pairGrand && n.wordLo == n.wordHi {
			t.addWords(n, slices.Collect(g.CPUs().All()))
		}
	}
	t.leafOf = make([]int32, top.NumIDs())
	for c := range top.CPUs().All() {
		t.leafOf[c] = int32(top.Leaf(c).ID())
	}
	return t
}

// addGroup adds g's node: its children and, for a leaf, its CPUs from the highest down, its mask
// words and whether its CPUs are consecutive ids.
func (t *searchTree) addGroup(g *topology.Group) {
	n := &t.nodes[g.ID()]
	n.thread = g.Flags()&topology.FlagThread != 0
	n.wlo, n.whi = int32(g.First()>>6), int32(g.Last()>>6)
	n.kidLo = int32(len(t.kids))
	for _, c := range g.Children() {
		t.kids = append(t.kids, int32(c.ID()))
		t.parent[c.ID()] = int32(g.ID())
	}
	n.kidHi = int32(len(t.kids))
	n.cpuLo = int32(len(t.cpus))
	if !g.IsLeaf() {
		n.cpuHi = n.cpuLo
		return
	}
	for c := range g.CPUs().Backward() {
		t.cpus = append(t.cpus, c)
	}
	n.cpuHi = int32(len(t.cpus))
	cpus := t.cpus[n.cpuLo:n.cpuHi]
	t.addWords(n, cpus)
	n.idRun = true
	for i := 1; i < len(cpus); i++ {
		n.idRun = n.idRun && cpus[i] == cpus[i-1]-1
	}
	if n.idRun && len(cpus) > 0 {
		n.idLo, n.idHi = int32(cpus[len(cpus)-1]), int32(cpus[0])+1
		if wlo, whi, first, last := idRunWords(n.idLo, n.idHi); wlo == whi {
			n.idBits = first & last
		}
	}
}

// addFlat adds the fused walk of g if every child of g is a leaf: the children from the last to
// the first, each one's CPUs from the highest down (t.cpus' order), with flatEnd on each
// child's last CPU.
func (t *searchTree) addFlat(g *topology.Group) {
	n := &t.nodes[g.ID()]
	kids := g.Children()
	n.leafKids = len(kids) > 0
	for _, k := range kids {
		n.leafKids = n.leafKids && k.IsLeaf()
	}
	if !n.leafKids {
		return
	}
	n.flatLo = int32(len(t.flat))
	for i := len(kids) - 1; i >= 0; i-- {
		k := &t.nodes[kids[i].ID()]
		for j, c := range t.cpus[k.cpuLo:k.cpuHi] {
			f := flatCPU(c)
			if int32(j) == k.cpuHi-k.cpuLo-1 {
				f |= flatEnd
				if k.thread {
					f |= flatThread
				}
			}
			t.flat = append(t.flat, f)
		}
	}
	n.flatHi = int32(len(t.flat))
	n.pairs = true
	for _, k := range kids {
		n.pairs = n.pairs && k.Count() == 2
	}
	var cpus []topology.CPU
	for _, f := range t.flat[n.flatLo:n.flatHi] {
		cpus = append(cpus, topology.CPU(f&(topology.MaxCPUs-1)))
	}
	t.addWords(n, cpus)
	t.setPairRun(n, cpus)
}

// number sets each node's span and t.ranges, which says whether the groups are numbered in
// depth-first preorder (see leafOf).
func (t *searchTree) number(groups []*topology.Group) {
	t.ranges = true
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		n := &t.nodes[g.ID()]
		n.span = 1
		next := int32(g.ID()) + 1
		for _, k := range g.Children() {
			if int32(k.ID()) != next {
				t.ranges = false
			}
			n.span += t.nodes[k.ID()].span
			next = int32(k.ID()) + t.nodes[k.ID()].span
		}
	}
}

// setPairRun sets n.pairBits and n.pairWord if n, whose CPUs in visiting order are cpus, is a
// node of SMT pairs that lowestPairsIx can search: every child a pair, the CPUs the ids from
// 2i+1 down to an even id, all in one mask word. Children of two CPUs visited from the highest
// id down that are consecutive ids from an even one are the pairs (2i, 2i+1).
func (t *searchTree) setPairRun(n *searchNode, cpus []topology.CPU) {
	if !n.pairs || len(cpus) == 0 || cpus[len(cpus)-1]%2 != 0 || cpus[0]>>6 != cpus[len(cpus)-1]>>6 {
		return
	}
	for i := 1; i < len(cpus); i++ {
		if cpus[i] != cpus[i-1]-1 {
			return
		}
	}
	for _, c := range cpus {
		n.pairBits |= 1 << (c & 63)
	}
	n.pairWord, n.pairLo = int32(cpus[0]>>6), int32(cpus[len(cpus)-1])
}

// addWords sets n's mask words to those of cpus.
func (t *searchTree) addWords(n *searchNode, cpus []topology.CPU) {
	var bits cpuBits
	for _, c := range cpus {
		bits[c>>6] |= 1 << (c & 63)
	}
	n.wordLo = int32(len(t.words))
	for w, b := range bits {
		if b != 0 {
			t.words = append(t.words, maskWord{w: int32(w), bits: b})
		}
	}
	n.wordHi = int32(len(t.words))
	ws := t.words[n.wordLo:n.wordHi]
	whole := len(ws) >= 4 // on fewer words the loop costs less
	for i, mw := range ws {
		whole = whole && mw.bits == ^uint64(0) && mw.w == ws[0].w+int32(i)
	}
	if whole {
		n.fullLo, n.fullHi = ws[0].w, ws[0].w+int32(len(ws))
	}
}

// holds reports whether group n holds CPU c (c must be a CPU of the tree; t.ranges must hold).
func (t *searchTree) holds(n int32, c topology.CPU) bool {
	return uint32(t.leafOf[c]-n) < uint32(t.nodes[n].span)
}

// idRunWords returns the words of a leaf of CPU ids lo..hi-1 and the masks of its first and last
// word.
func idRunWords(lo, hi int32) (wlo, whi int, first, last uint64) {
	return int(lo >> 6), int((hi - 1) >> 6), ^uint64(0) << (lo & 63), ^uint64(0) >> (63 - (hi-1)&63)
}

// holdsAll reports whether mask holds every CPU of node nd (tested a word at a time;
// LowestPairGroups tests a node of four whole words or more as one run instead).
func (t *searchTree) holdsAll(nd *searchNode, mask *topology.CPUSet) bool {
	for _, w := range t.words[nd.wordLo:nd.wordHi] {
		if mask.Word(int(w.w&(topology.SetWords-1)))&w.bits != w.bits {
			return false
		}
	}
	return true
}
