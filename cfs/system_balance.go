// This file implements the System's load balancing, step by step: rebalance_domains,
// newidle_balance, load_balance (with the moves its decisions call for) and the active-balance
// stopper, active_load_balance_cpu_stop.

package cfs

import (
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// maxPinnedInterval is MAX_PINNED_INTERVAL (ms): the longest balance interval after all tasks
// were pinned.
const maxPinnedInterval = 512

// domainState is the mutable part of a struct sched_domain.
type domainState struct {
	lastBalance int64
	interval    int
	failed      int
}

// RebalanceDomains is rebalance_domains on cpu, in state idle (smp.CPUIdle or smp.CPUNotIdle): from
// the lowest domain up, balance each domain whose interval elapsed ([System.LoadBalance]),
// stopping above a level where another CPU of the group balances, and set the CPU's
// next_balance ([System.NextBalance]) to the earliest next due time. [System.Tick] calls it
// when next_balance is due. It panics if cpu is not a CPU of the machine.
func (s *System) RebalanceDomains(now int64, cpu topology.CPU, idle smp.IdleType) {
	s.mustCPU("RebalanceDomains", cpu)
	s.at(now)
	s.rebalanceDomains(now, cpu, idle)
}

// rebalanceDomains is [System.RebalanceDomains] for a caller that checked cpu and set s.j to
// now's jiffy.
func (s *System) rebalanceDomains(now int64, cpu topology.CPU, idle smp.IdleType) {
	j := s.j
	busy := idle != smp.CPUIdle && !s.stats[cpu].IdleOnly()
	next := j + int64(60*s.hz)
	cont := true
	chain := s.ds.Chain(cpu)
	for k := range chain {
		sd := &chain[k]
		if !cont {
			break
		}
		ds := &s.dom[sd.idx]
		iv := balanceInterval(ds.interval, sd.busyFactor(), busy, s.hz, s.ncpu)
		if j >= ds.lastBalance+iv {
			var moved int
			moved, cont = s.loadBalance(now, cpu, sd, idle)
			if moved > 0 {
				idle = smp.CPUNotIdle
				if s.stats[cpu].Idle() {
					idle = smp.CPUIdle
				}
				busy = idle != smp.CPUIdle && !s.stats[cpu].IdleOnly()
			}
			ds.lastBalance = j
			iv = balanceInterval(ds.interval, sd.busyFactor(), busy, s.hz, s.ncpu)
		}
		next = min(next, ds.lastBalance+iv)
	}
	s.rqs[cpu].nextBalance = next
}

// NewidleBalance is newidle_balance on cpu, about to idle: when some CPU has more than one task (the root domain's
// overload flag), balance each SD_BALANCE_NEWIDLE domain from the lowest up until a task was
// pulled; without the flag, only bring the CPU's next periodic balance forward to the base
// domain's idle interval. The kernel also skips domains whose measured balancing cost exceeds the CPU's average
// idle time; the model has no such costs and never skips. It reports whether a task was pulled
// (or cpu has tasks again). [System.Schedule] calls it for a CPU that found nothing to run. It
// panics if cpu is not a CPU of the machine.
func (s *System) NewidleBalance(now int64, cpu topology.CPU) bool {
	s.mustCPU("NewidleBalance", cpu)
	s.at(now)
	return s.newidleBalance(now, cpu)
}

// newidleBalance is [System.NewidleBalance] for a caller that checked cpu and set s.j to now's
// jiffy.
func (s *System) newidleBalance(now int64, cpu topology.CPU) bool {
	rq := &s.rqs[cpu]
	j := s.j
	next := j + int64(s.hz)
	pulled := false
	if chain := s.ds.Chain(cpu); !s.overload && len(chain) > 0 {
		// Nothing to pull anywhere (rd->overload clear): newidle_balance still brings the
		// next periodic balance forward to the base domain's idle interval.
		sd := &chain[0]
		ds := &s.dom[sd.idx]
		next = min(next, ds.lastBalance+balanceInterval(ds.interval, sd.busyFactor(), false, s.hz, s.ncpu))
	}
	if s.overload {
		for k := range s.ds.Chain(cpu) {
			sd := &s.ds.Chain(cpu)[k]
			ds := &s.dom[sd.idx]
			next = min(next, ds.lastBalance+balanceInterval(ds.interval, sd.busyFactor(), false, s.hz, s.ncpu))
			if sd.flags&topology.SDBalanceNewIdle != 0 {
				moved, _ := s.loadBalance(now, cpu, sd, smp.CPUNewlyIdle)
				pulled = moved > 0
			}
			if pulled || s.stats[cpu].NrRunning > 0 {
				break
			}
		}
	}
	rq.nextBalance = min(rq.nextBalance, next)
	return pulled || s.stats[cpu].NrRunning > 0
}

// LoadBalance is load_balance of v6.5 for cpu at domain sd (one of cpu's [Domains.Chain]) in
// state idle: should_we_balance, [FindBusiestGroup], [FindBusiestQueue], [DetachTasks] with its
// retries (LBF_NEED_BREAK, LBF_DST_PINNED, LBF_ALL_PINNED), the moves, the domain's failure
// count and interval, and, when balancing keeps failing, the start of an active balance (the
// busiest CPU is asked to reschedule, and runs [System.ActiveBalance] at its next
// [System.Schedule]). It returns the number of tasks moved and whether balancing should
// continue at the levels above (should_we_balance). It panics if cpu is not a CPU of the
// machine.
func (s *System) LoadBalance(now int64, cpu topology.CPU, sd *SchedDomain, idle smp.IdleType) (moved int, cont bool) {
	s.mustCPU("LoadBalance", cpu)
	s.at(now)
	return s.loadBalance(now, cpu, sd, idle)
}

// loadBalance is [System.LoadBalance] for a caller that checked cpu and set s.j to now's jiffy.
func (s *System) loadBalance(now int64, cpu topology.CPU, sd *SchedDomain, idle smp.IdleType) (moved int, cont bool) {
	ds := &s.dom[sd.idx]
	env := s.lbEnv(cpu, sd, idle)
	sp := &s.smp
	dstGrpMask := &sd.groups[0].balance // read only: the group's
	var flags LBFlags
	cont = true
	bg := &s.bg // reset by busiestGroup before it is read
	var why BalanceReason
	var src topology.CPU
	activeStarted := false
	scan := idle != smp.CPUNewlyIdle && s.ds.llc[cpu] == sd // update_idle_cpu_scan reads SumUtil
redo:
	if !ShouldWeBalance(env, sp) {
		cont = false
		goto outBalanced
	}
	why = s.busiestGroup(env, bg, cpu, scan)
	if bg.Group == nil {
		goto outBalanced
	}
	{
		var ok bool
		src, ok = FindBusiestQueue(env, bg, sp)
		if !ok {
			goto outBalanced
		}
	}
	flags = LBFAllPinned
	if s.stats[src].NrRunning > 1 {
		var next afterDetach
		moved, flags, next = s.detachFrom(now, env, src, bg, why, dstGrpMask, moved)
		switch next {
		case detachRedo:
			goto redo
		case detachAllPinned:
			goto outAllPinned
		}
	}
	if moved == 0 {
		if idle != smp.CPUNewlyIdle {
			ds.failed++
		}
		if NeedActiveBalance(env, src, bg.Migration, ds.failed, sp) {
			var pinned bool
			if activeStarted, pinned = s.startActiveBalance(cpu, src, sd, bg, why); pinned {
				goto outOnePinned
			}
		}
	} else {
		ds.failed = 0
	}
	if !activeStarted || NeedActiveBalance(env, src, bg.Migration, ds.failed, sp) {
		ds.interval = sd.minInterval()
	}
	return moved, cont

outBalanced:
	if sd.parent != nil && flags&LBFAllPinned == 0 {
		s.sgImb[sd.parent.groups[0].id] = false
	}
outAllPinned:
	ds.failed = 0
outOnePinned:
	if idle == smp.CPUNewlyIdle {
		return 0, cont
	}
	if (flags&LBFAllPinned != 0 && ds.interval < maxPinnedInterval) || ds.interval < sd.maxInterval() {
		ds.interval *= 2
	}
	return 0, cont
}

// lbEnv returns load_balance's lb_env for cpu at domain sd in state idle. It lives in the
// System between balances, so that its cpus mask (a CPUSet of MaxCPUs bits) is copied from the
// domain's span only when it does not hold it already: s.lbSpan names the domain whose span it
// holds, and is cleared where the mask shrinks.
func (s *System) lbEnv(cpu topology.CPU, sd *SchedDomain, idle smp.IdleType) *LBEnv {
	env := &s.lb
	if s.lbSpan != sd {
		env.CPUs, s.lbSpan = sd.span, sd
	}
	env.SD, env.DstCPU, env.Idle, env.Stats, env.GroupImbalance = sd, cpu, idle, s.stats, s.sgImb
	env.NrBalanceFailed, env.MaxCapacity = s.dom[sd.idx].failed, s.ds.maxCapacity()
	return env
}

// busiestGroup is [FindBusiestGroup] as load_balance calls it, with what
// update_sd_lb_stats leaves behind: the root domain's overload flag, and, when scan is set
// (sd is the LLC of cpu, the balancing CPU, not newly idle), the LLC's idle-CPU scan depth from
// the statistics' SumUtil (update_idle_cpu_scan).
func (s *System) busiestGroup(env *LBEnv, bg *BusiestGroup, cpu topology.CPU, scan bool) BalanceReason {
	sd := env.SD
	why := findBusiestGroup(env, bg)
	if s.cmpLog != nil {
		s.logBalance(env, bg, why)
	}
	if sd.parent == nil {
		s.overload = bg.overload
	}
	if scan {
		s.idleScn[s.ds.llcid(cpu)] = idleCPUScan(bg.sumUtil, sd.weight, sd.imbalancePct())
	}
	return why
}

// afterDetach is where [System.loadBalance] goes once [System.detachFrom] is done: on to the
// failure accounting, back to redo with the source CPU masked out, or to out_all_pinned.
type afterDetach uint8

const (
	detachDone afterDetach = iota
	detachRedo
	detachAllPinned
)

// detachFrom is load_balance's more_balance loop for the busiest CPU src: detach_tasks and
// attach_tasks until the imbalance is gone, again after LBF_NEED_BREAK while tasks are left to
// examine, and against a new destination after LBF_DST_PINNED; then the parent group's
// imbalance flag (LBF_SOME_PINNED) and LBF_ALL_PINNED's exclusion of src. moved is the count so
// far (a redo keeps it); it returns the new count, the flags and where load_balance goes next.
func (s *System) detachFrom(now int64, env *LBEnv, src topology.CPU, bg *BusiestGroup, why BalanceReason, dstGrpMask *topology.CPUSet, moved int) (int, LBFlags, afterDetach) {
	sd, idle, flags, sp := env.SD, env.Idle, LBFAllPinned, &s.smp
	if bg.Migration == smp.MigrateUtil || bg.Migration == smp.MigrateMisfit {
		// detach_tasks reads the utilisation of the tasks it examines.
		for p := s.rqs[src].tasks.head; p != nil; p = p.next {
			s.catchUp(p, s.j)
		}
	}
	// The migration env lives in the System too, its dst_grpmask copied only when it does
	// not hold this group's balance mask already (it is never modified).
	me := &s.me
	if s.meMask != dstGrpMask {
		me.DstGroupMask, s.meMask = *dstGrpMask, dstGrpMask
	}
	me.LBEnv, me.Src, me.SrcRQ, me.Now, me.Migration = env, src, s.rqs[src].c, uint64(now), bg.Migration
	me.Imbalance, me.Flags = bg.Imbalance, flags
	examined := 0
	for {
		me.Flags, me.DstRQ = flags, s.rqs[env.DstCPU].c
		d := &s.det
		s.chosen = detachTasks(me, &s.rqs[src].tasks, s.chosen[:0], sp, d)
		examined += d.examined
		s.apply(now, me, d)
		moved += d.detached
		me.Imbalance, flags = d.Imbalance, d.Flags
		if d.detached > 0 {
			if s.explaining() {
				s.explain(me.DstCPU, -1, explainf{"load_balance %v %v: %v; %v from %v", []any{sd.Name(), idle, bg.Explain(why), *d, src}})
			}
		}
		if flags&LBFNeedBreak != 0 {
			flags &^= LBFNeedBreak
			if examined < int(s.stats[src].NrRunning) {
				continue
			}
		}
		if flags&LBFDstPinned != 0 && me.Imbalance > 0 {
			s.lbSpan = nil
			env.CPUs.Remove(env.DstCPU)
			env.DstCPU = d.NewDst
			flags &^= LBFDstPinned
			examined = 0
			continue
		}
		break
	}
	if sd.parent != nil && flags&LBFSomePinned != 0 && me.Imbalance > 0 {
		s.sgImb[sd.parent.groups[0].id] = true
	}
	if flags&LBFAllPinned != 0 {
		s.lbSpan = nil
		env.CPUs.Remove(src)
		if !env.CPUs.SubsetOf(*dstGrpMask) {
			return moved, flags, detachRedo
		}
		return moved, flags, detachAllPinned
	}
	return moved, flags, detachDone
}

// startActiveBalance is load_balance's start of an active balance once need_active_balance
// says so: unless the busiest CPU src's running task may not run on cpu (then it reports
// pinned: out_one_pinned), src is asked to reschedule and push its task to cpu at its next
// [System.Schedule], if it is not doing so already. It returns whether it started one.
func (s *System) startActiveBalance(cpu, src topology.CPU, sd *SchedDomain, bg *BusiestGroup, why BalanceReason) (started, pinned bool) {
	bc := s.rqs[src].curr
	if bc == nil || !bc.allowed.Has(cpu) {
		return false, true
	}
	if !s.rqs[src].active {
		s.rqs[src].active, s.rqs[src].pushCPU = true, cpu
		if s.explaining() {
			s.explain(src, tidOf(bc), explainf{"active balance from %v to %v at %v: %v", []any{src, cpu, sd.Name(), bg.Explain(why)}})
		}
		s.resched(src)
		return true, false
	}
	return false, false
}

// apply carries out a [DetachTasks] outcome: the chosen tasks leave the source, the examined
// tasks that stayed move to the head of its list in examination order, and the chosen ones are
// attached to the destination in reverse detach order (attach_tasks takes them from the head of
// env->tasks, where each was added).
func (s *System) apply(now int64, me *MigrateEnv, d *Detach) {
	src := &s.rqs[me.Src]
	s.examined = s.examined[:0]
	for p, k := src.tasks.tail, 0; p != nil && k < d.examined; p, k = p.prev, k+1 {
		s.examined = append(s.examined, p)
	}
	n := uint64(now)
	for _, t := range s.chosen {
		src.c.migrateOut(t.E, n)
		s.delist(src, t, false)
	}
	for _, t := range s.examined {
		if src.tasks.contains(t) {
			src.tasks.moveToFront(t)
		}
	}
	dst := &s.rqs[me.DstCPU]
	resched := false
	for i := len(s.chosen) - 1; i >= 0; i-- {
		t := s.chosen[i]
		t.migrationsTotal++
		s.enlist(dst, t)
		var w WakeupDecision
		dst.c.migrateIn(t.E, n, &w)
		resched = resched || w.Preempt
	}
	s.refresh(src)
	s.refresh(dst)
	if resched {
		s.resched(dst.id)
	}
}

// ActiveBalance is active_load_balance_cpu_stop on busiest CPU cpu: the stopper preempts the
// fair class (put_prev_task_fair of the task cpu ran, [RunQueue.deschedule]), then moves the
// least recently run task that may run on target there, at the lowest of target's domains
// that spans cpu. It returns the task moved, or nil. [System.Schedule] calls it, with the CPU
// that asked ([System.ActivePending]), when an active balance is pending; a caller may call it
// for any pair of CPUs. It panics if cpu or target is not a CPU of the machine.
func (s *System) ActiveBalance(now int64, cpu, target topology.CPU) *Task {
	s.mustCPU("ActiveBalance", cpu)
	s.mustCPU("ActiveBalance", target)
	s.at(now)
	rq := &s.rqs[cpu]
	rq.c.deschedule(uint64(now))
	rq.active = false
	// The kernel's test is busiest_rq->nr_running <= 1 with the stopper itself counted.
	if s.stats[cpu].NrRunning == 0 {
		return nil
	}
	var sd *SchedDomain
	for k := range s.ds.Chain(target) {
		if d := &s.ds.Chain(target)[k]; d.span.Has(cpu) {
			sd = d
			break
		}
	}
	if sd == nil {
		return nil
	}
	env := LBEnv{SD: sd, DstCPU: target, Idle: smp.CPUIdle, CPUs: sd.span, Stats: s.stats,
		NrBalanceFailed: s.dom[sd.idx].failed, MaxCapacity: s.ds.maxCapacity()}
	// The stopper's lb_env leaves migration_type 0, migrate_load, so v7.1 may push a delayed task.
	me := MigrateEnv{LBEnv: &env, Src: cpu, SrcRQ: rq.c, DstRQ: s.rqs[target].c, Now: uint64(now), Flags: LBFActiveLB}
	for p := rq.tasks.tail; p != nil; p = p.prev {
		if v, _ := CanMigrateTask(&me, p, &s.smp); v.OK {
			s.move(now, p, cpu, target)
			s.dom[sd.idx].failed = 0
			if s.explaining() {
				s.explain(target, -1, explainf{"active balance moved %v from %v", []any{p, cpu}})
			}
			return p
		}
	}
	return nil
}
