package host

// This file implements the arithmetic of the cost distributions (sim.Cost) the calibration works
// with: the quantiles of samples, the median of repetitions quantile by quantile, and the
// differences of two distributions made a distribution again, from which profile.go takes each
// step's figure.

import (
	"math"
	"slices"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
)

// MedianCost returns the median of the distributions cs quantile by quantile: its p99 is the
// middle one of their p99s, and so on from Min to Max (the lower of the two middle ones of an
// even number), or the zero Cost for none. The quantiles stay in order, since the median of
// each is at most the median of the next. It is how a calibration combines its repetitions, as
// the host table takes the median of its runs: a repetition that an unrelated episode of the
// machine made slow (the hypervisor taking a vCPU away for milliseconds) moves no figure, where
// pooling its samples would carry the episode into the tail at the rate it happened to occur.
func MedianCost(cs []sim.Cost) sim.Cost {
	if len(cs) == 0 {
		return sim.Cost{}
	}
	var q [7]time.Duration
	vs := make([]time.Duration, len(cs))
	for i := range q {
		for j, c := range cs {
			vs[j] = quantiles(c)[i]
		}
		slices.Sort(vs)
		q[i] = vs[(len(vs)-1)/2]
	}
	c := sim.Cost{Min: q[0], P50: q[1], P90: q[2], P99: q[3], P995: q[4], P999: q[5], Max: q[6]}
	if none(cs, func(c sim.Cost) bool { return c.P995 != 0 }) {
		c.P995 = 0
	}
	if none(cs, func(c sim.Cost) bool { return c.P999 != 0 }) {
		c.P995, c.P999 = 0, 0
	}
	return c
}

// none reports whether no distribution of cs has what has reports (a p99.5, a p99.9: see
// quantiles).
func none(cs []sim.Cost, has func(sim.Cost) bool) bool {
	for _, c := range cs {
		if has(c) {
			return false
		}
	}
	return true
}

// costOf returns the quantiles of samples (nearest rank), which it sorts.
func costOf(samples []int64) sim.Cost {
	if len(samples) == 0 {
		return sim.Cost{}
	}
	slices.Sort(samples)
	q := func(p float64) time.Duration {
		i := min(len(samples)-1, int(p*float64(len(samples))))
		return time.Duration(samples[i])
	}
	return sim.Cost{Min: time.Duration(samples[0]), P50: q(0.5), P90: q(0.9), P99: q(0.99), P995: q(0.995),
		P999: q(0.999), Max: time.Duration(samples[len(samples)-1])}
}

// quantiles returns c's quantiles in order, Min, P50, P90, P99, P995, P999 and Max, filling in
// those c has not as the model draws them: P999 as P99 where c has none; P995 where c has a P999
// but no P995 on the straight line from P99 to P999, 5/9 of the way (0.995 lies 5/9 of the way
// from 0.99 to 0.999).
func quantiles(c sim.Cost) [7]time.Duration {
	p999, p995 := c.P999, c.P995
	if p999 == 0 {
		p999, p995 = c.P99, c.P99
	}
	if p995 == 0 {
		p995 = c.P99 + (p999-c.P99)*5/9
	}
	return [7]time.Duration{c.Min, c.P50, c.P90, c.P99, p995, p999, c.Max}
}

// fromQuantiles returns the Cost of q, each clamped at 0 and raised to the one before it, so that
// a difference of two measured distributions is a distribution again.
func fromQuantiles(q [7]time.Duration) sim.Cost {
	for i := range q {
		q[i] = max(q[i], 0)
		if i > 0 {
			q[i] = max(q[i], q[i-1])
		}
	}
	return sim.Cost{Min: q[0], P50: q[1], P90: q[2], P99: q[3], P995: q[4], P999: q[5], Max: q[6]}
}

// minus returns a - b quantile by quantile, made a distribution again (see fromQuantiles): the
// step a's probe measures beyond what b's does, with a's spread.
func minus(a, b sim.Cost) sim.Cost {
	qa, qb := quantiles(a), quantiles(b)
	var q [7]time.Duration
	for i := range q {
		q[i] = qa[i] - qb[i]
	}
	return fromQuantiles(q)
}

// spreadOf returns c's p90 less its median: how far the figures a median is taken from lie.
func spreadOf(c sim.Cost) time.Duration { return c.P90 - c.P50 }

// clamp returns c with its quantiles below 0 raised to 0: a difference of two timings (a cold
// pass less a warm one) that noise made negative.
func clamp(c sim.Cost) sim.Cost { return fromQuantiles(quantiles(c)) }

// less returns c less d at every quantile, made a distribution again.
func less(c sim.Cost, d time.Duration) sim.Cost {
	q := quantiles(c)
	for i := range q {
		q[i] -= d
	}
	return fromQuantiles(q)
}

// poolCost returns the quantiles of the samples of every histogram in hs pooled (nearest rank,
// as [sim.Histogram.Percentile]), or false if they hold none.
func poolCost(hs []*sim.Histogram) (sim.Cost, bool) {
	var all sim.Histogram
	for _, h := range hs {
		all.Merge(h)
	}
	if all.Count() == 0 {
		return sim.Cost{}, false
	}
	q := all.Percentiles(0, 50, 90, 99, 99.5, 99.9, 100)
	return sim.Cost{Min: time.Duration(q[0]), P50: time.Duration(q[1]), P90: time.Duration(q[2]), P99: time.Duration(q[3]),
		P995: time.Duration(q[4]), P999: time.Duration(q[5]), Max: time.Duration(q[6])}, true
}

// medianFloat returns the median of xs as costOf takes it (the upper of the two middle ones of
// an even count), or 0 for none; xs is sorted.
func medianFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// times returns d × x rounded to the nanosecond: a step's median over a count of it measured
// as a ratio (perf bench sched pipe's wake-ups a round trip).
func times(d time.Duration, x float64) time.Duration {
	return time.Duration(math.Round(float64(d) * x))
}
