// Package groupsums is the fast form behind cfs's update_sg_lb_stats for a sched group of
// several CPUs: the sums the kernel adds up CPU by CPU at every balance (group_load,
// group_util, group_runnable, sum_nr_running, sum_h_nr_running, idle_cpus, and whether a CPU
// holds two tasks or more for SG_OVERLOAD), kept up to date as each CPU's statistics change.
//
// A balance at the top of a machine of 1024 CPUs visits two groups of 512 CPUs each; the kernel
// (and cfs's readable groupLBStats) reads every CPU's run queue to sum them, so a pass costs more
// than a naive scan of the loads alone. The sums change only when a CPU's statistics do, which
// cfs's System writes in one place (when a CPU's queues change, and at its tick); an [Index]
// takes each such change as the difference between the CPU's old and new [Stat] and applies it
// to the few groups that hold the CPU, one per level of the machine (more on a NUMA level with
// overlapping groups). A balance then reads a group's sums in O(1).
//
// The same sums are cfs's update_sg_wakeup_stats, which find_idlest_group reads to place a
// forked task (or a wakeup that takes the slow path): cfs takes the kernel's "without p" values
// (cpu_load_without and the rest) as the plain ones, the task being on no run queue, and only a
// machine of unequal capacities needs the visit (for the misfit test), as for the balance.
// find_idlest_group's fast form in cfs reads a group's sums as a [Key] ([Sum.Wake]): the
// group's classification and its place in update_pick_idlest's order in two words, which
// [Key.Less] compares. An Index keeps each group's last Key until the group's sums change
// ([Index.Key]): between two forks few of the groups a fork reads do.
//
// For a domain of many groups an Index also keeps the groups' Keys in a ring ([Index.AddRing]):
// a segment tree over the groups in their circle's order, so that update_pick_idlest's answer
// over the circle from the group after the local one (the first group of the least Key in that
// order, none if no Key is below [Root]) is read in O(log n) ([Index.RingLeast]) instead of
// group by group; a leaf is made anew only after its group's sums change.
//
// Which groups, and when the sums stand for update_sg_lb_stats' (the rule cfs's FindBusiestGroup
// documents, and cfs's tests check against the full visit): groups of one CPU are left out (the
// visit of one CPU is as cheap as a read); the balance must consider every CPU of the domain
// (env->cpus equal to the span: a retry after LBF_ALL_PINNED removes CPUs, and the full visit
// then runs); and no CPU may carry a misfit load that the sums leave out, which holds on a
// machine of one capacity whose CPUs never lose capacity to other classes, as cfs's System's
// never do.
//
// The arithmetic is the kernel's: sums of unsigned 64- and 32-bit counters. A difference is
// applied with wrapping unsigned arithmetic, which gives the same sum as adding the new value
// and removing the old in any order.
package groupsums

// Stat is what the sums read of one CPU: cpu_load, cpu_util_cfs, cpu_runnable, rq->nr_running
// and cfs.h_nr_running (smp.CPUStat's Load, Util, Runnable, NrRunning and HNrRunning).
type Stat struct {
	Load, Util, Runnable  uint64
	NrRunning, HNrRunning uint32
}

// Sum is one group's sums of its CPUs' [Stat]s: the parts of struct sg_lb_stats that
// update_sg_lb_stats adds up, with Idle the CPUs with no task (idle_cpus) and Multi the CPUs
// with two tasks or more (any of them sets SG_OVERLOAD).
type Sum struct {
	Load, Util, Runnable  uint64
	NrRunning, HNrRunning uint32
	Idle, Multi           uint32
}

// An Index holds the sums of every group of several CPUs of a machine, by group id. The zero
// Index holds nothing and must be set up with [Index.Init]. An Index is not safe for
// concurrent use, reads of [Index.Key] included.
type Index struct {
	sums   []entry
	groups [][]int32 // by CPU id: the ids of the groups of several CPUs that hold the CPU
	rings  []*ring   // by ring number less one ([Index.AddRing])
}

// entry is a group's sums and the last Key read of them ([Index.Key]).
type entry struct {
	Sum
	key   Key     // the group's Key for imbalance_pct pct
	pct   uint64  // the imbalance_pct key was made for; 0 once the sums have changed
	dirty *uint64 // its ring's positions whose sums changed, or a word no ring reads
	bit   uint64  // the group's bit there
}

// Init sets x up for ngroups groups whose members are given by CPU id (groupsOf[c] lists the
// ids of the groups of several CPUs that hold CPU c), every CPU idle with zero statistics, as a
// machine starts. It panics if a group id is not below ngroups.
func (x *Index) Init(ngroups int, groupsOf [][]int32) {
	x.sums = make([]entry, ngroups)
	x.groups = make([][]int32, len(groupsOf))
	x.rings = nil
	sink := new(uint64) // the word of the groups in no ring
	for g := range x.sums {
		x.sums[g].dirty = sink
	}
	for c, gs := range groupsOf {
		x.groups[c] = append([]int32(nil), gs...)
		for _, g := range gs {
			if int(g) >= ngroups || g < 0 {
				panic("groupsums: Init: group id out of range")
			}
			x.sums[g].Idle++
		}
	}
}

// Update applies CPU c's change from old to now to the sums of the groups that hold it. A
// change that changes nothing leaves the groups' Keys as they are.
func (x *Index) Update(c int, old, now Stat) {
	gs := x.groups[c]
	if len(gs) == 0 || old == now { // nothing to change, nor Keys to make anew
		return
	}
	dLoad, dUtil, dRunnable := now.Load-old.Load, now.Util-old.Util, now.Runnable-old.Runnable
	dNr, dHNr := now.NrRunning-old.NrRunning, now.HNrRunning-old.HNrRunning
	dIdle := b2u(now.NrRunning == 0) - b2u(old.NrRunning == 0)
	dMulti := b2u(now.NrRunning > 1) - b2u(old.NrRunning > 1)
	for _, g := range gs {
		s := &x.sums[g]
		s.Load += dLoad
		s.Util += dUtil
		s.Runnable += dRunnable
		s.NrRunning += dNr
		s.HNrRunning += dHNr
		s.Idle += dIdle
		s.Multi += dMulti
		s.pct = 0
		*s.dirty |= s.bit
	}
}

// Sum returns the sums of group g.
func (x *Index) Sum(g int) *Sum { return &x.sums[g].Sum }

// Key returns group g's Key, [Sum.Wake] of its sums for capacity c, weight w and
// imbalance_pct pct (not 0): the Key of the last call while g's sums have not changed since and
// pct is the same. c and w must be g's own, the same at every call. A fork at 1024 CPUs reads
// some 30 groups, of which few change between forks.
func (x *Index) Key(g int, c uint64, w uint32, pct uint64) Key {
	e := &x.sums[g]
	if e.pct != pct {
		return e.rekey(c, w, pct)
	}
	return e.key
}

// rekey makes e's Key anew, for [Index.Key].
func (e *entry) rekey(c uint64, w uint32, pct uint64) Key {
	e.key, e.pct = e.Wake(c, w, pct), pct
	return e.key
}

// b2u is 1 for true, 0 for false.
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
