package bsd4

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// This file implements the Scheduler: the System behind sched.Policy, the interface a machine
// such as bench/sim drives.

// A Scheduler is FreeBSD's 4BSD scheduler driven by a machine: a thin adapter from the
// [sched.Policy] contract onto a [System] ([Scheduler.System]), which holds all the state and
// decides. The Scheduler is the only part of the package that calls the sched.Env: it turns the
// System's Wakes and Effects into Env.Resched calls and, when the machine records explanations,
// their reasons into Env.Explain text. It also records the attributes it runs otherwise than
// asked ([Scheduler.Err]).
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
// sched.ReschedSetter (ipi_selected) and the machine records no explanations; with
// explanations each CPU's Resched is followed by its Explain. The decisions and the state are
// the same either way.
//
// A Scheduler is not safe for concurrent use; a machine calls it one call at a time. Misuse
// (an unknown thread, a Stop for a thread the CPU is not running, a Pick on a busy CPU) panics
// with a message starting "bsd4: ".
type Scheduler struct {
	p   Params
	sys *System
	env sched.Env
	// envSet is env when it can reschedule a set of CPUs in one call (ipi_selected), or nil.
	envSet sched.ReschedSetter
	fx     []Effect // the effects of the current call, reused
	err    error    // the first attribute run otherwise than asked (Err)
}

// New returns a Scheduler with parameters p, ready to be started, or the error of
// Params.Validate.
func New(p Params) (*Scheduler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Scheduler{p: p}, nil
}

// CheckAttr reports whether 4BSD can run a thread with attributes a as asked
// (sched.AttrChecker). It refuses, naming the field: attributes that fail sched.Attr.Validate;
// a real-time priority on Linux's 1..99 scale (RTLinux), which has no FreeBSD meaning
// (rtprio(2) and FreeBSD's sched_setscheduler(2) take 0..31); sched.Batch, which FreeBSD lacks;
// a requested slice; a control group other than the root ([sched.CheckFreeBSDAttr]). rtprio(2)
// levels (RTFreeBSD) are accepted and map to PRI_MIN_REALTIME + level (rtp_to_pri; see
// ClassPriority). Fork and SetAttr given refused attributes run the nearest thing (Batch as
// Normal, a Linux-scale q as POSIX priority min(q, 31), no slice, no group) and Err reports the
// first.
func (s *Scheduler) CheckAttr(a sched.Attr) error {
	return sched.CheckFreeBSDAttr(pkg, "4BSD", &a)
}

// Err returns the first attribute a thread was run with otherwise than asked (see CheckAttr),
// naming the thread, or nil (sched.ErrReporter).
func (s *Scheduler) Err() error { return s.err }

// noteAttr records for Err the first attributes CheckAttr refuses. The System has validated a.
func (s *Scheduler) noteAttr(tid sched.ID, a *sched.Attr) {
	if s.err == nil {
		if err := sched.RefuseFreeBSDAttr(pkg, "4BSD", a); err != nil {
			s.err = fmt.Errorf("thread %v ran otherwise than asked: %w", tid, err)
		}
	}
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

// System returns the scheduler's state, for inspection. It is nil before Start.
func (s *Scheduler) System() *System { return s.sys }

// Start prepares the Scheduler for the machine cfg describes and keeps env: it builds the
// machine's [System] ([NewSystem]). It returns an error if Start was called before (a
// Scheduler runs on one machine only), cfg is invalid or env is nil.
func (s *Scheduler) Start(cfg sched.Config, env sched.Env) error {
	if err := sched.CheckStart(pkg, s.sys != nil, cfg, env); err != nil {
		return err
	}
	sys, err := NewSystem(s.p, cfg)
	if err != nil {
		return err
	}
	s.sys, s.env = sys, env
	s.envSet, _ = env.(sched.ReschedSetter)
	return nil
}

// TickHz returns realstathz: 4BSD charges CPU time at the statistics clock. It panics before
// Start.
func (s *Scheduler) TickHz() int {
	s.mustStarted("TickHz")
	return s.sys.realstathz
}

// mustStarted panics, naming op, before Start.
func (s *Scheduler) mustStarted(op string) {
	if s.sys == nil {
		panic("bsd4: " + op + " before Start")
	}
}

// AddGroup returns an error: 4BSD has no group scheduling.
func (s *Scheduler) AddGroup(g sched.Group) error {
	return fmt.Errorf("bsd4: no group scheduling (group %d)", g.ID)
}

// Thread returns the state of thread id, and false if it was never forked or has exited.
func (s *Scheduler) Thread(id sched.ID) (*Thread, bool) {
	if s.sys == nil {
		return nil, false
	}
	return s.sys.Thread(id)
}

// Fork creates thread tid ([System.Fork]). Attributes CheckAttr refuses run as it says and are
// reported by Err. Fork panics if tid is negative or already exists, cpu is not in the machine
// or attr is invalid.
func (s *Scheduler) Fork(now int64, tid, parent sched.ID, cpu topology.CPU, attr sched.Attr) {
	s.mustStarted("Fork")
	s.sys.Fork(now, tid, parent, cpu, attr)
	s.noteAttr(tid, &attr)
}

// Wakeup makes tid runnable ([System.Wakeup]) and reschedules the CPUs sched_add tells.
// Wakeup panics if tid is not new or sleeping, or from is not in the machine.
func (s *Scheduler) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) {
	s.mustStarted("Wakeup")
	w, r := s.sys.Wakeup(now, tid, from, flags)
	s.tell(tid, w, r)
}

// tell carries out sched_add's Wake for thread tid: every CPU it names is rescheduled, in
// ascending order, and explained when the machine records explanations.
func (s *Scheduler) tell(tid sched.ID, w Wake, r *WakeReason) {
	if s.env.Explaining() {
		s.tellExplained(tid, w, r)
		return
	}
	if w.One {
		s.env.Resched(w.CPU)
	} else if w.Set != nil {
		s.reschedSet(w.Set)
	}
}

// tellExplained is tell when the machine records explanations: each CPU's Resched is followed
// by r's text, built once; a Wake that names no CPU is explained on the waking CPU.
func (s *Scheduler) tellExplained(tid sched.ID, w Wake, r *WakeReason) {
	env := s.env
	why := r.String()
	switch {
	case w.One:
		env.Resched(w.CPU)
		env.Explain(w.CPU, tid, why)
	case w.Set != nil:
		for c := range w.Set.All() {
			env.Resched(c)
			env.Explain(c, tid, why)
		}
	default:
		env.Explain(r.Self, tid, why)
	}
}

// reschedSet is forward_wakeup's IPIs to every CPU of set. The kernel calls ipi_selected once
// with the mask; an Env that offers ReschedSet takes the set in one call, which its contract
// makes the same as a Resched for each CPU in ascending order, the fallback.
func (s *Scheduler) reschedSet(set *topology.CPUSet) {
	if s.envSet != nil {
		s.envSet.ReschedSet(*set)
		return
	}
	env := s.env
	for c := range set.All() {
		env.Resched(c)
	}
}

// do carries out the effects s.fx holds, in order, and empties it.
func (s *Scheduler) do() {
	explaining := s.env.Explaining()
	for i := range s.fx {
		e := &s.fx[i]
		switch e.Kind {
		case EffectWake:
			s.tell(e.Thread.ID, e.Wake, &e.WakeReason)
			continue
		}
		s.env.Resched(e.CPU)
		if explaining {
			tid := sched.ID(-1)
			if e.Thread != nil {
				tid = e.Thread.ID
			}
			s.env.Explain(e.CPU, tid, e.String())
		}
	}
	clear(s.fx) // drop the thread pointers
	s.fx = s.fx[:0]
}

// Pick is sched_choose for cpu ([System.Pick]): it returns the thread cpu runs, or reports
// false if cpu idles. Pick panics if cpu is not in the machine or is running a thread.
func (s *Scheduler) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	s.mustStarted("Pick")
	t, why := s.sys.Pick(now, cpu)
	if s.env.Explaining() {
		s.explainPick(cpu, t, why)
	}
	if t == nil {
		return -1, false
	}
	return t.ID, true
}

// explainPick records Pick's reason.
func (s *Scheduler) explainPick(cpu topology.CPU, t *Thread, why *PickReason) {
	tid := sched.ID(-1)
	if t != nil {
		tid = t.ID
	}
	s.env.Explain(cpu, tid, why.String())
}

// Stop is sched_switch for tid, running on cpu ([System.Stop]); a requeued thread's sched_add
// reschedules the CPUs it tells. Stop panics if tid is not cpu's running thread, cpu is not in
// the machine or why is not a StopReason.
func (s *Scheduler) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) {
	s.mustStarted("Stop")
	if w, r, requeued := s.sys.Stop(now, cpu, tid, why); requeued {
		s.tell(tid, w, r)
	}
}

// Tick is a statistics-clock interrupt on cpu ([System.Tick]): the CPUs it asks for are
// rescheduled. Tick panics if cpu is not in the machine.
func (s *Scheduler) Tick(now int64, cpu topology.CPU) {
	s.mustStarted("Tick")
	s.fx = s.sys.Tick(now, cpu, s.fx)
	if len(s.fx) > 0 {
		s.do()
	}
}

// SchedCPU runs schedcpu at once ([System.SchedCPU]) and reschedules the CPUs its requeues
// tell. Tick runs it once per second; it is exported for tests and benchmarks. It panics before
// Start.
func (s *Scheduler) SchedCPU() {
	s.mustStarted("SchedCPU")
	s.fx = s.sys.SchedCPU(s.fx)
	s.do()
}

// SetAttr changes tid's attributes ([System.SetAttr]) and reschedules the CPUs that must
// switch as a result. SetAttr panics if tid is unknown or attr invalid; attributes CheckAttr
// refuses run as it says and are reported by Err.
func (s *Scheduler) SetAttr(now int64, tid sched.ID, attr sched.Attr) {
	s.mustStarted("SetAttr")
	s.fx = s.sys.SetAttr(now, tid, attr, s.fx)
	s.noteAttr(tid, &attr)
	s.do()
}

// Bind binds tid to cpu ([System.Bind], sched_bind) and reschedules the CPUs that must switch
// as a result. Bind panics if tid is unknown or cpu is not in the machine.
func (s *Scheduler) Bind(now int64, tid sched.ID, cpu topology.CPU) {
	s.mustStarted("Bind")
	s.fx = s.sys.Bind(now, tid, cpu, s.fx)
	s.do()
}

// Unbind ends a binding ([System.Unbind], sched_unbind) and reschedules the CPUs that must
// switch as a result. Unbind panics if tid is unknown.
func (s *Scheduler) Unbind(now int64, tid sched.ID) {
	s.mustStarted("Unbind")
	s.fx = s.sys.Unbind(now, tid, s.fx)
	s.do()
}
