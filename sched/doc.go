// Package sched is the vocabulary and the contract shared by the scheduling policies (ule,
// bsd4, cfs) and the machines that drive them (the simulator in bench/sim, and any program of
// yours): thread identities and attributes, control groups, the reasons a thread leaves a CPU,
// the machine's configuration, the [Env] through which a policy asks the machine to reschedule
// a CPU, the [Policy] interface every policy's Scheduler satisfies with its optional
// extensions ([AttrChecker], [ErrReporter], [TicklessIdle], [Queuer]), and the [Family] value
// through which a policy package offers its presets to the harnesses.
//
// It holds no algorithm. It exists so that a policy package can state that it is a Policy
// without importing the simulator (var _ sched.Policy = (*Scheduler)(nil)), and so that the
// harnesses (bench/presets, bench/sim/simtest) can list, build and test every policy without a
// line of code per policy: the interface lives in this small shared package, and each policy
// package is a value, a Family. Like runq and topology it is a leaf: it imports only the
// standard library and topology.
//
// # The contract in one paragraph
//
// A machine owns time and the CPUs; a policy owns every run queue and every thread's scheduling
// state. The machine tells the policy what happened (a thread was created, woke up, stopped
// running, a clock interrupt arrived) and asks it one question (which thread should this CPU run
// now?). The policy answers and, whenever it decides that some CPU must switch (a woken thread
// preempts, a slice expired, a balancer moved work to an idle CPU), calls [Env.Resched] for that
// CPU, or [ReschedSetter.ReschedSet] for a set of CPUs when the machine offers it. Times are
// int64 nanoseconds of simulated time; nothing reads a wall clock.
//
// # One shape for every policy
//
// Every policy package (ule, bsd4, cfs, and the textbook's toy) is built in the same three
// layers, so that a reader who has learnt one finds the same things in the same places in the
// others, and so that the function a reader finds is the function that runs.
//
// Pure decisions. Each decision the kernel makes (which thread a CPU runs next, whether a
// woken thread preempts, which CPU a thread goes to, what an idle CPU steals) is one exported
// function written in the kernel's shape and named after the kernel function it follows:
//
//	func Pick(c *CPUState) (*Thread, PickReason)                              // tdq_choose
//	func ShouldPreempt(pri, cpri int, remote bool, p *Params) (bool, PreemptReason) // sched_shouldpreempt
//
// Its inputs are explicit: every parameter is read, and none must agree with state another
// argument already holds (a CPU's state that was built with its Params is not handed the
// Params a second time, a search that never reads its tunables does not take them). It
// returns its result and a reason: a small value type named after the decision (PickReason,
// PreemptReason, PickCPUReason, WakeReason, TickReason) whose String method formats it. The
// reason is always computed, because it is cheap; only its formatting waits until a machine
// records explanations (Env.Explaining), so explaining never changes which code runs. There is
// one implementation of each decision: the exported function is the one the Scheduler calls.
// Where large machines need a faster form, it lives in an internal package behind that same
// function, chosen by one documented rule (such as the machine's size), with the readable form
// as its reference in the equivalence tests.
//
// The System. One value holds all the state of one machine: the per-CPU queues, every
// thread's scheduling state, the counters the decisions read. It never sees an Env. Its
// mutators (add a thread, take one off a CPU, charge a tick, balance) call the pure decisions
// and return their effects as values (the CPUs to kick, the threads moved), so that a program
// without a simulator can drive a whole policy and look at every consequence.
//
// The Scheduler. A thin adapter from the [Policy] contract onto the System: it is the only
// caller of the Env (it turns the System's effects into Env.Resched calls and, when
// explaining, reasons into Env.Explain text), it translates thread IDs and [Attr] into the
// policy's own vocabulary, and it checks the contract, panicking on a machine's misuse with a
// message that starts with the package's name.
//
// The same surface in every policy package:
//
//	Params, DefaultParams() Params, (*Params) Validate() error  the kernel's tunables
//	Presets() []string, Preset(name) (Params, error)            the historical variants
//	Family() sched.Family                                       the package as bench/presets lists it
//	New(Params) (*Scheduler, error)                             an error names the first bad field
//	(*Scheduler) Start(Config, Env) error                       an error for a machine it cannot run on,
//	                                                            a nil Env, or a second Start
//	(*Scheduler) Params() Params                                the parameters in effect
//	(*Scheduler) System() *System                               all the state, for inspection
//	(*Scheduler) Thread(ID) (*T, bool)                          one thread's state; false if unknown or exited
//	(*Scheduler) CheckAttr(Attr) error, Err() error             what it cannot honour, before and after a run
//	ID = sched.ID                                               where the package's thread type carries an ID
//
// Time is the machine's int64 nanoseconds; a policy converts it into its kernel's ticks with
// [Ticks], which never overflows, and wraps the count as its kernel's counter does. A policy
// keeps its per-thread state in a [Threads] table (O(1) for any thread ID, dense or not), whose
// New hands out its records a chunk at a time from a [Slab], and checks every call against the
// contract with a [Contract], so that the same misuse panics with the same message in every
// policy; bench/sim/simtest's misuse list checks that for every family bench/presets lists.
// An enumeration (a rule, a state, a reason's kind) names its values from a table with
// [EnumName], which also formats a value the table does not name. The package toy is the whole
// template at its smallest.
//
// # Kernel names
//
//	kernel                                          sched
//	pid / struct thread / struct task_struct        ID
//	SCHED_OTHER, SCHED_BATCH, SCHED_IDLE,           Class: Normal, Batch, Idle, FIFO, RR
//	  SCHED_FIFO, SCHED_RR; FreeBSD rtprio classes
//	nice, sched_priority / rtprio, cpuset / cpus_ptr Attr
//	cgroup cpu.weight, cpu.idle                     Group
//	SW_VOL (sleep), SW_PREEMPT, sched_yield, exit   StopReason
//	WF_FORK, WF_SYNC                                WakeFlags
//	hz, stathz                                      Config
//	resched_curr / tdq_notify IPI / need_resched    Env.Resched
//	ipi_selected (FreeBSD)                          ReschedSetter.ReschedSet
//	struct sched_class (Linux), sched_*() (FreeBSD) Policy
//	NO_HZ_IDLE (tick_nohz_idle_stop_tick)           TicklessIdle
package sched
