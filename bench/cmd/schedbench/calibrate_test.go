package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim"
)

func TestCalibrateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "extra"}, "calibrate takes no arguments"},
		{[]string{"calibrate", "-samples", "5"}, "-samples 5: want 100..100000"},
		{[]string{"calibrate", "-reps", "0"}, "-reps 0: want 1..20"},
		{[]string{"calibrate", "-name", "a b"}, `-name "a b": want a word`},
		{[]string{"calibrate", "-o", "/proc/version"}, "-o "},
		{[]string{"calibrate", "-program", "fault,nosuch"}, `-program fault,nosuch: no program figure "nosuch" (want all or pipe, `},
		{[]string{"calibrate", "-program", "fault", "-timer"}, "-timer and -program: one or the other"},
		{[]string{"calibrate", "-ipi-idle", "-timer"}, "-ipi-idle with -timer or -program: one of them"},
		{[]string{"calibrate", "-ipi-idle", "-program", "fault"}, "-ipi-idle with -timer or -program: one of them"},
		{[]string{"calibrate", "-program", "socket100_fanout,socket100_fan"}, `no program figure "socket100_fan" (want all or pipe, pipe100, socket100, pipe100_shared, socket100_shared, pipe100_fanout, socket100_fanout, fault`},
	} {
		_, errs, code := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q", tc.args, code, errs, exitUsage, tc.want)
		}
	}
}

// TestCalibrateKeepsEarlierProfile: a calibration that cannot make a measurement (here perf,
// hidden by an empty PATH) says which it skipped and leaves the profile it would have replaced
// as it was, byte for byte.
func TestCalibrateKeepsEarlierProfile(t *testing.T) {
	needProbes(t)
	path := filepath.Join(t.TempDir(), "host.json")
	earlier, err := sim.DefaultProfile().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, earlier, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	out, errs, code := runCLI(t, "calibrate", "-o", path, "-max-load", "-1", "-samples", "100", "-reps", "1")
	if code != exitFailure {
		t.Fatalf("status %d, stdout %q, stderr %q; want %d", code, out, errs, exitFailure)
	}
	for _, want := range []string{"skipped perf bench sched pipe: host: the host cannot run this workload: perf is not installed", "no profile written: " + path + " is as it was"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q, want %q", errs, want)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(earlier) {
		t.Errorf("the earlier profile changed (%v)", err)
	}
	if !strings.Contains(out, "futex wake, no waiter") {
		t.Errorf("stdout %q: want the measurements made", out)
	}
}

// TestCalibrateProgram: -program re-measures the program figures named into the profile given,
// and leaves its machine's figures as they were; without a profile to update it writes nothing.
func TestCalibrateProgram(t *testing.T) {
	needProbes(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.json")
	_, errs, code := runCLI(t, "calibrate", "-o", missing, "-program", "fault", "-max-load", "-1", "-samples", "100")
	if code != exitFailure || !strings.Contains(errs, "none.json") {
		t.Errorf("no profile to update: status %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("%s written: %v", missing, err)
	}

	path := filepath.Join(dir, "host.json")
	before := sim.DefaultProfile()
	earlier, err := before.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, earlier, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "calibrate", "-o", path, "-program", "fault,exit", "-max-load", "-1", "-samples", "100")
	if code != exitOK {
		t.Fatalf("status %d, stdout %q, stderr %q", code, out, errs)
	}
	after, err := sim.LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(after.Figures, before.Figures) {
		t.Error("the machine's figures changed")
	}
	for _, name := range []string{"fault", "exit"} {
		f, ok := after.Program[name]
		if !ok || f.Cost.P50 <= 0 || f.Method == "" {
			t.Errorf("program figure %s: %+v, %v", name, f, ok)
		}
	}
	if after.Program["pipe"] != before.Program["pipe"] {
		t.Errorf("pipe re-measured: %+v, was %+v", after.Program["pipe"], before.Program["pipe"])
	}
	if n := len(after.Provenance.Notes); n != len(before.Provenance.Notes)+1 || !strings.Contains(after.Provenance.Notes[n-1], "program figures fault, exit measured") {
		t.Errorf("provenance notes %q", after.Provenance.Notes)
	}
	for _, want := range []string{"copy-on-write fault", "process exit and reap"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout %q: want %q", out, want)
		}
	}
}

// TestCalibrateTimer: -timer re-measures the timer's figures into the profile given and leaves
// the others as they were. On a machine too busy for an idle CPU to be slower than a busy one
// the idle exit cannot be derived: then the profile stays as it was, byte for byte.
func TestCalibrateTimer(t *testing.T) {
	needProbes(t)
	before, after, _ := calibrateInto(t, "comes out as", "-timer", "-samples", "100", "-reps", "2")
	if after == nil {
		return
	}
	timerFigs := []string{"timer", "idle_exit", "idle_poll"}
	for name, f := range before.Figures {
		if g, ok := after.Figures[name]; !slices.Contains(timerFigs, name) && (!ok || !reflect.DeepEqual(f, g)) {
			t.Errorf("figure %s changed: %+v, was %+v", name, g, f)
		}
	}
	for _, name := range []string{"timer", "idle_exit"} {
		f := after.Figures[name]
		// Derived, traced ("less the switch and the refill") or, where the trace shows too few of
		// the probe's wake-ups (4 of 100 once, under go test -race beside other packages),
		// untraced ("less what the model charges after a timer wake-up").
		derived := strings.Contains(f.Method, "less the") || strings.Contains(f.Method, "untraced") && strings.Contains(f.Method, "less what the model charges")
		if f.Cost.P50 <= 0 || !derived || reflect.DeepEqual(f, before.Figures[name]) {
			t.Errorf("figure %s not re-measured: %+v", name, f)
		}
	}
	sw, refill := before.Figures["switch"].Cost.P50, before.Figures["refill"].Cost.P50
	// Traced or not, the method names the switch and refill the model charges after the wake-up.
	if want := fmt.Sprintf("the switch and the refill (%v", sw+refill); !strings.Contains(after.Figures["timer"].Method, want) {
		t.Errorf("timer's method %q: want the profile's switch and refill, %v + %v, taken away", after.Figures["timer"].Method, sw, refill)
	}
	if !reflect.DeepEqual(after.Program, before.Program) {
		t.Error("the program figures changed")
	}
	notes := strings.Join(after.Provenance.Notes[len(before.Provenance.Notes):], "\n")
	for _, want := range []string{"timer figures timer, timer_exit, idle_exit, idle_poll measured", "timer on an idle CPU", "timer on a busy CPU", "beside the hog"} {
		if !strings.Contains(notes, want) {
			t.Errorf("new provenance notes %q: want %q", notes, want)
		}
	}
}

// TestCalibrateIPIIdle: -ipi-idle measures the curve ipi_idle into the profile given and leaves
// its figures as they were; where the machine is too busy for the derivation, the profile
// stays as it was, byte for byte.
func TestCalibrateIPIIdle(t *testing.T) {
	needProbes(t)
	before, after, out := calibrateInto(t, "no profile written", "-ipi-idle", "-samples", "200", "-reps", "1")
	if after == nil {
		return
	}
	if !reflect.DeepEqual(after.Figures, before.Figures) || !reflect.DeepEqual(after.Program, before.Program) {
		t.Error("figures changed")
	}
	if n := len(after.IPIIdle.Points); n != len(host.IPIIdleTimes) {
		t.Fatalf("%d points, want one a wait of %v", n, host.IPIIdleTimes)
	}
	for i, p := range after.IPIIdle.Points {
		if p.Idle < host.IPIIdleTimes[i] || p.Cost.P50 <= 0 {
			t.Errorf("point %d: %v at %v, after a wait of %v", i, p.Cost, p.Idle, host.IPIIdleTimes[i])
		}
	}
	if !strings.Contains(after.IPIIdle.Method, "less the futex wake") || !strings.Contains(out, "ipi_idle at ") {
		t.Errorf("method %q, stdout %q", after.IPIIdle.Method, out)
	}
	if notes := strings.Join(after.Provenance.Notes, "\n"); !strings.Contains(notes, "figure ipi_idle measured") {
		t.Errorf("provenance notes %q", notes)
	}
}

// TestCalibrateBusyMachine: above -max-load nothing is measured and nothing written.
func TestCalibrateBusyMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("calibrate measures Linux")
	}
	path := filepath.Join(t.TempDir(), "host.json")
	// A load average of 1e-9 or below: only an idle machine passes, which the test then skips.
	out, errs, code := runCLI(t, "calibrate", "-o", path, "-max-load", "1e-9", "-samples", "100")
	if code == exitOK {
		t.Skipf("the machine was idle (load 0): it calibrated: %s", out)
	}
	if !strings.Contains(errs, "skipped every measurement: the one-minute load average is") {
		t.Errorf("stderr %q", errs)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s written: %v", path, err)
	}
}

func TestProfileFlag(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SCHEDKIT_HOST_PROFILE", filepath.Join(dir, "none.json"))
	for _, tc := range []struct {
		profile, want string
	}{
		{"host", "no host profile at " + filepath.Join(dir, "none.json") + ": measure one with schedbench calibrate"},
		{"nosuch", "-profile nosuch: not a profile (want ci, ideal, host or a profile file)"},
		{filepath.Join(dir, "x.json"), "-profile sim: profile: open"},
	} {
		_, errs, code := runCLI(t, "run", "-profile", tc.profile, "-until", "10ms", "workloads/mixed.wl")
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("-profile %s: status %d, stderr %q; want %q", tc.profile, code, errs, tc.want)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema": "schedkit.profile/1", "name": "b", "figures": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCLI(t, "run", "-profile", bad, "-until", "10ms", "workloads/mixed.wl")
	if code != exitUsage || !strings.Contains(errs, bad+": figures.wakeup: missing") {
		t.Errorf("bad profile: status %d, stderr %q", code, errs)
	}
	out, _, code := runCLI(t, "run", "-profile", "ideal", "-policy", "cfs", "-until", "10ms", "workloads/mixed.wl")
	if code != exitOK || !strings.Contains(out, "Machine profile: ideal (no costs") {
		t.Errorf("-profile ideal: status %d, stdout %q", code, out)
	}
}

// TestProfileFlagLatencies: -profile NAME:latencies charges NAME's latencies only, and the table
// says so; a bad NAME is the error it is alone, and ":latencies" alone names nothing.
func TestProfileFlagLatencies(t *testing.T) {
	p, err := resolveProfile("ci:latencies")
	if err != nil {
		t.Fatal(err)
	}
	c, exit := p.Costs()
	ci, ciExit := sim.DefaultProfile().Costs()
	if p.Name != "ci (latencies only)" || c.IPI != ci.IPI || exit != ciExit || !c.Switch.IsZero() || !c.Wakeup.IsZero() || !c.Tick.IsZero() {
		t.Errorf("ci:latencies: %s, costs %+v, exit %+v", p.Name, c, exit)
	}
	out, _, code := runCLI(t, "run", "-profile", "ci:latencies", "-policy", "cfs", "-until", "10ms", "workloads/mixed.wl")
	if code != exitOK || !strings.Contains(out, "Machine profile: ci (latencies only, measured ") {
		t.Errorf("-profile ci:latencies: status %d, stdout %q", code, out)
	}
	for _, tc := range []struct{ profile, want string }{
		{"nosuch:latencies", "-profile nosuch: not a profile"},
		{":latencies", "-profile :latencies: not a profile"},
	} {
		_, errs, code := runCLI(t, "run", "-profile", tc.profile, "-until", "10ms", "workloads/mixed.wl")
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("-profile %s: status %d, stderr %q; want %q", tc.profile, code, errs, tc.want)
		}
	}
}

// calibrateInto writes the default profile to a file, runs schedbench calibrate -o FILE
// -max-load -1 with args into it and returns the profile before, the one read back after and
// the command's standard output.
// Where the machine is too busy for the derivation (the command fails saying refusal), it
// checks that the file stayed as it was, byte for byte, and returns a nil after.
func calibrateInto(t *testing.T, refusal string, args ...string) (before, after *sim.Profile, out string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "host.json")
	before = sim.DefaultProfile()
	earlier, err := before.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, earlier, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, append([]string{"calibrate", "-o", path, "-max-load", "-1"}, args...)...)
	if code != exitOK {
		if code != exitFailure || !strings.Contains(errs, refusal) {
			t.Fatalf("status %d, stdout %q, stderr %q", code, out, errs)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != string(earlier) {
			t.Errorf("a failed measurement changed %s (%v)", path, err)
		}
		t.Logf("nothing derived on this machine now: %s", errs)
		return before, nil, out
	}
	after, err = sim.LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	return before, after, out
}

// needProbes skips a test of calibrate's probes where they cannot run: off Linux, whose costs
// calibrate measures, and under -short, since the probes run a few seconds.
func needProbes(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("calibrate measures Linux")
	}
	if testing.Short() {
		t.Skip("-short: the probes run a few seconds")
	}
}
