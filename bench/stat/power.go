package stat

// This file implements the effect of N: the smallest difference a comparison of N runs each can
// prove, and the number of runs a difference needs.

import (
	"fmt"
	"math"
)

// MinDetectable returns the smallest true difference of means that Student's t, comparing n runs
// of each side at the given confidence (percent), detects with the given probability (power, in
// (0, 1)), when both sides have standard deviation s:
//
//	Δ = (t(2n-2, confidence) + t₁(2n-2, power)) · s · sqrt(2/n)
//
// where t is the two-sided critical value ([TQuantile]) and t₁ the one-sided power quantile.
// At power 0.5 the second term is 0 and Δ is ministat's ± for these n and s: a true difference of
// exactly ± is "proven" half the time. This is the usual approximation that ignores the
// noncentrality of t; it errs by well under one run for n ≥ 3.
//
// MinDetectable panics if s < 0, n < 2, confidence is not strictly between 0 and 100, or power is
// not strictly between 0 and 1.
func MinDetectable(s float64, n int, confidence, power float64) float64 {
	if s < 0 || n < 2 || !(power > 0 && power < 1) {
		panic(fmt.Sprintf("stat: MinDetectable(s=%g, n=%d, power=%g): want s ≥ 0, n ≥ 2, 0 < power < 1", s, n, power))
	}
	df := float64(2*n - 2)
	t := TQuantile(df, confidence)
	var tp float64
	switch {
	case power > 0.5:
		tp = TQuantile(df, (2*power-1)*100)
	case power < 0.5:
		tp = -TQuantile(df, (1-2*power)*100)
	}
	return (t + tp) * s * math.Sqrt(2/float64(n))
}

// RunsNeeded returns the smallest n, the number of runs on each side, for which
// [MinDetectable](s, n, confidence, power) ≤ delta: how many times to repeat a benchmark to
// show a difference of delta when each run varies by s. It returns an error if delta ≤ 0, s < 0,
// or more than a million runs would be needed; it panics on confidence or power as
// MinDetectable does.
func RunsNeeded(s, delta, confidence, power float64) (int, error) {
	if !(delta > 0) || s < 0 {
		return 0, fmt.Errorf("stat: RunsNeeded(s=%g, delta=%g): want s ≥ 0 and delta > 0", s, delta)
	}
	const limit = 1 << 20
	if MinDetectable(s, limit, confidence, power) > delta {
		return 0, fmt.Errorf("stat: RunsNeeded: a difference of %g with s = %g needs more than %d runs", delta, s, limit)
	}
	lo, hi := 2, limit // MinDetectable falls with n: find the first n where it is ≤ delta
	for lo < hi {
		mid := lo + (hi-lo)/2
		if MinDetectable(s, mid, confidence, power) <= delta {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, nil
}
