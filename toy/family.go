package toy

// This file implements Family, the toy as one policy family among the others.

import "github.com/schedkit/schedkit/sched"

// Family returns the toy as a policy family named "toy": the presets "fifo", "rr" and "sjf",
// built by [New]; "fifo" and "sjf" never preempt a running thread. bench/presets lists it, which
// is all it takes for the simulator, the command line and the shared tests to run it.
func Family() sched.Family {
	f := sched.NewFamily("toy", presets, New)
	f.NonPreemptive = []string{"fifo", "sjf"}
	return f
}

var (
	_ sched.Policy = (*Scheduler)(nil)
	_ sched.Queuer = (*Scheduler)(nil)
)
