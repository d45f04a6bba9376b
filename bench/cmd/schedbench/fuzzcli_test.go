//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The inputs of FuzzCLI's command lines, written into the child's working directory: the input
// under each name a reader dispatches on, and a real workload.
var fuzzInputNames = []string{"in.wl", "in.json", "in.ftrace", "in.gotrace", "in.txt", "in.jsonl", "in.rtapp.json"}

// fuzzExcluded are the commands FuzzCLI does not run: host and calibrate run real threads and
// cgroups on this machine (their signals and leftovers have tests of their own), record runs the
// program its command line names, and serve builds the course page with the Go toolchain.
var fuzzExcluded = []string{"host", "calibrate", "record", "serve"}

// fuzzDevices are the only paths outside the child's directory a command line may name.
var fuzzDevices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// Deadlines of a FuzzCLI run: SIGTERM after fuzzRunFor, and the command must be gone
// fuzzStopWithin after that.
const (
	fuzzRunFor     = 3 * time.Second
	fuzzStopWithin = 25 * time.Second
)

// FuzzCLI runs schedbench as a process on an argument vector (NUL-separated) and an input file
// (written under each name in fuzzInputNames, and given as standard input), with the
// process-level oracle of the hostile-input trials: the status is 0, 1 or 2, never a signal or a
// Go crash; a failure prints exactly one line on stderr, starting "schedbench" and without a
// panic; a usage error (2) prints nothing on stdout; a command still running after fuzzRunFor
// gets SIGTERM and must end within fuzzStopWithin with status 1 (or its own 0 or 2); and nothing
// is left behind: no temporary file in the directory, no process in the command's process
// group. Command lines that name a path outside the directory (other than fuzzDevices) or one of
// fuzzExcluded are skipped: the fuzzer runs as root and must not write the machine's files.
//
// The seeds are the kinds of hostile input issue 28's trials found, each now refused or bounded.
func FuzzCLI(f *testing.F) {
	wl := "thread a nice=5\n\trun 1ms\n\tsleep 2ms\nend\n"
	for _, c := range []struct{ args, input string }{
		{"run\x00-until\x0020ms\x00in.wl", wl},
		{"run\x00-until\x0020ms\x00in.wl", strings.ReplaceAll(wl, "\n", "\r")},        // CR-only line endings
		{"run\x00in.wl", "# nothing\n"},                                               // no thread
		{"run\x00-reps\x00100000\x00in.wl", wl},                                       // reps beyond the bound
		{"run\x00-until\x001000h\x00mixed.wl", ""},                                    // until beyond the bound
		{"run\x00-format\x00json\x00-until\x0010ms\x00-o\x00out\x00mixed.wl", ""},     // artefacts
		{"run\x00-o\x00/dev/null\x00-until\x0010ms\x00mixed.wl", ""},                  // -o a device: not a directory
		{"trace\x00-o\x00/dev/full\x00-until\x0010ms\x00mixed.wl", ""},                // written through: ENOSPC
		{"trace\x00-o\x00t.json\x00-until\x0024h\x00mixed.wl", ""},                    // long: SIGTERM mid-run
		{"explain\x00-at\x00-5ms\x00mixed.wl", ""},                                    // negative -at
		{"run\x00-topology\x00" + strings.Repeat("core:4 ", 10000) + "\x00in.wl", wl}, // a long spec, quoted short
		{"run\x00-topology\x00in.txt\x00in.wl", strings.Repeat("core:4 ", 150000)},    // a megabyte spec file
		{"run\x00/dev/zero", ""},                                                      // an input without end
		{"stat\x00in.txt\x00in.txt", "1e155\n2e155\n3e155\n"},                         // overflowing sums
		{"stat\x00in.txt", "1e300\n3e300\n2e300\n5e300\n"},
		{"stat\x00-w\x001000000000\x00in.txt", "1\n2\n3\n"},                  // width beyond the bound
		{"stat\x00-", "1\n2\n3\n4\n"},                                        // standard input
		{"sweep\x00-shard\x00\x00seed000-nice", ""},                          // empty shard
		{"sweep\x00-set\x00nice=1\x00-grid\x00nice=0,5\x00seed000-nice", ""}, // set and grid
		{"sweep\x00-grid\x00nice=1,1\x00seed000-nice", ""},                   // a value twice
		{"sweep\x00-reps\x00100000\x00seed000-nice", ""},
		{"sweep\x00-set\x00jobs=1e6\x00seed000-buildkernel", ""}, // a million forks a cell: refused, memory
		{"merge\x00seed000-nice\x00in.jsonl", `{"scenario":"seed000-nice","cell":0,"point":{},"row":"x","rep":0,"metrics":[null]}` + "\n"},
		{"replay\x00in.ftrace", "garbage\n"},
		{"replay\x00in.json", `{"global":{"duration":1},"tasks":{"t":{"run":1000}}}`},
		{"seeds\x00-params\x00seed000-nice", ""},
		{"frobnicate", ""},
		{"help\x00run", ""},
	} {
		f.Add(c.args, []byte(c.input))
	}
	mixed, err := os.ReadFile("workloads/mixed.wl")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, argv string, input []byte) {
		args := strings.Split(argv, "\x00")
		if len(args) == 0 || slices.Contains(fuzzExcluded, args[0]) {
			t.Skip("not run: a command that acts on the machine")
		}
		if len(argv) > 1<<20 {
			t.Skip("not run: longer than the kernel takes for a command line")
		}
		for _, a := range args {
			if len(a) >= 128<<10 {
				t.Skip("not run: an argument longer than the kernel takes (MAX_ARG_STRLEN)")
			}
			if (strings.Contains(a, "/") || strings.HasPrefix(a, "~")) && !slices.Contains(fuzzDevices, a) {
				t.Skip("not run: a path outside the test's directory")
			}
		}
		dir := t.TempDir()
		for _, n := range fuzzInputNames {
			if err := os.WriteFile(filepath.Join(dir, n), input, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "mixed.wl"), mixed, 0o644); err != nil {
			t.Fatal(err)
		}
		// In this process first, for the fuzzer's coverage: stopped at fuzzRunFor through its
		// context, one line on failure, no panic (a panic fails the target).
		t.Chdir(dir)
		ctx, cancel := context.WithTimeout(context.Background(), fuzzRunFor)
		var ob, eb bytes.Buffer
		code := cli(&env{ctx: ctx, stdin: bytes.NewReader(input), stdout: &ob, stderr: &eb}, args)
		cancel()
		if code != exitOK && strings.Count(eb.String(), "\n") != 1 {
			t.Fatalf("schedbench %q in process: status %d, stderr not one line: %q", args, code, eb.String())
		}
		// Then as a process, with the whole oracle.
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SCHEDBENCH_TEST_MAIN=1", "SCHEDBENCH_TEST_ARGV=1")
		cmd.Stdin = bytes.NewReader(input)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pgid := cmd.Process.Pid
		defer syscall.Kill(-pgid, syscall.SIGKILL) // whatever the oracle finds, leave nothing
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		signalled := false
		select {
		case <-done:
		case <-time.After(fuzzRunFor):
			signalled = true
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(fuzzStopWithin):
				t.Fatalf("schedbench %q did not end within %v of SIGTERM", args, fuzzStopWithin)
			}
		}
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		code = ws.ExitStatus()
		errs := stderr.String()
		switch {
		case ws.Signaled():
			t.Fatalf("schedbench %q died of %v (SIGTERM sent: %v); stderr %q", args, ws.Signal(), signalled, errs)
		case code != exitOK && code != exitFailure && code != exitUsage:
			t.Fatalf("schedbench %q: status %d; stderr %q", args, code, errs)
		case strings.Contains(errs, "panic") || strings.Contains(errs, "goroutine ") || strings.Contains(errs, "fatal error"):
			t.Fatalf("schedbench %q crashed: %q", args, errs)
		case signalled && code == exitOK && !slices.Contains([]string{"help"}, args[0]):
			// A command that finished just as the signal came: fine.
		}
		if code != exitOK {
			if strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") ||
				!(strings.HasPrefix(errs, "schedbench") || strings.HasPrefix(errs, "usage: schedbench")) {
				t.Fatalf("schedbench %q: status %d, stderr not one line starting schedbench: %q", args, code, errs)
			}
		}
		if code == exitUsage && stdout.Len() > 0 {
			t.Fatalf("schedbench %q: a usage error after writing %d bytes to stdout", args, stdout.Len())
		}
		// Nothing left: no temporary file, no process of the command's group.
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.Contains(d.Name(), ".schedbench-") {
				t.Errorf("schedbench %q left %s", args, p)
			}
			return nil
		})
		if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("schedbench %q left processes in its process group (%v)", args, err)
		}
	})
}
