package stat

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// g formats x as C's printf %g does for the values these tests print (six significant digits,
// no trailing zeros): the precision of ministat's "Difference" lines.
func g(x float64) string { return fmt.Sprintf("%.6g", x) }

// The seeds' own numbers: what ministat printed at the end of seed 000 (buildkernel -j 8 times,
// 4BSD against stock and patched ULE) and seed 003 (buildworld times, before and after the
// 2024 runq rework). Only N, Avg and Stddev survive in the posts, and those are rounded to 8
// significant digits, so the inputs below are the printed numbers.
//
// Seed 003's times are whole seconds (Min, Max and Median print as integers, and N×Avg is an
// integer to within the rounding: 23 × 110.52174 = 2542.00002, 21 × 105.28571 = 2210.99991), so
// its means are recovered exactly as sum/N; its printed Avg, rounded, would move the difference
// in the sixth digit (-5.23603 for -5.23602). Seed 000's times have two decimals and
// 9 × 435.66667 = 3921.00003, 9 × 436.85111 = 3931.65999, 9 × 438.61889 = 3947.57001: their sums
// are recovered the same way to the hundredth.
func TestStudentSeeds(t *testing.T) {
	sum := func(n int, avg float64, digits float64) float64 {
		return math.Round(float64(n)*avg*digits) / digits / float64(n)
	}
	tests := []struct {
		name                       string
		x, y                       Summary
		delta, hw, rel, rhw, spool string // as printed
	}{
		{"seed 000 4bsd vs ule",
			Summary{N: 9, Mean: sum(9, 435.66667, 100), Stddev: 0.73333144},
			Summary{N: 9, Mean: sum(9, 436.85111, 100), Stddev: 0.68641176},
			"1.18444", "0.709817", "0.271869", "0.163163", "0.710259"},
		{"seed 000 4bsd vs ule_patched",
			Summary{N: 9, Mean: sum(9, 435.66667, 100), Stddev: 0.73333144},
			Summary{N: 9, Mean: sum(9, 438.61889, 100), Stddev: 0.30608187},
			"2.95222", "0.561549", "0.677633", "0.129638", "0.561899"},
		{"seed 003 buildworld",
			Summary{N: 23, Mean: sum(23, 110.52174, 1), Stddev: 0.59310931},
			Summary{N: 21, Mean: sum(21, 105.28571, 1), Stddev: 0.6436503},
			"-5.23602", "0.376224", "-4.73755", "0.332716", "0.617692"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Student(tc.x, tc.y, 95)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{g(d.Delta), g(d.HalfWidth), g(d.Rel), g(d.RelHalfWidthRatio), g(d.PooledS)}
			want := []string{tc.delta, tc.hw, tc.rel, tc.rhw, tc.spool}
			for i, name := range []string{"Delta", "HalfWidth", "Rel", "RelHalfWidthRatio", "PooledS"} {
				if got[i] != want[i] {
					t.Errorf("Student: %s = %s, want %s (as the seed prints it)", name, got[i], want[i])
				}
			}
			if !d.Significant {
				t.Errorf("Student: Significant = false, want true")
			}
		})
	}
}

// TestStudentSeedsAsPrinted feeds seed 000's rounded Avg values as they are: the difference, ±
// and pooled s still agree in every printed digit (only the relative difference moves, in its
// sixth digit, from 0.271869 to 0.271868).
func TestStudentSeedsAsPrinted(t *testing.T) {
	x := Summary{N: 9, Mean: 435.66667, Stddev: 0.73333144}
	y := Summary{N: 9, Mean: 436.85111, Stddev: 0.68641176}
	d, err := Student(x, y, 95)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%s +/- %s pooled s = %s", g(d.Delta), g(d.HalfWidth), g(d.PooledS)); got != "1.18444 +/- 0.709817 pooled s = 0.710259" {
		t.Errorf("Student(seed 000 as printed) = %s", got)
	}
}

func TestStudent(t *testing.T) {
	// x = {1,2,3,4}, y = {5,6,7,9}: worked by hand, and printed by Debian's ministat as
	// "4.25 +/- 2.61936", "170% +/- 104.774%", "(Student's t, pooled s = 1.51383)".
	// s_x² = 5/3, s_y² = 35/12, s² = (3·5/3 + 3·35/12)/6 = 55/24, t(6, 95%) = 2.447 (table),
	// ± = 2.447 · sqrt(55/24) · sqrt(1/2) = 2.61936.
	x, y := Summarize([]float64{1, 2, 3, 4}), Summarize([]float64{5, 6, 7, 9})
	d, err := Student(x, y, 95)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%s %s %s %s %s", g(d.Delta), g(d.HalfWidth), g(d.Rel), g(d.RelHalfWidth), g(d.PooledS)),
		"4.25 2.61936 170 104.774 1.51383"; got != want {
		t.Errorf("Student = %s, want %s", got, want)
	}
	if d.DF != 6 || d.T != 2.447 || !d.Significant || d.Test != StudentT {
		t.Errorf("Student: DF %g T %g Significant %t Test %v, want 6 2.447 true Student's t", d.DF, d.T, d.Significant, d.Test)
	}
	if want := math.Sqrt(55.0/24) * math.Sqrt(0.5); math.Abs(d.StdErr-want) > 1e-15 {
		t.Errorf("Student: StdErr = %g, want %g", d.StdErr, want)
	}

	// At 99.5% the same data prove nothing: t(6) = 5.208, ± = 5.57483 > 4.25.
	d, err = Student(x, y, 99.5)
	if err != nil {
		t.Fatal(err)
	}
	if d.Significant || g(d.HalfWidth) != "5.57483" {
		t.Errorf("Student at 99.5%%: Significant %t ± %s, want false 5.57483", d.Significant, g(d.HalfWidth))
	}
}

func TestStudentLargeDF(t *testing.T) {
	// Beyond 100 degrees of freedom ministat uses the row for infinity.
	x := Summary{N: 51, Mean: 10, Stddev: 1}
	y := Summary{N: 52, Mean: 11, Stddev: 1}
	d, err := Student(x, y, 90)
	if err != nil {
		t.Fatal(err)
	}
	if d.DF != 101 || d.T != 1.645 {
		t.Errorf("Student with 101 df: DF %g T %g, want 101 1.645", d.DF, d.T)
	}
	y.N = 51
	if d, _ = Student(x, y, 90); d.T != 1.660 {
		t.Errorf("Student with 100 df: T %g, want 1.660", d.T)
	}
}

func TestStudentErrors(t *testing.T) {
	ok := Summary{N: 3, Mean: 1, Stddev: 1}
	for _, tc := range []struct {
		name       string
		x, y       Summary
		confidence float64
		want       string
	}{
		{"level not in the table", ok, ok, 97, "no Student's t table column for 97% confidence"},
		{"fraction instead of percent", ok, ok, 0.95, "no Student's t table column for 0.95% confidence"},
		{"one value", Summary{N: 1}, ok, 95, "at least 2 values in each sample, have 1 and 3"},
		{"empty", ok, Summary{}, 95, "at least 2 values in each sample, have 3 and 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Student(tc.x, tc.y, tc.confidence)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "stat: ") {
				t.Errorf("Student(%v) error = %v, want one containing %q", tc.name, err, tc.want)
			}
		})
	}
}

func TestStudentEqualValues(t *testing.T) {
	// Two sets of equal values whose variances both round negative: pooled s is NaN and ministat
	// says "No difference proven" (fabs(d) > NaN is false), whatever the means. (If only one
	// is negative, the pooled variance is a tiny positive number and the difference is "proven".)
	x := Summarize([]float64{0.001, 0.001, 0.001, 0.001, 0.001})
	y := Summarize([]float64{0.002, 0.002, 0.002, 0.002, 0.002})
	if !(x.Variance() < 0 && y.Variance() < 0) {
		t.Fatalf("variances %g and %g: want both negative (rounding of Σx² - (Σx)²/N)", x.Variance(), y.Variance())
	}
	d, err := Student(x, y, 95)
	if err != nil {
		t.Fatal(err)
	}
	if d.Significant {
		t.Errorf("Student(equal values) = %+v, want not significant", d)
	}
}

func TestWelch(t *testing.T) {
	// x = {1,2,3,4}, y = {5,6,7,9}: s_x²/4 = 5/12, s_y²/4 = 35/48, SE² = 55/48, and
	// ν = (55/48)² / ((5/12)²/3 + (35/48)²/3) = 9075/1625 = 5.584615…
	x, y := Summarize([]float64{1, 2, 3, 4}), Summarize([]float64{5, 6, 7, 9})
	d, err := Welch(x, y, 95)
	if err != nil {
		t.Fatal(err)
	}
	if want := 9075.0 / 1625; math.Abs(d.DF-want) > 1e-12 {
		t.Errorf("Welch: DF = %.15g, want %.15g", d.DF, want)
	}
	if want := math.Sqrt(55.0 / 48); math.Abs(d.StdErr-want) > 1e-15 {
		t.Errorf("Welch: StdErr = %g, want %g", d.StdErr, want)
	}
	if d.T != TQuantile(d.DF, 95) || d.HalfWidth != d.T*d.StdErr || d.Delta != 4.25 || d.Test != WelchT {
		t.Errorf("Welch = %+v", d)
	}
	// t(5.58, 97.5%) lies between the table's t(5) = 2.571 and t(6) = 2.447.
	if !(d.T < 2.571 && d.T > 2.447) || !d.Significant {
		t.Errorf("Welch: T = %g, Significant %t; want between 2.447 and 2.571, true", d.T, d.Significant)
	}
	if d.PooledS != 0 {
		t.Errorf("Welch: PooledS = %g, want 0", d.PooledS)
	}

	// Any level works, not only the table's.
	if d97, err := Welch(x, y, 97); err != nil || !(d97.HalfWidth > d.HalfWidth) {
		t.Errorf("Welch at 97%%: %+v, %v; want a wider interval than at 95%%", d97, err)
	}
	// Zero variances: the difference is the difference.
	c3 := Summary{N: 3, Mean: 3, Stddev: 0}
	if d, err := Welch(c3, Summary{N: 3, Mean: 4}, 95); err != nil || !d.Significant || !math.IsNaN(d.DF) {
		t.Errorf("Welch(constant 3, constant 4) = %+v, %v", d, err)
	}
	for _, bad := range []float64{0, 100, -5, math.NaN()} {
		if _, err := Welch(x, y, bad); err == nil {
			t.Errorf("Welch at %g%%: no error", bad)
		}
	}
	if _, err := Welch(Summary{N: 1}, y, 95); err == nil {
		t.Errorf("Welch with N=1: no error")
	}
}

func TestTestString(t *testing.T) {
	for tt, want := range map[Test]string{StudentT: "Student's t", WelchT: "Welch's t", Test(9): "Test(9)"} {
		if got := tt.String(); got != want {
			t.Errorf("Test(%d).String() = %q, want %q", int(tt), got, want)
		}
	}
}
