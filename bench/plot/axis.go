package plot

// This file implements the axes: tick positions at 1-2-5 steps, time labels in the unit that
// suits the range, and decades for logarithmic axes.

import (
	"math"
	"strconv"
)

// A timeUnit is a unit in which an axis labels times.
type timeUnit struct {
	name string
	ns   float64
}

var timeUnits = []timeUnit{{"ns", 1}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}}

// unitFor returns the largest unit that step is at least one of.
func unitFor(step float64) timeUnit {
	u := timeUnits[0]
	for _, c := range timeUnits {
		if step >= c.ns {
			u = c
		}
	}
	return u
}

// niceStep returns a 1, 2 or 5 times a power of ten close to span/target.
func niceStep(span float64, target int) float64 {
	if span <= 0 || target < 1 {
		return 1
	}
	raw := span / float64(target)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// ticks returns the multiples of step within [lo, hi].
func ticks(lo, hi, step float64) []float64 {
	var ts []float64
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9; k++ {
		ts = append(ts, k*step)
	}
	return ts
}

// formatTime formats t nanoseconds in unit u with as few decimals as step needs.
func formatTime(t, step float64, u timeUnit) string {
	dec := 0
	for s := step / u.ns; s < 1 && dec < 6; s *= 10 {
		dec++
	}
	return strconv.FormatFloat(t/u.ns, 'f', dec, 64)
}

// formatDuration formats ns nanoseconds in the largest unit it is at least one of, with three
// significant digits, such as "1.57ms".
func formatDuration(ns float64) string {
	if ns == 0 {
		return "0"
	}
	u := unitFor(ns)
	v := ns / u.ns
	dec := 0
	switch {
	case v < 10:
		dec = 2
	case v < 100:
		dec = 1
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	return s + u.name
}

// decades returns the powers of ten from the one at or below lo to the one at or above hi.
func decades(lo, hi float64) []float64 {
	if lo <= 0 {
		lo = 1
	}
	if hi < lo {
		hi = lo
	}
	var ds []float64
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		ds = append(ds, math.Pow(10, e))
	}
	if len(ds) < 2 {
		ds = append(ds, ds[len(ds)-1]*10)
	}
	return ds
}
