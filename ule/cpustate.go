// This file implements CPUState, the per-CPU queue of ULE (struct tdq): its run queues, load
// counts, lowest priority, calendar offsets and current thread, and the state changes that touch
// one CPU only.

package ule

import (
	"iter"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule/internal/loadindex"
)

// Run-queue selectors of a CPUState: main uses rqMain only; legacy has three run queues.
const (
	rqMain      = 0
	rqRealtime  = 0 // legacy tdq_realtime
	rqTimeshare = 1 // legacy tdq_timeshare
	rqIdle      = 2 // legacy tdq_idle
)

// A CPUState is the scheduling state of one CPU: ULE's struct tdq. In main it holds one
// 256-queue run queue whose ranges play three roles (RealtimeRange, TimeshareRange as a
// calendar, IdleRange); in legacy, three run queues of 64 queues (realtime, timeshare, idle).
//
// Invariants (checked by the tests after every mutation):
//   - Load() counts the queued threads plus Cur; SysLoad the same without NoLoad threads;
//   - Transferable() counts the queued threads with td_pinned == 0 at the time they were queued;
//   - every queued thread has State OnRunq and CPU == ID; Cur has State Running and CPU == ID;
//   - main: TSOff, DeqOff < 109; legacy: Idx, Ridx < 64, and every queue index is below 64.
//
// A CPUState is not safe for concurrent use (the kernel holds tdq_lock) and must not be copied.
type CPUState struct {
	// ID is the CPU's number (tdq_id).
	ID topology.CPU
	// SysLoad is tdq_sysload: Load without TDF_NOLOAD threads; it sets the slice length.
	SysLoad int32
	// SwitchCnt and OldSwitchCnt are tdq_switchcnt and tdq_oldswitchcnt: switches during this
	// and the previous stathz tick; the idle loop tries to steal when their sum changes.
	SwitchCnt, OldSwitchCnt int16
	// OwePreempt is tdq_owepreempt: a remote preemption (IPI_PREEMPT) is pending.
	OwePreempt bool
	// TSOff, DeqOff and TSTicks are main's calendar: tdq_ts_off (insertion offset),
	// tdq_ts_deq_off (dequeue offset) and tdq_ts_ticks (for the 7/4 rate), all modulo 109.
	TSOff, DeqOff, TSTicks uint8
	// Idx and Ridx are legacy's calendar: tdq_idx (insertion) and tdq_ridx (removal), modulo 64.
	Idx, Ridx uint8
	// Cur is tdq_curthread, or nil while the idle thread runs.
	Cur *Thread

	p *Params
	// sum is what the searches read of this CPU (TDQ_LOAD, tdq_transferable, tdq_lowpri): its
	// entry of the System's loads, whose changes the System's load index records, or a CPULoad
	// of its own for a CPUState of its own.
	sum loadindex.Slot
	rq  [3]*runq.Runq[Thread]
	rq0 runq.Runq[Thread]
	// pick caches what Pick returned for this state (see choice).
	pick pickCache
}

// A pickCache holds a result of Pick, which is a pure function of the run queues' contents and of
// the calendar's dequeue offset (DeqOff in main, Ridx in legacy): it stays right while the queues
// are unchanged (every RunqAdd and RunqRemove clears ok) and the offset is the one recorded in off.
type pickCache struct {
	t   *Thread
	why PickReason
	off uint8
	ok  bool
}

// NewCPUState returns the empty state of cpu under p, on its own, outside any System. p must
// outlive it.
func NewCPUState(cpu topology.CPU, p *Params) *CPUState {
	c := &CPUState{}
	c.init(cpu, p, nil, nil)
	return c
}

func (c *CPUState) init(cpu topology.CPU, p *Params, sum *loadindex.CPULoad, ix *loadindex.Index) {
	c.ID, c.p = cpu, p
	c.sum.Init(cpu, sum, ix)
	c.rq[0] = &c.rq0
	if p.Version.split() {
		c.rq[rqTimeshare] = new(runq.Runq[Thread])
		c.rq[rqIdle] = new(runq.Runq[Thread])
	}
	c.sum.SetLowPri(PriMaxIdle)
}

// Params returns the parameters c was made with.
func (c *CPUState) Params() *Params { return c.p }

// Load returns tdq_load: the running thread plus the queued ones.
func (c *CPUState) Load() int { return int(c.sum.Load) }

// Transferable returns tdq_transferable: the queued threads that may migrate.
func (c *CPUState) Transferable() int { return int(c.sum.Transferable) }

// LowPri returns tdq_lowpri.
func (c *CPUState) LowPri() uint8 { return c.sum.LowPri }

// Runq returns the run queue of main, or legacy's tdq_realtime. The run queues are c's to
// change (RunqAdd, RunqRemove and the methods built on them): Choose and UpdateLowPri reuse a
// pick while those report no change, so a caller must only read the queues it gets here.
func (c *CPUState) Runq() *runq.Runq[Thread] { return c.rq[rqMain] }

// LegacyTimeshare returns legacy's tdq_timeshare, or nil in main; read it only, as for Runq.
func (c *CPUState) LegacyTimeshare() *runq.Runq[Thread] { return c.rq[rqTimeshare] }

// LegacyIdle returns legacy's tdq_idle, or nil in main; read it only, as for Runq.
func (c *CPUState) LegacyIdle() *runq.Runq[Thread] { return c.rq[rqIdle] }

// Queued returns an iterator over the queued threads in the order the run queues hold them
// (run queue by run queue, queue by queue, FIFO within a queue). Nothing may change during the
// iteration.
func (c *CPUState) Queued() iter.Seq[*Thread] {
	return func(yield func(*Thread) bool) {
		for _, rq := range c.rq {
			if rq == nil {
				continue
			}
			for _, t := range rq.Elems() {
				if !yield(t) {
					return
				}
			}
		}
	}
}

// Slice returns tdq_slice: the slice of a time-sharing thread here, SliceFor(SysLoad, …);
// sched_slice with Params.FixedSlice, which predates tdq_slice.
func (c *CPUState) Slice() int {
	st := c.p.SliceTicks()
	if c.p.FixedSlice {
		return st
	}
	return SliceFor(int(c.SysLoad), st, st/6) // st/6 is SliceMinTicks, without deriving st again
}

// ThreadSlice returns td_slice: sched_slice for an interrupt thread, Slice otherwise.
func (c *CPUState) ThreadSlice(t *Thread) int {
	st := c.p.SliceTicks()
	if t.Class.Base() == ClassIthd || c.p.FixedSlice {
		return st
	}
	return SliceFor(int(c.SysLoad), st, st/6) // Slice, in one piece to stay small enough to inline
}

// place returns the run queue and queue index where tdq_runq_add puts t with flags.
func (c *CPUState) place(t *Thread, flags AddFlags) (rq uint8, i runq.Index) {
	l := c.p.Version.layout()
	pri := t.Priority
	short := c.p.PickShort && t.Short
	if c.p.Version.split() {
		switch {
		case pri < l.MinBatch, pri <= l.MaxBatch && short:
			return rqRealtime, l.Fold.Index(pri)
		case pri <= l.MaxBatch && c.p.Version == FreeBSD9:
			return rqTimeshare, runq.Index(FreeBSD9CalendarIndex(pri, c.Idx, c.Ridx, flags))
		case pri <= l.MaxBatch:
			return rqTimeshare, runq.Index(LegacyCalendarIndex(pri, c.Idx, c.Ridx, flags))
		}
		return rqIdle, l.Fold.Index(pri)
	}
	if l.IsBatch(pri) {
		if short {
			// Main has no free queue below the calendar: the real-time range ends at
			// PRI_MAX_INTERACT. A partial-slice user goes to its last queue, after every
			// interactive thread and before the calendar (see the package documentation).
			return rqMain, RealtimeRange.Hi
		}
		return rqMain, TimeshareRange.Lo + runq.Index(CalendarIndex(pri, c.TSOff, c.DeqOff, flags))
	}
	return rqMain, runq.Index(pri)
}

// RunqAdd queues t: tdq_runq_add. A migratable thread counts as transferable. A batch thread
// goes into the calendar (CalendarIndex, LegacyCalendarIndex), or with Params.PickShort and
// t.Short into the real-time range; any other priority into its own queue. With SRQPreempted t
// goes to the head of its queue, otherwise to the tail. Load is not changed (see Add).
//
// RunqAdd panics if t is already queued or was never bound with InitThread.
func (c *CPUState) RunqAdd(t *Thread, flags AddFlags) {
	if t.CanMigrate() {
		c.sum.TransferableUp()
		t.xferable = true
	}
	rq, i := c.place(t, flags)
	c.pick.ok = false
	t.rq = rq
	if flags&SRQPreempted != 0 {
		c.rq[rq].AddHead(i, &t.Link)
	} else {
		c.rq[rq].Add(i, &t.Link)
	}
	t.State = OnRunq
	t.CPU = c.ID
}

// RunqRemove unqueues t: tdq_runq_rem. It clears t's transferable count and, when t leaves the
// calendar queue being drained empty, advances the dequeue offset (main: AdvanceDeqOff with the
// queue known empty; legacy: LegacyRemove). Load is not changed.
//
// RunqRemove panics if t is not queued here.
func (c *CPUState) RunqRemove(t *Thread) {
	if t.xferable {
		c.sum.TransferableDown()
		t.xferable = false
	}
	rq := c.rq[t.rq]
	i, _ := t.Link.Index()
	empty := rq.Remove(&t.Link)
	c.pick.ok = false
	t.State = Inactive
	if c.p.Version.split() {
		if t.rq == rqTimeshare {
			c.Ridx = LegacyRemove(c.Idx, c.Ridx, uint8(i), empty)
		}
		return
	}
	if l := c.p.Version.layout(); l.IsBatch(t.Priority) && empty && TimeshareRange.Lo+runq.Index(c.DeqOff) == i {
		st := rq.Status()
		c.DeqOff = AdvanceDeqOff(c.DeqOff, c.TSOff, true, &st)
	}
}

// LoadAdd counts t in the load: tdq_load_add.
func (c *CPUState) LoadAdd(t *Thread) {
	c.sum.LoadUp()
	if !t.NoLoad {
		c.SysLoad++
	}
}

// LoadRemove stops counting t: tdq_load_rem. It panics if the load is already zero.
func (c *CPUState) LoadRemove(t *Thread) {
	if c.sum.Load == 0 {
		panic("ule: LoadRemove with zero load")
	}
	c.sum.LoadDown()
	if !t.NoLoad {
		c.SysLoad--
	}
}

// Add queues t and counts it: tdq_add. It lowers LowPri to t's priority if that is better and
// returns the LowPri from before, which tdq_notify compares against.
func (c *CPUState) Add(t *Thread, flags AddFlags) (oldLowPri uint8) {
	oldLowPri = c.sum.LowPri
	if t.Priority < oldLowPri {
		c.sum.SetLowPri(t.Priority)
	}
	c.RunqAdd(t, flags)
	c.LoadAdd(t)
	return oldLowPri
}

// Remove takes queued t off this CPU without running it: sched_rem (RunqRemove, LoadRemove,
// and an exact LowPri if t had it).
func (c *CPUState) Remove(t *Thread) {
	c.RunqRemove(t)
	c.LoadRemove(t)
	if t.Priority == c.sum.LowPri {
		c.UpdateLowPri()
	}
}

// curPriority returns the priority of the running thread: the idle thread's is PRI_MAX_IDLE.
func (c *CPUState) curPriority() uint8 {
	if c.Cur == nil {
		return PriMaxIdle
	}
	return c.Cur.Priority
}

// calOff returns the calendar offset Pick starts from: DeqOff in main, Ridx in legacy.
func (c *CPUState) calOff() uint8 {
	if c.rq[rqTimeshare] != nil {
		return c.Ridx
	}
	return c.DeqOff
}

// choice returns Pick(c), computed once while neither the run queues nor the calendar's
// dequeue offset change: sched_switch sets tdq_lowpri from tdq_choose (UpdateLowPri) and then
// chooses the thread to run (Choose), and the second pick finds the first one's result. The
// kernel's tdq_choose runs once per switch (sched_switch, then choosethread); so does ours.
func (c *CPUState) choice() (*Thread, PickReason) {
	off := c.calOff()
	if c.pick.ok && c.pick.off == off {
		return c.pick.t, c.pick.why
	}
	t, why := Pick(c)
	c.pick = pickCache{t: t, why: why, off: off, ok: true}
	return t, why
}

// UpdateLowPri sets LowPri exactly: tdq_setlowpri, the better of the running thread and the
// thread Pick would choose next.
func (c *CPUState) UpdateLowPri() {
	cp := c.curPriority()
	if t, _ := c.choice(); t != nil && t.Priority <= cp {
		c.sum.SetLowPri(t.Priority)
		return
	}
	c.sum.SetLowPri(cp)
}

// Choose removes the thread this CPU runs next and makes it current: sched_choose. LowPri
// becomes its priority; with nothing queued, Cur becomes nil (the idle thread) and LowPri
// PriMaxIdle. It returns the thread (nil for the idle thread) and Pick's reason.
func (c *CPUState) Choose() (*Thread, PickReason) {
	t, why := c.choice()
	if t == nil {
		c.sum.SetLowPri(PriMaxIdle)
		c.Cur = nil
		return nil, why
	}
	c.RunqRemove(t)
	c.sum.SetLowPri(t.Priority)
	t.State = Running
	c.Cur = t
	return t, why
}

// ClockQueue is the per-CPU half of sched_clock for cnt stathz ticks: the switch counts rotate
// (old = current, current = load) and the calendar advances. In main the insertion offset moves
// (AdvanceCalendar) only once the dequeue offset has caught up with it, then the dequeue offset
// skips empty queues (AdvanceDeqOff); in legacy, LegacyAdvance.
func (c *CPUState) ClockQueue(cnt int) {
	c.OldSwitchCnt = c.SwitchCnt
	c.SwitchCnt = int16(c.sum.Load)
	if c.p.Version.split() {
		if c.Idx == c.Ridx {
			c.Idx, c.Ridx = LegacyAdvance(c.Idx, c.Ridx, c.rq[rqTimeshare].IsQueueEmpty(runq.Index(c.Ridx)))
		}
		return
	}
	if c.TSOff == c.DeqOff {
		c.TSOff, c.TSTicks = AdvanceCalendar(c.TSOff, c.TSTicks, cnt)
		st := c.rq0.Status()
		c.DeqOff = AdvanceDeqOff(c.DeqOff, c.TSOff, false, &st)
	}
}

// SwitchCount returns TDQ_SWITCHCNT: SwitchCnt + OldSwitchCnt.
func (c *CPUState) SwitchCount() int { return int(c.SwitchCnt) + int(c.OldSwitchCnt) }
