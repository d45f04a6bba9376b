package sched

// This file implements the policy contract: Policy, what every scheduling policy offers a
// machine, and the optional interfaces a policy may add to it.

import (
	"errors"

	"github.com/schedkit/schedkit/topology"
)

// Policy is a CPU scheduler as a machine sees it. Each policy package (ule, bsd4, cfs, toy)
// provides a Scheduler type that satisfies it by composing its own state and pure decisions,
// and states so at compile time:
//
//	var _ sched.Policy = (*Scheduler)(nil)
//
// The machine that drives a Policy (the simulator in bench/sim, or a program of yours)
// guarantees, and a policy may rely on:
//  1. calls are made one at a time, never concurrently, with now (int64 nanoseconds of the
//     machine's time) non-decreasing from call to call;
//  2. Start comes first and exactly once; groups are added before any thread joins them;
//  3. each CPU is either idle or running exactly one thread, the one the policy last returned
//     from Pick for that CPU; Pick is called only for a CPU with no current thread;
//  4. Stop is called only for a CPU's current thread, and is followed by Pick for that CPU;
//  5. Wakeup is called only for a thread that is not runnable: after Fork, or after Stop with
//     Sleep; after Stop with Exit the thread is never mentioned again;
//  6. Tick is called on every CPU, idle or busy, TickHz times per second of the machine's time
//     (a [TicklessIdle] policy may let the machine leave out an idle CPU's ticks).
//
// The policy owns every run queue and every thread's scheduling state. It reports the decisions
// that change what a CPU should run through the [Env] given to Start: Resched(cpu) makes the
// machine stop cpu's current thread (Stop with Preempt) and call Pick again, or wake an idle cpu
// and call Pick. Work the policy moves between its queues (stealing, balancing) is invisible to
// the machine until a Pick hands it out. The machine does not call Pick on an idle CPU by
// itself, does not call Stop for a thread whose run simply continues across a clock interrupt,
// and does not tell the policy how much work a thread has left.
//
// A machine that breaks the contract has a bug, not bad input: the policies of this module
// panic with a message that starts with their package name ("ule: Pick on cpu1, which runs
// t3"), the same message in every policy ([Contract], [Threads]), as the misuse list of
// bench/sim/simtest checks for each of them. Bad input from outside
// (a machine the policy cannot run on, a group it cannot schedule) is an error from Start or
// AddGroup.
type Policy interface {
	// Name returns a short name for reports, such as "ule-main" or "cfs-v6.5".
	Name() string
	// Start prepares the policy for the machine described by cfg and keeps env for later calls.
	// It returns an error if the policy cannot run on that machine.
	Start(cfg Config, env Env) error
	// TickHz returns how many times per second the machine calls Tick on each CPU: FreeBSD's
	// policies account in stathz ticks, Linux's at hz.
	TickHz() int
	// AddGroup creates the control group g. A policy without group scheduling returns an error.
	AddGroup(g Group) error
	// Fork creates thread tid, not yet runnable, with attributes attr. parent is the creating
	// thread, or -1 when the machine creates it; cpu is the CPU the creation happens on.
	Fork(now int64, tid, parent ID, cpu topology.CPU, attr Attr)
	// Wakeup makes tid runnable: the policy chooses its CPU, queues it, and calls Resched for
	// any CPU that should switch to it. from is the CPU of the waker (the parent's for a
	// WakeFork wake-up).
	Wakeup(now int64, tid ID, from topology.CPU, flags WakeFlags)
	// Pick removes from the policy's queues the thread cpu should run now and returns it; it
	// reports false if cpu should idle. Pick may steal from other CPUs' queues first, as an
	// idle CPU does.
	Pick(now int64, cpu topology.CPU) (ID, bool)
	// Stop tells the policy that tid, running on cpu, stops running for reason why. For
	// Preempt and Yield the policy queues it again.
	Stop(now int64, cpu topology.CPU, tid ID, why StopReason)
	// Tick is a clock interrupt on cpu: the policy charges the running thread, and may
	// reschedule, balance or steal.
	Tick(now int64, cpu topology.CPU)
	// SetAttr changes tid's attributes (nice, class, real-time priority, affinity, group) at
	// now; tid may be running, queued or asleep.
	SetAttr(now int64, tid ID, attr Attr)
}

// CheckStart makes the checks that come first in every policy's Start, with the same errors in
// every policy: it returns an error if started (Start was called before: "PKG: Start called
// twice"), the error of cfg.Validate, or an error if env is nil ("PKG: Start with a nil Env"),
// in that order, and nil if the policy may go on and build its state. pkg names the policy
// package, as [Contract].Pkg.
func CheckStart(pkg string, started bool, cfg Config, env Env) error {
	if started {
		return errors.New(pkg + ": Start called twice")
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	if env == nil {
		return errors.New(pkg + ": Start with a nil Env")
	}
	return nil
}

// An AttrChecker is a Policy that can say, before a run, which thread attributes it cannot
// honour: a real-time priority on a scale its kernel does not offer (rtprio(2)'s 0..31 under a
// Linux policy, sched_priority 99 under a FreeBSD one), a class it does not implement. A
// machine calls CheckAttr for the attributes of every thread its workload can create and every
// attribute change it can make, before anything runs, and refuses the run with the first error.
// A policy that maps an attribute onto something else (a FreeBSD policy folding POSIX levels)
// accepts it and documents the mapping.
type AttrChecker interface {
	CheckAttr(a Attr) error
}

// An ErrReporter is a Policy that can run something other than what it was asked for and
// knows it: a class it runs as another, a parameter that means nothing in the chosen version.
// A machine calls Err when a run ends and reports a non-nil answer with the run's results, so
// a run that did not do what was asked never looks like one that did. Refusing at Start or in
// CheckAttr is better where the policy can tell then; Err is for what only the run reveals.
type ErrReporter interface {
	Err() error
}

// A TicklessIdle is a Policy whose clock interrupts on an idle CPU do nothing for a while, which
// it can say in advance, so that the machine may leave them out, as a Linux kernel built with
// NO_HZ_IDLE stops the tick of a CPU that enters the idle loop (tick_nohz_idle_stop_tick) until
// the next timer it must serve.
//
// A machine calls IdleTickHorizon each time Pick for cpu returns false. The policy returns a
// time h with this promise: until cpu next runs a thread or is asked to reschedule (a Resched of
// cpu, from any call), a Tick on cpu at a time before h would change nothing a later call could
// observe and would call nothing of the Env. The machine then need not call Tick on cpu at times
// before h in that interval (bench/sim still counts those clock interrupts, so that results are
// the same with or without the promise, and can keep every call to check it). Returning now, or
// any time not after the next clock interrupt, keeps every Tick; math.MaxInt64 means none is
// needed.
type TicklessIdle interface {
	IdleTickHorizon(now int64, cpu topology.CPU) int64
}

// A Queuer is a Policy that can count the threads in its queues: the runnable threads that are
// not running. A machine that counts its own runnable threads (bench/sim's Machine.Check)
// compares the two after every event, which catches a policy that loses or duplicates a thread.
type Queuer interface {
	// Queued returns the number of threads in the policy's queues.
	Queued() int
}
