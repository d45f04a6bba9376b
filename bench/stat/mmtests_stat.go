package stat

// This file implements mmtests' statistics as bin/lib/MMTests/Stat.pm computes them, in its
// floating-point order: the means, the standard deviations, the coefficient of variation and
// the percentage differences (pdiff, pndiff) of the comparison tables.

import (
	"math"
)

// mmAmean is calc_amean: the sum in the order given, over N.
func mmAmean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// mmHmean is calc_hmean: N/Σ(1/x), the sum in the order given, or NaN if some x ≤ 0.
func mmHmean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		if !(x > 0) {
			return math.NaN()
		}
		sum += 1 / x
	}
	return float64(len(xs)) / sum
}

// mmGmean is calc_geomean: the N-th root of the product.
func mmGmean(xs []float64) float64 {
	p := 1.0
	for _, x := range xs {
		p *= x
	}
	return math.Pow(p, 1/float64(len(xs)))
}

// mmStddev is calc_stddev around the arithmetic mean: sqrt(Σ(x - amean)² / (N-1)), NaN for
// N ≤ 1.
func mmStddev(xs []float64) float64 {
	if len(xs) <= 1 {
		return math.NaN()
	}
	m := mmAmean(xs)
	var d float64
	for _, x := range xs {
		d += float64((x - m) * (x - m)) // no fused multiply-add: Perl rounds the square
	}
	return math.Sqrt(d / float64(len(xs)-1))
}

// mmHStddev is mmtests 2026's calc_stddev around the harmonic mean H:
// sqrt(Σ(1/x - 1/H)² · H⁴ / N), NaN for N ≤ 1 or an undefined H.
func mmHStddev(xs []float64) float64 {
	h := mmHmean(xs)
	if len(xs) <= 1 || math.IsNaN(h) {
		return math.NaN()
	}
	var d float64
	for _, x := range xs {
		e := 1/x - 1/h
		d += float64(e * e)
	}
	return math.Sqrt(d * pow4(h) / float64(len(xs)))
}

// pow4 is x⁴ correctly rounded, as C's pow(x, 4) (Perl's x ** 4) returns it: x² as an exact
// sum of two doubles, squared.
func pow4(x float64) float64 {
	p := x * x
	e := math.FMA(x, x, -p)
	hi := p * p
	lo := math.FMA(p, p, -hi) + 2*p*e
	return hi + lo
}

// mmCoeffVar is calc_coeffvar: sd×100/mean, an undefined sd counting as 0, and 0 when the
// mean is 0 or undefined.
func mmCoeffVar(sd, mean float64) float64 {
	if math.IsNaN(sd) {
		sd = 0
	}
	if mean == 0 || math.IsNaN(mean) {
		return 0
	}
	return sd * 100 / mean
}

// pdiff is Stat.pm's pdiff: the percentage by which a exceeds b.
func pdiff(a, b float64) float64 {
	if a == b || a == 0 {
		return 0
	}
	if b == 0 || math.IsNaN(b) {
		return 100
	}
	return a*100/b - 100
}

// pndiff is Stat.pm's pndiff: the percentage by which a is below b.
func pndiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	if a == 0 {
		return 100
	}
	if b == 0 {
		return -99
	}
	return 100 - a*100/b
}
