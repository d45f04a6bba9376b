// This file implements the task-level operations of EEVDF (v6.6 and v7.1) that differ from
// classic CFS: pick_next_task_fair's group-scheduling path (pick with the running task still in
// place, then put_prev_entity / set_next_entity only where the hierarchy changes), the fork
// (task_fork_fair and wake_up_new_task), the yield (yield_task_fair), and sched_setattr's custom
// slice (__setparam_fair, v7.1).

package cfs

// scheduleEEVDF is pick_next_task_fair with CONFIG_FAIR_GROUP_SCHED: when a task was running,
// every level is picked with that level's running entity still in place (charged first), so
// that slice protection (RUN_TO_PARITY) can keep it; then only the levels where the new task's
// hierarchy differs from the old one are put back and set (set_next_entity), and nothing at all
// happens when the same task is picked again. From an idle CPU every level is picked and set.
// The whole chain is picked before anything is set (v7.1's pick_task_fair); a delayed sleeper
// that gets picked is dequeued for real and the pick starts over. The need-resched flag is
// cleared after the pick, as __schedule does.
func (c *RunQueue) scheduleEEVDF(now uint64) *Entity {
	p := &c.params
	prev := c.curr
	var se *Entity
again:
	if c.root.nrRunning == 0 {
		c.putPrevTask(now)
		c.curr, c.needResched = nil, false
		return nil
	}
	q := &c.root
	for {
		if cur := q.curr; cur != nil && cur.onRQ {
			q.updateCurrEEVDF(now, p)
		}
		se, _ = pickEEVDF(q, true, p)
		if se.delayed {
			// pick_next_entity: a delayed sleeper that gets picked leaves for real, and the
			// pick starts over.
			c.dequeueEntities(se, now, flagWakeup|flagDelayed)
			goto again
		}
		if se.myQ == nil {
			break
		}
		q = se.myQ
	}
	c.switchTo(prev, se, now)
	c.curr, c.needResched = se, false
	return se
}

// forkEEVDF is task_fork_fair followed by wake_up_new_task on an EEVDF CPU. A new task starts
// with vruntime 0 and lag 0 (__sched_fork), so it is placed at the queue's average vruntime.
// v6.6 computes an initial placement in task_fork_fair, but wake_up_new_task enqueues without
// ENQUEUE_INITIAL and that enqueue places the task again: the child's first deadline is a full
// virtual slice away. v7.1 passes ENQUEUE_INITIAL, so PLACE_DEADLINE_INITIAL halves it. In
// v7.1 the child inherits a parent's custom slice (the kernel copies the whole sched_entity)
// unless it has one of its own.
func (c *RunQueue) forkEEVDF(parent, child *Entity, now uint64, d *WakeupDecision) WakeupReason {
	p := &c.params
	if parent != nil && p.Version != V66 && parent.customSlice && !child.customSlice {
		child.Slice, child.customSlice = parent.Slice, true
	}
	c.attach(child)
	if q := child.q; q.curr != nil {
		q.updateCurrEEVDF(now, p)
	}
	child.Vruntime, child.VLag, child.relDeadline = 0, 0, false
	flags := qflags(0)
	if p.Version == V66 {
		child.Slice = p.DefaultSlice
	} else {
		flags = flagInitial
	}
	c.enqueueTask(child, now, flags)
	return c.checkPreemptEEVDF(child, now, true, d)
}

// yieldEEVDF is yield_task_fair of v6.6 and v7.1 for the running task t: v6.6 pushes its
// deadline one virtual slice further; v7.1, if t is eligible, forfeits the rest of its request
// by moving its vruntime to its deadline and making a new request.
func (c *RunQueue) yieldEEVDF(t *Entity, now uint64) {
	p := &c.params
	q := t.q
	q.clearBuddies(t)
	q.updateCurrEEVDF(now, p)
	if p.Version == V66 {
		t.Deadline += CalcDeltaFair(p.CalcDelta, t.Slice, t.load)
		return
	}
	if entityEligible(q, t) {
		t.Vruntime = t.Deadline
		q.updateDeadline(t, p)
	}
}

// SetSlice changes the slice task t of c asks for to runtime nanoseconds, as sched_setattr with
// sched_runtime = runtime does in v7.1 (__sched_setscheduler with __setparam_fair): a queued task
// is dequeued and enqueued again around the change (DEQUEUE_SAVE | DEQUEUE_MOVE, so it keeps
// its lag and its relative deadline), a running one is put back and set again. runtime 0
// returns the task to Params.DefaultSlice; anything else is clamped to [minCustomSlice,
// maxCustomSlice] (clampSlice). The new slice applies from the task's next request. A
// runtime equal to the task's current slice changes nothing, not even whether the slice counts
// as custom, because the kernel compares sched_runtime with se->slice before changing anything.
//
// v6.5 and v6.6 ignore sched_runtime for fair tasks; on a CPU with those parameters SetSlice
// changes nothing and returns false. It returns true otherwise. SetSlice panics if t is a group
// entity, or is queued on another CPU.
func (c *RunQueue) SetSlice(t *Entity, runtime uint64, now uint64) bool {
	if t.myQ != nil {
		panic("cfs: RunQueue.SetSlice of a group entity")
	}
	if t.onRQ && t.cpu != c {
		panic("cfs: RunQueue.SetSlice of a task queued on another CPU")
	}
	if c.params.Version < V618 {
		return false
	}
	if runtime == t.Slice {
		// __sched_setscheduler skips the change when the policy is the same and neither nice
		// nor sched_runtime differs from the task's (attr->sched_runtime != p->se.slice).
		return true
	}
	queued := t.onRQ
	running := c.curr == t
	if queued {
		c.dequeueTask(t, now, 0)
	}
	if running {
		c.putPrevTask(now)
	}
	t.setSlice(runtime)
	if !t.customSlice {
		t.Slice = c.params.DefaultSlice
	}
	if queued {
		c.enqueueTask(t, now, 0)
	}
	if running {
		c.setNextTask(t, now)
	}
	return true
}

// dequeueEntities is v7.1's dequeue_entities (and, without delays, v6.6's dequeue_task_fair)
// for se, a task or a delayed group entity: dequeue se and every ancestor whose queue becomes
// empty, then update the weights, counters and (v7.1) slices of the ancestors that stay queued.
// With DELAY_DEQUEUE a level may keep its entity queued as delayed, which ends the walk; it
// reports false if that happened to se itself, a task.
func (c *RunQueue) dequeueEntities(se *Entity, now uint64, flags qflags) bool {
	p := &c.params
	v71 := p.Version >= V618
	sleep := flags&flagWakeup != 0
	// A delayed group entity has no tasks queued below it. A delayed task no longer counts as
	// runnable: it leaves h_nr_runnable alone whether it leaves for good (DEQUEUE_DELAYED) or
	// moves (a migration or attribute change, which keeps it delayed).
	var h, hr, idleH uint32
	if se.myQ == nil {
		h = 1
		if !se.delayed {
			hr = 1
		}
		if se.class == Idle {
			idleH = 1
		}
	}
	first, finish := se, flags&flagDelayed != 0
	var slice uint64
	for ; se != nil; se = se.parent {
		q := se.q
		if !q.dequeueEEVDF(se, now, flags, p) {
			if se == first && se.myQ == nil {
				for e := se; e != nil; e = e.parent { // set_delayed
					e.q.hNrRunnable--
				}
				return false
			}
			slice = q.MinSlice()
			break // the delayed entity stays; the walk below starts with it
		}
		idleH = q.subH(h, hr, idleH)
		if q.load.Weight != 0 {
			if v71 {
				slice = q.MinSlice()
			}
			se = se.parent
			if sleep && se != nil {
				setNextBuddy(se)
			}
			break
		}
		flags = flags&^(flagDelayed|flagSpecial) | flagWakeup
	}
	for ; se != nil; se = se.parent {
		q := se.q
		q.updateGroup(se, now, p)
		if v71 {
			q.setSlice(se, slice)
			slice = q.MinSlice()
		}
		idleH = q.subH(h, hr, idleH)
	}
	if finish && first.myQ == nil && c.onBlock != nil {
		c.onBlock(first) // __block_task: the delayed sleeper is off the CPU for good
	}
	return true
}

// wakeDelayed is try_to_wake_up of a delayed task, ttwu_runnable: the task is still queued, so it
// only loses its delayed mark (requeue_delayed_entity), and unless it is the task on the CPU the
// wakeup preemption is judged.
func (c *RunQueue) wakeDelayed(t *Entity, now uint64, d *WakeupDecision) WakeupReason {
	if t.cpu != c {
		panic("cfs: RunQueue.Wakeup of a task delayed on another CPU")
	}
	t.q.requeueDelayed(t, &c.params)
	if c.curr == t {
		*d = WakeupDecision{curr: t, wakee: t}
		return wakeupSameTask
	}
	return c.checkPreemptEEVDF(t, now, false, d)
}

// Exit dequeues task t from c at time now because it exits: dequeue_task with DEQUEUE_SLEEP |
// DEQUEUE_SPECIAL, as __schedule does for a task in TASK_DEAD (a special state, as are stopped,
// traced, parked and frozen), followed by task_dead_fair. Unlike [RunQueue.Sleep], the dequeue is
// never delayed, so t is off the CPU afterwards (a group entity above it may still be delayed);
// a task whose earlier sleep was delayed is dequeued for good as task_dead_fair does. If t was
// running, the caller must then call [RunQueue.Schedule]. On a v6.5 or v6.6 CPU Exit is
// [RunQueue.Sleep]. Exit panics if t is not queued on c.
func (c *RunQueue) Exit(t *Entity, now uint64) {
	if !t.onRQ || t.cpu != c {
		panic("cfs: RunQueue.Exit of a task not queued on this CPU")
	}
	if t.delayed {
		c.DequeueDelayed(t, now)
		return
	}
	c.dequeueTask(t, now, flagWakeup|flagSpecial)
	if c.curr == t {
		c.needResched = true
	}
}

// DequeueDelayed finishes the delayed dequeue of task t (v7.1 DELAY_DEQUEUE), as the kernel does
// before a sleeping task exits, changes class or is migrated (dequeue_task with DEQUEUE_SLEEP |
// DEQUEUE_DELAYED): t leaves its queue with its lag, clipped to at most 0 with DELAY_ZERO, and
// is an ordinary sleeping task afterwards. It reports whether t was delayed. DequeueDelayed
// panics if t is delayed on another CPU.
func (c *RunQueue) DequeueDelayed(t *Entity, now uint64) bool {
	if !t.delayed {
		return false
	}
	if t.cpu != c {
		panic("cfs: RunQueue.DequeueDelayed of a task delayed on another CPU")
	}
	c.dequeueEntities(t, now, flagWakeup|flagDelayed)
	if c.curr == t {
		c.needResched = true
	}
	return true
}
