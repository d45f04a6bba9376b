package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
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

// BenchmarkRunThreads measures run on workloads of many short threads (each runs 1 us and
// exits), the table included: impl=simulate is the simulation alone (the machine ULE runs it on,
// as run builds it, run to the end, and its Result), the baseline; impl=run is the whole
// command (flags, the workload file, the checks, the simulation, the table of a row per thread)
// and reports x-simulation, its time over the baseline's. The goal is x-simulation <= 3 at a
// million threads: every table path looks threads up by name in constant time.
func BenchmarkRunThreads(b *testing.B) {
	for _, n := range []int{100000, 1000000} {
		text := fmt.Sprintf("thread t count=%d\n\trun 1us\nend\n", n)
		wl := filepath.Join(b.TempDir(), "threads.wl")
		if err := os.WriteFile(wl, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		var simNs float64
		b.Run(fmt.Sprintf("threads=%d/impl=simulate", n), func(b *testing.B) {
			b.ReportAllocs()
			w, err := workload.Parse(text)
			if err != nil {
				b.Fatal(err)
			}
			ps, err := parsePolicies("ule")
			if err != nil {
				b.Fatal(err)
			}
			topo, err := resolveTopology("cpu:2")
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				m, err := sim.New(sim.Config{Topology: topo, Hz: sim.DefaultHz, StatHz: 127, Seed: 1}, ps[0].new(), w)
				if err != nil {
					b.Fatal(err)
				}
				if err := m.Run(10 * time.Second); err != nil {
					b.Fatal(err)
				}
				if r := m.Result(); r.Exited != int64(n) {
					b.Fatalf("%d threads exited, want %d", r.Exited, n)
				}
			}
			simNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
		b.Run(fmt.Sprintf("threads=%d/impl=run", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if code := cli(&env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard}, []string{"run", "-q", "-policy", "ule", "-parallel", "1", wl}); code != exitOK {
					b.Fatalf("status %d", code)
				}
			}
			if simNs > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/simNs, "x-simulation")
			}
		})
	}
}
