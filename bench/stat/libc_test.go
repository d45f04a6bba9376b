package stat

// This file tests formatG and Strtod against the C library itself: a small C program, built
// with the system's C compiler, prints what glibc's printf and strtod make of the same inputs.

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const libcProbe = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
	char line[512];
	while (fgets(line, sizeof line, stdin) != NULL) {
		size_t n = strlen(line);
		if (n > 0 && line[n-1] == '\n')
			line[--n] = '\0';
		if (line[0] == 'g') {
			unsigned long long u = strtoull(line + 1, NULL, 16);
			double d;
			memcpy(&d, &u, sizeof d);
			printf("%g|%13.8g|%.1f\n", d, d, d);
		} else {
			char *p;
			double d = strtod(line + 1, &p);
			unsigned long long u;
			memcpy(&u, &d, sizeof u);
			printf("%016llx %ld\n", u, (long)(p - (line + 1)));
		}
	}
	return 0;
}
`

// buildProbe compiles libcProbe, or skips the test where there is no C compiler.
func buildProbe(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc): the comparison with glibc's printf and strtod is skipped")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "probe.c")
	if err := os.WriteFile(src, []byte(libcProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "probe")
	if out, err := exec.Command(cc, "-O2", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cc cannot build the probe (%v): %s", err, out)
	}
	return bin
}

func runProbe(t *testing.T, bin string, input []string) []string {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = []string{"LC_ALL=C"}
	cmd.Stdin = strings.NewReader(strings.Join(input, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != len(input) {
		t.Fatalf("probe answered %d lines for %d", len(lines), len(input))
	}
	return lines
}

func TestFormatGAgainstLibc(t *testing.T) {
	bin := buildProbe(t)
	r := rand.New(rand.NewPCG(7, 7))
	var xs []float64
	for i := range 50000 {
		var x float64
		switch i % 4 {
		case 0:
			x = math.Float64frombits(r.Uint64())
		case 1:
			x = float64(r.IntN(2000000)) / []float64{1, 10, 100, 1000, 1e6}[r.IntN(5)]
		case 2:
			x = r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		case 3:
			x = float64(r.IntN(100)) + 0.5 // ties in the last digit
		}
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			xs = append(xs, x)
		}
	}
	in := make([]string, len(xs))
	for i, x := range xs {
		in[i] = fmt.Sprintf("g%x", math.Float64bits(x))
	}
	bad := 0
	for i, want := range runProbe(t, bin, in) {
		x := xs[i]
		got := formatG(x, 6) + "|" + padLeft(formatG(x, 8), 13) + "|" + fmt.Sprintf("%.1f", x)
		if got != want && bad < 10 {
			bad++
			t.Errorf("formatG(%v): %q, printf %q", x, got, want)
		}
	}
}

func TestStrtodAgainstLibc(t *testing.T) {
	bin := buildProbe(t)
	r := rand.New(rand.NewPCG(8, 8))
	toks := []string{"inf", "-INF", "infinity", "infinit", "0x", "0x1p3", "0X1P-3", "0x.8", "0x1.",
		"0x1p", "0x1p+", "1e", "1e+", "1e5", ".5", "5.", "-.5e-3", "1e400", "-1e400", "1e-400",
		"4.9e-324", "2.4e-324", "0x1p-1074", "0x1p-1080", "00012", "  12", " \v\f\r7", "+-1",
		"--1", "1..2", "0x1g", "1e5e5", "123456789012345678901234567890", "2.2250738585072011e-308"}
	const alphabet = "0123456789.eE+-xXpPaAfFiInNtTyY \t_#"
	for range 50000 {
		b := make([]byte, 1+r.IntN(12))
		for k := range b {
			b[k] = alphabet[r.IntN(len(alphabet))]
		}
		toks = append(toks, string(b))
	}
	in := make([]string, len(toks))
	for i, s := range toks {
		in[i] = "s" + s
	}
	bad := 0
	for i, want := range runProbe(t, bin, in) {
		v, n := Strtod([]byte(toks[i]))
		if n == 0 {
			v = 0
		}
		if math.IsNaN(v) {
			// glibc's NaN payloads differ from Go's; the length must agree.
			want = want[strings.IndexByte(want, ' '):]
			if got := fmt.Sprintf(" %d", n); got != want && bad < 10 {
				bad++
				t.Errorf("Strtod(%q) used %d bytes, strtod%s", toks[i], n, want)
			}
			continue
		}
		if got := fmt.Sprintf("%016x %d", math.Float64bits(v), n); got != want && bad < 10 {
			bad++
			t.Errorf("Strtod(%q) = %s, strtod %s", toks[i], got, want)
		}
	}
}
