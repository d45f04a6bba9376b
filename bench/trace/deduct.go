package trace

// This file implements the deduction of a replay machine's costs from a trace's runs: what the
// recording kernel spent inside a task's run (switching into it, refilling its caches, waking
// others, the clock interrupts) is in the run's recorded time; a replay on a machine that
// charges those steps itself would count them twice.

import (
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// deductions are the mean costs (sim.Cost.Mean) a replay machine charges a thread at each step
// the trace shows inside a run, as bench/sim's Machine.pickStall and its wake-up paths charge
// them.
type deductions struct {
	sw, switchMM, refill, wakeup, ipiSend int64
	migration                             sim.MigrationCosts
	topo                                  *topology.Topology
	// tick is the mean clock interrupt; period the clock's period, both in nanoseconds.
	tick, period int64
}

// newDeductions returns the deductions of o's costs, or nil if o asks for none.
func newDeductions(o *ImportOptions) *deductions {
	if o == nil || o.Costs == nil || *o.Costs == (sim.Costs{}) {
		return nil
	}
	k := o.Costs
	hz := o.Hz
	if hz <= 0 {
		hz = sim.DefaultHz
	}
	return &deductions{sw: int64(k.Switch.Mean()), switchMM: int64(k.SwitchMM.Mean()), refill: int64(k.Refill.Mean()),
		wakeup: int64(k.Wakeup.Mean()), ipiSend: int64(k.IPISend.Mean()), migration: k.Migration, topo: o.Topology,
		tick: int64(k.Tick.Mean()), period: int64(time.Second) / int64(hz)}
}

// switchIn returns what the machine charges tk switched in on cpu after last (nil: nothing ran
// there yet), as Machine.pickStall does: the refill by the level crossed if tk moved, else a
// refill if other threads ran there since tk; the switch unless tk ran there last; and the
// address-space switch from another task (an imported task is a process of its own). The idle
// loop's exit is not in a run (it comes before the switch the trace shows) and is not deducted.
func (d *deductions) switchIn(last, tk *task, cpu int) int64 {
	var n int64
	switch {
	case tk.cpu >= 0 && tk.cpu != cpu:
		n += int64(d.migration.At(d.level(tk.cpu, cpu)).Mean())
	case tk.cpu >= 0 && last != tk:
		n += d.refill
	}
	if last != tk {
		n += d.sw
		if last != nil {
			n += d.switchMM
		}
	}
	return n
}

// level returns the closest level CPUs a and b share on the replay machine: on Topology, or,
// without one (or for CPUs it lacks), the last level cache, which the default replay machine
// ("package:1 node:1 llc:1 cpu:N") has every CPU share.
func (d *deductions) level(a, b int) topology.Level {
	if t := d.topo; t != nil && a < t.NumCPUs() && b < t.NumCPUs() {
		return t.SharedLevel(topology.CPU(a), topology.CPU(b))
	}
	return topology.LLC
}

// shorten returns a burst of run nanoseconds less the costs owed before it and the clock
// interrupts the replay machine charges in that much running (run × Tick / period), and what
// is still owed when the costs exceed the burst.
func (d *deductions) shorten(run, owed int64) (left, stillOwed int64) {
	owed += run/d.period*d.tick + run%d.period*d.tick/d.period
	if owed >= run {
		return 0, owed - run
	}
	return run - owed, 0
}
