package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "regenerate testdata/data and record testdata/golden from Debian's ministat")

// goldenCases are the command lines of the golden tests; file names are relative to
// testdata/data. Each case's output, standard error and exit status were recorded from Debian's
// ministat 20150715-1+b1 (amd64) with go test -run TestGolden -update.
var goldenCases = []struct {
	name string
	args []string
}{
	{"seed000-like", []string{"normal1.txt", "normal2.txt", "normal3.txt"}},
	{"two", []string{"normal1.txt", "normal2.txt"}},
	{"four", []string{"normal1.txt", "normal2.txt", "normal3.txt", "normal4.txt"}},
	{"five", []string{"normal1.txt", "normal2.txt", "normal3.txt", "normal4.txt", "normal5.txt"}},
	{"six", []string{"normal1.txt", "normal2.txt", "normal3.txt", "normal4.txt", "normal5.txt", "normal6.txt"}},
	{"seven", []string{"normal1.txt", "normal2.txt", "normal3.txt", "normal4.txt", "normal5.txt", "normal6.txt", "normal7.txt"}},
	{"seven-separate", []string{"-s", "normal1.txt", "normal2.txt", "normal3.txt", "normal4.txt", "normal5.txt", "normal6.txt", "normal7.txt"}},
	{"eight", []string{"normal1.txt", "normal2.txt", "normal3.txt", "normal4.txt", "normal5.txt", "normal6.txt", "normal7.txt", "big.txt"}},
	{"one-file", []string{"big.txt"}},
	{"big", []string{"big.txt", "normal7.txt"}},
	{"ties", []string{"ties.txt", "ties2.txt"}},
	{"ties-separate", []string{"-s", "ties.txt", "ties2.txt"}},
	{"identical", []string{"same.txt", "same2.txt"}},
	{"identical-equal-values", []string{"equal01.txt", "equal02.txt"}},
	{"equal-values-against-normal", []string{"equal01.txt", "normal1.txt"}},
	{"one-value", []string{"one.txt"}},
	{"two-values", []string{"normal1.txt", "two.txt"}},
	{"empty", []string{"empty.txt"}},
	{"huge", []string{"huge.txt", "huge2.txt"}},
	{"tiny", []string{"tiny.txt", "tiny2.txt"}},
	{"negative", []string{"negative.txt", "negative2.txt"}},
	{"zeros", []string{"zeros.txt", "negzero.txt"}},
	{"skewed", []string{"exp.txt", "spread.txt"}},
	{"conf80", []string{"-c", "80", "normal1.txt", "normal2.txt"}},
	{"conf90", []string{"-c", "90", "normal1.txt", "normal2.txt"}},
	{"conf95", []string{"-c95", "normal1.txt", "normal2.txt"}},
	{"conf98", []string{"-c", "98", "normal1.txt", "normal2.txt"}},
	{"conf99", []string{"-c", "99", "normal1.txt", "normal4.txt"}},
	{"conf99.5", []string{"-c", "99.5", "normal1.txt", "normal5.txt"}},
	{"conf-unsupported", []string{"-c", "97", "normal1.txt"}},
	{"conf-not-a-number", []string{"-c", "ninety", "normal1.txt"}},
	{"conf-kept", []string{"-c", "90", "-c", "97", "normal1.txt", "normal2.txt"}},
	{"summary-only", []string{"-n", "normal1.txt", "normal2.txt"}},
	{"no-plot", []string{"-A", "normal1.txt", "normal2.txt", "normal3.txt"}},
	{"flags-grouped", []string{"-sn", "normal1.txt", "normal2.txt"}},
	{"flags-after-files", []string{"normal1.txt", "-s", "normal2.txt", "-w", "60"}},
	{"width40", []string{"-w", "40", "normal1.txt", "normal2.txt"}},
	{"width120", []string{"-w120", "big.txt", "exp.txt"}},
	{"width0", []string{"-w", "0", "normal1.txt", "normal2.txt"}},
	{"width2", []string{"-w", "2", "normal1.txt", "normal2.txt"}},
	{"width-negative", []string{"-w", "-3", "normal1.txt"}},
	{"width-junk", []string{"-w", "7x", "normal1.txt"}},
	{"column", []string{"-C", "2", "-d", ",", "csv.txt", "csv2.txt"}},
	{"column3", []string{"-C3", "-d,", "csv.txt", "csv2.txt"}},
	{"column-zero", []string{"-C", "0", "csv.txt"}},
	{"column-junk", []string{"-C", "two", "csv.txt"}},
	{"column-missing", []string{"-C", "9", "-d", ",", "csv.txt"}},
	{"delimiter-empty", []string{"-d", "", "csv.txt"}},
	{"comments", []string{"commentsok.txt", "normal1.txt"}},
	{"comment-glued", []string{"comments.txt"}},
	{"invalid", []string{"normal1.txt", "invalid.txt"}},
	{"crlf", []string{"crlf.txt"}},
	{"hex", []string{"hex.txt"}},
	{"long-line", []string{"longline.txt"}},
	{"nul", []string{"nul.txt"}},
	{"no-final-newline", []string{"noeol.txt", "normal4.txt"}},
	{"missing-file", []string{"normal1.txt", "nonexistent.txt"}},
	{"unknown-option", []string{"-x", "normal1.txt"}},
	{"missing-argument", []string{"normal1.txt", "-w"}},
	{"double-dash", []string{"--", "normal1.txt", "normal2.txt"}},
	{"stdin", []string{"-", "normal2.txt"}},
}

// goldenStdin is what the golden cases read from standard input.
const goldenStdin = "435.1\n435.9\n436.2\n434.8\n435.5\n"

// record is one run of a ministat: its standard output, standard error and exit status.
func record(stdout, stderr []byte, status int) []byte {
	return fmt.Appendf(nil, "%s--- stderr\n%s--- exit status %d\n", stdout, stderr, status)
}

// runOurs runs our ministat in-process with the environment of a pipe (not a terminal).
func runOurs(args []string, stdin string) []byte {
	var out, errb bytes.Buffer
	status := run(args, strings.NewReader(stdin), &out, &errb, func(string) string { return "" }, tty{})
	return record(out.Bytes(), errb.Bytes(), status)
}

// runDebian runs the installed ministat in dir, as "ministat", with stdout a pipe.
func runDebian(t *testing.T, path, dir string, args []string, stdin string) []byte {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Args[0] = "ministat"
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", path, err)
	}
	return record(out.Bytes(), errb.Bytes(), status)
}

// debianMinistat returns the path of Debian's ministat, or skips the test.
func debianMinistat(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("ministat")
	if err != nil {
		t.Skip("Debian's ministat is not installed (apt-get install ministat; .ci/run installs it): " +
			"the byte-for-byte comparison with it is skipped")
	}
	return path
}

func TestGolden(t *testing.T) {
	dataDir := filepath.Join("testdata", "data")
	goldenDir := filepath.Join("testdata", "golden")
	if *update {
		path := debianMinistat(t)
		if err := writeData(dataDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, tc := range goldenCases {
			got := runDebian(t, path, dataDir, tc.args, goldenStdin)
			if err := os.WriteFile(filepath.Join(goldenDir, tc.name+".out"), got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Our command runs in testdata/data, as Debian's did, so the names print the same.
	t.Chdir(dataDir)
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("..", "golden", tc.name+".out"))
			if err != nil {
				t.Fatal(err)
			}
			if got := runOurs(tc.args, goldenStdin); !bytes.Equal(got, want) {
				t.Errorf("ministat %s:\n%s", strings.Join(tc.args, " "), lineDiff(got, want))
			}
		})
	}
}

// TestGoldenData checks that the committed data files are the ones the generator writes.
func TestGoldenData(t *testing.T) {
	for name, text := range dataFiles() {
		got, err := os.ReadFile(filepath.Join("testdata", "data", name))
		if err != nil || string(got) != text {
			t.Errorf("testdata/data/%s differs from dataFiles (%v): run go test -run TestGolden -update", name, err)
		}
	}
}

// lineDiff shows the first lines where got and want differ.
func lineDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(g), len(w)) && shown < 8; i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "line %d:\n  got  %q\n  want %q\n", i+1, gl, wl)
			shown++
		}
	}
	return b.String()
}

// freshTrials returns the seed of a test's random trials (-seed, or a new one, logged so that a
// failure can be replayed), their generator on the given stream, and a new working directory the
// test has moved into.
func freshTrials(t *testing.T, stream uint64) (uint64, *rand.Rand, string) {
	t.Helper()
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (replay with -seed=%d)", seed, seed)
	dir := t.TempDir()
	t.Chdir(dir)
	return seed, rand.New(rand.NewPCG(seed, stream)), dir
}

// TestAgainstDebian generates fresh random data sets and options and compares our bytes with
// those of the installed ministat. The seed is new on every run and logged, so a failure can be
// replayed with -seed.
func TestAgainstDebian(t *testing.T) {
	path := debianMinistat(t)
	seed, r, dir := freshTrials(t, 0x5eed)
	trials := 60
	if testing.Short() {
		trials = 15
	}
	for trial := range trials {
		nfiles := 1 + r.IntN(7)
		var args []string
		switch r.IntN(8) {
		case 0:
			args = append(args, "-s")
		case 1:
			args = append(args, "-n")
		case 2:
			args = append(args, "-A")
		}
		if r.IntN(3) == 0 {
			args = append(args, "-c", fmt.Sprint([]float64{80, 90, 95, 98, 99, 99.5}[r.IntN(6)]))
		}
		if r.IntN(3) == 0 {
			args = append(args, "-w", fmt.Sprint(2+r.IntN(150)))
		}
		kind := r.IntN(6)
		base := []float64{1, 435, 1e-3, 1e9, -50, 1e-120}[r.IntN(6)]
		for f := range nfiles {
			name := fmt.Sprintf("t%d-%d.txt", trial, f)
			n := 3 + r.IntN(60)
			if r.IntN(10) == 0 {
				n = 3 + r.IntN(3000)
			}
			shift := base * 0.02 * float64(f) * r.Float64()
			var b strings.Builder
			for range n {
				var x float64
				switch kind {
				case 0, 1:
					x = base + shift + 0.05*base*r.NormFloat64()
				case 2: // ties: whole multiples of a step
					x = float64(int(base)+f%2+r.IntN(4)) * 1
				case 3: // skewed
					x = base + shift + base*r.ExpFloat64()
				case 4: // mixed signs and magnitudes
					x = r.NormFloat64() * base
				case 5: // few distinct values, some negative
					x = float64(r.IntN(5) - 2)
				}
				digits := r.IntN(10)
				switch r.IntN(40) {
				case 0:
					b.WriteString("# a comment\n")
				case 1:
					b.WriteString("\n")
				case 2:
					b.WriteString(" \t ")
				case 3:
					x = -x
				}
				fmt.Fprintf(&b, "%.*g", digits+1, x)
				if r.IntN(30) == 0 {
					b.WriteString("  # trailing comment")
				}
				b.WriteString([]string{"\n", "\n", "\n", "\r\n", " \n"}[r.IntN(5)])
			}
			if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, name)
		}
		want := runDebian(t, path, dir, args, "")
		if got := runOurs(args, ""); !bytes.Equal(got, want) {
			t.Errorf("seed %d trial %d: ministat %s:\n%s", seed, trial, strings.Join(args, " "), lineDiff(got, want))
		}
	}
}

var seedFlag = flag.Uint64("seed", 0, "seed of TestAgainstDebian's random data (0: a new one)")

// TestQuietAgainstDebian checks -q, which Debian's ministat lacks, against what FreeBSD's later
// ministat makes of Debian's report: the same bytes without the legend (one line per data set)
// and the table's header line.
func TestQuietAgainstDebian(t *testing.T) {
	path := debianMinistat(t)
	seed, r, dir := freshTrials(t, 0x9e7)
	const header = "    N           Min           Max        Median           Avg        Stddev"
	for trial := range 20 {
		nfiles := 1 + r.IntN(7)
		args := [][]string{nil, {"-s"}, {"-n"}, {"-A"}}[r.IntN(4)]
		for f := range nfiles {
			name := fmt.Sprintf("q%d-%d.txt", trial, f)
			var b strings.Builder
			for range 3 + r.IntN(40) {
				fmt.Fprintf(&b, "%.6g\n", 100+float64(f)+3*r.NormFloat64())
			}
			if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, name)
		}
		full := runDebian(t, path, dir, args, "")
		lines := strings.SplitAfter(string(full), "\n")
		var want strings.Builder
		for i, l := range lines {
			if i < nfiles || strings.TrimSuffix(l, "\n") == header {
				continue
			}
			want.WriteString(l)
		}
		if want.Len() == len(full) {
			t.Fatalf("trial %d: Debian's report has no legend or header to leave out:\n%s", trial, full)
		}
		if got := runOurs(append([]string{"-q"}, args...), ""); string(got) != want.String() {
			t.Errorf("seed %d trial %d: ministat -q %s:\n%s", seed, trial, strings.Join(args, " "), lineDiff(got, []byte(want.String())))
		}
	}
}
