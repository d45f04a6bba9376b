// Package toy is the smallest complete scheduling policy of the module, the three rules an
// operating-systems course starts with (OSTEP, "Scheduling: Introduction", chapter 7), over
// one global queue:
//
//   - FIFO: first in, first out; a thread keeps its CPU until it blocks or exits;
//   - SJF: shortest job first; among the waiting threads the one that declared the shortest
//     run (its sched.Attr.Slice, the runtime a program declares as SCHED_DEADLINE's
//     sched_attr.sched_runtime does) runs next, and keeps its CPU as under FIFO;
//   - RR: round robin; FIFO order, but a thread that has run for a quantum of clock ticks goes
//     to the tail of the queue when another thread waits.
//
// It exists to show the shape every policy of the module has (package sched's "One shape for
// every policy"), at a size a student reads in one sitting, and that a new policy is one
// package and one line: it is listed in bench/presets as the family "toy" ("toy:fifo",
// "toy:sjf", "toy:rr"), and by that one line the simulator, the command line and the shared
// conformance and misuse tests of bench/sim/simtest all take it.
//
// # The three layers
//
// The decisions are pure functions: [Pick] chooses the next thread from a queue for a CPU, and
// [Expired] says whether a running thread's quantum is over; each returns its reason, whose
// String explains it. A [System] holds all the state of one machine (the queue, the threads,
// what each CPU runs) and changes it only through methods that call the decisions and return
// what the machine must do, the CPU to reschedule, as a value. A [Scheduler] is the thin
// adapter a machine drives through sched.Policy: it checks the contract (sched.Contract,
// sched.Threads, with the standard panics), calls the System and turns its answers into
// sched.Env calls.
//
// # What it leaves out
//
// One class of service: nice values, scheduling classes and control groups are accepted and
// ignored (AddGroup refuses a group, so harnesses run a workload's groups flattened), as the
// textbook's toy schedulers have none. Affinity is honoured: a thread runs only on the CPUs its
// attributes allow. FIFO and SJF never preempt, so CPU hogs starve the threads behind them; the
// shared conformance tests check the contract on them but not the goals that need time
// slicing (sched.Family.NonPreemptive). A woken thread goes to the first idle CPU it may run
// on, lowest first; there is no balancing, since there is one queue.
//
// # Names
//
//	textbook (OSTEP ch. 7)                  toy
//	the ready queue                         System (its queue), Scheduler
//	FIFO, SJF, RR                           Rule: FIFO, SJF, RR; Presets "fifo", "sjf", "rr"
//	the job's length (known in advance)     sched.Attr.Slice, as declared runtime
//	time slice (quantum)                    Params.Quantum, in clock ticks
//	the dispatcher's choice                 Pick, PickReason
//	the timer interrupt's "time's up"       Expired, TickReason
package toy
