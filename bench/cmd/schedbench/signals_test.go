//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startReady starts the command args as a subprocess and returns once it catches the stop
// signals (signalsCaught), plus wait, which waits for it to end within limit.
func startReady(t *testing.T, extraEnv []string, args ...string) (cmd *exec.Cmd, out, errb *bytes.Buffer, wait func(limit time.Duration)) {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ready")
	cmd = subprocess(t, args...)
	cmd.Env = append(append(cmd.Env, "SCHEDBENCH_TEST_READY="+ready), extraEnv...)
	out, errb = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		select {
		case <-done:
			t.Fatalf("the command ended before it caught the signals: %s", errb)
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the command did not start within 60 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	wait = func(limit time.Duration) {
		t.Helper()
		select {
		case <-done:
		case <-time.After(limit):
			cmd.Process.Kill()
			<-done
			t.Fatalf("the command did not end within %v of the signal", limit)
		}
	}
	return cmd, out, errb, wait
}

// leftovers returns the temporary files in dir and its subdirectories.
func leftovers(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".schedbench-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestSignalsStopCleanly sends SIGINT, SIGTERM and SIGHUP to each command that writes files,
// in the middle of its work: each stops within seconds, exits 1 with one line saying it was
// interrupted, and leaves no temporary file.
func TestSignalsStopCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	cases := []struct {
		name   string
		args   func(dir string) []string
		stderr string
		wrote  []string // files the interrupted command still writes
	}{
		{"run", func(dir string) []string {
			return []string{"run", "-policy", "ule", "-o", filepath.Join(dir, "out"), "-until", "24h", "workloads/mixed.wl"}
		}, "schedbench run: interrupted: 0 of 1 runs finished; the table shows them\n", []string{"out/index.html", "out/table.txt"}},
		{"trace", func(dir string) []string {
			return []string{"trace", "-o", filepath.Join(dir, "t.json"), "-until", "24h", "workloads/mixed.wl"}
		}, "schedbench trace: interrupted; nothing written\n", nil},
		{"sweep", func(dir string) []string {
			return []string{"sweep", "-q", "-reps", "10000", "-parallel", "1", "-o", filepath.Join(dir, "r.jsonl"), "seed000-nice"}
		}, "nothing written\n", nil},
		{"explain", func(dir string) []string {
			return []string{"explain", "-until", "24h", "workloads/mixed.wl"}
		}, "schedbench explain: interrupted\n", nil},
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/%v", tc.name, sig), func(t *testing.T) {
				dir := t.TempDir()
				cmd, _, errb, wait := startReady(t, nil, tc.args(dir)...)
				time.Sleep(300 * time.Millisecond) // into the work
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				wait(20 * time.Second)
				if code := cmd.ProcessState.ExitCode(); code != exitFailure {
					t.Errorf("status %d (%v), want %d; stderr %q", code, cmd.ProcessState, exitFailure, errb)
				}
				if !strings.HasSuffix(errb.String(), tc.stderr) || strings.Count(errb.String(), "\n") != 1 {
					t.Errorf("stderr %q, want one line ending %q", errb, tc.stderr)
				}
				if l := leftovers(dir); len(l) > 0 {
					t.Errorf("temporary files left: %q", l)
				}
				var want []string
				for _, w := range tc.wrote {
					want = append(want, filepath.Join(dir, w))
				}
				var got []string
				filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() && slices.Contains(want, p) {
						got = append(got, p)
					}
					if err == nil && !d.IsDir() && !strings.HasPrefix(p, filepath.Join(dir, "out")) {
						t.Errorf("file %s written by an interrupted %s", p, tc.name)
					}
					return nil
				})
				if len(got) != len(want) {
					t.Errorf("wrote %q, want %q", got, want)
				}
			})
		}
	}
}

// blockedTrace starts trace -o FIFO with a reader that never reads: the trace, larger than a
// pipe holds, blocks the command in its write.
func blockedTrace(t *testing.T, grace string) (*exec.Cmd, func(time.Duration)) {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd, _, _, wait := startReady(t, []string{"SCHEDBENCH_TEST_GRACE=" + grace}, "trace", "-o", fifo, "-until", "2s", "workloads/mixed.wl")
	// Wait until the FIFO is full: the command is blocked writing.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if n, err := unix.IoctlGetInt(int(r.Fd()), unix.TIOCINQ); err == nil && n >= 4096 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the command did not fill the FIFO")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cmd, wait
}

// TestSecondSignalEndsAtOnce: a command blocked in a write that nothing drains ignores nothing:
// the second signal ends it by that signal.
func TestSecondSignalEndsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	cmd, wait := blockedTrace(t, "1h")
	cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	wait(10 * time.Second)
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("ended with %v, want death by SIGTERM", cmd.ProcessState)
	}
}

// TestGraceEndsBlockedCommand: the first signal alone ends a blocked command once stopGrace
// has passed.
func TestGraceEndsBlockedCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	cmd, wait := blockedTrace(t, "500ms")
	start := time.Now()
	cmd.Process.Signal(syscall.SIGHUP)
	wait(10 * time.Second)
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGHUP {
		t.Errorf("ended with %v, want death by SIGHUP", cmd.ProcessState)
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Errorf("ended %v after the signal, before the grace of 500ms", d)
	}
}

// cgroupsOf returns the cgroup directories host runs of pid created.
func cgroupsOf(pid int) []string {
	var out []string
	for _, pat := range []string{"/sys/fs/cgroup/schedkit-%d-*", "/sys/fs/cgroup/*/schedkit-%d-*", "/sys/fs/cgroup/*/*/schedkit-%d-*"} {
		m, _ := filepath.Glob(fmt.Sprintf(pat, pid))
		out = append(out, m...)
	}
	return out
}

// TestHostSignals sends SIGINT, SIGTERM and SIGHUP to schedbench host in the middle of a run
// of hogs in cgroups: it exits 1 saying it was interrupted, with its cgroups removed and its
// threads gone.
func TestHostSignals(t *testing.T) {
	if testing.Short() || os.Geteuid() != 0 {
		t.Skip("runs real threads in cgroups: needs root, and not -short")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, _, errb, wait := startReady(t, nil, "host", "-no-model", "-until", "60s", "testdata/groups.wl")
			pid := cmd.Process.Pid
			deadline := time.Now().Add(60 * time.Second) // the machine-wide host lock may be held
			for len(cgroupsOf(pid)) == 0 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Skipf("no cgroup appeared (no cpu controller?): %s", errb)
				}
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			wait(20 * time.Second)
			if code := cmd.ProcessState.ExitCode(); code != exitFailure {
				t.Errorf("status %d (%v), want %d; stderr %q", code, cmd.ProcessState, exitFailure, errb)
			}
			if want := "schedbench host: interrupted: 0 of 1 host runs finished; the table shows them\n"; errb.String() != want {
				t.Errorf("stderr %q, want %q", errb, want)
			}
			if left := cgroupsOf(pid); len(left) > 0 {
				t.Errorf("cgroups left: %q", left)
			}
		})
	}
}
