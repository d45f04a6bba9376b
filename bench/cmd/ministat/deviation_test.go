package main

import (
	"strings"
	"testing"
)

// The two places where we differ from Debian's ministat on purpose, and the terminal width.

func TestNotFiniteRefused(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct{ text, want string }{
		{"1\n2\ninf\n4\n", "ministat: Invalid data on line 3 in <stdin>\n"},
		{"1\nNaN\n", "ministat: Invalid data on line 2 in <stdin>\n"},
		{"1\n2\n3\n-Infinity\n", "ministat: Invalid data on line 4 in <stdin>\n"},
		{"1e999\n", "ministat: Invalid data on line 1 in <stdin>\n"},
	} {
		got := string(runOurs(nil, tc.text))
		if want := "--- stderr\n" + tc.want + "--- exit status 2\n"; got != want {
			t.Errorf("ministat < %q = %q, want %q", tc.text, got, want)
		}
	}
}

func TestWidthOne(t *testing.T) {
	got := string(runOurs([]string{"-w", "1"}, "1\n2\n3\n"))
	if !strings.Contains(got, "infinite scale") || !strings.HasSuffix(got, "--- exit status 2\n") {
		t.Errorf("ministat -w 1 = %q, want a refusal with status 2", got)
	}
	// Without a plot, width 1 is harmless.
	got = string(runOurs([]string{"-n", "-w", "1"}, "1\n2\n3\n"))
	if !strings.HasSuffix(got, "--- exit status 0\n") {
		t.Errorf("ministat -n -w 1 = %q, want success", got)
	}
}

func TestTerminalWidth(t *testing.T) {
	width := func(env map[string]string, term tty) int {
		var out, errb strings.Builder
		run([]string{"-s"}, strings.NewReader("1\n2\n3\n"), &out, &errb, func(k string) string { return env[k] }, term)
		first := strings.SplitN(out.String(), "\n", 3)[1] // the plot's top frame
		return len(first) - 2
	}
	for _, tc := range []struct {
		env  map[string]string
		term tty
		want int
	}{
		{nil, tty{}, 74},
		{map[string]string{"COLUMNS": "100"}, tty{}, 74}, // not a terminal: COLUMNS is ignored
		{map[string]string{"COLUMNS": "100"}, tty{ok: true, cols: 50}, 100},
		{map[string]string{"COLUMNS": "60x"}, tty{ok: true}, 60}, // atoi stops at the x
		{nil, tty{ok: true, cols: 50}, 48},
		{nil, tty{ok: true}, 74},
	} {
		if got := width(tc.env, tc.term); got != tc.want {
			t.Errorf("width with env %v, %+v = %d, want %d", tc.env, tc.term, got, tc.want)
		}
	}
}

func TestPosixlyCorrect(t *testing.T) {
	// With POSIXLY_CORRECT, getopt stops at the first operand: "-n" is a file name.
	var out, errb strings.Builder
	status := run([]string{"-", "-n"}, strings.NewReader("1\n2\n3\n"), &out, &errb,
		func(k string) string {
			if k == "POSIXLY_CORRECT" {
				return "1"
			}
			return ""
		}, tty{})
	if status != 1 || errb.String() != "ministat: Cannot open -n: No such file or directory\n" {
		t.Errorf("POSIXLY_CORRECT ministat - -n: status %d, stderr %q", status, errb.String())
	}
}
