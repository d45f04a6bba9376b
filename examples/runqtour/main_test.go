package main

import (
	"bytes"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/golden"
)

// TestGolden keeps the lesson honest: its output must match the reviewed golden file byte for
// byte. Run go test ./examples/runqtour -update after an intended change and review the diff.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	run(&buf)
	golden.Check(t, "testdata/tour.golden", buf.Bytes())
}
