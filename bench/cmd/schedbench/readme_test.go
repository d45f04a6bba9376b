package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// readmeRun is the run whose pictures the README shows.
var readmeRun = []string{"run", "-q", "-policy", "ule,cfs,cfs:v7.1", "-topology", "cpu:4", "-until", "2s", "-zoom", "50ms"}

// readmePictures are the files of that run the README shows, kept in pictures/.
var readmePictures = []string{"gantt-cfs-v7.1-first-50ms.svg", "cdf-ticker.svg"}

// TestREADMEPictures checks that the pictures committed in pictures/ are the ones the code
// draws today. After a change to the pictures, regenerate them with
//
//	go test ./bench/cmd/schedbench -run TestREADMEPictures -update
//
// and look at them before committing.
func TestREADMEPictures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, errs, code := runCLI(t, append(readmeRun, "-o", dir, "workloads/mixed.wl")...); code != exitOK {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	for _, name := range readmePictures {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		committed := filepath.Join("pictures", name)
		if *update {
			if err := os.WriteFile(committed, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(committed)
		if err != nil {
			t.Fatalf("%v (regenerate with -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the code draws today; regenerate it with go test ./bench/cmd/schedbench -run TestREADMEPictures -update", committed)
		}
	}
}
