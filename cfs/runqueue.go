// This file implements RunQueue, the fair part of the kernel's per-CPU struct rq, and the task-level
// operations of v6.5's fair.c that walk the group hierarchy: enqueue_task_fair,
// dequeue_task_fair, pick_next_task_fair, put_prev_task_fair, task_tick_fair, task_fork_fair,
// yield_task_fair, set_user_nice with prio_changed_fair, and the wakeup path's
// check_preempt_curr. On an EEVDF CPU the operations that differ hand over to eevdf_cpu.go.

package cfs

import (
	"fmt"

	"github.com/schedkit/schedkit/cfs/internal/slicememo"
)

// A RunQueue is one CPU's fair-class state: the kernel's struct rq restricted to what the fair
// class uses (the name says run queue, as struct rq does, to keep it apart from a
// topology.CPU, which only names a processor). It has a root [Queue] (rq->cfs), the running
// task (rq->curr, nil when the CPU idles) and a need-resched flag (TIF_NEED_RESCHED of the
// running task).
//
// Time is always passed in explicitly as now, in nanoseconds of the CPU's task clock
// (rq_clock_task); it must not go backwards. A RunQueue is not safe for concurrent use: as in
// the kernel, every method assumes the caller holds the run queue (its rq lock).
type RunQueue struct {
	id          int
	params      Params
	root        Queue
	curr        *Entity
	needResched bool

	// onBlock, if set, is told of every task whose delayed dequeue (v7.1) finishes, wherever
	// that happens (a pick, DequeueDelayed, Exit): the kernel's __block_task, where the rest of
	// struct rq (the cfs_tasks list, the load tracking) lets go of the task.
	onBlock func(t *Entity)

	memo slicememo.Memo // the last slice of a task queued on the root queue (slice)
}

// NewRunQueue returns the run queue of CPU number id (counted from 0, used to index each
// group's per-CPU state) with parameters p, idle and with an empty root queue. p are used as
// they are (a preset is the one-CPU form: see [Params.ForCPUs]). NewRunQueue panics if id < 0
// or p is not valid ([Params.Validate]); parameters from outside the program are checked with
// Validate first, as [New] does.
func NewRunQueue(id int, p Params) *RunQueue {
	if id < 0 {
		panic(fmt.Sprintf("cfs: NewRunQueue: id %d", id))
	}
	if err := p.Validate(); err != nil {
		panic("cfs: NewRunQueue: " + err.Error()[len("cfs: "):])
	}
	c := &RunQueue{id: id, params: p}
	c.root.init(c, nil, nil)
	return c
}

// Params returns the CPU's parameters.
func (c *RunQueue) Params() *Params { return &c.params }

// Root returns the CPU's root queue (rq->cfs).
func (c *RunQueue) Root() *Queue { return &c.root }

// Curr returns the running task (rq->curr), or nil if the CPU is idle.
func (c *RunQueue) Curr() *Entity { return c.curr }

// NeedResched reports whether a decision asked for the running task to be switched out
// (TIF_NEED_RESCHED); [RunQueue.Schedule] clears it.
func (c *RunQueue) NeedResched() bool { return c.needResched }

// nrRunning returns the number of fair tasks queued on the CPU, the running one included
// (rq->cfs.h_nr_running; Root().HNrRunning() outside the package).
func (c *RunQueue) nrRunning() int { return int(c.root.hNrRunning) }

// IdleOnly reports whether every task queued on the CPU counts as idle and there is at least
// one: the kernel's sched_idle_rq, which lets wakeups and load balancing treat the CPU as idle.
func (c *RunQueue) IdleOnly() bool {
	return c.root.hNrRunning > 0 && c.root.hNrRunning == c.root.idleHNrRunning
}

// UpdateCurr charges the running task for the time since it was last charged, at its own
// queue's level: update_curr_fair (called by the kernel before reading a task's run time, for
// example in task_sched_runtime). Group entities above are charged at their next update. It does
// nothing if the CPU is idle.
func (c *RunQueue) UpdateCurr(now uint64) {
	if c.curr != nil {
		c.curr.q.updateCurr(now, &c.params)
	}
}

// attach links task t to its group's queue on c (set_task_rq), so that t.Queue and t.Parent
// describe where it will be queued.
func (c *RunQueue) attach(t *Entity) {
	if t.myQ != nil {
		panic("cfs: a group entity used as a task")
	}
	t.cpu = c
	if t.group == nil {
		t.q, t.parent, t.depth = &c.root, nil, 0
		return
	}
	gc := t.group.on(c)
	t.q, t.parent, t.depth = &gc.q, &gc.se, t.group.depth+1
}

// enqueueTask is enqueue_task_fair: enqueue t and every ancestor that is not yet queued, then
// update the weights and counters of the queued ancestors above.
func (c *RunQueue) enqueueTask(t *Entity, now uint64, flags qflags) {
	p := &c.params
	idleH := uint32(0)
	if t.class == Idle {
		idleH = 1
	}
	// A delayed task enqueued again without a wakeup (a migration, an attribute change) stays
	// delayed and does not count as runnable (enqueue_task_fair: task_new && sched_delayed).
	hr := uint32(1)
	if t.delayed {
		hr = 0
	}
	v71 := p.Version >= V618
	var slice uint64 // v7.1: a group entity's slice is the shortest slice queued below it
	se := t
	for ; se != nil; se = se.parent {
		if se.onRQ {
			if se.delayed {
				se.q.requeueDelayed(se, p) // a task woke below a delayed group entity
			}
			break
		}
		q := se.q
		if v71 && slice != 0 {
			se.Slice, se.customSlice = slice, true
		}
		q.enqueueEntity(se, now, flags, p)
		if v71 {
			slice = q.MinSlice()
		}
		idleH = q.addH(1, hr, idleH)
		flags = flagWakeup
	}
	for ; se != nil; se = se.parent {
		q := se.q
		q.updateGroup(se, now, p)
		if v71 {
			q.setSlice(se, slice)
			slice = q.MinSlice()
		}
		idleH = q.addH(1, hr, idleH)
	}
}

// dequeueTask is dequeue_task_fair: dequeue t and every ancestor whose queue becomes empty, then
// update the weights and counters of the ancestors that stay queued. A sleeping task whose group
// keeps other entities makes its group entity the next buddy.
func (c *RunQueue) dequeueTask(t *Entity, now uint64, flags qflags) {
	p := &c.params
	if p.Version.EEVDF() {
		c.dequeueEntities(t, now, flags)
		return
	}
	sleep := flags&flagWakeup != 0
	idleH := uint32(0)
	if t.class == Idle {
		idleH = 1
	}
	se := t
	for ; se != nil; se = se.parent {
		q := se.q
		q.dequeueEntity(se, now, flags, p)
		idleH = q.subH(1, 1, idleH)
		if q.load.Weight != 0 {
			se = se.parent
			if sleep && se != nil {
				setNextBuddy(se)
			}
			break
		}
		flags |= flagWakeup
	}
	for ; se != nil; se = se.parent {
		q := se.q
		q.updateGroup(se, now, p)
		idleH = q.subH(1, 1, idleH)
	}
}

// putPrevTask is put_prev_task_fair: put every level of the running task's hierarchy back.
func (c *RunQueue) putPrevTask(now uint64) {
	for se := c.curr; se != nil; se = se.parent {
		se.q.putPrevEntity(se, now, &c.params)
	}
}

// setNextTask is set_next_task_fair: make every level of t's hierarchy its queue's curr. On an
// EEVDF CPU it is set_next_task(rq, p) with first false: v7.1 does not renew the slice
// protection.
func (c *RunQueue) setNextTask(t *Entity, now uint64) {
	if p := &c.params; p.Version.EEVDF() {
		for se := t; se != nil; se = se.parent {
			se.q.setNextEEVDF(se, now, false, p)
		}
		return
	}
	for se := t; se != nil; se = se.parent {
		se.q.setNextEntity(se, now)
	}
}

// Schedule switches to the task the fair class picks next and returns it, or nil if no task is
// queued (the CPU idles): the kernel's __schedule with pick_next_task_fair as
// CONFIG_FAIR_GROUP_SCHED builds it. The need-resched flag is cleared.
//
// When a task was running, every level is picked ([Pick], [pickEEVDF] on an EEVDF CPU) with
// that level's running entity still in place and charged first (update_curr), so the running
// entity competes from where it is: in v6.5 it is picked again while its vruntime is still
// before the leftmost's, in EEVDF while slice protection holds. Then only the levels where the
// picked task's hierarchy differs from the old one are put back (put_prev_entity) and set
// (set_next_entity), and nothing at all happens when the same task is picked again, so it keeps
// the start of its slice: a v6.5 task whose slice ran out is asked to reschedule at every tick
// until another entity is leftmost. From an idle CPU (the kernel's simple path) every level is
// picked and set. A running task that went to sleep is no longer queued and is not a candidate.
func (c *RunQueue) Schedule(now uint64) *Entity {
	if c.params.Version.EEVDF() {
		return c.scheduleEEVDF(now)
	}
	p := &c.params
	prev := c.curr
	if c.root.nrRunning == 0 {
		c.putPrevTask(now)
		c.curr, c.needResched = nil, false
		return nil
	}
	var se *Entity
	for q := &c.root; ; q = se.myQ {
		cur := q.curr
		if cur != nil && !cur.onRQ {
			cur = nil
		}
		if cur != nil {
			q.updateCurr(now, p)
		}
		se, _ = Pick(q, cur, p)
		if se.myQ == nil {
			break
		}
	}
	c.switchTo(prev, se, now)
	c.curr, c.needResched = se, false
	return se
}

// switchTo makes se, the picked task, the running one at every level where its hierarchy differs
// from prev's: pick_next_task_fair's walk up both hierarchies, deepest first, putting back
// prev's entities (put_prev_entity) and setting se's (set_next_entity) until they share a queue,
// where the one is put back and the other set. Nothing happens when se is prev; from an idle CPU
// (prev nil) every level of se's hierarchy is set.
func (c *RunQueue) switchTo(prev, se *Entity, now uint64) {
	p := &c.params
	switch {
	case prev == nil:
		for e := se; e != nil; e = e.parent {
			e.q.setNextEntity(e, now)
		}
	case prev != se:
		nse, pse := se, prev
		for nse.q != pse.q {
			nd, pd := nse.depth, pse.depth
			if nd <= pd {
				pse.q.putPrevEntity(pse, now, p)
				pse = pse.parent
			}
			if nd >= pd {
				nse.q.setNextEntity(nse, now)
				nse = nse.parent
			}
		}
		nse.q.putPrevEntity(pse, now, p)
		nse.q.setNextEntity(nse, now)
	}
}

// Wakeup enqueues sleeping task t on c at time now (a wakeup: ttwu_do_activate with
// ENQUEUE_WAKEUP, so [PlaceEntity] gives it its sleeper credit) and asks [CheckPreemptWakeup]
// whether it should preempt the running task. A positive answer sets the need-resched flag;
// the buddies the decision names are marked. A task whose sleep was delayed (v7.1
// DELAY_DEQUEUE, [Entity.Delayed]) is still queued: it simply stays (ttwu_runnable with
// ENQUEUE_DELAYED), placed again only if its lag had to be clamped. Wakeup panics if t is nil,
// already queued and not delayed, or delayed on another CPU.
func (c *RunQueue) Wakeup(t *Entity, now uint64) (WakeupDecision, WakeupReason) {
	if t == nil {
		panic("cfs: RunQueue.Wakeup of a nil entity")
	}
	var d WakeupDecision
	r := c.wakeup(t, now, &d)
	return d, r
}

// wakeup is [RunQueue.Wakeup] writing its decision to *d, for the System, which keeps it where
// it is read rather than copying it out of every call.
func (c *RunQueue) wakeup(t *Entity, now uint64, d *WakeupDecision) WakeupReason {
	if t.delayed {
		return c.wakeDelayed(t, now, d)
	}
	if t.onRQ {
		panic("cfs: RunQueue.Wakeup of a queued task")
	}
	c.attach(t)
	c.enqueueTask(t, now, flagWakeup)
	return c.checkPreempt(t, now, false, d)
}

// checkPreempt is check_preempt_curr for a fair wakee, with the state changes of
// check_preempt_wakeup around the decision: the running entity's matching level is charged
// (update_curr) before the vruntime comparison (in the decision's one pass, checkPreemptWakeup
// with charge), the buddies the decision names are marked and need-resched is set. The
// decision is written to *d. Every caller has just enqueued t at now (enqueueTask), as the
// kernel calls check_preempt_curr after activate_task; the charge relies on it.
func (c *RunQueue) checkPreempt(t *Entity, now uint64, fork bool, d *WakeupDecision) WakeupReason {
	if c.params.Version.EEVDF() {
		return c.checkPreemptEEVDF(t, now, fork, d)
	}
	r := checkPreemptWakeup(c, t, fork, &c.params, now, true, d)
	if d.NextBuddy != nil {
		setNextBuddy(d.NextBuddy)
	}
	if d.LastBuddy != nil {
		setLastBuddy(d.LastBuddy)
	}
	if d.Preempt {
		c.needResched = true
	}
	return r
}

// Sleep dequeues task t from c at time now because it blocks (dequeue_task with DEQUEUE_SLEEP);
// if t was running, the caller must then call [RunQueue.Schedule]. Its vruntime stays absolute, so
// that [RunQueue.Wakeup] can compare it with the queue's min_vruntime. On an EEVDF CPU its clamped
// virtual lag is saved in VLag for the wakeup's placement; with v7.1's DELAY_DEQUEUE a task that
// is not eligible stays queued instead ([Entity.Delayed]) until it is picked, woken, or
// dequeued with [RunQueue.DequeueDelayed]. Sleep panics if t is not queued on c or is already a
// delayed sleeper.
func (c *RunQueue) Sleep(t *Entity, now uint64) {
	if !t.onRQ || t.cpu != c || t.delayed {
		panic("cfs: RunQueue.Sleep of a task not queued on this CPU")
	}
	c.dequeueTask(t, now, flagWakeup)
	if c.curr == t {
		c.needResched = true
	}
}

// Fork starts task child on c at time now as forked by parent, which must be c's running task,
// or nil for a task started without a fair parent on c (then the child starts from its queue's
// min_vruntime): task_fork_fair followed by wake_up_new_task. The child inherits parent's group;
// it starts at the later of the parent's vruntime and min_vruntime plus, with START_DEBIT, one
// virtual slice ([PlaceEntity] with initial set); with ChildRunsFirst the two swap vruntimes if
// the parent's is earlier. Fork then asks [CheckPreemptWakeup] (as a fork, so no next buddy is
// marked) whether the child preempts the parent. Like __sched_fork, Fork first clears the
// child's run-time history (ExecStart, SumExecRuntime, prevSumExecRuntime) and its vruntime, so
// an entity that ran before may be forked again. Fork panics if child is queued or parent is
// neither nil nor c's running task.
//
// On an EEVDF CPU the child starts with lag 0 at the queue's average vruntime. Its first
// deadline is a full virtual slice away in v6.6 (wake_up_new_task's enqueue re-places it without
// ENQUEUE_INITIAL) and half a slice away in v7.1 (PLACE_DEADLINE_INITIAL); in v7.1 a forked task
// preempts its parent only with a shorter slice (and it inherits a parent's custom slice).
func (c *RunQueue) Fork(parent, child *Entity, now uint64) (WakeupDecision, WakeupReason) {
	var d WakeupDecision
	r := c.fork(parent, child, now, &d)
	return d, r
}

// fork is [RunQueue.Fork] writing its decision to *d.
func (c *RunQueue) fork(parent, child *Entity, now uint64, d *WakeupDecision) WakeupReason {
	if child.onRQ {
		panic("cfs: RunQueue.Fork of a queued child")
	}
	if parent != nil {
		if parent != c.curr {
			panic("cfs: RunQueue.Fork: parent is not the running task")
		}
		child.group = parent.group
	}
	// __sched_fork: the child starts with no run time and vruntime 0, even if the caller
	// reuses an entity that ran before.
	child.ExecStart, child.SumExecRuntime, child.prevSumExecRuntime = 0, 0, 0
	child.Vruntime = 0
	if c.params.Version.EEVDF() {
		return c.forkEEVDF(parent, child, now, d)
	}
	child.Vruntime = c.taskForkFair(child, now)
	c.enqueueTask(child, now, 0)
	return c.checkPreempt(child, now, true, d)
}

// taskForkFair is v6.5's task_fork_fair on c, the forking CPU (kernel/sched/fair.c): child,
// attached to its queue on c, starts from the vruntime of that queue's running entity, is
// placed there (place_entity with initial set: min_vruntime plus, with START_DEBIT, the
// sched_vslice of c's queue), swaps with the running entity under ChildRunsFirst (rescheduling
// c), and leaves with its vruntime relative to that queue's min_vruntime, which it returns.
func (c *RunQueue) taskForkFair(child *Entity, now uint64) uint64 {
	c.attach(child)
	q := child.q
	curr := q.curr
	if curr != nil {
		q.updateCurr(now, &c.params)
		child.Vruntime = curr.Vruntime
	}
	child.Vruntime = placeClassic(q, child, true, now, &c.params)
	if c.params.ChildRunsFirst && curr != nil && before(curr.Vruntime, child.Vruntime) {
		curr.Vruntime, child.Vruntime = child.Vruntime, curr.Vruntime
		c.needResched = true
	}
	return child.Vruntime - q.minVruntime
}

// forkFrom starts task child on c as forked on CPU from, another CPU, on a classic (v6.5) CPU:
// task_fork_fair places the child on from's queue and keeps its vruntime relative to that
// queue's min_vruntime ([RunQueue.taskForkFair]); wake_up_new_task then moves it to c with
// __set_task_cpu, which skips migrate_task_rq_fair, and enqueue_entity, enqueueing without
// ENQUEUE_WAKEUP, adds c's queue's min_vruntime (the renormalisation); check_preempt_curr
// judges the fork on c. Like [RunQueue.Fork] it clears the child's run-time history first.
func (c *RunQueue) forkFrom(from *RunQueue, child *Entity, now uint64, d *WakeupDecision) WakeupReason {
	if child.onRQ || c.params.Version.EEVDF() {
		panic("cfs: RunQueue.forkFrom of a queued child or on an EEVDF CPU")
	}
	child.ExecStart, child.SumExecRuntime, child.prevSumExecRuntime = 0, 0, 0
	child.Vruntime = 0
	rel := from.taskForkFair(child, now)
	c.attach(child)
	child.Vruntime = rel
	c.enqueueTask(child, now, 0)
	return c.checkPreempt(child, now, true, d)
}

// SetNice changes task t's nice level at time now: set_user_nice. A queued task is dequeued and
// enqueued again around the weight change (DEQUEUE_SAVE / ENQUEUE_RESTORE), a running one is put
// back and set again (which starts a new slice), and then prio_changed_fair decides: a running
// task that got a higher nice is rescheduled, a waiting one may preempt the running task. It
// returns whether the need-resched flag was set. A SCHED_IDLE task's weight does not depend on
// its nice. On an EEVDF CPU the dequeue saves the task's lag, the weight change scales it (and
// v7.1's relative deadline) by old/new weight, and the enqueue places it with that lag. SetNice
// panics if nice is outside -20..19 (MIN_NICE..MAX_NICE) or t is a group entity.
func (c *RunQueue) SetNice(t *Entity, nice int, now uint64) bool {
	checkNice("RunQueue.SetNice", nice)
	if t.myQ != nil {
		panic("cfs: RunQueue.SetNice of a group entity")
	}
	if t.nice == nice {
		return false
	}
	queued := t.onRQ
	running := c.curr == t
	if queued {
		c.dequeueTask(t, now, flagSave)
	}
	if running {
		c.putPrevTask(now)
	}
	old := t.nice
	t.nice = nice
	if lw := TaskLoad(t.class, nice); c.params.Version.EEVDF() && t.q != nil {
		t.q.reweightEntity(t, lw, now, &c.params) // reweight_task: scales the lag
		t.load = lw                               // with the table inverse
	} else {
		t.load = lw // set_load_weight(p, true) with reweight_task
	}
	if queued {
		c.enqueueTask(t, now, 0)
	}
	if running {
		c.setNextTask(t, now)
	}
	if !queued || c.root.nrRunning == 1 {
		return false
	}
	if running {
		if nice > old {
			c.needResched = true
			return true
		}
		return false
	}
	var d WakeupDecision
	c.checkPreempt(t, now, false, &d)
	return d.Preempt
}

// Yield marks the running task to be passed over by the next pick if that is not too unfair:
// yield_task_fair. Unless it is SCHED_BATCH its run time is charged first; then it and its
// ancestors become the skip buddies of their queues. On an EEVDF CPU there are no skip buddies:
// v6.6 pushes the task's deadline one virtual slice further, v7.1 (if the task is eligible)
// moves its vruntime to its deadline and makes a new request. Yield does nothing if the running task is
// alone on the CPU, is no longer queued (it went to sleep) or the CPU is idle; the caller then
// calls [RunQueue.Schedule], as sched_yield does.
func (c *RunQueue) Yield(now uint64) {
	t := c.curr
	if t == nil || !t.onRQ || c.root.hNrRunning == 1 {
		return
	}
	if c.params.Version.EEVDF() {
		c.yieldEEVDF(t, now)
		return
	}
	q := t.q
	q.clearBuddies(t)
	if t.class != Batch {
		q.updateCurr(now, &c.params)
	}
	setSkipBuddy(t)
}
