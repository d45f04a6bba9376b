package stat

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// benchOutput returns go test -bench output with rounds interleaved rounds of two
// implementations of two benchmarks: impl=fast at base ns/op (+1 per round) and impl=slow at
// twice that.
func benchOutput(rounds int, base float64) string {
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/x\ncpu: test\n")
	for r := range rounds {
		for _, n := range []int{4, 64} {
			v := base*float64(n)/4 + float64(r%5)
			fmt.Fprintf(&b, "BenchmarkFind/occupied=%d/impl=fast-2 \t 1000000\t %.1f ns/op\t 0 B/op\t 0 allocs/op\n", n, v)
			fmt.Fprintf(&b, "BenchmarkFind/occupied=%d/impl=slow-2 \t 1000000\t %.1f ns/op\t 0 B/op\t 0 allocs/op\n", n, 2*v)
		}
	}
	b.WriteString("PASS\nok  \texample.com/x\t1.0s\n")
	return b.String()
}

func TestCompareBenchColumns(t *testing.T) {
	tables, err := CompareBench([]BenchInput{{Name: "rounds.txt", R: strings.NewReader(benchOutput(10, 100))}}, BenchOptions{Col: "/impl"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 3 || tables[0].Unit != "sec/op" || tables[1].Unit != "B/op" || tables[2].Unit != "allocs/op" {
		t.Fatalf("CompareBench units: %+v", tables)
	}
	tb := tables[0]
	wantConfig := []BenchConfig{{"goos", "linux"}, {"goarch", "amd64"}, {"pkg", "example.com/x"}, {"cpu", "test"}}
	if !slices.Equal(tb.Config, wantConfig) {
		t.Errorf("Config = %v, want %v", tb.Config, wantConfig)
	}
	if strings.Join(tb.Columns, ",") != "fast,slow" || len(tb.Rows) != 2 {
		t.Fatalf("CompareBench columns %v rows %d, want fast,slow and 2 rows", tb.Columns, len(tb.Rows))
	}
	for i, want := range []struct {
		name   string
		median float64
	}{{"Find/occupied=4-2", 102e-9}, {"Find/occupied=64-2", 1602e-9}} {
		r := tb.Rows[i]
		fast, slow := r.Cells[0], r.Cells[1]
		if r.Name != want.name || len(fast.Values) != 10 || fast.Summary.Center != want.median || slow.Summary.Center != 2*want.median {
			t.Errorf("row %d: %s, fast median %g (n=%d), slow %g; want %s %g and twice", i, r.Name, fast.Summary.Center, len(fast.Values), slow.Summary.Center, want.name, want.median)
		}
		// 10 against 10 values, all of one side above the other: U test p = 2/C(20,10) ≈ 1e-5.
		if fast.Versus != nil || slow.Versus == nil || !(slow.Versus.P < 0.001) || slow.Delta != "+100.00%" {
			t.Errorf("row %d: comparison %+v delta %q, want p < 0.001 and +100.00%%", i, slow.Versus, slow.Delta)
		}
	}
	var b bytes.Buffer
	if err := tb.Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// benchstat's layout: the column keys and the unit over their columns between " │ "
	// rules, the ± in the range column's margin, the change right-aligned, the geomean row;
	// as benchstat -col /impl printed it for the same input.
	want := "" +
		"                   │    fast     │                 slow                 │\n" +
		"                   │   sec/op    │   sec/op     vs base                 │\n" +
		"Find/occupied=4-2    102.0n ± 2%   204.0n ± 2%  +100.00% (p=0.000 n=10)\n" +
		"Find/occupied=64-2   1.602µ ± 0%   3.204µ ± 0%  +100.00% (p=0.000 n=10)\n" +
		"geomean              404.2n        808.5n       +100.00%\n"
	if out != want {
		t.Errorf("Write =\n%s\nwant\n%s", out, want)
	}
	// All zeros: no geomean of the centers, a footnote that says why.
	b.Reset()
	if err := tables[2].Write(&b); err != nil || !strings.Contains(b.String(), "¹ all samples are equal\n² summaries must be >0 to compute geomean\n") {
		t.Errorf("allocs/op table (all zeros) lacks benchstat's footnotes or failed (%v):\n%s", err, b.String())
	}
}

func TestCompareBenchFiles(t *testing.T) {
	// One column per file by default; a benchmark missing from the candidate is "-".
	old := benchOutput(6, 100)
	cand := strings.ReplaceAll(benchOutput(6, 100), "occupied=64", "occupied=65")
	tables, err := CompareBench([]BenchInput{{Name: "old.txt", R: strings.NewReader(old)}, {Name: "new.txt", R: strings.NewReader(cand)}}, BenchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tb := tables[0]
	if strings.Join(tb.Columns, ",") != "old.txt,new.txt" {
		t.Fatalf("columns %v", tb.Columns)
	}
	// Rows: occupied=4 fast/slow (in both), occupied=64 (old only), occupied=65 (new only).
	names := map[string][2]bool{}
	for _, r := range tb.Rows {
		names[r.Name] = [2]bool{r.Cells[0] != nil, r.Cells[1] != nil}
		if r.Cells[0] != nil && r.Cells[1] != nil && (r.Cells[1].Delta != "~" || r.Cells[1].Versus.P < 0.05) {
			t.Errorf("%s: same data in both files compares as %q p=%g", r.Name, r.Cells[1].Delta, r.Cells[1].Versus.P)
		}
	}
	if names["Find/occupied=4/impl=fast-2"] != [2]bool{true, true} || names["Find/occupied=64/impl=slow-2"] != [2]bool{true, false} ||
		names["Find/occupied=65/impl=fast-2"] != [2]bool{false, true} {
		t.Errorf("rows %v", names)
	}
	var b bytes.Buffer
	if err := tb.Write(&b); err != nil || !strings.Contains(b.String(), "¹ benchmark set differs from baseline; geomeans may not be comparable") {
		t.Errorf("Write: %v\n%s", err, b.String())
	}
}

func TestCompareBenchLabels(t *testing.T) {
	// A file given twice gets #0 and #1, as benchstat disambiguates it; a label names a column.
	in := benchOutput(6, 100)
	tables, err := CompareBench([]BenchInput{{Name: "a.txt", R: strings.NewReader(in)}, {Name: "a.txt", R: strings.NewReader(in)},
		{Name: "b.txt", Label: "tuned", R: strings.NewReader(in)}}, BenchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tables[0].Columns, ","); got != "a.txt#0,a.txt#1,tuned" {
		t.Errorf("columns %s, want a.txt#0,a.txt#1,tuned", got)
	}
}

func TestWriteBenchTables(t *testing.T) {
	// The configuration lines: all before the first table, then those that changed.
	two := benchOutput(6, 100) + strings.ReplaceAll(benchOutput(6, 100), "pkg: example.com/x", "pkg: example.com/y")
	tables, err := CompareBench([]BenchInput{{Name: "r.txt", R: strings.NewReader(two)}}, BenchOptions{Col: "/impl"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteBenchTables(&b, tables); err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, ": ") && !strings.Contains(l, "│") && !strings.HasPrefix(l, "¹") && !strings.HasPrefix(l, "²") {
			heads = append(heads, l)
		}
	}
	want := "goos: linux|goarch: amd64|pkg: example.com/x|cpu: test|pkg: example.com/y"
	if got := strings.Join(heads, "|"); got != want || len(tables) != 6 {
		t.Errorf("%d tables, configuration lines %s, want 6 and %s:\n%s", len(tables), got, want, b.String())
	}
}

func TestCompareBenchErrors(t *testing.T) {
	bad := "BenchmarkX 100 12 ns/op\nBenchmarkY 100 abc ns/op\n"
	_, err := CompareBench([]BenchInput{{Name: "bad.txt", R: strings.NewReader(bad)}}, BenchOptions{})
	if err == nil || !strings.Contains(err.Error(), "bad.txt:2") {
		t.Errorf("CompareBench(syntax error on line 2) = %v, want an error naming bad.txt:2", err)
	}
	for _, o := range []BenchOptions{{Confidence: 100}, {Alpha: 2}, {Col: "(("}, {Row: "(("}, {Table: "(("}, {Ignore: "(("}, {Filter: "(("}} {
		if _, err := CompareBench(nil, o); err == nil {
			t.Errorf("CompareBench(%+v): no error", o)
		}
	}
}
