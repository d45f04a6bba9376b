package stat

// This file implements sample quantiles (percentiles).

import (
	"fmt"
	"math"
)

// Quantile returns the p-quantile (0 ≤ p ≤ 1) of the ascending values sorted, interpolating
// linearly between the two nearest values: with h = (N-1)·p, sorted[⌊h⌋] + (h - ⌊h⌋)·(sorted[⌊h⌋+1]
// - sorted[⌊h⌋]). This is definition 7 of Hyndman and Fan, the default of R's quantile and of
// NumPy. Quantile(s, 0.5) is the median with the two middle values averaged, which is not
// ministat's Median (the upper one); mmtests' Max-P rows use their own rule (see [Comparison]).
//
// Quantile panics if sorted is empty or p is outside [0, 1]. It does not check that sorted is
// sorted.
func Quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		panic("stat: Quantile of no values")
	}
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("stat: Quantile(%g): p outside [0, 1]", p))
	}
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + float64((h-lo)*(sorted[i+1]-sorted[i])) // unfused, the same on every GOARCH
}
