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

// A Sample is one row of a [Distribution]: a name (the policy) and its measurements, and
// marks drawn on the same row beside them.
type Sample struct {
	Name   string
	Values []float64
	// Marks are reference values drawn on the row as triangles, such as the figure a paper
	// published for the same row.
	Marks []Mark
}

// A Mark is a reference value on a row of a [Distribution], with the words its tooltip and
// the legend give it ("seed 000: 20.05×").
type Mark struct {
	Value float64
	Label string
}

// DistOptions describe a [Distribution] chart.
type DistOptions struct {
	// Title is printed above the chart.
	Title string
	// Unit says how values are labelled: "ns", "us", "µs", "ms" and "s" as durations in the
	// unit that suits the axis ("4s", "500ms"), "%" as percentages of 1, anything else as
	// plain numbers followed by the unit.
	Unit string
	// Log draws the axis logarithmically, at 1-2-5 steps (ratios such as 0.07× to 20×); every
	// value and mark must then be positive.
	Log bool
	// MarkLegend names the marks in the legend above the rows ("the seed's figure"); empty
	// means "reference".
	MarkLegend string
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

// IsTimeUnit reports whether [Distribution] draws values of unit as durations ("ns", "us",
// "µs", "ms" or "s"), labelling the axis in the unit that suits it; any other unit is printed
// after each value as it is.
func IsTimeUnit(unit string) bool { return timeScale(unit) != 0 }

// timeScale returns how many nanoseconds one of unit is, or 0 if unit is not a time unit.
func timeScale(unit string) float64 {
	switch unit {
	case "ns":
		return 1
	case "us", "µs":
		return 1e3
	case "ms":
		return 1e6
	case "s":
		return 1e9
	}
	return 0
}

// logTicks returns the values 1, 2 and 5 times a power of ten within [lo, hi], fewer (powers
// of ten alone) when there would be more than ten, and the 1-2-5 values just below lo and just
// above hi as the axis's ends.
func logTicks(lo, hi float64) (ticks []float64, axLo, axHi float64) {
	step := func(e float64, m float64) float64 { return m * math.Pow(10, e) }
	var all []float64
	axLo, axHi = lo, hi
	for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			all = append(all, step(e, m))
		}
	}
	for _, v := range all {
		if v <= lo*(1+1e-9) {
			axLo = v
		}
	}
	for i := len(all) - 1; i >= 0; i-- {
		if all[i] >= hi*(1-1e-9) {
			axHi = all[i]
		}
	}
	if axHi <= axLo {
		axHi = axLo * 2
	}
	for _, v := range all {
		if v >= axLo*(1-1e-9) && v <= axHi*(1+1e-9) {
			ticks = append(ticks, v)
		}
	}
	if len(ticks) > 10 {
		var pow []float64
		for _, v := range ticks {
			if m := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9)); math.Abs(m-1) < 1e-6 {
				pow = append(pow, v)
			}
		}
		ticks = pow
	}
	return ticks, axLo, axHi
}

// Distribution writes to w an SVG chart with one row per sample: a whisker from the minimum to
// the maximum, a box (class "box") from the first to the third quartile (see [Quartiles]) with
// a line at the median, a diamond at the mean, and every value as a point (class "point"),
// spread vertically so that equal values stay visible. A row whose values are all equal (two
// or more) shows one bar and says so in words (class "equal": "all 5 runs 1.84×") instead. A
// sample's marks are triangles (class "mark") above its row, named in a legend. All rows share
// one axis, linear or (Log) logarithmic. It returns an error if no sample has a value, a value
// or mark is not finite (or not positive on a logarithmic axis), or w fails.
func Distribution(w io.Writer, samples []Sample, o DistOptions) error {
	lo, hi, marks, err := distRange(samples, o.Log)
	if err != nil {
		return err
	}
	if o.Width <= 0 {
		o.Width = 640
	}
	if o.Palette == nil {
		o.Palette = &Palette{}
	}
	ax := newDistAxis(samples, o, lo, hi)
	top := distTop
	if marks {
		top += 16
	}
	height := top + len(samples)*distRow + distBottom
	s := newSVG(w, ax.left+int(ax.width)+distRight, height, o.Title)
	s.printf(`<g class="distribution" data-samples="%d">`+"\n", len(samples))
	s.text(float64(ax.left), 20, "start", o.Title)
	if marks {
		legend := o.MarkLegend
		if legend == "" {
			legend = "reference"
		}
		s.printf(`<g class="legend"><path d="M%s 30l10 0l-5 8z" fill="#d62728"/>`+"\n", num(float64(ax.left)))
		s.text(float64(ax.left)+16, 38, "start", legend+";  ◇ our mean; box: quartiles; whiskers: min to max")
		s.raw("</g>\n")
	}
	for i, sm := range samples {
		ax.row(s, sm, float64(top+i*distRow+distRow/2), o.Palette.Colour(sm.Name))
	}
	ay := float64(top + len(samples)*distRow)
	s.printf(`<line x1="%d" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", ax.left, num(ay), num(float64(ax.left)+ax.width), num(ay))
	for _, v := range ax.ticks {
		x := ax.x(v / ax.scale)
		s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", num(x), num(ay), num(x), num(ay+5))
		s.text(x, ay+18, "middle", ax.label(v))
	}
	s.raw("</g>\n")
	return s.close()
}

// distRange returns the least and greatest of the samples' values and marks, and whether any
// sample has a mark; or an error naming a value that cannot be drawn (not finite, or not
// positive on a log axis) or saying there is none.
func distRange(samples []Sample, log bool) (lo, hi float64, marks bool, err error) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, sm := range samples {
		for _, v := range sm.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) || (log && v <= 0) {
				return 0, 0, false, fmt.Errorf("plot: Distribution: sample %q has value %g", sm.Name, v)
			}
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if hi < lo {
		return 0, 0, false, errors.New("plot: Distribution: no sample has a value")
	}
	for _, sm := range samples {
		for _, m := range sm.Marks {
			if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) || (log && m.Value <= 0) {
				return 0, 0, false, fmt.Errorf("plot: Distribution: sample %q has mark %g", sm.Name, m.Value)
			}
			lo, hi = min(lo, m.Value), max(hi, m.Value)
			marks = true
		}
	}
	return lo, hi, marks, nil
}

// A distAxis is a [Distribution]'s value axis: where the rows start (left, after the names),
// its width, and its range and ticks in drawn units (nanoseconds for times: scale is the
// nanoseconds in one of the samples' unit, 1 otherwise).
type distAxis struct {
	left         int
	width, scale float64
	lo, hi, step float64 // the axis' ends and, on a linear axis, its tick step
	ticks        []float64
	log          bool
	unit         string // "ns" for times, else the samples' unit
}

// newDistAxis lays out the axis for values lo..hi (in the samples' unit) of samples drawn with
// options o.
func newDistAxis(samples []Sample, o DistOptions, lo, hi float64) *distAxis {
	// Times are drawn in nanoseconds, labelled in the unit that suits the axis.
	ax := &distAxis{width: float64(o.Width), scale: 1, log: o.Log, unit: o.Unit}
	if ts := timeScale(o.Unit); ts != 0 {
		ax.scale, ax.unit = ts, "ns"
		lo, hi = lo*ts, hi*ts
	}
	if o.Log {
		ax.ticks, ax.lo, ax.hi = logTicks(lo, hi)
	} else {
		span := hi - lo
		if span == 0 {
			span = math.Max(math.Abs(hi)*0.1, 1)
		}
		ax.step = niceStep(span, 6)
		ax.lo, ax.hi = math.Floor(lo/ax.step)*ax.step, math.Ceil(hi/ax.step)*ax.step
		if ax.hi == ax.lo {
			ax.hi = ax.lo + ax.step
		}
		ax.ticks = ticks(ax.lo, ax.hi, ax.step)
	}
	// The names sit left of the rows: about 7 pixels a character at the font size used.
	ax.left = 130
	for _, sm := range samples {
		ax.left = max(ax.left, 7*len([]rune(sm.Name))+16)
	}
	return ax
}

// x returns the horizontal position of value v (in the samples' unit).
func (ax *distAxis) x(v float64) float64 {
	v *= ax.scale
	if ax.log {
		return float64(ax.left) + math.Log(v/ax.lo)/math.Log(ax.hi/ax.lo)*ax.width
	}
	return float64(ax.left) + (v-ax.lo)/(ax.hi-ax.lo)*ax.width
}

// label formats an axis position (in drawn units: nanoseconds for times).
func (ax *distAxis) label(v float64) string {
	switch {
	case ax.unit == "ns":
		st := ax.step
		if ax.log {
			st = v
		}
		if st >= 1 {
			u := unitFor(st)
			return formatTime(v, st, u) + u.name
		}
		return fmt.Sprintf("%gns", v)
	case ax.log:
		return strconv.FormatFloat(v, 'g', -1, 64) + ax.unit
	case ax.unit == "%":
		return strconv.FormatFloat(v*100, 'f', decimalsFor(ax.step*100), 64) + "%"
	}
	return strconv.FormatFloat(v, 'f', decimalsFor(ax.step), 64) + ax.unit
}

// value formats a measured value (in the samples' unit) for tooltips and words.
func (ax *distAxis) value(v float64) string {
	switch {
	case ax.unit == "ns":
		return formatDuration(v * ax.scale)
	case ax.unit == "%":
		return strconv.FormatFloat(v*100, 'g', 4, 64) + "%"
	}
	return strconv.FormatFloat(v, 'g', 4, 64) + ax.unit
}

// row draws sample sm's row centred at height y in colour: its name, its marks, and its box,
// or the bar and words of a row whose values are all equal.
func (ax *distAxis) row(s *svgWriter, sm Sample, y float64, colour string) {
	s.text(float64(ax.left-8), y+4, "end", sm.Name)
	for _, m := range sm.Marks {
		s.printf(`<path class="mark" d="M%s %sl10 0l-5 8z" fill="#d62728"><title>%s</title></path>`+"\n",
			num(ax.x(m.Value)-5), num(y-19), esc(m.Label))
	}
	if len(sm.Values) == 0 {
		return
	}
	mn, mx := slices.Min(sm.Values), slices.Max(sm.Values)
	if len(sm.Values) > 1 && mn == mx {
		x := ax.x(mn)
		words := fmt.Sprintf("all %d runs %s", len(sm.Values), ax.value(mn))
		anchor, tx := "start", x+8
		if x > float64(ax.left)+ax.width*0.6 {
			anchor, tx = "end", x-8
		}
		s.printf(`<g class="equal" data-name="%s" data-n="%d"><title>%s: %s</title>`+"\n", esc(sm.Name), len(sm.Values), esc(sm.Name), esc(words))
		s.printf(`<rect x="%s" y="%s" width="4" height="16" fill="%s" stroke="#000"/>`+"\n", num(x-2), num(y-8), colour)
		s.text(tx, y+4, anchor, words)
		s.raw("</g>\n")
		return
	}
	q1, med, q3 := Quartiles(sm.Values)
	mean := 0.0
	for _, v := range sm.Values {
		mean += v
	}
	mean /= float64(len(sm.Values))
	s.printf(`<g class="box" data-name="%s" data-n="%d"><title>%s: n=%d min %s q1 %s median %s q3 %s max %s mean %s</title>`+"\n",
		esc(sm.Name), len(sm.Values), esc(sm.Name), len(sm.Values), ax.value(mn), ax.value(q1), ax.value(med), ax.value(q3), ax.value(mx), ax.value(mean))
	s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", num(ax.x(mn)), num(y), num(ax.x(mx)), num(y))
	for _, v := range []float64{mn, mx} {
		s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", num(ax.x(v)), num(y-6), num(ax.x(v)), num(y+6))
	}
	s.printf(`<rect x="%s" y="%s" width="%s" height="16" fill="%s" fill-opacity="0.35" stroke="%s"/>`+"\n",
		num(ax.x(q1)), num(y-8), num(math.Max(ax.x(q3)-ax.x(q1), 1)), colour, colour)
	s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000" stroke-width="2"/>`+"\n", num(ax.x(med)), num(y-8), num(ax.x(med)), num(y+8))
	s.printf(`<path d="M%s %sl5 5l-5 5l-5 -5z" fill="#fff" stroke="#000"/>`+"\n", num(ax.x(mean)), num(y-15))
	for j, v := range sm.Values {
		// The golden-ratio sequence spreads points evenly over the row, deterministically.
		dy := (math.Mod(float64(j)*0.6180339887, 1) - 0.5) * 14
		s.printf(`<circle class="point" cx="%s" cy="%s" r="2.5" fill="%s"/>`+"\n", num(ax.x(v)), num(y+dy), colour)
	}
	s.raw("</g>\n")
}
