package ule_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim/simtest"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/ule"
)

// TestSharedMisuse runs the misuse list every policy package runs (simtest.CheckMisuse: the
// contract's breaches, each a panic or an error starting "ule: ") on the default preset;
// bench/sim/simtest's TestFamilies runs it on every preset.
func TestSharedMisuse(t *testing.T) {
	simtest.CheckMisuse(t, "ule", func() sched.Policy {
		s, err := ule.New(ule.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
