package simtest_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim/simtest"
)

// TestFamilies runs the conformance test on every preset of every family bench/presets lists:
// a policy package listed there is tested here without a test of its own.
func TestFamilies(t *testing.T) {
	for _, f := range presets.Families() {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			simtest.CheckFamily(t, f, simtest.Options{})
		})
	}
}
