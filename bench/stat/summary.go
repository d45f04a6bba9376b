package stat

// This file implements Summary, the six numbers of a ministat table row, and Summarize, which
// computes them the way ministat does.

import (
	"math"
	"slices"
)

// A Summary is what ministat prints about one data set: its size, extremes, median, mean and
// sample standard deviation (struct dataset and the functions Min, Max, Median, Avg and Stddev
// of usr.bin/ministat/ministat.c).
//
// A Summary built by [Summarize] or [Dataset.Summary] also remembers ministat's variance exactly
// as ministat computed it, so that [Student] reproduces ministat's pooled s to the last bit; a
// Summary written as a literal (say from the N, Avg and Stddev a mailing-list post prints) uses
// Stddev² instead.
type Summary struct {
	N      int     // number of values
	Min    float64 // smallest value
	Max    float64 // largest value
	Median float64 // the value at index N/2 of the sorted values (ministat's Median: no averaging for even N)
	Mean   float64 // arithmetic mean, sum/N
	Stddev float64 // sample standard deviation, the square root of the variance with N-1 in the denominator

	variance    float64 // ministat's Var, as computed from the running sums, times 2^-2scale
	hasVariance bool
	scale       int // the binary exponent the sums were computed at (see Dataset.Summary)
}

// Variance returns the sample variance s² of the data set: the value ministat's Var computed if
// s came from [Summarize] or [Dataset.Summary], else Stddev². ministat computes it from running
// sums, (Σx² - (Σx)²/N) / (N-1), which may come out a little negative when every value is the
// same; the square root of that is NaN, as it is in ministat, which prints it as "-nan". For
// values so large that ministat's sums overflow, the variance may be +Inf while Stddev is finite.
func (s Summary) Variance() float64 {
	if s.hasVariance {
		return math.Ldexp(s.variance, 2*s.scale)
	}
	return s.Stddev * s.Stddev
}

// scaled returns s with every figure multiplied by 2^-k, exactly (barring underflow): the same
// Summary in a unit 2^k times larger, whose squares do not overflow.
func (s Summary) scaled(k int) Summary {
	if k == 0 {
		return s
	}
	out := Summary{N: s.N, Min: math.Ldexp(s.Min, -k), Max: math.Ldexp(s.Max, -k), Median: math.Ldexp(s.Median, -k),
		Mean: math.Ldexp(s.Mean, -k), Stddev: math.Ldexp(s.Stddev, -k), hasVariance: s.hasVariance}
	if s.hasVariance {
		out.variance = math.Ldexp(s.variance, 2*(s.scale-k))
	}
	return out
}

// exponent returns the binary exponent of the largest magnitude among xs: 2^exponent exceeds
// each |x|.
func exponent(xs ...float64) int {
	e := math.MinInt
	for _, x := range xs {
		if x != 0 && !math.IsNaN(x) && !math.IsInf(x, 0) {
			_, k := math.Frexp(x)
			e = max(e, k)
		}
	}
	if e == math.MinInt {
		return 0
	}
	return e
}

// Summarize returns the Summary of xs, computed as ministat computes it: the sums Σx and Σx²
// accumulate in the order of xs (as ministat's AddPoint does while reading), the values are
// then sorted (qsort with a stable merge sort in the glibc ministat links against, so of 0 and
// -0 the one read first comes first), and Min, Max and Median are read off the sorted values.
// xs is not modified; Summarize allocates a sorted copy. Summarize of an empty slice returns the
// zero Summary. The complexity is O(N log N).
func Summarize(xs []float64) Summary {
	var d Dataset
	d.values = make([]float64, 0, len(xs))
	for _, x := range xs {
		d.add(x)
	}
	return d.Summary()
}

// A Dataset is a growing set of values summarised the way ministat summarises a file: it keeps
// every value (the median needs them) and the running sums ministat keeps. The zero value is an
// empty Dataset ready to use. A Dataset is not safe for concurrent use.
type Dataset struct {
	values  []float64
	sy, syy float64 // Σx and Σx², in the order of Add
	negZero bool    // a -0 was added: sorting must keep ±0 in the order they came
	sorted  bool
}

// Add appends x to d. Add panics if x is NaN or ±Inf: ministat's arithmetic has no meaning for
// them, and a reader refuses them as invalid input before they get here. The complexity is
// amortised O(1).
func (d *Dataset) Add(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		panic("stat: Dataset.Add of a NaN or infinite value")
	}
	d.add(x)
}

func (d *Dataset) add(x float64) {
	if len(d.values) == cap(d.values) {
		// Double, as ministat multiplies by four: append's 1.25× growth of large slices would
		// allocate about 5 times the final size on the way to a million values, doubling 2 times.
		d.values = slices.Grow(d.values, max(1024, len(d.values)))
	}
	d.values = append(d.values, x)
	d.sy += x
	d.syy += float64(x * x) // the conversion forbids a fused multiply-add: ministat rounds x*x
	if x == 0 && math.Signbit(x) {
		d.negZero = true
	}
	d.sorted = false
}

// Len returns the number of values added to d.
func (d *Dataset) Len() int { return len(d.values) }

// Values returns d's values in ascending order (ministat's sorted points). The slice belongs to
// d and is valid until the next Add.
func (d *Dataset) Values() []float64 {
	d.sort()
	return d.values
}

// sort sorts d.values as glibc's qsort does with ministat's dbl_cmp: ascending, and stable, which
// matters only for 0 and -0 (equal to the comparison, different when printed).
func (d *Dataset) sort() {
	if d.sorted {
		return
	}
	var zeros []bool // signs of the zeros, in the order they came
	if d.negZero {
		for _, x := range d.values {
			if x == 0 {
				zeros = append(zeros, math.Signbit(x))
			}
		}
	}
	slices.Sort(d.values)
	if d.negZero {
		lo, _ := slices.BinarySearch(d.values, 0)
		for i, neg := range zeros {
			z := 0.0
			if neg {
				z = math.Copysign(0, -1)
			}
			d.values[lo+i] = z
		}
	}
	d.sorted = true
}

// Summary returns the Summary of the values added so far; see [Summarize]. It sorts d's values
// the first time it is called after an Add. The complexity is O(N log N) after an Add, O(1)
// otherwise.
//
// Where ministat's sums overflow (values beyond about 1.3e154, whose squares exceed the largest
// float64: ministat then prints a Stddev of -nan), Summary computes the same sums of the values
// divided by a power of two, 2^k with 2^k above the largest magnitude, and multiplies the mean
// and the standard deviation back by 2^k: ministat's arithmetic in a unit 2^k times larger,
// exact in every step a power of two can be, so the figures are finite and as precise as
// ministat's are for ordinary values. Everywhere ministat's sums are finite, its figures are
// returned unchanged, bit for bit.
func (d *Dataset) Summary() Summary {
	n := len(d.values)
	if n == 0 {
		return Summary{}
	}
	d.sort()
	sy, syy, k := d.sy, d.syy, 0
	if math.IsInf(sy, 0) || math.IsInf(syy, 0) {
		k = exponent(d.values[0], d.values[n-1])
		sy, syy = 0, 0
		for _, x := range d.values {
			x = math.Ldexp(x, -k)
			sy += x
			syy += float64(x * x)
		}
	}
	v := (syy - sy*sy/float64(n)) / (float64(n) - 1.0)
	return Summary{
		N:           n,
		Min:         d.values[0],
		Max:         d.values[n-1],
		Median:      d.values[n/2],
		Mean:        math.Ldexp(sy/float64(n), k),
		Stddev:      math.Ldexp(sqrtX86(v), k),
		variance:    v,
		hasVariance: true,
		scale:       k,
	}
}

// sqrtX86 is math.Sqrt, except that the NaN it returns for a negative or NaN argument has its
// sign bit set, as the x86 SQRTSD instruction's default NaN does: glibc prints that NaN as
// "-nan", and ministat's output shows it.
func sqrtX86(v float64) float64 {
	if v < 0 || math.IsNaN(v) {
		return math.Copysign(math.NaN(), -1)
	}
	return math.Sqrt(v)
}
