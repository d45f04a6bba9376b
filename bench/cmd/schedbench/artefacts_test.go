package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRunArtefacts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	out, errs, code := runCLI(t, "run", "-q", "-o", dir, "-reps", "2", "-policy", "ule,cfs:v7.1", "-topology", "cpu:2", "-until", "300ms", "workloads/mixed.wl")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{
		"cdf-consumer.svg", "cdf-producer.svg", "cdf-ticker.svg",
		"dist-p99-consumer.svg", "dist-p99-producer.svg", "dist-p99-ticker.svg",
		"dist-share-consumer.svg", "dist-share-hog.svg", "dist-share-producer.svg", "dist-share-ticker.svg",
		"gantt-cfs-v7.1-first-10ms.svg", "gantt-cfs-v7.1.svg", "gantt-ule-main-first-10ms.svg", "gantt-ule-main.svg",
		"index.html", "results.csv", "results.json", "shares.svg", "table.txt",
		"trace-cfs-v7.1.ftrace", "trace-cfs-v7.1.json", "trace-ule-main.ftrace", "trace-ule-main.json",
	}
	if !slices.Equal(names, want) {
		t.Errorf("-o wrote %q, want %q", names, want)
	}
	table, _ := os.ReadFile(filepath.Join(dir, "table.txt"))
	if string(table) != out {
		t.Errorf("table.txt differs from stdout:\n%s\nwant\n%s", table, out)
	}
	index, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, n := range want {
		if n != "index.html" && !strings.Contains(string(index), n) {
			t.Errorf("index.html does not mention %s", n)
		}
	}
	if c := strings.Count(string(index), "<svg "); c != 15 {
		t.Errorf("index.html has %d inline SVG pictures, want 15 (one per .svg file)", c)
	}
	// The same run again gives the same files, byte for byte.
	dir2 := filepath.Join(t.TempDir(), "out")
	if _, errs, code := runCLI(t, "run", "-q", "-o", dir2, "-reps", "2", "-policy", "ule,cfs:v7.1", "-topology", "cpu:2", "-until", "300ms", "workloads/mixed.wl"); code != exitOK {
		t.Fatalf("second run: status %d, stderr %q", code, errs)
	}
	for _, n := range want {
		a, _ := os.ReadFile(filepath.Join(dir, n))
		b, _ := os.ReadFile(filepath.Join(dir2, n))
		if n != "index.html" && string(a) != string(b) {
			t.Errorf("%s differs between two identical runs", n)
		}
	}
}
