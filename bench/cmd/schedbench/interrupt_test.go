package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// subprocess returns the test binary set up to run schedbench with args.
func subprocess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SCHEDBENCH_TEST_MAIN=1", "SCHEDBENCH_TEST_ARGS="+strings.Join(args, " "))
	return cmd
}

// TestInterruptPrintsWhatFinished cancels the command after its first run: the table shows
// that run, the status is 1, and stderr says how many finished.
func TestInterruptPrintsWhatFinished(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := filepath.Join(t.TempDir(), "out")
	var out, errb bytes.Buffer
	e := &env{ctx: ctx, stdout: &out, stderr: &errb, afterRun: func(int) { cancel() }}
	code := cli(e, []string{"run", "-parallel", "1", "-reps", "4", "-policy", "ule", "-o", dir, "-until", "200ms", "workloads/mixed.wl"})
	if code != exitFailure {
		t.Errorf("status %d, want %d", code, exitFailure)
	}
	if want := "schedbench run: interrupted: 1 of 4 runs finished; the table shows them\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	if !strings.Contains(out.String(), "ule-main     1") {
		t.Errorf("table does not show the one finished run:\n%s", out.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if d := readRunsDoc(t, data); d.Complete || len(d.Runs) != 1 {
		t.Errorf("results.json: complete %v with %d runs, want false with 1", d.Complete, len(d.Runs))
	}
}

// TestSIGINT sends a real ^C to the command in the middle of a long run: it must stop within
// seconds, exit 1, say that nothing finished, and leave only whole files in -o.
func TestSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	dir := filepath.Join(t.TempDir(), "out")
	cmd := subprocess(t, "run", "-policy", "ule", "-o", dir, "-until", "24h", "workloads/mixed.wl")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the command did not stop within 20 s of SIGINT")
	}
	t.Logf("stopped %v after SIGINT", time.Since(start))
	if code := cmd.ProcessState.ExitCode(); code != exitFailure {
		t.Errorf("status %d, want %d (stderr %q)", code, exitFailure, errb.String())
	}
	if want := "schedbench run: interrupted: 0 of 1 runs finished; the table shows them\n"; errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("-o holds a temporary file %s after ^C", e.Name())
		}
	}
}

// TestProgress checks that the progress bar is drawn only on a terminal and not with -q, and
// never when stderr is a pipe.
func TestProgress(t *testing.T) {
	args := []string{"run", "-reps", "2", "-policy", "ule", "-until", "100ms", "workloads/mixed.wl"}
	for _, tc := range []struct {
		terminal, quiet, want bool
	}{{true, false, true}, {true, true, false}, {false, false, false}} {
		var out, errb bytes.Buffer
		a := args
		if tc.quiet {
			a = append([]string{"run", "-q"}, args[1:]...)
		}
		code := cli(&env{ctx: context.Background(), stdout: &out, stderr: &errb, terminal: tc.terminal}, a)
		if code != exitOK {
			t.Fatalf("status %d, stderr %q", code, errb.String())
		}
		if got := strings.Contains(errb.String(), "/2)"); got != tc.want {
			t.Errorf("terminal %v, -q %v: progress on stderr = %v (%q), want %v", tc.terminal, tc.quiet, got, errb.String(), tc.want)
		}
	}
	cmd := subprocess(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v, stderr %q", err, errb.String())
	}
	if errb.Len() != 0 {
		t.Errorf("stderr is a pipe, yet the command wrote %q to it", errb.String())
	}
	if !strings.Contains(out.String(), "ule-main") {
		t.Errorf("stdout %q lacks the table", out.String())
	}
}
