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
	for _, name := range cfs.Presets() {
		p, err := cfs.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			simtest.CheckPolicy(t, func() sim.Policy {
				s, err := cfs.New(p)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}, simtest.Options{Groups: true})
		})
	}
}
