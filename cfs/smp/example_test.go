package smp_test

import (
	"fmt"

	"github.com/schedkit/schedkit/cfs/smp"
)

// A CPU's figures as the SMP decisions read them: one with nothing queued is idle
// (idle_cpu); one whose every queued task is in an idle group or SCHED_IDLE counts as idle
// for placement (sched_idle_cpu); one running a normal task is neither.
func ExampleCPUStat() {
	for _, st := range []smp.CPUStat{
		{Capacity: 1024},
		{NrRunning: 2, HNrRunning: 2, IdleHNrRunning: 2, Load: 6, Capacity: 1024},
		{NrRunning: 1, HNrRunning: 1, Load: 1024, Capacity: 1024},
	} {
		fmt.Printf("nr_running %d, idle %d: idle %t, idle only %t\n", st.NrRunning, st.IdleHNrRunning, st.Idle(), st.IdleOnly())
	}
	// Output:
	// nr_running 0, idle 0: idle true, idle only false
	// nr_running 2, idle 2: idle false, idle only true
	// nr_running 1, idle 0: idle false, idle only false
}
