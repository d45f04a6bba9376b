// This file implements how the Scheduler reads a thread's sched.Attr: the classes and
// real-time scales it accepts (CheckAttr), the fair class it runs each one as, and the CPUs and
// group it gives a thread; and its checks of the CPU numbers the machine passes.

package cfs

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// CheckAttr reports whether the Scheduler can run a thread with attributes a, before any such
// thread exists (the simulator's AttrChecker). It returns an error if a is invalid
// (sched.Attr.Validate) or if a is a real-time class whose priority is written on FreeBSD's
// rtprio(2) scale (sched.RTFreeBSD): Linux has no such interface, and mapping its 0..31 levels
// onto sched_priority would be this package's invention, not the kernel's.
//
// A FIFO or RR thread with a Linux sched_priority (sched.RTLinux) is accepted although the
// real-time classes are not modelled: it runs as SCHED_NORMAL at its nice level, and
// [Scheduler.Err] reports the first such thread after the run, so a result never looks like
// one in which the thread ran as real-time. CheckAttr does not know the groups, which
// [Scheduler.AddGroup] creates: a thread in a group that does not exist runs in the root group
// and Err reports it too. A custom slice (a.Slice) is honoured from v7.1 on and ignored
// before, as those kernels ignore sched_runtime for fair tasks; nice 20, FreeBSD's PRIO_MAX, is
// 19, as Linux's setpriority clamps it.
func (s *Scheduler) CheckAttr(a sched.Attr) error {
	if err := a.Validate(); err != nil {
		return fmt.Errorf("cfs: %w", err)
	}
	if a.Class.RealTime() && a.RTScale != sched.RTLinux {
		return fmt.Errorf("cfs: %v priority %d on the %v scale (rtprio(2)): Linux's real-time priorities are sched_setscheduler's %d..%d",
			a.Class, a.RTPrio, a.RTScale, sched.MinRTPrio, sched.MaxRTPrio)
	}
	return nil
}

// classOf maps a sched class to a fair class and a nice level, recording an error for the
// real-time classes, which run as SCHED_NORMAL.
func (s *Scheduler) classOf(tid sched.ID, a sched.Attr) (Class, int) {
	nice := min(max(a.Nice, minNice), maxNice)
	switch a.Class {
	case sched.Batch:
		return Batch, nice
	case sched.Idle:
		return Idle, nice
	case sched.FIFO, sched.RR:
		s.fail(fmt.Errorf("cfs: thread %v: class %v is a real-time class, not modelled; it runs as SCHED_NORMAL", tid, a.Class))
	}
	return Normal, nice
}

// allowed returns the CPUs of affinity that the machine has, or all of them.
func (s *System) allowed(a topology.CPUSet) topology.CPUSet {
	m := a.Intersect(s.topo.CPUs())
	if m.IsEmpty() {
		return s.topo.CPUs()
	}
	return m
}

// group returns the group id names, recording an error and returning the root group (nil) if
// it does not exist.
func (s *Scheduler) group(tid sched.ID, id sched.GroupID) *Group {
	if id == sched.RootGroup {
		return nil
	}
	g, ok := s.groups[id]
	if !ok {
		s.fail(fmt.Errorf("cfs: thread %v: group %d does not exist; it runs in the root group", tid, id))
	}
	return g
}

// mustStarted panics, naming the method fn, unless the Scheduler is started. The CPU numbers
// the Scheduler's methods pass on are checked by its contract, whose panics name its method; the
// System's entry points they call (schedule, stop, tickCPU, wakeup) do not check them again.
func (s *Scheduler) mustStarted(fn string) {
	if s.sys == nil {
		panic("cfs: " + fn + " before Start")
	}
}

// mustCPU panics, naming the method fn, unless c is a CPU of the machine: a CPU id beyond the
// topology's, or one it lacks (its run queue is nil), would otherwise be an index out of range
// or a nil dereference.
func (s *System) mustCPU(fn string, c topology.CPU) {
	if s.notCPU(c) {
		s.badCPU(fn, c)
	}
}

// notCPU reports whether c is not a CPU of the machine. It is small enough to inline, so that
// the hot entry points (Tick, Schedule, Stop, Wakeup) test it in place, with the panic out of
// line, and pay a compare and a load for it.
func (s *System) notCPU(c topology.CPU) bool {
	return uint(c) >= uint(len(s.rqs)) || s.rqs[c].c == nil
}

//go:noinline
func (s *System) badCPU(fn string, c topology.CPU) {
	all := s.topo.CPUs()
	panic(fmt.Sprintf("cfs: System.%s on %v, which is not a CPU of the machine (%v)", fn, c, all))
}
