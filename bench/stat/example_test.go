package stat_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/schedkit/schedkit/bench/stat"
)

// Summarize computes ministat's six numbers; the median of an even number of values is the
// upper middle one, as in ministat.
func ExampleSummarize() {
	s := stat.Summarize([]float64{434.32, 436.63, 435.53, 435.0, 436.1, 435.9})
	fmt.Printf("N=%d Min=%g Max=%g Median=%g Avg=%.8g Stddev=%.8g\n", s.N, s.Min, s.Max, s.Median, s.Mean, s.Stddev)
	// Output: N=6 Min=434.32 Max=436.63 Median=435.9 Avg=435.58 Stddev=0.82483938
}

// Student reproduces the end of seed 000: 4BSD against stock ULE, nine buildkernel runs each,
// from the N, Avg and Stddev the post prints.
func ExampleStudent() {
	bsd := stat.Summary{N: 9, Mean: 435.66667, Stddev: 0.73333144}
	ule := stat.Summary{N: 9, Mean: 436.85111, Stddev: 0.68641176}
	d, err := stat.Student(bsd, ule, 95)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("significant: %t\n%.6g +/- %.6g\n(%v, pooled s = %.6g)\n", d.Significant, d.Delta, d.HalfWidth, d.Test, d.PooledS)
	// Output:
	// significant: true
	// 1.18444 +/- 0.709817
	// (Student's t, pooled s = 0.710259)
}

// Welch does not assume equal variances; its degrees of freedom are fractional.
func ExampleWelch() {
	steady := stat.Summarize([]float64{100, 101, 100, 99, 100, 101, 99, 100})
	noisy := stat.Summarize([]float64{96, 110, 104, 89, 115, 98, 107, 101})
	d, _ := stat.Welch(steady, noisy, 95)
	fmt.Printf("df=%.2f delta=%.2f ± %.2f significant=%t\n", d.DF, d.Delta, d.HalfWidth, d.Significant)
	// Output: df=7.12 delta=2.50 ± 6.94 significant=false
}

// TQuantile gives the critical value for any degrees of freedom and level; TableT gives the
// rounded one ministat prints with.
func ExampleTQuantile() {
	exact := stat.TQuantile(16, 95)
	table, _ := stat.TableT(16, 95)
	fmt.Printf("%.6f %.3f\n", exact, table)
	// Output: 2.119905 2.120
}

// TableT's column for 99.5% is, in ministat's table, the two-sided 99.8% value.
func ExampleTableT() {
	t, _ := stat.TableT(1, 99.5)
	fmt.Printf("%.3f %.3f\n", t, stat.TQuantile(1, 99.8))
	// Output: 318.313 318.309
}

// A Dataset grows one value at a time, as ministat reads a file.
func ExampleDataset() {
	var d stat.Dataset
	for _, x := range []float64{3, 1, 2, 5} {
		d.Add(x)
	}
	s := d.Summary()
	fmt.Println(d.Values(), s.Median, s.Mean)
	// Output: [1 2 3 5] 3 2.75
}

// Variance is ministat's, from running sums.
func ExampleSummary_Variance() {
	fmt.Println(stat.Summarize([]float64{1, 2, 3}).Variance())
	// Output: 1
}

// Ministat prints what ministat prints for the same values: here two policies' makespans.
func ExampleMinistat() {
	ule, bsd := new(stat.Dataset), new(stat.Dataset)
	for _, x := range []float64{101.2, 100.8, 101.9, 101.1, 100.5, 101.4} {
		ule.Add(x)
	}
	for _, x := range []float64{103.0, 102.2, 103.5, 102.9, 102.6, 103.1} {
		bsd.Add(x)
	}
	o := stat.DefaultOptions()
	o.Width = 50
	_ = stat.Ministat(os.Stdout, []stat.Sample{{Name: "ule", Data: ule}, {Name: "4bsd", Data: bsd}}, o)
	// Output:
	// x ule
	// + 4bsd
	// +--------------------------------------------------+
	// |x    x    xx   x       x    +     +    + ++      +|
	// |   |_______A_______|            |______A_M____|   |
	// +--------------------------------------------------+
	//     N           Min           Max        Median           Avg        Stddev
	// x   6         100.5         101.9         101.2        101.15    0.48476799
	// +   6         102.2         103.5           103     102.88333     0.4445972
	// Difference at 95.0% confidence
	// 	1.73333 +/- 0.598296
	// 	1.71363% +/- 0.591494%
	// 	(Student's t, pooled s = 0.465116)
}

// ReadDataset reads a file as ministat does: comments, blank lines and extra fields are fine,
// and an invalid value is an error naming the file and line.
func ExampleReadDataset() {
	d, err := stat.ReadDataset(strings.NewReader("# seconds\n12.5\n\n13.0 run2\n12.75\n"), "times.txt", stat.DefaultReadOptions())
	fmt.Println(d.Summary().N, d.Summary().Mean, err)
	_, err = stat.ReadDataset(strings.NewReader("12.5\n13ms\n"), "times.txt", stat.DefaultReadOptions())
	fmt.Println(err)
	// Output:
	// 3 12.75 <nil>
	// stat: times.txt:2: invalid data "13ms"
}

// Strtod reads a number as C's strtod does, reporting how much of the text it used.
func ExampleStrtod() {
	v, n := stat.Strtod([]byte("0x1.8p3ms"))
	fmt.Println(v, n)
	// Output: 12 7
}

// A Difference prints as ministat's comparison lines.
func ExampleDifference_String() {
	d, _ := stat.Student(stat.Summary{N: 23, Mean: 2542.0 / 23, Stddev: 0.59310931}, stat.Summary{N: 21, Mean: 2211.0 / 21, Stddev: 0.6436503}, 95)
	fmt.Print(d)
	// Output:
	// Difference at 95.0% confidence
	// 	-5.23602 +/- 0.376224
	// 	-4.73755% +/- 0.340407%
	// 	(Student's t, pooled s = 0.617692)
}

// A Comparison prints an mmtests table as today's mmtests prints it: hackbench-like times
// (lower is better) of a baseline and a patched kernel at two group counts; the 21-group
// change is significant (the two 95% intervals of the mean do not overlap) and marked.
func ExampleComparison() {
	c := stat.Comparison{
		Runs:      []string{"6.1-baseline", "6.1-patched"},
		Stats:     []stat.Stat{{Kind: stat.Mean}, {Kind: stat.Stddev}},
		Precision: 4,
		Ops: []stat.Op{
			{Name: "1", Samples: [][]float64{{0.651, 0.660, 0.651}, {0.645, 0.652, 0.647}}},
			{Name: "21", Samples: [][]float64{{4.70, 4.73, 4.726}, {5.70, 5.75, 5.715}}},
		},
	}
	_ = c.Write(os.Stdout)
	// Output:
	//                                  6.1                          6.1
	//                               baseline                      patched
	// Amean  1             0.6540 (   0.00%)            0.6480 (   0.92%)
	// Amean  21            4.7187 (   0.00%)            5.7217 * -21.26%*
	// Stddev 1             0.0052 (   0.00%)            0.0036 (  30.61%)
	// Stddev 21            0.0163 (   0.00%)            0.0257 ( -57.52%)
}

// Version: the same throughputs (higher is better) as mmtests of 2022 and of 2026 print them,
// the second with --print-significance. 2022 shows the arithmetic Stddev of the values and
// marks the 3.58% gain by its t test; 2026 shows HStddev, the spread of the harmonic mean,
// and marks the gain because the intervals Hmean ± 1.96·HStddev do not overlap: the
// difference is 1.15 times the two half-widths that face each other.
func ExampleComparison_version() {
	for _, v := range []int{stat.MMTests2022, stat.MMTests2026} {
		c := stat.Comparison{
			Runs:              []string{"base", "new"},
			Better:            stat.HigherBetter,
			Version:           v,
			Stats:             []stat.Stat{{Kind: stat.Mean}, {Kind: stat.Stddev}},
			PrintSignificance: v == stat.MMTests2026,
			Ops:               []stat.Op{{Name: "tput", Samples: [][]float64{{2100, 2150, 2140, 2160}, {2200, 2230, 2210, 2215}}}},
		}
		_ = c.Write(os.Stdout)
	}
	// Output:
	//                               bas                     ne
	//                               base                    new
	// Hmean  tput     2137.26 (   0.00%)     2213.70 *   3.58%*
	// Stddev tput       26.30 (   0.00%)       12.50 (  52.47%)
	//                                       bas                           ne
	//                                      base                          new
	// Hmean   tput           2137.26 (   0.00%)           2213.70 *   3.58%*
	// HStddev tput             22.98 (   0.00%)             10.81 (  52.96%)
	// Significant tput              0.00 (   0.00%)              1.00 (  -1.15%)
}

// Rows gives the numbers behind the table.
func ExampleComparison_Rows() {
	c := stat.Comparison{
		Runs:   []string{"base", "new"},
		Better: stat.HigherBetter,
		Stats:  []stat.Stat{{Kind: stat.Mean}, {Kind: stat.BestMean, Arg: 50}},
		Ops:    []stat.Op{{Name: "8", Samples: [][]float64{{2100, 2150, 2140, 2160}, {2200, 2230, 2210, 2215}}}},
	}
	rows, _ := c.Rows()
	for _, r := range rows {
		fmt.Printf("%s %s %.2f %.2f %+.2f%% %t\n", r.Name, r.Op, r.Values[0], r.Values[1], r.Changes[1], r.Significant[1])
	}
	// Output:
	// Hmean 8 2137.26 2213.70 +3.58% true
	// BHmean.50 8 2154.99 2222.47 +3.13% false
}

// MannWhitney compares two latency samples without assuming a distribution.
func ExampleMannWhitney() {
	before := []float64{12, 15, 11, 19, 14, 13, 250, 16}
	after := []float64{9, 10, 12, 8, 11, 10, 9, 180}
	r, _ := stat.MannWhitney(before, after)
	fmt.Printf("U=%g p=%.4f exact=%t significant at 95%%: %t\n", r.U, r.P, r.Exact, r.Significant(95))
	// Output: U=55 p=0.0178 exact=false significant at 95%: true
}

// Bootstrap gives a confidence interval for a high percentile, reproducibly from a seed.
func ExampleBootstrap() {
	var lat []float64
	for i := range 1000 {
		lat = append(lat, float64(100+(i*7919)%997)) // a deterministic spread of 100..1096 µs
	}
	iv, _ := stat.Bootstrap(lat, stat.PercentileStat(99), 95, 1000, 1)
	fmt.Printf("p99 = %.1f, 95%% CI [%.1f, %.1f]\n", iv.Estimate, iv.Lo, iv.Hi)
	// Output: p99 = 1086.0, 95% CI [1078.0, 1091.0]
}

// BootstrapDiff says whether a candidate moved the median.
func ExampleBootstrapDiff() {
	base := []float64{10.1, 10.4, 9.8, 10.0, 10.3, 9.9, 10.2, 10.0, 10.1, 9.7}
	cand := []float64{10.6, 10.9, 10.4, 10.8, 10.5, 10.7, 11.0, 10.6, 10.5, 10.8}
	d, _ := stat.BootstrapDiff(base, cand, stat.Median, 95, 2000, 7)
	fmt.Printf("median moved by %.2f, 95%% CI [%.2f, %.2f]\n", d.Estimate, d.Lo, d.Hi)
	// Output: median moved by 0.60, 95% CI [0.40, 0.85]
}

// Quantile interpolates between the two nearest values.
func ExampleQuantile() {
	fmt.Println(stat.Quantile([]float64{1, 2, 3, 4}, 0.5), stat.Quantile([]float64{1, 2, 3, 4}, 0.99))
	// Output: 2.5 3.9699999999999998
}

// MinDetectable is the effect of N: seed 000's spread of 0.71 s per run and nine runs each can
// prove a difference of 0.71 s half the time, and 1.00 s eight times in ten.
func ExampleMinDetectable() {
	fmt.Printf("%.2f %.2f\n", stat.MinDetectable(0.71, 9, 95, 0.5), stat.MinDetectable(0.71, 9, 95, 0.8))
	// Output: 0.71 1.00
}

// RunsNeeded answers "how many runs?": seed 000's 0.27% (1.18 s) with s = 0.71 s.
func ExampleRunsNeeded() {
	n, _ := stat.RunsNeeded(0.71, 1.18, 95, 0.8)
	fmt.Println(n)
	// Output: 7
}

// CompareBench reads go test -bench output and compares implementations, as benchstat does.
func ExampleCompareBench() {
	var out strings.Builder
	for i := range 6 {
		fmt.Fprintf(&out, "BenchmarkPick/impl=ule-2 \t 1000\t %d ns/op\n", 40+i%3)
		fmt.Fprintf(&out, "BenchmarkPick/impl=heap-2 \t 1000\t %d ns/op\n", 80+i%3)
	}
	tables, _ := stat.CompareBench([]stat.BenchInput{{Name: "rounds.txt", R: strings.NewReader(out.String())}}, stat.BenchOptions{Col: "/impl"})
	r := tables[0].Rows[0]
	fmt.Println(tables[0].Unit, tables[0].Columns, r.Name, r.Cells[1].Delta, r.Cells[1].Versus)
	// Output: sec/op [ule heap] Pick-2 +97.56% p=0.002 n=6
}

// WriteBenchTables prints what benchstat prints: the configuration, then each table.
func ExampleWriteBenchTables() {
	out := "goos: linux\ngoarch: amd64\npkg: example.com/runq\n"
	for i := range 6 {
		out += fmt.Sprintf("BenchmarkFind/occupied=4/impl=bitmap-2 \t 1000\t %d ns/op\n", 12+i%2)
		out += fmt.Sprintf("BenchmarkFind/occupied=4/impl=linear-2 \t 1000\t %d ns/op\n", 190+i%3)
	}
	tables, _ := stat.CompareBench([]stat.BenchInput{{Name: "rounds.txt", R: strings.NewReader(out)}}, stat.BenchOptions{Col: "/impl"})
	_ = stat.WriteBenchTables(os.Stdout, tables)
	// Output:
	// goos: linux
	// goarch: amd64
	// pkg: example.com/runq
	//                   │   bitmap    │                linear                 │
	//                   │   sec/op    │    sec/op     vs base                 │
	// Find/occupied=4-2   12.50n ± 4%   191.00n ± 1%  +1428.00% (p=0.002 n=6)
}

// Stats lists a summary kind's rows in one mmtests version: the first rows of seed 004's
// perfpipe table (mmtests 2022) and of the same table today.
func ExampleSummaryKind_Stats() {
	for _, v := range []int{stat.MMTests2022, stat.MMTests2026} {
		c := stat.Comparison{
			Runs:    []string{"base", "new"},
			Version: v,
			Stats:   stat.Variabletime.Stats(v)[:4],
			Ops:     []stat.Op{{Name: "Time", Samples: [][]float64{{8.86, 8.92, 8.99, 9.06, 9.16}, {8.83, 9.00, 9.06, 9.08, 9.28}}}},
		}
		_ = c.Write(os.Stdout)
	}
	// Output:
	//                                   bas                     ne
	//                                  base                    new
	// Min       Time        8.86 (   0.00%)        8.83 (   0.34%)
	// 1st-qrtle Time        8.86 (   0.00%)        8.83 (   0.34%)
	// 2nd-qrtle Time        8.92 (   0.00%)        9.00 (  -0.90%)
	// 3rd-qrtle Time        8.99 (   0.00%)        9.06 (  -0.78%)
	//                                         bas                           ne
	//                                        base                          new
	// Min       Time              8.86 (   0.00%)              8.83 (   0.34%)
	// Pctile.25 Time              8.86 (   0.00%)              8.83 (   0.34%)
	// Pctile.50 Time              8.92 (   0.00%)              9.00 (  -0.90%)
	// Pctile.75 Time              8.99 (   0.00%)              9.06 (  -0.78%)
}

// Median and PercentileStat are Statistics for Bootstrap; Median averages the middle two.
func ExamplePercentileStat() {
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 100}
	fmt.Printf("%g %.1f\n", stat.Median(sorted), stat.PercentileStat(90)(sorted))
	// Output: 5.5 18.1
}

// Median is the interpolated median, not ministat's upper one.
func ExampleMedian() {
	fmt.Println(stat.Median([]float64{1, 2, 3, 4}), stat.Summarize([]float64{1, 2, 3, 4}).Median)
	// Output: 2.5 3
}

// A RankTest is significant when its p-value is below 1 - confidence.
func ExampleRankTest_Significant() {
	r, _ := stat.MannWhitney([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	fmt.Printf("%.4f %t %t\n", r.P, r.Significant(95), r.Significant(99.5))
	// Output: 0.0079 true false
}

// Test names the test in a comparison's last line.
func ExampleTest_String() {
	fmt.Println(stat.StudentT, stat.WelchT)
	// Output: Student's t Welch's t
}
