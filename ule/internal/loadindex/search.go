// This file implements the whole searches on the machines whose load levels the index keeps:
// sched_lowest and sched_highest, the kernel's recursion (package ule's cpuSearchLowest and
// cpuSearchHighest) over the search tree with the fast forms at the groups they search.

package loadindex

import (
	"math"

	"github.com/schedkit/schedkit/topology"
)

// Lowest is sched_lowest(n, mask, pri, maxLoad, prefer, running) on a machine whose load levels
// the index keeps: it returns the CPU cpu_search_lowest finds under group n (-1 for none) and
// true, having moved *x as the kernel's search does; full says mask holds every CPU of the
// machine. A group whose children are all leaves is searched as one walk (LowestFused), a leaf
// of consecutive ids in the index (LowestRun); otherwise the kernel's recursion runs over the
// search tree, with those two forms at the groups it reaches and a group of groups of SMT pairs,
// or a group of those, searched in the index (LowestPairGroups, from here when n is one).
// When the counts of LowPri values are kept (machines of more than 64 ids) and no CPU of the
// machine runs worse than pri (the thread not running on the preferred CPU), it returns -1 at
// once (noneWorse).
// On a smaller machine, or with a nil Index, it returns false, having changed nothing: the
// caller's kernel-shaped loops search.
func (ix *Index) Lowest(n int, mask *topology.CPUSet, full bool, pri, maxLoad, prefer int32, running bool, x *uint32) (int32, bool) {
	if ix == nil || !ix.levels {
		return -1, false
	}
	// No CPU runs worse than pri, and the thread does not run on the preferred CPU (which it
	// would accept whatever its LowPri): the kernel's search accepts no CPU and draws nothing.
	if ix.countOn && !(running && prefer >= 0) && ix.noneWorse(pri) {
		return -1, true
	}
	// A leaf of consecutive ids in one mask word (a flat machine of up to 64 CPUs, a cache group
	// of one word): LowestRun's one-word case, its tests read from the node's bits.
	if nd := &ix.tree.nodes[n]; nd.idBits != 0 && ix.priOn && maxLoad == math.MaxInt32 && ix.big == 0 &&
		(full || mask.Word(int(nd.idLo>>6)&(topology.SetWords-1))&nd.idBits == nd.idBits) {
		return ix.lowestWordIx(int(nd.idLo>>6), nd.idBits, pri, prefer, running, x), true
	}
	if ix.tree.nodes[n].leafKids { // a group of leaves (a cache group's cores): one walk
		_, cpu, _ := ix.LowestFused(n, mask, full, pri, maxLoad, prefer, running, math.MaxInt32, x)
		return cpu, true
	}
	if nd := &ix.tree.nodes[n]; nd.pairGrand || nd.pairKids { // a group of caches of SMT pairs, or of those: no call on the way
		if _, cpu, _, ok := ix.LowestPairGroups(n, mask, full, pri, maxLoad, prefer, running, x); ok {
			return cpu, true
		}
	}
	if c, ok := ix.LowestRun(n, mask, full, pri, maxLoad, prefer, running, x); ok {
		return c, true
	}
	a := lowestArgs{loads: ix.loads, mask: mask, pri: pri, maxLoad: maxLoad, prefer: prefer, running: running, x: x, all: full}
	_, cpu, _ := ix.lowestNode(int32(n), &a, math.MaxInt32)
	return cpu, true
}

// lowestNode is cpu_search_lowest on group n by a's criteria (a.all: the mask holds every CPU of
// the machine): the group's total load, the CPU chosen (-1 for none) and its randomised load.
// bound is the least total of the groups the caller searched before n (see LowestFused).
func (ix *Index) lowestNode(n int32, a *lowestArgs, bound int32) (total, cpu, cpuLoad int32) {
	t := &ix.tree
	nd := &t.nodes[n]
	if nd.leafKids {
		return ix.LowestFused(int(n), a.mask, a.all, a.pri, a.maxLoad, a.prefer, a.running, bound, a.x)
	}
	if total, cpu, load, ok := ix.LowestPairGroups(int(n), a.mask, a.all, a.pri, a.maxLoad, a.prefer, a.running, a.x); ok {
		return total, cpu, load
	}
	bload := int32(math.MaxInt32)
	cpu = -1
	if kids := t.kids[nd.kidLo:nd.kidHi]; len(kids) > 0 {
		for i := len(kids) - 1; i >= 0; i-- {
			load, lcpu, lload := ix.lowestNode(kids[i], a, bload)
			total += load
			if a.running && t.nodes[kids[i]].thread && load >= 128 && load&128 != 0 {
				load += 128
			}
			if lcpu >= 0 && (load < bload || (load == bload && lload < cpuLoad)) {
				bload, cpu, cpuLoad = load, lcpu, lload
			}
		}
		return total, cpu, cpuLoad
	}
	for _, c := range t.cpus[nd.cpuLo:nd.cpuHi] {
		ld := &ix.loads[c&(topology.MaxCPUs-1)]
		l, p := ld.Load, int32(0)
		if int32(c) == a.prefer {
			if a.running {
				l--
			}
			p = 128
		}
		load := l * 256
		total += load - p
		if l > a.maxLoad || (int32(ld.LowPri) <= a.pri && !(a.running && int32(c) == a.prefer)) || !a.mask.Has(c) {
			continue
		}
		if a.running && l > 0 {
			p = 0
		}
		*a.x = *a.x*69069 + 5
		load -= int32((*a.x >> 16) % 128)
		if bload > load-p {
			bload, cpu, cpuLoad = load-p, int32(c), load
		}
	}
	return total, cpu, cpuLoad
}

// Highest is sched_highest(n, mask, minLoad, minTrans): it returns the CPU cpu_search_highest
// finds under group n (-1 for none) and true, having moved *x as the kernel's search does, when
// the index answers: on every machine when the search needs a transferable thread and no CPU has
// one; on a machine whose load levels it keeps, always, from the candidates (highestPruned) and
// otherwise by the kernel's recursion over the search tree from the group they name, a group
// whose children are all leaves walked as one array (HighestFused). Otherwise, and with a nil
// Index, it returns false, having changed nothing: the caller's kernel-shaped loops search.
func (ix *Index) Highest(n int, mask *topology.CPUSet, minLoad, minTrans int32, x *uint32) (int32, bool) {
	if ix == nil {
		return -1, false
	}
	c, from, done := ix.highestPruned(n, mask, minLoad, minTrans, x)
	if done || !ix.levels {
		return c, done
	}
	_, cpu, _ := ix.highestNode(int32(from), mask, minLoad, minTrans, x)
	return cpu, true
}

// highestNode is cpu_search_highest on group n: the group's total load, the CPU chosen (-1 for
// none) and its randomised load.
func (ix *Index) highestNode(n int32, mask *topology.CPUSet, minLoad, minTrans int32, x *uint32) (total, cpu, cpuLoad int32) {
	t := &ix.tree
	nd := &t.nodes[n]
	if nd.leafKids {
		return ix.HighestFused(int(n), mask, minLoad, minTrans, x)
	}
	bload := int32(math.MinInt32)
	cpu = -1
	if kids := t.kids[nd.kidLo:nd.kidHi]; len(kids) > 0 {
		for i := len(kids) - 1; i >= 0; i-- {
			load, lcpu, lload := ix.highestNode(kids[i], mask, minLoad, minTrans, x)
			total += load
			if lcpu >= 0 && (load > bload || (load == bload && lload > cpuLoad)) {
				bload, cpu, cpuLoad = load, lcpu, lload
			}
		}
		return total, cpu, cpuLoad
	}
	for _, c := range t.cpus[nd.cpuLo:nd.cpuHi] {
		ld := &ix.loads[c&(topology.MaxCPUs-1)]
		load := ld.Load * 256
		total += load
		if ld.Load < minLoad || ld.Transferable < minTrans || !mask.Has(c) {
			continue
		}
		*x = *x*69069 + 5
		if load -= int32((*x >> 16) % 256); load > bload {
			bload, cpu = load, int32(c)
		}
	}
	return total, cpu, bload
}
