// This file implements wakeup and fork placement of v6.5 as pure functions: select_task_rq_fair
// with wake_wide and wake_affine (wake_affine_idle, wake_affine_weight), the fast path
// select_idle_sibling (select_idle_smt, select_idle_core, select_idle_cpu,
// select_idle_capacity); the slow path find_idlest_cpu is in select_idlest.go.

package cfs

import (
	"fmt"
	"math"
	"slices"

	"github.com/schedkit/schedkit/cfs/internal/groupsums"
	"github.com/schedkit/schedkit/cfs/internal/idlescan"
	"github.com/schedkit/schedkit/cfs/internal/leastload"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A WakeEnv is the state a placement decision reads: the machine's state and the waking or new
// task. The tunables are not part of it: every placement decision takes them as its last
// argument, p *[smp.Params]. Decisions never modify either.
type WakeEnv struct {
	// Domains is the topology as the balancer sees it.
	Domains *Domains
	// Stats holds every CPU's statistics, indexed by CPU id.
	Stats []smp.CPUStat
	// Task is the task being placed (p), and Waker the task running on This that wakes it
	// (current), or nil.
	Task, Waker *Task
	// This is the CPU the wakeup or fork runs on (smp_processor_id), Prev the task's previous
	// CPU (prev_cpu; for a fork, the parent's CPU).
	This, Prev topology.CPU
	// Sync is WF_SYNC: the waker is about to sleep. Fork is WF_FORK (SD_BALANCE_FORK and the
	// slow path), Exec WF_EXEC; neither means WF_TTWU.
	Sync, Fork, Exec bool
	// HasIdleCores holds sd_llc_shared->has_idle_cores, indexed by LLC id ([Domains.llcid]).
	HasIdleCores []bool
	// NrIdleScan holds sd_llc_shared->nr_idle_scan, indexed by LLC id.
	NrIdleScan []int

	idle  *idlescan.Mask   // a System's idle (or SCHED_IDLE-only) CPUs, or nil
	sums  *groupsums.Index // a System's sums of each group of several CPUs, or nil
	least *leastload.Tree  // a System's busy CPUs' loads (see leastGroupCPU), or nil
}

// A PlaceReason says how [SelectTaskRQ] chose its CPU.
type PlaceReason uint8

const (
	// placePrev: no domain applied; the task stays on its previous CPU.
	placePrev PlaceReason = iota
	// placeIdlest: the slow path (fork, exec) descended through the idlest groups.
	placeIdlest
	// placeTargetIdle: the fast path's target (this CPU or prev after wake_affine) is idle.
	placeTargetIdle
	// placePrevIdle: the previous CPU shares the target's cache and is idle.
	placePrevIdle
	// placeRecentIdle: the CPU the task used before its previous one shares the cache and
	// is idle.
	placeRecentIdle
	// placeIdleCapacity: on a machine of unequal capacities, an idle CPU the task fits.
	placeIdleCapacity
	// placeIdleSMT: an idle SMT sibling of the previous CPU.
	placeIdleSMT
	// placeIdleCore: an idle core in the target's LLC.
	placeIdleCore
	// placeIdleCPU: an idle CPU in the target's LLC.
	placeIdleCPU
	// placeTargetBusy: nothing idle was found; the target it is.
	placeTargetBusy
	// placeFallback: the chosen CPU is not allowed; select_fallback_rq chose another.
	placeFallback
)

var placeReasons = [...]string{
	placePrev:         "previous CPU, no domain applies",
	placeIdlest:       "idlest CPU of the idlest groups (slow path)",
	placeTargetIdle:   "target idle",
	placePrevIdle:     "previous CPU idle and cache-affine",
	placeRecentIdle:   "recently used CPU idle and cache-affine",
	placeIdleCapacity: "idle CPU with enough capacity",
	placeIdleSMT:      "idle SMT sibling of the previous CPU",
	placeIdleCore:     "idle core in the LLC",
	placeIdleCPU:      "idle CPU in the LLC",
	placeTargetBusy:   "no idle CPU found, target kept",
	placeFallback:     "chosen CPU not allowed, fallback",
}

// String explains the reason in a few words.
func (r PlaceReason) String() string { return sched.EnumName(placeReasons[:], r, "PlaceReason") }

// A CPUSelection is the outcome of [SelectTaskRQ] and [SelectIdleSibling]. How the CPU was chosen
// is not part of it: the decisions return it beside the selection, as a [PlaceReason].
type CPUSelection struct {
	// CPU is the chosen CPU.
	CPU topology.CPU
	// wantAffine reports whether the wakeup could move the task towards the waker
	// (!wake_wide and the waker's CPU allowed); affine whether wake_affine chose This.
	wantAffine, affine bool
	// affineDomain is the wake-affine domain used, if any; target the fast path's target.
	affineDomain *SchedDomain
	target       topology.CPU
	// ClearIdleCores reports that select_idle_cpu found no idle core, so the caller clears
	// the LLC's has_idle_cores; setRecentUsed that p->recent_used_cpu, which only the System
	// keeps, becomes recentUsed.
	ClearIdleCores bool
	setRecentUsed  bool
	recentUsed     topology.CPU
	// scanned is the number of CPUs select_idle_cpu examined.
	scanned int
}

// Explain explains the placement, made for reason r (the reason returned with it).
func (p CPUSelection) Explain(r PlaceReason) string {
	s := fmt.Sprintf("placed on %v: %v", p.CPU, r)
	if p.affineDomain != nil {
		side := "previous CPU"
		if p.affine {
			side = "waker's CPU"
		}
		s += fmt.Sprintf(" (wake_affine at %s chose the %s, target %v)", p.affineDomain.Name(), side, p.target)
	}
	if p.scanned > 0 {
		s += fmt.Sprintf(", %d CPUs scanned", p.scanned)
	}
	return s
}

// wakeWide reports whether waker and wakee wake many partners, so that the wakee should not be
// pulled next to the waker: wake_wide. With llcSize the LLC's CPU count, the smaller of the two
// flip counts must reach llcSize and the larger must be llcSize times the smaller.
func wakeWide(wakerFlips, wakeeFlips uint32, llcSize int) bool {
	master, slave := wakerFlips, wakeeFlips
	if master < slave {
		master, slave = slave, master
	}
	factor := uint32(llcSize)
	return !(slave < factor || master < slave*factor)
}

// wakeLoad is the load a placement attributes to task t: task_h_load while it is queued, its
// own unscaled weight while it sleeps (the model keeps no blocked load).
func wakeLoad(t *Task) uint64 {
	if t.E.onRQ {
		return TaskHLoad(t.E)
	}
	return ScaleLoadDown(t.E.load.Weight)
}

// WakeAffine decides between the waker's CPU this and the wakee's previous CPU prev at domain
// sd: wake_affine. WA_IDLE takes an idle this when it shares the cache with prev (prev if that
// is idle too), this on a sync wakeup when the waker runs alone there, and an idle prev. Then
// WA_WEIGHT compares the loads the two CPUs would have with the wakee (this minus a sync
// waker's load), each scaled by the other's capacity, biased by half of imbalance_pct towards
// prev with WA_BIAS, and takes this only if it comes out strictly lighter. It reports whether
// this was chosen.
func WakeAffine(env *WakeEnv, sd *SchedDomain, this, prev topology.CPU, p *smp.Params) bool {
	st := env.Stats
	target := -1
	if p.WAIdle {
		switch {
		case st[this].Idle() && env.Domains.shareCache(this, prev):
			if st[prev].Idle() {
				target = int(prev)
			} else {
				target = int(this)
			}
		case env.Sync && st[this].NrRunning == 1:
			target = int(this)
		case st[prev].Idle():
			target = int(prev)
		}
	}
	if p.WAWeight && target == -1 {
		thisEff := int64(st[this].Load)
		weight := true
		if env.Sync && env.Waker != nil {
			cur := int64(wakeLoad(env.Waker))
			if cur > thisEff {
				target, weight = int(this), false
			} else {
				thisEff -= cur
			}
		}
		if weight {
			taskLoad := int64(wakeLoad(env.Task))
			thisEff += taskLoad
			if p.WABias {
				thisEff *= 100
			}
			thisEff *= int64(st[prev].Capacity)
			prevEff := int64(st[prev].Load) - taskLoad
			if p.WABias {
				prevEff *= 100 + (int64(sd.imbalancePct())-100)/2
			}
			prevEff *= int64(st[this].Capacity)
			if env.Sync {
				prevEff++
			}
			if thisEff < prevEff {
				target = int(this)
			}
		}
	}
	return target == int(this)
}

// idleish reports whether c is idle or runs only SCHED_IDLE tasks (available_idle_cpu ||
// sched_idle_cpu).
func idleish(st []smp.CPUStat, c topology.CPU) bool { return st[c].Idle() || st[c].IdleOnly() }

// asymFits is asym_fits_cpu: on a machine of unequal capacities, whether task util fits c.
func (env *WakeEnv) asymFits(c topology.CPU) bool {
	if !env.Domains.topo.Asymmetric() {
		return true
	}
	return fitsCapacity(env.Task.util, env.Stats[c].Capacity)
}

// SelectIdleSibling returns the CPU near target to wake the task on, and why: select_idle_sibling of
// v6.5. In order: an idle (or SCHED_IDLE-only) target; the previous CPU if it shares target's
// cache and is idle; the recently used CPU on the same terms if allowed; on a machine of unequal
// capacities, the first idle CPU the task fits in target's asymmetric domain; then, with SMT
// and no idle core known in the LLC, an idle sibling of a cache-affine previous CPU; then
// select_idle_cpu's scan of target's LLC from target+1, wrapping, for an idle core when one is
// known to exist, else for an idle CPU, at most NrIdleScan CPUs with SIS_UTIL. Without an LLC
// domain, or when nothing is idle, target. The returned CPUSelection also says whether the
// LLC's has_idle_cores should be cleared and records p->recent_used_cpu = prev. The complexity
// is O(CPUs of the LLC).
//
// Two fast forms stand behind it, each chosen by one rule, both in a placement by a [System],
// which keeps a mask of the idle (or SCHED_IDLE-only) CPUs in the WakeEnv it passes (package
// cfs/internal/idlescan): select_idle_cpu's scan for an idle CPU (no idle core sought) of an LLC
// of more than eight CPUs reads the mask, the LLC's span and the task's affinity a word of 64
// CPUs at a time; and on a machine where every CPU's SMT siblings lie in its own word of the
// bitmap, select_idle_smt is one AND of that word of the mask, the siblings and the affinity.
// The CPU, the scan count and the reason are the walk's. A WakeEnv built by a caller has no
// mask, and walks.
func SelectIdleSibling(env *WakeEnv, prev, target topology.CPU, p *smp.Params) (CPUSelection, PlaceReason) {
	var pl CPUSelection
	why := selectIdleSibling(env, prev, target, p, &pl)
	return pl, why
}

// selectIdleSibling is [SelectIdleSibling] filling *pl's fields of the fast path, which it
// resets first: the placement (five words and more) stays in its caller's variable through the
// calls of a wakeup. The wake-affine fields (wantAffine, affine, affineDomain) are
// select_task_rq_fair's, which decided them before, and are left as they are.
func selectIdleSibling(env *WakeEnv, prev, target topology.CPU, p *smp.Params, pl *CPUSelection) PlaceReason {
	st := env.Stats
	t := env.Task
	pl.CPU, pl.target, pl.scanned = target, target, 0
	pl.ClearIdleCores, pl.setRecentUsed, pl.recentUsed = false, false, 0
	ds := env.Domains
	if idleish(st, target) && env.asymFits(target) {
		return placeTargetIdle
	}
	if prev != target && ds.shareCache(prev, target) && idleish(st, prev) && env.asymFits(prev) {
		pl.CPU = prev
		return placePrevIdle
	}
	recent := t.recentUsedCPU
	pl.setRecentUsed, pl.recentUsed = true, prev
	if recent != prev && recent != target && ds.shareCache(recent, target) && idleish(st, recent) &&
		t.allowed.Has(recent) && env.asymFits(recent) {
		pl.CPU = recent
		return placeRecentIdle
	}
	if ds.topo.Asymmetric() {
		if sd := ds.asymCapacity(target); sd != nil {
			if c, ok := env.selectIdleCapacity(sd, target); ok {
				pl.CPU = c
				return placeIdleCapacity
			}
			return placeTargetBusy
		}
	}
	sd := ds.llc[target]
	if sd == nil {
		return placeTargetBusy
	}
	hasIdleCore := false
	llc := ds.llcid(target)
	if ds.smtActive() {
		hasIdleCore = env.HasIdleCores != nil && env.HasIdleCores[llc]
		if !hasIdleCore && ds.shareCache(prev, target) {
			var c topology.CPU
			var ok bool
			if env.idle != nil && ds.smtOthers != nil {
				// A System's mask of the idle CPUs: the same loop a word at a time (package
				// idlescan).
				c, ok = env.idle.Sibling(prev, ds.smtOthers[prev], t.allowed)
			} else {
				c, ok = env.selectIdleSMT(prev)
			}
			if ok {
				pl.CPU = c
				return placeIdleSMT
			}
		}
	}
	c, ok, core, scanned := env.selectIdleCPU(sd, hasIdleCore, target, llc, p)
	pl.scanned = scanned
	pl.ClearIdleCores = hasIdleCore && !core
	switch {
	case !ok:
		return placeTargetBusy
	case core:
		pl.CPU = c
		return placeIdleCore
	}
	pl.CPU = c
	return placeIdleCPU
}

// selectIdleSMT is select_idle_smt: the first SMT sibling of core other than core itself, in
// ascending order, that the task may use and that is idle (or SCHED_IDLE-only).
func (env *WakeEnv) selectIdleSMT(core topology.CPU) (topology.CPU, bool) {
	for _, c := range env.Domains.smt[core] {
		if c != core && env.Task.allowed.Has(c) && idleish(env.Stats, c) {
			return c, true
		}
	}
	return 0, false
}

// selectIdleCPU is select_idle_cpu with select_idle_core: the scan of LLC domain sd. It reports
// the CPU found, whether one was, whether it is a whole idle core (when hasIdleCore; otherwise
// the hint is stale and the caller clears it), and how many CPUs it examined.
func (env *WakeEnv) selectIdleCPU(sd *SchedDomain, hasIdleCore bool, target, llc topology.CPU, p *smp.Params) (cpu topology.CPU, ok, core bool, scanned int) {
	st := env.Stats
	t := env.Task
	nr := math.MaxInt
	if p.SISUtil && env.NrIdleScan != nil {
		nr = env.NrIdleScan[llc] + 1
		if nr == 1 {
			return 0, false, false, 0
		}
	}
	list := sd.list
	n := len(list)
	if !hasIdleCore && env.idle != nil && n > maxWalk {
		// A System's mask of the idle CPUs: the same loop a word at a time (package idlescan).
		return scanIdle(env.idle, sd, t.allowed, target+1, nr)
	}
	// for_each_cpu_wrap from target+1: the scan starts at the first CPU of the ascending span
	// above target: in a span of consecutive CPUs (which holds target) at target+1's offset,
	// otherwise found by bisection rather than a walk from the span's start.
	var start int
	if int(list[n-1]-list[0]) == n-1 {
		start = int(target + 1 - list[0])
	} else {
		start, _ = slices.BinarySearch(list, target+1)
	}
	if !hasIdleCore {
		// select_idle_cpu's own loop: the first idle (or SCHED_IDLE-only) allowed CPU, the
		// budget counted down at each allowed CPU examined.
		for k := range n {
			i := start + k
			if i >= n {
				i -= n
			}
			c := list[i]
			if !t.allowed.Has(c) {
				continue
			}
			scanned++
			nr--
			if nr == 0 {
				return 0, false, false, scanned
			}
			if idleish(st, c) {
				return c, true, false, scanned
			}
		}
		return 0, false, false, scanned
	}
	// select_idle_core at each allowed CPU: a wholly idle core, remembering the first idle (or
	// SCHED_IDLE-only) allowed CPU met on the way in case there is none.
	var skip topology.CPUSet // cores already examined (cpumask_andnot in select_idle_core)
	idleCPU, found := topology.CPU(0), false
	for k := range n {
		i := start + k
		if i >= n {
			i -= n
		}
		c := list[i]
		if !t.allowed.Has(c) || skip.Has(c) {
			continue
		}
		scanned++
		if env.selectIdleCore(c, &skip, &idleCPU, &found) {
			return c, true, true, scanned
		}
	}
	return idleCPU, found, false, scanned
}

// selectIdleCore is select_idle_core: it reports whether every SMT sibling of core (core
// included) is idle. On the way it records in *idleCPU the first allowed idle sibling, or a
// SCHED_IDLE-only one, unless *found says one is recorded already; and a core that is not idle
// joins skip, so that the scan passes over its siblings (cpumask_andnot).
func (env *WakeEnv) selectIdleCore(core topology.CPU, skip *topology.CPUSet, idleCPU *topology.CPU, found *bool) bool {
	st, t := env.Stats, env.Task
	idle := true
	for _, s := range env.Domains.smt[core] {
		if !st[s].Idle() {
			idle = false
			if !*found {
				if st[s].IdleOnly() && t.allowed.Has(s) {
					*idleCPU, *found = s, true
					break
				}
				continue
			}
			break
		}
		if !*found && t.allowed.Has(s) {
			*idleCPU, *found = s, true
		}
	}
	if idle {
		return true
	}
	for _, s := range env.Domains.smt[core] {
		skip.Add(s)
	}
	return false
}

// maxWalk is the largest LLC whose scan for an idle CPU walks its CPUs even when a System's
// mask of the idle CPUs could be read: on the 4-CPU periodic set of bench/sim the mask's scan
// cost a few instructions a step more than the walk (scripts/simcount), and on small LLCs the
// walk meets an idle CPU within a CPU or two.
const maxWalk = 8

// scanIdle is the fast form of selectIdleCPU's loop without an idle core (package idlescan).
// It reads the words of the bitmaps that hold the LLC's CPUs (sd.scan).
func scanIdle(m *idlescan.Mask, sd *SchedDomain, allowed *topology.CPUSet, from topology.CPU, nr int) (cpu topology.CPU, ok, core bool, scanned int) {
	cpu, ok, scanned = m.Scan(sd.scan, allowed, from, nr)
	return cpu, ok, false, scanned
}

// selectIdleCapacity is select_idle_capacity: the first idle CPU of sd from target+1, wrapping,
// that the task fits, else the idle CPU of largest capacity.
func (env *WakeEnv) selectIdleCapacity(sd *SchedDomain, target topology.CPU) (topology.CPU, bool) {
	st := env.Stats
	t := env.Task
	span := sd.span.Intersect(*t.allowed)
	var best topology.CPU
	var bestCap uint64
	found := false
	visit := func(c topology.CPU) bool {
		if !idleish(st, c) {
			return false
		}
		cp := st[c].Capacity
		if fitsCapacity(t.util, cp) {
			best, found = c, true
			return true
		}
		if cp > bestCap {
			best, bestCap, found = c, cp, true
		}
		return false
	}
	for c, ok := span.After(target); ok; c, ok = span.After(c) {
		if visit(c) {
			return c, true
		}
	}
	for c, ok := span.First(); ok && c <= target; c, ok = span.After(c) {
		if visit(c) {
			return c, true
		}
	}
	return best, found
}

// SelectTaskRQ chooses the CPU for a waking or new task: select_task_rq_fair of v6.5 followed
// by the core's is_cpu_allowed check. A wakeup (neither Fork nor Exec) may go affine unless
// wake_wide says the waker and wakee have many partners or This is not allowed: at the first
// SD_WAKE_AFFINE domain of This that also holds Prev, [WakeAffine] picks This or Prev as the
// target of [SelectIdleSibling]. Otherwise the highest domain of This in the run carrying
// SD_BALANCE_FORK (or _EXEC, or _WAKE for a wakeup that cannot go affine) leads to the slow
// path [FindIdlestCPU]; with no such domain a wakeup takes the fast path around Prev, and a fork
// stays on Prev. A result the task may not run on is replaced by select_fallback_rq's choice:
// the first allowed CPU of Prev's node, else the first allowed CPU. SelectTaskRQ changes
// nothing; the CPUSelection says what the caller updates, and the PlaceReason how the CPU was
// chosen.
func SelectTaskRQ(env *WakeEnv, p *smp.Params) (CPUSelection, PlaceReason) {
	var pl CPUSelection
	why := selectTaskRQ(env, p, &pl)
	return pl, why
}

// selectTaskRQ is [SelectTaskRQ] filling *pl, which it resets first.
func selectTaskRQ(env *WakeEnv, p *smp.Params, pl *CPUSelection) PlaceReason {
	t := env.Task
	ds := env.Domains
	ttwu := !env.Fork && !env.Exec
	flag := topology.SDBalanceWake
	switch {
	case env.Fork:
		flag = topology.SDBalanceFork
	case env.Exec:
		flag = topology.SDBalanceExec
	}
	this, prev := env.This, env.Prev
	newCPU := prev
	*pl = CPUSelection{}
	if ttwu {
		waker := uint32(0)
		if env.Waker != nil {
			waker = env.Waker.wakeeFlips
		}
		pl.wantAffine = !wakeWide(waker, t.wakeeFlips, ds.llcSize(this)) && t.allowed.Has(this)
	}
	var sd *SchedDomain
	for k := range ds.chains[this] {
		tmp := &ds.chains[this][k]
		if pl.wantAffine && tmp.flags&topology.SDWakeAffine != 0 && tmp.span.Has(prev) {
			if this != prev {
				if WakeAffine(env, tmp, this, prev, p) {
					newCPU, pl.affine = this, true
				}
			}
			pl.affineDomain = tmp
			sd = nil
			break
		}
		if tmp.flags&flag != 0 {
			sd = tmp
		} else if !pl.wantAffine {
			break
		}
	}
	var why PlaceReason
	switch {
	case sd != nil:
		pl.CPU, why = FindIdlestCPU(env, sd, this, prev, flag, p), placeIdlest
	case ttwu:
		why = selectIdleSibling(env, prev, newCPU, p, pl)
	default:
		pl.CPU, why = newCPU, placePrev
	}
	if !t.allowed.Has(pl.CPU) {
		pl.CPU, why = fallbackCPU(ds.topo, t, prev), placeFallback
	}
	return why
}

// fallbackCPU is select_fallback_rq: an allowed CPU of prev's node, else any allowed CPU, the
// first in ascending order.
func fallbackCPU(t *topology.Topology, task *Task, prev topology.CPU) topology.CPU {
	node := t.Node(prev)
	for c := range task.allowed.All() {
		if t.Has(c) && t.Node(c) == node {
			return c
		}
	}
	for c := range task.allowed.All() {
		if t.Has(c) {
			return c
		}
	}
	return prev
}
