// This file implements the slow path of v6.5's placement, for forks and execs and wakeups
// that cannot go affine, as pure functions: find_idlest_cpu descending through
// find_idlest_group (update_sg_wakeup_stats, update_pick_idlest) and find_idlest_group_cpu.

package cfs

import (
	"math"
	"math/bits"

	"github.com/schedkit/schedkit/cfs/internal/groupsums"
	"github.com/schedkit/schedkit/cfs/internal/leastload"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// wakeupGroupStats is update_sg_wakeup_stats: it sets *sgs to group g's statistics for placing
// the task, which is not queued anywhere, so the "without p" variants of the kernel are the plain
// values. Those are the sums update_sg_lb_stats adds up, so a System reads them from the sums it
// keeps of a group of several CPUs (package groupsums) instead of visiting the group's CPUs; a
// machine of unequal capacities, where the misfit test needs every CPU, has none. Then, as the
// kernel's function ends: the group's capacity and weight, group_classify, and avg_load for a
// fully busy or overloaded group. That ending is not a call of its own: at 1024 CPUs a fork
// classifies some 30 groups (docs/performance.md, 6.4).
func (env *WakeEnv) wakeupGroupStats(sd *SchedDomain, g *BalanceGroup, sgs *groupStats) {
	*sgs = groupStats{}
	asym := sd.flags&topology.SDAsymCPUCapacity != 0
	if env.sums != nil && !asym && len(g.list) > 1 {
		sum := env.sums.Sum(g.id)
		sgs.GroupLoad, sgs.GroupUtil, sgs.GroupRunnable = sum.Load, sum.Util, sum.Runnable
		sgs.SumNrRunning, sgs.SumHNrRunning, sgs.IdleCPUs = sum.NrRunning, sum.HNrRunning, sum.Idle
	} else {
		if asym {
			sgs.MisfitTaskLoad = 1
		}
		for _, c := range g.list {
			rq := &env.Stats[c]
			sgs.GroupLoad += rq.Load
			sgs.GroupUtil += rq.Util
			sgs.GroupRunnable += rq.Runnable
			sgs.SumHNrRunning += rq.HNrRunning
			sgs.SumNrRunning += rq.NrRunning
			if rq.NrRunning == 0 {
				sgs.IdleCPUs++
			}
			if asym && sgs.MisfitTaskLoad != 0 && fitsCapacity(env.Task.util, rq.Capacity) {
				sgs.MisfitTaskLoad = 0
			}
		}
	}
	sgs.GroupCapacity = g.capacity
	sgs.GroupWeight = uint32(len(g.list))
	sgs.Type = groupClassify(sd.imbalancePct(), false, sgs)
	if sgs.Type == groupFullyBusy || sgs.Type == groupOverloaded {
		sgs.AvgLoad = sgs.GroupLoad * topology.CapacityScale / sgs.GroupCapacity
	}
}

// pickIdlest is update_pick_idlest.
func pickIdlest(idlest *BalanceGroup, is *groupStats, g *BalanceGroup, s *groupStats) bool {
	if s.Type < is.Type {
		return true
	}
	if s.Type > is.Type {
		return false
	}
	switch s.Type {
	case groupOverloaded, groupFullyBusy:
		if is.AvgLoad <= s.AvgLoad {
			return false
		}
	case groupImbalanced:
		return false
	case groupMisfitTask:
		if idlest.maxCap >= g.maxCap {
			return false
		}
	case groupHasSpare:
		if is.IdleCPUs > s.IdleCPUs {
			return false
		}
		if is.IdleCPUs == s.IdleCPUs && is.GroupUtil <= s.GroupUtil {
			return false
		}
	}
	return true
}

// FindIdlestGroup returns the least busy group of sd for the task, or nil to stay in the local
// group: find_idlest_group of v6.5. Groups without an allowed CPU are skipped; every group
// holding this counts as local. The idlest group has the lowest type, then the lowest avg_load
// (fully busy, overloaded), the largest capacity (misfit), or the most idle CPUs and then the
// least utilisation (spare capacity). It is returned only if the local group is of a higher
// type, or by the same rules clearly busier: by more than imbalance_pct and 17% of a nice-0
// load of avg_load (and not within that load at NUMA levels), or with fewer idle CPUs (at NUMA
// levels only beyond the imbalance adjust_numa_imbalance tolerates).
func FindIdlestGroup(env *WakeEnv, sd *SchedDomain, this topology.CPU, p *smp.Params) *BalanceGroup {
	all := env.allAllowed() // then every group has an allowed CPU
	if env.sums != nil && sd.flags&topology.SDAsymCPUCapacity == 0 && all {
		return env.findIdlestGroupSums(sd, this)
	}
	t := env.Task
	var idlest, local *BalanceGroup
	// The statistics live where the kernel keeps them (local_sgs, tmp_sgs, idlest_sgs): filled
	// in place, and copied only when a group becomes the idlest so far.
	var ls, tmp groupStats
	is := groupStats{AvgLoad: math.MaxUint32, Type: groupOverloaded}
	for _, g := range sd.groups {
		if !all && !g.cpus.Overlaps(*t.allowed) {
			continue
		}
		isLocal := g.cpus.Has(this)
		sgs := &tmp
		if isLocal {
			local, sgs = g, &ls
		}
		env.wakeupGroupStats(sd, g, sgs)
		if !isLocal && pickIdlest(idlest, &is, g, sgs) {
			idlest, is = g, *sgs
		}
	}
	return env.idlestOverLocal(sd, idlest, local, &is, &ls)
}

// idlestOverLocal is the end of find_idlest_group: idlest, with statistics is, if it beats
// local, with statistics ls (either group nil if there was none).
func (env *WakeEnv) idlestOverLocal(sd *SchedDomain, idlest, local *BalanceGroup, is, ls *groupStats) *BalanceGroup {
	if idlest == nil {
		return nil
	}
	if local == nil {
		return idlest
	}
	if ls.Type < is.Type {
		return nil
	}
	if ls.Type > is.Type {
		return idlest
	}
	switch ls.Type {
	case groupOverloaded, groupFullyBusy:
		imbalance := ScaleLoadDown(NiceZeroLoad) * (sd.imbalancePct() - 100) / 100
		if sd.flags&topology.SDNUMA != 0 && is.AvgLoad+imbalance >= ls.AvgLoad {
			return nil
		}
		if is.AvgLoad >= ls.AvgLoad+imbalance {
			return nil
		}
		if 100*ls.AvgLoad <= sd.imbalancePct()*is.AvgLoad {
			return nil
		}
	case groupImbalanced:
		return nil
	case groupMisfitTask:
		if local.maxCap >= idlest.maxCap {
			return nil
		}
	case groupHasSpare:
		if sd.flags&topology.SDNUMA != 0 {
			imbNumaNr := sd.imbNumaNr
			if t := env.Task; t.nAllowed != env.Domains.topo.NumCPUs() {
				allowed := local.cpus.Intersect(*t.allowed)
				imbNumaNr = min(allowed.Count(), imbNumaNr)
			}
			imb := int32(ls.IdleCPUs - is.IdleCPUs)
			if imb < 0 {
				imb = -imb
			}
			if adjustNumaImbalance(imb, int32(ls.SumNrRunning+1), int32(imbNumaNr)) == 0 {
				return nil
			}
		}
		if ls.IdleCPUs >= is.IdleCPUs {
			return nil
		}
	}
	return idlest
}

// findIdlestGroupSums is [FindIdlestGroup] for a System's task allowed on every CPU at a domain
// without SD_ASYM_CPUCAPACITY, with the same answer. It visits the groups in the same order,
// each group's update_sg_wakeup_stats read from its sums (or its one CPU's statistics) as the
// readable form reads them, but keeps of a group only its place in update_pick_idlest's order
// (package groupsums's Key: two words, which the sums keep until they change), so that no
// group's statistics are zeroed, filled or copied whole, and few are classified; the local
// group (the last holding this, as there) is tested with one word of its mask and classified
// once the walk is done. A domain whose groups' Keys the System keeps in a ring
// (select_ring.go) is not walked when asked from its own CPU: the ring gives the walk's answer
// and the local group's Key. At 1024 CPUs a fork reads some 30 groups, 24 of them from rings
// (docs/performance.md, 6.4).
func (env *WakeEnv) findIdlestGroupSums(sd *SchedDomain, this topology.CPU) *BalanceGroup {
	pct := sd.imbalancePct()
	var idlest, local *BalanceGroup
	ik := groupsums.Root
	var lk groupsums.Key // the local group's
	var nr uint32        // and its sum_nr_running
	if sd.ring != 0 && this == sd.cpu {
		// The groups' Keys kept in a ring (select_ring.go): the first of the least in the
		// walk's order, which starts after the local group, sd.groups[0], the one holding
		// the domain's CPU, whose Key the ring holds too.
		local = sd.groups[0]
		var pos int
		if pos, ik, lk = env.sums.RingLeast(int(sd.ring), int(sd.ringPos)); pos < 0 {
			return nil
		}
		if pos -= int(sd.ringPos); pos < 0 {
			pos += len(sd.groups)
		}
		idlest, nr = sd.groups[pos], env.sums.Sum(local.id).NrRunning
	} else {
		word, bit := int(this>>6), uint64(1)<<(this&63)
		var one groupsums.Sum
		for _, g := range sd.groups {
			if g.cpus.Word(word)&bit != 0 {
				local = g
				continue
			}
			var k groupsums.Key
			if len(g.list) > 1 {
				k = env.sums.Key(g.id, g.capacity, uint32(len(g.list)), pct)
			} else {
				one = groupsums.OneCPU(sumStat(&env.Stats[g.list[0]]))
				k = one.Wake(g.capacity, 1, pct)
			}
			if k.Less(ik) {
				idlest, ik = g, k
			}
		}
		if idlest == nil || local == nil {
			return idlest
		}
		ls := &one
		if len(local.list) > 1 {
			ls = env.sums.Sum(local.id)
		} else {
			one = groupsums.OneCPU(sumStat(&env.Stats[local.list[0]]))
		}
		lk, nr = ls.Wake(local.capacity, uint32(len(local.list)), pct), ls.NrRunning
	}
	lstats := groupStats{Type: groupType(lk.Type()), AvgLoad: lk.AvgLoad(), IdleCPUs: lk.Idle(), SumNrRunning: nr}
	is := groupStats{Type: groupType(ik.Type()), AvgLoad: ik.AvgLoad(), IdleCPUs: ik.Idle()}
	return env.idlestOverLocal(sd, idlest, local, &is, &lstats)
}

// FindIdlestGroupCPU returns the CPU of group g to put the task on: find_idlest_group_cpu. A
// group of one CPU gives that CPU; otherwise, among the allowed CPUs, the first that runs only
// SCHED_IDLE work, else the idle CPU that went idle most recently (no idle-state exit latencies
// are modelled), else the least loaded CPU, else this.
func FindIdlestGroupCPU(env *WakeEnv, g *BalanceGroup, this topology.CPU, p *smp.Params) topology.CPU {
	if len(g.list) == 1 {
		return g.list[0]
	}
	if env.least != nil && leastGroup(g) && env.allAllowed() {
		return env.leastGroupCPU(g, this)
	}
	st := env.Stats
	minLoad := uint64(math.MaxUint64)
	least := this
	var latest uint64
	shallowest, haveShallowest := topology.CPU(0), false
	for _, c := range g.list {
		if !env.Task.allowed.Has(c) {
			continue
		}
		rq := &st[c]
		if rq.IdleOnly() {
			return c
		}
		if rq.Idle() {
			if rq.IdleStamp > latest {
				latest, shallowest, haveShallowest = rq.IdleStamp, c, true
			}
		} else if !haveShallowest && rq.Load < minLoad {
			minLoad, least = rq.Load, c
		}
	}
	if haveShallowest {
		return shallowest
	}
	return least
}

// FindIdlestCPU is the slow path of placement, find_idlest_cpu: from domain sd of CPU this
// down, at every level carrying flag, move to the idlest group's idlest CPU and continue at
// that CPU's domains below the level just balanced. It returns prev if no CPU of sd is allowed.
func FindIdlestCPU(env *WakeEnv, sd *SchedDomain, this, prev topology.CPU, flag topology.DomainFlags, p *smp.Params) topology.CPU {
	// A System's task allowed on every CPU meets every span: its count says so (allAllowed).
	if !env.allAllowed() && !sd.span.Overlaps(*env.Task.allowed) {
		return prev
	}
	cpu, newCPU := this, this
	for sd != nil {
		if sd.flags&flag == 0 {
			sd = sd.child
			continue
		}
		g := FindIdlestGroup(env, sd, cpu, p)
		if g == nil {
			sd = sd.child
			continue
		}
		newCPU = FindIdlestGroupCPU(env, g, cpu, p)
		if newCPU == cpu {
			sd = sd.child
			continue
		}
		cpu = newCPU
		weight := sd.weight
		sd = nil
		chain := env.Domains.chains[cpu]
		for i := range chain {
			tmp := &chain[i] // ranging by value copied every domain, some 270 instructions a fork
			if weight <= tmp.weight {
				break
			}
			if tmp.flags&flag != 0 {
				sd = &chain[tmp.level]
			}
		}
	}
	return newCPU
}

// allAllowed reports whether the task may run on every CPU of a System's machine: a System
// keeps a task's allowed CPUs within its machine's (System.Fork and System.SetAttr intersect
// them with it), so their count says it. It is false outside a System (no idle mask), where
// the set may hold other CPUs.
func (env *WakeEnv) allAllowed() bool {
	return env.idle != nil && env.Task.nAllowed == env.Domains.topo.NumCPUs()
}

// leastMinCPUs is the size from which find_idlest_group_cpu reads a System's tree of loads
// rather than walking the group. The walk costs some 28 instructions a CPU at 1024 CPUs; with
// the caches of 16 CPUs of BenchmarkHuge's machine read from the tree too, its placements cost
// 691.3 M instructions, against 702.8 M when only groups of 64 CPUs or more are
// (docs/performance.md, 6.4).
const leastMinCPUs = 16

// leastGroup reports whether FindIdlestGroupCPU answers for group g from a System's idle mask
// and tree of loads (package leastload), for a task allowed on every CPU: the rule is a group
// of at least leastMinCPUs CPUs whose ids are consecutive, so that the tree reads it as one
// range. Its list ascends, as the kernel's for_each_cpu_and does.
func leastGroup(g *BalanceGroup) bool {
	n := len(g.list)
	return n >= leastMinCPUs && int(g.list[n-1]-g.list[0]) == n-1
}

// leastKey is a CPU's key in the tree of loads: find_idlest_group_cpu compares the loads of the
// CPUs that are neither idle nor SCHED_IDLE-only, which the idle mask holds, so those take no
// part.
func leastKey(st *smp.CPUStat) uint64 {
	if st.NrRunning == st.IdleHNrRunning {
		return leastload.None
	}
	return st.Load
}

// leastGroupCPU is FindIdlestGroupCPU for a group leastGroup accepts and a task allowed on
// every CPU, with the same answer: the idle mask's CPUs of the group in ascending order, the
// first SCHED_IDLE-only one taken, else the idle one with the latest stamp; without one, the
// tree's least loaded busy CPU (the lowest id of equal loads), else this.
func (env *WakeEnv) leastGroupCPU(g *BalanceGroup, this topology.CPU) topology.CPU {
	lo, hi := g.list[0], g.list[len(g.list)-1]
	var latest uint64
	shallowest, haveShallowest := topology.CPU(0), false
	for i := int(lo >> 6); i <= int(hi>>6); i++ {
		w := env.idle.Word(i) & g.cpus.Word(i)
		for w != 0 {
			c := topology.CPU(i<<6 + bits.TrailingZeros64(w))
			w &= w - 1
			rq := &env.Stats[c]
			if rq.NrRunning != 0 { // in the mask with tasks: SCHED_IDLE-only
				return c
			}
			if rq.IdleStamp > latest {
				latest, shallowest, haveShallowest = rq.IdleStamp, c, true
			}
		}
	}
	if haveShallowest {
		return shallowest
	}
	if c, load := env.least.Least(int(lo), int(hi)+1); load != leastload.None {
		return topology.CPU(c)
	}
	return this
}
