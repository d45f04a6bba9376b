package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files and the README's pictures with the current output")

// TestMain runs the command itself when the test binary is started as a subprocess by the
// tests of signals and terminals.
func TestMain(m *testing.M) {
	if os.Getenv("SCHEDBENCH_TEST_MAIN") == "1" {
		given := os.Args
		os.Args = append([]string{"schedbench"}, strings.Fields(os.Getenv("SCHEDBENCH_TEST_ARGS"))...)
		if os.Getenv("SCHEDBENCH_TEST_ARGV") == "1" { // the arguments after -test.run=^$, as given (FuzzCLI)
			os.Args = append([]string{"schedbench"}, given[2:]...)
		}
		if p := os.Getenv("SCHEDBENCH_TEST_READY"); p != "" {
			signalsCaught = func() { os.WriteFile(p, nil, 0o644) }
		}
		if g, err := time.ParseDuration(os.Getenv("SCHEDBENCH_TEST_GRACE")); err == nil {
			stopGrace = g
		}
		main()
		return
	}
	os.Exit(m.Run())
}

// runCLI runs the command line args in-process and returns what it printed and its status.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli(&env{ctx: context.Background(), stdout: &out, stderr: &errb}, args)
	return out.String(), errb.String(), code
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v (run go test -update to create it)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test -update and review the diff); got:\n%s", path, got)
	}
}

func TestTopLevel(t *testing.T) {
	out, errs, code := runCLI(t, "-h")
	if code != exitOK || !strings.Contains(out, "run ") || !strings.Contains(out, "explain ") || errs != "" {
		t.Errorf("schedbench -h = %d, %q, %q; want 0 and the list of commands on stdout", code, out, errs)
	}
	checkGolden(t, "help.golden", []byte(out))
	for _, c := range commands {
		cmd := c.name
		out, errs, code := runCLI(t, cmd, "-h")
		if code != exitOK || !strings.HasPrefix(out, "usage: schedbench "+cmd) || errs != "" {
			t.Errorf("schedbench %s -h = %d, %q, %q; want 0 and its usage on stdout", cmd, code, out, errs)
		}
		checkGolden(t, cmd+"-help.golden", []byte(out))
		out2, _, code2 := runCLI(t, "help", cmd)
		if code2 != exitOK || out2 != out {
			t.Errorf("schedbench help %s = %d, %q; want the same as %s -h", cmd, code2, out2, cmd)
		}
	}
}
