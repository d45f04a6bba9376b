//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/trace"
)

// recordScript writes a shell script that runs body and returns its path: the commands the
// tests record take no arguments with spaces, which the subprocess helper cannot pass.
func recordScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "work.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// needTracefs skips the test unless this process can make tracefs instances (root, tracefs
// mounted).
func needTracefs(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("recording needs root (tracefs instances)")
	}
	for _, d := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		if _, err := os.Stat(filepath.Join(d, "instances")); err == nil {
			return d
		}
	}
	t.Skip("tracefs is not mounted")
	return ""
}

// instancesOf returns the tracefs instances a recording of process pid would make.
func instancesOf(root string, pid int) []string {
	m, _ := filepath.Glob(filepath.Join(root, "instances", "schedkit-record-"+strconv.Itoa(pid)))
	return m
}

// importRecorded reads a recorded trace and returns the tasks named comm.
func importRecorded(t *testing.T, path string) *trace.Imported {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	im, err := trace.ReadFtrace(f, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

func hasComm(im *trace.Imported, comm string) bool {
	for _, ts := range im.Tasks {
		if ts.Comm == comm {
			return true
		}
	}
	return false
}

// TestRecordCommand records a shell pipeline into a file, which replay's importer reads with
// the pipeline's programs under their own names (their exec renamed the shells forked for
// them), and leaves no tracefs instance behind.
func TestRecordCommand(t *testing.T) {
	root := needTracefs(t)
	out := filepath.Join(t.TempDir(), "pipe.ftrace")
	script := recordScript(t, "seq 1 30000 | cat > /dev/null")
	stdout, stderr, code := runCLI(t, "record", "-o", out, "--", "sh", script)
	if code != exitOK {
		t.Fatalf("status %d, stderr %q", code, stderr)
	}
	if stdout != "" || !strings.Contains(stderr, " events on ") || !strings.Contains(stderr, "is removed") {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	if left := instancesOf(root, os.Getpid()); len(left) > 0 {
		t.Errorf("instances left: %v", left)
	}
	im := importRecorded(t, out)
	if !hasComm(im, "seq") || !hasComm(im, "cat") {
		t.Errorf("no seq or cat among %d tasks", len(im.Tasks))
	}
	// -o - writes the trace on stdout and the command's output on stderr.
	stdout, stderr, code = runCLI(t, "record", "-o", "-", "--", "sh", recordScript(t, "echo hello"))
	if code != exitOK || !strings.HasPrefix(stdout, "# tracer: nop\n") || !strings.Contains(stderr, "hello") {
		t.Errorf("-o -: status %d, stdout starts %q, stderr %q", code, stdout[:min(len(stdout), 40)], stderr)
	}
}

// TestRecordUsage: a missing or unknown command, or a bad flag, is a usage error before any
// recording.
func TestRecordUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "no command given"},
		{[]string{"-o", "x", "--"}, "no command given"},
		{[]string{"--", "no-such-program-here"}, "no-such-program-here: executable file not found"},
		{[]string{"-buffer", "12", "--", "true"}, "-buffer \"12\": want a size"},
		{[]string{"-o", "/no/such/dir/x", "--", "true"}, "-o "},
	} {
		_, stderr, code := runCLI(t, append([]string{"record"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("record %q: status %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestRecordCommandFails: a command that fails still leaves its trace, and record says how it
// ended, with status 1.
func TestRecordCommandFails(t *testing.T) {
	root := needTracefs(t)
	out := filepath.Join(t.TempDir(), "fail.ftrace")
	_, stderr, code := runCLI(t, "record", "-o", out, "--", "sh", recordScript(t, "seq 1 1000 > /dev/null; exit 3"))
	if code != exitFailure || !strings.Contains(stderr, "exit status 3; its trace is in "+out) {
		t.Errorf("status %d, stderr %q; want 1 and the exit status", code, stderr)
	}
	if im := importRecorded(t, out); !hasComm(im, "seq") {
		t.Errorf("the failed command's trace has no seq")
	}
	if left := instancesOf(root, os.Getpid()); len(left) > 0 {
		t.Errorf("instances left: %v", left)
	}
}

// TestRecordSignals sends SIGINT, SIGTERM and SIGHUP to schedbench record while the recorded
// command runs: the signal reaches the command, which ends; the trace until then is written,
// the tracefs instance removed, and record exits with status 1 saying it was interrupted.
func TestRecordSignals(t *testing.T) {
	root := needTracefs(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out, pidFile := filepath.Join(dir, "sig.ftrace"), filepath.Join(dir, "pid")
			script := recordScript(t, "seq 1 1000 > /dev/null; echo $$ > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; exec sleep 60")
			cmd, _, errb, wait := startReady(t, nil, "record", "-o", out, "--", "sh", script)
			var child int
			deadline := time.Now().Add(30 * time.Second)
			for child == 0 {
				if data, err := os.ReadFile(pidFile); err == nil {
					child, _ = strconv.Atoi(strings.TrimSpace(string(data)))
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the recorded command did not start: %s", errb)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if len(instancesOf(root, cmd.Process.Pid)) != 1 {
				t.Errorf("no tracefs instance while recording")
			}
			cmd.Process.Signal(sig)
			wait(20 * time.Second)
			if code := cmd.ProcessState.ExitCode(); code != exitFailure || !strings.Contains(errb.String(), "interrupted") {
				t.Errorf("status %d, stderr %q; want 1 and interrupted", code, errb)
			}
			if err := syscall.Kill(child, 0); err == nil {
				syscall.Kill(child, syscall.SIGKILL)
				t.Errorf("the recorded command (pid %d) still runs", child)
			}
			if left := instancesOf(root, cmd.Process.Pid); len(left) > 0 {
				t.Errorf("instances left: %v", left)
			}
			if im := importRecorded(t, out); !hasComm(im, "seq") {
				t.Errorf("the interrupted recording's trace has no seq")
			}
		})
	}
}

// TestRecordPerf records with perf sched record (the fallback where tracefs is not writable),
// where perf is installed and works.
func TestRecordPerf(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("perf sched record needs root")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf is not installed (apt-get install linux-perf)")
	}
	out := filepath.Join(t.TempDir(), "perf.ftrace")
	_, stderr, code := runCLI(t, "record", "-perf", "-o", out, "--", "sh", recordScript(t, "seq 1 30000 | cat > /dev/null"))
	if code != exitOK {
		t.Skipf("perf sched record does not work here: status %d, %s", code, stderr)
	}
	if im := importRecorded(t, out); !hasComm(im, "seq") || !hasComm(im, "cat") {
		t.Errorf("no seq or cat among %d tasks", len(im.Tasks))
	}
}
