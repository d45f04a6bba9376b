package stat_test

import (
	"fmt"

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
