// This file implements Task, what the multiprocessor code knows about a fair task beyond its
// Entity (its allowed CPUs, its CPU, wakee flips, recent_used_cpu, a utilisation estimate), and
// TaskList, a CPU's rq->cfs_tasks list in least-recently-run order.

package cfs

import (
	"fmt"

	"github.com/schedkit/schedkit/topology"
)

// A Task is a fair task as load balancing and wakeup placement see it: its [Entity] and the
// fields of struct task_struct the SMP code reads (cpus_ptr, task_cpu, wakee_flips,
// last_wakee, recent_used_cpu) plus a utilisation estimate standing in for PELT's util_avg
// (see [Task.util]). A Task is not safe for concurrent use.
type Task struct {
	// E is the task's scheduling entity.
	E *Entity

	// allowed is shared by the tasks of one affinity (a System gives every task allowed on
	// the whole machine the same set): it is never written through, only replaced.
	allowed  *topology.CPUSet
	nAllowed int
	cpu      topology.CPU

	prev, next *Task
	list       *TaskList

	// wakeeFlips is the decayed number of times the task switched the task it wakes (p->wakee_flips),
	// which wake_wide reads.
	wakeeFlips     uint32
	wakeeFlipDecay int64
	lastWakee      *Task
	// recentUsedCPU is the CPU the task ran on before its previous one (p->recent_used_cpu).
	recentUsedCPU   topology.CPU
	util            uint64
	utilTick        int64 // the tick up to which util is decayed
	migrationsTotal int
	th              *thread // the Scheduler's thread, or nil
}

// NewSMPTask returns a Task for entity e allowed on the CPUs of allowed, last run on cpu.
// NewSMPTask panics if allowed is empty.
func NewSMPTask(e *Entity, allowed topology.CPUSet, cpu topology.CPU) *Task {
	if allowed.IsEmpty() {
		panic("cfs: NewSMPTask with no allowed CPU")
	}
	return newSMPTask(new(Task), e, &allowed, cpu)
}

// newSMPTask is [NewSMPTask] in zeroed memory the caller allocated, t (the System's slab), with
// a set of allowed CPUs that the task may share with others: nothing writes through it.
func newSMPTask(t *Task, e *Entity, allowed *topology.CPUSet, cpu topology.CPU) *Task {
	t.E, t.allowed, t.nAllowed, t.cpu, t.recentUsedCPU = e, allowed, allowed.Count(), cpu, cpu
	e.task = t
	return t
}

// share returns a set equal to *m for a task to keep: the System's set of all its CPUs, or the
// task's own set old when equal to either, or else a copy of *m. A machine of 1024 CPUs has sets
// of 136 bytes, more than the rest of a Task; most tasks may run anywhere and share one.
func (s *System) share(m, old *topology.CPUSet) *topology.CPUSet {
	switch {
	case *m == s.all:
		return &s.all
	case old != nil && *m == *old:
		return old
	}
	c := *m
	return &c
}

// Allowed returns the CPUs the task may run on (p->cpus_ptr).
func (t *Task) Allowed() topology.CPUSet { return *t.allowed }

// allowedOn reports whether the task may run on c.
func (t *Task) allowedOn(c topology.CPU) bool { return t.allowed.Has(c) }

// setAllowed changes the CPUs the task may run on to *allowed, a set that the task may share
// with others ([System.SetAttr] moves the task if its CPU is no longer allowed).
func (t *Task) setAllowed(allowed *topology.CPUSet) {
	t.allowed, t.nAllowed = allowed, allowed.Count()
}

// CPU returns the CPU the task is queued on or last ran on (task_cpu).
func (t *Task) CPU() topology.CPU { return t.cpu }

// migrations returns how many times the task changed CPU.
func (t *Task) migrations() int { return t.migrationsTotal }

// String returns the entity's name.
func (t *Task) String() string {
	if t == nil {
		return "<nil>"
	}
	return t.E.String()
}

// recordWakee is record_wakee, called for waker t when it wakes wakee at time now (ns): once a
// second the waker's flip count is halved, and it grows by one each time the waker wakes a
// different task than the last one.
func (t *Task) recordWakee(wakee *Task, now int64) {
	if now-t.wakeeFlipDecay > 1_000_000_000 {
		t.wakeeFlips >>= 1
		t.wakeeFlipDecay = now
	}
	if t.lastWakee != wakee {
		t.lastWakee = wakee
		t.wakeeFlips++
	}
}

// A TaskList is a CPU's list of queued fair tasks, rq->cfs_tasks: a task joins at the head when
// it is enqueued and moves to the head when it is picked, so the tail holds the task that ran
// least recently, the one load balancing examines first (detach_tasks). The zero value is an
// empty list; a TaskList is intrusive (the links live in the Task) and allocation-free.
type TaskList struct {
	head, tail *Task
	n          int
}

// Len returns the number of tasks on the list. The complexity is O(1).
func (l *TaskList) Len() int { return l.n }

// Front returns the most recently enqueued or picked task, or nil. The complexity is O(1).
func (l *TaskList) Front() *Task { return l.head }

// Back returns the least recently run task, or nil. The complexity is O(1).
func (l *TaskList) Back() *Task { return l.tail }

// Prev returns the task before t (towards the front), or nil.
func (t *Task) Prev() *Task { return t.prev }

// Next returns the task after t (towards the back), or nil.
func (t *Task) Next() *Task { return t.next }

// PushFront adds t at the head (list_add). It panics if t is on a list. The complexity is O(1).
func (l *TaskList) PushFront(t *Task) {
	if t.list != nil {
		panic(listMisuse{"PushFront", t, "already on a list"})
	}
	t.list, t.prev, t.next = l, nil, l.head
	if l.head != nil {
		l.head.prev = t
	} else {
		l.tail = t
	}
	l.head = t
	l.n++
}

// Remove takes t off the list (list_del_init). It panics if t is not on l. The complexity is
// O(1).
func (l *TaskList) Remove(t *Task) {
	if t.list != l {
		panic(listMisuse{"Remove", t, "not on this list"})
	}
	if t.prev != nil {
		t.prev.next = t.next
	} else {
		l.head = t.next
	}
	if t.next != nil {
		t.next.prev = t.prev
	} else {
		l.tail = t.prev
	}
	t.list, t.prev, t.next = nil, nil, nil
	l.n--
}

// A listMisuse is the panic of a [TaskList] method called on a task it cannot take, such as
// "cfs: TaskList.Remove of t5, not on this list". The message is formatted when it is read, so
// that the methods' tests stay small enough to inline into their callers.
type listMisuse struct {
	op   string
	t    *Task
	what string
}

// Error returns the message.
func (e listMisuse) Error() string {
	return fmt.Sprintf("cfs: TaskList.%s of %v, %s", e.op, e.t, e.what)
}

// moveToFront moves t, which must be on l, to the head (list_move). The complexity is O(1).
// The usual case, t already at the head (the task a CPU picks is mostly the one it ran or
// woke last), is tested where it is called: moveToFront inlines, the move does not.
func (l *TaskList) moveToFront(t *Task) {
	if l.head != t {
		l.moveAhead(t)
	}
}

// moveAhead is moveToFront of a t that is not at the head.
func (l *TaskList) moveAhead(t *Task) {
	l.Remove(t)
	l.PushFront(t)
}

// contains reports whether t is on l.
func (l *TaskList) contains(t *Task) bool { return t.list == l }
