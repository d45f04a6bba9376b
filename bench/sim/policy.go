package sim

import "github.com/schedkit/schedkit/sched"

// Policy is a CPU scheduler as the machine sees it: the contract of [sched.Policy], which the
// policy packages (ule, bsd4, cfs) satisfy without importing this package. It is an alias, so
// that a sched.Policy is a sim.Policy and this package's users need not import sched to name
// one. What the contract promises a policy, and expects of it, is documented on sched.Policy;
// this machine adds the following.
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
// The optional interfaces the machine looks for are those of package sched, also aliased here:
// [AttrChecker] (asked about every attribute set of the workload before the run; the first
// refusal, naming the thread and the op, is New's error), [ErrReporter] (Result.PolicyErr, in
// [Result.Err]), [TicklessIdle] (idle ticks left out unless Config.EveryTick; still counted in
// CPUStats.Ticks) and [Queuer].
type Policy = sched.Policy

// AttrChecker is [sched.AttrChecker]: a Policy that refuses, before a run, the thread attributes
// it cannot honour. The machine asks about the attributes of every declaration and every
// attribute change of its scripts, and New returns the first refusal, naming the thread.
type AttrChecker = sched.AttrChecker

// ErrReporter is [sched.ErrReporter]: a Policy that knows when it ran something other than what
// it was asked. The machine reports its Err through Result.PolicyErr and [Result.Err].
type ErrReporter = sched.ErrReporter

// TicklessIdle is [sched.TicklessIdle]: a Policy that can say in advance that an idle CPU's
// clock interrupts will do nothing for a while. The machine leaves those calls out (unless
// Config.EveryTick) and still counts the interrupts in CPUStats.Ticks, so that results are the
// same either way.
type TicklessIdle = sched.TicklessIdle

// Queuer is [sched.Queuer]: a Policy that can count its queued threads, which [Machine.Check]
// compares with the machine's count of runnable threads that are not running.
type Queuer = sched.Queuer
