// This file implements System, every CPU's state together with the topology, and the state
// changes that involve more than one CPU: adding a thread (sched_add), switching out the running
// thread (sched_switch), changing a priority (sched_prio) or the affinity (sched_affinity).

package ule

import (
	"fmt"

	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule/internal/loadindex"
)

// A System is the whole of ULE's per-CPU state on one machine: the CPUState of every CPU (the
// DPCPU tdq), the parameters and the topology (cpu_top). The cross-CPU decisions (PickCPU,
// Steal, Lowest, Highest, Balance) are methods that read it.
//
// What the searches read of each CPU without its lock (TDQ_LOAD, tdq_transferable, tdq_lowpri)
// lives in one array, indexed by CPU id, which only the CPUStates write, so that a search over a
// thousand CPUs stays in the first-level cache; the load index (package ule/internal/loadindex, see
// the package documentation) records it too. A System changes only through its own and its
// CPUStates' mutating methods, which keep both consistent with the run queues.
//
// A System is not safe for concurrent use.
type System struct {
	params Params
	top    *topology.Topology
	cpus   []CPUState
	loads  *[topology.MaxCPUs]loadindex.CPULoad // every CPU's load, by CPU id
	all    topology.CPUSet                      // every CPU of the machine
	ix     *loadindex.Index                     // the load index
	// stealMask is Steal's mask once it has refused a victim (every CPU less the refused).
	stealMask topology.CPUSet
	// searchLog holds the searches made since the last TakeSearches while RecordSearches is on
	// (nil while it is off).
	searchLog *[]Search
}

// IndexCPUs is the number of CPUs from which a System's load index keeps the loads as masks and
// answers the searches, which then cost less than the loops over every CPU, keeping the masks
// included (measured on bench/sim's periodic task sets: a loss at 4 CPUs, a gain at 16 and 64).
// It is the one rule that chooses between the kernel-shaped loops and the index's forms; below
// it the index only counts the CPUs with a transferable thread.
const IndexCPUs = 16

// NewSystem returns the idle state of machine top under p. It returns an error if p is invalid.
func NewSystem(p Params, top *topology.Topology) (*System, error) {
	return newSystem(p, top, IndexCPUs)
}

// newSystem is NewSystem with the load index's masks kept from indexCPUs CPUs on.
func newSystem(p Params, top *topology.Topology, indexCPUs int) (*System, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := &System{params: p, top: top, cpus: make([]CPUState, top.NumIDs()), loads: new([topology.MaxCPUs]loadindex.CPULoad), all: top.CPUs()}
	s.ix = loadindex.New(top, s.loads, indexCPUs)
	for c := range top.CPUs().All() {
		s.cpus[c].init(c, &s.params, &s.loads[c], s.ix)
	}
	return s, nil
}

// Params returns the parameters s was made with.
func (s *System) Params() Params { return s.params }

// Topology returns the machine.
func (s *System) Topology() *topology.Topology { return s.top }

// CPU returns the state of cpu.
func (s *System) CPU(cpu topology.CPU) *CPUState { return &s.cpus[cpu] }

// setPreempt is sched_setpreempt on CPU c for priority pri, mapping a preemption of the idle
// thread to KickIdle and recording td_owepreempt.
func (s *System) setPreempt(c *CPUState, pri int, why *PreemptReason) Kick {
	k := setPreempt(pri, int(c.curPriority()), &s.params, why)
	switch {
	case c.Cur == nil && k != KickNone:
		k = KickIdle
	case k == KickPreempt:
		c.Cur.OwePreempt = true
	}
	return k
}

// An AddResult is the outcome of System.Add: where the thread went and why, and what that CPU
// must do.
type AddResult struct {
	CPU       topology.CPU
	Placement PickCPUReason
	OldLowPri uint8 // the CPU's LowPri before the addition
	Kick      Kick
	Why       PreemptReason
}

// String formats the result, such as "cpu1: idle in llc{0-1} …; kick wake idle (cpri 255 is idle: preempt)".
func (r AddResult) String() string {
	return fmt.Sprintf("%v; kick %v (%v)", r.Placement, r.Kick, r.Why)
}

// Add makes t runnable from CPU self at tick ticks: sched_add(t, flags). A time-sharing thread
// first gets a new user priority (sched_priority); PickCPU chooses the CPU; the thread is added
// there (CPUState.Add). On another CPU, NotifyThread decides whether it is preempted or woken
// (recording OwePreempt); on self, unless SRQYielding, SetPreempt decides between a preemption, an
// AST and nothing. intr says the wake-up comes from interrupt context. rnd is self's generator.
func (s *System) Add(t *Thread, flags AddFlags, self topology.CPU, ticks uint32, intr bool, rnd *Rand) AddResult {
	var r AddResult
	s.add(t, flags, self, ticks, intr, rnd, &r)
	return r
}

// add is Add writing its result to r: the Scheduler's Wakeup keeps it in its frame, which spares
// the copy of a result it reads only when explaining.
func (s *System) add(t *Thread, flags AddFlags, self topology.CPU, ticks uint32, intr bool, rnd *Rand, r *AddResult) {
	t.schedPriority(&s.params)
	cpu, placed := s.PickCPU(t, self, ticks, flags, intr, rnd)
	t.CPU = cpu
	c := &s.cpus[cpu]
	r.CPU, r.Placement, r.OldLowPri = cpu, placed, c.Add(t, flags)
	switch {
	case cpu != self:
		if r.Kick = notify(c, t, r.OldLowPri, &r.Why); r.Kick == KickPreempt {
			c.OwePreempt = true
		}
	case flags&SRQYielding == 0:
		r.Kick = s.setPreempt(c, int(t.Priority), &r.Why)
	}
}

// A SwitchReason is why the running thread leaves its CPU (the mi_switch flags ULE looks at).
type SwitchReason uint8

const (
	SwitchSleep   SwitchReason = iota // SW_VOL: the thread blocks (sched_sleep, then sched_switch)
	SwitchPreempt                     // SW_INVOL: an AST, an owed preemption or a preemption IPI
	SwitchYield                       // SW_VOL|SWT_RELINQUISH: sched_yield; the thread stays runnable
	SwitchExit                        // the thread exits (sched_throw)
)

// A SwitchResult is the outcome of System.Switch.
type SwitchResult struct {
	// Preempted says the thread was requeued as preempted (SRQ_PREEMPTED: the head of its
	// queue, and of the dequeue queue if batch): an owed preemption or IPI_PREEMPT, and its slice
	// had not expired (in Version FreeBSD9, whether or not it had).
	Preempted bool
	// Requeued says the thread stayed runnable (SwitchPreempt, SwitchYield).
	Requeued bool
	// Migrated, with Move, says the requeued thread went to another CPU (sched_switch_migrate):
	// its affinity excludes its CPU or the balancer asked it to choose again.
	Migrated bool
	Move     Move
	// Stolen says the CPU, left with no load by a sleeping thread, took a thread from another
	// CPU (tdq_trysteal), as Move describes; Steal explains the search.
	Stolen bool
	Steal  StealReason
}

// Switch takes the running thread off cpu at tick ticks for reason why: sched_sleep (for
// SwitchSleep) and sched_switch, or sched_throw (for SwitchExit). The thread's %CPU window is
// advanced as running and ts_rltick set (or set back by affinity*3 if TDF_PICKCPU was set).
// A runnable thread is requeued with SRQOurself|SRQYielding, plus SRQPreempted if it was
// preempted before its slice ended; if it can no longer run here, or was told to choose again, it
// goes where PickCPU sends it (sched_switch_migrate). A sleeping thread gets its static boost
// and leaves the load; if the load drops to zero the CPU tries to steal (tdq_trysteal). Cur
// becomes nil and LowPri that of the next thread; the caller then calls CPUState.Choose.
//
// Switch also sets or clears the seed-000 mark Thread.Short. rnd is cpu's generator. Switch
// panics if cpu runs no thread.
func (s *System) Switch(cpu topology.CPU, why SwitchReason, ticks uint32, rnd *Rand) SwitchResult {
	var r SwitchResult
	s.switchOut(cpu, why, ticks, rnd, &r)
	return r
}

// switchOut is Switch writing its result to r, which must be zero: the Scheduler's Stop keeps it
// in its frame, which spares the copy of a result it mostly does not read.
func (s *System) switchOut(cpu topology.CPU, why SwitchReason, ticks uint32, rnd *Rand, r *SwitchResult) {
	c := &s.cpus[cpu]
	t := c.Cur
	if t == nil {
		panic("ule: Switch on a CPU running its idle thread")
	}
	p := &s.params
	if why == SwitchSleep {
		if pri := t.Sleep(p, ticks, 0); pri != t.Priority {
			t.BasePri = pri
			s.runningPriority(c, t, pri)
		}
	}
	if ticks != t.Window.LTick || ticks-t.Window.FTick >= uint32(11*p.Hz) || p.Version == FreeBSD9 { // see Window
		t.Window = PctCPUUpdate(p.Version, t.Window, ticks, true, p.Hz)
	}
	pickCPU := t.PickCPU
	t.RLTick = ticks
	if pickCPU {
		t.RLTick = ticks - uint32(p.AffinityTicks()*int(topology.ShareL3))
	}
	swPreempt := why == SwitchPreempt && (t.OwePreempt || c.OwePreempt)
	r.Preempted = swPreempt && (!t.SliceEnd || p.Version == FreeBSD9) // 2011 tests SW_PREEMPT alone
	t.Short = !t.SliceEnd
	t.PickCPU, t.SliceEnd, t.OwePreempt = false, false, false
	c.OwePreempt = false
	c.SwitchCnt++
	switch why {
	case SwitchPreempt, SwitchYield:
		r.Requeued = true
		s.requeue(c, t, pickCPU, ticks, rnd, r)
	case SwitchSleep, SwitchExit:
		t.State = Inactive
		c.LoadRemove(t)
		if why == SwitchSleep && c.Load() == 0 && p.TryStealLimit > 0 {
			// tdq_trysteal
			if victim, st := s.steal(cpu, p.TryStealLimit, rnd, &r.Steal); st != nil {
				s.MoveThread(st, cpu)
				r.Stolen = true
				r.Move = Move{From: victim, To: cpu, Thread: st}
			}
		}
	}
	c.Cur = nil
	c.UpdateLowPri()
}

// requeue is sched_switch's requeueing of t, still runnable, from CPU c: with SRQ_OURSELF and
// SRQ_YIELDING (and SRQ_PREEMPTED if r says it was preempted) on c, or, when its affinity
// excludes c or the balancer asked it to choose again (pickCPU), where PickCPU sends it
// (sched_switch_migrate: tdq_add there and tdq_notify), which r records as a Move.
func (s *System) requeue(c *CPUState, t *Thread, pickCPU bool, ticks uint32, rnd *Rand, r *SwitchResult) {
	flags := SRQOurself | SRQYielding
	if r.Preempted {
		flags |= SRQPreempted
	}
	if t.CanMigrate() && (!t.CanRunOn(t.CPU) || pickCPU) {
		t.CPU, _ = s.PickCPU(t, c.ID, ticks, SRQBoring, false, rnd)
	}
	if t.CPU == c.ID {
		c.RunqAdd(t, flags)
		return
	}
	r.Migrated = true
	to := &s.cpus[t.CPU]
	c.LoadRemove(t)
	old := to.Add(t, flags)
	r.Move = Move{From: c.ID, To: t.CPU, Thread: t}
	if r.Move.Kick = notify(to, t, old, &r.Move.Why); r.Move.Kick == KickPreempt {
		to.OwePreempt = true
	}
}

// runningPriority is the running-thread branch of sched_thread_priority.
func (s *System) runningPriority(c *CPUState, t *Thread, pri uint8) {
	old := t.Priority
	t.Priority = pri
	if pri < c.sum.LowPri {
		c.sum.SetLowPri(pri)
	} else if c.sum.LowPri == old {
		c.UpdateLowPri()
	}
}

// SetPriority gives t the priority pri: sched_prio (td_base_pri = pri) and
// sched_thread_priority. A queued thread whose priority improves is removed and added again
// with SRQBorrowing (so it may change CPU), and the result of that Add is returned with true;
// a queued thread whose priority worsens stays in its queue; a running thread updates its CPU's
// LowPri. self, ticks and rnd are those of the CPU making the change.
func (s *System) SetPriority(t *Thread, pri uint8, self topology.CPU, ticks uint32, rnd *Rand) (AddResult, bool) {
	t.BasePri = pri
	if t.Priority == pri {
		return AddResult{}, false
	}
	switch {
	case t.State == OnRunq && pri < t.Priority:
		s.cpus[t.CPU].Remove(t)
		t.Priority = pri
		return s.Add(t, SRQBorrowing, self, ticks, false, rnd), true
	case t.State == Running:
		s.runningPriority(&s.cpus[t.CPU], t, pri)
	default:
		t.Priority = pri
	}
	return AddResult{}, false
}

// SetNice changes t's nice value: sched_nice. The user priority is recomputed from the history
// (sched_priority) and the thread takes it (sched_prio), with SetPriority's effects on queues;
// the result of a re-add is returned with true. nice is clamped to PRIO_MIN..PRIO_MAX.
func (s *System) SetNice(t *Thread, nice int, self topology.CPU, ticks uint32, rnd *Rand) (AddResult, bool) {
	t.Nice = min(max(nice, PrioMin), PrioMax)
	t.schedPriority(&s.params)
	return s.SetPriority(t, t.UserPri, self, ticks, rnd)
}

// ReturnToUser gives a running thread its user priority back: sched_userret_slowpath
// (td_priority = td_base_pri = td_user_pri, then an exact LowPri). It does nothing for
// interrupt threads, which never return to user mode.
func (s *System) ReturnToUser(t *Thread) {
	if t.Class.Base() == ClassIthd || t.Priority == t.UserPri {
		return
	}
	t.Priority, t.BasePri = t.UserPri, t.UserPri
	if t.State == Running {
		s.cpus[t.CPU].UpdateLowPri()
	}
}

// SetAffinity gives t the CPU set mask: sched_affinity. If t may still run on its CPU nothing
// else happens; a queued thread is removed and added again (it may change CPU), and the result
// is returned with true; a running thread is asked to switch (an AST on its CPU, returned as a
// KickAST result with false), and sched_switch will move it.
func (s *System) SetAffinity(t *Thread, mask topology.CPUSet, self topology.CPU, ticks uint32, rnd *Rand) (AddResult, bool) {
	t.Affinity = mask
	if t.CanRunOn(t.CPU) {
		return AddResult{}, false
	}
	switch t.State {
	case OnRunq:
		s.cpus[t.CPU].Remove(t)
		return s.Add(t, SRQBoring, self, ticks, false, rnd), true
	case Running:
		return AddResult{CPU: t.CPU, Kick: KickAST}, false
	}
	return AddResult{}, false
}
