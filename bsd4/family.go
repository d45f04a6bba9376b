package bsd4

// This file implements Family, 4BSD as one policy family among the others, with the knob
// presets seed 002 turns.

import (
	"slices"

	"github.com/schedkit/schedkit/sched"
)

// knobs are the presets Family adds to [Presets]: FreeBSD 14 with options PREEMPTION off, and
// with PREEMPTION and IPI_PREEMPTION on, the two kernels seed 002 compares.
var knobs = sched.Presets[Params]{
	{Name: "freebsd14-nopreemption", Params: func() Params { return preemption(false) }},
	{Name: "freebsd14+ipi-preemption", Params: func() Params { return preemption(true) }},
}

// preemption returns FreeBSD14Params with options PREEMPTION and IPI_PREEMPTION both on or
// both off.
func preemption(on bool) Params {
	p := FreeBSD14Params()
	p.Preemption, p.IPIPreemption = on, on
	p.Name = "4bsd-14-nopreemption"
	if on {
		p.Name = "4bsd-14-ipi-preemption"
	}
	return p
}

// Family returns 4BSD as a policy family named "bsd4": the presets of [Presets] and the knob
// presets "freebsd14-nopreemption" and "freebsd14+ipi-preemption" (seed 002), each built by
// [New]. 4BSD has no group scheduling. bench/presets lists it; bench/sim/simtest runs the
// conformance tests on every preset of it.
func Family() sched.Family { return sched.NewFamily("bsd4", slices.Concat(presets, knobs), New) }

var _ sched.Policy = (*Scheduler)(nil)
