package plot

// This file implements CDF: the distribution of wake-to-run latencies, one curve per policy.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// A Series is one curve of a [CDF]: a name (the policy) and its values in nanoseconds,
// sorted in ascending order.
type Series struct {
	Name   string
	Values []int64
}

// CDFOptions describe a [CDF] chart.
type CDFOptions struct {
	// Title is printed above the chart.
	Title string
	// Log makes the latency axis logarithmic (decades); values of 0 are drawn apart, left of a
	// break in the axis.
	Log bool
	// Width and Height are the plotting area's size in pixels; 0 means 640 × 320.
	Width, Height int
	// Palette colours the series by name; nil means a fresh one.
	Palette *Palette
}

const (
	cdfZeroGap                           = 36 // pixels left of a log axis's first decade, for 0
	cdfLeft, cdfRight, cdfTop, cdfBottom = 64, 230, 34, 44
	cdfMaxPoints                         = 800 // per curve: ranks beyond this are sampled evenly
)

// CDF writes to w an SVG chart of the empirical distribution function of each series: the
// fraction of values at or below each latency, as a step curve (class "curve", one per series
// with values), the latency axis in the unit that suits its range, with dashed guides at the
// median and the 99th percentile. A series without values is named in the legend as such and
// has no curve. Curves of more than 800 values are drawn through 800 evenly spaced ranks. It
// returns an error if no series has a value, a series is not sorted, or w fails.
func CDF(w io.Writer, series []Series, o CDFOptions) error {
	if o.Width <= 0 {
		o.Width = 640
	}
	if o.Height <= 0 {
		o.Height = 320
	}
	if o.Palette == nil {
		o.Palette = &Palette{}
	}
	lo, hi, minPos, err := cdfRange(series)
	if err != nil {
		return err
	}
	pw, ph := float64(o.Width), float64(o.Height)
	xOf, tickVals, labelOf, zeroX := cdfXAxis(o.Log, lo, hi, minPos, pw)
	yOf := func(f float64) float64 { return cdfTop + (1-f)*ph }
	width, height := int(cdfLeft+pw+cdfRight), int(cdfTop+ph+cdfBottom)
	s := newSVG(w, width, height, o.Title)
	scale := "linear"
	if o.Log {
		scale = "log"
	}
	s.printf(`<g class="cdf" data-scale="%s">`+"\n", scale)
	s.text(cdfLeft, 20, "start", o.Title)
	s.printf(`<rect x="%d" y="%d" width="%s" height="%s" fill="none" stroke="#000"/>`+"\n", cdfLeft, cdfTop, num(pw), num(ph))
	cdfAxes(s, pw, ph, xOf, yOf, tickVals, labelOf, zeroX)
	for i, sr := range series {
		colour := o.Palette.Colour(sr.Name)
		ly := float64(cdfTop + 4 + i*18)
		lx := cdfLeft + pw + 12
		label := sr.Name
		if n := len(sr.Values); n == 0 {
			label += " (no wake-ups)"
		} else {
			// Earlier curves are drawn wider, so that a curve drawn over another still shows it.
			width := math.Max(1.5, 4.5-float64(i))
			s.printf(`<path class="curve" data-series="%s" data-n="%d" d="%s" fill="none" stroke="%s" stroke-width="%s"/>`+"\n",
				esc(sr.Name), n, stepPath(sr.Values, xOf, yOf), colour, num(width))
		}
		s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3"/>`+"\n", num(lx), num(ly+6), num(lx+16), num(ly+6), colour)
		s.text(lx+20, ly+10, "start", label)
	}
	s.raw("</g>\n")
	return s.close()
}

// cdfRange returns the least and greatest of the series' values and their least positive one
// (math.MaxInt64 if none), or an error naming a series that is not sorted or has a negative
// value, or saying no series has a value.
func cdfRange(series []Series) (lo, hi, minPos int64, err error) {
	lo, hi = int64(math.MaxInt64), int64(math.MinInt64)
	minPos = int64(math.MaxInt64)
	for _, s := range series {
		for i, v := range s.Values {
			if i > 0 && v < s.Values[i-1] {
				return 0, 0, 0, fmt.Errorf("plot: CDF: series %q is not sorted at index %d", s.Name, i)
			}
			if v < 0 {
				return 0, 0, 0, fmt.Errorf("plot: CDF: series %q has a negative value %d", s.Name, v)
			}
			lo, hi = min(lo, v), max(hi, v)
			if v > 0 {
				minPos = min(minPos, v)
			}
		}
	}
	if hi < lo {
		return 0, 0, 0, errors.New("plot: CDF: no series has a value")
	}
	return lo, hi, minPos, nil
}

// cdfXAxis lays out the latency axis of width pw for values lo..hi (minPos the least positive):
// the position of a value, the ticks and their labels, and, on a log axis with values of 0,
// where 0 is drawn, left of the first decade (else 0).
func cdfXAxis(log bool, lo, hi, minPos int64, pw float64) (xOf func(float64) float64, tickVals []float64, labelOf func(float64) string, zeroX float64) {
	if !log {
		span := float64(hi)
		if span == 0 {
			span = 1
		}
		step := niceStep(span, 8)
		top := math.Ceil(span/step) * step
		u := unitFor(step)
		return func(v float64) float64 { return cdfLeft + v/top*pw },
			ticks(0, top, step),
			func(v float64) string { return formatTime(v, step, u) + u.name }, 0
	}
	if minPos == math.MaxInt64 {
		minPos = 1
	}
	ds := decades(float64(minPos), float64(max(hi, minPos)))
	l0, l1 := math.Log10(ds[0]), math.Log10(ds[len(ds)-1])
	left, span := float64(cdfLeft), pw
	if lo == 0 {
		zeroX = cdfLeft + cdfZeroGap/3
		left, span = cdfLeft+cdfZeroGap, pw-cdfZeroGap
	}
	xOf = func(v float64) float64 {
		if v <= 0 && zeroX > 0 {
			return zeroX
		}
		if v < ds[0] {
			v = ds[0]
		}
		return left + (math.Log10(v)-l0)/(l1-l0)*span
	}
	return xOf, ds, formatDuration, zeroX
}

// cdfAxes draws the fraction axis with its guides at p50 and p99, the latency axis's ticks (and
// its 0 apart, at zeroX, on a log axis), and both axes' titles.
func cdfAxes(s *svgWriter, pw, ph float64, xOf, yOf func(float64) float64, tickVals []float64, labelOf func(float64) string, zeroX float64) {
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := yOf(f)
		s.printf(`<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#000"/>`+"\n", cdfLeft-5, num(y), cdfLeft, num(y))
		s.text(cdfLeft-8, y+4, "end", fmt.Sprintf("%g", f))
	}
	for _, f := range []float64{0.5, 0.99} {
		s.printf(`<line class="guide" x1="%d" y1="%s" x2="%s" y2="%s" stroke="#999" stroke-dasharray="4 3"/>`+"\n", cdfLeft, num(yOf(f)), num(cdfLeft+pw), num(yOf(f)))
		s.text(cdfLeft+pw-4, yOf(f)-3, "end", fmt.Sprintf("p%g", f*100))
	}
	for _, v := range tickVals {
		x := xOf(v)
		s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", num(x), num(cdfTop+ph), num(x), num(cdfTop+ph+5))
		s.text(x, cdfTop+ph+18, "middle", labelOf(v))
	}
	if zeroX > 0 {
		// The log axis has no 0: it is drawn apart, left of a break in the axis.
		x := float64(cdfLeft) + cdfZeroGap*2/3.0
		s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", num(zeroX), num(cdfTop+ph), num(zeroX), num(cdfTop+ph+5))
		s.text(zeroX, cdfTop+ph+18, "middle", "0")
		s.printf(`<path class="break" d="M%s %sl4 -8M%s %sl4 -8" stroke="#000"/>`+"\n", num(x-3), num(cdfTop+ph+4), num(x+1), num(cdfTop+ph+4))
	}
	s.text(cdfLeft+pw/2, cdfTop+ph+36, "middle", "wake-to-run latency")
	s.printf(`<text x="14" y="%s" text-anchor="middle" transform="rotate(-90 14 %s)">fraction of wake-ups</text>`+"\n", num(cdfTop+ph/2), num(cdfTop+ph/2))
}

// stepPath returns the path of the empirical distribution function of sorted values: at each
// value the curve rises to the fraction of values at or below it.
func stepPath(values []int64, xOf, yOf func(float64) float64) string {
	n := len(values)
	var b strings.Builder
	fmt.Fprintf(&b, "M%s %s", num(xOf(float64(values[0]))), num(yOf(0)))
	ranks := n
	if ranks > cdfMaxPoints {
		ranks = cdfMaxPoints
	}
	prev := -1
	for k := 1; k <= ranks; k++ {
		i := (k*n+ranks-1)/ranks - 1 // the k-th of ranks evenly spaced ranks, 0-based
		if i == prev {
			continue
		}
		prev = i
		// Values equal to values[i] that follow it belong to the same step.
		fmt.Fprintf(&b, "H%sV%s", num(xOf(float64(values[i]))), num(yOf(float64(i+1)/float64(n))))
	}
	return b.String()
}
