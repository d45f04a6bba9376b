package sched

// This file implements Contract, the checks every policy makes of a machine's calls, with the
// standard messages of their panics.

import (
	"fmt"

	"github.com/schedkit/schedkit/topology"
)

// A Contract checks a machine's calls against the [Policy] contract on behalf of one policy
// package, whose name starts every panic message. Each policy's Scheduler (or, for a policy
// whose System is driven directly, its System) keeps one and calls it at the top of each
// method, so that the same misuse reads the same in every policy:
//
//	ule: Pick before Start
//	ule: Pick on cpu7, which is not in the machine
//	ule: Tick at 5, before the machine's time 9
//	ule: Fork of t5 with invalid attributes: sched: nice 40 outside -20..20
//	ule: Fork of t5 with affinity 9, which holds no CPU of the machine
//	ule: Fork of t5 by unknown parent t9
//	ule: Wakeup of t3 with unknown flags 0x8
//	ule: Stop of t3 with unknown reason 9
//
// (The thread table's own misuse, an unknown or repeated thread ID, is [Threads]'.) The checks
// that run on every call (CPU, Time) inline into their callers and cost a compare or two; the
// panics are out of line. Set Pkg before the first call; Start the Contract with the machine.
type Contract struct {
	// Pkg names the policy package in every message, such as "ule".
	Pkg  string
	cpus CPUTable
	all  topology.CPUSet
	now  int64
}

// Start records the machine's CPUs; the checks of CPUs and attributes need them.
func (c *Contract) Start(t *topology.Topology) {
	c.cpus = NewCPUTable(t)
	c.all = t.CPUs()
}

// Started reports whether Start was called.
func (c *Contract) Started() bool { return len(c.cpus.in) > 0 }

// CPU panics unless cpu is a CPU of the machine (see [CPUTable.Check]); op names the method.
func (c *Contract) CPU(op string, cpu topology.CPU) {
	if uint(cpu) >= uint(len(c.cpus.in)) || !c.cpus.in[cpu] {
		c.badCPU(op, cpu)
	}
}

//go:noinline
func (c *Contract) badCPU(op string, cpu topology.CPU) { c.cpus.bad(c.Pkg, op, cpu) }

// Time panics unless now is at or after the time of every earlier call it saw: the contract
// makes the machine's time non-decreasing from call to call. It records now.
func (c *Contract) Time(op string, now int64) {
	if now < c.now {
		c.backwards(op, now)
	}
	c.now = now
}

//go:noinline
func (c *Contract) backwards(op string, now int64) {
	panic(fmt.Sprintf("%s: %s at %d, before the machine's time %d", c.Pkg, op, now, c.now))
}

// Now returns the latest time a call was made at.
func (c *Contract) Now() int64 { return c.now }

// Attr panics unless a is valid ([Attr.Validate]) and its affinity, when not empty, holds a CPU
// of the machine; op names the method and tid the thread.
func (c *Contract) Attr(op string, tid ID, a *Attr) {
	if err := a.check(); err != nil {
		c.badAttr(op, tid, err)
	}
	if !a.Affinity.IsEmpty() && !a.Affinity.Overlaps(c.all) {
		c.badAffinity(op, tid, a.Affinity)
	}
}

//go:noinline
func (c *Contract) badAttr(op string, tid ID, err error) {
	panic(fmt.Sprintf("%s: %s of %v with invalid attributes: %v", c.Pkg, op, tid, err))
}

//go:noinline
func (c *Contract) badAffinity(op string, tid ID, aff topology.CPUSet) {
	panic(fmt.Sprintf("%s: %s of %v with affinity %v, which holds no CPU of the machine", c.Pkg, op, tid, aff))
}

// Parent panics unless parent is -1 (a thread the machine creates) or exists says so: a
// child's parent is a thread the policy knows.
func (c *Contract) Parent(tid, parent ID, exists bool) {
	if parent != -1 && !exists {
		c.fail("%s: Fork of %v by unknown parent %v", tid, parent)
	}
}

// Fork makes the checks of a Fork of thread tid by parent on cpu at now with attributes a, in
// the order the policies make them: [Contract.Time], [Contract.CPU], [Contract.Attr] and
// [Contract.Parent], parentExists saying whether parent is a thread the policy knows.
func (c *Contract) Fork(now int64, tid, parent ID, cpu topology.CPU, a *Attr, parentExists bool) {
	c.Time("Fork", now)
	c.CPU("Fork", cpu)
	c.Attr("Fork", tid, a)
	c.Parent(tid, parent, parentExists)
}

// WakeFlags panics if f has a bit other than WakeFork and WakeSync.
func (c *Contract) WakeFlags(tid ID, f WakeFlags) {
	if f&^(WakeFork|WakeSync) != 0 {
		c.fail("%s: Wakeup of %v with unknown flags %#x", tid, uint8(f))
	}
}

// StopReason panics if why is not one of Sleep, Preempt, Yield and Exit.
func (c *Contract) StopReason(tid ID, why StopReason) {
	if why > Exit {
		c.fail("%s: Stop of %v with unknown reason %d", tid, uint8(why))
	}
}

// fail panics with format, whose first verb is the package's name, and args; out of line, so
// that the checks stay small.
//
//go:noinline
func (c *Contract) fail(format string, args ...any) {
	panic(fmt.Sprintf(format, append([]any{c.Pkg}, args...)...))
}
