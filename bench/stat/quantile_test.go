package stat

import (
	"math"
	"testing"
)

func TestTQuantile(t *testing.T) {
	// Reference values: t quantiles from the closed forms for 1 and 2 degrees of freedom
	// (t = tan(π(p-1/2)) for ν = 1, t = (2p-1)·sqrt(2/(4p(1-p)))... for ν = 2) and the normal
	// quantile for ν = ∞.
	for _, tc := range []struct {
		df, confidence, want float64
	}{
		{1, 95, math.Tan(math.Pi * 0.475)},
		{1, 80, math.Tan(math.Pi * 0.4)},
		{2, 95, 0.95 * math.Sqrt(2/(4*0.975*0.025))},
		{2, 99, 0.99 * math.Sqrt(2/(4*0.995*0.005))},
		{math.Inf(1), 95, 1.959963984540054},
		{math.Inf(1), 99, 2.5758293035489004},
	} {
		if got := TQuantile(tc.df, tc.confidence); math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("TQuantile(%g, %g) = %.15g, want %.15g", tc.df, tc.confidence, got, tc.want)
		}
	}
}

func TestTQuantileLargeDF(t *testing.T) {
	// The two methods meet at largeDF, and the quantile falls toward the normal's as ν grows.
	below := TQuantile(largeDF, 95)
	above := TQuantile(math.Nextafter(largeDF, math.Inf(1)), 95)
	if math.Abs(below-above) > 1e-10 {
		t.Errorf("TQuantile at largeDF: %.15g below, %.15g above", below, above)
	}
	prev := TQuantile(10, 95)
	for _, df := range []float64{100, 1e3, 1e4, 1e5, 1e6, 1e8, 1e10, 1e15, 1e300, math.Inf(1)} {
		q := TQuantile(df, 95)
		if !(q <= prev+1e-15) || q < 1.959963984540054-1e-14 {
			t.Errorf("TQuantile(%g, 95) = %.15g, previous %.15g: not falling toward 1.95996398454", df, q, prev)
		}
		prev = q
	}
}

func TestTQuantilePanics(t *testing.T) {
	for _, tc := range []struct{ df, confidence float64 }{
		{0, 95}, {-1, 95}, {math.NaN(), 95}, {5, 0}, {5, 100}, {5, math.NaN()},
	} {
		if !panics(func() { TQuantile(tc.df, tc.confidence) }) {
			t.Errorf("TQuantile(%g, %g) did not panic", tc.df, tc.confidence)
		}
	}
}
