// This file implements Thread, the per-thread scheduling state (struct td_sched and the fields of
// struct thread ULE reads), and the state changes that touch only the thread: sleep, the
// accounting of a wake-up, fork, exit of a child, nice, the clock tick.

package ule

import (
	"fmt"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A ThreadState is where a thread is: TD_CAN_RUN or inhibited (not runnable), TD_ON_RUNQ,
// TD_IS_RUNNING.
type ThreadState uint8

const (
	Inactive ThreadState = iota // not runnable: new, asleep or exited
	OnRunq                      // TD_ON_RUNQ: queued on a CPU's run queue
	Running                     // TD_IS_RUNNING: a CPU's tdq_curthread
)

var threadStateNames = []string{Inactive: "inactive", OnRunq: "runq", Running: "running"}

// String returns "inactive", "runq" or "running".
func (s ThreadState) String() string { return sched.EnumName(threadStateNames, s, "ThreadState") }

// ID identifies a thread: it is sched.ID under this package's name, so that a program that
// builds Threads imports only ule to set Thread.ID from a variable (ule.ID(i)).
type ID = sched.ID

// A Thread is one thread's scheduling state: ULE's struct td_sched together with the fields of
// struct thread and struct proc the scheduler reads and writes. It embeds the run-queue link
// (td_runq, td_rqindex); bind it once with InitThread before queueing it.
//
// Fields may be set directly to build a situation to decide over (tests, what-if analysis);
// while the thread is queued, change them only through the CPUState and System methods, which
// keep the queues and the load counts consistent.
type Thread struct {
	runq.Link[Thread]

	ID     ID    // td_tid
	Parent ID    // the thread that forked it (its process's parent), or -1
	Class  Class // td_pri_class
	Nice   int   // p_nice, -20..20

	Priority    uint8 // td_priority: the current priority, which selects the queue
	BasePri     uint8 // td_base_pri: the priority without lending (set by sched_prio)
	UserPri     uint8 // td_user_pri = td_base_user_pri: the user-mode priority (no lending is modelled)
	BaseIthdPri uint8 // td_base_ithread_pri: the priority an interrupt thread returns to at wake-up

	Pinned   int             // td_pinned: sched_pin nesting; a pinned thread cannot migrate
	Bound    bool            // TSF_BOUND: bound to CPU by sched_bind (also pinned)
	NoLoad   bool            // TDF_NOLOAD: does not count in tdq_sysload
	Affinity topology.CPUSet // td_cpuset->cs_mask: the CPUs the thread may run on

	CPU     topology.CPU // ts_cpu: the CPU the thread is on or last ran on
	RLTick  uint32       // ts_rltick: ticks at the last switch-out, for cache affinity
	Slice   uint32       // ts_slice: stathz ticks of the current slice already used
	Window               // ts_ticks, ts_ftick, ts_ltick: the %CPU window
	SlpTime uint32       // ts_slptime: voluntary sleep, hz ticks << 10
	RunTime uint32       // ts_runtime: run time, hz ticks << 10
	SlpTick uint32       // td_slptick: ticks when the thread went to sleep, 0 when awake

	State      ThreadState
	SliceEnd   bool // TDF_SLICEEND: the slice expired; the next switch is not a preemption
	PickCPU    bool // TDF_PICKCPU: the balancer asked the thread to choose a CPU again
	OwePreempt bool // td_owepreempt: a local preemption is pending
	// Short records that the thread's last run ended before its slice did (it slept or was
	// preempted): the "partial slice user" of the seed-000 patch, queued with the real-time
	// range when Params.PickShort is set.
	Short bool

	xferable bool  // TSF_XFERABLE: counted in its CPU's tdq_transferable
	rq       uint8 // which run queue of the CPU holds it (legacy: realtime, timeshare, idle)
}

// InitThread binds t's run-queue link to t and returns t. Call it once, before t is first queued.
func InitThread(t *Thread) *Thread {
	t.Link.Init(t)
	return t
}

// CanMigrate reports whether t may move between CPUs: THREAD_CAN_MIGRATE, td_pinned == 0.
func (t *Thread) CanMigrate() bool { return t.Pinned == 0 }

// CanRunOn reports whether t's affinity allows cpu: THREAD_CAN_SCHED.
func (t *Thread) CanRunOn(cpu topology.CPU) bool { return t.Affinity.Has(cpu) }

// String returns a one-line summary of t, such as "t3 pri=140 PRI_TIMESHARE cpu1 runq".
func (t *Thread) String() string {
	return fmt.Sprintf("%v pri=%d %v cpu%d %v", t.ID, t.Priority, t.Class, t.CPU, t.State)
}

// Score returns t's interactivity score under p (InteractScore of its run and sleep times).
func (t *Thread) Score(p *Params) int { return InteractScore(t.RunTime, t.SlpTime, p.Interact) }

// UpdatePriority recomputes t's priority from its history, as a thread set up or changed outside
// the scheduler needs it: sched_priority and sched_user_prio give the user priority (UserPri),
// and a thread neither queued nor running (Inactive) takes it as Priority and BasePri too, as
// sched_nice and a return to user mode give it; so a thread built field by field is picked at
// the kernel's priority (Example_whichThread). A queued or running thread keeps its Priority,
// which the System changes (SetPriority, SetNice, ReturnToUser). Only time-sharing threads
// change: other classes take theirs from rtprio(2) (Layout.RealtimePriority, IdlePriority).
func (t *Thread) UpdatePriority(p *Params) {
	t.schedPriority(p)
	if t.Class.Base() == ClassTimeshare && t.State == Inactive {
		t.Priority, t.BasePri = t.UserPri, t.UserPri
	}
}

// schedPriority is sched_priority followed by sched_user_prio: a time-sharing thread's user
// priority (td_user_pri) from its interactivity score, nice value and %CPU window. td_priority
// is left alone: the kernel calls sched_priority from sched_add, sched_clock, fork and exit,
// and the thread takes the new user priority only when it returns to user mode
// (System.ReturnToUser) or through sched_prio.
func (t *Thread) schedPriority(p *Params) {
	if t.Class.Base() != ClassTimeshare {
		return
	}
	t.UserPri = TimesharePriority(p.Version, p.Interact, t.Score(p), t.Nice, t.Window, p.Hz)
}

// Sleep records that t goes to sleep at tick ticks with sleep priority prio (0: none):
// sched_sleep. td_slptick = ticks; a time-sharing thread is boosted to prio when
// StaticBoost == 1, or else to StaticBoost when that is set and better than its priority. It
// returns the priority t should take (sched_prio), which equals t.Priority when there is no
// boost; the caller applies it (System.Switch does).
func (t *Thread) Sleep(p *Params, ticks uint32, prio uint8) uint8 {
	t.SlpTick = ticks
	if t.Class.Base() != ClassTimeshare {
		return t.Priority
	}
	if p.StaticBoost == 1 && prio != 0 {
		return prio
	}
	if p.StaticBoost != 0 && int(t.Priority) > p.StaticBoost {
		return uint8(p.StaticBoost)
	}
	return t.Priority
}

// WakeAccount is the accounting half of sched_wakeup, before the thread is added to a run queue:
// if it slept since a tick other than the current one, its sleep time grows by
// (ticks - td_slptick) << 10, the history is bounded (InteractUpdate) and its %CPU window
// advanced without run time; an interrupt thread gets its base priority back; the slice restarts.
func (t *Thread) WakeAccount(p *Params, ticks uint32) {
	slptick := t.SlpTick
	t.SlpTick = 0
	if slptick != 0 && slptick != ticks {
		t.SlpTime += (ticks - slptick) << TickShift
		t.RunTime, t.SlpTime = InteractUpdate(t.RunTime, t.SlpTime, p.Hz)
		t.Window = PctCPUUpdate(p.Version, t.Window, ticks, false, p.Hz)
	}
	if t.Class.Base() == ClassIthd && t.Priority != t.BaseIthdPri {
		t.BasePri, t.Priority = t.BaseIthdPri, t.BaseIthdPri
	}
	t.Slice = 0
}

// Fork initialises child from parent t at tick ticks on a CPU whose tdq_slice is tdqSlice:
// sched_fork and sched_fork_thread. The parent's window is advanced as running; the child inherits
// its CPU, %CPU window and interactivity history, scaled down (InteractFork), starts with tdqSlice
// - sched_slice_min ticks of its slice already used ("to quickly learn interactivity"), and
// computes its own user priority (UserPri), but is first queued at the parent's base priority
// (td_base_pri, which fork1 copies and sched_fork_thread makes the child's td_priority) until it
// returns to user mode; the parent is charged one tickincr of run time. The child keeps its own ID,
// Class, Nice and Affinity, which the caller sets before.
func (t *Thread) Fork(p *Params, child *Thread, ticks uint32, tdqSlice int) {
	t.Window = PctCPUUpdate(p.Version, t.Window, ticks, true, p.Hz)
	child.CPU = t.CPU
	child.Bound, child.xferable = false, false
	child.Window = t.Window
	child.SlpTime, child.RunTime = t.SlpTime, t.RunTime
	child.Slice = uint32(tdqSlice - p.SliceMinTicks())
	if p.FixedSlice {
		child.Slice = uint32(tdqSlice - 1) // 2008: ts_slice = 1, one tick before the first resched
	}
	child.RunTime, child.SlpTime = InteractFork(child.RunTime, child.SlpTime, p.Hz)
	child.schedPriority(p)
	child.BasePri, child.Priority = t.BasePri, t.BasePri // "do not inherit any borrowed priority"
	t.RunTime += p.TickIncr()
	t.RunTime, t.SlpTime = InteractUpdate(t.RunTime, t.SlpTime, p.Hz)
	t.schedPriority(p)
}

// ExitChild charges t, the parent, with the run time of its exiting child: sched_exit_thread.
// The child's sleep time is not returned, so shells that launch expensive programs look
// expensive themselves.
func (t *Thread) ExitChild(p *Params, child *Thread) {
	t.RunTime += child.RunTime
	t.RunTime, t.SlpTime = InteractUpdate(t.RunTime, t.SlpTime, p.Hz)
	t.schedPriority(p)
}

// ChargeTick is the thread half of sched_clock for cnt stathz ticks at tick ticks: the %CPU
// window advances as running, and a time-sharing thread is charged tickincr*cnt of run time and
// gets a new user priority. It returns what happened to the slice, whose length is limit
// (td_slice). The idle thread is never a Thread: the caller skips it.
func (t *Thread) ChargeTick(p *Params, ticks uint32, cnt int, limit int) SliceResult {
	t.Window = PctCPUUpdate(p.Version, t.Window, ticks, true, p.Hz)
	if t.Class.FIFO() {
		return SliceExempt
	}
	if t.Class.Base() == ClassTimeshare {
		t.RunTime += p.TickIncr() * uint32(cnt)
		t.RunTime, t.SlpTime = InteractUpdate(t.RunTime, t.SlpTime, p.Hz)
		t.schedPriority(p)
	}
	var r SliceResult
	t.Slice, r = SliceTick(t.Class, t.Slice, cnt, limit)
	return r
}
