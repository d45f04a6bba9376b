package ule

// This file implements Family, ULE as one policy family among the others.

import "github.com/schedkit/schedkit/sched"

// Family returns ULE as a policy family named "ule": its presets are those of [Presets], each
// built by [New]. ULE has no group scheduling. bench/presets lists it; bench/sim/simtest runs
// the conformance tests on every preset of it.
func Family() sched.Family { return sched.NewFamily("ule", presets, New) }

var _ sched.Policy = (*Scheduler)(nil)
