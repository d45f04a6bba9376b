package main

// These tests pin the command line conventions every subcommand shares (flags.go, input.go,
// table.go): flags anywhere, durations that say what they look like, "-" for standard input,
// and tables whose headers carry their units and whose legends explain "-" and "0ns".

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runCLIStdin is runCLI with standard input.
func runCLIStdin(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli(&env{ctx: context.Background(), stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}, args)
	return out.String(), errb.String(), code
}

func TestFlagsAfterArguments(t *testing.T) {
	for _, tc := range []struct{ first, last []string }{
		{[]string{"run", "-until", "200ms", "-policy", "cfs", "workloads/mixed.wl"},
			[]string{"run", "workloads/mixed.wl", "-until", "200ms", "-policy", "cfs"}},
		{[]string{"run", "-policy", "ule", "-until", "100ms", "workloads/mixed.wl"},
			[]string{"run", "-policy", "ule", "workloads/mixed.wl", "-until=100ms"}},
		{[]string{"stat", "-A", "testdata/stat/a.txt", "testdata/stat/b.txt"},
			[]string{"stat", "testdata/stat/a.txt", "-A", "testdata/stat/b.txt"}},
		{[]string{"stat", "-mmtests", "-higher", "testdata/stat/a.txt", "testdata/stat/b.txt"},
			[]string{"stat", "testdata/stat/a.txt", "testdata/stat/b.txt", "-mmtests", "-higher"}},
		{[]string{"explain", "-until", "50ms", "-thread", "ticker", "workloads/mixed.wl"},
			[]string{"explain", "workloads/mixed.wl", "-thread", "ticker", "-until", "50ms"}},
		{[]string{"replay", "-policy", "cfs", traceData + "pingpong.ftrace"},
			[]string{"replay", traceData + "pingpong.ftrace", "-policy", "cfs"}},
	} {
		want, errs, code := runCLI(t, tc.first...)
		if code != exitOK {
			t.Fatalf("schedbench %s: status %d, stderr %q", strings.Join(tc.first, " "), code, errs)
		}
		got, errs, code := runCLI(t, tc.last...)
		if code != exitOK || got != want {
			t.Errorf("schedbench %s: status %d, stderr %q, output\n%s\nwant, as with the flags first,\n%s", strings.Join(tc.last, " "), code, errs, got, want)
		}
	}
	// "--" ends the flags: a workload file named like a flag.
	dir := t.TempDir()
	wl, err := os.ReadFile("workloads/mixed.wl")
	if err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(dir, "-odd.wl")
	if err := os.WriteFile(odd, wl, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if _, errs, code := runCLI(t, "run", "-until", "50ms", "--", "-odd.wl"); code != exitOK {
		t.Errorf("schedbench run -until 50ms -- -odd.wl: status %d, stderr %q", code, errs)
	}
}

func TestDurationFlagErrors(t *testing.T) {
	// Every duration flag says what a duration looks like, whatever the command.
	for _, args := range [][]string{
		{"run", "-until", "2", "workloads/mixed.wl"},
		{"run", "-zoom", "10", "workloads/mixed.wl"},
		{"explain", "-from", "5", "workloads/mixed.wl"},
		{"explain", "-to", "5", "workloads/mixed.wl"},
		{"explain", "-at", "5", "workloads/mixed.wl"},
		{"trace", "-until", "2", "workloads/mixed.wl"},
		{"host", "-until", "2", "workloads/mixed.wl"},
		{"replay", "-until", "2", traceData + "pingpong.ftrace"},
	} {
		_, errs, code := runCLI(t, args...)
		want := `for flag ` + args[1] + `: a duration needs a unit: ` + args[2] + `s, ` + args[2] + `ms, ` + args[2] + `us or ` + args[2] + `ns`
		if code != exitUsage || !strings.Contains(errs, want) {
			t.Errorf("schedbench %s: status %d, stderr %q; want a usage error containing %q", strings.Join(args, " "), code, errs, want)
		}
	}
	_, errs, _ := runCLI(t, "run", "-until", "two", "workloads/mixed.wl")
	if !strings.Contains(errs, "want a duration: a number and a unit, such as 2s, 500ms, 1.5m or 250us") {
		t.Errorf("-until two: stderr %q", errs)
	}
}

func TestStandardInput(t *testing.T) {
	a, err := os.ReadFile("testdata/stat/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	// stat - and stat with no file read standard input and name it as ministat does.
	fromFile, _, _ := runCLI(t, "stat", "testdata/stat/a.txt")
	for _, args := range [][]string{{"stat", "-"}, {"stat"}} {
		out, errs, code := runCLIStdin(t, string(a), args...)
		if want := strings.ReplaceAll(fromFile, "testdata/stat/a.txt", "<stdin>"); code != exitOK || out != want {
			t.Errorf("schedbench %s with a.txt on stdin: status %d, stderr %q\n%s\nwant\n%s", strings.Join(args, " "), code, errs, out, want)
		}
	}
	if _, errs, code := runCLIStdin(t, string(a), "stat", "-", "-"); code != exitUsage || !strings.Contains(errs, "standard input is named twice") {
		t.Errorf("stat - -: status %d, stderr %q; want a usage error saying standard input is named twice", code, errs)
	}
	if ministat, err := exec.LookPath("ministat"); err == nil {
		cmd := exec.Command(ministat, "-", "testdata/stat/b.txt")
		cmd.Stdin = bytes.NewReader(a)
		want, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if out, _, _ := runCLIStdin(t, string(a), "stat", "-", "testdata/stat/b.txt"); out != string(want) {
			t.Errorf("schedbench stat - b.txt differs from Debian's ministat - b.txt:\n%s\nwant\n%s", out, want)
		}
	} else {
		t.Log("no ministat on this machine (Debian: apt-get install ministat): stat - is not compared with it")
	}
	// A workload, a topology, shard results and a trace on standard input.
	wl, err := os.ReadFile("workloads/mixed.wl")
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := runCLI(t, "run", "-until", "100ms", "-topology", "llc:1 cpu:2", "workloads/mixed.wl")
	if out, errs, code := runCLIStdin(t, string(wl), "run", "-until", "100ms", "-topology", "llc:1 cpu:2", "-"); code != exitOK || out != want {
		t.Errorf("run - with the workload on stdin: status %d, stderr %q\n%s\nwant\n%s", code, errs, out, want)
	}
	if out, errs, code := runCLIStdin(t, "llc:1 cpu:2\n", "run", "-until", "100ms", "-topology", "-", "workloads/mixed.wl"); code != exitOK || out != want {
		t.Errorf("run -topology - with the spec on stdin: status %d, stderr %q\n%s\nwant\n%s", code, errs, out, want)
	}
	trace, err := os.ReadFile(traceData + "pingpong.ftrace")
	if err != nil {
		t.Fatal(err)
	}
	wantReplay, _, _ := runCLI(t, "replay", "-policy", "cfs", traceData+"pingpong.ftrace")
	gotReplay, errs, code := runCLIStdin(t, string(trace), "replay", "-policy", "cfs", "-")
	if code != exitOK || gotReplay != strings.ReplaceAll(wantReplay, "pingpong.ftrace", stdinName) {
		t.Errorf("replay - with the trace on stdin: status %d, stderr %q\n%s\nwant\n%s", code, errs, gotReplay, wantReplay)
	}
	plan := []string{"-small", "-reps", "2", "-grid", "nice=10,20", "-set", "seconds=2"}
	whole, errs, code := runCLI(t, append(append([]string{"sweep", "-q"}, plan...), "seed000-nice")...)
	if code != exitOK {
		t.Fatalf("sweep: status %d, stderr %q", code, errs)
	}
	shard := filepath.Join(t.TempDir(), "all.jsonl")
	if _, errs, code := runCLI(t, append(append([]string{"sweep", "-q", "-o", shard}, plan...), "seed000-nice")...); code != exitOK {
		t.Fatalf("sweep -o: status %d, stderr %q", code, errs)
	}
	results, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	if out, errs, code := runCLIStdin(t, string(results), append(append([]string{"merge"}, plan...), "seed000-nice", "-")...); code != exitOK || out != whole {
		t.Errorf("merge - with the results on stdin: status %d, stderr %q\n%s\nwant\n%s", code, errs, out, whole)
	}
}

func TestTableUnitsAndLegends(t *testing.T) {
	out, errs, code := runCLI(t, "run", "-until", "200ms", "-policy", "ule,cfs", "workloads/mixed.wl")
	if code != exitOK {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[1], "thread") || !strings.Contains(lines[1], "cpu%") || strings.Count(lines[1], "wake p50") != 2 || strings.Count(lines[1], "wake max") != 2 {
		t.Errorf("thread table header %q: want cpu%% and wake p50 … wake max under each policy", lines[1])
	}
	var totals string
	for _, l := range lines {
		if strings.HasPrefix(l, "policy") {
			totals = l
		}
	}
	for _, unit := range []string{"end (time)", "makespan (time)", "idle%"} {
		if !strings.Contains(totals, unit) {
			t.Errorf("totals header %q lacks %q", totals, unit)
		}
	}
	for _, legend := range []string{"wake p50 … max: its wake-up latency", `"-": no figure`, "0ns: measured, and 0",
		"end: when the run stopped", "idle%: the CPUs' idle time", "violations: what the work-conservation"} {
		if !strings.Contains(out, legend) {
			t.Errorf("run's output lacks the legend's %q:\n%s", legend, out)
		}
	}
	for i, l := range lines {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("line %d ends in blanks: %q", i+1, l)
		}
	}
}
