package stat

// This file implements the two rules by which mmtests marks a change significant: 2022's t
// test on the means (Compare.pm's _significanceTest) and 2026's non-overlapping confidence
// intervals (Compare.pm's _generateComparisonTable with Stat.pm's cidiff).

import (
	"math"
	"slices"
)

// A verdict is one run's significance against the baseline for one operation: whether it is
// significant, and the number mmtests' --print-significance rows show beside it (2022: the
// p-value in percent; 2026: the difference over the sum of the confInterval half-widths).
type verdict struct {
	significant bool
	figure      float64
}

// sigData is what mmtests 2022's extractSummary keeps for the t test of one run of one Op.
type sigData struct {
	mean, stddev float64
	n            int
}

// tTest is mmtests 2022's _significanceTest: t = |m₀ - m₁| / sqrt(s₀²/N₀ + s₁²/N₁) with the
// mean of the Mean row and the arithmetic deviation (0 where it is undefined), N₀+N₁-2 degrees
// of freedom (not Welch's), and R's two-sided p-value below level. When both deviations are 0
// any difference is significant (p = 0%) and no difference is not (p = 100%).
func tTest(base, r sigData, level float64) verdict {
	se := math.Sqrt(base.stddev*base.stddev/float64(base.n) + r.stddev*r.stddev/float64(r.n))
	delta := base.mean - r.mean
	if se == 0 {
		if delta != 0 {
			return verdict{true, 0}
		}
		return verdict{false, 100}
	}
	p := rPtUpper(math.Abs(delta/se), base.n+r.n-2) * 2
	return verdict{p < level, p * 100}
}

// An confInterval is what mmtests 2026 keeps of one run of one Op for its significance rule: the
// value of the marked row and its confidence confInterval [lo, hi], if it has one.
type confInterval struct {
	value, lo, hi float64
	ok            bool
}

// meanInterval is Stat.pm's _calc_meanci: mean ± R's qnorm(1-alpha/2, 0, sd), with sd the
// deviation of the Stddev row (HStddev for harmonic means). There is none when the mean or the
// deviation is undefined.
func meanInterval(mean, sd, alpha float64) confInterval {
	iv := confInterval{value: mean}
	if math.IsNaN(mean) || math.IsNaN(sd) {
		return iv
	}
	q := rQnormHalfWidth(alpha, sd)
	iv.lo, iv.hi = mean-q, mean+q
	iv.ok = !math.IsNaN(iv.lo) && !math.IsNaN(iv.hi)
	return iv
}

// percentileInterval is Stat.pm's _calc_percentileci: the values at the indexes R's
// qbinom(alpha/2, N-1, P/100) and qbinom(1-alpha/2, N-1, P/100) of the best-first order xs
// (R computes alpha/2 from alpha as Perl printed it).
func percentileInterval(value float64, xs []float64, p, alpha float64) confInterval {
	q := perlNum(p / 100)
	alpha = perlNum(alpha)
	lo := rQbinom(alpha/2, len(xs)-1, q)
	hi := rQbinom(1-alpha/2, len(xs)-1, q)
	return confInterval{value: value, lo: xs[lo], hi: xs[hi], ok: true}
}

// cidiff is Stat.pm's cidiff (2026) with its arguments in the order _generateComparisonTable
// passes them: the baseline's value and confInterval first. It is the difference over the sum of
// the two half-widths that face each other, or the difference itself when that sum is 0.
func cidiff(nw, nlo, nhi, base, blo, bhi float64) float64 {
	diff := nw - base
	var cisum float64
	if nw < base {
		cisum = nhi - nw + base - blo
	} else {
		cisum = nw - nlo + bhi - base
	}
	if cisum == 0 {
		return diff
	}
	return diff / cisum
}

// intervalVerdicts is _generateComparisonTable's significance loop of mmtests 2026 over the
// intervals ivs[run][op]: a run is significant for an operation when the difference exceeds
// the two facing half-widths (|cidiff| > 1), which for intervals of zero width means a
// difference of more than 1 unit. It keeps mmtests' quirks: a run none of whose operations has
// an confInterval is never significant; when the baseline has intervals for some operations but
// not this one, its confInterval counts as [0, 0]; when it has none at all, its value counts as 0
// too.
func intervalVerdicts(ivs [][]confInterval, op int) []verdict {
	any := func(r int) bool { return slices.ContainsFunc(ivs[r], func(iv confInterval) bool { return iv.ok }) }
	out := make([]verdict, len(ivs))
	var bval, blo, bhi float64
	if any(0) {
		b := ivs[0][op]
		bval = b.value
		if b.ok {
			blo, bhi = b.lo, b.hi
		}
	}
	for r := 1; r < len(ivs); r++ {
		if c := ivs[r][op]; any(r) && c.ok {
			ratio := cidiff(bval, blo, bhi, c.value, c.lo, c.hi)
			out[r] = verdict{math.Abs(ratio) > 1, ratio}
		}
	}
	return out
}
