package stat

// This file implements the Mann-Whitney U test (Wilcoxon rank-sum test), which compares two
// samples without assuming any distribution: the test to use on latencies, whose long tails make
// means and standard deviations poor summaries.

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// A RankTest is the result of [MannWhitney].
type RankTest struct {
	// U is the Mann-Whitney statistic of x: the number of pairs (x_i, y_j) with x_i > y_j, ties
	// counting one half (R's wilcox.test calls it W). It ranges from 0 to N_x·N_y; N_x·N_y/2 is
	// what no difference predicts.
	U float64
	// P is the two-sided p-value: the probability, if x and y come from the same distribution,
	// of a U at least as far from N_x·N_y/2.
	P float64
	// Exact reports that P comes from the exact distribution of U (no ties, N_x + N_y ≤ 50),
	// rather than from the normal approximation with tie and continuity corrections.
	Exact bool
}

// Significant reports whether the test rejects "same distribution" at the given confidence
// level, in percent: P < 1 - confidence/100.
func (r RankTest) Significant(confidence float64) bool { return r.P < 1-confidence/100 }

// exactLimit is the largest N_x + N_y for which MannWhitney computes the exact distribution.
const exactLimit = 50

// MannWhitney tests whether x and y come from the same distribution against the alternative
// that one tends to be larger (the Wilcoxon rank-sum test). Without ties and with N_x + N_y ≤
// 50 the p-value is exact, from the distribution of U over all orderings; otherwise it uses the
// normal approximation with variance N_x·N_y/12 · (N+1 - Σ(t³-t)/(N(N-1))) over the tie groups
// t, and a continuity correction of 1/2, as R's wilcox.test(x, y, correct = TRUE) does.
//
// It returns an error if x or y is empty or holds a NaN. The complexity is O(N log N), plus
// O(N_x·N_y·N) for the exact distribution.
func MannWhitney(x, y []float64) (RankTest, error) {
	if len(x) == 0 || len(y) == 0 {
		return RankTest{}, fmt.Errorf("stat: MannWhitney needs values in both samples, have %d and %d", len(x), len(y))
	}
	type obs struct {
		v   float64
		inX bool
	}
	all := make([]obs, 0, len(x)+len(y))
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	for _, o := range all {
		if math.IsNaN(o.v) {
			return RankTest{}, fmt.Errorf("stat: MannWhitney of a NaN")
		}
	}
	slices.SortFunc(all, func(a, b obs) int { return cmp.Compare(a.v, b.v) }) // no NaN, checked above
	// Mid-ranks, and the tie correction Σ(t³ - t).
	var rankX, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // ranks i+1 … j, averaged
		for k := i; k < j; k++ {
			if all[k].inX {
				rankX += rank
			}
		}
		if t := float64(j - i); t > 1 {
			ties += t*t*t - t
		}
		i = j
	}
	nx, ny := float64(len(x)), float64(len(y))
	u := rankX - nx*(nx+1)/2
	if ties == 0 && len(all) <= exactLimit {
		return RankTest{U: u, P: exactRankP(len(x), len(y), u), Exact: true}, nil
	}
	n := nx + ny
	mean := nx * ny / 2
	sd := math.Sqrt(nx * ny / 12 * ((n + 1) - ties/(n*(n-1))))
	if sd == 0 {
		return RankTest{U: u, P: 1}, nil // every value equal
	}
	z := (math.Abs(u-mean) - 0.5) / sd
	p := 2 * distuv.UnitNormal.Survival(math.Max(z, 0))
	return RankTest{U: u, P: math.Min(p, 1)}, nil
}

// exactRankP returns the exact two-sided p-value of U = u for samples of m and n values without
// ties: 2·min(P(U ≤ u), P(U ≥ u)), at most 1. The counts come from the recurrence
// c(m, n, u) = c(m-1, n, u-n) + c(m, n-1, u) (the largest value is in x, and beats the n values
// of y, or it is in y).
func exactRankP(m, n int, u float64) float64 {
	maxU := m * n
	// prev[j][k] is c(i-1, j, k), cur[j][k] is c(i, j, k), for j ≤ n.
	prev := make([][]float64, n+1)
	cur := make([][]float64, n+1)
	for j := range prev {
		prev[j] = make([]float64, maxU+1)
		cur[j] = make([]float64, maxU+1)
		prev[j][0] = 1 // c(0, j, 0) = 1
	}
	for i := 1; i <= m; i++ {
		for j := 0; j <= n; j++ {
			clear(cur[j])
			for k := 0; k <= i*j; k++ {
				var c float64
				if k >= j {
					c = prev[j][k-j]
				}
				if j > 0 {
					c += cur[j-1][k]
				}
				cur[j][k] = c
			}
		}
		prev, cur = cur, prev
	}
	counts := prev[n]
	var total, below, above float64
	for k, c := range counts {
		total += c
		if float64(k) <= u {
			below += c
		}
		if float64(k) >= u {
			above += c
		}
	}
	return math.Min(1, 2*math.Min(below, above)/total)
}
