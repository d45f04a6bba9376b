// This file implements a System's wake-ups: try_to_wake_up's fair part, placement by
// select_task_rq_fair on the System's statistics, and the requeue of a delayed sleeper.

package cfs

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// Wakeup makes task t runnable (try_to_wake_up with select_task_rq_fair) and returns where it
// went and the preemption decision there. A new task (sched.WakeFork) is placed by the fork
// slow path from from, the parent's CPU, and started there: on a classic (v6.5) CPU
// task_fork_fair places it on from's queue (from the vruntime of the entity running in its
// queue there) and wake_up_new_task adds the chosen CPU's min_vruntime to its offset from
// from's; on an EEVDF CPU, or when the chosen CPU is from, [RunQueue.Fork] places it on the
// chosen CPU (parent, if it is the task running there in the same group, is the one whose
// vruntime the child may swap); a
// sleeper is placed by [System.SelectTaskRQ] (recording the waker's wakee flips) and enqueued,
// as a migrated wakeup if it changes CPU. A CPU the wakee should preempt, or an idle one, is
// rescheduled. A task whose sleep was delayed (v7.1) is still queued: ttwu_runnable requeues
// it on its own CPU ([RunQueue.Wakeup]) and judges preemption there, without select_task_rq;
// the selection returned is then that CPU, with placePrev. Each part comes with its reason: the
// PlaceReason of the placement and the WakeupReason of the preemption decision. Wakeup panics if from is not a CPU
// of the machine or t is runnable and not a delayed sleeper.
func (s *System) Wakeup(now int64, t *Task, parent *Task, from topology.CPU, flags sched.WakeFlags) (CPUSelection, PlaceReason, WakeupDecision, WakeupReason) {
	if s.notCPU(from) {
		s.badCPU("Wakeup", from)
	}
	var w wakeResult
	s.wakeup(now, t, parent, from, flags, &w)
	return w.pl, w.pr, w.d, w.r
}

// A wakeResult is what [System.Wakeup] returns, kept in one variable of the caller's.
type wakeResult struct {
	pl CPUSelection
	pr PlaceReason
	d  WakeupDecision
	r  WakeupReason
}

// wakeup is [System.Wakeup] filling *w, for a caller that checked from: the [Scheduler], which
// does not read the outcome, keeps one wakeResult for all its wakeups rather than copying the
// outcome out of the calls.
func (s *System) wakeup(now int64, t *Task, parent *Task, from topology.CPU, flags sched.WakeFlags, w *wakeResult) {
	s.at(now)
	if t.E.onRQ {
		if !t.E.delayed {
			panic(fmt.Sprintf("cfs: System.Wakeup of runnable task %v", t))
		}
		w.r = s.wakeDelayed(now, t, &w.d)
		w.pl, w.pr = CPUSelection{CPU: t.cpu, target: t.cpu}, placePrev
		return
	}
	fork := flags&sched.WakeFork != 0
	left := s.wakeUtil(t, s.j)
	w.pr = s.selectTaskRQ(now, t, from, flags, &w.pl)
	dst := w.pl.CPU
	rq := &s.rqs[dst]
	switch {
	case fork:
		var pe *Entity
		if p := rq.curr; p != nil && p == parent && p.E.group == t.E.group {
			pe = p.E
		}
		if dst == from || s.p.Version.EEVDF() {
			w.r = rq.c.fork(pe, t.E, uint64(now), &w.d)
			break
		}
		// v6.5: task_fork_fair places the child on the parent's CPU and
		// wake_up_new_task carries its offset from min_vruntime to dst.
		fc := s.rqs[from].c
		w.r = rq.c.forkFrom(fc, t.E, uint64(now), &w.d)
		if s.p.ChildRunsFirst && fc.NeedResched() {
			s.resched(from)
		}
	case dst != t.cpu && t.E.q != nil:
		t.migrationsTotal++
		w.r = rq.c.wakeupMigrated(t.E, uint64(now), &w.d)
	default:
		w.r = rq.c.wakeup(t.E, uint64(now), &w.d)
	}
	if !fork {
		// remove_entity_load_avg: the old CPU's statistics see it at their next refresh.
		s.detachUtil(&s.rqs[t.cpu], left)
	}
	s.enlist(rq, t)
	s.refresh(rq)
	if s.explaining() {
		s.explain(dst, tidOf(t), explainf{"%s; %s", []any{w.pl.Explain(w.pr), w.d.Explain(w.r)}})
	}
	if rq.c.NeedResched() {
		s.resched(dst)
	}
}

// SelectTaskRQ is select_task_rq_fair for task t woken from CPU from (the waker's CPU, the
// parent's for a fork): it records the waker's wakee flips (a waker is the task running on
// from), asks [SelectTaskRQ] with the System's statistics and hints, and applies the hints the
// answer changes (the LLC's has_idle_cores, t's recent_used_cpu). It does not move t. It
// panics if from is not a CPU of the machine.
func (s *System) SelectTaskRQ(now int64, t *Task, from topology.CPU, flags sched.WakeFlags) (CPUSelection, PlaceReason) {
	if s.notCPU(from) {
		s.badCPU("SelectTaskRQ", from)
	}
	var pl CPUSelection
	why := s.selectTaskRQ(now, t, from, flags, &pl)
	return pl, why
}

// selectTaskRQ is [System.SelectTaskRQ] filling *pl, for a caller that checked from.
func (s *System) selectTaskRQ(now int64, t *Task, from topology.CPU, flags sched.WakeFlags, pl *CPUSelection) PlaceReason {
	fork := flags&sched.WakeFork != 0
	var waker *Task
	if w := s.rqs[from].curr; w != nil && w != t {
		waker = w
	}
	if waker != nil && !fork {
		waker.recordWakee(t, now)
	}
	// The wake env lives in the System, its machine-wide fields set once by NewSystem.
	env := &s.we
	env.Task, env.Waker, env.This, env.Prev = t, waker, from, t.cpu
	env.Sync, env.Fork = flags&sched.WakeSync != 0, fork
	if fork {
		env.Prev = from
	}
	why := selectTaskRQ(env, &s.smp, pl)
	if s.cmpLog != nil {
		s.logPlacement(env, pl, why)
	}
	if pl.ClearIdleCores {
		s.idleCor[s.ds.llcid(pl.target)] = false
	}
	if pl.setRecentUsed {
		t.recentUsedCPU = pl.recentUsed
	}
	return why
}

// wakeDelayed is try_to_wake_up of a task whose dequeue was delayed (v7.1): the task is still
// queued, so ttwu_runnable requeues it where it is (ENQUEUE_DELAYED) and judges wakeup
// preemption, without select_task_rq and without recording the waker's wakee.
func (s *System) wakeDelayed(now int64, t *Task, d *WakeupDecision) WakeupReason {
	c := t.cpu
	rq := &s.rqs[c]
	r := rq.c.wakeup(t.E, uint64(now), d)
	s.refresh(rq)
	if s.explaining() {
		s.explain(c, tidOf(t), explainf{"ttwu_runnable: delayed on %v, requeued; %s", []any{c, d.Explain(r)}})
	}
	if rq.c.NeedResched() {
		s.resched(c)
	}
	return r
}
