// Package golden checks a lesson's output against its reviewed golden file, so that every
// program under examples/ stays honest in go test ./... . Run a lesson's test with -update to
// rewrite its file after an intended change, and review the diff.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files with the current output")

// Check compares got with the file at path (relative to the test's package directory) byte
// for byte, or rewrites the file when the test runs with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the golden file: %v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s; run with -update and review the diff.\ngot:\n%s", path, got)
	}
}
