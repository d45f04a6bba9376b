package toy

// This file implements the toy's two decisions: which thread a CPU runs next (the dispatcher),
// and whether a running thread's time is up (the timer interrupt).

import (
	"fmt"

	"github.com/schedkit/schedkit/topology"
)

// A PickReason explains a [Pick]: the rule, the CPU, the thread chosen (-1 for none), its
// declared length under SJF, and how many waiting threads the CPU may not run.
type PickReason struct {
	Rule    Rule
	CPU     topology.CPU
	Thread  ID
	Length  int64
	Skipped int
}

// String explains the choice, for example "cpu0 runs t2: the first in line (fifo)".
func (r PickReason) String() string {
	skipped := ""
	if r.Skipped > 0 {
		skipped = fmt.Sprintf("; %d waiting may not run here", r.Skipped)
	}
	switch {
	case r.Thread < 0:
		return fmt.Sprintf("%v idles: nothing it may run waits%s", r.CPU, skipped)
	case r.Rule == SJF && r.Length > 0:
		return fmt.Sprintf("%v runs %v: the shortest declared job, %d ns (sjf)%s", r.CPU, r.Thread, r.Length, skipped)
	case r.Rule == SJF:
		return fmt.Sprintf("%v runs %v: the first in line, no job declares a length (sjf)%s", r.CPU, r.Thread, skipped)
	}
	return fmt.Sprintf("%v runs %v: the first in line (%v)%s", r.CPU, r.Thread, r.Rule, skipped)
}

// Pick is the dispatcher: it returns the index in queue (the waiting threads, in the order they
// arrived) of the thread cpu runs next, or -1 if cpu must idle. Only threads whose affinity
// allows cpu count. FIFO and RR take the first of them; SJF the one with the shortest declared
// Length, a Length of 0 (none declared) counting as longer than any, ties going to the earlier
// arrival. Pick changes nothing. The complexity is O(len(queue)).
func Pick(queue []*Thread, cpu topology.CPU, p *Params) (int, PickReason) {
	r := PickReason{Rule: p.Rule, CPU: cpu, Thread: -1}
	best := -1
	for i, t := range queue {
		if !t.Allowed(cpu) {
			r.Skipped++
			continue
		}
		if best < 0 || p.Rule == SJF && shorter(t.Length, queue[best].Length) {
			best = i
			if p.Rule != SJF {
				break // the first allowed is FIFO's and RR's choice
			}
		}
	}
	if best >= 0 {
		r.Thread, r.Length = queue[best].ID, queue[best].Length
	}
	return best, r
}

// shorter reports whether declared length a is shorter than b, 0 being unknown (the longest).
func shorter(a, b int64) bool {
	return a > 0 && (b == 0 || a < b)
}

// A TickReason explains an [Expired]: the rule, the ticks run, the quantum and whether a thread
// was waiting.
type TickReason struct {
	Rule    Rule
	Ran     int
	Quantum int
	Waiting bool
}

// String explains the check, for example "ran 10 of 10 ticks with threads waiting: quantum
// over (rr)".
func (r TickReason) String() string {
	switch {
	case r.Rule != RR:
		return fmt.Sprintf("%v runs a thread until it blocks or exits", r.Rule)
	case r.Ran < r.Quantum:
		return fmt.Sprintf("ran %d of %d ticks (rr)", r.Ran, r.Quantum)
	case !r.Waiting:
		return fmt.Sprintf("ran %d of %d ticks, nothing waits: it goes on (rr)", r.Ran, r.Quantum)
	}
	return fmt.Sprintf("ran %d of %d ticks with threads waiting: quantum over (rr)", r.Ran, r.Quantum)
}

// Expired is the timer interrupt's check: whether a thread that has run ran clock ticks since it
// was picked must give its CPU up, waiting telling whether a thread waits that the CPU could
// run. Only RR ever says so, once ran reaches p.Quantum.
func Expired(ran int, waiting bool, p *Params) (bool, TickReason) {
	r := TickReason{Rule: p.Rule, Ran: ran, Quantum: p.Quantum, Waiting: waiting}
	return p.Rule == RR && waiting && ran >= p.Quantum, r
}
