package main

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

func TestLimitInput(t *testing.T) {
	for _, tc := range []struct {
		n        int
		budget   int64
		tooLarge bool
	}{{100, 800, false}, {101, 800, true}, {100000, 0, false}, {0, 8, false}} {
		b, err := io.ReadAll(limitInput(strings.NewReader(strings.Repeat("x", tc.n)), "in", tc.budget, 8))
		var big *errTooLarge
		if errors.As(err, &big) != tc.tooLarge || !tc.tooLarge && (err != nil || len(b) != tc.n) {
			t.Errorf("%d bytes with a budget of %d: %d bytes, %v; want too large = %v", tc.n, tc.budget, len(b), err, tc.tooLarge)
		}
	}
}

// TestMemoryWatchdog runs a command whose work grows past -max-memory although its estimate
// fits (run -o keeps the whole trace): the watchdog stops it, and it exits 1 with one line naming
// -max-memory.
func TestMemoryWatchdog(t *testing.T) {
	if testing.Short() {
		t.Skip("runs until 32 MiB of trace are kept")
	}
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runCLI(t, "run", "-q", "-policy", "cfs", "-max-memory", "32MiB", "-o", out, "-until", "24h", "workloads/mixed.wl")
	if code != exitFailure || !strings.Contains(stderr, "more than -max-memory 32MiB") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("status %d, stderr %q; want 1 and one line naming -max-memory 32MiB", code, stderr)
	}
}
