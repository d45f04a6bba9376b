package plot

// This file implements Distribution: repeated measurements of one quantity, per policy, as
// boxes and points (ministat's ASCII plot, in SVG).

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// decimalsFor returns how many decimals labels at multiples of step need.
func decimalsFor(step float64) int {
	d := int(math.Ceil(-math.Log10(step) - 1e-9))
	return max(0, min(d, 9))
}

// A Sample is one row of a [Distribution]: a name (the policy) and its measurements.
type Sample struct {
	Name   string
	Values []float64
}

// DistOptions describe a [Distribution] chart.
type DistOptions struct {
	// Title is printed above the chart.
	Title string
	// Unit says how values are labelled: "ns" as durations, "%" as percentages of 1, anything
	// else as plain numbers followed by the unit.
	Unit string
	// Width is the plotting area's width in pixels; 0 means 640.
	Width int
	// Palette colours the rows by name; nil means a fresh one.
	Palette *Palette
}

const distRight, distTop, distRow, distBottom = 30, 34, 44, 40

// Quartiles returns the first quartile, median and third quartile of values by linear
// interpolation between order statistics (Hyndman and Fan's type 7, R's default). It returns
// NaNs for no values.
func Quartiles(values []float64) (q1, median, q3 float64) {
	if len(values) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	v := slices.Clone(values)
	slices.Sort(v)
	q := func(p float64) float64 {
		h := p * float64(len(v)-1)
		i := int(h)
		if i+1 >= len(v) {
			return v[len(v)-1]
		}
		return v[i] + (h-float64(i))*(v[i+1]-v[i])
	}
	return q(0.25), q(0.5), q(0.75)
}

// Distribution writes to w an SVG chart with one row per sample: a whisker from the minimum to
// the maximum, a box (class "box") from the first to the third quartile (see [Quartiles]) with
// a line at the median, a diamond at the mean, and every value as a point (class "point"),
// spread vertically so that equal values stay visible. All rows share one axis. It returns an
// error if no sample has a value, a value is not finite, or w fails.
func Distribution(w io.Writer, samples []Sample, o DistOptions) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, sm := range samples {
		for _, v := range sm.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("plot: Distribution: sample %q has value %g", sm.Name, v)
			}
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if hi < lo {
		return errors.New("plot: Distribution: no sample has a value")
	}
	if o.Width <= 0 {
		o.Width = 640
	}
	if o.Palette == nil {
		o.Palette = &Palette{}
	}
	span := hi - lo
	if span == 0 {
		span = math.Max(math.Abs(hi)*0.1, 1)
	}
	step := niceStep(span, 6)
	axLo, axHi := math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	if axHi == axLo {
		axHi = axLo + step
	}
	pw := float64(o.Width)
	// The names sit left of the rows: about 7 pixels a character at the font size used.
	distLeft := 130
	for _, sm := range samples {
		distLeft = max(distLeft, 7*len([]rune(sm.Name))+16)
	}
	xOf := func(v float64) float64 { return float64(distLeft) + (v-axLo)/(axHi-axLo)*pw }
	label := func(v float64) string {
		switch o.Unit {
		case "ns":
			if step >= 1 {
				u := unitFor(step)
				return formatTime(v, step, u) + u.name
			}
			return fmt.Sprintf("%gns", v)
		case "%":
			return strconv.FormatFloat(v*100, 'f', decimalsFor(step*100), 64) + "%"
		}
		return strconv.FormatFloat(v, 'f', decimalsFor(step), 64) + o.Unit
	}
	height := distTop + len(samples)*distRow + distBottom
	s := newSVG(w, distLeft+int(pw)+distRight, height, o.Title)
	s.printf(`<g class="distribution" data-samples="%d">`+"\n", len(samples))
	s.text(float64(distLeft), 20, "start", o.Title)
	for i, sm := range samples {
		y := float64(distTop + i*distRow + distRow/2)
		colour := o.Palette.Colour(sm.Name)
		s.text(float64(distLeft-8), y+4, "end", sm.Name)
		if len(sm.Values) == 0 {
			continue
		}
		mn, mx := slices.Min(sm.Values), slices.Max(sm.Values)
		q1, med, q3 := Quartiles(sm.Values)
		mean := 0.0
		for _, v := range sm.Values {
			mean += v
		}
		mean /= float64(len(sm.Values))
		s.printf(`<g class="box" data-name="%s" data-n="%d"><title>%s: n=%d min %s q1 %s median %s q3 %s max %s mean %s</title>`+"\n",
			esc(sm.Name), len(sm.Values), esc(sm.Name), len(sm.Values), label(mn), label(q1), label(med), label(q3), label(mx), label(mean))
		s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", num(xOf(mn)), num(y), num(xOf(mx)), num(y))
		for _, v := range []float64{mn, mx} {
			s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", num(xOf(v)), num(y-6), num(xOf(v)), num(y+6))
		}
		s.printf(`<rect x="%s" y="%s" width="%s" height="16" fill="%s" fill-opacity="0.35" stroke="%s"/>`+"\n",
			num(xOf(q1)), num(y-8), num(math.Max(xOf(q3)-xOf(q1), 1)), colour, colour)
		s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000" stroke-width="2"/>`+"\n", num(xOf(med)), num(y-8), num(xOf(med)), num(y+8))
		s.printf(`<path d="M%s %sl5 5l-5 5l-5 -5z" fill="#fff" stroke="#000"/>`+"\n", num(xOf(mean)), num(y-15))
		for j, v := range sm.Values {
			// The golden-ratio sequence spreads points evenly over the row, deterministically.
			dy := (math.Mod(float64(j)*0.6180339887, 1) - 0.5) * 14
			s.printf(`<circle class="point" cx="%s" cy="%s" r="2.5" fill="%s"/>`+"\n", num(xOf(v)), num(y+dy), colour)
		}
		s.raw("</g>\n")
	}
	ay := float64(distTop + len(samples)*distRow)
	s.printf(`<line x1="%d" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", distLeft, num(ay), num(float64(distLeft)+pw), num(ay))
	for _, v := range ticks(axLo, axHi, step) {
		x := xOf(v)
		s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", num(x), num(ay), num(x), num(ay+5))
		s.text(x, ay+18, "middle", label(v))
	}
	s.raw("</g>\n")
	return s.close()
}
