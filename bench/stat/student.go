package stat

// This file implements Student's two-sample t test with pooled variance, the test behind
// ministat's "Difference at 95.0% confidence" lines, and Welch's test for unequal variances.

import (
	"fmt"
	"math"
)

// A Test names the significance test that produced a [Difference].
type Test int

const (
	// StudentT is Student's two-sample t test: both samples are assumed to come from
	// distributions with the same variance, estimated by the pooled s (ministat's test).
	StudentT Test = iota
	// WelchT is Welch's t test: each sample keeps its own variance, and the degrees of freedom
	// come from the Welch–Satterthwaite equation.
	WelchT
)

// String returns "Student's t" or "Welch's t", as the parenthesis of a ministat-style report
// names the test.
func (t Test) String() string {
	switch t {
	case StudentT:
		return "Student's t"
	case WelchT:
		return "Welch's t"
	}
	return fmt.Sprintf("Test(%d)", int(t))
}

// A Difference is the confidence interval for the difference of two means, y's mean minus x's,
// where x is the baseline: what ministat prints under "Difference at C% confidence". The
// interval is Delta ± HalfWidth; relative to x's mean it is Rel% ± RelHalfWidth%. The
// difference is significant, and ministat prints it, when |Delta| > HalfWidth, that is when the
// interval does not contain 0.
type Difference struct {
	Test       Test
	Confidence float64 // the confidence level, in percent (95 means 95%)
	DF         float64 // degrees of freedom of the t distribution used: N₁+N₂-2 for Student's t
	T          float64 // the two-sided critical value of t at Confidence and DF
	Delta      float64 // y.Mean - x.Mean
	StdErr     float64 // the standard error of Delta
	HalfWidth  float64 // T × StdErr
	// Rel and RelHalfWidth are Delta and HalfWidth as percentages of x.Mean (ministat's second
	// line in the version Debian packages; see RelHalfWidthRatio for FreeBSD's newer one).
	Rel, RelHalfWidth float64
	// RelHalfWidthRatio is the half-width, in percent of x.Mean, that FreeBSD's ministat prints
	// on its second line since it accounts for the uncertainty of both means in the ratio: t ×
	// sqrt(((N_y-1)s_y² + (N_x-1)s_x² ȳ²/x̄²) (N_x+N_y)/(N_x N_y (N_x+N_y-2))) × 100/x̄. It is
	// computed for Student's t only (zero for Welch's). Seeds 000 and 003 were printed by that
	// version.
	RelHalfWidthRatio float64
	PooledS           float64 // the pooled standard deviation (Student's t only; zero for Welch's)
	Significant       bool    // |Delta| > HalfWidth
}

// Student compares y against the baseline x with Student's two-sample t test at the given
// confidence level, in percent, exactly as ministat's Relative does: pooled variance s² =
// ((N_x-1)s_x² + (N_y-1)s_y²)/(N_x+N_y-2), standard error s·sqrt(1/N_x + 1/N_y), and the critical
// value from ministat's own table of t ([TableT]; rows up to 100 degrees of freedom, the normal
// quantile beyond), so that every printed digit agrees with ministat's.
//
// It returns an error if the confidence level is not one of [Levels] (use [Welch] or
// [TQuantile] for other levels), or if either summary has N < 2 (a variance needs two values;
// ministat itself insists on three).
//
// Where ministat's arithmetic overflows (means or variances of values beyond about 1e154), the
// test is computed on both samples divided by a power of two (see [Dataset.Summary]) and the
// absolute figures multiplied back: the relative ones are the same in any unit.
func Student(x, y Summary, confidence float64) (Difference, error) {
	if x.N < 2 || y.N < 2 {
		return Difference{}, fmt.Errorf("stat: Student's t needs at least 2 values in each sample, have %d and %d", x.N, y.N)
	}
	df := x.N + y.N - 2
	t, err := TableT(df, confidence)
	if err != nil {
		return Difference{}, err
	}
	d := student(x, y, t, confidence)
	if k := exponent(x.Mean, y.Mean, x.Stddev, y.Stddev); overflowed(d, x, y) && k > 0 {
		d = student(x.scaled(k), y.scaled(k), t, confidence).unscaled(k)
	}
	return d, nil
}

// overflowed reports whether a Difference of x and y, whose figures are finite, is not.
func overflowed(d Difference, x, y Summary) bool {
	for _, v := range []float64{x.Mean, y.Mean, x.Stddev, y.Stddev} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false // ministat's own NaN (a variance a little below zero) stays
		}
	}
	for _, v := range []float64{d.Delta, d.StdErr, d.HalfWidth, d.Rel, d.RelHalfWidth, d.RelHalfWidthRatio, d.PooledS} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

// unscaled returns d, computed on samples divided by 2^k, for the samples themselves.
func (d Difference) unscaled(k int) Difference {
	d.Delta, d.StdErr, d.HalfWidth = math.Ldexp(d.Delta, k), math.Ldexp(d.StdErr, k), math.Ldexp(d.HalfWidth, k)
	d.PooledS = math.Ldexp(d.PooledS, k)
	return d
}

// student is Student's test of x and y with the critical value t, in ministat's arithmetic.
func student(x, y Summary, t, confidence float64) Difference {
	df := x.N + y.N - 2
	// The order of operations is ministat's (ds is y, rs is x), so the last bits agree too.
	nx, ny := float64(x.N), float64(y.N)
	vx, vy := x.Variance(), y.Variance()
	spool := float64((ny-1)*vy) + float64((nx-1)*vx)
	spool /= float64(df)
	spool = sqrtX86(spool)
	s := spool * math.Sqrt(1.0/ny+1.0/nx)
	d := y.Mean - x.Mean
	e := t * s

	re := float64((ny-1)*vy) + float64((nx-1)*vx*float64(y.Mean*y.Mean))/float64(x.Mean*x.Mean)
	re *= (nx + ny) / (nx * ny * (nx + ny - 2.0))
	re = t * sqrtX86(re)

	return Difference{
		Test:              StudentT,
		Confidence:        confidence,
		DF:                float64(df),
		T:                 t,
		Delta:             d,
		StdErr:            s,
		HalfWidth:         e,
		Rel:               d * 100 / x.Mean,
		RelHalfWidth:      e * 100 / x.Mean,
		RelHalfWidthRatio: re * 100 / x.Mean,
		PooledS:           spool,
		Significant:       math.Abs(d) > e,
	}
}

// Welch compares y against the baseline x with Welch's t test at the given confidence level, in
// percent (any level strictly between 0 and 100): standard error sqrt(s_x²/N_x + s_y²/N_y), and
// degrees of freedom from the Welch–Satterthwaite equation,
//
//	ν = (s_x²/N_x + s_y²/N_y)² / ((s_x²/N_x)²/(N_x-1) + (s_y²/N_y)²/(N_y-1)),
//
// generally not an integer, with the critical value from [TQuantile]. Use it when the two
// samples plainly have different spreads (one policy's runs vary ten times more than the
// other's): Student's pooled s then understates the uncertainty of the noisier one.
//
// It returns an error if either summary has N < 2, or the confidence level is not strictly
// between 0 and 100. If both variances are zero, ν is undefined; Welch then reports the
// difference as significant exactly when Delta is not zero, with DF NaN.
func Welch(x, y Summary, confidence float64) (Difference, error) {
	if x.N < 2 || y.N < 2 {
		return Difference{}, fmt.Errorf("stat: Welch's t needs at least 2 values in each sample, have %d and %d", x.N, y.N)
	}
	if !(confidence > 0 && confidence < 100) {
		return Difference{}, fmt.Errorf("stat: confidence %g%% is not strictly between 0 and 100", confidence)
	}
	if k := exponent(x.Mean, y.Mean, x.Stddev, y.Stddev); k > 250 {
		// Beyond about 1e75 the squares of the variances overflow: the same test in a unit 2^k
		// times larger.
		d, err := Welch(x.scaled(k), y.scaled(k), confidence)
		return d.unscaled(k), err
	}
	nx, ny := float64(x.N), float64(y.N)
	ax, ay := x.Variance()/nx, y.Variance()/ny
	s := math.Sqrt(ax + ay)
	d := y.Mean - x.Mean
	df := (ax + ay) * (ax + ay) / (ax*ax/(nx-1) + ay*ay/(ny-1))
	diff := Difference{Test: WelchT, Confidence: confidence, DF: df, Delta: d, StdErr: s, Rel: d * 100 / x.Mean}
	if s == 0 {
		diff.DF = math.NaN()
		diff.Significant = d != 0
		return diff, nil
	}
	diff.T = TQuantile(df, confidence)
	diff.HalfWidth = diff.T * s
	diff.RelHalfWidth = diff.HalfWidth * 100 / x.Mean
	diff.Significant = math.Abs(d) > diff.HalfWidth
	return diff, nil
}
