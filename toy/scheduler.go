package toy

// This file implements the Scheduler: the System behind sched.Policy.

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A Scheduler is the toy driven by a machine: a thin adapter from the [sched.Policy] contract
// onto a [System]. It checks the machine's calls (sched.Contract), calls the System, and turns
// the CPU it returns into an Env.Resched and, when the machine records explanations, the
// decisions' reasons into Env.Explain text. It is not safe for concurrent use.
type Scheduler struct {
	p        Params
	sys      *System
	env      sched.Env
	hz       int
	contract sched.Contract
}

// New returns a Scheduler with parameters p, to be started, or the error of p.Validate.
func New(p Params) (*Scheduler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Scheduler{p: p, contract: sched.Contract{Pkg: "toy"}}, nil
}

// Name returns p.Name, or "toy-" and the rule when it is empty.
func (s *Scheduler) Name() string {
	if s.p.Name == "" {
		return "toy-" + s.p.Rule.String()
	}
	return s.p.Name
}

// Params returns the parameters the Scheduler runs with.
func (s *Scheduler) Params() Params { return s.p }

// System returns the scheduler's state, for inspection. It is nil before Start.
func (s *Scheduler) System() *System { return s.sys }

// Thread returns the state of thread id, and false if it was never forked or has exited.
func (s *Scheduler) Thread(id ID) (*Thread, bool) {
	if s.sys == nil {
		return nil, false
	}
	return s.sys.Thread(id)
}

// Start prepares the Scheduler for the machine cfg describes and keeps env. It returns an error
// if Start was called before, cfg is invalid or env is nil.
func (s *Scheduler) Start(cfg sched.Config, env sched.Env) error {
	if err := sched.CheckStart("toy", s.sys != nil, cfg, env); err != nil {
		return err
	}
	sys, err := NewSystem(s.p, cfg.Topology)
	if err != nil {
		return err
	}
	s.sys, s.env, s.hz = sys, env, cfg.Hz
	s.contract.Start(cfg.Topology)
	return nil
}

// TickHz returns the machine's hz: RR counts its quantum in clock ticks.
func (s *Scheduler) TickHz() int { return s.hz }

// AddGroup returns an error: the toy has no group scheduling.
func (s *Scheduler) AddGroup(g sched.Group) error {
	return fmt.Errorf("toy: no group scheduling (group %d)", g.ID)
}

// Queued returns the number of waiting threads (sched.Queuer).
func (s *Scheduler) Queued() int { return s.sys.Queued() }

// mustStarted panics, naming op, before Start.
func (s *Scheduler) mustStarted(op string) {
	if s.sys == nil {
		panic("toy: " + op + " before Start")
	}
}

// kick reschedules cpu if ok.
func (s *Scheduler) kick(cpu topology.CPU, ok bool) {
	if ok {
		s.env.Resched(cpu)
	}
}

// Fork creates thread tid with attributes attr ([System.Fork]); nice, class and group are
// ignored. It panics on the misuse sched.Contract and sched.Threads name.
func (s *Scheduler) Fork(now int64, tid, parent sched.ID, cpu topology.CPU, attr sched.Attr) {
	s.mustStarted("Fork")
	_, ok := s.sys.Thread(parent)
	s.contract.Fork(now, tid, parent, cpu, &attr, ok)
	s.sys.Fork(tid, attr)
}

// Wakeup makes tid runnable ([System.Wakeup]) and reschedules the idle CPU that may run it, if
// any. It panics if tid is unknown or runnable, or on the misuse sched.Contract names.
func (s *Scheduler) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) {
	s.mustStarted("Wakeup")
	s.contract.Time("Wakeup", now)
	s.contract.CPU("Wakeup", from)
	t := s.sys.threads.Must("toy", "Wakeup", tid)
	s.contract.WakeFlags(tid, flags)
	if t.State != Blocked {
		panic(fmt.Sprintf("toy: Wakeup of %v, which is %v", tid, t.State))
	}
	s.kick(s.sys.Wakeup(t))
}

// Pick runs the dispatcher for cpu ([System.Pick]). It panics if cpu is not in the machine or
// runs a thread.
func (s *Scheduler) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	s.mustStarted("Pick")
	s.contract.CPU("Pick", cpu)
	if t, busy := s.sys.Running(cpu); busy {
		panic(fmt.Sprintf("toy: Pick on %v, which runs %v", cpu, t.ID))
	}
	t, why := s.sys.Pick(cpu)
	if s.env.Explaining() {
		s.env.Explain(cpu, why.Thread, why.String())
	}
	if t == nil {
		return -1, false
	}
	return t.ID, true
}

// Stop takes tid off cpu ([System.Stop]) and reschedules the idle CPU that may run a requeued
// thread, if any. It panics if tid is unknown or not running on cpu, why is not a StopReason, or
// on the misuse sched.Contract names.
func (s *Scheduler) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) {
	s.mustStarted("Stop")
	s.contract.Time("Stop", now)
	s.contract.CPU("Stop", cpu)
	s.sys.threads.Must("toy", "Stop", tid)
	if t, ok := s.sys.Running(cpu); !ok || t.ID != tid {
		panic(fmt.Sprintf("toy: Stop of %v, which is not running on %v", tid, cpu))
	}
	s.contract.StopReason(tid, why)
	s.kick(s.sys.Stop(cpu, why))
}

// Tick is a clock interrupt on cpu ([System.Tick]): under RR a thread whose quantum is over
// while another waits is preempted.
func (s *Scheduler) Tick(now int64, cpu topology.CPU) {
	s.mustStarted("Tick")
	s.contract.Time("Tick", now)
	s.contract.CPU("Tick", cpu)
	if expired, why := s.sys.Tick(cpu); expired {
		s.env.Resched(cpu)
		if s.env.Explaining() {
			t, _ := s.sys.Running(cpu)
			s.env.Explain(cpu, t.ID, why.String())
		}
	}
}

// SetAttr changes tid's attributes ([System.SetAttr]) and reschedules an idle CPU that may now
// run it, if it waits. It panics if tid is unknown, or on the misuse sched.Contract names.
func (s *Scheduler) SetAttr(now int64, tid sched.ID, attr sched.Attr) {
	s.mustStarted("SetAttr")
	s.contract.Time("SetAttr", now)
	t := s.sys.threads.Must("toy", "SetAttr", tid)
	s.contract.Attr("SetAttr", tid, &attr)
	s.kick(s.sys.SetAttr(t, attr))
}
