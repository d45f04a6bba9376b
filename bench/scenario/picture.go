// This file implements the report's pictures: a box-and-strip plot per grid point, our
// repetitions beside the seed's figure.

package scenario

import (
	"fmt"
	"io"

	"github.com/schedkit/schedkit/bench/plot"
)

// Picture writes to w the box-and-strip plot (plot.Distribution) of grid point p: one row
// per scenario row, every repetition of the first metric, and the seed's figure as a mark
// where it applies. A scenario whose rows compare with baselines is drawn as ratios to the
// baseline's mean on a logarithmic axis (the seed's figures are ratios: its seconds are
// another machine's), an Absolute one in the metric's unit; percentages read as percentages
// and times in the unit that suits the axis. It returns the picture's caption.
func (rp *Report) Picture(w io.Writer, p int, palette *plot.Palette) (string, error) {
	s := rp.Plan.Scenario
	ratios := !s.Absolute
	if ratios {
		// A baseline whose mean is 0 (or negative) gives no ratio: draw the values instead.
		for r := range s.Rows {
			if b := s.Rows[r].Baseline; b != "" && !(rp.Summary(p, s.rowIndex(b), 0).Mean > 0) {
				ratios = false
			}
		}
	}
	m := s.Metrics[0]
	title := fmt.Sprintf("%s: %s per repetition", s.Name, m.Name)
	if pt := rp.Plan.Points[p]; len(pt) > 0 {
		title = fmt.Sprintf("%s [%s]: %s per repetition", s.Name, formatValues(pt), m.Name)
	}
	o := plot.DistOptions{Palette: palette, MarkLegend: "seed " + s.Seed + "'s figure"}
	if s.Seed == "" {
		o.MarkLegend = "the published figure"
	}
	var samples []plot.Sample
	positive := true
	for r := range s.Rows {
		row := &s.Rows[r]
		sm := plot.Sample{Name: row.Key()}
		scale := 1.0
		switch {
		case ratios && row.Baseline != "":
			scale = 1 / rp.Summary(p, s.rowIndex(row.Baseline), 0).Mean
		case ratios:
			// A baseline is drawn against its own mean: its spread around 1.
			if mean := rp.Summary(p, r, 0).Mean; mean > 0 {
				scale = 1 / mean
			}
		case m.Unit == "%":
			scale = 0.01
		}
		for _, x := range rp.Samples[p][r][0] {
			sm.Values = append(sm.Values, x*scale)
			positive = positive && x*scale > 0
		}
		v := rp.RowVerdict(p, r)
		if v.HasSeed && v.Ratio == ratios && v.Seed > 0 {
			mark := v.Seed
			if !ratios && m.Unit == "%" {
				mark /= 100
			}
			label := fmt.Sprintf("seed %s: %s", s.Seed, v.SeedText())
			if !ratios {
				label = fmt.Sprintf("seed %s: %s", s.Seed, valueText(v.Seed, m.Unit, v.AtLeast))
			}
			if f := row.Published; f != nil && f.Reference {
				label = "reference (not the seed's): " + label[len("seed "+s.Seed+": "):]
			}
			sm.Marks = append(sm.Marks, plot.Mark{Value: mark, Label: label})
		}
		samples = append(samples, sm)
	}
	switch {
	case ratios:
		o.Unit, o.Log = "×", positive
		title += ", as a ratio to the row's baseline mean"
	case m.Unit == "%":
		o.Unit = "%"
	case m.Unit == "us":
		o.Unit = "µs"
	default:
		o.Unit = m.Unit
		if !plot.IsTimeUnit(m.Unit) && m.Unit != "" {
			o.Unit = " " + m.Unit
		}
	}
	o.Title = title
	if err := plot.Distribution(w, samples, o); err != nil {
		return "", fmt.Errorf("scenario %s: point %d: %w", s.Name, p, err)
	}
	return title, nil
}
