package toy

// This file implements Thread, the toy's per-thread state.

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// ID identifies a thread: it is sched.ID under this package's name, so that a program that
// builds Threads imports only toy to set Thread.ID from a variable (toy.ID(i)).
type ID = sched.ID

// A ThreadState is where a thread is.
type ThreadState uint8

const (
	Blocked ThreadState = iota // not runnable: new, asleep or exited
	Queued                     // on the queue
	Running                    // a CPU's current thread
)

var stateNames = [...]string{Blocked: "blocked", Queued: "queued", Running: "running"}

// String returns "blocked", "queued" or "running".
func (s ThreadState) String() string { return sched.EnumName(stateNames[:], s, "ThreadState") }

// A Thread is one thread's state.
type Thread struct {
	// ID identifies the thread.
	ID ID
	// Length is the run it declared (sched.Attr.Slice, nanoseconds), the key of SJF; 0 is
	// unknown, which SJF treats as longer than any declared run.
	Length int64
	// Affinity is the set of CPUs it may run on; empty means every CPU.
	Affinity topology.CPUSet
	// State is where it is.
	State ThreadState
	// CPU is the CPU running it, when Running.
	CPU topology.CPU
	// Arrival orders the queue: the number of earlier arrivals on it (FIFO's order, SJF's and
	// RR's tie-break).
	Arrival uint64
	// Ran is the clock ticks it has run since it was last picked (RR's quantum).
	Ran int
}

// Allowed reports whether t may run on cpu.
func (t *Thread) Allowed(cpu topology.CPU) bool { return t.Affinity.IsEmpty() || t.Affinity.Has(cpu) }

// String formats t as "t3(queued)".
func (t *Thread) String() string { return fmt.Sprintf("%v(%v)", t.ID, t.State) }
