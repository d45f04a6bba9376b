// This file implements Scheduler, which composes ULE's state and decisions into the interface
// the simulator drives (sched.Policy).

package ule

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A Scheduler is ULE driven by a machine: it owns a System and every thread's state and turns
// the machine's events into the kernel's entry points. Its methods are those of [sched.Policy],
// the contract every policy offers a machine such as the simulator in bench/sim.
//
//	machine event                 sched_ule.c
//	Fork                          sched_fork, sched_fork_thread (or thread0's setup without a parent)
//	Wakeup                        sched_wakeup (WakeFork: sched_add alone) → sched_pickcpu → tdq_add → tdq_notify / sched_setpreempt
//	Pick                          sched_choose (tdq_choose); when empty, the idle loop's tdq_idled
//	Stop(Sleep)                   sched_sleep, sched_switch (tdq_load_rem, tdq_trysteal)
//	Stop(Preempt), Stop(Yield)    sched_switch requeueing the thread (SRQ_PREEMPTED for an owed preemption)
//	Stop(Exit)                    sched_exit_thread on the parent, sched_throw
//	Tick                          sched_clock at stathz, the periodic sched_balance on the first CPU, the idle loop
//	SetAttr                       sched_nice, rtp_to_pri (sched_class, sched_user_prio, sched_prio), sched_affinity
//
// Time: now is simulated nanoseconds; the kernel's ticks (hz) are (UptimeSeconds*1e9 + now)*hz/1e9,
// wrapping as u_int: the machine has been up UptimeSeconds when the simulation starts, as the
// seeds' machines were (see UptimeSeconds). A thread returns to user mode
// (sched_userret_slowpath) as soon as it is picked: the model has no time spent in the kernel.
// Randomness comes from one Rand per CPU seeded from sched.Config.Seed.
//
// Reschedules are reported through sched.Env.Resched; the Scheduler remembers whether it asked
// for a preemption (the stopped thread goes back to the head of its queue) or an AST (the
// tail). Explanations are built only when Env.Explaining reports true.
//
// The machine's bugs (an unknown thread or CPU, a Stop of a thread not running on the CPU
// given) are not bad input: they panic, as each method says, with a message starting "ule:".
//
// A Scheduler is not safe for concurrent use.
type Scheduler struct {
	params Params
	sys    *System
	// contract checks the machine's calls (CPUs, time, attributes), with the standard panics.
	contract sched.Contract
	env      sched.Env
	threads  sched.Threads[Thread]
	rand     []Rand
	idleOld  []int // the idle loop's oldswitchcnt, per CPU

	balanceCPU   topology.CPU
	balanceTicks int
	moves        []Move
	err          error // the first attribute run otherwise than asked (Err)
	// nowAt and ticksAt are the last time the events' ticks were computed for and the result
	// (see ticks).
	nowAt   int64
	ticksAt uint32
}

// New returns a Scheduler with parameters p, or an error naming the first invalid field of p
// (Params.Validate). Start completes it; the machine's Hz and StatHz then replace p's.
func New(p Params) (*Scheduler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Scheduler{params: p, contract: sched.Contract{Pkg: "ule"}}, nil
}

// Name returns the name of the parameters, such as "ule-main".
func (s *Scheduler) Name() string {
	if s.params.Name == "" {
		return "ule"
	}
	return s.params.Name
}

// Start prepares the Scheduler for the machine described by cfg: Hz and StatHz come from cfg,
// which overrides the Params; the System is built and the per-CPU generators seeded. It returns
// an error if Start was called before (a Scheduler runs on one machine only), env is nil, or cfg
// or the resulting Params are invalid (see Params.Validate: cfg.Hz must be at least 2).
func (s *Scheduler) Start(cfg sched.Config, env sched.Env) error {
	if err := sched.CheckStart("ule", s.sys != nil, cfg, env); err != nil {
		return err
	}
	p := s.params
	p.Hz, p.StatHz = cfg.Hz, cfg.StatHz
	sys, err := NewSystem(p, cfg.Topology)
	if err != nil {
		return err
	}
	s.params, s.sys, s.env = p, sys, env
	s.contract.Start(cfg.Topology)
	s.nowAt, s.ticksAt = 0, s.Ticks(0)
	n := cfg.Topology.NumIDs()
	s.rand = make([]Rand, n)
	s.idleOld = make([]int, n)
	for c := range n {
		s.rand[c] = NewRand(topology.CPU(c), cfg.Seed)
		s.idleOld[c] = -1
	}
	cpus := cfg.Topology.CPUs()
	s.balanceCPU, _ = cpus.First()
	s.balanceTicks = p.BalanceTicks()
	if p.SMP == SMP2008 {
		// 2008: sched_setup_smp calls sched_balance once, which draws the first period.
		interval := p.BalanceTicks()
		s.balanceTicks = max(interval/2, 1) + int(s.rand[s.balanceCPU].Next()%uint32(interval))
	}
	return nil
}

// TickHz returns stathz (realstathz): ULE accounts in stat clock ticks.
func (s *Scheduler) TickHz() int { return s.params.RealStatHz() }

// AddGroup returns an error: ULE has no group scheduling; FreeBSD's cpusets restrict where
// threads run, not how CPU time is shared.
func (s *Scheduler) AddGroup(g sched.Group) error {
	return fmt.Errorf("ule: no group scheduling in ULE (group %d)", g.ID)
}

// System returns the scheduler's state, for inspection. It is nil before Start.
func (s *Scheduler) System() *System { return s.sys }

// Params returns the parameters in effect (after Start, with the machine's Hz and StatHz).
func (s *Scheduler) Params() Params { return s.params }

// Thread returns the state of thread tid, and false if tid was never forked or has exited.
func (s *Scheduler) Thread(tid sched.ID) (*Thread, bool) { return s.threads.Lookup(tid) }

// UptimeSeconds is how long the machine has been up at simulated time 0, in seconds: the
// kernel's ticks then read UptimeSeconds*hz, as on the seeds' machines, up long after boot. Any
// value above a few ticks and below the int wrap gives the same decisions; 600 s keeps every hz
// up to sched.MaxHz below the wrap, and nothing was tuned on it (see "The tick origin" in the
// package documentation).
const UptimeSeconds = 600

// Ticks returns the kernel's ticks at simulated time now: UptimeSeconds*hz + now*hz/1e9,
// wrapping as u_int.
func (s *Scheduler) Ticks(now int64) uint32 {
	return uint32(UptimeSeconds*int64(s.params.Hz) + sched.Ticks(now, s.params.Hz))
}

// ticks is Ticks for the machine's events, remembering the last result: the events of one
// instant (the stat clock of every CPU, a switch and the pick after it) share their time, and
// Ticks costs three divisions by 1e9.
func (s *Scheduler) ticks(now int64) uint32 {
	if now != s.nowAt {
		s.nowAt, s.ticksAt = now, s.Ticks(now)
	}
	return s.ticksAt
}

// explain records an explanation. Callers test s.env.Explaining() first, so that the
// arguments are not even boxed when nobody listens.
func (s *Scheduler) explain(cpu topology.CPU, tid sched.ID, format string, args ...any) {
	s.env.Explain(cpu, tid, fmt.Sprintf(format, args...))
}

// kick delivers a Kick to cpu through the Env.
func (s *Scheduler) kick(cpu topology.CPU, k Kick) {
	if k != KickNone {
		s.env.Resched(cpu)
	}
}

// classOf maps a sched.Class and attributes onto ULE's class and fixed priority: rtprio(2)
// level l (RTFreeBSD) is PRI_MIN_REALTIME + l (rtp_to_pri), idprio is PRI_MIN_IDLE. A Linux-scale
// priority, which CheckAttr refuses, is read as a POSIX priority q clamped to 0..31 and mapped as
// FreeBSD's sched_setscheduler would (rtprio 31 - q).
func classOf(l *Layout, a sched.Attr) (Class, uint8) {
	level := a.RTPrio
	if a.RTScale != sched.RTFreeBSD {
		level = RTPPrioMax - min(max(a.RTPrio, 0), RTPPrioMax)
	}
	switch a.Class {
	case sched.FIFO:
		return ClassFIFO, l.RealtimePriority(level)
	case sched.RR:
		return ClassRealtime, l.RealtimePriority(level)
	case sched.Idle:
		return ClassIdle, l.IdlePriority(0)
	}
	return ClassTimeshare, 0
}

// CheckAttr reports whether ULE can run a thread with attributes a as asked (sched.AttrChecker).
// It refuses, naming the field:
//   - attributes that fail sched.Attr.Validate;
//   - a real-time priority on Linux's 1..99 scale (RTLinux): FreeBSD's rtprio(2) and
//     sched_setscheduler(2) take 0..31, and a Linux program's sched_priority has no FreeBSD
//     meaning (sched_setscheduler would fail with EINVAL above 31). rtprio(2) levels
//     (RTFreeBSD) are accepted and map to PRI_MIN_REALTIME + level as rtp_to_pri does, so on
//     the legacy 64-queue layout four levels share one queue (seed 003);
//   - sched.Batch: FreeBSD has no SCHED_BATCH;
//   - a requested slice (Attr.Slice): ULE's slice is per CPU load, not per thread;
//   - a control group other than the root: ULE has no group scheduling.
//
// Fork and SetAttr given such attributes anyway run the nearest thing (Batch as Normal, a
// Linux-scale q as POSIX priority min(q, 31), no slice, no group) and Err reports the first.
func (s *Scheduler) CheckAttr(a sched.Attr) error {
	return sched.CheckFreeBSDAttr("ule", "ULE", &a)
}

// Err returns the first attribute a thread was run with otherwise than asked (see CheckAttr),
// naming the thread, or nil (sched.ErrReporter).
func (s *Scheduler) Err() error { return s.err }

// noteAttr checks a for op on thread tid: invalid attributes, or an affinity without a CPU of the
// machine, are the machine's bug and panic; attributes CheckAttr refuses are recorded for Err.
func (s *Scheduler) noteAttr(op string, tid sched.ID, a *sched.Attr) {
	s.contract.Attr(op, tid, a)
	if s.err == nil {
		if err := sched.RefuseFreeBSDAttr("ule", "ULE", a); err != nil {
			s.err = fmt.Errorf("thread %v ran otherwise than asked: %w", tid, err)
		}
	}
}

// applyAttr sets class, nice and the user priority of t from a.
func (s *Scheduler) applyAttr(t *Thread, a sched.Attr) {
	l := s.params.Layout()
	var fixed uint8
	t.Class, fixed = classOf(&l, a)
	t.Nice = min(max(a.Nice, PrioMin), PrioMax)
	if t.Class == ClassTimeshare {
		t.schedPriority(&s.params)
	} else {
		t.UserPri = fixed
	}
}

func (s *Scheduler) affinity(a sched.Attr) topology.CPUSet {
	all := s.sys.top.CPUs()
	if a.Affinity.IsEmpty() {
		return all
	}
	return a.Affinity.Intersect(all)
}

// Fork creates thread tid on cpu: sched_fork from parent if the parent exists, otherwise a fresh
// thread set up like thread0 (an empty history, its %CPU window starting now). Time-sharing threads
// take the priority their history gives them; others the priority of their class (rtprio(2) level l
// of a FIFO or RR thread maps to PRI_MIN_REALTIME + l, SCHED_IDLE to PRI_MIN_IDLE; nice is clamped
// to -20..20). Attributes CheckAttr refuses run as it says and are reported by Err. Fork panics if
// tid is negative or already in use, cpu is not in the machine or attr is invalid.
func (s *Scheduler) Fork(now int64, tid, parent sched.ID, cpu topology.CPU, attr sched.Attr) {
	s.contract.Time("Fork", now)
	s.contract.CPU("Fork", cpu)
	s.noteAttr("Fork", tid, &attr)
	pt, forked := s.threads.Lookup(parent)
	s.contract.Parent(tid, parent, forked)
	ticks := s.ticks(now)
	t := InitThread(s.threads.New("ule", "Fork", tid)) // zeroed: only non-zero fields are set
	t.ID, t.Parent = tid, -1
	t.Affinity = s.affinity(attr)
	s.applyAttr(t, attr)
	if forked {
		t.CPU = pt.CPU
		pt.Fork(&s.params, t, ticks, s.sys.cpus[cpu].Slice())
		t.Parent = parent
	} else {
		t.CPU = cpu
		t.Window = Window{FTick: ticks, LTick: ticks}
		t.schedPriority(&s.params)
		t.Priority, t.BasePri = t.UserPri, t.UserPri
	}
	if s.env.Explaining() {
		s.explain(cpu, tid, "fork: %v, slice used %d", t, t.Slice)
	}
}

// Wakeup makes tid runnable: sched_wakeup (its sleep is accounted, its slice restarts) or, for
// sched.WakeFork, sched_add alone; then sched_add places it (PickCPU from the waker's CPU) and
// the CPU it lands on is rescheduled if Notify or SetPreempt says so. ULE has no wake-up hint
// for a waker about to sleep, so sched.WakeSync changes nothing. Wakeup panics if tid is unknown
// or has exited ("ule: Wakeup of unknown thread …"), is already runnable ("ule: Wakeup of t3,
// which is already on a run queue") or from is not in the machine.
func (s *Scheduler) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) {
	s.contract.Time("Wakeup", now)
	s.contract.CPU("Wakeup", from)
	t, ok := s.threads.Lookup(tid) // inlined, where Must is not
	if !ok {
		s.threads.Must("ule", "Wakeup", tid) // panics: an unknown thread
	}
	s.contract.WakeFlags(tid, flags)
	switch t.State {
	case OnRunq:
		panic(fmt.Sprintf("ule: Wakeup of %v, which is already on a run queue", tid))
	case Running:
		panic(fmt.Sprintf("ule: Wakeup of %v, which is running on cpu%d", tid, t.CPU))
	}
	ticks := s.ticks(now)
	if flags&sched.WakeFork == 0 {
		t.WakeAccount(&s.params, ticks)
	}
	var r AddResult
	s.sys.add(t, SRQBoring, from, ticks, false, &s.rand[from], &r)
	s.kick(r.CPU, r.Kick)
	if s.env.Explaining() {
		s.explain(r.CPU, tid, "wakeup from cpu%d: %v", from, r)
	}
}

// Pick chooses the thread cpu runs next: sched_choose. If nothing is queued, the idle loop runs
// tdq_idled first (when its switch count changed, or always with AlwaysSteal). The chosen thread
// returns to user mode at once and takes its user priority. Pick panics if cpu is not in the
// machine or is running a thread.
func (s *Scheduler) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	s.contract.CPU("Pick", cpu)
	c := &s.sys.cpus[cpu]
	if c.Cur != nil {
		panic(fmt.Sprintf("ule: Pick on cpu%d, which runs %v", cpu, c.Cur.ID))
	}
	t, why := c.Choose()
	if t == nil && s.idleSteal(cpu) {
		t, why = c.Choose()
	}
	if t == nil {
		if s.env.Explaining() {
			s.explain(cpu, -1, "pick: %v", why)
		}
		return -1, false
	}
	if s.params.Version == FreeBSD9 {
		t.Window.LTick = s.ticks(now) // 2011 sched_choose: ts_ltick = ticks, no update
	} else if ticks := s.ticks(now); ticks != t.Window.LTick || ticks-t.Window.FTick >= uint32(11*s.params.Hz) { // see Window
		t.Window = PctCPUUpdate(s.params.Version, t.Window, ticks, false, s.params.Hz)
	}
	if t.Priority != t.UserPri { // else sched_userret_slowpath changes nothing
		s.sys.ReturnToUser(t)
	}
	if s.env.Explaining() {
		s.explain(cpu, t.ID, "pick: %v", why)
	}
	return t.ID, true
}

// idleSteal is one pass of sched_idletd's stealing: it returns whether a thread was moved here.
func (s *Scheduler) idleSteal(cpu topology.CPU) bool {
	c := &s.sys.cpus[cpu]
	sc := c.SwitchCount()
	if !s.params.StealIdle || (!s.params.AlwaysSteal && sc == s.idleOld[cpu]) {
		return false
	}
	s.idleOld[cpu] = sc
	var why StealReason
	_, t := s.sys.steal(cpu, 0, &s.rand[cpu], &why)
	if t == nil {
		if s.env.Explaining() {
			s.explain(cpu, -1, "idle: %v", why)
		}
		return false
	}
	s.sys.MoveThread(t, cpu)
	if s.env.Explaining() {
		s.explain(cpu, t.ID, "idle: %v", why)
	}
	return true
}

// Stop takes tid off cpu: sched_switch for why, after sched_sleep for sched.Sleep and with
// sched_exit_thread charging the parent for sched.Exit. Stop panics if tid is unknown or has
// exited ("ule: Stop of unknown thread …") or is not the thread running on cpu ("ule: Stop of …,
// which is not running on cpu…"), if cpu is not in the machine or why is not a StopReason.
func (s *Scheduler) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) {
	s.contract.Time("Stop", now)
	s.contract.CPU("Stop", cpu)
	c := &s.sys.cpus[cpu]
	t := c.Cur // the thread running on cpu is live: no look-up unless it is not tid
	if t == nil || t.ID != tid {
		s.threads.Must("ule", "Stop", tid) // an unknown thread panics first
		panic(fmt.Sprintf("ule: Stop of %v, which is not running on cpu%d", tid, cpu))
	}
	s.contract.StopReason(tid, why)
	if why == sched.Exit {
		if pt, ok := s.threads.Lookup(t.Parent); ok {
			pt.ExitChild(&s.params, t)
		}
	}
	var r SwitchResult
	s.sys.switchOut(cpu, switchReasons[why], s.ticks(now), &s.rand[cpu], &r)
	if r.Migrated {
		s.kick(r.Move.To, r.Move.Kick)
	}
	if why == sched.Exit {
		s.threads.Delete(tid)
	}
	if s.env.Explaining() {
		s.explain(cpu, tid, "stop (%v): preempted=%v migrated=%v stolen=%v", why, r.Preempted, r.Migrated, r.Stolen)
	}
}

// switchReasons maps the machine's reasons to stop a thread onto the mi_switch flags ULE reads.
var switchReasons = [...]SwitchReason{sched.Sleep: SwitchSleep, sched.Preempt: SwitchPreempt,
	sched.Yield: SwitchYield, sched.Exit: SwitchExit}

// Tick is a stat clock interrupt on cpu: sched_clock. On the first CPU the periodic balancer
// runs when its jittered period (balance_interval/2 + random % balance_interval) elapses; the
// switch counts rotate and the calendar advances; the running thread is charged and, when its
// slice expires, cpu is rescheduled. On an idle CPU the idle loop runs: it switches to queued
// work or tries to steal. Tick panics if cpu is not in the machine.
func (s *Scheduler) Tick(now int64, cpu topology.CPU) {
	s.contract.Time("Tick", now)
	s.contract.CPU("Tick", cpu)
	p := &s.params
	c := &s.sys.cpus[cpu]
	ticks := s.ticks(now)
	if cpu == s.balanceCPU && p.Balance && s.balanceTicks != 0 {
		s.balanceTicks--
		if s.balanceTicks <= 0 {
			interval := p.BalanceTicks()
			s.balanceTicks = max(interval/2, 1) + int(s.rand[cpu].Next()%uint32(interval))
			s.moves = s.sys.Balance(cpu, &s.rand[cpu], s.moves[:0])
			for _, m := range s.moves {
				s.kick(m.To, m.Kick)
				if s.env.Explaining() {
					s.explain(m.To, m.Thread.ID, "balance: %v → cpu%d (pickcpu=%v), kick %v", m.From, m.To, m.PickCPU, m.Kick)
				}
			}
		}
	}
	c.ClockQueue(1)
	t := c.Cur
	if t == nil {
		if c.Load() > 0 || s.idleSteal(cpu) {
			s.env.Resched(cpu)
		}
		return
	}
	r := t.ChargeTick(p, ticks, 1, c.ThreadSlice(t))
	if r == SliceExpiredIthd && p.Version == FreeBSD9 {
		r = SliceExpired // the 2011 sched_clock treats an interrupt thread like any other
	}
	switch r {
	case SliceExpired:
		t.SliceEnd = true
		s.env.Resched(cpu)
		if s.env.Explaining() {
			s.explain(cpu, t.ID, "tick: %v after %d ticks", r, c.ThreadSlice(t))
		}
	case SliceExpiredIthd:
		t.OwePreempt = true
		if int(t.BasePri)+int(p.Layout().Fold) < int(p.Layout().MaxIthd) {
			s.sys.SetPriority(t, t.BasePri+uint8(p.Layout().Fold), cpu, ticks, &s.rand[cpu])
		}
		s.env.Resched(cpu)
		if s.env.Explaining() {
			s.explain(cpu, t.ID, "tick: %v", r)
		}
	}
}

// SetAttr changes tid's attributes: nice (sched_nice: a new user priority, then sched_prio to
// it), class and real-time priority (rtp_to_pri: sched_class, sched_user_prio, sched_prio) and
// affinity (sched_affinity). A CPU that must switch as a result is rescheduled. SetAttr panics if
// tid is unknown or has exited ("ule: SetAttr of unknown thread …") or attr is invalid;
// attributes CheckAttr refuses run as it says and are reported by Err.
func (s *Scheduler) SetAttr(now int64, tid sched.ID, attr sched.Attr) {
	s.contract.Time("SetAttr", now)
	t := s.threads.Must("ule", "SetAttr", tid)
	s.noteAttr("SetAttr", tid, &attr)
	ticks := s.ticks(now)
	self := t.CPU
	s.applyAttr(t, attr)
	if r, ok := s.sys.SetPriority(t, t.UserPri, self, ticks, &s.rand[self]); ok {
		s.kick(r.CPU, r.Kick)
	}
	if mask := s.affinity(attr); mask != t.Affinity {
		r, _ := s.sys.SetAffinity(t, mask, self, ticks, &s.rand[self])
		s.kick(r.CPU, r.Kick)
	}
	if s.env.Explaining() {
		s.explain(t.CPU, tid, "setattr: %v", t)
	}
}
