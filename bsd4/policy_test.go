package bsd4_test

import (
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
)

// The Scheduler satisfies the simulator's Policy interface; the package itself does not import
// bench/sim (the interface is written in sched and topology types).
var _ sim.Policy = (*bsd4.Scheduler)(nil)
