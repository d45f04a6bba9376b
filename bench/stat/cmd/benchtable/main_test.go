package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The inputs are real go test -bench output of this repository (runq's and topology's
// benchmarks with -benchmem, run on the 2-vCPU VM while other builds ran: the spread is
// large, which exercises wide percentages), in bench/stat/testdata/benchstat.
var testdata = filepath.Join("..", "..", "testdata", "benchstat")

var (
	benchstatOnce sync.Once
	benchstatBin  string
	benchstatErr  error
)

// benchstat builds golang.org/x/perf's benchstat at the version go.mod requires (the same
// x/perf whose libraries benchtable uses) and returns its path, or skips the test when the go
// command cannot build it (no go command, no module cache and no network).
func benchstat(t *testing.T) string {
	t.Helper()
	benchstatOnce.Do(func() {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			benchstatErr = err
			return
		}
		dir, err := os.MkdirTemp("", "benchstat")
		if err != nil {
			benchstatErr = err
			return
		}
		benchstatBin = filepath.Join(dir, "benchstat")
		out, err := exec.Command(goCmd, "build", "-o", benchstatBin, "golang.org/x/perf/cmd/benchstat").CombinedOutput()
		if err != nil {
			benchstatErr = &buildError{err, string(out)}
		}
	})
	if benchstatErr != nil {
		t.Skipf("golang.org/x/perf/cmd/benchstat cannot be built here (%v): benchtable is not compared with it", benchstatErr)
	}
	return benchstatBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + strings.TrimSpace(e.out) }

func TestMain(m *testing.M) {
	code := m.Run()
	if benchstatBin != "" {
		os.RemoveAll(filepath.Dir(benchstatBin))
	}
	os.Exit(code)
}

// TestSameAsBenchstat runs benchstat and benchtable with the same arguments on the same files
// and compares standard output byte for byte.
func TestSameAsBenchstat(t *testing.T) {
	bin := benchstat(t)
	runq, err := os.ReadFile(filepath.Join(testdata, "runq.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		stdin []byte
	}{
		{"one file, four units", []string{"runq.txt"}, nil},
		{"columns by sub-benchmark key", []string{"-col", "/impl", "runq.txt"}, nil},
		{"two files", []string{"topo-old.txt", "topo-new.txt"}, nil},
		{"labels", []string{"before=topo-old.txt", "after=topo-new.txt"}, nil},
		{"a file twice", []string{"topo-old.txt", "topo-old.txt"}, nil},
		{"two packages", []string{"two-pkgs.txt"}, nil},
		{"two packages by impl", []string{"-col", "/impl", "two-pkgs.txt"}, nil},
		{"rows by name, ignoring n", []string{"-row", ".name", "-ignore", "/n", "topo-old.txt", "topo-new.txt"}, nil},
		{"filter, alpha, confidence", []string{"-filter", ".unit:sec/op", "-alpha", "0.2", "-confidence", "0.9", "topo-old.txt", "topo-new.txt"}, nil},
		{"standard input", []string{"-col", "/impl", "-"}, runq},
		{"tables by package", []string{"-table", "pkg", "-col", "/impl", "two-pkgs.txt"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Dir = testdata
			cmd.Stdin = bytes.NewReader(tc.stdin)
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("benchstat %s: %v", strings.Join(tc.args, " "), err)
			}
			wd, err := os.Getwd()
			if err != nil {
				t.Fatal(err)
			}
			t.Chdir(testdata)
			var out, errb strings.Builder
			status := run(tc.args, bytes.NewReader(tc.stdin), &out, &errb)
			t.Chdir(wd)
			if status != 0 {
				t.Fatalf("benchtable %s: status %d, %s", strings.Join(tc.args, " "), status, errb.String())
			}
			if out.String() != string(want) {
				t.Errorf("benchtable %s differs from benchstat:\n%s\nwant\n%s", strings.Join(tc.args, " "), out.String(), want)
			}
		})
	}
}

func TestFlagsAfterFiles(t *testing.T) {
	t.Chdir(testdata)
	var first, second, errb strings.Builder
	if status := run([]string{"-col", "/impl", "runq.txt"}, nil, &first, &errb); status != 0 {
		t.Fatalf("status %d: %s", status, errb.String())
	}
	if status := run([]string{"runq.txt", "-col", "/impl"}, nil, &second, &errb); status != 0 {
		t.Fatalf("status %d: %s", status, errb.String())
	}
	if first.String() != second.String() || !strings.Contains(first.String(), "listscan") {
		t.Errorf("benchtable runq.txt -col /impl differs from benchtable -col /impl runq.txt:\n%s\nwant\n%s", second.String(), first.String())
	}
}

func TestErrors(t *testing.T) {
	t.Chdir(testdata)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-bogus", "runq.txt"}, "flag provided but not defined: -bogus"},
		{[]string{"missing.txt"}, "missing.txt"},
		{[]string{"-confidence", "95", "runq.txt"}, "-confidence 95: want a level strictly between 0 and 1 (a fraction, as benchstat's: -confidence 0.95)"},
		{[]string{"-alpha", "0", "runq.txt"}, "-alpha 0: want a level in (0, 1]"},
		{[]string{"-col", "/impl@(", "runq.txt"}, "column projection"},
	} {
		var out, errb strings.Builder
		if status := run(tc.args, nil, &out, &errb); status == 0 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("benchtable %s: status %d, stderr %q; want a failure saying %q", strings.Join(tc.args, " "), status, errb.String(), tc.want)
		}
	}
}
