// This file implements ULE's two searches over the CPU topology, cpu_search_lowest and
// cpu_search_highest (sched_lowest, sched_highest), on a flat copy of the group tree.

package ule

import (
	"math"

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
	// cpuAt[c] is the index of CPU c in t.cpus (-1 for ids the machine lacks).
	cpuAt []int32
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
	kidLo, kidHi   int32  // t.kids[kidLo:kidHi] are the children, first to last
	cpuLo, cpuHi   int32  // t.cpus[cpuLo:cpuHi] are a leaf's CPUs, last to first
	flatLo, flatHi int32  // for a node whose children are all leaves: t.flat[flatLo:flatHi]
	wordLo, wordHi int32  // for leaves and those nodes: t.words[wordLo:wordHi], its CPUs as mask words
	span           int32  // the number of groups in the subtree, this one included
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

func newSearchTree(top *topology.Topology) searchTree {
	groups := top.AllGroups()
	t := searchTree{nodes: make([]searchNode, len(groups))}
	for _, g := range groups {
		n := &t.nodes[g.ID()]
		n.thread = g.Flags()&topology.FlagThread != 0
		n.kidLo = int32(len(t.kids))
		for _, c := range g.Children() {
			t.kids = append(t.kids, int32(c.ID()))
		}
		n.kidHi = int32(len(t.kids))
		n.cpuLo = int32(len(t.cpus))
		if g.IsLeaf() {
			for c := range g.CPUs().Backward() {
				t.cpus = append(t.cpus, c)
			}
		}
		n.cpuHi = int32(len(t.cpus))
		if g.IsLeaf() {
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
	}
	t.nwords = (top.NumIDs() + 63) / 64
	t.cpuAt = make([]int32, top.NumIDs())
	for i := range t.cpuAt {
		t.cpuAt[i] = -1
	}
	for i, c := range t.cpus {
		t.cpuAt[c] = int32(i)
	}
	for _, g := range groups {
		n := &t.nodes[g.ID()]
		kids := g.Children()
		n.leafKids = len(kids) > 0
		for _, k := range kids {
			n.leafKids = n.leafKids && k.IsLeaf()
		}
		if !n.leafKids {
			continue
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
	t.leafOf = make([]int32, top.NumIDs())
	for c := range top.CPUs().All() {
		t.leafOf[c] = int32(top.Leaf(c).ID())
	}
	return t
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
}

// holds reports whether group n holds CPU c (c must be a CPU of the tree; t.ranges must hold).
func (t *searchTree) holds(n int32, c topology.CPU) bool {
	return uint32(t.leafOf[c]-n) < uint32(t.nodes[n].span)
}

// lowestArgs are struct cpu_search for cpu_search_lowest.
type lowestArgs struct {
	loads   *[topology.MaxCPUs]CPULoad
	mask    *cpuBits
	pri     int32 // cs_pri: accept only CPUs whose lowpri is worse (greater)
	maxLoad int32 // cs_load
	prefer  int32 // cs_prefer
	running bool  // cs_running
	rnd     *Rand
	full    bool // mask is System.all: it holds every CPU of the machine
	// ix, when not nil, is the System's load index with its pair totals (ix.big zero):
	// lowestLeaves then searches a node of SMT pairs with lowestPairsIx.
	ix *loadIndex
}

// lowest is cpu_search_lowest: it returns the group's total load (256 per thread, less 128 at
// the preferred CPU) and the chosen CPU (-1 if none) with its randomised load.
func (t *searchTree) lowest(n int32, s *lowestArgs) (total, cpu, cpuLoad int32) {
	nd := &t.nodes[n]
	if nd.kidHi == nd.kidLo {
		return t.lowestLeaf(nd, s)
	}
	if nd.leafKids {
		return t.lowestLeaves(nd, s)
	}
	bload := int32(math.MaxInt32)
	cpu = -1
	for k := nd.kidHi - 1; k >= nd.kidLo; k-- {
		kid := t.kids[k]
		kn := &t.nodes[kid]
		var load, lcpu, lload int32
		if kn.kidHi == kn.kidLo {
			load, lcpu, lload = t.lowestLeaf(kn, s)
		} else {
			load, lcpu, lload = t.lowest(kid, s)
		}
		total += load
		// When balancing, do not prefer SMT groups with load > 1, so that equally loaded SMT
		// groups take turns.
		if s.running && kn.thread && load >= 128 && load&128 != 0 {
			load += 128
		}
		if lcpu >= 0 && (load < bload || (load == bload && lload < cpuLoad)) {
			bload, cpu, cpuLoad = load, lcpu, lload
		}
	}
	return total, cpu, cpuLoad
}

// lowestLeaf is cpu_search_lowest on a leaf: its CPUs from the highest to the lowest. The walk
// is split at the preferred CPU, if the leaf has it, which takes the rules of lowestPrefer; the
// CPUs before and after it take lowestRun, which tests the mask only when it lacks some CPU of
// the leaf (tested a word at a time). The result and the draws are those of the one loop.
func (t *searchTree) lowestLeaf(nd *searchNode, s *lowestArgs) (total, cpu, cpuLoad int32) {
	b := leafBest{load: math.MaxInt32, cpu: -1}
	cpus := t.cpus[nd.cpuLo:nd.cpuHi]
	pos := len(cpus)
	if uint32(s.prefer) < uint32(len(t.cpuAt)) {
		if i := t.cpuAt[s.prefer] - nd.cpuLo; uint32(i) < uint32(len(cpus)) {
			pos = int(i)
		}
	}
	var mask *cpuBits
	if !s.full && !t.holdsAll(nd, s.mask) {
		mask = s.mask
	}
	if nd.idRun && mask == nil && s.maxLoad == math.MaxInt32 && len(cpus) > 0 {
		// The CPUs are the ids cpus[0] down to cpus[len-1]: walk the loads themselves.
		hi := int(cpus[0])
		x := lowestIDs(s.loads[hi+1-pos:hi+1], int32(hi+1-pos), s.pri, s.rnd.x, &b)
		if pos < len(cpus) {
			x = b.lowestPrefer(cpus[pos], s, x)
			x = lowestIDs(s.loads[hi+1-len(cpus):hi-pos], int32(hi+1-len(cpus)), s.pri, x, &b)
		}
		s.rnd.x = x
		return b.total, b.cpu, b.cpuLoad
	}
	x := lowestRun(cpus[:pos], s.loads, mask, s.pri, s.maxLoad, s.rnd.x, &b)
	if pos < len(cpus) {
		x = b.lowestPrefer(cpus[pos], s, x)
		x = lowestRun(cpus[pos+1:], s.loads, mask, s.pri, s.maxLoad, x, &b)
	}
	s.rnd.x = x
	return b.total, b.cpu, b.cpuLoad
}

// leafBest is the state of lowestLeaf's walk: the leaf's total so far, the best compared load
// (randomised load - p), its CPU and its randomised load.
type leafBest struct{ total, load, cpu, cpuLoad int32 }

// lowestRun walks CPUs of a leaf other than the preferred one: p is 0 (so the compared load and
// the randomised load are one) and the priority test always applies. A nil mask holds every
// CPU. Without a mask and a load limit (PickCPU's searches) it takes lowestRunPri, whose loop
// tests only the priority.
func lowestRun(cpus []topology.CPU, loads *[topology.MaxCPUs]CPULoad, mask *cpuBits, pri, maxLoad int32, x uint32, b *leafBest) uint32 {
	if mask == nil && maxLoad == math.MaxInt32 {
		return lowestRunPri(cpus, loads, pri, x, b)
	}
	bb := *b // on the stack: the loop addresses it from SP, which keeps a register free
	for _, c := range cpus {
		c &= topology.MaxCPUs - 1
		l := loads[c].Load
		bb.total += l << 8
		if l > maxLoad || int32(loads[c].LowPri) <= pri || (mask != nil && !mask.has(c)) {
			continue
		}
		x = x*69069 + 5
		if load := l<<8 - int32((x>>16)&127); bb.load > load {
			bb.load, bb.cpu, bb.cpuLoad = load, int32(c), load
		}
	}
	*b = bb
	return x
}

// lowestRunPri is lowestRun with every CPU in the mask and no load limit.
func lowestRunPri(cpus []topology.CPU, loads *[topology.MaxCPUs]CPULoad, pri int32, x uint32, b *leafBest) uint32 {
	total, best, cpu, cpuLoad := b.total, b.load, b.cpu, b.cpuLoad
	for _, c := range cpus {
		c &= topology.MaxCPUs - 1
		l := loads[c].Load << 8
		lp := int32(loads[c].LowPri)
		total += l
		if lp <= pri {
			continue
		}
		x = x*69069 + 5
		if load := l - int32((x>>16)&127); best > load {
			best, cpu, cpuLoad = load, int32(c), load
		}
	}
	b.total, b.load, b.cpu, b.cpuLoad = total, best, cpu, cpuLoad
	return x
}

// lowestIDs is lowestRunPri over the CPUs base, base+1, … whose loads are loads, visited from
// the last to the first (the highest id first, as the leaf orders them). It sums the loads
// before shifting them (the same total modulo 2^32), and a CPU here has p = 0, so its compared
// load is its randomised load.
func lowestIDs(loads []CPULoad, base, pri int32, x uint32, b *leafBest) uint32 {
	total, best, at := int32(0), b.load, int32(-1)
	for i := len(loads) - 1; i >= 0; i-- {
		total += loads[i].Load
		if int32(loads[i].LowPri) <= pri {
			continue
		}
		x = x*69069 + 5
		if load := loads[i].Load<<8 - int32((x>>16)&127); best > load {
			best, at = load, int32(i)
		}
	}
	b.total += total << 8
	if at >= 0 {
		b.load, b.cpu, b.cpuLoad = best, base+at, best
	}
	return x
}

// holdsAll reports whether mask holds every CPU of node nd (tested a word at a time).
func (t *searchTree) holdsAll(nd *searchNode, mask *cpuBits) bool {
	for _, w := range t.words[nd.wordLo:nd.wordHi] {
		if mask[w.w&(topology.MaxCPUs/64-1)]&w.bits != w.bits {
			return false
		}
	}
	return true
}

// lowestIDRun is lowest for a search that starts at a leaf whose CPUs are the consecutive ids
// lo..hi-1 (idRun), all in the mask, without a load limit: sched_pickcpu's sched_lowest(cpu_top,
// mask, pri, INT_MAX, ts_cpu, r) on a machine whose root is its one cache group, where
// cpu_search_lowest runs its leaf loop (the CPUSET_FOREACH from the highest CPU down) and
// nothing else. It returns only the chosen CPU (-1 if none), not the total, which sched_lowest
// does not return, and the generator's state after the draws, starting from x; p is cs_prefer,
// which need not lie in the leaf.
//
// The loop is the kernel's, with its two decisions taken by masks (see mask.go): whether a CPU
// is acceptable (its LowPri worse than pri, or it is p and running), and so draws, and whether
// its compared load beats the best so far. Both depend on the CPUs' state and the draws, and
// branches on them were mispredicted about one time in four. A CPU's compared load is its
// randomised load l*256 - r less its bonus: nothing for every CPU but cs_prefer, whose load
// counts 128 less, and with running one thread less and no bonus if it still has a thread.
// So only the best compared load and its CPU are kept, and the loop's only branch is its bound.
func lowestIDRun(loads *[topology.MaxCPUs]CPULoad, lo, hi, pri, p int32, running bool, x uint32) (cpu int32, xo uint32) {
	// cs_prefer's rules as two terms the loop adds at p alone: force, all ones when running (its
	// priority is not compared), and adj, what its compared load differs from l*256 - r by
	// (-128, or with running -256 for the thread less and no bonus if one thread remains).
	var force, adj int32
	if lo <= p && p < hi {
		adj = -128
		if running {
			force = -1
			adj = -256
			if loads[p&(topology.MaxCPUs-1)].Load-1 <= 0 {
				adj -= 128
			}
		}
	}
	best := int32(math.MaxInt32)
	cpu = -1
	leaf, at := loads[lo:hi], p-lo
	for i := len(leaf) - 1; i >= 0; i-- {
		ld := &leaf[i]
		atP := eqMask(int32(i), at)
		ok := ltMask(pri, int32(ld.LowPri)) | atP&force
		x ^= (x ^ (x*69069 + 5)) & uint32(ok)
		load := ld.Load<<8 - int32((x>>16)&127) + atP&adj
		take := ok & ltMask(load, best)
		best ^= (best ^ load) & take
		cpu ^= (cpu ^ int32(i)) & take
	}
	return cpu + lo&^(cpu>>31), x // the id of leaf[cpu], or -1
}

// lowestPrefer is one step of lowestLeaf's walk at the preferred CPU c: its load counts 128
// less (and, when running, one thread less), and when running its priority is not compared.
func (b *leafBest) lowestPrefer(c topology.CPU, s *lowestArgs, x uint32) uint32 {
	ld := &s.loads[c&(topology.MaxCPUs-1)]
	l := ld.Load
	p := int32(128)
	if s.running {
		l--
	}
	load := l * 256
	b.total += load - p
	if l > s.maxLoad || (int32(ld.LowPri) <= s.pri && !s.running) || !s.mask.has(c) {
		return x
	}
	if s.running && l > 0 {
		p = 0
	}
	x = x*69069 + 5
	load -= int32((x >> 16) % 128)
	if b.load > load-p {
		b.load, b.cpu, b.cpuLoad = load-p, int32(c), load
	}
	return x
}

// lowestLeaves is lowest on a node whose children are all leaves, walking t.flat: the leaf
// loop of lowestLeaf and the child loop of lowest fused into one. The walk is split at the leaf
// that holds the preferred CPU, if the node has it: that leaf takes lowestMixed, which knows the
// preferred CPU's rules; every other leaf takes lowestPlain, or lowestAll when the mask holds
// every CPU of the node (tested a word at a time), so that the loop over most CPUs tests
// neither the preferred CPU nor the mask. The result and the draws are those of the one loop.
func (t *searchTree) lowestLeaves(nd *searchNode, s *lowestArgs) (total, cpu, cpuLoad int32) {
	b := lowBest{load: math.MaxInt32, cpu: -1}
	x := s.rnd.x // sched_random's state, kept in a register for the loops
	lo, hi := nd.flatLo, nd.flatHi
	pl, ph := hi, hi // the preferred CPU's leaf, if it lies in this node
	if uint32(s.prefer) < uint32(len(t.flatLeaf)) {
		if r := t.flatLeaf[s.prefer]; r.lo < r.hi && r.lo >= lo && r.lo < hi {
			pl, ph = r.lo, r.hi
		}
	}
	all := s.full || t.holdsAll(nd, s.mask)
	if s.ix != nil && nd.pairBits != 0 && all && s.maxLoad == math.MaxInt32 {
		return t.lowestPairsIx(nd, s, s.ix)
	}
	switch {
	case all && nd.pairs && s.maxLoad == math.MaxInt32:
		x = lowestPairsPri(t.flat[lo:pl], s.loads, s.pri, x, &b)
	case all && nd.pairs:
		x = lowestPairs(t.flat[lo:pl], s.loads, s.pri, s.maxLoad, x, &b)
	case all:
		x = lowestAll(t.flat[lo:pl], s.loads, s.pri, s.maxLoad, x, &b)
	default:
		x = lowestPlain(t.flat[lo:pl], s.loads, s.mask, s.pri, s.maxLoad, x, &b)
	}
	if pl < ph {
		x = lowestMixed(t.flat[pl:ph], s, x, &b)
		switch {
		case all && nd.pairs && s.maxLoad == math.MaxInt32:
			x = lowestPairsPri(t.flat[ph:hi], s.loads, s.pri, x, &b)
		case all && nd.pairs:
			x = lowestPairs(t.flat[ph:hi], s.loads, s.pri, s.maxLoad, x, &b)
		case all:
			x = lowestAll(t.flat[ph:hi], s.loads, s.pri, s.maxLoad, x, &b)
		default:
			x = lowestPlain(t.flat[ph:hi], s.loads, s.mask, s.pri, s.maxLoad, x, &b)
		}
	}
	s.rnd.x = x
	return b.total, b.cpu, b.cpuLoad
}

// lowBest is the state lowestLeaves carries from leaf to leaf: the node's total so far and the
// best child's load, CPU and randomised CPU load. It lives in memory (it changes once per
// leaf), which leaves the registers to the per-CPU loops.
type lowBest struct{ total, load, cpu, cpuLoad int32 }

// leafDone folds a finished leaf (its total, chosen CPU and that CPU's randomised load) into b:
// the comparison of lowest's child loop.
func (b *lowBest) leafDone(ltotal, lcpu, lload int32) {
	b.total += ltotal
	if lcpu >= 0 && (ltotal < b.load || (ltotal == b.load && lload < b.cpuLoad)) {
		b.load, b.cpu, b.cpuLoad = ltotal, lcpu, lload
	}
}

// lowestAll walks whole leaves none of which holds the preferred CPU, all of whose CPUs are in
// the mask. Without the preferred CPU, p is 0 for every CPU (so the randomised load and the
// compared load are one), the priority test always applies, and a leaf's total is a multiple
// of 256, so that the SMT rotation (the 128 bit) never applies.
//
// The loop only counts the acceptable CPUs of a leaf, the draws the kernel makes there, and
// at the leaf's end moves the generator over them at once (drawJump). A leaf can only be chosen
// if it has an acceptable CPU and its total is at most the best so far; only such a leaf is
// walked again by lowestAgain, with the draws, from the state the leaf started with.
func lowestAll(flat []flatCPU, loads *[topology.MaxCPUs]CPULoad, pri, maxLoad int32, x uint32, b *lowBest) uint32 {
	bb := *b // on the stack: the loop addresses it from SP, which keeps a register free
	ltotal, k, start := int32(0), 0, 0
	for i, f := range flat {
		ld := &loads[f&(topology.MaxCPUs-1)]
		l := ld.Load
		ltotal += l
		if l <= maxLoad && int32(ld.LowPri) > pri {
			k++
		}
		if f&flatEnd != 0 {
			// The leaf's total is ltotal*256 (the same modulo 2^32 as the kernel's sum).
			if k != 0 && ltotal<<8 <= bb.load {
				lcpu, lload := lowestAgain(flat[start:i+1], loads, nil, pri, maxLoad, x)
				bb.leafDone(ltotal<<8, lcpu, lload)
			} else {
				bb.total += ltotal << 8
			}
			j := &drawJump[k&(topology.MaxCPUs*2-1)]
			x = x*j.mul + j.add
			ltotal, k, start = 0, 0, i+1
		}
	}
	*b = bb
	return x
}

// lowestPairs is lowestAll over leaves of two CPUs each, a leaf per iteration, which spares
// the loop the test for a leaf's end. A leaf that can be chosen takes its draws here.
func lowestPairs(flat []flatCPU, loads *[topology.MaxCPUs]CPULoad, pri, maxLoad int32, x uint32, b *lowBest) uint32 {
	bb := *b
	for i := 1; i < len(flat); i += 2 {
		c0, c1 := flat[i-1]&(topology.MaxCPUs-1), flat[i]&(topology.MaxCPUs-1)
		l0, l1 := loads[c0].Load, loads[c1].Load
		ok0 := l0 <= maxLoad && int32(loads[c0].LowPri) > pri
		ok1 := l1 <= maxLoad && int32(loads[c1].LowPri) > pri
		ltotal := (l0 + l1) << 8
		if !(ok0 || ok1) || ltotal > bb.load {
			bb.total += ltotal
			if ok0 != ok1 {
				x = x*69069 + 5
			} else if ok0 {
				x = x*drawJump[2].mul + drawJump[2].add
			}
			continue
		}
		lcpu, lload := int32(-1), int32(math.MaxInt32)
		if ok0 {
			x = x*69069 + 5
			lcpu, lload = int32(c0), l0<<8-int32((x>>16)&127)
		}
		if ok1 {
			x = x*69069 + 5
			if load := l1<<8 - int32((x>>16)&127); lload > load {
				lcpu, lload = int32(c1), load
			}
		}
		bb.leafDone(ltotal, lcpu, lload)
	}
	*b = bb
	return x
}

// lowestPairsPri is lowestPairs without a load limit (sched_pickcpu passes INT_MAX to every
// sched_lowest; cpu_search_lowest's "load > s->cs_load" then never holds), which leaves the
// loop a register more and two tests fewer per leaf; the nil check of loads is made once
// before the loop, and the loop's bound proves both CPUs of a leaf in range.
func lowestPairsPri(flat []flatCPU, loads *[topology.MaxCPUs]CPULoad, pri int32, x uint32, b *lowBest) uint32 {
	bb := *b
	_ = loads[0]
	for i := 0; i < len(flat)-1; i += 2 {
		c0, c1 := flat[i]&(topology.MaxCPUs-1), flat[i+1]&(topology.MaxCPUs-1)
		ld0, ld1 := &loads[c0], &loads[c1]
		ok0, ok1 := int32(ld0.LowPri) > pri, int32(ld1.LowPri) > pri
		ltotal := (ld0.Load + ld1.Load) << 8
		if !(ok0 || ok1) || ltotal > bb.load {
			bb.total += ltotal
			if ok0 != ok1 {
				x = x*69069 + 5
			} else if ok0 {
				x = x*drawJump[2].mul + drawJump[2].add
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

// lowestPlain is lowestAll with the mask tested CPU by CPU.
func lowestPlain(flat []flatCPU, loads *[topology.MaxCPUs]CPULoad, mask *cpuBits, pri, maxLoad int32, x uint32, b *lowBest) uint32 {
	bb := *b
	ltotal, k, start := int32(0), 0, 0
	for i, f := range flat {
		c := f & (topology.MaxCPUs - 1)
		ld := &loads[c]
		l := ld.Load
		ltotal += l
		if l <= maxLoad && int32(ld.LowPri) > pri && mask[c>>6]>>(c&63)&1 != 0 {
			k++
		}
		if f&flatEnd != 0 {
			if k != 0 && ltotal<<8 <= bb.load {
				lcpu, lload := lowestAgain(flat[start:i+1], loads, mask, pri, maxLoad, x)
				bb.leafDone(ltotal<<8, lcpu, lload)
			} else {
				bb.total += ltotal << 8
			}
			j := &drawJump[k&(topology.MaxCPUs*2-1)]
			x = x*j.mul + j.add
			ltotal, k, start = 0, 0, i+1
		}
	}
	*b = bb
	return x
}

// drawJump[k] moves sched_random's state over k draws at once: k steps of x = x*69069 + 5
// are x = x*mul + add (mod 2^32), for k up to twice the CPUs a leaf can hold.
var drawJump = func() (t [2 * topology.MaxCPUs]struct{ mul, add uint32 }) {
	t[0].mul = 1
	for k := 1; k < len(t); k++ {
		t[k].mul, t[k].add = t[k-1].mul*69069, t[k-1].add*69069+5
	}
	return t
}()

// lowestAgain walks one leaf (flat) as lowestLeaf does without a preferred CPU, the generator
// starting at x, and returns the CPU it chooses and that CPU's randomised load. A nil mask
// holds every CPU. It is not inlined, which keeps the callers' loops small enough for their
// registers.
//
//go:noinline
func lowestAgain(flat []flatCPU, loads *[topology.MaxCPUs]CPULoad, mask *cpuBits, pri, maxLoad int32, x uint32) (cpu, cpuLoad int32) {
	cpu, cpuLoad = -1, math.MaxInt32
	for _, f := range flat {
		c := f & (topology.MaxCPUs - 1)
		ld := &loads[c]
		l := ld.Load
		if l <= maxLoad && int32(ld.LowPri) > pri && (mask == nil || mask.has(topology.CPU(c))) {
			x = x*69069 + 5
			if load := l<<8 - int32((x>>16)&127); cpuLoad > load {
				cpu, cpuLoad = int32(c), load
			}
		}
	}
	return cpu, cpuLoad
}

// lowestMixed walks whole leaves that may hold the preferred CPU, with every rule of
// lowestLeaf and of lowest's child loop.
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
			if l <= maxLoad && int32(ld.LowPri) > pri && mask[c>>6]>>(c&63)&1 != 0 {
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
			if !(l > maxLoad || (int32(ld.LowPri) <= pri && !running) || mask[c>>6]>>(c&63)&1 == 0) {
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

// highestArgs are struct cpu_search for cpu_search_highest.
type highestArgs struct {
	loads    *[topology.MaxCPUs]CPULoad
	mask     *cpuBits
	minLoad  int32 // cs_load
	minTrans int32 // cs_trans
	rnd      *Rand
	done     *searched // groups known to hold no candidate, or nil
}

// searched lists groups a search of the same thresholds found no candidate in, with their total
// loads: Steal climbing the tree searches each group's parent next, and a group with no CPU that
// qualifies contributes only its total (never a candidate, never a random draw), which does not
// depend on the mask; removing CPUs from the mask cannot add a candidate. So the parent's search
// may take the total from here instead of visiting the group again, with the same result and the
// same draws.
type searched struct {
	n     int
	node  [8]int32
	total [8]int32
}

// add records group node with total load total; past the capacity it records nothing, which only
// costs a revisit.
func (d *searched) add(node, total int32) {
	if d.n < len(d.node) {
		d.node[d.n], d.total[d.n] = node, total
		d.n++
	}
}

// lookupIn is lookup on a possibly nil list.
func (d *searched) lookupIn(node int32) (int32, bool) {
	if d == nil {
		return 0, false
	}
	return d.lookup(node)
}

// lookup returns the recorded total of node.
func (d *searched) lookup(node int32) (int32, bool) {
	for i := range d.n {
		if d.node[i] == node {
			return d.total[i], true
		}
	}
	return 0, false
}

// highest is cpu_search_highest: the group's total load and the chosen CPU (-1 if none) with
// its randomised load.
func (t *searchTree) highest(n int32, s *highestArgs) (total, cpu, cpuLoad int32) {
	nd := &t.nodes[n]
	if nd.kidHi == nd.kidLo {
		return t.highestLeaf(nd, s)
	}
	if nd.leafKids {
		return t.highestLeaves(nd, s)
	}
	bload := int32(math.MinInt32)
	cpu = -1
	for k := nd.kidHi - 1; k >= nd.kidLo; k-- {
		kid := t.kids[k]
		kn := &t.nodes[kid]
		var load, lcpu, lload int32
		if tot, ok := s.done.lookupIn(kid); ok {
			total += tot
			continue
		}
		if kn.kidHi == kn.kidLo {
			load, lcpu, lload = t.highestLeaf(kn, s)
		} else {
			load, lcpu, lload = t.highest(kid, s)
		}
		total += load
		if lcpu >= 0 && (load > bload || (load == bload && lload > cpuLoad)) {
			bload, cpu, cpuLoad = load, lcpu, lload
		}
	}
	return total, cpu, cpuLoad
}

// highestLeaf is cpu_search_highest on a leaf.
func (t *searchTree) highestLeaf(nd *searchNode, s *highestArgs) (total, cpu, cpuLoad int32) {
	bload := int32(math.MinInt32)
	cpu = -1
	loads, mask := s.loads, s.mask
	x := s.rnd.x
	for _, c := range t.cpus[nd.cpuLo:nd.cpuHi] {
		ld := &loads[c]
		l := ld.Load
		load := l * 256
		total += load
		if l < s.minLoad || ld.Transferable < s.minTrans || !mask.has(c) {
			continue
		}
		x = x*69069 + 5
		load -= int32((x >> 16) % 256)
		if load > bload {
			bload, cpu = load, int32(c)
		}
	}
	s.rnd.x = x
	return total, cpu, bload
}

// highestLeaves is highest on a node whose children are all leaves, walking t.flat.
func (t *searchTree) highestLeaves(nd *searchNode, s *highestArgs) (total, cpu, cpuLoad int32) {
	loads, mask := s.loads, s.mask
	x := s.rnd.x // sched_random's state, kept in a register for the loop
	minLoad, minTrans := s.minLoad, s.minTrans
	// The best child so far lives in memory (it changes once per child), which leaves the
	// registers to the per-CPU loop.
	best := struct{ total, load, cpu, cpuLoad int32 }{0, math.MinInt32, -1, 0}
	ltotal, lbest, lcpu := int32(0), int32(math.MinInt32), int32(-1)
	for _, f := range t.flat[nd.flatLo:nd.flatHi] {
		c := f & (topology.MaxCPUs - 1)
		ld := &loads[c]
		l := ld.Load
		ltotal += l << 8
		if l >= minLoad && ld.Transferable >= minTrans && mask[c>>6]>>(c&63)&1 != 0 {
			x = x*69069 + 5
			if load := l<<8 - int32((x>>16)&255); load > lbest {
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
	s.rnd.x = x
	return best.total, best.cpu, best.cpuLoad
}

// candidates lists the CPUs a steal search can choose (load >= steal_thresh, a transferable
// thread, in the machine, not the thief), when there are few, and the thief and the CPUs
// refused so far, which the search's mask leaves out.
type candidates struct {
	n       int
	cpu     [8]topology.CPU
	thief   topology.CPU
	nref    int
	refused [8]topology.CPU
}

// scan adds c, whose load is ld, if it is a candidate, and ORs its load into or. It reports
// false when the list is full.
func (cs *candidates) scan(ld *CPULoad, c topology.CPU, minLoad int32, thief topology.CPU, all *cpuBits, or *int32) bool {
	*or |= ld.Load
	if ld.Load >= minLoad && ld.Transferable >= 1 && c != thief && all.has(c) {
		if cs.n == len(cs.cpu) {
			return false
		}
		cs.cpu[cs.n] = c
		cs.n++
	}
	return true
}

// anyIn reports whether group n holds a candidate.
func (cs *candidates) anyIn(t *searchTree, n int32) bool {
	for _, c := range cs.cpu[:cs.n] {
		if t.holds(n, c) {
			return true
		}
	}
	return false
}

// refuse drops c from the list and records it as refused.
func (cs *candidates) refuse(c topology.CPU) {
	for i, x := range cs.cpu[:cs.n] {
		if x == c {
			cs.n--
			cs.cpu[i] = cs.cpu[cs.n]
			cs.refused[cs.nref] = c
			cs.nref++
			return
		}
	}
}

// highestPruned is highest's choice of CPU over group n, which holds at least one of cs, when
// cs are all the CPUs highest can accept (the same thresholds; the mask is all without the
// thief and the refused CPUs). A group without a candidate is never chosen and draws no random
// number, so a group with exactly one child holding candidates chooses what that child
// chooses: the search descends into it alone, straight to the leaf when every candidate of n
// lies in one leaf, and only a group where two children or more hold candidates, or a leaf, is
// searched in full (with the same draws in the same order as the kernel's). The choice among
// children compares totals, which this skips where there is one contender; that is exact
// because a total of non-negative loads that does not wrap (the caller checks both) beats the
// initial MinInt32. In a leaf the CPUs highest accepts are the candidates, so the leaf is
// searched without a mask; only a full search builds one.
func (t *searchTree) highestPruned(n int32, s *highestArgs, cs *candidates, all *cpuBits) int32 {
	leaf := int32(-1)
	for _, c := range cs.cpu[:cs.n] {
		if !t.holds(n, c) {
			continue
		}
		if l := t.leafOf[c]; leaf < 0 {
			leaf = l
		} else if l != leaf {
			leaf = -2
			break
		}
	}
	if leaf >= 0 {
		return t.highestCands(&t.nodes[leaf], s, cs)
	}
	for {
		nd := &t.nodes[n]
		if nd.kidHi == nd.kidLo {
			return t.highestCands(nd, s, cs)
		}
		only, k := int32(-1), 0
		for i := nd.kidLo; i < nd.kidHi && k < 2; i++ {
			if cs.anyIn(t, t.kids[i]) {
				only, k = t.kids[i], k+1
			}
		}
		if k != 1 {
			mask := *all
			mask.remove(cs.thief)
			for _, c := range cs.refused[:cs.nref] {
				mask.remove(c)
			}
			s.mask = &mask
			_, c, _ := t.highest(n, s)
			s.mask = nil
			return c
		}
		n = only
	}
}

// highestCands is highestLeaf when the CPUs it accepts are exactly the candidates cs: only they
// draw, so it visits only them, in the leaf's order (their places in t.cpus).
func (t *searchTree) highestCands(nd *searchNode, s *highestArgs, cs *candidates) int32 {
	var in [len(candidates{}.cpu)]int32 // the candidates' places in t.cpus, in visiting order
	k := 0
	for _, c := range cs.cpu[:cs.n] {
		i := t.cpuAt[c]
		if i < nd.cpuLo || i >= nd.cpuHi {
			continue
		}
		j := k
		for ; j > 0 && in[j-1] > i; j-- {
			in[j] = in[j-1]
		}
		in[j] = i
		k++
	}
	bload := int32(math.MinInt32)
	cpu := int32(-1)
	x := s.rnd.x
	for _, i := range in[:k] {
		c := t.cpus[i]
		x = x*69069 + 5
		if load := s.loads[c&(topology.MaxCPUs-1)].Load*256 - int32((x>>16)%256); load > bload {
			bload, cpu = load, int32(c)
		}
	}
	s.rnd.x = x
	return cpu
}

// Lowest returns the least loaded CPU on the least loaded path below g whose LowPri is worse
// than pri (pri -1 accepts any) and whose load is at most maxLoad, among the CPUs of mask:
// sched_lowest, that is cpu_search_lowest. It reports false if no CPU qualifies.
//
// The search visits children from the last to the first and a leaf's CPUs from the highest to
// the lowest, as the kernel does. Load counts 256 per thread; the preferred CPU counts 128 less
// (it is favoured on ties), and with running set the thread being placed already runs on
// prefer, so prefer's load excludes it and its LowPri is not compared. Each acceptable CPU's
// load is lowered by rnd.Next()%128, which breaks ties at random; rnd is the searching CPU's
// generator. A child SMT group whose load has the 128 bit set counts 128 more when running is
// set, so that balancing rotates between SMT groups. The complexity is O(CPUs and groups below
// g) with no allocation.
func (s *System) Lowest(g *topology.Group, mask *topology.CPUSet, pri, maxLoad int, prefer topology.CPU, running bool, rnd *Rand) (topology.CPU, bool) {
	b := bitsOf(mask)
	return s.lowest(g, &b, pri, maxLoad, prefer, running, rnd, nil)
}

// lowest is Lowest on a cpuBits mask. With ix (the System's own index, which the mutating
// methods pass) a search that lowestIDRun would walk takes lowestIDRunIx (or lowestWordIx) instead.
func (s *System) lowest(g *topology.Group, mask *cpuBits, pri, maxLoad int, prefer topology.CPU, running bool, rnd *Rand, ix *loadIndex) (topology.CPU, bool) {
	n := int32(g.ID())
	nd := &s.tree.nodes[n]
	if maxLoad >= math.MaxInt32 && nd.idLo < nd.idHi && (mask == &s.all || s.tree.holdsAll(nd, mask)) {
		// A leaf of consecutive ids, all in the mask, without a load limit: lowestIDRun's case,
		// taken here without building lowestArgs, or the index's.
		if ix == nil || !ix.priOn || ix.big != 0 {
			c, x := lowestIDRun(s.loads, nd.idLo, nd.idHi, int32(pri), int32(prefer), running, rnd.x)
			rnd.x = x
			return topology.CPU(c), c >= 0
		}
		if nd.idBits != 0 {
			// lowestIDRunIx's case of a leaf within one mask word.
			c := lowestWordIx(int(nd.idLo>>6), nd.idBits, int32(pri), int32(prefer), running, rnd, ix, s.loads)
			return topology.CPU(c), c >= 0
		}
		a := lowestArgs{loads: s.loads, mask: mask, pri: int32(pri), maxLoad: math.MaxInt32, prefer: int32(prefer), running: running, rnd: rnd, full: mask == &s.all}
		c := s.tree.lowestIDRunIx(nd, &a, ix)
		return topology.CPU(c), c >= 0
	}
	a := lowestArgs{loads: s.loads, mask: mask, pri: int32(pri), maxLoad: clampInt32(maxLoad), prefer: int32(prefer), running: running, rnd: rnd, full: mask == &s.all}
	if ix != nil && ix.pairOn && ix.big == 0 {
		a.ix = ix
	}
	_, c, _ := s.tree.lowest(n, &a)
	return topology.CPU(c), c >= 0
}

// Highest returns the most loaded CPU on the most loaded path below g with load at least
// minLoad and at least minTrans transferable threads, among the CPUs of mask: sched_highest,
// that is cpu_search_highest. It reports false if no CPU qualifies. Each acceptable CPU's load
// (256 per thread) is lowered by rnd.Next()%256 before the comparison. The order and cost are
// those of Lowest.
func (s *System) Highest(g *topology.Group, mask *topology.CPUSet, minLoad, minTrans int, rnd *Rand) (topology.CPU, bool) {
	b := bitsOf(mask)
	return s.highest(g, &b, minLoad, minTrans, rnd)
}

func (s *System) highest(g *topology.Group, mask *cpuBits, minLoad, minTrans int, rnd *Rand) (topology.CPU, bool) {
	_, c, ok := s.highestDone(g, mask, minLoad, minTrans, rnd, nil)
	return c, ok
}

// highestDone is highest taking the totals of the groups in done instead of searching them
// again (see searched); it also returns g's total load.
func (s *System) highestDone(g *topology.Group, mask *cpuBits, minLoad, minTrans int, rnd *Rand, done *searched) (int32, topology.CPU, bool) {
	a := highestArgs{loads: s.loads, mask: mask, minLoad: clampInt32(minLoad), minTrans: clampInt32(minTrans), rnd: rnd, done: done}
	total, c, _ := s.tree.highest(int32(g.ID()), &a)
	return total, topology.CPU(c), c >= 0
}

func clampInt32(x int) int32 { return int32(min(max(x, math.MinInt32), math.MaxInt32)) }
