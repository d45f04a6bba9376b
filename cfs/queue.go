// This file implements Queue, the kernel's struct cfs_rq, and the per-queue state changes of
// v6.5's fair.c: update_curr, update_min_vruntime, enqueue_entity, dequeue_entity,
// set_next_entity, put_prev_entity, reweight_entity and the buddy bookkeeping. On an EEVDF CPU
// they hand over to their v6.6 and v7.1 forms in eevdf_queue.go.

package cfs

import "github.com/schedkit/schedkit/timeline"

// A Queue is a fair run queue: the kernel's struct cfs_rq. Every CPU has a root queue, and every
// task group has one per CPU, owned by the group's entity on that CPU. A queue holds its
// runnable entities, except the running one, on a [timeline.Timeline] ordered by vruntime (by
// virtual deadline in v7.1); the running entity (curr) is off the timeline but still counted in
// NrRunning and Load, as in the kernel.
//
// Invariants (checked by the tests' checkQueue after every operation): the timeline holds
// exactly the queued entities other than curr, each keyed by its Vruntime (v7.1: its Deadline);
// NrRunning counts them plus a queued curr; IdleNrRunning counts those of them that are idle;
// Load is the sum of their weights; HNrRunning counts the tasks queued in the hierarchy and
// HNrRunnable those of them that are not delayed; MinVruntime never moves backwards (wrap-aware) up to v6.6;
// buddies are queued entities of q. On an EEVDF CPU, in addition: the timeline keeps the
// subtree minima of the deadlines (v6.6) or vruntimes (v7.1); SumWVruntime and SumWeight equal
// Σ (v_i - v0)·w_i and Σ w_i over the timeline; the lags of the queued entities cancel out,
// -W < Σ w_i·(V - v_i) <= 0; and (v7.1) the slice timeline holds the timeline's entities keyed by
// their slices.
//
// A Queue is created by [NewRunQueue] or [NewGroup] and is not safe for concurrent use; it is
// mutated only by the methods of the [RunQueue] it belongs to.
type Queue struct {
	// timeline is the queue's timeline of waiting entities (tasks_timeline).
	timeline timeline.Timeline[Entity]

	curr, next, last, skip *Entity

	load          LoadWeight
	nrRunning     uint32
	idleNrRunning uint32
	hNrRunning    uint32
	// idleHNrRunning is the number of tasks in the hierarchy that count as idle: SCHED_IDLE tasks and
	// tasks below an idle group (cfs_rq->idle_h_nr_running).
	idleHNrRunning uint32
	minVruntime    uint64 // min_vruntime; v7.1's zero_vruntime

	sumW      int64                     // EEVDF: avg_vruntime (v6.6), sum_w_vruntime (v7.1)
	sumWeight uint64                    // EEVDF: avg_load (v6.6), sum_weight (v7.1)
	slices    timeline.Timeline[Entity] // v7.1: the timeline's entities by slice (min_slice, max_slice)

	cpu   *RunQueue
	group *Group  // nil for the root queue
	se    *Entity // the group entity owning this queue, nil for the root queue

	hNrRunnable uint32 // v7.1 h_nr_runnable: hNrRunning less the delayed tasks
}

func (q *Queue) init(c *RunQueue, g *Group, se *Entity) {
	q.cpu, q.group, q.se = c, g, se
	q.minVruntime = InitialMinVruntime
	if se != nil {
		se.sliceNode.Init(se)
	}
	if c.params.Version.EEVDF() {
		q.timeline.EnableAugment()
	}
}

// First returns the waiting entity with the smallest vruntime (in v7.1: the earliest virtual
// deadline) (__pick_first_entity), or nil. The complexity is O(1).
func (q *Queue) First() *Entity {
	if n := q.timeline.First(); n != nil {
		return n.Value()
	}
	return nil
}

// Curr returns the queue's running entity (cfs_rq->curr), or nil.
func (q *Queue) Curr() *Entity { return q.curr }

// Next returns the next buddy (cfs_rq->next), or nil.
func (q *Queue) Next() *Entity { return q.next }

// Last returns the last buddy (cfs_rq->last), or nil.
func (q *Queue) Last() *Entity { return q.last }

// Skip returns the skip buddy (cfs_rq->skip), or nil.
func (q *Queue) Skip() *Entity { return q.skip }

// Load returns the sum of the loads of the queued entities (cfs_rq->load).
func (q *Queue) Load() LoadWeight { return q.load }

// NrRunning returns the number of queued entities, curr included (cfs_rq->nr_running).
func (q *Queue) NrRunning() int { return int(q.nrRunning) }

// IdleNrRunning returns the number of queued idle entities (cfs_rq->idle_nr_running).
func (q *Queue) IdleNrRunning() int { return int(q.idleNrRunning) }

// HNrRunning returns the number of tasks queued in the queue's whole hierarchy
// (cfs_rq->h_nr_running).
func (q *Queue) HNrRunning() int { return int(q.hNrRunning) }

// HNrRunnable returns the number of tasks queued in the queue's hierarchy that are runnable:
// [Queue.HNrRunning] less the tasks whose dequeue was delayed ([Entity.Delayed], v7.1's
// DELAY_DEQUEUE), cfs_rq->h_nr_runnable. v7.1's load balancer counts these where v6.5 counted
// h_nr_running. Without delayed tasks the two are equal.
func (q *Queue) HNrRunnable() int { return int(q.hNrRunnable) }

// MinVruntime returns the queue's monotonic minimum vruntime (cfs_rq->min_vruntime), the base
// entities are placed against in v6.5 and the reference point of the averaging sums in v6.6. On
// a v7.1 CPU it returns zero_vruntime ([Queue.zeroVruntime]), which is not monotonic.
func (q *Queue) MinVruntime() uint64 { return q.minVruntime }

// zeroVruntime returns v7.1's cfs_rq->zero_vruntime, the moving reference point of the
// averaging sums, which the kernel re-centres on the average vruntime whenever it computes it
// in place_entity, update_entity_lag, update_deadline and reweight_entity. It is the same field
// as MinVruntime, under its v7.1 name.
func (q *Queue) zeroVruntime() uint64 { return q.minVruntime }

// sumWVruntime returns EEVDF's Σ (v_i - v0)·w_i over the timeline (avg_vruntime in v6.6,
// sum_w_vruntime in v7.1), v0 being MinVruntime (v6.6) or zeroVruntime (v7.1) and w_i the
// weights scaled down to 1024 for nice 0 (v6.6) or at full resolution (v7.1). It is 0 on a
// classic CFS CPU.
func (q *Queue) sumWVruntime() int64 { return q.sumW }

// isIdle reports whether the queue belongs to an idle group (cfs_rq_is_idle).
func (q *Queue) isIdle() bool { return q.group != nil && q.group.idle }

// addH adds to q's hierarchical counters what a task enqueued below it brings: h tasks
// (h_nr_running; h_nr_queued in v6.18 and v7.1), hr of them runnable (h_nr_runnable, which
// leaves out a delayed task) and idleH of them idle (idle_h_nr_running; h_nr_idle). It returns
// the idle count for the level above: all h once q belongs to an idle group (cfs_rq_is_idle),
// idleH otherwise. It is the counting step of every level of enqueue_task_fair's two loops.
func (q *Queue) addH(h, hr, idleH uint32) uint32 {
	q.hNrRunning += h
	q.hNrRunnable += hr
	q.idleHNrRunning += idleH
	if q.isIdle() {
		return h
	}
	return idleH
}

// subH is addH for a dequeue: it takes the counts away from q, at every level of the two
// loops of dequeue_task_fair (v6.5) and dequeue_entities (v6.18, v7.1).
func (q *Queue) subH(h, hr, idleH uint32) uint32 {
	q.hNrRunning -= h
	q.hNrRunnable -= hr
	q.idleHNrRunning -= idleH
	if q.isIdle() {
		return h
	}
	return idleH
}

// allIdle reports whether every queued entity is idle (sched_idle_cfs_rq).
func (q *Queue) allIdle() bool { return q.nrRunning > 0 && q.nrRunning == q.idleNrRunning }

// updateCurr charges the running entity for the time since its ExecStart: update_curr.
func (q *Queue) updateCurr(now uint64, p *Params) {
	if p.Version.EEVDF() {
		q.updateCurrEEVDF(now, p)
		return
	}
	curr := q.curr
	if curr == nil {
		return
	}
	delta := now - curr.ExecStart
	if int64(delta) <= 0 {
		return
	}
	curr.ExecStart = now
	curr.SumExecRuntime += delta
	curr.Vruntime += CalcDeltaFair(p.CalcDelta, delta, curr.load)
	q.updateMinVruntime()
}

// updateMinVruntime advances min_vruntime to the smaller of the queued curr's and the leftmost
// entity's vruntime, never backwards: update_min_vruntime.
func (q *Queue) updateMinVruntime() {
	v := q.minVruntime
	curr := q.curr
	if curr != nil {
		if curr.onRQ {
			v = curr.Vruntime
		} else {
			curr = nil
		}
	}
	if left := q.First(); left != nil {
		if curr == nil {
			v = left.Vruntime
		} else {
			v = MinVruntime(v, left.Vruntime)
		}
	}
	q.advanceMinVruntime(v)
}

// qflags are the enqueue_entity / dequeue_entity flags the model distinguishes.
type qflags uint8

const (
	flagWakeup   qflags = 1 << iota // ENQUEUE_WAKEUP on enqueue, DEQUEUE_SLEEP on dequeue
	flagSave                        // DEQUEUE_SAVE without DEQUEUE_MOVE
	flagMigrated                    // ENQUEUE_MIGRATED
	flagInitial                     // ENQUEUE_INITIAL (v7.1 passes it for a new task)
	flagDelayed                     // DEQUEUE_DELAYED: finish a delayed dequeue (v7.1)
	flagSpecial                     // DEQUEUE_SPECIAL: a sleep into a special state (exit) is never delayed
)

// enqueueEntity is v6.5's enqueue_entity.
func (q *Queue) enqueueEntity(se *Entity, now uint64, flags qflags, p *Params) {
	if p.Version.EEVDF() {
		q.enqueueEEVDF(se, now, flags, p)
		return
	}
	renorm := flags&flagWakeup == 0 || flags&flagMigrated != 0
	isCurr := q.curr == se
	if renorm && isCurr {
		se.Vruntime += q.minVruntime
	}
	q.updateCurr(now, p)
	if renorm && !isCurr {
		se.Vruntime += q.minVruntime
	}
	q.updateGroup(se, now, p)
	q.accountEnqueue(se)
	if flags&flagWakeup != 0 {
		se.Vruntime = placeClassic(q, se, false, now, p)
	}
	if flags&flagMigrated != 0 {
		se.ExecStart = 0
	}
	if !isCurr {
		q.enqueueTree(se)
	}
	se.onRQ = true
}

// dequeueEntity is v6.5's dequeue_entity.
func (q *Queue) dequeueEntity(se *Entity, now uint64, flags qflags, p *Params) {
	if p.Version.EEVDF() {
		q.dequeueEEVDF(se, now, flags, p)
		return
	}
	q.updateCurr(now, p)
	q.clearBuddies(se)
	if se != q.curr {
		q.dequeueTree(se)
	}
	se.onRQ = false
	q.accountDequeue(se)
	if flags&flagWakeup == 0 {
		se.Vruntime -= q.minVruntime
	}
	q.updateGroup(se, now, p)
	if flags&flagSave == 0 {
		q.updateMinVruntime()
	}
}

// setNextEntity makes se the queue's running entity: set_next_entity (on an EEVDF CPU, as for a
// pick: see setNextEEVDF).
func (q *Queue) setNextEntity(se *Entity, now uint64) {
	if p := &q.cpu.params; p.Version.EEVDF() {
		q.setNextEEVDF(se, now, true, p)
		return
	}
	q.clearBuddies(se)
	if se.onRQ {
		q.timeline.Remove(&se.node)
	}
	se.ExecStart = now // update_stats_curr_start
	q.curr = se
	se.prevSumExecRuntime = se.SumExecRuntime
}

// putPrevEntity puts the running entity back on the timeline if it is still queued:
// put_prev_entity.
func (q *Queue) putPrevEntity(prev *Entity, now uint64, p *Params) {
	if prev.onRQ {
		q.updateCurr(now, p)
		q.enqueueTree(prev)
	}
	q.curr = nil
}

// reweightEntity changes se's load, keeping the queue's load sum right: v6.5's reweight_entity
// (which leaves vruntime alone).
func (q *Queue) reweightEntity(se *Entity, w LoadWeight, now uint64, p *Params) {
	if p.Version.EEVDF() {
		q.reweightEEVDF(se, w, now, p)
		return
	}
	if se.onRQ {
		if q.curr == se {
			q.updateCurr(now, p)
		}
		q.setLoad(q.load.sub(se.load.Weight))
	}
	se.load = w
	if se.onRQ {
		q.setLoad(q.load.add(w.Weight))
	}
}

// setLoad sets q's load to l and, for a group's queue, keeps the group's sum of its queues'
// loads (Group.loadSum) up to date by the difference, as update_tg_load_avg adds a cfs_rq's
// change of contribution to tg->load_avg. The sum wraps as the kernel's unsigned counters do:
// adding the new scaled load and taking the old away gives the same sum in either order.
func (q *Queue) setLoad(l LoadWeight) {
	if q.group != nil {
		q.group.loadSum += ScaleLoadDown(l.Weight) - ScaleLoadDown(q.load.Weight)
	}
	q.load = l
}

// updateGroup recomputes a group entity's weight from its group's load: update_cfs_group of an
// SMP kernel, which up to v6.6 reweights even when the weight is unchanged (and so charges a
// running group entity's time). v7.1 reweights only when the weight changes, and keeps the
// weight of a group whose queue is empty. It does nothing for a task, and is small enough to
// inline, so that a task's enqueue or dequeue pays a test rather than a call for it.
func (q *Queue) updateGroup(se *Entity, now uint64, p *Params) {
	if se.myQ != nil {
		q.updateGroupEntity(se, now, p)
	}
}

// updateGroupEntity is updateGroup of group entity se.
func (q *Queue) updateGroupEntity(se *Entity, now uint64, p *Params) {
	if p.Version >= V618 {
		if se.myQ.load.Weight == 0 {
			return
		}
		if shares := se.group.entityShares(se.cpu); shares != se.load.Weight {
			q.reweightEntity(se, LoadWeight{Weight: shares}, now, p)
		}
		return
	}
	q.reweightEntity(se, LoadWeight{Weight: se.group.entityShares(se.cpu)}, now, p)
}

// clearBuddies forgets se as any of q's buddies, and its ancestors where they are the buddies
// of their queues: clear_buddies. It is small enough to inline, so that the usual case, se no
// buddy of q, costs three tests rather than a call.
func (q *Queue) clearBuddies(se *Entity) {
	if q.last == se || q.next == se || q.skip == se {
		q.clearBuddiesOf(se)
	}
}

// clearBuddiesOf is clearBuddies for an se that is one of q's buddies.
func (q *Queue) clearBuddiesOf(se *Entity) {
	if q.last == se {
		for s := se; s != nil && s.q.last == s; s = s.parent {
			s.q.last = nil
		}
	}
	if q.next == se {
		for s := se; s != nil && s.q.next == s; s = s.parent {
			s.q.next = nil
		}
	}
	if q.skip == se {
		for s := se; s != nil && s.q.skip == s; s = s.parent {
			s.q.skip = nil
		}
	}
}

// setNextBuddy marks se and its ancestors as the next buddies of their queues, stopping at an
// unqueued or idle entity: set_next_buddy.
func setNextBuddy(se *Entity) {
	for s := se; s != nil; s = s.parent {
		if !s.onRQ || s.IsIdle() {
			return
		}
		s.q.next = s
	}
}

// setLastBuddy is set_last_buddy, the same walk for the last buddy.
func setLastBuddy(se *Entity) {
	for s := se; s != nil; s = s.parent {
		if !s.onRQ || s.IsIdle() {
			return
		}
		s.q.last = s
	}
}

// setSkipBuddy marks se and all its ancestors as skip buddies: set_skip_buddy.
func setSkipBuddy(se *Entity) {
	for s := se; s != nil; s = s.parent {
		s.q.skip = s
	}
}

// accountEnqueue is account_entity_enqueue's part of the queue's own counts: se's weight joins
// the queue's load, and it counts among the entities queued (and the SCHED_IDLE ones).
func (q *Queue) accountEnqueue(se *Entity) {
	q.setLoad(q.load.add(se.load.Weight))
	q.nrRunning++
	if se.IsIdle() {
		q.idleNrRunning++
	}
}

// accountDequeue is account_entity_dequeue's part of the queue's own counts, undoing
// accountEnqueue.
func (q *Queue) accountDequeue(se *Entity) {
	q.setLoad(q.load.sub(se.load.Weight))
	q.nrRunning--
	if se.IsIdle() {
		q.idleNrRunning--
	}
}
