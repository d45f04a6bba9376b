// This file implements Entity, the kernel's struct sched_entity, and the scheduling policies of
// the fair class.

package cfs

import "fmt"

// A Policy is a fair-class scheduling policy.
type Policy uint8

const (
	// Normal is SCHED_NORMAL (SCHED_OTHER): weighted by nice, may preempt on wakeup.
	Normal Policy = iota
	// Batch is SCHED_BATCH: weighted by nice like Normal, but never preempts on wakeup; it is
	// preempted only by the tick or by a waking Normal task.
	Batch
	// Idle is SCHED_IDLE: weight 3 whatever the nice level (about 1/341 of a nice-0 task), never
	// preempts on wakeup, always preempted by a waking non-idle task.
	Idle
)

// String returns "SCHED_NORMAL", "SCHED_BATCH" or "SCHED_IDLE".
func (p Policy) String() string {
	switch p {
	case Normal:
		return "SCHED_NORMAL"
	case Batch:
		return "SCHED_BATCH"
	case Idle:
		return "SCHED_IDLE"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// An Entity is a schedulable entity: the kernel's struct sched_entity. It is either a task
// (created by [NewTask]) or the per-CPU entity of a task [Group], which owns a child [Queue].
//
// The exported fields are plain data the kernel keeps in sched_entity; the queue methods update
// them. Vruntime may be set by the caller only while the entity is not queued (for example to
// give a waking task a chosen vruntime before [CPU.Wakeup]); changing it while queued leaves the
// timeline ordered by the old value.
type Entity struct {
	node Node[Entity] // run_node

	// Name identifies the entity in explanations and tests.
	Name string

	// Vruntime is the entity's virtual runtime (se->vruntime) in nanoseconds of nice-0 time,
	// compared wrap-around aware. While a task is off its queue after a non-sleep dequeue or a
	// fork it is relative to the queue's min_vruntime, as in v6.5.
	Vruntime uint64

	// ExecStart is the clock value at which the entity last started running or had its run
	// time accounted (se->exec_start); 0 means never, or cache-cold after a migration.
	ExecStart uint64

	// SumExecRuntime is the total time the entity has run (se->sum_exec_runtime).
	SumExecRuntime uint64

	// PrevSumExecRuntime is SumExecRuntime when the entity was last picked
	// (se->prev_sum_exec_runtime); the difference is the time run in the current slice.
	PrevSumExecRuntime uint64

	load   LoadWeight
	policy Policy
	nice   int
	onRQ   bool
	depth  int

	parent *Entity // se->parent: the group entity one level up, nil at the top level
	q      *Queue  // cfs_rq_of(se): the queue the entity is (or was last) queued on
	myQ    *Queue  // group_cfs_rq(se): the queue a group entity owns, nil for a task
	group  *Group  // a task's group (nil: the root group); a group entity's own group
	cpu    *CPU    // the CPU the entity was last attached to
}

// NewTask returns a task entity with the given name, policy and nice level, not yet on any
// queue, with the load set_load_weight gives it ([TaskLoad]). NewTask panics if nice is outside
// [MinNice, MaxNice] or policy is unknown.
func NewTask(name string, policy Policy, nice int) *Entity {
	e := &Entity{Name: name, load: TaskLoad(policy, nice), policy: policy, nice: nice}
	e.node.Init(e)
	return e
}

// Load returns the entity's load weight (se->load).
func (e *Entity) Load() LoadWeight { return e.load }

// Policy returns a task's scheduling policy; a group entity reports Normal.
func (e *Entity) Policy() Policy { return e.policy }

// Nice returns a task's nice level.
func (e *Entity) Nice() int { return e.nice }

// OnRQ reports whether the entity is queued (se->on_rq), either in its queue's timeline or as
// the queue's running entity.
func (e *Entity) OnRQ() bool { return e.onRQ }

// IsTask reports whether e is a task rather than a group entity (entity_is_task).
func (e *Entity) IsTask() bool { return e.myQ == nil }

// IsIdle reports whether e counts as idle (the kernel's se_is_idle): a task with policy
// SCHED_IDLE, or a group entity whose group is idle (cpu.idle = 1).
func (e *Entity) IsIdle() bool {
	if e.myQ == nil {
		return e.policy == Idle
	}
	return e.myQ.isIdle()
}

// Parent returns the group entity one level up (se->parent), or nil for a top-level entity.
func (e *Entity) Parent() *Entity { return e.parent }

// Depth returns the entity's depth in the group hierarchy (se->depth): 0 at the top level.
func (e *Entity) Depth() int { return e.depth }

// Queue returns the queue the entity is, or was last, attached to (cfs_rq_of), or nil if it was
// never attached.
func (e *Entity) Queue() *Queue { return e.q }

// MyQueue returns the queue a group entity owns (group_cfs_rq), or nil for a task.
func (e *Entity) MyQueue() *Queue { return e.myQ }

// Group returns the group a task belongs to (nil for the root group) or, for a group entity,
// the group it represents.
func (e *Entity) Group() *Group { return e.group }

// SetGroup moves a task that is not queued into group g (nil for the root group): the next
// enqueue attaches it to g's queue on that CPU. SetGroup panics if e is queued or is a group
// entity.
func (e *Entity) SetGroup(g *Group) {
	if e.myQ != nil {
		panic("cfs: Entity.SetGroup of a group entity")
	}
	if e.onRQ {
		panic("cfs: Entity.SetGroup of a queued task")
	}
	e.group = g
}

// String returns the entity's name.
func (e *Entity) String() string {
	if e == nil {
		return "<nil>"
	}
	return e.Name
}
