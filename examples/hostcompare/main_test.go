package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"testing"

	"github.com/schedkit/schedkit/bench/host"
)

var update = flag.Bool("update", false, "rewrite testdata/model.golden with the current output")

// TestGolden keeps the example honest: the models' half of its table (deterministic) must
// match the reviewed golden file byte for byte. Run go test ./examples/hostcompare -update
// after an intended change and review the diff.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := host.WriteTable(context.Background(), &buf, host.ModelOnlyTable(), ""); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/model.golden"
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
