package bsd4_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/simtest"
	"github.com/schedkit/schedkit/bsd4"
)

// TestConformance runs the 4BSD presets through the simulator's conformance test of the Policy
// contract (4BSD has no group scheduling: the groups scenario runs flattened).
func TestConformance(t *testing.T) {
	for _, p := range []bsd4.Params{bsd4.DefaultParams(), bsd4.FreeBSD14Params(), bsd4.FreeBSD9Params()} {
		t.Run(p.Name, func(t *testing.T) {
			simtest.CheckPolicy(t, func() sim.Policy {
				s, err := bsd4.New(p)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}, simtest.Options{})
		})
	}
}
