package main

import (
	"bytes"
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/examples/internal/golden"
)

// TestGolden keeps the example honest: its output must match the reviewed golden file byte for
// byte. Run go test ./examples/simcompare -update after an intended change and review the diff.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf, sim.DefaultProfile()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/compare.golden", buf.Bytes())
}

// TestGoldenIdeal is the same on the ideal machine (-ideal), where a wake-up costs nothing.
func TestGoldenIdeal(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf, sim.IdealProfile()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/compare-ideal.golden", buf.Bytes())
}
