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
