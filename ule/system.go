// This file implements System, every CPU's state together with the topology, and the state
// changes that involve more than one CPU: adding a thread (sched_add), switching out the running
// thread (sched_switch), changing a priority (sched_prio) or the affinity (sched_affinity).

package ule

import (
	"fmt"
	"math/bits"

	"github.com/schedkit/schedkit/topology"
)

// A System is the whole of ULE's per-CPU state on one machine: the CPUState of every CPU (the
// DPCPU tdq), their CPULoad summaries in one compact slice, the parameters and the topology
// (cpu_top). The cross-CPU decisions (PickCPU, Steal, Lowest, Highest, Balance) are methods that
// read it.
//
// CPUs and Loads are indexed by CPU id; entries of ids the topology lacks are unused. Loads[i] is
// the CPULoad that CPUs[i] maintains. The searches read only Loads, as the kernel reads
// TDQ_LOAD and tdq_lowpri without locks, so a what-if analysis may write Loads directly; the
// state is then no longer consistent with the run queues, and mutating methods must not be used.
//
// A System is not safe for concurrent use.
type System struct {
	Params   Params
	Topology *topology.Topology
	CPUs     []CPUState
	Loads    []CPULoad
	loads    *[topology.MaxCPUs]CPULoad // the array behind Loads: CPU ids index it without bounds checks
	all      cpuBits                    // every CPU of Topology
	allSet   topology.CPUSet            // the same as a set
	tree     searchTree
	ix       loadIndex // what the CPUStates record of Loads for the mutating methods' searches
	// ixLow is &ix when PickCPU's searches may read it (ix.priOn), else nil, so that a machine
	// without it pays one test in lowest.
	ixLow *loadIndex
	// xferCPUs counts the CPUs whose Transferable is not zero, as the CPUStates change it: while
	// it is zero no CPU has a thread to steal (see steal).
	xferCPUs int32
	// climbs[c] is the number of groups the steal search from thief c looks at when none holds
	// a candidate and no limit stops it (see stealClimbs).
	climbs []int32
	// walks[c] is what PickCPU reads of the topology from CPU c's leaf (see pickWalk).
	walks []pickWalk
}

// NewSystem returns the idle state of machine top under p. It returns an error if p is invalid.
func NewSystem(p Params, top *topology.Topology) (*System, error) {
	return newSystem(p, top, indexMinCPUs)
}

// newSystem is NewSystem with the load index kept from indexCPUs CPUs on (see loadIndex).
func newSystem(p Params, top *topology.Topology, indexCPUs int) (*System, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	n := top.NumIDs()
	loads := new([topology.MaxCPUs]CPULoad)
	s := &System{Params: p, Topology: top, CPUs: make([]CPUState, n), Loads: loads[:n:n], loads: loads, tree: newSearchTree(top)}
	// The priority planes serve lowestIDRunIx only: keep them if some group is a large leaf of
	// consecutive ids that is not an SMT core (PickCPU searches cache groups and the root).
	for i := range s.tree.nodes {
		nd := &s.tree.nodes[i]
		s.ix.priOn = s.ix.priOn || (nd.idLo+int32(max(indexCPUs, 2)) <= nd.idHi && !nd.thread)
	}
	s.ix.stealOn = top.NumCPUs() >= indexCPUs
	// The pair totals, and the planes with them, serve lowestPairsIx: keep them if some group
	// of SMT pairs is one it can search.
	for i := range s.tree.nodes {
		nd := &s.tree.nodes[i]
		s.ix.pairOn = s.ix.pairOn || bits.OnesCount64(nd.pairBits) >= min(indexCPUs, indexMinPairCPUs)
	}
	s.ix.pairOn = s.ix.pairOn && s.ix.stealOn
	for i := range s.tree.nodes {
		nd := &s.tree.nodes[i]
		for b := nd.pairBits; b != 0; b &= b - 1 {
			s.ix.home[int(nd.pairWord)<<6|bits.TrailingZeros64(b)] = uint16(nd.pairLo>>1 + 1)
		}
	}
	s.ix.priOn = (s.ix.priOn || s.ix.pairOn) && s.ix.stealOn
	ix, ixPri := &s.ix, &s.ix
	if !s.ix.stealOn {
		ix = nil
	}
	if !s.ix.priOn {
		ixPri = nil
	}
	s.ixLow = ixPri
	for c := range top.CPUs().All() {
		s.CPUs[c].init(c, &s.Params, &s.Loads[c], ix, ixPri, &s.xferCPUs)
	}
	s.climbs = stealClimbs(top)
	s.walks = pickWalks(top)
	cpus := top.CPUs()
	s.all, s.allSet = bitsOf(&cpus), cpus
	return s, nil
}

// CPU returns the state of cpu.
func (s *System) CPU(cpu topology.CPU) *CPUState { return &s.CPUs[cpu] }

// setPreempt is sched_setpreempt on CPU c for priority pri, mapping a preemption of the idle
// thread to KickIdle and recording td_owepreempt.
func (s *System) setPreempt(c *CPUState, pri int) (Kick, preemptWhy) {
	k, why := setPreempt(pri, int(c.curPriority()), &s.Params)
	switch {
	case c.Cur == nil && k != KickNone:
		k = KickIdle
	case k == KickPreempt:
		c.Cur.OwePreempt = true
	}
	return k, why
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
// there (CPUState.Add). On another CPU, Notify decides whether it is preempted or woken
// (recording OwePreempt); on self, unless SRQYielding, SetPreempt decides between a preemption,
// an AST and nothing. intr says the wake-up comes from interrupt context. rnd is self's
// generator.
func (s *System) Add(t *Thread, flags AddFlags, self topology.CPU, ticks uint32, intr bool, rnd *Rand) AddResult {
	o := s.add(t, flags, self, ticks, intr, rnd)
	return o.result(&s.Params)
}

// An addOut is the outcome of System.add: AddResult with the preemption's reason in short (see
// preemptWhy).
type addOut struct {
	cpu       topology.CPU
	oldLowPri uint8
	kick      Kick
	placement PickCPUReason
	why       preemptWhy
}

// result returns the AddResult o stands for under p.
func (o *addOut) result(p *Params) AddResult {
	return AddResult{CPU: o.cpu, Placement: o.placement, OldLowPri: o.oldLowPri, Kick: o.kick, Why: o.why.reason(p)}
}

// add is Add, for the mutating methods and the Scheduler, which read the reason only when
// explaining.
func (s *System) add(t *Thread, flags AddFlags, self topology.CPU, ticks uint32, intr bool, rnd *Rand) addOut {
	t.schedPriority(&s.Params)
	cpu, placed := s.pickCPU(t, self, ticks, flags, intr, rnd, s.ixLow)
	t.CPU = cpu
	c := &s.CPUs[cpu]
	o := addOut{cpu: cpu, placement: placed, oldLowPri: c.Add(t, flags)}
	switch {
	case cpu != self:
		o.kick, o.why = notifyThread(c, t, o.oldLowPri)
		if o.kick == KickPreempt {
			c.OwePreempt = true
		}
	case flags&SRQYielding == 0:
		o.kick, o.why = s.setPreempt(c, int(t.Priority))
	}
	return o
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
// Switch also records the seed-000 "partial slice" mark (Thread.Short): set when the thread
// leaves before its slice expired. rnd is cpu's generator. Switch panics if cpu runs no thread.
func (s *System) Switch(cpu topology.CPU, why SwitchReason, ticks uint32, rnd *Rand) SwitchResult {
	var r SwitchResult
	s.switchOut(cpu, why, ticks, rnd, &r)
	return r
}

// switchOut is Switch writing its result to r, which must be zero: the Scheduler's Stop keeps it
// in its frame, which spares the copy of a result it mostly does not read.
func (s *System) switchOut(cpu topology.CPU, why SwitchReason, ticks uint32, rnd *Rand, r *SwitchResult) {
	c := &s.CPUs[cpu]
	t := c.Cur
	if t == nil {
		panic("ule: Switch on a CPU running its idle thread")
	}
	p := &s.Params
	if why == SwitchSleep {
		if pri := t.Sleep(p, ticks, 0); pri != t.Priority {
			t.BasePri = pri
			s.runningPriority(c, t, pri)
		}
	}
	t.Window = PctCPUUpdate(p.Version, t.Window, ticks, true, p.Hz)
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
		flags := SRQOurself | SRQYielding
		if r.Preempted {
			flags |= SRQPreempted
		}
		if t.CanMigrate() && (!t.CanRunOn(t.CPU) || pickCPU) {
			t.CPU, _ = s.pickCPU(t, cpu, ticks, SRQBoring, false, rnd, s.ixLow)
		}
		if t.CPU == cpu {
			c.RunqAdd(t, flags)
		} else {
			r.Migrated = true
			to := &s.CPUs[t.CPU]
			c.LoadRemove(t)
			old := to.Add(t, flags)
			r.Move = Move{From: cpu, To: t.CPU, Thread: t}
			var why preemptWhy
			r.Move.Kick, why = notifyThread(to, t, old)
			r.Move.Why = why.reason(p)
			if r.Move.Kick == KickPreempt {
				to.OwePreempt = true
			}
		}
	case SwitchSleep, SwitchExit:
		t.State = Inactive
		if !c.loadRemoveQuick(t) {
			c.LoadRemove(t)
		}
		if why == SwitchSleep && c.Load() == 0 && p.TryStealLimit > 0 {
			victim, st := s.steal(cpu, p.TryStealLimit, rnd, &s.ix, &r.Steal)
			if st != nil {
				s.moveThread(victim, cpu, st)
				r.Stolen = true
				r.Move = Move{From: victim, To: cpu, Thread: st}
			}
		}
	}
	c.Cur = nil
	c.UpdateLowPri()
}

// runningPriority is the running-thread branch of sched_thread_priority.
func (s *System) runningPriority(c *CPUState, t *Thread, pri uint8) {
	old := t.Priority
	t.Priority = pri
	if pri < c.sum.LowPri {
		c.setLowPri(pri)
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
		s.CPUs[t.CPU].Remove(t)
		t.Priority = pri
		return s.Add(t, SRQBorrowing, self, ticks, false, rnd), true
	case t.State == Running:
		s.runningPriority(&s.CPUs[t.CPU], t, pri)
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
	t.schedPriority(&s.Params)
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
		s.CPUs[t.CPU].UpdateLowPri()
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
		s.CPUs[t.CPU].Remove(t)
		return s.Add(t, SRQBoring, self, ticks, false, rnd), true
	case Running:
		return AddResult{CPU: t.CPU, Kick: KickAST}, false
	}
	return AddResult{}, false
}
