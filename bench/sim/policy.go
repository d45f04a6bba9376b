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
//
// # What the machine adds to that contract
//
// Time and order. Events of the same instant are handled in the order they were scheduled, and
// everything an event causes happens at that instant before the next event. Thread ids are
// given in order of creation, from 0. Clock interrupts come at k/TickHz seconds (k = 1, 2, …,
// rounded down to the nanosecond), on every CPU at the same instants, in ascending CPU order;
// with a Costs.Tick the interrupted thread makes no progress for that long.
//
// Reschedules are deferred, never re-entrant. A Resched made during a call takes effect after the
// call returns: at once (still at now) for the CPU the call is about (the CPU of Tick, Pick,
// Stop, of SetAttr's thread, the from of Wakeup, the cpu of Fork) or when IPIs cost nothing;
// for any other CPU, Costs.IPI later. Pending reschedules of the same instant run in the order
// they were asked for. A Resched for a CPU that is already due to reschedule, or that picks
// before the IPI arrives, has no further effect. A reschedule of a busy CPU is Stop(Preempt)
// followed by Pick; if Pick returns the same thread, nothing else happens (no switch is
// recorded).
//
// Who calls what, when:
//   - creation: Fork, then at once Wakeup with sched.WakeFork, from the CPU of Fork (the
//     parent's, or the machine's first CPU for the threads a workload starts with);
//   - blocking (sleep, an empty or full pipe, a join): Stop(sched.Sleep), then Pick;
//   - yield: Stop(sched.Yield), then Pick (which may return the same thread);
//   - exit: the parent, if it waits for its last child, is woken first (Wakeup), then
//     Stop(sched.Exit), then Pick;
//   - waking: a pipe wakes its first blocked reader or writer with sched.WakeSync from the CPU of
//     the thread that made room or sent; the end of a sleep wakes the thread from the CPU it last
//     ran on, with no flags; a finished join from the exiting child's CPU;
//   - SetAttr is called for the running thread when its script changes its nice value, class,
//     affinity or group; if the new affinity excludes its CPU, the machine itself then
//     reschedules that CPU, as the kernels' affinity code moves a running thread (the policy
//     must queue the thread where it may run and notify that CPU).
//
// What the machine checks. Pick must return a thread that is runnable (woken, or stopped with
// Preempt or Yield, and not picked since) and allowed on the CPU by its affinity; anything else
// is recorded as a ThreadConservation violation and the CPU idles. A policy that also implements
// [Queuer] lets [Machine.Check] compare its count of queued threads with the machine's. A
// Resched for a CPU that is not on the machine panics.
//
// What a policy must not assume. The machine does not call Pick on an idle CPU by itself: a
// runnable thread reaches an idle CPU only through a Resched (from Wakeup, Stop, Tick or
// another Pick). It does not call Stop for a thread whose run simply continues across a clock
// interrupt. It does not tell the policy how much work a thread has left.
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

// An AttrChecker is a Policy that can say, before a run, which thread attributes it cannot
// honour: a real-time priority on a scale its kernel does not offer (rtprio(2)'s 0..31 under a
// Linux policy, sched_priority 99 under a FreeBSD one), a class it does not implement. The
// machine calls CheckAttr for the attributes of every thread the workload can create and every
// attribute change its scripts can make, before anything runs, and refuses the run with the
// first error, naming the thread. A policy that maps an attribute onto something else (a
// FreeBSD policy folding POSIX levels) accepts it and documents the mapping.
type AttrChecker interface {
	CheckAttr(a sched.Attr) error
}

// An ErrReporter is a Policy that can run something other than what it was asked for and
// knows it: a class it runs as another, a parameter that means nothing in the chosen version.
// The machine calls Err when a run ends and reports a non-nil answer through Result.Err, so a
// run that did not do what was asked never looks like one that did. Refusing at Start is
// better where the policy can tell then; Err is for what only the run reveals.
type ErrReporter interface {
	Err() error
}

// A TicklessIdle is a Policy whose clock interrupts on an idle CPU do nothing for a while, which
// it can say in advance, so that the machine may leave them out, as a Linux kernel built with
// NO_HZ_IDLE stops the tick of a CPU that enters the idle loop (tick_nohz_idle_stop_tick) until
// the next timer it must serve.
//
// The machine calls IdleTickHorizon each time Pick for cpu returns false. The policy returns a
// time h with this promise: until cpu next runs a thread or is asked to reschedule (a Resched of
// cpu, from any call), a Tick on cpu at a time before h would change nothing a later call could
// observe and would call nothing of the Env. The machine then does not call Tick on cpu at times
// before h in that interval; it still counts those clock interrupts, as events and in
// CPUStats.Ticks, so that results are the same with or without the policy's promise
// (Config.EveryTick keeps every call, to check it). Returning now, or any time not after the
// next clock interrupt, keeps every Tick; math.MaxInt64 means none is needed.
type TicklessIdle interface {
	IdleTickHorizon(now int64, cpu topology.CPU) int64
}
