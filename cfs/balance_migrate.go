// This file implements the choice of the tasks a load balance moves: task_h_load, task_hot,
// can_migrate_task (with v7.1's delayed-dequeue and eligibility tests as options) and
// detach_tasks of v6.5 as pure functions, and need_active_balance.

package cfs

import (
	"fmt"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// LBFlags are the flags of a load-balancing pass (LBF_*).
type LBFlags uint8

const (
	// LBFAllPinned is LBF_ALL_PINNED: no examined task may run on the destination.
	LBFAllPinned LBFlags = 1 << iota
	// LBFNeedBreak is LBF_NEED_BREAK: a batch of NrMigrate tasks was examined.
	LBFNeedBreak
	// LBFDstPinned is LBF_DST_PINNED: a task refused the destination but may run on another
	// CPU of the destination's group (NewDst).
	LBFDstPinned
	// LBFSomePinned is LBF_SOME_PINNED: some task refused the destination by affinity.
	LBFSomePinned
	// LBFActiveLB is LBF_ACTIVE_LB: an active balance, which ignores cache hotness.
	LBFActiveLB
)

var lbfNames = [...]string{"LBF_ALL_PINNED", "LBF_NEED_BREAK", "LBF_DST_PINNED", "LBF_SOME_PINNED", "LBF_ACTIVE_LB"}

// String returns the set flags by their kernel names joined by "|", or "0".
func (f LBFlags) String() string {
	s := ""
	for i, n := range lbfNames {
		if f&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += n
		}
	}
	if s == "" {
		return "0"
	}
	return s
}

// TaskHLoad returns the load task e contributes to its CPU's root queue: task_h_load, the
// task's unscaled weight times the h_load of its queue divided by that queue's load plus one,
// where a group queue's h_load is its parent's h_load times the group entity's weight divided
// by the parent's load plus one, and the root's is its load. The kernel computes it from PELT
// averages; the model uses the instantaneous weights. For a lone nice-0 task it is 1023. The
// complexity is O(depth).
func TaskHLoad(e *Entity) uint64 {
	q := e.q
	return ScaleLoadDown(e.load.Weight) * queueHLoad(q) / (ScaleLoadDown(q.load.Weight) + 1)
}

// queueHLoad is cfs_rq->h_load as update_cfs_rq_h_load computes it.
func queueHLoad(q *Queue) uint64 {
	if q.se == nil {
		return ScaleLoadDown(q.load.Weight)
	}
	pq := q.se.q
	return queueHLoad(pq) * ScaleLoadDown(q.se.load.Weight) / (ScaleLoadDown(pq.load.Weight) + 1)
}

// A MigrateReason says why [CanMigrateTask] decided as it did.
type MigrateReason uint8

const (
	// migrateOK: the task is cache cold.
	migrateOK MigrateReason = iota
	// migrateActive: an active balance takes any allowed task that is not running.
	migrateActive
	// migrateHotForced: the task is cache hot, but balancing failed more than
	// cache_nice_tries times.
	migrateHotForced
	// migratePinned: the destination is not in the task's allowed CPUs.
	migratePinned
	// migrateRunning: the task is running on the source CPU.
	migrateRunning
	// migrateHot: the task is cache hot (ran within the migration cost, or is a buddy on a
	// busy destination).
	migrateHot
	// migrateTooHeavy: detach_tasks skipped the task because its load (shifted right by the
	// failure count) or utilisation exceeds what is left of the imbalance, or (migrate_misfit)
	// it fits its CPU, or (LB_MIN) its load is tiny.
	migrateTooHeavy
	// migrateDelayed: the task's dequeue was delayed and the balance does not migrate load
	// (v7.1, [smp.Params].MigrateDelayed).
	migrateDelayed
	// migrateIneligible: the task is not eligible on its queue, its group's queue on the
	// destination holds entities, and the domain has not failed to balance yet (v7.1,
	// [smp.Params].MigrateIneligible).
	migrateIneligible

	numMigrateReasons = iota
)

var migrateReasons = [...]string{
	migrateOK:         "cache cold",
	migrateActive:     "active balance",
	migrateHotForced:  "cache hot, but balancing failed more than cache_nice_tries times",
	migratePinned:     "destination not allowed",
	migrateRunning:    "running",
	migrateHot:        "cache hot",
	migrateTooHeavy:   "more than the remaining imbalance",
	migrateDelayed:    "delayed dequeue",
	migrateIneligible: "not eligible, destination queue busy",
}

// String explains the reason in a few words.
func (r MigrateReason) String() string { return sched.EnumName(migrateReasons[:], r, "MigrateReason") }

// A MigrateEnv is the state the task choice of one balance reads: the source and destination,
// the imbalance left, and the flags of the pass (the rest of struct lb_env). The tunables are
// not part of it: the decisions take them as their last argument, p *[smp.Params].
type MigrateEnv struct {
	*LBEnv
	// Src is the CPU pulled from; SrcRQ its state.
	Src   topology.CPU
	SrcRQ *RunQueue
	// Now is the source's task clock (rq_clock_task) in nanoseconds.
	Now uint64
	// Migration and Imbalance say what is left to move.
	Migration smp.MigrationType
	Imbalance int64
	// Flags are the LBF_* flags so far.
	Flags LBFlags
	// DstGroupMask is dst_grpmask, the balance mask of the local group, where a pinned task
	// may find another destination.
	DstGroupMask topology.CPUSet
	// DstRQ is the destination's fair state, read by v7.1's eligibility test
	// ([smp.Params].MigrateIneligible); nil skips that test.
	DstRQ *RunQueue
}

// taskHot reports whether task t is cache hot on its CPU for a move to env.DstCPU: task_hot.
// SCHED_IDLE tasks and moves between SMT siblings are never hot; with CACHE_HOT_BUDDY a next or
// last buddy is hot when the destination is busy; otherwise the task is hot if it last started
// running less than MigrationCost ago (always with -1, never with 0).
func taskHot(env *MigrateEnv, t *Task, p *smp.Params) bool {
	e := t.E
	if e.class == Idle {
		return false
	}
	if env.SD.flags&topology.SDShareCPUCapacity != 0 {
		return false
	}
	if p.CacheHotBuddy && env.Stats[env.DstCPU].NrRunning != 0 && (e.q.next == e || e.q.last == e) {
		return true
	}
	switch p.MigrationCost {
	case -1:
		return true
	case 0:
		return false
	}
	return int64(env.Now-e.ExecStart) < p.MigrationCost
}

// A MigrateVerdict is the outcome of [CanMigrateTask]. Why is not part of it: [CanMigrateTask]
// returns it beside the verdict, as a [MigrateReason].
type MigrateVerdict struct {
	// OK reports whether the task may be moved.
	OK bool
	// Flags are the pass's flags after the decision (LBF_SOME_PINNED, LBF_DST_PINNED and
	// LBF_ALL_PINNED change).
	Flags LBFlags
	// NewDst is the other destination found for a pinned task when Flags gained
	// LBFDstPinned.
	NewDst topology.CPU
}

// CanMigrateTask decides whether task t, queued on env.Src, may move to env.DstCPU:
// can_migrate_task of v6.5, with v7.1's first two tests when [smp.Params] turns them on: a
// delayed-dequeue task is refused unless the balance migrates load (migrateDelayed), and while
// the domain's nr_balance_failed is 0 a task that is not eligible on its queue is refused if
// its group's queue on the destination holds entities (migrateIneligible, with PLACE_LAG);
// neither refusal touches the flags. A task whose allowed CPUs exclude the destination is refused and
// sets LBF_SOME_PINNED; unless the balance is newly idle or active or already found one, the
// first CPU of the destination's group that is still considered and allowed for the task
// becomes the substitute destination (LBF_DST_PINNED). Otherwise LBF_ALL_PINNED is cleared; a
// running task is refused; an active balance accepts; a cache-cold task (task_hot) is
// accepted, and a hot one only once the domain's nr_balance_failed exceeds its
// cache_nice_tries. CanMigrateTask changes nothing.
func CanMigrateTask(env *MigrateEnv, t *Task, p *smp.Params) (MigrateVerdict, MigrateReason) {
	return canMigrateTask(env, env.Flags, t, p)
}

// canMigrateTask is [CanMigrateTask] with the pass's flags given apart from env, so that
// [DetachTasks] asks it about each task with the flags so far without a copy of env.
func canMigrateTask(env *MigrateEnv, flags LBFlags, t *Task, p *smp.Params) (MigrateVerdict, MigrateReason) {
	v := MigrateVerdict{Flags: flags}
	if p.MigrateDelayed && t.E.delayed && env.Migration != smp.MigrateLoad {
		return v, migrateDelayed
	}
	if p.MigrateIneligible && env.NrBalanceFailed == 0 && ineligibleOnDst(env.DstRQ, t.E) {
		return v, migrateIneligible
	}
	if !t.allowed.Has(env.DstCPU) {
		v.Flags |= LBFSomePinned
		if env.Idle == smp.CPUNewlyIdle || v.Flags&(LBFDstPinned|LBFActiveLB) != 0 {
			return v, migratePinned
		}
		mask := env.DstGroupMask.Intersect(env.CPUs).Intersect(*t.allowed)
		if c, ok := mask.First(); ok {
			v.Flags |= LBFDstPinned
			v.NewDst = c
		}
		return v, migratePinned
	}
	v.Flags &^= LBFAllPinned
	if env.SrcRQ != nil && env.SrcRQ.curr == t.E {
		return v, migrateRunning
	}
	v.OK = true
	if v.Flags&LBFActiveLB != 0 {
		return v, migrateActive
	}
	if !taskHot(env, t, p) {
		return v, migrateOK
	}
	if env.NrBalanceFailed > env.SD.cacheNiceTries() {
		return v, migrateHotForced
	}
	v.OK = false
	return v, migrateHot
}

// ineligibleOnDst is task_is_ineligible_on_dst_cpu: with PLACE_LAG, task e is not eligible on
// its queue and its group's queue on dst holds entities. It is false when dst is nil.
func ineligibleOnDst(dst *RunQueue, e *Entity) bool {
	if dst == nil || !dst.params.PlaceLag || !dst.params.Version.EEVDF() {
		return false
	}
	n := dst.root.nrRunning
	if e.group != nil {
		n = e.group.cpus[dst.id].q.nrRunning // zero where the group has not been used yet
	}
	return n != 0 && !entityEligible(e.q, e)
}

// A Detach is the outcome of [DetachTasks]: how the tasks of the source list fared.
type Detach struct {
	// examined is the number of tasks looked at, from the tail of the list (env->loop).
	examined int
	// detached is the number of tasks chosen.
	detached int
	// Imbalance is what is left of the imbalance.
	Imbalance int64
	// Flags are the pass's flags afterwards.
	Flags LBFlags
	// NewDst is the substitute destination when Flags has LBFDstPinned.
	NewDst topology.CPU
	// count holds how many examined tasks got each reason.
	count [numMigrateReasons]int
}

// String summarises the outcome, such as "detached 2 of 3 examined (1 running)".
func (d Detach) String() string {
	s := fmt.Sprintf("detached %d of %d examined", d.detached, d.examined)
	sep := " ("
	for r, n := range d.count {
		if n == 0 || MigrateReason(r) <= migrateHotForced {
			continue
		}
		s += fmt.Sprintf("%s%d %v", sep, n, MigrateReason(r))
		sep = ", "
	}
	if sep == ", " {
		s += ")"
	}
	if d.Flags&LBFDstPinned != 0 {
		s += fmt.Sprintf(", other destination %v", d.NewDst)
	}
	return s
}

// DetachTasks chooses the tasks of list, the source CPU's cfs_tasks, that a balance moves to
// env.DstCPU: detach_tasks of v6.5, without moving anything. It examines tasks from the tail
// (the least recently run first) while the source would keep more than one task (for an idle
// destination), at most loop_max = min(NrMigrate, source nr_running) of them unless every one
// so far was pinned, and at most NrMigrate in one batch (LBF_NEED_BREAK). Each task must pass
// [CanMigrateTask]; then, by migration type, its load max(h_load, 1) shifted right by the
// failure count, or its utilisation, must not exceed what is left of the imbalance (which it
// then lowers), a task counts 1, or a misfit task must not fit its CPU. A newly idle balance
// stops after one task with NewidleOnePull, and every balance once the imbalance is used up.
// The chosen tasks are appended to chosen in the order the kernel detaches them, and the
// result says how many were examined: the kernel moves each examined task that stayed to the
// head of the list, in examination order. DetachTasks allocates only if chosen must grow.
func DetachTasks(env *MigrateEnv, list *TaskList, chosen []*Task, p *smp.Params) ([]*Task, Detach) {
	var d Detach
	chosen = detachTasks(env, list, chosen, p, &d)
	return chosen, d
}

// detachTasks is [DetachTasks] with its outcome written to *d, which it resets first: the
// System's balance keeps one Detach (its count array makes it 15 words) instead of copying
// the result twice.
func detachTasks(env *MigrateEnv, list *TaskList, chosen []*Task, p *smp.Params, d *Detach) []*Task {
	*d = Detach{Imbalance: env.Imbalance, Flags: env.Flags}
	srcNr := env.Stats[env.Src].NrRunning
	if srcNr <= 1 {
		d.Flags &^= LBFAllPinned
		return chosen
	}
	if d.Imbalance <= 0 {
		return chosen
	}
	nrMigrate := max(p.NrMigrate, 1)
	loopMax := min(nrMigrate, int(srcNr))
	loopBreak := nrMigrate
	for t := list.tail; t != nil; t = t.prev {
		if env.Idle != smp.CPUNotIdle && srcNr <= 1 {
			break
		}
		d.examined++
		if d.examined > loopMax && d.Flags&LBFAllPinned == 0 {
			d.examined--
			break
		}
		if d.examined > loopBreak {
			d.examined--
			d.Flags |= LBFNeedBreak
			break
		}
		v, why := canMigrateTask(env, d.Flags, t, p)
		if v.Flags&LBFDstPinned != 0 && d.Flags&LBFDstPinned == 0 {
			d.NewDst = v.NewDst
		}
		d.Flags = v.Flags
		if !v.OK {
			d.count[why]++
			continue
		}
		switch env.Migration {
		case smp.MigrateLoad:
			load := max(TaskHLoad(t.E), 1)
			if p.LBMin && load < 16 && env.NrBalanceFailed == 0 {
				d.count[migrateTooHeavy]++
				continue
			}
			if shrBound(load, env.NrBalanceFailed) > uint64(d.Imbalance) {
				d.count[migrateTooHeavy]++
				continue
			}
			d.Imbalance -= int64(load)
		case smp.MigrateUtil:
			if int64(t.util) > d.Imbalance {
				d.count[migrateTooHeavy]++
				continue
			}
			d.Imbalance -= int64(t.util)
		case smp.MigrateTask:
			d.Imbalance--
		case smp.MigrateMisfit:
			if fitsCapacity(t.util, env.Stats[env.Src].Capacity) {
				d.count[migrateTooHeavy]++
				continue
			}
			d.Imbalance = 0
		}
		d.count[why]++
		chosen = append(chosen, t)
		d.detached++
		srcNr--
		if env.Idle == smp.CPUNewlyIdle && p.NewidleOnePull {
			break
		}
		if d.Imbalance <= 0 {
			break
		}
	}
	return chosen
}

// shrBound is shr_bound: val >> min(shift, 63).
func shrBound(val uint64, shift int) uint64 {
	return val >> uint(min(shift, 63))
}

// NeedActiveBalance reports whether a periodic balance that moved nothing should push the
// busiest CPU's running task away: need_active_balance of v6.5 (asym packing not modelled).
// It does when the imbalance is in tasks and balancing failed more than cache_nice_tries + 2
// times, when the destination is idle and the source runs a single fair task on a capacity
// reduced by more than imbalance_pct below the destination's, and for a misfit task.
// nrBalanceFailed is the failure count after this failure.
func NeedActiveBalance(env *LBEnv, src topology.CPU, m smp.MigrationType, nrBalanceFailed int, p *smp.Params) bool {
	sd := env.SD
	if m == smp.MigrateTask && nrBalanceFailed > sd.cacheNiceTries()+2 {
		return true
	}
	rq := &env.Stats[src]
	if env.Idle != smp.CPUNotIdle && rq.HNrRunning == 1 {
		pct := sd.imbalancePct()
		if checkCPUCapacity(rq, pct) && rq.Capacity*pct < env.Stats[env.DstCPU].Capacity*100 {
			return true
		}
	}
	return m == smp.MigrateMisfit
}
