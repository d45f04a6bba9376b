package bsd4

import (
	"fmt"
	"math/rand/v2"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// This file implements the System: all of 4BSD's state for one machine, changed only by
// methods that call the package's decisions and return what the machine must do as values.

// A System is FreeBSD's 4BSD scheduler state for one machine: one global run queue, a run
// queue per CPU for bound and affine threads (runq_pcpu), runq_length, idle_cpus_mask, every
// thread's td_sched, sched_tdcnt, the load average and the once-a-second schedcpu. Its methods
// are the kernel's entry points (sched_fork, sched_wakeup + sched_add, sched_choose,
// sched_switch, sched_clock, sched_nice/sched_class/sched_affinity, sched_bind); each calls the
// package's pure decisions ([Pick], [WakeCPU], [ShouldPreempt], [PickCPU], [SliceTick],
// [SwitchTick], [SchedCPU], [ResetPriority]) and returns what the machine must do: a [Wake]
// with its [WakeReason] when sched_add tells CPUs about a thread, a list of [Effect] values
// from a clock interrupt or an attribute change. A System never calls a machine; a
// [Scheduler] turns its effects into sched.Env calls.
//
// Misuse (a CPU outside the machine, an unknown thread, a second wake-up, a Stop of a thread
// the CPU is not running) panics with a message starting "bsd4: ". A System is not safe for
// concurrent use.
type System struct {
	p           Params
	topo        *topology.Topology
	cpus        topology.CPUSet
	contract    sched.Contract // the checks of the machine's calls
	housekeeper topology.CPU   // the CPU whose Tick runs schedcpu and loadav
	hz          int
	realstathz  int
	slice       int32  // sched_slice, stathz ticks
	quantum     int32  // sched_quantum, hz ticks
	iew         uint32 // INVERSE_ESTCPU_WEIGHT
	rng         *rand.Rand

	threads sched.Threads[Thread]
	global  runq.Runq[Thread]
	pcpu    []perCPU // by CPU id
	// runqLength is runq_length[]: the length of each CPU's queue, by CPU id, the array
	// PickCPU compares.
	runqLength []int
	// idle is idle_cpus_mask: the CPUs running their idle thread.
	idle topology.CPUSet
	// needResched holds the CPUs asked to reschedule that have not yet done so
	// (TDF_NEEDRESCHED on their running or idle thread).
	needResched topology.CPUSet
	load        int // sched_tdcnt: queued plus running threads
	ldavg       LoadAvg

	nextSchedCPU int64
	nextLoadav   int64

	// wakeWhy is the reason of the last sched_add that Wakeup or Stop made, which they return
	// a pointer to.
	wakeWhy WakeReason
}

// perCPU is the per-CPU part of the state: runq_pcpu[cpu], the pcpu's curthread and
// switchticks. (runq_length[cpu] is System.runqLength[cpu].)
type perCPU struct {
	runq runq.Runq[Thread]
	cur  *Thread
	// switchTime is when the CPU last switched (Pick): switchticks is ticks(switchTime),
	// computed only where the FreeBSD 9 quantum reads it, not on every switch.
	switchTime int64
	owePreempt bool // the pending reschedule is a preemption (td_owepreempt, IPI_PREEMPT)
	// why is the reason of the CPU's last Pick, which Pick returns a pointer to.
	why PickReason
}

// NewSystem returns the state of 4BSD with parameters p on the machine cfg describes, every CPU
// idle and no thread, or an error if p or cfg is invalid. INVERSE_ESTCPU_WEIGHT becomes 8 × the
// number of CPUs; sched_slice realstathz/10 and sched_quantum hz/10 unless p sets them; the
// random source behind the load average's sampling jitter is seeded with cfg.Seed.
func NewSystem(p Params, cfg sched.Config) (*System, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &System{p: p, topo: cfg.Topology, hz: cfg.Hz, realstathz: cfg.RealStatHz()}
	s.cpus = s.topo.CPUs()
	s.contract = sched.Contract{Pkg: pkg}
	s.contract.Start(s.topo)
	s.housekeeper, _ = s.cpus.First()
	s.slice = int32(s.realstathz / 10)
	if p.Slice > 0 {
		s.slice = int32(p.Slice)
	}
	s.quantum = int32(s.hz / 10)
	if p.SchedQuantum > 0 {
		s.quantum = int32(p.SchedQuantum)
	}
	s.iew = InverseEstcpuWeight(s.topo.NumCPUs())
	s.rng = rand.New(rand.NewPCG(cfg.Seed, 0x4b5d5c4ed))
	s.pcpu = make([]perCPU, s.topo.NumIDs())
	s.runqLength = make([]int, len(s.pcpu))
	s.idle = s.cpus
	s.nextSchedCPU = sched.NanosPerSecond
	return s, nil
}

// Params returns the parameters the System runs with.
func (s *System) Params() Params { return s.p }

// Topology returns the machine.
func (s *System) Topology() *topology.Topology { return s.topo }

// Thread returns the state of thread id, and false if it was never forked or has exited.
func (s *System) Thread(id sched.ID) (*Thread, bool) { return s.threads.Lookup(id) }

// LoadAvg returns the load average (averunnable).
func (s *System) LoadAvg() LoadAvg { return s.ldavg }

// Load returns sched_load(): the number of queued and running threads.
func (s *System) Load() int { return s.load }

// InverseEstcpuWeight returns the INVERSE_ESTCPU_WEIGHT in use: 8 × the number of CPUs.
func (s *System) InverseEstcpuWeight() uint32 { return s.iew }

// Idle returns idle_cpus_mask: the CPUs running their idle thread.
func (s *System) Idle() topology.CPUSet { return s.idle }

// Running returns the thread running on cpu, and false if it is idle. It panics if cpu is not
// in the machine.
func (s *System) Running(cpu topology.CPU) (*Thread, bool) {
	s.contract.CPU("Running", cpu)
	t := s.pcpu[cpu].cur
	return t, t != nil
}

// QueueLen returns the number of threads on the global run queue and on cpu's per-CPU queue.
// It panics if cpu is not in the machine.
func (s *System) QueueLen(cpu topology.CPU) (global, perCPU int) {
	s.contract.CPU("QueueLen", cpu)
	return s.global.Len(), s.pcpu[cpu].runq.Len()
}

// Queued returns the number of threads on all run queues: the runnable threads not running.
func (s *System) Queued() int {
	n := s.global.Len()
	for c := range s.cpus.All() {
		n += s.pcpu[c].runq.Len()
	}
	return n
}

// pkg starts every panic message of the package.
const pkg = "bsd4"

// Fork creates thread tid on cpu (sched_fork): it inherits its parent's estcpu, its priority
// follows from attr, and its slice is 1, so that it is rescheduled at its first statistics
// tick. A thread of the parent's class starts at the parent's priority (sched_fork_thread) and
// takes its own user priority when it first returns to user mode (Pick). Attributes FreeBSD
// lacks run as the nearest thing (see [Scheduler.CheckAttr]). Fork panics if tid is negative or
// exists, parent is neither -1 nor a thread, cpu is not in the machine, attr is invalid or its
// affinity holds no CPU of the machine, or now is before an earlier call's time.
func (s *System) Fork(now int64, tid, parent sched.ID, cpu topology.CPU, attr sched.Attr) *Thread {
	s.contract.Time("Fork", now)
	s.contract.CPU("Fork", cpu)
	s.contract.Attr("Fork", tid, &attr)
	pt, hasParent := s.threads.Lookup(parent)
	s.contract.Parent(tid, parent, hasParent)
	t := s.threads.New(pkg, "Fork", tid) // zeroed: only the fields that are not zero are set
	t.ID, t.Parent, t.Attr, t.Slice, t.queue = tid, parent, attr, 1, -1
	t.Init(t)
	if hasParent {
		t.EstCPU = pt.EstCPU
	}
	t.affinity = s.restricted(attr.Affinity)
	s.resetPriority(t)
	t.Pri = t.UserPri
	if hasParent && pt.Attr.Class == attr.Class {
		// sched_fork_thread: td_priority = td_base_pri, which fork1 copies from the parent;
		// the child takes its own user priority when it first returns to user mode (Pick).
		t.Pri = pt.Pri
	}
	return t
}

// restricted reports whether affinity excludes some CPU of the machine (TSF_AFFINITY).
func (s *System) restricted(affinity topology.CPUSet) bool {
	return !affinity.IsEmpty() && !s.cpus.SubsetOf(affinity)
}

// resetPriority is resetpriority: the user priority of a time-sharing thread from estcpu and
// nice; other classes have a fixed priority (see ClassPriority).
func (s *System) resetPriority(t *Thread) {
	if pri, ok := ClassPriority(t.Attr.Class, t.Attr.RTPrio, t.Attr.RTScale, s.p.Layout); ok {
		t.UserPri = pri
		return
	}
	t.UserPri = ResetPriority(t.EstCPU, t.Attr.Nice, s.iew, s.p.Layout)
}

// Wakeup makes tid runnable: sched_wakeup, then sched_add from CPU from, and returns whom
// sched_add tells ([WakeCPU]) and why (the reason is the System's, valid until its next Wakeup
// or Stop). A thread that slept more than a second first catches up
// on its estcpu decay ([UpdatePri]) and gets its new user priority (resetpriority), but, as in
// the kernel, it is queued at the priority it had when it went to sleep (td_priority, which
// sched_wakeup leaves alone): the new user priority takes effect when the thread returns to
// user mode, that is when it is picked (sched_userret). The model has no kernel sleep
// priorities, so every sleep is one with priority 0. A WakeFork wake-up is the child's first
// sched_add, without sched_wakeup's resets. Wakeup panics if tid is not new or sleeping, from
// is not in the machine, flags has an unknown bit or now is before an earlier call's time.
func (s *System) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) (Wake, *WakeReason) {
	s.contract.Time("Wakeup", now)
	s.contract.CPU("Wakeup", from)
	t := s.threads.Must(pkg, "Wakeup", tid)
	s.contract.WakeFlags(tid, flags)
	if t.state != Created && t.state != Sleeping {
		panic(fmt.Sprintf("bsd4: Wakeup of %s thread %v", t.state, tid))
	}
	if flags&sched.WakeFork == 0 {
		if t.SlpTime > 1 {
			t.EstCPU = UpdatePri(t.EstCPU, t.SlpTime, s.ldavg[0])
			s.resetPriority(t)
		}
		t.SlpTime = 0
		t.Slice = s.slice
	}
	w := s.add(t, from, s.curPri(from), false, false, &s.wakeWhy)
	return w, &s.wakeWhy
}

// curPri returns the priority of the thread running on cpu, MaxIdle for its idle thread.
func (s *System) curPri(cpu topology.CPU) uint8 {
	if t := s.pcpu[cpu].cur; t != nil {
		return t.Pri
	}
	return MaxIdle
}

// place is sched_add's choice of queue: a bound thread's CPU, sched_pickcpu for a thread whose
// affinity excludes some CPU, otherwise the global queue.
func (s *System) place(t *Thread) (topology.CPU, bool) {
	switch {
	case t.bound:
		return t.boundCPU, true
	case t.affinity:
		cpu, _ := PickCPU(t.Attr.Affinity, t.lastCPU, t.hasLast, s.cpus, s.runqLength)
		return cpu, true
	}
	return 0, false
}

// add is sched_add: queue t (at the head for a preempted thread), decide whom to tell
// ([WakeCPU]) from self, whose running thread has priority selfPri (kernel: a kernel thread on
// the housekeeping CPU), and mark them: TDF_NEEDRESCHED, and td_owepreempt for a preemption of
// a running thread. The reason goes to *why.
func (s *System) add(t *Thread, self topology.CPU, selfPri uint8, head, kernel bool, why *WakeReason) Wake {
	cpu, perCPU := s.place(t)
	s.enqueue(t, cpu, perCPU, head)
	in := WakeInput{Pri: t.Pri, PerCPU: perCPU, Queue: cpu, Self: self, SelfPri: selfPri, Kernel: kernel, Idle: &s.idle}
	if perCPU {
		in.QueuePri = s.curPri(cpu)
	}
	var w Wake
	w, *why = WakeCPU(&in, &s.p)
	s.mark(w)
	return w
}

// mark records a Wake in the state: every CPU it names needs to reschedule, and a preempted
// running thread is owed its preemption (an idle CPU owes none).
func (s *System) mark(w Wake) {
	switch {
	case w.One:
		if w.Preempt {
			if c := &s.pcpu[w.CPU]; c.cur != nil {
				c.owePreempt = true
			}
		}
		s.needResched.Add(w.CPU)
	case w.Set != nil:
		s.needResched.AddSet(w.Set)
	}
}

// enqueue puts t on the global queue or cpu's, counting it in sched_tdcnt and runq_length.
func (s *System) enqueue(t *Thread, cpu topology.CPU, perCPU, head bool) {
	rq := &s.global
	t.queue = -1
	if perCPU {
		rq = &s.pcpu[cpu].runq
		s.runqLength[cpu]++
		t.queue = int32(cpu)
	}
	idx := s.p.Fold.Index(t.Pri)
	if head {
		rq.AddHead(idx, &t.Link)
	} else {
		rq.Add(idx, &t.Link)
	}
	t.state = Queued
	s.load++
}

// dequeue is sched_rem: take t off its queue.
func (s *System) dequeue(t *Thread) {
	rq := &s.global
	if t.queue >= 0 {
		rq = &s.pcpu[t.queue].runq
		s.runqLength[t.queue]--
	}
	rq.Remove(&t.Link)
	t.queue = -1
	s.load--
}

// Pick is sched_choose for cpu ([Pick]): it removes the chosen thread from its queue and makes
// it cpu's running thread, which returns to user mode and so takes its user priority
// (sched_userret), or marks cpu idle and returns nil. Either way cpu's pending reschedule is
// done. The reason it returns is the System's, valid until cpu's next Pick. Pick panics if cpu
// is not in the machine or is running a thread.
func (s *System) Pick(now int64, cpu topology.CPU) (*Thread, *PickReason) {
	s.contract.CPU("Pick", cpu)
	c := &s.pcpu[cpu]
	if c.cur != nil {
		busyPick(cpu, c.cur)
	}
	c.switchTime = now
	c.owePreempt = false
	s.needResched.Remove(cpu)
	if s.global.Empty() && c.runq.Empty() {
		// sched_runnable() finds nothing for cpu, so its idle loop goes back to cpu_idle
		// without calling sched_choose (sched_idletd). Most CPUs that find nothing were idle
		// already: forward_wakeup woke them all and another won the race.
		s.idle.Add(cpu)
		c.why = PickReason{CPU: cpu}
		return nil, &c.why
	}
	var t *Thread
	t, c.why = Pick(&s.global, &c.runq, cpu, &s.p)
	s.dequeue(t)
	s.load++ // a running thread still counts in sched_tdcnt
	t.state, t.cpu, t.didRun = Running, cpu, true
	// The thread returns to user mode at once (the model has no kernel mode): sched_userret
	// gives it its user priority if it was queued at another one (a stale one after a long
	// sleep, or its parent's after a fork).
	t.Pri = t.UserPri
	c.cur = t
	s.idle.Remove(cpu)
	return t, &c.why
}

// busyPick panics for a Pick on cpu, which runs t.
//
//go:noinline
func busyPick(cpu topology.CPU, t *Thread) {
	panic(fmt.Sprintf("bsd4: Pick on %v, which runs %v", cpu, t.ID))
}

// Stop is sched_switch for tid, running on cpu, stopping for reason why. A preempted thread goes
// back to the head of its queue when the reschedule was an owed preemption and its slice had
// not ended, otherwise to the tail; either requeue is a sched_add from cpu, whose Wake and
// reason Stop returns with requeued true (the reason is the System's, valid until its next
// Wakeup or Stop). A sleeping thread starts counting slptime; an exiting
// one charges its estcpu to its parent (sched_exit) and is forgotten. Stop panics if tid is not
// cpu's running thread, cpu is not in the machine, why is not a StopReason or now is before an
// earlier call's time.
func (s *System) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) (w Wake, r *WakeReason, requeued bool) {
	s.contract.Time("Stop", now)
	s.contract.CPU("Stop", cpu)
	c := &s.pcpu[cpu]
	t := c.cur
	if t == nil || t.ID != tid {
		s.threads.Must(pkg, "Stop", tid)
		panic(fmt.Sprintf("bsd4: Stop of %v, which is not running on %v", tid, cpu))
	}
	s.contract.StopReason(tid, why)
	head := why == sched.Preempt && c.owePreempt && !t.sliceEnd
	t.lastCPU, t.hasLast = cpu, true
	t.sliceEnd = false
	c.cur, c.owePreempt = nil, false
	s.needResched.Remove(cpu)
	s.load-- // sched_switch's sched_load_rem; add counts a requeued thread again
	switch why {
	case sched.Preempt, sched.Yield:
		return s.add(t, cpu, t.Pri, head, false, &s.wakeWhy), &s.wakeWhy, true
	case sched.Sleep:
		t.state = Sleeping
		t.SlpTime = 0
	case sched.Exit:
		if pt, ok := s.threads.Lookup(t.Parent); ok {
			pt.EstCPU = ESTCPULim(pt.EstCPU+t.EstCPU, s.iew, s.p.Fold)
		}
		s.threads.Delete(tid)
	}
	return Wake{}, nil, false
}

// SetAttr changes tid's attributes, appending to fx what the machine must do. A nice or class
// change recomputes its priority (sched_nice, rtprio); a queued thread whose queue changes is
// requeued. An affinity change (sched_affinity) moves a queued thread to an allowed per-CPU
// queue and reschedules the CPU running it if that CPU is no longer allowed (EffectMoveAway).
// Attributes FreeBSD lacks run as the nearest thing (see [Scheduler.CheckAttr]). SetAttr panics
// if tid is unknown, attr is invalid or its affinity holds no CPU of the machine, or now is
// before an earlier call's time.
func (s *System) SetAttr(now int64, tid sched.ID, attr sched.Attr, fx []Effect) []Effect {
	s.contract.Time("SetAttr", now)
	t := s.threads.Must(pkg, "SetAttr", tid)
	s.contract.Attr("SetAttr", tid, &attr)
	old := t.Attr
	t.Attr = attr
	t.affinity = s.restricted(attr.Affinity)
	if old.Class != attr.Class || old.Nice != attr.Nice || old.RTPrio != attr.RTPrio {
		s.resetPriority(t)
		if !t.Timeshare() || old.Class != attr.Class || (t.Pri >= s.p.Layout.MinTimeshare && t.Pri <= s.p.Layout.MaxTimeshare()) {
			fx = s.setPri(t, t.UserPri, fx)
		}
	}
	if !t.affinity || t.bound {
		return fx
	}
	switch t.state {
	case Queued:
		if t.queue >= 0 && attr.Allowed(topology.CPU(t.queue)) {
			return fx
		}
		s.dequeue(t)
		fx = s.addFromKernel(t, fx)
	case Running:
		if !attr.Allowed(t.cpu) && !s.needResched.Has(t.cpu) {
			fx = s.moveAway(t, fx)
		}
	}
	return fx
}

// moveAway reschedules the CPU running t, which t may no longer run on (sched_affinity,
// sched_bind: TDF_NEEDRESCHED and an IPI_AST).
func (s *System) moveAway(t *Thread, fx []Effect) []Effect {
	s.needResched.Add(t.cpu)
	return append(fx, Effect{Kind: EffectMoveAway, CPU: t.cpu, Thread: t})
}

// Bind binds tid to cpu (sched_bind), appending to fx what the machine must do: from its next
// sched_add it is queued only on cpu's per-CPU queue. If it is running elsewhere that CPU must
// reschedule so that it moves; if it is queued elsewhere it is requeued. Bind panics if tid is
// unknown or cpu is not in the machine.
func (s *System) Bind(now int64, tid sched.ID, cpu topology.CPU, fx []Effect) []Effect {
	s.contract.Time("Bind", now)
	t := s.threads.Must(pkg, "Bind", tid)
	s.contract.CPU("Bind", cpu)
	t.bound, t.boundCPU = true, cpu
	switch t.state {
	case Running:
		if t.cpu != cpu && !s.needResched.Has(t.cpu) {
			fx = s.moveAway(t, fx)
		}
	case Queued:
		if t.queue != int32(cpu) {
			s.dequeue(t)
			fx = s.addFromKernel(t, fx)
		}
	}
	return fx
}

// Unbind ends a binding (sched_unbind), appending to fx what the machine must do. The kernel
// unbinds only the running thread; here a thread still queued on its former CPU's queue is
// requeued where it may now go. Unbind panics if tid is unknown.
func (s *System) Unbind(now int64, tid sched.ID, fx []Effect) []Effect {
	s.contract.Time("Unbind", now)
	t := s.threads.Must(pkg, "Unbind", tid)
	if !t.bound {
		return fx
	}
	t.bound = false
	if t.state == Queued && t.queue >= 0 {
		s.dequeue(t)
		fx = s.addFromKernel(t, fx)
	}
	return fx
}
