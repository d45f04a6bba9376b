package bsd4_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim/simtest"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/sched"
)

// TestSharedMisuse runs the misuse list every policy package runs (simtest.CheckMisuse: the
// contract's breaches, each a panic or an error starting "bsd4: ") on the default preset;
// bench/sim/simtest's TestFamilies runs it on every preset.
func TestSharedMisuse(t *testing.T) {
	simtest.CheckMisuse(t, "bsd4", func() sched.Policy {
		s, err := bsd4.New(bsd4.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
