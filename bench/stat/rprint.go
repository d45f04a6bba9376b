package stat

// This file implements the numbers mmtests asks R for: it runs `echo 'qnorm(…)' | R --slave`
// and reads back what R prints, 7 significant digits, so the quantiles its tables depend on
// are R's values rounded as R prints them, computed from arguments that Perl printed with 15
// significant digits.

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// rPrint returns x as R's print shows a number with its default of 7 significant digits
// (formatReal in R's src/main/format.c): the fewest significant digits, up to 7, that show x
// rounded to 7, in fixed notation unless scientific notation is narrower.
func rPrint(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Inf"
	case math.IsInf(x, -1):
		return "-Inf"
	case x == 0:
		return "0"
	}
	e := strconv.FormatFloat(math.Abs(x), 'e', 6, 64) // d.dddddde±XX, rounded to 7 digits
	mant, exp, _ := strings.Cut(e, "e")
	kp, _ := strconv.Atoi(exp)
	digits := strings.TrimRight(strings.Replace(mant, ".", "", 1), "0")
	nsig := max(1, len(digits))
	neg := 0
	if x < 0 {
		neg = 1
	}
	left := 1
	if kp >= 0 {
		left = kp + 1
	}
	rgt := max(0, nsig-kp-1)
	fixed := neg + left
	if rgt > 0 {
		fixed += rgt + 1
	}
	sci := neg + 4
	if nsig > 1 {
		sci += nsig + 1
	} else {
		sci++
	}
	if kp >= 100 || kp <= -100 {
		sci++
	}
	if fixed <= sci {
		return strconv.FormatFloat(x, 'f', rgt, 64)
	}
	return strconv.FormatFloat(x, 'e', nsig-1, 64)
}

// perlNum returns x as Perl reads back its own printing of x (15 significant digits): what a
// number becomes when mmtests interpolates it into a string, an R command or a table cell.
func perlNum(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 15, 64), 64)
	return v
}

// fromR returns x as mmtests reads it back from R's printing.
func fromR(x float64) float64 {
	v, err := strconv.ParseFloat(rPrint(x), 64)
	if err != nil {
		return math.NaN() // "NaN", "Inf" parse; nothing else R prints fails
	}
	return v
}

// rQnormHalfWidth is mmtests 2026's `qnorm(1-$alpha/2, mean=0, sd=$stddev)` as read back from
// R: the half-width of a normal confidence interval of level 1-alpha.
func rQnormHalfWidth(alpha, sd float64) float64 {
	alpha, sd = perlNum(alpha), perlNum(sd)
	return fromR(0 + sd*distuv.UnitNormal.Quantile(1-alpha/2))
}

// rPtUpper is mmtests 2022's `pt(c($t), $df, lower.tail = FALSE)` as read back from R: the
// upper tail of Student's t with df degrees of freedom at t.
func rPtUpper(t float64, df int) float64 {
	return fromR(distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Survival(perlNum(t)))
}

// rQbinom is R's qbinom(p, n, pr) for mmtests 2026's percentile intervals: the smallest k with
// P(X ≤ k) ≥ p for X binomial with n trials of probability pr, with the fuzz R's qbinom.c uses
// to stay left-continuous (p·(1-64ε)), and its shortcuts for n = 0, pr = 0 or 1, and p within
// 1.01ε of 1.
func rQbinom(p float64, n int, pr float64) int {
	switch {
	case pr == 0 || n == 0:
		return 0
	case pr == 1 || p+1.01*epsilon >= 1:
		return n
	}
	d := distuv.Binomial{N: float64(n), P: pr}
	p *= 1 - 64*epsilon
	for k := 0; k < n; k++ {
		if d.CDF(float64(k)) >= p {
			return k
		}
	}
	return n
}

// epsilon is DBL_EPSILON, 2⁻⁵².
const epsilon = 0x1p-52
