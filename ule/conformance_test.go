package ule_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/simtest"
	"github.com/schedkit/schedkit/ule"
)

// TestConformance runs every ULE preset through the simulator's conformance test of the Policy
// contract (ULE has no group scheduling: the groups scenario runs flattened).
func TestConformance(t *testing.T) {
	for _, name := range ule.Presets() {
		p, err := ule.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			simtest.CheckPolicy(t, func() sim.Policy {
				s, err := ule.New(p)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}, simtest.Options{})
		})
	}
}
