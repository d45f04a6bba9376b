package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestHost runs a small workload as real threads on this machine beside its model: the table
// has the kernel's column and the model's, every thread a row.
func TestHost(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the host runner needs Linux")
	}
	if testing.Short() {
		t.Skip("runs real threads for a fraction of a second")
	}
	out, errs, code := runCLI(t, "host", "-until", "300ms", "-policy", "cfs:v7.1", "workloads/mixed.wl")
	if code != exitOK {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "thread ") || !strings.Contains(lines[0], "linux ") || !strings.Contains(lines[0], "cfs-v7.1 (model)") {
		t.Errorf("header %q, want the kernel's column and the model's", lines[0])
	}
	for _, n := range []string{"hog.0", "hog.3", "ticker", "producer", "consumer"} {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, n+" ")
		}
		if !found {
			t.Errorf("no row for %s:\n%s", n, out)
		}
	}
	if !strings.Contains(out, "load average") {
		t.Errorf("the table does not say how loaded the machine was:\n%s", out)
	}
}
