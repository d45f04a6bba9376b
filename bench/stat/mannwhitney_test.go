package stat

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMannWhitneyExact(t *testing.T) {
	// x = {1, 2}, y = {3, 4}: U = 0. The 6 orderings of two x's and two y's give U = 0, 1, 2, 2,
	// 3, 4, so P(U ≤ 0) = 1/6 and the two-sided p is 1/3.
	r, err := MannWhitney([]float64{1, 2}, []float64{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if r.U != 0 || !r.Exact || math.Abs(r.P-1.0/3) > 1e-15 {
		t.Errorf("MannWhitney({1,2}, {3,4}) = %+v, want U 0, exact P 1/3", r)
	}
	// R's documentation example for wilcox.test (Hollander & Wolfe): x the 10 values, y the 5;
	// R reports W = 35 and, for alternative = "greater", p = 0.1272; two-sided 0.2544.
	x := []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	y := []float64{1.15, 0.88, 0.90, 0.74, 1.21}
	r, err = MannWhitney(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if r.U != 35 || !r.Exact || math.Abs(r.P-0.2544) > 1e-4 {
		t.Errorf("MannWhitney(R's example) = %+v, want U 35, exact P 0.2544", r)
	}
	// Swapping the samples mirrors U and keeps P.
	r2, _ := MannWhitney(y, x)
	if r2.U != 50-35 || r2.P != r.P {
		t.Errorf("MannWhitney(y, x) = %+v, want U 15, P %g", r2, r.P)
	}
}

func TestMannWhitneyExactAgainstEnumeration(t *testing.T) {
	// Every split of 8 distinct values into 3 and 5: the exact p-value must be the share of
	// splits whose U is at least as extreme, counted directly.
	const m, n = 3, 5
	var us []float64
	for mask := range 1 << (m + n) {
		if popcount(mask) != m {
			continue
		}
		u := 0.0
		for i := range m + n {
			if mask&(1<<i) == 0 {
				continue
			}
			for j := range i {
				if mask&(1<<j) == 0 {
					u++ // x at rank i beats y at rank j < i
				}
			}
		}
		us = append(us, u)
	}
	for mask := range 1 << (m + n) {
		if popcount(mask) != m {
			continue
		}
		var x, y []float64
		for i := range m + n {
			if mask&(1<<i) != 0 {
				x = append(x, float64(i))
			} else {
				y = append(y, float64(i))
			}
		}
		r, err := MannWhitney(x, y)
		if err != nil {
			t.Fatal(err)
		}
		var below, above float64
		for _, u := range us {
			if u <= r.U {
				below++
			}
			if u >= r.U {
				above++
			}
		}
		want := math.Min(1, 2*math.Min(below, above)/float64(len(us)))
		if math.Abs(r.P-want) > 1e-12 {
			t.Errorf("MannWhitney(%v, %v) P = %g, enumeration %g", x, y, r.P, want)
		}
	}
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

func TestMannWhitneyNormal(t *testing.T) {
	// Ties force the normal approximation. x = {1, 2, 2, 3}, y = {2, 3, 3, 4}:
	// ranks of the 8 values 1 2 2 2 3 3 3 4 are 1, 3, 3, 3, 6, 6, 6, 8; x holds 1, 3, 3, 6 → R_x = 13,
	// U = 13 - 10 = 3. Ties: two groups of 3: Σ(t³-t) = 48. σ² = 16/12 · (9 - 48/56) = 10.857,
	// z = (|3 - 8| - 0.5)/3.2950 = 1.3657, p = 2(1 - Φ(1.3657)) = 0.1720.
	r, err := MannWhitney([]float64{1, 2, 2, 3}, []float64{2, 3, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	sd := math.Sqrt(16.0 / 12 * (9 - 48.0/56))
	z := (5 - 0.5) / sd
	want := math.Erfc(z / math.Sqrt2)
	if r.U != 3 || r.Exact || math.Abs(r.P-want) > 1e-12 || math.Abs(r.P-0.1720) > 1e-4 {
		t.Errorf("MannWhitney with ties = %+v, want U 3, P %.6f", r, want)
	}
	if r, _ := MannWhitney([]float64{5, 5, 5}, []float64{5, 5}); r.P != 1 || r.U != 3 {
		t.Errorf("MannWhitney(all equal) = %+v, want U 3 P 1", r)
	}
}

func TestMannWhitneyErrorsAndPower(t *testing.T) {
	if _, err := MannWhitney(nil, []float64{1}); err == nil {
		t.Errorf("MannWhitney(nil, …): no error")
	}
	if _, err := MannWhitney([]float64{math.NaN()}, []float64{1}); err == nil {
		t.Errorf("MannWhitney(NaN, …): no error")
	}
	// A shift of one standard deviation with 40 values each is found; the same distribution
	// twice is not (with these seeds).
	r := rand.New(rand.NewPCG(1, 2))
	a, b, c := make([]float64, 40), make([]float64, 40), make([]float64, 40)
	for i := range a {
		a[i], b[i], c[i] = r.NormFloat64(), r.NormFloat64()+1, r.NormFloat64()
	}
	if res, _ := MannWhitney(a, b); !res.Significant(99) || res.Exact {
		t.Errorf("MannWhitney(shifted by 1 sd) = %+v, want significant at 99%%", res)
	}
	if res, _ := MannWhitney(a, c); res.Significant(95) {
		t.Errorf("MannWhitney(same distribution) = %+v, want not significant", res)
	}
}
