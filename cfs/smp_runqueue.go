// This file implements the per-CPU state changes of task migration in v6.5: the non-sleep
// dequeue and migrated enqueue of detach_task / attach_task and move_queued_task, the remote
// wakeup of migrate_task_rq_fair with ENQUEUE_MIGRATED, and the put_prev step of __schedule on
// its own. They are the System's steps (System.Move, its balancing and its wakeups), not
// exported: a task changes CPU through the System that owns both run queues.

package cfs

// deschedule puts the running task back (put_prev_task_fair) so that the CPU runs nothing until
// the next [RunQueue.Schedule]: the first step of __schedule, taken on its own when a machine stops a
// task before asking which one runs next. A running task that is still queued goes back on the
// timeline; one that went to sleep does not. The need-resched flag stays as it is. deschedule
// does nothing on an idle CPU.
func (c *RunQueue) deschedule(now uint64) {
	if c.curr == nil {
		return
	}
	c.putPrevTask(now)
	c.curr = nil
}

// migrateOut dequeues task t from c for a move to another CPU (detach_task: deactivate_task
// without DEQUEUE_SLEEP), so that its vruntime becomes relative to its queue's min_vruntime in
// v6.5. A delayed-dequeue task (v7.1) stays delayed, as the kernel moves it. migrateOut panics
// if t is not queued on c or is c's running task.
func (c *RunQueue) migrateOut(t *Entity, now uint64) {
	if !t.onRQ || t.cpu != c {
		panic("cfs: RunQueue.migrateOut of a task not queued on this CPU")
	}
	if c.curr == t {
		panic("cfs: RunQueue.migrateOut of the running task")
	}
	c.dequeueTask(t, now, 0)
}

// migrateIn enqueues task t, taken off another CPU by [RunQueue.migrateOut], on c (attach_task:
// activate_task with ENQUEUE_MIGRATED, which makes it cache cold) and asks
// [CheckPreemptWakeup] whether it preempts c's running task, writing the decision to *d and
// setting the need-resched flag if so. A delayed-dequeue task (v7.1) arrives still delayed, not
// runnable, and preempts only an idle CPU or a SCHED_IDLE side, whose pick then dequeues it.
// migrateIn panics if t is queued.
func (c *RunQueue) migrateIn(t *Entity, now uint64, d *WakeupDecision) WakeupReason {
	if t.onRQ {
		panic("cfs: RunQueue.migrateIn of a queued task")
	}
	c.attach(t)
	c.enqueueTask(t, now, flagMigrated)
	return c.checkPreempt(t, now, false, d)
}

// wakeupMigrated wakes sleeping task t on c although it last ran on another CPU: try_to_wake_up
// after select_task_rq chose c, where v6.5's migrate_task_rq_fair makes the sleeper's vruntime
// relative to its old queue's min_vruntime and the enqueue (ENQUEUE_WAKEUP|ENQUEUE_MIGRATED)
// adds c's back before [PlaceEntity] gives the sleeper credit; the task is cache cold. Then
// [CheckPreemptWakeup] decides about preemption as in [RunQueue.Wakeup], writing the decision
// to *d. wakeupMigrated panics if t is queued.
func (c *RunQueue) wakeupMigrated(t *Entity, now uint64, d *WakeupDecision) WakeupReason {
	if t.onRQ {
		panic("cfs: RunQueue.wakeupMigrated of a queued task")
	}
	if c.params.Version == V65 && t.q != nil {
		t.Vruntime -= t.q.minVruntime
	}
	c.attach(t)
	c.enqueueTask(t, now, flagWakeup|flagMigrated)
	return c.checkPreempt(t, now, false, d)
}

// requeue changes a task's attributes with change while it is off its queues, the way
// __sched_setscheduler and sched_move_task do: a queued task is dequeued (DEQUEUE_SAVE) and
// enqueued again afterwards, a running one is put back and set again. It reports whether the
// task is running, so that the caller can reschedule it. change may call [Entity.SetGroup].
func (c *RunQueue) requeue(t *Entity, now uint64, change func()) (running bool) {
	queued := t.onRQ
	running = c.curr == t
	if queued {
		c.dequeueTask(t, now, flagSave)
	}
	if running {
		c.putPrevTask(now)
	}
	change()
	if queued {
		c.attach(t)
		c.enqueueTask(t, now, 0)
	}
	if running {
		c.setNextTask(t, now)
	}
	return running
}

// setClass sets a task's fair policy and reloads its weight (set_load_weight). The task must be
// off its queues.
func (e *Entity) setClass(p Class) {
	e.class = p
	e.load = TaskLoad(p, e.nice)
}
