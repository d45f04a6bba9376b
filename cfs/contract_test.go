package cfs_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim/simtest"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/sched"
)

// TestSharedMisuse runs the misuse list every policy package runs (simtest.CheckMisuse: the
// contract's breaches, each a panic or an error starting "cfs: ") on the default preset;
// bench/sim/simtest's TestFamilies runs it on every preset.
func TestSharedMisuse(t *testing.T) {
	simtest.CheckMisuse(t, "cfs", func() sched.Policy {
		s, err := cfs.New(cfs.DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
