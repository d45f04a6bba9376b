package main

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/compare.golden with the current output")

// TestGolden keeps the example honest: its output must match the reviewed golden file byte for
// byte. Run go test ./examples/simcompare -update after an intended change and review the diff.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/compare.golden"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading the golden file: %v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("output differs from %s; run with -update and review the diff.\ngot:\n%s", golden, buf.String())
	}
}
