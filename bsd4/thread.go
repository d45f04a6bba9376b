package bsd4

import (
	"fmt"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// This file implements the per-thread state: struct thread's scheduling fields and 4BSD's
// td_sched.

// A ThreadState is where a thread is in its life: TD_IS_RUNNING, TD_ON_RUNQ, sleeping, or
// created and not yet made runnable (PRS_NEW).
type ThreadState uint8

const (
	// Created: created by fork and not yet runnable; schedcpu skips it (PRS_NEW).
	Created ThreadState = iota
	// Sleeping: blocked or asleep; schedcpu counts its slptime.
	Sleeping
	// Queued: on the global run queue or a per-CPU one (TD_ON_RUNQ).
	Queued
	// Running: the current thread of a CPU (TD_IS_RUNNING).
	Running
)

// String returns "new", "sleeping", "queued" or "running".
func (s ThreadState) String() string {
	switch s {
	case Created:
		return "new"
	case Sleeping:
		return "sleeping"
	case Queued:
		return "queued"
	case Running:
		return "running"
	}
	return fmt.Sprintf("ThreadState(%d)", uint8(s))
}

// ID identifies a thread: it is sched.ID under this package's name, so that a program that
// builds Threads imports only bsd4 to set Thread.ID from a variable (bsd4.ID(i)).
type ID = sched.ID

// A Thread is one thread's scheduling state. It embeds the runq.Link that puts it on a run
// queue (td_runq, td_rqindex). A Scheduler owns its Threads: read them, do not change them.
type Thread struct {
	runq.Link[Thread]
	// ID identifies the thread.
	ID ID
	// Parent is the thread that forked it, or -1; its estcpu is charged back there at exit.
	Parent sched.ID
	// Usage holds estcpu, %CPU, cpticks and slptime.
	Usage
	// Attr is what the thread asked for: class, nice, real-time priority, affinity.
	Attr sched.Attr
	// Pri is td_priority, the priority it is queued and compared at.
	Pri uint8
	// UserPri is td_user_pri, the user priority resetpriority computed (equal to Pri for a
	// time-sharing thread in this model, which has no kernel sleep priorities).
	UserPri uint8
	// Slice is ts_slice, the statistics ticks left in its slice (SliceQuantum).
	Slice int32

	state    ThreadState
	cpu      topology.CPU // the CPU running it, when Running
	lastCPU  topology.CPU // td_lastcpu, when hasLast
	hasLast  bool
	queue    int32 // when Queued: the per-CPU queue's CPU, or -1 for the global queue
	bound    bool  // TDF_BOUND
	boundCPU topology.CPU
	didRun   bool // TDF_DIDRUN
	sliceEnd bool // TDF_SLICEEND
	affinity bool // TSF_AFFINITY: the affinity set excludes some CPU of the machine
}

// State returns where the thread is: new, sleeping, queued or running.
func (t *Thread) State() ThreadState { return t.state }

// LastCPU returns td_lastcpu, the CPU the thread last ran on, and false if it has not run yet
// (NOCPU).
func (t *Thread) LastCPU() (topology.CPU, bool) { return t.lastCPU, t.hasLast }

// CPU returns the CPU running the thread, and false if it is not running.
func (t *Thread) CPU() (topology.CPU, bool) { return t.cpu, t.state == Running }

// Queue returns the CPU whose per-CPU run queue holds the thread, or false if it is on the
// global run queue or on none.
func (t *Thread) Queue() (topology.CPU, bool) {
	if t.state != Queued || t.queue < 0 {
		return 0, false
	}
	return topology.CPU(t.queue), true
}

// Timeshare reports whether the thread's class is time sharing (Normal or Batch: PRI_TIMESHARE),
// the classes whose priority 4BSD recomputes from estcpu.
func (t *Thread) Timeshare() bool {
	return t.Attr.Class == sched.Normal || t.Attr.Class == sched.Batch
}

// String formats the thread as "t3(pri 76 estcpu 120)".
func (t *Thread) String() string {
	return fmt.Sprintf("%v(pri %d estcpu %d)", t.ID, t.Pri, t.EstCPU)
}

// NewThread returns a time-sharing thread id at priority pri, bound to its run-queue link and
// not queued, for callers that keep their own run queues and call [Pick] on them. A
// Scheduler creates its own threads in Fork.
func NewThread(id sched.ID, pri uint8) *Thread {
	t := &Thread{ID: id, Parent: -1, Pri: pri, UserPri: pri, queue: -1}
	t.Init(t)
	return t
}

// SetLastCPU records cpu as the CPU the thread last ran on (td_lastcpu), which runq_fuzz
// looks at. It is for threads made with NewThread; a Scheduler maintains its own.
func (t *Thread) SetLastCPU(cpu topology.CPU) { t.lastCPU, t.hasLast = cpu, true }
