package stat

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// The cases below are worked out by hand from mmtests' Perl (the functions named in
// mmtests.go): those of mmtests 2022 at commit b5f04c23ee0ef2ea1468b9f2a377d7eec49a4f4b, those
// of mmtests 2026 at commit 638401e07e70d67fa5a1e6295e1315ae0af831b2. mmtests_ref_test.go
// compares whole tables with what mmtests' own code printed.

func TestComparisonRowsLowerBetter(t *testing.T) {
	// baseline {6, 2, 4}: sorted 2 4 6, Amean 4, Stddev sqrt(8/2) = 2, CoeffVar 50;
	//   BAmean-50 takes max(1, ⌊3·50/100⌋) = 1 value: 2; BAmean-95 and -99 take ⌊2.85⌋ = ⌊2.97⌋ = 2: 3.
	// patched {10, 3, 5}: sorted 3 5 10, Amean 6, Stddev sqrt(26/2) = sqrt(13), CoeffVar 100·sqrt(13)/6;
	//   BAmean-50 3, BAmean-95 and -99 4.
	// Changes are pndiff, 100 - new·100/base. Significance: t = 2/sqrt(4/3 + 13/3) = 0.8402 with
	// 4 degrees of freedom, p = 0.448 > 0.10: not significant.
	c := Comparison{
		Runs:    []string{"baseline", "patched"},
		Version: MMTests2022,
		Ops:     []Op{{Name: "21", Samples: [][]float64{{6, 2, 4}, {10, 3, 5}}}},
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
			c := Comparison{Runs: []string{"a", "b"}, Version: MMTests2022, Stats: []Stat{{Kind: Mean}, {Kind: Stddev}},
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
	c := Comparison{Runs: []string{"a", "b"}, Version: MMTests2022, Stats: []Stat{{Kind: Mean}}, Level: 0.15,
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
		Runs:    []string{"base", "new"},
		Better:  HigherBetter,
		Version: MMTests2022,
		Stats:   []Stat{{Kind: Mean}, {Kind: Percentile, Arg: 50}, {Kind: Stddev}, {Kind: BestMean, Arg: 50}, {Kind: Amean}, {Kind: Gmean}},
		Ops:     []Op{{Name: "8", Samples: [][]float64{{100, 200}, {150, 150}}}},
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
	c := Comparison{Runs: []string{"a", "b"}, Better: HigherBetter, Version: MMTests2022, Stats: []Stat{{Kind: Mean}, {Kind: Stddev}},
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
		Runs:    []string{"baseline", "patched"},
		Version: MMTests2022,
		Stats:   []Stat{{Kind: Min}, {Kind: Mean}, {Kind: BestMean, Arg: 95}},
		Ops:     []Op{{Name: "21", Samples: [][]float64{{6, 2, 4}, {10, 3, 5}}}, {Name: "4", Samples: [][]float64{{10, 10.1, 9.9}, {11, 11.1, 10.9}}}},
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

func TestSummaryKindStats(t *testing.T) {
	// The row names of each kind in each version, in mmtests' order: Summarise*.pm's
	// _SummaryStats through getStatName. Variabletime 2022 is seed 004's perfpipe table.
	for _, tc := range []struct {
		kind    SummaryKind
		version int
		better  Better
		want    string
	}{
		{Multiops, MMTests2022, LowerBetter, "Min Amean Stddev CoeffVar Max BAmean-50 BAmean-95 BAmean-99"},
		{Multiops, MMTests2022, HigherBetter, "Min Hmean Stddev CoeffVar Max BHmean-50 BHmean-95 BHmean-99"},
		{Multiops, MMTests2026, LowerBetter, "Min Amean Stddev CoeffVar Max BAmean.95"},
		{Multiops, MMTests2026, HigherBetter, "Min Hmean HStddev HCoeffVar Max BHmean.95"},
		{Normalisedops, MMTests2026, LowerBetter, "Min Amean BAmean.95 Pctile.95 Stddev CoeffVar Max"},
		{NormalisedLeftSkewops, MMTests2026, HigherBetter, "Min Hmean BHmean.50 Pctile.50 BHmean.75 Pctile.75 BHmean.90 Pctile.90 BHmean.99 Pctile.99 HStddev HCoeffVar Max"},
		{Singleops, MMTests2022, LowerBetter, "Ops"},
		{Singleops, MMTests2026, HigherBetter, "Ops"},
		{Variabletime, MMTests2022, LowerBetter, "Min 1st-qrtle 2nd-qrtle 3rd-qrtle Max-1 Max-5 Max-10 Max-90 Max-95 Max-99 Max Amean Stddev CoeffVar BAmean-99 BAmean-95 BAmean-90 BAmean-75 BAmean-50 BAmean-25"},
		{Variabletime, MMTests2026, LowerBetter, "Min Pctile.25 Pctile.50 Pctile.75 Pctile.1 Pctile.5 Pctile.10 Pctile.90 Pctile.95 Pctile.99 Max Amean Stddev CoeffVar BAmean.99 BAmean.95 BAmean.90 BAmean.75 BAmean.50 BAmean.25"},
	} {
		c := Comparison{Version: tc.version, Better: tc.better}
		var names []string
		for _, s := range tc.kind.Stats(tc.version) {
			names = append(names, c.statName(s))
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("%v.Stats(%d) names (%v) = %s, want %s", tc.kind, tc.version, tc.better, got, tc.want)
		}
	}
	for _, k := range []SummaryKind{Normalisedops, NormalisedLeftSkewops} {
		if s := k.Stats(MMTests2022); s != nil {
			t.Errorf("%v.Stats(2022) = %v, want nil: mmtests 2022 has no such kind", k, s)
		}
		c := Comparison{Runs: []string{"a"}, Version: MMTests2022, Summary: k, Ops: []Op{{Name: "x", Samples: [][]float64{{1}}}}}
		if _, err := c.Rows(); err == nil {
			t.Errorf("Rows of a 2022 %v comparison: no error", k)
		}
	}
	if got := (&Comparison{}).stats(); len(got) != 6 {
		t.Errorf("the zero Comparison's rows = %v, want mmtests 2026's six Multiops rows", got)
	}
	c := Comparison{Version: MMTests2026}
	for _, tc := range []struct {
		s    Stat
		want string
	}{
		{Stat{Kind: Percentile, Arg: 99.9}, "Pctile.99.9"},
		{Stat{Kind: Percentile, Arg: 99.99999}, "Pctile.99.99999"},
		{Stat{Kind: Percentile, Arg: 99.5}, "Pctile.99"},
		{Stat{Kind: Percentile, Arg: 25}, "Pctile.25"},
	} {
		if got := c.statName(tc.s); got != tc.want {
			t.Errorf("statName(%v) = %s, want %s", tc.s, got, tc.want)
		}
	}
}

func TestComparison2026Spread(t *testing.T) {
	// Throughputs {100, 200} and {150, 150}, higher is better. H = 2/(1/200 + 1/100) = 400/3.
	// HStddev = sqrt(((1/200 - 3/400)² + (1/100 - 3/400)²) · H⁴ / 2): both terms are (1/400)²,
	// so sqrt(2/160000 · H⁴ / 2) = H²/400 = 400/9 = 44.44; HCoeffVar = HStddev·100/H = 100/3.
	// The candidate's spread is 0: pndiff(0, ·) = 100. mmtests 2022 printed the arithmetic
	// Stddev of the same data, sqrt(5000) = 70.71.
	for _, tc := range []struct {
		version    int
		sd, cv     float64
		sdN, cvN   string
		mean, best string
	}{
		{MMTests2026, 400.0 / 9, 100.0 / 3, "HStddev", "HCoeffVar", "Hmean", "BHmean.50"},
		{MMTests2022, math.Sqrt(5000), math.Sqrt(5000) * 100 / 150, "Stddev", "CoeffVar", "Hmean", "BHmean-50"},
	} {
		c := Comparison{Runs: []string{"base", "new"}, Better: HigherBetter, Version: tc.version,
			Stats: []Stat{{Kind: Stddev}, {Kind: CoeffVar}, {Kind: Mean}, {Kind: BestMean, Arg: 50}},
			Ops:   []Op{{Name: "8", Samples: [][]float64{{100, 200}, {150, 150}}}}}
		rows, err := c.Rows()
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range []struct {
			name      string
			base, new float64
			change    float64
		}{{tc.sdN, tc.sd, 0, 100}, {tc.cvN, tc.cv, 0, 100}, {tc.mean, 400.0 / 3, 150, 12.5}, {tc.best, 200, 150, -25}} {
			r := rows[i]
			if r.Name != w.name || !near(r.Values[0], w.base) || r.Values[1] != w.new || !near(r.Changes[1], w.change) {
				t.Errorf("%d: row %d = %+v, want %s %g %g change %g", tc.version, i, r, w.name, w.base, w.new, w.change)
			}
		}
	}
}

func TestComparison2026Significance(t *testing.T) {
	// mmtests 2026 marks the mean row when the two 95% intervals, mean ± R's printing of
	// qnorm(0.975)·Stddev, do not overlap. {9, 10, 11} has mean 10 and Stddev 1, so its
	// half-width is R's 1.959964; a candidate {x-1, x, x+1} is significant when x - 10 >
	// 2·1.959964 = 3.919928. At 3.919927985 it is not, though the exact half-widths
	// (2·1.9599639845 = 3.91992797) would make it so. With both spreads 0 the rule is a
	// difference of more than 1. A baseline of one sample has no interval, and when no
	// operation of the baseline has one, mmtests takes its value as 0 (an undefined Perl
	// variable): {5} against {9, 9.1} is then "significant", ratio -65.30 as mmtests printed it.
	for _, tc := range []struct {
		name       string
		base, cand []float64
		want       bool
		ratio, tol float64
	}{
		{"above", []float64{9, 10, 11}, []float64{12.921, 13.921, 14.921}, true, -3.921 / 3.919928, 0},
		{"below", []float64{9, 10, 11}, []float64{12.919, 13.919, 14.919}, false, -3.919 / 3.919928, 0},
		{"R's rounding", []float64{9, 10, 11}, []float64{12.919927985, 13.919927985, 14.919927985}, false, -3.919927985 / 3.919928, 0},
		{"no spread, 1.5 apart", []float64{5, 5}, []float64{6.5, 6.5}, true, -1.5, 0},
		{"no spread, 1 apart", []float64{5, 5}, []float64{6, 6}, false, -1, 0},
		{"one baseline sample", []float64{5}, []float64{9, 9.1}, true, -65.30, 0.005},
		{"one candidate sample", []float64{9, 9.1}, []float64{5}, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Comparison{Runs: []string{"a", "b"}, PrintSignificance: true,
				Ops: []Op{{Name: "x", Samples: [][]float64{tc.base, tc.cand}}}}
			rows, err := c.Rows()
			if err != nil {
				t.Fatal(err)
			}
			var mean, sig Row
			for _, r := range rows {
				switch r.Name {
				case "Amean":
					mean = r
				case "Significant":
					sig = r
				case "Stddev", "CoeffVar", "Min", "Max", "BAmean.95":
					if r.Significant[1] {
						t.Errorf("%s row marked: only the mean row carries marks", r.Name)
					}
				}
			}
			if mean.Significant[1] != tc.want || mean.Significant[0] {
				t.Errorf("Amean row Significant = %v, want [false %t]", mean.Significant, tc.want)
			}
			if sig.Values[1] != b2f(tc.want) || !near(sig.Changes[1], tc.ratio) && math.Abs(sig.Changes[1]-tc.ratio) > tc.tol {
				t.Errorf("Significant row = %v %v, want %v %g", sig.Values, sig.Changes, b2f(tc.want), tc.ratio)
			}
		})
	}
}

func TestComparisonVariabletime2026Marks(t *testing.T) {
	// Variabletime marks Pctile.95 in mmtests 2026, with the values at R's qbinom(0.025, 9,
	// 0.95) = 7 and qbinom(0.975, 9, 0.95) = 9 of each sorted run as its interval: base
	// 1..10 has Pctile.95 = x[8] = 9 and interval [8, 10]; candidate 21..30 has 29, [28, 30].
	// The base is lower: cisum = (10 - 9) + (29 - 28) = 2, ratio (9 - 29)/2 = -10.
	c := Comparison{Runs: []string{"a", "b"}, Summary: Variabletime, PrintSignificance: true,
		Ops: []Op{{Name: "Time", Samples: [][]float64{{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, {30, 29, 28, 27, 26, 25, 24, 23, 22, 21}}}}}
	rows, err := c.Rows()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		want := r.Name == "Pctile.95"
		if r.Name != "Significant" && r.Significant[1] != want {
			t.Errorf("%s row: Significant = %v, want %t", r.Name, r.Significant, want)
		}
		if r.Name == "Significant" && (r.Values[1] != 1 || r.Changes[1] != -10) {
			t.Errorf("Significant row = %v %v, want 1 -10", r.Values, r.Changes)
		}
	}
}

func TestComparisonBadVersion(t *testing.T) {
	c := Comparison{Runs: []string{"a"}, Version: 2024, Ops: []Op{{Name: "x", Samples: [][]float64{{1}}}}}
	if _, err := c.Rows(); err == nil || !strings.Contains(err.Error(), "2024") {
		t.Errorf("Rows with Version 2024: error %v, want one naming 2024", err)
	}
}

func TestRPrint(t *testing.T) {
	// What R 4.2.2's print() showed for these values (echo 'print(x)' | R --slave).
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{1.959963984540054 * 2, "3.919928"},
		{0, "0"},
		{math.NaN(), "NaN"},
		{1.959963984540054 * 123456789, "241970860"},
		{1.959963984540054e-9, "1.959964e-09"},
		{0.1481757, "0.1481757"},
		{123456.75, "123456.8"},
		{3.3e-5, "3.3e-05"},
		{99999995, "1e+08"},
		{9999999.5, "1e+07"},
		{0.00012345678, "0.0001234568"},
		{1234567.8, "1234568"},
		{12345678.9, "12345679"},
		{2.41e15, "2.41e+15"},
		{100, "100"},
		{1e5, "1e+05"},
		{123456, "123456"},
		{0.1 + 0.2, "0.3"},
		{1.0 / 3, "0.3333333"},
		{2.0 / 3 * 1e-4, "6.666667e-05"},
		{5e-5, "5e-05"},
		{0.0001234, "0.0001234"},
		{3e-15, "3e-15"},
		{-2.5, "-2.5"},
		{math.Inf(1), "Inf"},
	} {
		if got := rPrint(tc.x); got != tc.want {
			t.Errorf("rPrint(%v) = %s, want %s", tc.x, got, tc.want)
		}
	}
	// pt(t, df, lower.tail = FALSE) and qnorm(0.975, 0, sd) as R printed them.
	for _, tc := range []struct {
		t    float64
		df   int
		want float64
	}{{12.25, 4, 0.0001275044}, {1.2247, 4, 0.1439397}, {30, 10, 1.980896e-11}} {
		if got := rPtUpper(tc.t, tc.df); got != tc.want {
			t.Errorf("rPtUpper(%g, %d) = %g, want %g", tc.t, tc.df, got, tc.want)
		}
	}
	if got := rQnormHalfWidth(0.05, 0.0173); got != 0.03390738 {
		t.Errorf("rQnormHalfWidth(0.05, 0.0173) = %g, want 0.03390738", got)
	}
}

func TestRQbinom(t *testing.T) {
	// qbinom(0.025, n, 0.95), qbinom(0.975, n, 0.95), qbinom(0.025, n, 0.5), qbinom(0.975, n,
	// 0.5) as R 4.2.2 printed them.
	for _, tc := range []struct{ n, lo, hi, mlo, mhi int }{
		{0, 0, 0, 0, 0}, {1, 0, 1, 0, 1}, {2, 1, 2, 0, 2}, {4, 3, 4, 0, 4}, {9, 7, 9, 2, 7},
		{19, 16, 19, 5, 14}, {29, 25, 29, 9, 20}, {39, 34, 39, 13, 26}, {99, 89, 98, 40, 59},
	} {
		got := []int{rQbinom(0.025, tc.n, 0.95), rQbinom(0.975, tc.n, 0.95), rQbinom(0.025, tc.n, 0.5), rQbinom(0.975, tc.n, 0.5)}
		if want := []int{tc.lo, tc.hi, tc.mlo, tc.mhi}; !slices.Equal(got, want) {
			t.Errorf("qbinom for n = %d: %v, want %v", tc.n, got, want)
		}
	}
}
