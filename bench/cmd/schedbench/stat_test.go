package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var statCases = [][]string{
	{"testdata/stat/a.txt", "testdata/stat/b.txt"},
	{"-A", "testdata/stat/a.txt", "testdata/stat/b.txt"},
	{"-n", "testdata/stat/a.txt", "testdata/stat/b.txt"},
	{"-s", "testdata/stat/a.txt", "testdata/stat/b.txt"},
	{"-w", "50", "-c", "99", "testdata/stat/a.txt", "testdata/stat/b.txt"},
	{"-c", "80", "testdata/stat/a.txt", "testdata/stat/b.txt", "testdata/stat/a.txt"},
	{"-C", "3", "testdata/stat/cols.txt"},
	{"-C", "2", "-d", " ", "testdata/stat/cols.txt"},
}

// TestStatAgainstMinistat runs Debian's ministat with the same flags and files: the output
// must be the same bytes.
func TestStatAgainstMinistat(t *testing.T) {
	ministat, err := exec.LookPath("ministat")
	if err != nil {
		t.Skip("no ministat on this machine (Debian: apt-get install ministat; .ci/run installs it)")
	}
	for _, args := range statCases {
		want, err := exec.Command(ministat, args...).Output()
		if err != nil {
			t.Fatalf("ministat %s: %v", strings.Join(args, " "), err)
		}
		got, errs, code := runCLI(t, append([]string{"stat"}, args...)...)
		if code != exitOK || errs != "" {
			t.Errorf("schedbench stat %s: status %d, stderr %q", strings.Join(args, " "), code, errs)
		}
		if got != string(want) {
			t.Errorf("schedbench stat %s differs from ministat:\n%s\nwant\n%s", strings.Join(args, " "), got, want)
		}
	}
}

func TestStatGolden(t *testing.T) {
	var all strings.Builder
	for _, args := range append(statCases, []string{"-mmtests", "testdata/stat/a.txt", "testdata/stat/b.txt"},
		[]string{"-mmtests", "-higher", "-op", "ops/s", "testdata/stat/a.txt", "testdata/stat/b.txt", "testdata/stat/a.txt"},
		[]string{"-mmtests", "-mmtests-version", "2022", "testdata/stat/a.txt", "testdata/stat/b.txt"},
		[]string{"-mmtests", "-summary", "variabletime", "-print-significance", "testdata/stat/a.txt", "testdata/stat/b.txt"}) {
		out, errs, code := runCLI(t, append([]string{"stat"}, args...)...)
		if code != exitOK || errs != "" {
			t.Fatalf("schedbench stat %s: status %d, stderr %q", strings.Join(args, " "), code, errs)
		}
		all.WriteString("$ schedbench stat " + strings.Join(args, " ") + "\n" + out)
	}
	checkGolden(t, "stat.golden", []byte(all.String()))
}

// TestStatMMTestsReference runs stat -mmtests on files holding the samples of bench/stat's
// reference cases that have one operation and flags the command has, and compares the output
// with the table mmtests' own compare-mmtests.pl printed for them (bench/stat/testdata/mmtests).
func TestStatMMTestsReference(t *testing.T) {
	ref := filepath.Join("..", "..", "stat", "testdata", "mmtests")
	data, err := os.ReadFile(filepath.Join(ref, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name, Summary, Better string
		Version, Precision    int
		NoCompare             bool `json:"no_compare"`
		PrintSignificance     bool `json:"print_significance"`
		Runs                  []string
		Ops                   []struct {
			Name    string
			Samples [][]json.Number
		}
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, c := range cases {
		if len(c.Ops) != 1 || c.Precision != 0 || c.NoCompare {
			continue
		}
		dir := t.TempDir()
		args := []string{"stat", "-mmtests", "-mmtests-version", strconv.Itoa(c.Version), "-summary", c.Summary, "-op", c.Ops[0].Name}
		if c.Better == "higher" {
			args = append(args, "-higher")
		}
		if c.PrintSignificance {
			args = append(args, "-print-significance")
		}
		for r, run := range c.Runs {
			var b strings.Builder
			for _, x := range c.Ops[0].Samples[r] {
				b.WriteString(string(x) + "\n")
			}
			name := filepath.Join(dir, run+".txt")
			if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, name)
		}
		want, err := os.ReadFile(filepath.Join(ref, strconv.Itoa(c.Version), c.Name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		out, errs, code := runCLI(t, args...)
		if code != exitOK || out != string(want) {
			t.Errorf("schedbench %s: status %d, stderr %q; got\n%s\nwant (mmtests)\n%s", strings.Join(args, " "), code, errs, out, want)
		}
		compared++
	}
	if compared < 8 {
		t.Errorf("compared %d reference tables, want at least 8", compared)
	}
}
