package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkRun measures run on a million-record run (hackbench on 4 CPUs for 4 s of simulated
// time: 1.12 million trace records): impl=simulate is the simulation and the table alone, the
// baseline; impl=artefacts adds -o, that is keeping the trace, drawing every picture, writing
// the trace as text, the JSON, the CSV and index.html.
func BenchmarkRun(b *testing.B) {
	args := []string{"-q", "-policy", "cfs", "-topology", "cpu:4", "-until", "4s", "workloads/hackbench.wl"}
	for _, impl := range []string{"simulate", "artefacts"} {
		b.Run("records=1M/impl="+impl, func(b *testing.B) {
			b.ReportAllocs()
			dir := b.TempDir()
			for b.Loop() {
				a := append([]string{"run"}, args...)
				if impl == "artefacts" {
					a = append([]string{"run", "-o", filepath.Join(dir, "out")}, args...)
				}
				if code := cli(&env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard}, a); code != exitOK {
					b.Fatalf("status %d", code)
				}
			}
		})
	}
}
