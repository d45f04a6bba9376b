package cfs_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/simtest"
	"github.com/schedkit/schedkit/cfs"
)

// TestConformance runs classic CFS (v6.5) and EEVDF (v6.6, v7.1) through the
// simulator's conformance test of the Policy contract, with control groups.
func TestConformance(t *testing.T) {
	for _, o := range []cfs.SchedulerOptions{{Version: cfs.V65}, {Version: cfs.V66}, {Version: cfs.V71}} {
		name := cfs.NewScheduler(o).Name()
		t.Run(name, func(t *testing.T) {
			simtest.CheckPolicy(t, func() sim.Policy { return cfs.NewScheduler(o) }, simtest.Options{Groups: true})
		})
	}
}
