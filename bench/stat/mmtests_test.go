package stat

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// The cases below are worked out by hand from mmtests' Perl (the functions named in
// mmtests.go, at commit b5f04c23ee0ef2ea1468b9f2a377d7eec49a4f4b).

func TestComparisonRowsLowerBetter(t *testing.T) {
	// baseline {6, 2, 4}: sorted 2 4 6, Amean 4, Stddev sqrt(8/2) = 2, CoeffVar 50;
	//   BAmean-50 takes max(1, ⌊3·50/100⌋) = 1 value: 2; BAmean-95 and -99 take ⌊2.85⌋ = ⌊2.97⌋ = 2: 3.
	// patched {10, 3, 5}: sorted 3 5 10, Amean 6, Stddev sqrt(26/2) = sqrt(13), CoeffVar 100·sqrt(13)/6;
	//   BAmean-50 3, BAmean-95 and -99 4.
	// Changes are pndiff, 100 - new·100/base. Significance: t = 2/sqrt(4/3 + 13/3) = 0.8402 with
	// 4 degrees of freedom, p = 0.448 > 0.10: not significant.
	c := Comparison{
		Runs:  []string{"baseline", "patched"},
		Stats: MultiopsStats(),
		Ops:   []Op{{Name: "21", Samples: [][]float64{{6, 2, 4}, {10, 3, 5}}}},
	}
	rows, err := c.Rows()
	if err != nil {
		t.Fatal(err)
	}
	s13 := math.Sqrt(13)
	want := []struct {
		name      string
		base, new float64
		change    float64
	}{
		{"Min", 2, 3, -50},
		{"Amean", 4, 6, -50},
		{"Stddev", 2, s13, 100 - s13*100/2},
		{"CoeffVar", 50, s13 * 100 / 6, 100 - (s13*100/6)*100/50},
		{"Max", 6, 10, 100 - 1000.0/6},
		{"BAmean-50", 2, 3, -50},
		{"BAmean-95", 3, 4, 100 - 400.0/3},
		{"BAmean-99", 3, 4, 100 - 400.0/3},
	}
	if len(rows) != len(want) {
		t.Fatalf("Rows() = %d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		r := rows[i]
		if r.Name != w.name || r.Op != "21" || !near(r.Values[0], w.base) || !near(r.Values[1], w.new) ||
			r.Changes[0] != 0 || !near(r.Changes[1], w.change) || r.Significant[1] {
			t.Errorf("row %d = %+v, want %s 21 %g %g change %g, not significant", i, r, w.name, w.base, w.new, w.change)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestComparisonSignificance(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base, cand []float64
		want       bool
	}{
		// t = 1/sqrt(2·0.01/3) = 12.25, 4 df: p = 0.00026.
		{"clear", []float64{10, 10.1, 9.9}, []float64{11, 11.1, 10.9}, true},
		// t = 0.1/sqrt(2·0.01/3) = 1.2247, 4 df: p = 0.288.
		{"overlapping", []float64{10, 10.1, 9.9}, []float64{10.1, 10.2, 10.0}, false},
		// Both deviations zero: any difference counts, no difference does not.
		{"constant, different", []float64{5, 5, 5}, []float64{6, 6, 6}, true},
		{"constant, same", []float64{5, 5, 5}, []float64{5, 5, 5}, false},
		// t = 0.5/sqrt(2·(1/6)/4)... {1,1.5,2,1.5} vs {1.5,2,2.5,2}: s² = 1/6 each, SE = sqrt(1/12),
		// t = 1.732, 6 df: p = 0.134 > 0.10, not significant; at Level 0.15 it is.
		{"near the level", []float64{1, 1.5, 2, 1.5}, []float64{1.5, 2, 2.5, 2}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Comparison{Runs: []string{"a", "b"}, Stats: []Stat{{Kind: Mean}, {Kind: Stddev}},
				Ops: []Op{{Name: "x", Samples: [][]float64{tc.base, tc.cand}}}}
			rows, err := c.Rows()
			if err != nil {
				t.Fatal(err)
			}
			if rows[0].Significant[1] != tc.want || rows[0].Significant[0] {
				t.Errorf("Amean row Significant = %v, want [false %t]", rows[0].Significant, tc.want)
			}
			if rows[1].Significant[1] {
				t.Errorf("Stddev row marked significant: only mean rows carry marks")
			}
		})
	}
	c := Comparison{Runs: []string{"a", "b"}, Stats: []Stat{{Kind: Mean}}, Level: 0.15,
		Ops: []Op{{Name: "x", Samples: [][]float64{{1, 1.5, 2, 1.5}, {1.5, 2, 2.5, 2}}}}}
	if rows, _ := c.Rows(); !rows[0].Significant[1] {
		t.Errorf("p = 0.134 at Level 0.15: not marked")
	}
}

func TestComparisonHigherBetter(t *testing.T) {
	// Throughputs {100, 200} and {150, 150}: sorted descending; Hmean 2/(1/200 + 1/100) = 400/3
	// and 150, pdiff 150·100/(400/3) - 100 = 12.5. 2nd-qrtle takes the first max(1, ⌊2·0.5⌋) = 1
	// value of the descending order: 200 and 150. Stddev: sqrt(5000) and 0, pndiff(0, ·) = 100.
	// BHmean-50: the best value alone.
	c := Comparison{
		Runs:   []string{"base", "new"},
		Better: HigherBetter,
		Stats:  []Stat{{Kind: Mean}, {Kind: Percentile, Arg: 50}, {Kind: Stddev}, {Kind: BestMean, Arg: 50}, {Kind: Amean}, {Kind: Gmean}},
		Ops:    []Op{{Name: "8", Samples: [][]float64{{100, 200}, {150, 150}}}},
	}
	rows, err := c.Rows()
	if err != nil {
		t.Fatal(err)
	}
	check := func(i int, name string, base, new, change float64) {
		t.Helper()
		r := rows[i]
		if r.Name != name || !near(r.Values[0], base) || !near(r.Values[1], new) || !near(r.Changes[1], change) {
			t.Errorf("row %d = %+v, want %s %g %g %g", i, r, name, base, new, change)
		}
	}
	check(0, "Hmean", 400.0/3, 150, 12.5)
	check(1, "2nd-qrtle", 200, 150, -25)
	check(2, "Stddev", math.Sqrt(5000), 0, 100)
	check(3, "BHmean-50", 200, 150, -25)
	check(4, "Amean", 150, 150, 0)
	check(5, "Gmean", math.Sqrt(20000), 150, 150*100/math.Sqrt(20000)-100)
}

func TestComparisonInvalid(t *testing.T) {
	// A zero throughput makes Hmean invalid (calc_hmean returns -1): the cell shows 0 and no change.
	c := Comparison{Runs: []string{"a", "b"}, Better: HigherBetter, Stats: []Stat{{Kind: Mean}, {Kind: Stddev}},
		Ops: []Op{{Name: "x", Samples: [][]float64{{1, 2}, {0, 2}}}, {Name: "y", Samples: [][]float64{{3}, {4}}}}}
	rows, err := c.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if r := rows[0]; r.Values[1] != 0 || r.Changes[1] != 0 || !near(r.Values[0], 4.0/3) {
		t.Errorf("Hmean with a zero sample: %+v", r)
	}
	// One sample: Stddev is NaN, shown as 0.
	if r := rows[3]; r.Name != "Stddev" || r.Op != "y" || r.Values[0] != 0 || r.Values[1] != 0 {
		t.Errorf("Stddev of one sample: %+v", r)
	}
}

func TestComparisonWrite(t *testing.T) {
	c := Comparison{
		Runs:  []string{"baseline", "patched"},
		Stats: []Stat{{Kind: Min}, {Kind: Mean}, {Kind: BestMean, Arg: 95}},
		Ops:   []Op{{Name: "21", Samples: [][]float64{{6, 2, 4}, {10, 3, 5}}}, {Name: "4", Samples: [][]float64{{10, 10.1, 9.9}, {11, 11.1, 10.9}}}},
	}
	// Widths: names up to len("BAmean-95") = 9, operations up to 2, values %12.2f, changes
	// " (%7.2f%%)"; the header's first line is the names minus their last character (no '-').
	want := "" +
		"                            baselin                 patche\n" +
		"                           baseline                patched\n" +
		"Min       21        2.00 (   0.00%)        3.00 ( -50.00%)\n" +
		"Min       4         9.90 (   0.00%)       10.90 ( -10.10%)\n" +
		"Amean     21        4.00 (   0.00%)        6.00 ( -50.00%)\n" +
		"Amean     4        10.00 (   0.00%)       11.00 * -10.00%*\n" +
		"BAmean-95 21        3.00 (   0.00%)        4.00 ( -33.33%)\n" +
		"BAmean-95 4         9.95 (   0.00%)       10.95 ( -10.05%)\n"
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("Write =\n%s\nwant\n%s", b.String(), want)
	}
	c.NoChanges = true
	c.Stats = []Stat{{Kind: Value}}
	c.ValueName = "Lat"
	b.Reset()
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(b.String(), "\n")[2]; got != "Lat 21        2.00        3.00" {
		t.Errorf("Write without changes: %q", got)
	}
}

func TestHeaderPart(t *testing.T) {
	for _, tc := range []struct{ name, l0, l1 string }{
		{"baseline", "baselin", "baseline"},
		{"6.1.0-vanilla", "6.1.0", "vanilla"},
		{"6.1.0-rc1-vanilla", "6.1.0-rc1", "vanilla"},
		{"v6-patched-v2", "v6", "patched-v2"},
		{"x-", "x", ""},
		{"", "", ""},
	} {
		if l0, l1 := headerPart(tc.name, 0), headerPart(tc.name, 1); l0 != tc.l0 || l1 != tc.l1 {
			t.Errorf("headerPart(%q) = %q, %q; want %q, %q", tc.name, l0, l1, tc.l0, tc.l1)
		}
	}
}

func TestComparisonErrors(t *testing.T) {
	for _, c := range []Comparison{
		{},
		{Runs: []string{"a", "b"}, Ops: []Op{{Name: "x", Samples: [][]float64{{1}}}}},
		{Runs: []string{"a"}, Ops: []Op{{Name: "x", Samples: [][]float64{{}}}}},
		{Runs: []string{"a"}, Stats: []Stat{{Kind: Percentile, Arg: 0}}, Ops: []Op{{Name: "x", Samples: [][]float64{{1}}}}},
		{Runs: []string{"a"}, Stats: []Stat{{Kind: BestMean, Arg: 101}}, Ops: []Op{{Name: "x", Samples: [][]float64{{1}}}}},
	} {
		if _, err := c.Rows(); err == nil {
			t.Errorf("Rows(%+v): no error", c)
		}
		if err := c.Write(&bytes.Buffer{}); err == nil {
			t.Errorf("Write(%+v): no error", c)
		}
	}
}

func TestVariabletimeStats(t *testing.T) {
	// The row names of seed 004's perfpipe table, in its order.
	c := Comparison{Stats: VariabletimeStats()}
	var names []string
	for _, s := range c.Stats {
		names = append(names, c.statName(s))
	}
	want := "Min 1st-qrtle 2nd-qrtle 3rd-qrtle Max-1 Max-5 Max-10 Max-90 Max-95 Max-99 Max Amean Stddev CoeffVar BAmean-99 BAmean-95 BAmean-90 BAmean-75 BAmean-50 BAmean-25"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("VariabletimeStats names = %s, want %s", got, want)
	}
}
