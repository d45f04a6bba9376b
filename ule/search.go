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
}

type searchNode struct {
	kidLo, kidHi   int32 // t.kids[kidLo:kidHi] are the children, first to last
	cpuLo, cpuHi   int32 // t.cpus[cpuLo:cpuHi] are a leaf's CPUs, last to first
	flatLo, flatHi int32 // for a node whose children are all leaves: t.flat[flatLo:flatHi]
	span           int32 // the number of groups in the subtree, this one included
	thread         bool  // cg_flags & CG_FLAG_THREAD
	leafKids       bool  // every child is a leaf
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

// lowestLeaf is cpu_search_lowest on a leaf: its CPUs from the highest to the lowest.
func (t *searchTree) lowestLeaf(nd *searchNode, s *lowestArgs) (total, cpu, cpuLoad int32) {
	bload := int32(math.MaxInt32)
	cpu = -1
	loads, mask := s.loads, s.mask
	x := s.rnd.x // sched_random's state, kept in a register for the loop
	for _, c := range t.cpus[nd.cpuLo:nd.cpuHi] {
		ld := &loads[c]
		l := ld.Load
		var p int32
		if int32(c) == s.prefer {
			if s.running {
				l--
			}
			p = 128
		}
		load := l * 256
		total += load - p
		if l > s.maxLoad || (int32(ld.LowPri) <= s.pri && (!s.running || int32(c) != s.prefer)) || !mask.has(c) {
			continue
		}
		if s.running && l > 0 {
			p = 0
		}
		x = x*69069 + 5
		load -= int32((x >> 16) % 128)
		if bload > load-p {
			bload, cpu, cpuLoad = load-p, int32(c), load
		}
	}
	s.rnd.x = x
	return total, cpu, cpuLoad
}

// lowestLeaves is lowest on a node whose children are all leaves, walking t.flat: the leaf
// loop of lowestLeaf and the child loop of lowest fused into one.
func (t *searchTree) lowestLeaves(nd *searchNode, s *lowestArgs) (total, cpu, cpuLoad int32) {
	loads, mask := s.loads, s.mask
	x := s.rnd.x // sched_random's state, kept in a register for the loop
	pri, maxLoad, prefer := s.pri, s.maxLoad, s.prefer
	// The best child so far lives in memory (it changes once per child), which leaves the
	// registers to the per-CPU loop.
	best := struct{ total, load, cpu, cpuLoad int32 }{0, math.MaxInt32, -1, 0}
	// The current child's total, best (randomised load - p), CPU and randomised load.
	ltotal, lbest, lcpu, lload := int32(0), int32(math.MaxInt32), int32(-1), int32(0)
	for _, f := range t.flat[nd.flatLo:nd.flatHi] {
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
		b := &best
		b.total += ltotal
		if s.running && f&flatThread != 0 && ltotal >= 128 && ltotal&128 != 0 {
			ltotal += 128
		}
		if lcpu >= 0 && (ltotal < b.load || (ltotal == b.load && lload < b.cpuLoad)) {
			b.load, b.cpu, b.cpuLoad = ltotal, lcpu, lload
		}
		ltotal, lbest, lcpu, lload = 0, math.MaxInt32, -1, 0
	}
	s.rnd.x = x
	return best.total, best.cpu, best.cpuLoad
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
// thread, in the mask), when there are few.
type candidates struct {
	n   int
	cpu [8]topology.CPU
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

// remove drops c from the list.
func (cs *candidates) remove(c topology.CPU) {
	for i, x := range cs.cpu[:cs.n] {
		if x == c {
			cs.n--
			cs.cpu[i] = cs.cpu[cs.n]
			return
		}
	}
}

// highestPruned is highest's choice of CPU over group n, which holds at least one of cs, when
// cs are all the CPUs highest can accept (the same thresholds and mask). A group without a
// candidate is never chosen and draws no random number, so a group with exactly one child
// holding candidates chooses what that child chooses: the search descends into it alone, and
// only a group where two children or more hold candidates, or a leaf, is searched in full (with
// the same draws in the same order as the kernel's). The choice among children compares
// totals, which this skips where there is one contender; that is exact because a total of
// non-negative loads that does not wrap (the caller checks both) beats the initial MinInt32.
func (t *searchTree) highestPruned(n int32, s *highestArgs, cs *candidates) int32 {
	for {
		nd := &t.nodes[n]
		if nd.kidHi == nd.kidLo {
			_, c, _ := t.highestLeaf(nd, s)
			return c
		}
		only, k := int32(-1), 0
		for i := nd.kidLo; i < nd.kidHi && k < 2; i++ {
			if cs.anyIn(t, t.kids[i]) {
				only, k = t.kids[i], k+1
			}
		}
		if k != 1 {
			_, c, _ := t.highest(n, s)
			return c
		}
		n = only
	}
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
	return s.lowest(g, &b, pri, maxLoad, prefer, running, rnd)
}

func (s *System) lowest(g *topology.Group, mask *cpuBits, pri, maxLoad int, prefer topology.CPU, running bool, rnd *Rand) (topology.CPU, bool) {
	a := lowestArgs{loads: s.loads, mask: mask, pri: int32(pri), maxLoad: clampInt32(maxLoad), prefer: int32(prefer), running: running, rnd: rnd}
	_, c, _ := s.tree.lowest(int32(g.ID()), &a)
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
