package stat

// This file implements Student's t quantiles for any number of degrees of freedom.

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TQuantile returns the two-sided critical value of Student's t distribution with df degrees of
// freedom at the given confidence level, in percent: the t such that P(-t < T < t) =
// confidence/100, that is the (1+confidence/100)/2 quantile. df need not be an integer (Welch's
// test gives fractional degrees of freedom); df = +Inf gives the normal distribution's quantile.
// The value comes from gonum's stat/distuv (the regularised incomplete beta function), exact to
// about 1e-12 (above 100000 degrees of freedom, from the Cornish–Fisher expansion), where ministat's table ([TableT]) is rounded to three decimals.
//
// TQuantile panics if df is not positive or NaN, or confidence is not strictly between 0 and
// 100. The cost is a few microseconds (see BenchmarkTQuantile).
func TQuantile(df, confidence float64) float64 {
	if !(df > 0) {
		panic(fmt.Sprintf("stat: TQuantile: df = %g, want > 0", df))
	}
	if !(confidence > 0 && confidence < 100) {
		panic(fmt.Sprintf("stat: TQuantile: confidence = %g%%, want strictly between 0 and 100", confidence))
	}
	p := 0.5 + confidence/200
	if df <= largeDF {
		return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
	}
	// gonum's incomplete beta loses precision as the degrees of freedom grow (at 1e9 it is
	// off in the 7th digit); there the Cornish–Fisher expansion of t around the normal quantile z
	// is exact to rounding: the first omitted term is of order z⁷/ν³, 2e-15 at ν = 1e5.
	z := distuv.UnitNormal.Quantile(p)
	if math.IsInf(df, 1) {
		return z
	}
	z2 := z * z
	return z + z*(z2+1)/(4*df) + z*((5*z2+16)*z2+3)/(96*df*df)
}

// largeDF is the number of degrees of freedom above which TQuantile uses the Cornish–Fisher
// expansion instead of gonum's StudentsT.Quantile, whose error there (3e-11 at 1e5, 1e-10 at 1e6)
// exceeds the expansion's (2e-15 at 1e5).
const largeDF = 1e5
