package stat

import (
	"math"
	"slices"
	"testing"
)

func TestSummarize(t *testing.T) {
	// Each want is worked out by hand from ministat's definitions; the first two were also
	// printed by Debian's ministat 20150715 (testdata/golden).
	tests := []struct {
		name string
		xs   []float64
		want Summary
	}{
		{"even N takes the upper median", []float64{4, 1, 3, 2},
			Summary{N: 4, Min: 1, Max: 4, Median: 3, Mean: 2.5, Stddev: math.Sqrt(5.0 / 3)}},
		{"odd N", []float64{5, 3, 4},
			Summary{N: 3, Min: 3, Max: 5, Median: 4, Mean: 4, Stddev: 1}},
		{"negative values", []float64{-1, -3, -2},
			Summary{N: 3, Min: -3, Max: -1, Median: -2, Mean: -2, Stddev: 1}},
		{"one value", []float64{7},
			Summary{N: 1, Min: 7, Max: 7, Median: 7, Mean: 7, Stddev: math.NaN()}},
		{"empty", nil, Summary{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.xs)
			got := Summarize(in)
			if !sameSummary(got, tc.want) {
				t.Errorf("Summarize(%v) = %+v, want %+v", tc.xs, got, tc.want)
			}
			if !slices.Equal(in, tc.xs) {
				t.Errorf("Summarize modified its argument: %v, was %v", in, tc.xs)
			}
		})
	}
}

// sameSummary compares the exported fields, treating two NaNs as equal and telling 0 from -0.
func sameSummary(a, b Summary) bool {
	same := func(x, y float64) bool {
		return math.IsNaN(x) && math.IsNaN(y) || x == y && math.Signbit(x) == math.Signbit(y)
	}
	return a.N == b.N && same(a.Min, b.Min) && same(a.Max, b.Max) && same(a.Median, b.Median) &&
		same(a.Mean, b.Mean) && same(a.Stddev, b.Stddev)
}

func TestSummarizeSumsInInputOrder(t *testing.T) {
	// 1e16 + 1 + 1 - 1e16 depends on the order of addition; ministat adds in the order it reads.
	xs := []float64{1e16, 1, 1, -1e16}
	got := Summarize(xs).Mean
	var sy float64
	for _, x := range xs {
		sy += x
	}
	if want := sy / 4; got != want {
		t.Errorf("Summarize(%v).Mean = %g, want %g (the sum in input order over 4)", xs, got, want)
	}
	if sorted := (-1e16 + 1 + 1 + 1e16) / 4; got == sorted {
		t.Fatalf("test data do not distinguish the orders of addition")
	}
}

func TestSummarizeZeroSigns(t *testing.T) {
	// glibc's qsort is a stable merge sort, so of 0 and -0 the one read first sorts first; it
	// shows when Min, Max or Median is a zero.
	negz := math.Copysign(0, -1)
	for _, tc := range []struct {
		xs    []float64
		signs []bool // sign bits of the sorted values
	}{
		{[]float64{0, negz, 1}, []bool{false, true, false}},
		{[]float64{negz, 0, 1}, []bool{true, false, false}},
		{[]float64{1, negz, negz, 0, -1}, []bool{true, true, true, false, false}},
		{[]float64{0, 2, negz, -3, 0, negz}, []bool{true, false, true, false, true, false}},
	} {
		var d Dataset
		for _, x := range tc.xs {
			d.Add(x)
		}
		var got []bool
		for _, x := range d.Values() {
			got = append(got, math.Signbit(x))
		}
		if !slices.Equal(got, tc.signs) {
			t.Errorf("sorted %v: sign bits %v, want %v", tc.xs, got, tc.signs)
		}
		s := Summarize(tc.xs)
		if math.Signbit(s.Min) != tc.signs[0] || math.Signbit(s.Median) != tc.signs[len(tc.xs)/2] {
			t.Errorf("Summarize(%v) = Min %g, Median %g: signs differ from the sorted order", tc.xs, s.Min, s.Median)
		}
	}
}

func TestVarianceOfEqualValues(t *testing.T) {
	// Σx² - (Σx)²/N of equal values is rounding noise that may be negative; ministat takes its
	// square root anyway and prints -nan. Stddev is NaN exactly when the variance is negative.
	for _, x := range []float64{0.1, 0.3, 1.7, 3, 1e-300, 123456.789} {
		for n := 3; n <= 9; n++ {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = x
			}
			s := Summarize(xs)
			v := s.Variance()
			if (v < 0) != math.IsNaN(s.Stddev) {
				t.Errorf("Summarize(%d × %g): Variance %g, Stddev %g", n, x, v, s.Stddev)
			}
			if math.IsNaN(s.Stddev) && !math.Signbit(s.Stddev) {
				t.Errorf("Summarize(%d × %g).Stddev is a NaN without the sign bit; ministat prints -nan", n, x)
			}
		}
	}
}

func TestVarianceOfLiteral(t *testing.T) {
	s := Summary{N: 9, Mean: 1, Stddev: 0.5}
	if got := s.Variance(); got != 0.25 {
		t.Errorf("Summary{Stddev: 0.5}.Variance() = %g, want 0.25", got)
	}
}

func TestDataset(t *testing.T) {
	var d Dataset
	for _, x := range []float64{3, 1, 2} {
		d.Add(x)
	}
	if got := d.Len(); got != 3 {
		t.Errorf("Len() = %d, want 3", got)
	}
	if got := d.Values(); !slices.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("Values() = %v, want [1 2 3]", got)
	}
	d.Add(0)
	if got, want := d.Summary(), Summarize([]float64{3, 1, 2, 0}); !sameSummary(got, want) || got.Variance() != want.Variance() {
		t.Errorf("Summary() after Add = %+v, want %+v", got, want)
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if !panics(func() { d.Add(x) }) {
			t.Errorf("Add(%g) did not panic", x)
		}
	}
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// TestSummaryLargeValues: values whose squares overflow (1e155 … 1e300, and ±1.7e308) get
// finite figures; multiplied by a power of two they are exactly the ordinary figures times it,
// and at every scale they are the ordinary ones to the last few bits.
func TestSummaryLargeValues(t *testing.T) {
	xs := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	slices.Sort(xs) // the scaled sums run over the sorted values: the same order
	base := Summarize(xs)
	for _, k := range []int{520, 700, 1000, 1016} {
		big := make([]float64, len(xs))
		for i, x := range xs {
			big[i] = math.Ldexp(x, k)
		}
		s := Summarize(big)
		if s.Mean != math.Ldexp(base.Mean, k) || s.Stddev != math.Ldexp(base.Stddev, k) || s.Median != math.Ldexp(base.Median, k) {
			t.Errorf("2^%d: mean %g, stddev %g; want exactly %g, %g", k, s.Mean, s.Stddev, math.Ldexp(base.Mean, k), math.Ldexp(base.Stddev, k))
		}
	}
	for _, e := range []float64{1e155, 1e200, 1e300} {
		big := make([]float64, len(xs))
		for i, x := range xs {
			big[i] = x * e
		}
		s := Summarize(big)
		if math.IsNaN(s.Stddev) || math.IsInf(s.Stddev, 0) || math.Abs(s.Stddev/(base.Stddev*e)-1) > 1e-14 || math.Abs(s.Mean/(base.Mean*e)-1) > 1e-14 {
			t.Errorf("×%g: mean %g, stddev %g; want %g, %g", e, s.Mean, s.Stddev, base.Mean*e, base.Stddev*e)
		}
	}
	if s := Summarize([]float64{-1.7e308, 0, 1.7e308}); math.IsNaN(s.Stddev) || math.IsInf(s.Stddev, 0) || s.Mean != 0 {
		t.Errorf("±1.7e308: mean %g, stddev %g; want 0 and a finite stddev", s.Mean, s.Stddev)
	}
}

// TestStudentLargeValues: the t test of samples whose ministat arithmetic overflows is the
// test of the same samples in a larger unit: the same relative figures, the absolute ones
// scaled.
func TestStudentLargeValues(t *testing.T) {
	a, b := []float64{1, 2, 3, 4}, []float64{4, 5, 6, 8}
	want, err := Student(Summarize(a), Summarize(b), 95)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{520, 1000} {
		sa, sb := make([]float64, 4), make([]float64, 4)
		for i := range a {
			sa[i], sb[i] = math.Ldexp(a[i], k), math.Ldexp(b[i], k)
		}
		got, err := Student(Summarize(sa), Summarize(sb), 95)
		if err != nil {
			t.Fatal(err)
		}
		if got.Rel != want.Rel || got.RelHalfWidth != want.RelHalfWidth || got.Significant != want.Significant ||
			got.Delta != math.Ldexp(want.Delta, k) || got.HalfWidth != math.Ldexp(want.HalfWidth, k) || got.PooledS != math.Ldexp(want.PooledS, k) {
			t.Errorf("2^%d: %+v, want %+v scaled", k, got, want)
		}
		w1, _ := Welch(Summarize(a), Summarize(b), 95)
		w2, _ := Welch(Summarize(sa), Summarize(sb), 95)
		if w2.DF != w1.DF || w2.Rel != w1.Rel || w2.HalfWidth != math.Ldexp(w1.HalfWidth, k) {
			t.Errorf("Welch at 2^%d: %+v, want %+v scaled", k, w2, w1)
		}
	}
}
