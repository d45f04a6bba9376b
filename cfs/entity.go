// This file implements Entity, the kernel's struct sched_entity, and the scheduling policies of
// the fair class.

package cfs

import (
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/timeline"
)

// A Class is a task's scheduling policy within the fair class (the kernel's p->policy for the
// fair policies): Normal, Batch or Idle. It is not a package sched.Class, which also names the
// real-time classes this package does not model.
type Class uint8

const (
	// Normal is SCHED_NORMAL (SCHED_OTHER): weighted by nice, may preempt on wakeup.
	Normal Class = iota
	// Batch is SCHED_BATCH: weighted by nice like Normal, but never preempts on wakeup; it is
	// preempted only by the tick or by a waking Normal task.
	Batch
	// Idle is SCHED_IDLE: weight 3 whatever the nice level (about 1/341 of a nice-0 task), never
	// preempts on wakeup, always preempted by a waking non-idle task.
	Idle
)

var classNames = [...]string{Normal: "SCHED_NORMAL", Batch: "SCHED_BATCH", Idle: "SCHED_IDLE"}

// String returns "SCHED_NORMAL", "SCHED_BATCH" or "SCHED_IDLE".
func (c Class) String() string { return sched.EnumName(classNames[:], c, "Class") }

// An Entity is a schedulable entity: the kernel's struct sched_entity. It is either a task
// (created by [NewTask]) or the per-CPU entity of a task [Group], which owns a child [Queue].
//
// The exported fields are plain data the kernel keeps in sched_entity; the queue methods update
// them. Vruntime may be set by the caller only while the entity is not queued (for example to
// give a waking task a chosen vruntime before [RunQueue.Wakeup]); changing it while queued leaves the
// timeline ordered by the old value.
type Entity struct {
	node timeline.Node[Entity] // run_node

	// Name identifies the entity in explanations and tests.
	Name string

	// Vruntime is the entity's virtual runtime (se->vruntime) in nanoseconds of nice-0 time,
	// compared wrap-around aware. In v6.5, while a task is off its queue after a non-sleep
	// dequeue or a fork it is relative to the queue's min_vruntime; EEVDF keeps it absolute and
	// places a joining entity from its VLag instead.
	Vruntime uint64

	// Deadline is the entity's virtual deadline (se->deadline), EEVDF only: the vruntime at
	// which its current request of Slice nanoseconds is served, Vruntime + Slice*1024/weight
	// when the request was made. In v7.1, while the entity is off its queue after a dequeue
	// that was not a sleep, it is relative to its vruntime (PLACE_REL_DEADLINE).
	Deadline uint64

	// VLag is the entity's virtual lag (se->vlag), EEVDF only: V - Vruntime, the queue's
	// average vruntime minus its own, clamped, saved when it leaves its queue so that it can be
	// placed with the same lag when it comes back. Positive means owed service. In v6.6 the
	// field doubles, while the entity runs, as the copy of its deadline at the time it was
	// picked (the RUN_TO_PARITY "HACK" of set_next_entity).
	VLag int64

	// Slice is the entity's request size (se->slice) in wall-clock nanoseconds, EEVDF only:
	// Params.DefaultSlice, a custom slice ([Entity.SetSlice], v7.1), or for a group entity in
	// v7.1 the shortest slice queued below it.
	Slice uint64

	// VProt is the vruntime up to which v7.1 protects the running entity from being preempted
	// (se->vprot), set when it is picked (set_protect_slice): its Deadline, or, when a shorter
	// slice applies, its Vruntime plus that slice in its virtual time, whichever is earlier; the
	// slice is the shortest queued one with Params.RunToParity, Params.NormalizedSlice without,
	// and never more than Slice.
	VProt uint64

	// ExecStart is the clock value at which the entity last started running or had its run
	// time accounted (se->exec_start); 0 means never, or cache-cold after a migration.
	ExecStart uint64

	// SumExecRuntime is the total time the entity has run (se->sum_exec_runtime).
	SumExecRuntime uint64

	// prevSumExecRuntime is SumExecRuntime when the entity was last picked
	// (se->prev_sum_exec_runtime); the difference is the time run in the current slice.
	prevSumExecRuntime uint64

	sliceNode timeline.Node[Entity] // v7.1: the entity on its queue's slice timeline (min_slice, max_slice)

	load LoadWeight
	nice int
	// depth is the entity's depth in the group hierarchy (se->depth): 0 at the top level.
	depth int
	// The one-byte fields together: an Entity then fits the 320-byte allocation class, not the
	// 352-byte one (TestEntitySize).
	class       Class
	onRQ        bool
	customSlice bool // se->custom_slice (v7.1)
	relDeadline bool // se->rel_deadline (v7.1)
	delayed     bool // se->sched_delayed (v7.1 DELAY_DEQUEUE)

	parent *Entity   // se->parent: the group entity one level up, nil at the top level
	q      *Queue    // cfs_rq_of(se): the queue the entity is (or was last) queued on
	myQ    *Queue    // group_cfs_rq(se): the queue a group entity owns, nil for a task
	group  *Group    // a task's group (nil: the root group); a group entity's own group
	cpu    *RunQueue // the CPU the entity was last attached to
	task   *Task     // task_of(se): the [Task] wrapping a task entity ([NewSMPTask]), or nil
}

// NewTask returns a task entity with the given name, class and nice level, not yet on any
// queue, with the load set_load_weight gives it ([TaskLoad]). NewTask panics if nice is outside
// -20..19 (MIN_NICE..MAX_NICE) or class is unknown.
func NewTask(name string, class Class, nice int) *Entity {
	return initTask(new(Entity), name, class, nice)
}

// initTask makes *e, zeroed memory the caller allocated (the Scheduler's slab), the task entity
// NewTask returns, and returns e.
func initTask(e *Entity, name string, class Class, nice int) *Entity {
	e.Name, e.load, e.class, e.nice = name, TaskLoad(class, nice), class, nice
	e.node.Init(e)
	e.sliceNode.Init(e)
	return e
}

// Delayed reports whether the entity went to sleep while ineligible and stays queued until it
// is picked or woken (se->sched_delayed, v7.1 DELAY_DEQUEUE). A delayed task is asleep but
// OnRQ; it can only be woken on the CPU it is queued on.
func (e *Entity) Delayed() bool { return e.delayed }

// CustomSlice reports whether the entity has a custom slice (se->custom_slice, v7.1): a task
// that asked for one through sched_setattr ([Entity.SetSlice], [RunQueue.SetSlice]), or a group
// entity whose slice follows the shortest slice below it.
func (e *Entity) CustomSlice() bool { return e.customSlice }

// Minimum and maximum custom slice, in nanoseconds: __setparam_fair clamps sched_runtime to
// [NSEC_PER_MSEC/10, NSEC_PER_MSEC*100].
const (
	minCustomSlice uint64 = 100_000
	maxCustomSlice uint64 = 100_000_000
)

// clampSlice returns the slice v7.1's __setparam_fair gives a fair task whose sched_attr asks
// for runtime nanoseconds (sched_runtime), and whether it is a custom slice: 0 asks for the
// default (custom false, slice 0, meaning Params.DefaultSlice); any other value is clamped to
// [minCustomSlice, maxCustomSlice].
func clampSlice(runtime uint64) (slice uint64, custom bool) {
	if runtime == 0 {
		return 0, false
	}
	return min(max(runtime, minCustomSlice), maxCustomSlice), true
}

// SetSlice sets the slice a task that is not queued asks for, as sched_setattr with
// sched_runtime = runtime does in v7.1, clamped to 0.1..100 ms; 0 returns it to the default slice.
// The slice takes effect when the task is next enqueued, on a CPU whose Params version has custom
// slices (v7.1; v6.5 and v6.6 ignore sched_runtime for fair tasks). For a queued task use
// [RunQueue.SetSlice]. SetSlice panics if e is queued or is a group entity.
func (e *Entity) SetSlice(runtime uint64) {
	if e.myQ != nil {
		panic("cfs: Entity.SetSlice of a group entity")
	}
	if e.onRQ {
		panic("cfs: Entity.SetSlice of a queued task")
	}
	e.setSlice(runtime)
}

// setSlice is __setparam_fair's slice part. A default slice is filled in at the next placement.
func (e *Entity) setSlice(runtime uint64) {
	slice, custom := clampSlice(runtime)
	e.customSlice = custom
	if custom {
		e.Slice = slice
	}
}

// Load returns the entity's load weight (se->load).
func (e *Entity) Load() LoadWeight { return e.load }

// Class returns a task's class; a group entity reports Normal.
func (e *Entity) Class() Class { return e.class }

// Nice returns a task's nice level.
func (e *Entity) Nice() int { return e.nice }

// OnRQ reports whether the entity is queued (se->on_rq), either in its queue's timeline or as
// the queue's running entity.
func (e *Entity) OnRQ() bool { return e.onRQ }

// isTask reports whether e is a task rather than a group entity (entity_is_task).
func (e *Entity) isTask() bool { return e.myQ == nil }

// IsIdle reports whether e counts as idle (the kernel's se_is_idle): a task with policy
// SCHED_IDLE, or a group entity whose group is idle (cpu.idle = 1).
func (e *Entity) IsIdle() bool {
	if e.myQ == nil {
		return e.class == Idle
	}
	return e.myQ.isIdle()
}

// Parent returns the group entity one level up (se->parent), or nil for a top-level entity.
func (e *Entity) Parent() *Entity { return e.parent }

// Queue returns the queue the entity is, or was last, attached to (cfs_rq_of), or nil if it was
// never attached.
func (e *Entity) Queue() *Queue { return e.q }

// myQueue returns the queue a group entity owns (group_cfs_rq), or nil for a task.
func (e *Entity) myQueue() *Queue { return e.myQ }

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
