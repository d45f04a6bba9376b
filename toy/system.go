package toy

// This file implements the System: all the toy's state for one machine.

import (
	"slices"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A System is the toy's state for one machine: one queue of waiting threads in arrival order,
// every thread, and what each CPU runs. Its methods change it through the decisions ([Pick],
// [Expired]) and return what the machine must do: the CPU, if any, that must reschedule. It
// never calls a machine. Misuse (an unknown thread, a CPU outside the machine) is the caller's
// to check; a [Scheduler] does.
type System struct {
	p       Params
	cpus    topology.CPUSet
	queue   []*Thread
	running []*Thread // by CPU id: its current thread, or nil
	// told are the idle CPUs asked to reschedule that have not picked since, so that two
	// wake-ups at one instant go to two idle CPUs.
	told     topology.CPUSet
	threads  sched.Threads[Thread]
	arrivals uint64
}

// NewSystem returns the state of the toy with parameters p on machine t: every CPU idle, no
// thread. It returns the error of p.Validate.
func NewSystem(p Params, t *topology.Topology) (*System, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &System{p: p, cpus: t.CPUs(), running: make([]*Thread, t.NumIDs())}, nil
}

// Params returns the parameters the System runs with.
func (s *System) Params() Params { return s.p }

// Thread returns the state of thread id, and false if it is unknown or has exited.
func (s *System) Thread(id ID) (*Thread, bool) { return s.threads.Lookup(id) }

// Running returns the thread cpu runs, and false if it idles.
func (s *System) Running(cpu topology.CPU) (*Thread, bool) {
	t := s.running[cpu]
	return t, t != nil
}

// Queued returns the number of waiting threads.
func (s *System) Queued() int { return len(s.queue) }

// Fork creates thread id with attributes a, not yet runnable. It panics with "toy: Fork of
// thread t3, which exists" if id exists, or if it is negative.
func (s *System) Fork(id ID, a sched.Attr) *Thread {
	t := s.threads.New("toy", "Fork", id) // zeroed: only the fields that are not zero are set
	t.ID, t.Length, t.Affinity = id, a.Slice, a.Affinity
	return t
}

// Wakeup makes t runnable: it joins the tail of the queue. It returns the idle CPU that must
// reschedule to run it, the lowest-numbered idle CPU t may run on that was not told already,
// and false if there is none (t waits for a CPU to stop its thread).
func (s *System) Wakeup(t *Thread) (topology.CPU, bool) {
	s.enqueue(t)
	return s.idleFor(t)
}

// enqueue puts t at the tail of the queue.
func (s *System) enqueue(t *Thread) {
	t.State, t.Arrival, t.Ran = Queued, s.arrivals, 0
	s.arrivals++
	s.queue = append(s.queue, t)
}

// idleFor returns an idle CPU that t may run on and that was not told yet, marking it told.
func (s *System) idleFor(t *Thread) (topology.CPU, bool) {
	for c := range s.cpus.All() {
		if s.running[c] == nil && !s.told.Has(c) && t.Allowed(c) {
			s.told.Add(c)
			return c, true
		}
	}
	return 0, false
}

// Pick is the dispatcher for cpu, which runs nothing: the thread [Pick] chooses leaves the
// queue and runs on cpu; nil if cpu idles.
func (s *System) Pick(cpu topology.CPU) (*Thread, PickReason) {
	s.told.Remove(cpu)
	i, why := Pick(s.queue, cpu, &s.p)
	if i < 0 {
		return nil, why
	}
	t := s.queue[i]
	s.queue = slices.Delete(s.queue, i, i+1)
	t.State, t.CPU, t.Ran = Running, cpu, 0
	s.running[cpu] = t
	return t, why
}

// Stop takes the thread running on cpu off it, for reason why: a preempted or yielding thread
// joins the tail of the queue (and the CPU that must run it, if an idle one may, is returned as
// by Wakeup); a sleeping one is blocked; an exiting one is forgotten. It returns false when no
// CPU must reschedule.
func (s *System) Stop(cpu topology.CPU, why sched.StopReason) (topology.CPU, bool) {
	t := s.running[cpu]
	s.running[cpu] = nil
	s.told.Add(cpu) // the machine picks for cpu next: no one need tell it
	switch why {
	case sched.Preempt, sched.Yield:
		s.enqueue(t)
		return s.idleFor(t)
	case sched.Exit:
		s.threads.Delete(t.ID)
	}
	t.State = Blocked
	return 0, false
}

// Tick is a clock interrupt on cpu: the running thread is charged a tick, and [Expired] says
// whether cpu must reschedule.
func (s *System) Tick(cpu topology.CPU) (bool, TickReason) {
	t := s.running[cpu]
	if t == nil {
		return false, TickReason{Rule: s.p.Rule, Quantum: s.p.Quantum}
	}
	t.Ran++
	i, _ := Pick(s.queue, cpu, &s.p)
	return Expired(t.Ran, i >= 0, &s.p)
}

// SetAttr gives t attributes a: its declared length and its affinity. A waiting thread that may
// now run on an idle CPU returns that CPU, as Wakeup does. (A running thread whose new affinity
// excludes its CPU is the machine's to reschedule; it then comes back through Stop.)
func (s *System) SetAttr(t *Thread, a sched.Attr) (topology.CPU, bool) {
	t.Length, t.Affinity = a.Slice, a.Affinity
	if t.State != Queued {
		return 0, false
	}
	return s.idleFor(t)
}
