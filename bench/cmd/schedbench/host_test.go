package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim"
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
	if !strings.Contains(lines[0], "linux ") || !strings.Contains(lines[0], "cfs-v7.1 (model)") || !strings.HasPrefix(lines[1], "thread ") {
		t.Errorf("header %q, %q; want the kernel's column and the model's, then the units", lines[0], lines[1])
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

// TestHostExperimentsModelOnly checks that host -experiments -model-only prints the table
// examples/hostcompare -model-only prints, byte for byte: the two share the experiments and the
// table, and the models' half is deterministic.
func TestHostExperimentsModelOnly(t *testing.T) {
	out, errs, code := runCLI(t, "host", "-experiments", "-model-only")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	golden := filepath.Join("..", "..", "..", "examples", "hostcompare", "testdata", "model.golden")
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("host -experiments -model-only differs from %s (go test ./examples/hostcompare -update rewrites it):\n%s", golden, out)
	}
}

func TestHostExperimentsUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-experiments", "workloads/mixed.wl"}, "no WORKLOAD"},
		{[]string{"-experiments", "-policy", "cfs", "-until", "1s"}, "no -policy, -until"},
		{[]string{"-experiments", "-no-model"}, "no -no-model"},
		{[]string{"-experiments", "-model-only", "-reps", "2"}, "-model-only runs nothing on the host: no -reps"},
		{[]string{"-experiments", "-reps", "101"}, "-reps 101: want 1..100"},
		{[]string{"-experiments", "-reps", "0"}, "-reps 0: want 1..100"},
		{[]string{"-experiments", "-weight", "10001"}, "-weight 10001"},
		{[]string{"-experiments", "-dir", "host_test.go"}, "-dir host_test.go: not a directory"},
		{[]string{"-dir", ".", "workloads/mixed.wl"}, "need -experiments"},
		{[]string{"-model-only", "workloads/mixed.wl"}, "need -experiments"},
	} {
		out, errs, code := runCLI(t, append([]string{"host"}, tc.args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("host %q: status %d, stdout %q, stderr %q; want status %d and %q", tc.args, code, out, errs, exitUsage, tc.want)
		}
	}
}

// TestHostExperiments runs host -experiments on this machine with two of the table's
// experiments (the whole table takes 20 s a repetition): two host runs each, so every
// row has a t test, under the parent group weight -weight asks for.
func TestHostExperiments(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the host runner needs Linux")
	}
	if testing.Short() {
		t.Skip("runs real threads for several seconds")
	}
	if os.Geteuid() != 0 {
		t.Skip("the experiments need root (nice 19, SCHED_IDLE, cgroups)")
	}
	defer func(f func(p *sim.Profile, a, b int, dir string) []host.Experiment) { tableExperiments = f }(tableExperiments)
	tableExperiments = func(p *sim.Profile, a, b int, dir string) []host.Experiment {
		// The nice split and seed 004's probe beside an idle group (p50): 1 s each.
		var exps []host.Experiment
		for _, e := range host.TableExperiments(a, b, dir) {
			if strings.Contains(e.Name, "nice 0 vs nice 19") {
				exps = append(exps, e)
			}
		}
		for _, e := range host.LatencyExperiments(p, b) {
			if e.Name == "seed004 probe beside idle group" && strings.Contains(e.Metric.Name, "p50") {
				exps = append(exps, e)
			}
		}
		return exps
	}
	out, errs, code := runCLI(t, "host", "-experiments", "-reps", "2", "-weight", "10000")
	if code == exitUsage && strings.Contains(errs, "cannot run") {
		t.Skipf("the host cannot run the experiments: %s", errs)
	}
	if code != exitOK {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	t.Logf("\n%s", out)
	lines := strings.Split(out, "\n")
	if want := "2 host runs per row, parent group weight 10000"; !strings.Contains(lines[0], want) {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	// A kernel with scheduler sysctls upstream lacks (CI's machine type) says so next.
	if quirks := host.NonUpstreamSchedSysctls(); len(quirks) > 0 {
		if !strings.HasPrefix(lines[1], "scheduler sysctls upstream Linux does not have") || !strings.Contains(lines[1], quirks[0]) {
			t.Errorf("second line %q, want the sysctls %q", lines[1], quirks)
		}
		lines = append(lines[:1], lines[2:]...)
	}
	// A default profile measured on another kernel release than this machine's says so next.
	other := strings.HasPrefix(lines[1], "profile ") && strings.Contains(lines[1], "comes from another machine")
	if want := sim.DefaultProfile().Machine.Kernel != host.Release(); other != want {
		t.Errorf("second line %q: a line on the profile's other machine %v, want %v", lines[1], other, want)
	}
	if other {
		lines = append(lines[:1], lines[2:]...)
	}
	if !regexp.MustCompile(`model/host +verdict +goal +t test$`).MatchString(lines[1]) {
		t.Errorf("header %q: no t test column", lines[1])
	}
	for i, name := range []string{"seed000 nice 0 vs nice 19 hogs", "seed004 probe beside idle group"} {
		l := lines[2+i]
		if !strings.HasPrefix(l, name+" ") {
			t.Errorf("row %d %q, want %s", i, l, name)
		}
		// Both outcomes are possible on a busy machine; "no test" is not, with two runs.
		if !strings.HasSuffix(l, "No difference proven at 95.0% confidence") && !strings.Contains(l, "Difference at 95.0% confidence: ") {
			t.Errorf("row %q has no t test", l)
		}
	}
	if !strings.Contains(out, "load average") {
		t.Errorf("the table does not say how loaded the machine was:\n%s", out)
	}
}
