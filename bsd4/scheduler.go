package bsd4

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// This file implements the Scheduler: 4BSD's state and decisions composed into sched.Policy,
// the interface a machine such as bench/sim drives.

// A Scheduler is FreeBSD's 4BSD scheduler for one machine: one global run queue, a run queue
// per CPU for bound and affine threads, every thread's td_sched, the load average, and the
// once-a-second schedcpu. It is a [sched.Policy], the contract every policy offers a machine.
//
// The machine's calls map onto the kernel's functions as follows:
//
//	Fork    sched_fork: the child inherits the parent's estcpu; its first slice is 1 tick
//	Wakeup  sched_wakeup (updatepri after a long sleep, a fresh slice) then sched_add;
//	        a WakeFork wake-up is fork's direct sched_add
//	Pick    sched_choose ([Pick]); an empty choice idles the CPU (idle_cpus_mask)
//	Stop    sched_switch: a preempted thread is requeued at the head of its queue
//	        (SRQ_PREEMPTED), one whose slice ended or that yielded at the tail; sleep
//	        (sched_sleep) and exit (sched_exit: the parent is charged the child's estcpu)
//	Tick    sched_clock at stathz for the running thread (estcpu, slice); on the lowest
//	        CPU also schedcpu once per simulated second and loadav every 4-6 s
//	SetAttr sched_nice, sched_class / rtprio, sched_affinity
//
// Every notification sched_add makes ([WakeCPU]) becomes Env.Resched calls, except that
// forward_wakeup's set of idle CPUs is one ReschedSet call when the Env is a
// sched.ReschedSetter (ipi_selected); a NEEDRESCHED AST and an owed preemption both reschedule
// the CPU, and the Scheduler remembers which it was so that Stop requeues the thread at the head
// only for a real preemption. Explanations are built only when Env.Explaining reports true;
// otherwise Pick and sched_add take the same decisions through paths that build none.
//
// A Scheduler is not safe for concurrent use; a machine calls it one call at a time. Misuse
// (an unknown thread, a Stop for a thread the CPU is not running, a Pick on a busy CPU) panics
// with a message starting "bsd4: ".
type Scheduler struct {
	p   Params
	env sched.Env
	// envSet is env when it can reschedule a set of CPUs in one call (ipi_selected), or nil.
	envSet sched.ReschedSetter

	topo        *topology.Topology
	cpus        topology.CPUSet
	inMachine   []bool       // indexed by CPU id: in the machine; empty before Start (mustCPU)
	housekeeper topology.CPU // the CPU whose Tick runs schedcpu and loadav
	hz          int
	realstathz  int
	slice       int32  // sched_slice, stathz ticks
	quantum     int32  // sched_quantum, hz ticks
	iew         uint32 // INVERSE_ESTCPU_WEIGHT
	estcpuLim   uint32 // ESTCPULIM's ceiling, IEW·(40 − RQ_PPQ) + IEW − 1
	rng         *rand.Rand

	threads []*Thread // by ID; nil once exited or never forked
	global  runq.Runq[Thread]
	pcpu    []perCPU // by CPU id
	// runqLength is runq_length[]: the length of each CPU's queue, by CPU id, the array
	// PickCPU compares.
	runqLength []int
	// idle is idle_cpus_mask, as the decisions take it and ReschedSet passes it; idleMask
	// holds the same CPUs as a cpuMask, which forward_wakeup ORs into needResched a word at a
	// time (a CPUSet's words are not reachable from here).
	idle     topology.CPUSet
	idleMask cpuMask
	// needResched holds the CPUs asked to reschedule that have not yet done so
	// (TDF_NEEDRESCHED on their running or idle thread). It is a mask beside idle, not a flag
	// in perCPU, so that forward_wakeup's reschedule of every idle CPU costs one OR per 64
	// CPUs instead of a store to each CPU's run-queue state.
	needResched cpuMask
	words       int // the words of a cpuMask that can hold a CPU of the machine
	load        int // sched_tdcnt: queued plus running threads
	ldavg       LoadAvg

	nextSchedCPU int64
	nextLoadav   int64
	started      bool
	err          error // the first attribute run otherwise than asked (Err)
}

// perCPU is the per-CPU part of the state: runq_pcpu[cpu], the pcpu's curthread and
// switchticks. (runq_length[cpu] is Scheduler.runqLength[cpu].)
type perCPU struct {
	runq runq.Runq[Thread]
	cur  *Thread
	// switchTime is when the CPU last switched (Pick): switchticks is ticks(switchTime),
	// computed only where the FreeBSD 9 quantum reads it, not on every switch.
	switchTime int64
	owePreempt bool // the pending reschedule is a preemption (td_owepreempt, IPI_PREEMPT)
}

// New returns a Scheduler with parameters p, ready to be started, or the error of
// Params.Validate.
func New(p Params) (*Scheduler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Scheduler{p: p}, nil
}

// CheckAttr reports whether 4BSD can run a thread with attributes a as asked (sched.AttrChecker).
// It refuses, naming the field: attributes that fail sched.Attr.Validate; a real-time priority
// on Linux's 1..99 scale (RTLinux), which has no FreeBSD meaning (rtprio(2) and FreeBSD's
// sched_setscheduler(2) take 0..31); sched.Batch, which FreeBSD lacks; a requested slice; a
// control group other than the root. rtprio(2) levels (RTFreeBSD) are accepted and map to
// PRI_MIN_REALTIME + level (rtp_to_pri; see ClassPriority). Fork and SetAttr given refused
// attributes run the nearest thing (Batch as Normal, a Linux-scale q as POSIX priority
// min(q, 31), no slice, no group) and Err reports the first.
func (s *Scheduler) CheckAttr(a sched.Attr) error {
	if err := a.Validate(); err != nil {
		return fmt.Errorf("bsd4: %w", err)
	}
	return refuseAttr(&a)
}

// refuseAttr is CheckAttr's refusal of attributes that passed sched.Attr.Validate.
func refuseAttr(a *sched.Attr) error {
	switch {
	case a.Class.RealTime() && a.RTScale != sched.RTFreeBSD:
		return fmt.Errorf("bsd4: %s priority %d is on the %s scale; FreeBSD's rtprio(2) takes 0..31 (RTScale %s)", a.Class, a.RTPrio, a.RTScale, sched.RTFreeBSD)
	case a.Class == sched.Batch:
		return errors.New("bsd4: FreeBSD has no SCHED_BATCH class")
	case a.Slice != 0:
		return fmt.Errorf("bsd4: a requested slice (%d ns) has no 4BSD equivalent", a.Slice)
	case a.Group != sched.RootGroup:
		return fmt.Errorf("bsd4: no group scheduling in 4BSD (group %d)", a.Group)
	}
	return nil
}

// Err returns the first attribute a thread was run with otherwise than asked (see CheckAttr),
// naming the thread, or nil (sched.ErrReporter).
func (s *Scheduler) Err() error { return s.err }

// noteAttr records for Err the first attributes CheckAttr refuses. Its callers have validated
// a already.
func (s *Scheduler) noteAttr(tid sched.ID, a *sched.Attr) {
	if s.err == nil {
		if err := refuseAttr(a); err != nil {
			s.err = fmt.Errorf("thread %v ran otherwise than asked: %w", tid, err)
		}
	}
}

// mustCPU panics naming op if cpu is not a CPU of the machine.
func (s *Scheduler) mustCPU(cpu topology.CPU, op string) {
	// The test is small enough to inline into every decision; the panics are not.
	if uint(cpu) >= uint(len(s.inMachine)) || !s.inMachine[cpu] {
		s.badCPU(cpu, op)
	}
}

// badCPU panics for mustCPU.
func (s *Scheduler) badCPU(cpu topology.CPU, op string) {
	if !s.started {
		panic(fmt.Sprintf("bsd4: %s before Start", op))
	}
	panic(fmt.Sprintf("bsd4: %s on %v, which is not in the machine", op, cpu))
}

// Name returns p.Name, or "4bsd" when it is empty.
func (s *Scheduler) Name() string {
	if s.p.Name == "" {
		return "4bsd"
	}
	return s.p.Name
}

// Params returns the parameters the Scheduler was created with.
func (s *Scheduler) Params() Params { return s.p }

// Start prepares the Scheduler for the machine cfg describes and keeps env. It returns an error
// if Start was called before (a Scheduler runs on one machine only), cfg is invalid or env is
// nil. INVERSE_ESTCPU_WEIGHT becomes 8 × the number of
// CPUs; sched_slice realstathz/10 and sched_quantum hz/10 unless Params set them; the random
// source behind the load average's sampling jitter is seeded with cfg.Seed.
func (s *Scheduler) Start(cfg sched.Config, env sched.Env) error {
	if s.started {
		return errors.New("bsd4: Start called twice")
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if env == nil {
		return errors.New("bsd4: Start with a nil Env")
	}
	s.env = env
	s.envSet, _ = env.(sched.ReschedSetter)
	s.topo = cfg.Topology
	s.cpus = s.topo.CPUs()
	s.housekeeper, _ = s.cpus.First()
	s.hz = cfg.Hz
	s.realstathz = cfg.RealStatHz()
	s.slice = int32(s.realstathz / 10)
	if s.p.Slice > 0 {
		s.slice = int32(s.p.Slice)
	}
	s.quantum = int32(s.hz / 10)
	if s.p.SchedQuantum > 0 {
		s.quantum = int32(s.p.SchedQuantum)
	}
	s.iew = InverseEstcpuWeight(s.topo.NumCPUs())
	s.estcpuLim = ESTCPULim(^uint32(0), s.iew, s.p.Fold)
	s.rng = rand.New(rand.NewPCG(cfg.Seed, 0x4b5d5c4ed))
	s.pcpu = make([]perCPU, s.topo.NumIDs())
	s.runqLength = make([]int, len(s.pcpu))
	s.idle = s.cpus
	for c := range s.cpus.All() {
		s.idleMask.add(c)
	}
	s.words = (s.topo.NumIDs() + 63) / 64
	s.nextSchedCPU = 1_000_000_000
	s.nextLoadav = 0
	s.inMachine = make([]bool, s.topo.NumIDs())
	for c := range s.cpus.All() {
		s.inMachine[c] = true
	}
	s.started = true
	return nil
}

// TickHz returns realstathz: 4BSD charges CPU time at the statistics clock.
func (s *Scheduler) TickHz() int { return s.realstathz }

// AddGroup returns an error: 4BSD has no group scheduling.
func (s *Scheduler) AddGroup(g sched.Group) error {
	return fmt.Errorf("bsd4: no group scheduling (group %d)", g.ID)
}

// Thread returns the state of thread id, and false if it was never forked or has exited.
func (s *Scheduler) Thread(id sched.ID) (*Thread, bool) {
	if id < 0 || int(id) >= len(s.threads) || s.threads[id] == nil {
		return nil, false
	}
	return s.threads[id], true
}

// LoadAvg returns the load average (averunnable).
func (s *Scheduler) LoadAvg() LoadAvg { return s.ldavg }

// Load returns sched_load(): the number of queued and running threads.
func (s *Scheduler) Load() int { return s.load }

// InverseEstcpuWeight returns the INVERSE_ESTCPU_WEIGHT in use: 8 × the number of CPUs.
func (s *Scheduler) InverseEstcpuWeight() uint32 { return s.iew }

// Running returns the thread running on cpu, and false if it is idle.
func (s *Scheduler) Running(cpu topology.CPU) (*Thread, bool) {
	t := s.pcpu[cpu].cur
	return t, t != nil
}

// QueueLen returns the number of threads on the global run queue and on cpu's per-CPU queue.
func (s *Scheduler) QueueLen(cpu topology.CPU) (global, perCPU int) {
	return s.global.Len(), s.pcpu[cpu].runq.Len()
}

func (s *Scheduler) thread(id sched.ID) *Thread {
	t, ok := s.Thread(id)
	if !ok {
		panic(fmt.Sprintf("bsd4: unknown thread %v", id))
	}
	return t
}

// Fork creates thread tid (sched_fork): it inherits its parent's estcpu, its priority follows
// from attr, and its slice is 1, so that it is rescheduled at its first statistics tick. Fork
// panics if tid is negative or already exists, cpu is not in the machine or attr is invalid;
// attributes CheckAttr refuses run as it says and are reported by Err.
func (s *Scheduler) Fork(now int64, tid, parent sched.ID, cpu topology.CPU, attr sched.Attr) {
	s.mustCPU(cpu, "Fork")
	if tid < 0 {
		panic(fmt.Sprintf("bsd4: Fork of negative thread id %d", tid))
	}
	if err := attr.Validate(); err != nil {
		panic("bsd4: Fork: " + err.Error())
	}
	for int(tid) >= len(s.threads) {
		s.threads = append(s.threads, nil)
	}
	if s.threads[tid] != nil {
		panic(fmt.Sprintf("bsd4: Fork of existing thread %v", tid))
	}
	s.noteAttr(tid, &attr)
	t := &Thread{ID: tid, Parent: parent, Attr: attr, Slice: 1, queue: -1}
	t.Init(t)
	if pt, ok := s.Thread(parent); ok {
		t.EstCPU = pt.EstCPU
	}
	t.affinity = s.restricted(attr.Affinity)
	s.resetPriority(t)
	t.Pri = t.UserPri
	if pt, ok := s.Thread(parent); ok && pt.Attr.Class == attr.Class {
		// sched_fork_thread: td_priority = td_base_pri, which fork1 copies from the parent;
		// the child takes its own user priority when it first returns to user mode (Pick).
		t.Pri = pt.Pri
	}
	s.threads[tid] = t
}

// restricted reports whether affinity excludes some CPU of the machine (TSF_AFFINITY).
func (s *Scheduler) restricted(affinity topology.CPUSet) bool {
	return !affinity.IsEmpty() && !s.cpus.SubsetOf(affinity)
}

// resetPriority is resetpriority: the user priority of a time-sharing thread from estcpu and
// nice; other classes have a fixed priority (see ClassPriority).
func (s *Scheduler) resetPriority(t *Thread) {
	if pri, ok := ClassPriority(t.Attr.Class, t.Attr.RTPrio, t.Attr.RTScale, s.p.Layout); ok {
		t.UserPri = pri
		return
	}
	t.UserPri = ResetPriority(t.EstCPU, t.Attr.Nice, s.iew, s.p.Layout)
}

// Wakeup makes tid runnable: sched_wakeup, then sched_add from CPU from. A thread that slept
// more than a second first catches up on its estcpu decay ([UpdatePri]) and gets its new user
// priority (resetpriority), but, as in the kernel, it is queued at the priority it had when it
// went to sleep (td_priority, which sched_wakeup leaves alone): the new user priority takes
// effect when the thread returns to user mode, that is when it is picked ([Scheduler.Pick],
// sched_userret). The model has no kernel sleep priorities, so every sleep is one with
// priority 0. A WakeFork wake-up is the child's first sched_add, without sched_wakeup's resets.
// Wakeup panics if tid is not new or sleeping, or from is not in the machine.
func (s *Scheduler) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) {
	s.mustCPU(from, "Wakeup")
	t := s.thread(tid)
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
	s.add(t, from, s.curPri(from), false)
}

// curPri returns the priority of the thread running on cpu, MaxIdle for its idle thread.
func (s *Scheduler) curPri(cpu topology.CPU) uint8 {
	if t := s.pcpu[cpu].cur; t != nil {
		return t.Pri
	}
	return MaxIdle
}

// place is sched_add's choice of queue: a bound thread's CPU, sched_pickcpu for a thread whose
// affinity excludes some CPU, otherwise the global queue.
func (s *Scheduler) place(t *Thread) (topology.CPU, bool) {
	switch {
	case t.bound:
		return t.boundCPU, true
	case t.affinity:
		cpu, _ := PickCPU(t.Attr.Affinity, t.lastCPU, t.hasLast, s.cpus, s.runqLength, &s.p)
		return cpu, true
	}
	return 0, false
}

// add is sched_add: queue t (at the head for a preempted thread) and notify the CPUs WakeCPU
// names, self being the CPU running sched_add and selfPri the priority of its running thread.
func (s *Scheduler) add(t *Thread, self topology.CPU, selfPri uint8, head bool) {
	cpu, perCPU := s.place(t)
	s.enqueue(t, cpu, perCPU, head)
	var queuePri uint8
	if perCPU {
		queuePri = s.curPri(cpu)
	}
	if s.env.Explaining() {
		in := WakeInput{Pri: t.Pri, PerCPU: perCPU, Queue: cpu, QueuePri: queuePri, Self: self, SelfPri: selfPri, Idle: s.idle}
		_, w := WakeCPU(in, &s.p)
		s.notify(t, w)
		return
	}
	// The same decision without the Wake and its copies of the idle set (wakeTarget).
	switch n, c, preempt := wakeTarget(t.Pri, perCPU, cpu, queuePri, self, selfPri, &s.idleMask, s.words, &s.p); n {
	case noticeOne:
		s.resched(c, preempt)
	case noticeIdle:
		s.reschedIdle()
	}
}

// reschedIdle is forward_wakeup's IPIs to every idle CPU, as notify carries out a WakeForward
// Wake (no preemption is owed: the CPUs run nothing). The kernel computes the mask of idle CPUs
// and calls ipi_selected once; here the mask joins needResched a word at a time, and an Env
// that offers ReschedSet takes the set in one call, which its contract makes the same as a
// Resched for each CPU in ascending order, the fallback. (notify sets each CPU's bit just
// before its Resched; the order is not observable, since a machine never calls back into the
// policy from Resched.)
func (s *Scheduler) reschedIdle() {
	s.needResched.or(&s.idleMask, s.words)
	if s.envSet != nil {
		s.envSet.ReschedSet(s.idle)
		return
	}
	env := s.env
	for c := range s.idle.All() {
		env.Resched(c)
	}
}

// enqueue puts t on the global queue or cpu's, counting it in sched_tdcnt and runq_length.
func (s *Scheduler) enqueue(t *Thread, cpu topology.CPU, perCPU, head bool) {
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
func (s *Scheduler) dequeue(t *Thread) {
	rq := &s.global
	if t.queue >= 0 {
		rq = &s.pcpu[t.queue].runq
		s.runqLength[t.queue]--
	}
	rq.Remove(&t.Link)
	t.queue = -1
	s.load--
}

// notify carries out a Wake: every CPU it names is rescheduled, in ascending order, and
// explained with a text built once when the machine records explanations. add uses it only
// when explaining (otherwise wakeTarget and reschedIdle do the same work without a Wake), and
// addFromKernel always.
func (s *Scheduler) notify(t *Thread, w Wake) {
	explaining := s.env.Explaining()
	if w.CPUs.IsEmpty() {
		if explaining {
			s.env.Explain(w.In.Self, t.ID, w.String())
		}
		return
	}
	var why string
	if explaining {
		why = w.String()
	}
	if w.Preempt {
		for c := range w.CPUs.All() {
			s.resched(c, true)
			if explaining {
				s.env.Explain(c, t.ID, why)
			}
		}
		return
	}
	// No preemption owed: resched is a bit of the mask and the machine's Resched.
	env := s.env
	for c := range w.CPUs.All() {
		s.needResched.add(c)
		env.Resched(c)
		if explaining {
			env.Explain(c, t.ID, why)
		}
	}
}

// resched asks the machine to reschedule cpu, remembering whether it is a preemption (of a
// running thread: an idle CPU owes none). Callers explain why, building the text only when the
// machine records explanations (passing a decision as an interface would allocate on every
// call).
func (s *Scheduler) resched(cpu topology.CPU, preempt bool) {
	if preempt {
		if c := &s.pcpu[cpu]; c.cur != nil {
			c.owePreempt = true
		}
	}
	s.needResched.add(cpu)
	s.env.Resched(cpu)
}

// Pick is sched_choose for cpu ([Pick]): it removes the chosen thread from its queue and makes
// it cpu's running thread, which returns to user mode and so takes its user priority
// (sched_userret), or marks cpu idle and reports false. Pick panics if cpu is not in the machine
// or is running a thread.
func (s *Scheduler) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	s.mustCPU(cpu, "Pick")
	c := &s.pcpu[cpu]
	if c.cur != nil {
		panic(fmt.Sprintf("bsd4: Pick on %v, which runs %v", cpu, c.cur.ID))
	}
	var t *Thread
	switch {
	case s.env.Explaining():
		var ch Choice
		t, ch = Pick(&s.global, &c.runq, cpu, &s.p)
		tid := sched.ID(-1)
		if t != nil {
			tid = t.ID
		}
		s.env.Explain(cpu, tid, ch.String())
	case s.global.Empty() && c.runq.Empty():
		// Nothing to choose: the CPU idles (Pick would return nil).
	default:
		t = choose(&s.global, &c.runq, cpu, s.p.RunqFuzz)
	}
	c.switchTime = now
	c.owePreempt = false
	s.needResched.remove(cpu)
	if t == nil {
		// Most CPUs that find nothing were idle already: forward_wakeup woke them all and
		// another won the race. Has inlines; Add does not.
		if !s.idleMask.has(cpu) {
			s.idle.Add(cpu)
			s.idleMask.add(cpu)
		}
		return -1, false
	}
	s.dequeue(t)
	s.load++ // a running thread still counts in sched_tdcnt
	t.state, t.cpu, t.didRun = Running, cpu, true
	// The thread returns to user mode at once (the model has no kernel mode): sched_userret
	// gives it its user priority if it was queued at another one (a stale one after a long
	// sleep, or its parent's after a fork).
	t.Pri = t.UserPri
	c.cur = t
	if s.idleMask.has(cpu) {
		s.idle.Remove(cpu)
		s.idleMask.remove(cpu)
	}
	return t.ID, true
}

// Stop is sched_switch for tid, running on cpu, stopping for reason why. A preempted thread goes
// back to the head of its queue when the reschedule was an owed preemption and its slice had
// not ended, otherwise to the tail; a sleeping thread starts counting slptime; an exiting one
// charges its estcpu to its parent (sched_exit) and is forgotten. Stop panics if tid is not
// cpu's running thread or cpu is not in the machine.
func (s *Scheduler) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) {
	s.mustCPU(cpu, "Stop")
	c := &s.pcpu[cpu]
	t := c.cur
	if t == nil || t.ID != tid {
		panic(fmt.Sprintf("bsd4: Stop of %v, which %v is not running", tid, cpu))
	}
	head := why == sched.Preempt && c.owePreempt && !t.sliceEnd
	t.lastCPU, t.hasLast = cpu, true
	t.sliceEnd = false
	c.cur, c.owePreempt = nil, false
	s.needResched.remove(cpu)
	switch why {
	case sched.Preempt, sched.Yield:
		s.load-- // sched_switch's sched_load_rem; add counts it again
		s.add(t, cpu, t.Pri, head)
	case sched.Sleep:
		s.load--
		t.state = Sleeping
		t.SlpTime = 0
	case sched.Exit:
		s.load--
		if pt, ok := s.Thread(t.Parent); ok {
			pt.EstCPU = ESTCPULim(pt.EstCPU+t.EstCPU, s.iew, s.p.Fold)
		}
		s.threads[tid] = nil
	default:
		panic(fmt.Sprintf("bsd4: Stop with unknown reason %d", why))
	}
}

// ticks converts now to the kernel's ticks, hz ticks since boot, wrapping as an int does.
func (s *Scheduler) ticks(now int64) int32 {
	return int32(sched.Ticks(now, s.hz))
}

// Tick is a statistics-clock interrupt on cpu (sched_clock): the running thread is charged a
// tick of estcpu and cpticks, its priority follows each time estcpu crosses a level, and when
// its quantum is over the CPU is rescheduled. An idle CPU that finds a runnable thread on the
// global queue or its own is rescheduled too, as the idle loop's sched_runnable() check does
// after every interrupt. On the lowest-numbered CPU Tick also runs
// schedcpu once per simulated second and samples the load average every 4 to 6 seconds (in the
// kernel a kernel thread and a callout do this; which CPU runs them does not matter to 4BSD).
// Tick panics if cpu is not in the machine.
func (s *Scheduler) Tick(now int64, cpu topology.CPU) {
	s.mustCPU(cpu, "Tick")
	c := &s.pcpu[cpu]
	if t := c.cur; t != nil {
		s.clockTick(now, c, cpu, t)
	} else if !s.needResched.has(cpu) && (!s.global.Empty() || !c.runq.Empty()) {
		s.pollIdle(cpu)
	}
	if cpu == s.housekeeper {
		s.housekeep(now)
	}
}

// pollIdle reschedules idle cpu, whose clock interrupt found a runnable thread: sched_idletd
// re-checks sched_runnable() after every interrupt, so work that arrived without an IPI
// (kern.sched.ipiwakeup.enabled=0) is found at the next tick. (Tick's rare branches are
// functions of their own, which keeps Tick's frame small.)
func (s *Scheduler) pollIdle(cpu topology.CPU) {
	s.resched(cpu, false)
	if s.env.Explaining() {
		s.env.Explain(cpu, -1, idlePoll(cpu).String())
	}
}

// housekeep is the housekeeping CPU's part of Tick at now: loadav when its callout is due and
// schedcpu once per second.
func (s *Scheduler) housekeep(now int64) {
	if now >= s.nextLoadav {
		if s.p.OldLoadav {
			s.ldavg = s.ldavg.Update32(s.load)
			s.nextLoadav = after(now, LoadavIntervalTicks(s.rng.Uint64(), s.hz))
		} else {
			s.ldavg = s.ldavg.Update(s.load)
			s.nextLoadav = after(now, LoadavInterval(s.rng.Uint64()))
		}
	}
	if now >= s.nextSchedCPU {
		s.SchedCPU()
		s.nextSchedCPU = after(s.nextSchedCPU, sched.NanosPerSecond)
		if now >= s.nextSchedCPU {
			// The machine skipped a whole second of clock interrupts. The kernel's schedcpu
			// thread sleeps a second after each run (pause(hz)), so it runs once and the next
			// run is a second from now.
			s.nextSchedCPU = after(now, sched.NanosPerSecond)
		}
	}
}

// after returns t + d, or math.MaxInt64 if that overflows: the end of the machine's time.
func after(t, d int64) int64 {
	if t > math.MaxInt64-d {
		return math.MaxInt64
	}
	return t + d
}

// clockTick is sched_clock_tick for t, running on cpu.
func (s *Scheduler) clockTick(now int64, c *perCPU, cpu topology.CPU, t *Thread) {
	t.CPTicks++
	var reprio bool
	t.EstCPU, reprio = s.estCPUTick(t.EstCPU)
	if reprio {
		s.resetPriority(t)
		s.resetPriorityThread(t)
	}
	var e Expiry
	if s.p.Quantum == SliceQuantum {
		e = SliceTick(t.Slice, s.slice)
		t.Slice = e.Left
		if e.Expired {
			t.sliceEnd = true
		}
	} else {
		e = SwitchTick(s.ticks(now), s.ticks(c.switchTime), s.quantum)
	}
	if e.Expired && !s.needResched.has(cpu) {
		s.expire(cpu, t, e)
	}
}

// estCPUTick is [EstCPUTick] with the Scheduler's weight and fold, its ceiling computed once
// at Start: ESTCPULIM(e) is min(e, ESTCPULIM of the largest estcpu).
func (s *Scheduler) estCPUTick(estcpu uint32) (next uint32, reprioritize bool) {
	next = min(estcpu+1, s.estcpuLim)
	return next, next%s.iew == 0
}

// expire reschedules cpu, whose running thread t has used up its quantum (e).
func (s *Scheduler) expire(cpu topology.CPU, t *Thread, e Expiry) {
	s.resched(cpu, false)
	if s.env.Explaining() {
		s.env.Explain(cpu, t.ID, e.String())
	}
}

// resetPriorityThread is resetpriority_thread: a thread whose priority is in the time-sharing
// range takes its new user priority; a queued thread whose queue index changes moves to the
// tail of its new queue (sched_prio → sched_rem, sched_add).
func (s *Scheduler) resetPriorityThread(t *Thread) {
	l := s.p.Layout
	if t.Pri < l.MinTimeshare || t.Pri > l.MaxTimeshare() || t.Pri == t.UserPri {
		return
	}
	s.setPri(t, t.UserPri)
}

// setPri is sched_priority: change t's priority and requeue it if its queue changes. The
// requeue's sched_add runs in kernel context (the schedcpu thread, or the system call that
// changed the attributes), on the housekeeping CPU.
func (s *Scheduler) setPri(t *Thread, pri uint8) {
	t.Pri = pri
	if t.state != Queued {
		return
	}
	if idx, _ := t.Index(); idx == s.p.Fold.Index(pri) {
		return
	}
	s.dequeue(t)
	s.addFromKernel(t)
}

// addFromKernel is sched_add called by a kernel thread on the housekeeping CPU: that CPU is
// busy with a kernel priority, so only other idle CPUs can be told. If the housekeeping CPU
// was idle in the machine, it looks for work when the kernel thread blocks again.
func (s *Scheduler) addFromKernel(t *Thread) {
	hk := s.housekeeper
	idle := s.idle
	idle.Remove(hk)
	cpu, perCPU := s.place(t)
	s.enqueue(t, cpu, perCPU, false)
	in := WakeInput{Pri: t.Pri, PerCPU: perCPU, Queue: cpu, Self: hk, SelfPri: 0, Idle: idle}
	if perCPU {
		in.QueuePri = s.curPri(cpu)
	}
	_, w := WakeCPU(in, &s.p)
	if s.idle.Has(hk) && (!perCPU || cpu == hk) {
		w.CPUs.Add(hk)
	}
	s.notify(t, w)
}

// SchedCPU runs schedcpu: every thread's usage is decayed ([SchedCPU]) and the priority of each
// thread that was awake in the last second recomputed. Threads are visited in ID order; a
// queued thread whose queue changes moves to the tail of its new queue. No running thread is
// preempted: the kernel's schedcpu runs as a kernel thread, better than any user priority.
// Tick calls it once per second; it is exported for tests and benchmarks. The complexity is
// O(threads); it does not allocate.
func (s *Scheduler) SchedCPU() {
	loadav := s.ldavg[0]
	for _, t := range s.threads {
		if t == nil || t.state == Created {
			continue
		}
		awake := false
		switch {
		case t.state == Queued:
			awake, t.didRun = true, false
		case t.state == Running:
			awake = true
		case t.didRun:
			awake, t.didRun = true, false
		}
		var reprio bool
		t.Usage, reprio = SchedCPU(t.Usage, awake, loadav, s.realstathz)
		if reprio {
			s.resetPriority(t)
			s.resetPriorityThread(t)
		}
	}
}

// SetAttr changes tid's attributes. A nice or class change recomputes its priority
// (sched_nice, rtprio); a queued thread whose queue changes is requeued. An affinity change
// (sched_affinity) moves a queued thread to an allowed per-CPU queue and reschedules the CPU
// running it if that CPU is no longer allowed. SetAttr panics if tid is unknown or attr invalid;
// attributes CheckAttr refuses run as it says and are reported by Err.
func (s *Scheduler) SetAttr(now int64, tid sched.ID, attr sched.Attr) {
	t := s.thread(tid)
	if err := attr.Validate(); err != nil {
		panic("bsd4: SetAttr: " + err.Error())
	}
	s.noteAttr(tid, &attr)
	old := t.Attr
	t.Attr = attr
	t.affinity = s.restricted(attr.Affinity)
	if old.Class != attr.Class || old.Nice != attr.Nice || old.RTPrio != attr.RTPrio {
		s.resetPriority(t)
		if !t.Timeshare() || old.Class != attr.Class || (t.Pri >= s.p.Layout.MinTimeshare && t.Pri <= s.p.Layout.MaxTimeshare()) {
			s.setPri(t, t.UserPri)
		}
	}
	if !t.affinity || t.bound {
		return
	}
	switch t.state {
	case Queued:
		if t.queue >= 0 && attr.Allowed(topology.CPU(t.queue)) {
			return
		}
		s.dequeue(t)
		s.addFromKernel(t)
	case Running:
		if !attr.Allowed(t.cpu) && !s.needResched.has(t.cpu) {
			s.moveAway(t)
		}
	}
}

// idlePoll explains an idle CPU's reschedule when its clock interrupt finds work.
type idlePoll topology.CPU

func (p idlePoll) String() string {
	return fmt.Sprintf("%v's idle loop finds a runnable thread (sched_runnable) at its clock interrupt", topology.CPU(p))
}

// moveAway reschedules the CPU running t, which t may no longer run on (sched_affinity,
// sched_bind: TDF_NEEDRESCHED and an IPI_AST).
func (s *Scheduler) moveAway(t *Thread) {
	s.resched(t.cpu, false)
	if s.env.Explaining() {
		s.env.Explain(t.cpu, t.ID, fmt.Sprintf("%v may no longer run on %v: reschedule it", t.ID, t.cpu))
	}
}

// Bind binds tid to cpu (sched_bind): from its next sched_add it is queued only on cpu's
// per-CPU queue. If it is running elsewhere that CPU is rescheduled so that it moves; if it is
// queued elsewhere it is requeued. Bind panics if tid is unknown or cpu is not in the machine.
func (s *Scheduler) Bind(now int64, tid sched.ID, cpu topology.CPU) {
	t := s.thread(tid)
	if !s.cpus.Has(cpu) {
		panic(fmt.Sprintf("bsd4: Bind to %v, which is not in the machine", cpu))
	}
	t.bound, t.boundCPU = true, cpu
	switch t.state {
	case Running:
		if t.cpu != cpu && !s.needResched.has(t.cpu) {
			s.moveAway(t)
		}
	case Queued:
		if t.queue != int32(cpu) {
			s.dequeue(t)
			s.addFromKernel(t)
		}
	}
}

// Unbind ends a binding (sched_unbind). The kernel unbinds only the running thread; here a
// thread still queued on its former CPU's queue is requeued where it may now go. Unbind panics
// if tid is unknown.
func (s *Scheduler) Unbind(now int64, tid sched.ID) {
	t := s.thread(tid)
	if !t.bound {
		return
	}
	t.bound = false
	if t.state == Queued && t.queue >= 0 {
		s.dequeue(t)
		s.addFromKernel(t)
	}
}
