package sim

import (
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// Policy is a CPU scheduler as the machine sees it. The policy packages (ule, bsd4, cfs) each
// provide a Scheduler type that satisfies it by composing their own state and pure decisions;
// they do not import this package: the method signatures use only the types of packages sched
// and topology.
//
// The machine guarantees, and a policy may rely on:
//   - calls are made one at a time, never concurrently, with now (int64 nanoseconds of simulated
//     time) non-decreasing from call to call;
//   - Start comes first and exactly once; groups are added before any thread joins them;
//   - each CPU is either idle or running exactly one thread, the one the policy last returned
//     from Pick for that CPU; Pick is called only for a CPU with no current thread;
//   - Stop is called only for a CPU's current thread, and is followed by Pick for that CPU;
//   - Wakeup is called only for a thread that is not runnable: after Fork, or after Stop with
//     sched.Sleep; after Stop with sched.Exit the thread is never mentioned again;
//   - Tick is called on every CPU, idle or busy, TickHz times per second of simulated time.
//
// The policy owns every run queue and every thread's scheduling state. It reports the decisions
// that change what a CPU should run through the sched.Env given to Start: Resched(cpu) makes the
// machine stop cpu's current thread (Stop with sched.Preempt) and call Pick again, or wake an
// idle cpu and call Pick. Work the policy moves between its queues (stealing, balancing) is
// invisible to the machine until a Pick hands it out.
type Policy interface {
	// Name returns a short name for reports, such as "ule-main" or "cfs-v6.5".
	Name() string
	// Start prepares the policy for the machine described by cfg and keeps env for later calls.
	// It returns an error if the policy cannot run on that machine.
	Start(cfg sched.Config, env sched.Env) error
	// TickHz returns how many times per second the machine calls Tick on each CPU: FreeBSD's
	// policies account in stathz ticks, Linux's at hz.
	TickHz() int
	// AddGroup creates the control group g. A policy without group scheduling returns an error.
	AddGroup(g sched.Group) error
	// Fork creates thread tid, not yet runnable, with attributes attr. parent is the creating
	// thread, or -1 when the machine creates it; cpu is the CPU the creation happens on.
	Fork(now int64, tid, parent sched.ID, cpu topology.CPU, attr sched.Attr)
	// Wakeup makes tid runnable: the policy chooses its CPU, queues it, and calls Resched for
	// any CPU that should switch to it. from is the CPU of the waker (the parent's for a
	// sched.WakeFork wake-up).
	Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags)
	// Pick removes from the policy's queues the thread cpu should run now and returns it; it
	// reports false if cpu should idle. Pick may steal from other CPUs' queues first, as an
	// idle CPU does.
	Pick(now int64, cpu topology.CPU) (sched.ID, bool)
	// Stop tells the policy that tid, running on cpu, stops running for reason why. For
	// sched.Preempt and sched.Yield the policy queues it again.
	Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason)
	// Tick is a clock interrupt on cpu: the policy charges the running thread, and may
	// reschedule, balance or steal.
	Tick(now int64, cpu topology.CPU)
	// SetAttr changes tid's attributes (nice, class, real-time priority, affinity) at now; tid may
	// be running, queued or asleep.
	SetAttr(now int64, tid sched.ID, attr sched.Attr)
}
