package main

import (
	"os/exec"
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
		[]string{"-mmtests", "-higher", "-op", "ops/s", "testdata/stat/a.txt", "testdata/stat/b.txt", "testdata/stat/a.txt"}) {
		out, errs, code := runCLI(t, append([]string{"stat"}, args...)...)
		if code != exitOK || errs != "" {
			t.Fatalf("schedbench stat %s: status %d, stderr %q", strings.Join(args, " "), code, errs)
		}
		all.WriteString("$ schedbench stat " + strings.Join(args, " ") + "\n" + out)
	}
	checkGolden(t, "stat.golden", []byte(all.String()))
}
