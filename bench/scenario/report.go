// This file implements the report: summaries, verdicts against the seed, and the table.

package scenario

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/schedkit/schedkit/bench/stat"
)

// Confidence is the confidence level of every verdict, in percent (ministat's default).
const Confidence = 95

// Summary returns ministat's summary of metric m of row r at grid point p.
func (rp *Report) Summary(p, r, m int) stat.Summary { return stat.Summarize(rp.Samples[p][r][m]) }

// A Verdict compares a row with its baseline on the first metric: our ratio of means, the
// seed's ratio where it printed one, and Student's t on our repetitions.
type Verdict struct {
	// Ours is mean(row) / mean(baseline).
	Ours float64
	// Published is the seed's ratio, or 0 if it printed none.
	Published float64
	// Diff is Student's t at Confidence; Tested is false when there were fewer than two
	// repetitions.
	Diff   stat.Difference
	Tested bool
}

// Verdict returns the verdict of row r at grid point p, or false if the row has no baseline.
func (rp *Report) Verdict(p, r int) (Verdict, bool) {
	s := rp.Plan.Scenario
	row := &s.Rows[r]
	if row.Baseline == "" {
		return Verdict{}, false
	}
	b := s.rowIndex(row.Baseline)
	xs, ys := rp.Summary(p, b, 0), rp.Summary(p, r, 0)
	v := Verdict{Ours: ys.Mean / xs.Mean}
	if pub := row.Published; pub != nil {
		if pub.Ratio {
			v.Published = pub.Value
		} else if bp := s.Rows[b].Published; bp != nil && !bp.Ratio {
			v.Published = pub.Value / bp.Value
		}
	}
	if d, err := student(xs, ys); err == nil {
		v.Diff, v.Tested = d, true
	}
	return v, true
}

// String returns the one-line verdict, such as "direction matches; size 1.84× vs 20.05×".
func (v Verdict) String() string {
	switch {
	case !v.Tested:
		return "fewer than 2 runs: no test"
	case math.IsNaN(v.Ours) || math.IsInf(v.Ours, 0):
		return "the baseline's mean is 0: no ratio"
	case !v.Diff.Significant && v.Published != 0:
		return fmt.Sprintf("no difference proven at %d%% (seed %s)", Confidence, times(v.Published))
	case !v.Diff.Significant:
		return fmt.Sprintf("no difference proven at %d%%", Confidence)
	case v.Published == 0:
		return fmt.Sprintf("%s (no published figure)", times(v.Ours))
	case (v.Ours > 1) == (v.Published > 1):
		return fmt.Sprintf("direction matches; size %s vs %s", times(v.Ours), times(v.Published))
	default:
		return fmt.Sprintf("direction differs: %s vs %s", times(v.Ours), times(v.Published))
	}
}

func times(x float64) string { return fmt.Sprintf("%.2f×", x) }

// rowIndex returns the index of the row whose Key is key; the scenario has validated.
func (s *Scenario) rowIndex(key string) int {
	for i := range s.Rows {
		if s.Rows[i].Key() == key {
			return i
		}
	}
	panic("scenario: internal error: no row " + key)
}

// An Outcome is an Expectation checked against a report.
type Outcome struct {
	Expectation Expectation
	Point       int
	Ratio       float64
	Significant bool
	// OK is true when Ratio is within the band and, if the band excludes 1, the difference is
	// significant.
	OK bool
}

// String describes o in one line.
func (o Outcome) String() string {
	res := "holds"
	if !o.OK {
		res = "FAILS"
	}
	if o.Expectation.Baseline == "" {
		return fmt.Sprintf("%s: %s = %s, want %g..%g: %s", o.Expectation.Doc, o.Expectation.Row, num(o.Ratio),
			o.Expectation.Min, o.Expectation.Max, res)
	}
	return fmt.Sprintf("%s: %s / %s = %s, want %g..%g (significant: %t): %s", o.Expectation.Doc,
		o.Expectation.Row, o.Expectation.Baseline, times(o.Ratio), o.Expectation.Min, o.Expectation.Max, o.Significant, res)
}

// Check checks every expectation of the scenario at every grid point.
func (rp *Report) Check() []Outcome {
	s := rp.Plan.Scenario
	var out []Outcome
	for p := range rp.Plan.Points {
		for _, e := range s.Expect {
			if !matches(rp.Plan.Points[p], e.At) {
				continue
			}
			y := rp.Summary(p, s.rowIndex(e.Row), 0)
			if e.Baseline == "" {
				o := Outcome{Expectation: e, Point: p, Ratio: y.Mean, Significant: true}
				o.OK = y.Mean >= e.Min && y.Mean <= e.Max
				out = append(out, o)
				continue
			}
			x := rp.Summary(p, s.rowIndex(e.Baseline), 0)
			o := Outcome{Expectation: e, Point: p, Ratio: y.Mean / x.Mean}
			if d, err := student(x, y); err == nil {
				o.Significant = d.Significant
			}
			o.OK = o.Ratio >= e.Min && o.Ratio <= e.Max && (o.Significant || (e.Min <= 1 && e.Max >= 1))
			out = append(out, o)
		}
	}
	return out
}

// WriteTable writes the report as the seed's table: for each grid point, one block per
// column of rows, each row with the seed's figure, our mean ± the 95 % half-width of the
// mean, both ratios to the row's baseline, the means of the other metrics and the verdict; then
// the scenario's notes.
func (rp *Report) WriteTable(w io.Writer) error {
	s := rp.Plan.Scenario
	var b strings.Builder
	m := s.Metrics[0]
	fmt.Fprintf(&b, "%s: %s\n", s.Name, s.Title)
	fmt.Fprintf(&b, "%s (%s): mean ± %d%% half-width of the mean over %d seeded runs; ratios to the row's baseline\n",
		m.Name, m.Unit, Confidence, rp.Plan.Reps)
	for p, point := range rp.Plan.Points {
		if len(point) > 0 {
			fmt.Fprintf(&b, "\n[%s]\n", formatValues(point))
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		col := "\x00"
		for r := range s.Rows {
			row := &s.Rows[r]
			if row.Column != col {
				col = row.Column
				fmt.Fprintf(tw, "\n%s\tpolicy\tseed\tours\tseed ratio\tours ratio\t", orDash(col))
				for _, mt := range s.Metrics[1:] {
					fmt.Fprintf(tw, "%s (%s)\t", mt.Name, mt.Unit)
				}
				fmt.Fprintf(tw, "verdict\n")
			}
			sum := rp.Summary(p, r, 0)
			pub, pubRatio := "-", "-"
			if f := row.Published; f != nil {
				if f.Ratio {
					pubRatio = times(f.Value)
				} else {
					pub = num(f.Value)
					if f.Spread != 0 {
						pub += fmt.Sprintf(" (%s)", num(f.Spread))
					}
				}
			}
			ours := num(sum.Mean)
			if hw, ok := halfWidth(sum); ok {
				ours += " ± " + num(hw)
			}
			oursRatio, verdict := "-", ""
			if v, ok := rp.Verdict(p, r); ok {
				oursRatio, verdict = times(v.Ours), v.String()
				if math.IsNaN(v.Ours) || math.IsInf(v.Ours, 0) {
					oursRatio = "-"
				}
				if v.Published != 0 {
					pubRatio = times(v.Published)
				}
			} else if f := row.Published; f != nil && !f.Ratio && s.Absolute {
				verdict = fmt.Sprintf("ours/seed %s", times(sum.Mean/f.Value))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t", row.Label, row.Policy, pub, ours, pubRatio, oursRatio)
			for mi := 1; mi < len(s.Metrics); mi++ {
				fmt.Fprintf(tw, "%s\t", num(rp.Summary(p, r, mi).Mean))
			}
			fmt.Fprintf(tw, "%s\n", verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if s.MMTests {
			b.WriteString("\nmmtests comparison (ours):\n")
			if err := rp.mmtests(p).Write(&b); err != nil {
				return err
			}
		}
		for _, t := range s.Tables {
			c, err := t.Build(rp, p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "\n%s (ours):\n", t.Title)
			if err := c.Write(&b); err != nil {
				return err
			}
		}
	}
	var figs []string
	seen := map[string]bool{}
	for _, row := range s.Rows {
		if f := row.Published; f != nil && !seen[f.On] {
			seen[f.On] = true
			figs = append(figs, f.On)
		}
	}
	if len(figs) > 0 {
		b.WriteString("\nseed figures measured on:\n")
		for _, f := range figs {
			fmt.Fprintf(&b, "  - %s\n", f)
		}
	}
	if len(s.Notes) > 0 {
		b.WriteString("\nwhat the model does not reproduce:\n")
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "  - %s\n", n)
		}
	}
	_, err := io.WriteString(w, trimLines(b.String()))
	return err
}

// trimLines removes the spaces tabwriter leaves after the last cell of a line.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// mmtests returns the comparison table of grid point p: runs are the rows' columns in order,
// operations their labels, samples the first metric's repetitions.
func (rp *Report) mmtests(p int) *stat.Comparison {
	s := rp.Plan.Scenario
	c := &stat.Comparison{Stats: []stat.Stat{{Kind: stat.Amean}}, Better: stat.LowerBetter}
	col := map[string]int{}
	op := map[string]int{}
	for r := range s.Rows {
		row := &s.Rows[r]
		if _, ok := col[row.Column]; !ok {
			col[row.Column] = len(c.Runs)
			c.Runs = append(c.Runs, orDash(row.Column))
		}
		if _, ok := op[row.Label]; !ok {
			op[row.Label] = len(c.Ops)
			c.Ops = append(c.Ops, stat.Op{Name: row.Label})
		}
	}
	for i := range c.Ops {
		c.Ops[i].Samples = make([][]float64, len(c.Runs))
	}
	for r := range s.Rows {
		row := &s.Rows[r]
		c.Ops[op[row.Label]].Samples[col[row.Column]] = rp.Samples[p][r][0]
	}
	return c
}

// halfWidth returns the half-width of the confidence interval of the mean of sum, from
// Student's t with N-1 degrees of freedom, or false for fewer than two values.
func halfWidth(sum stat.Summary) (float64, bool) {
	if sum.N < 2 {
		return 0, false
	}
	t, err := stat.TableT(sum.N-1, Confidence)
	if err != nil {
		return 0, false
	}
	hw := t * sd(sum) / math.Sqrt(float64(sum.N))
	if hw < 1e-6*math.Abs(sum.Mean) {
		// Rounding in Σx² − (Σx)²/N, not spread: the runs agree to six digits.
		hw = 0
	}
	return hw, true
}

// sd returns sum's standard deviation, 0 where ministat's formula gives NaN: for identical
// values Σx² − (Σx)²/N can round below zero, and the true variance is 0.
func sd(sum stat.Summary) float64 {
	if math.IsNaN(sum.Stddev) {
		return 0
	}
	return sum.Stddev
}

// student is stat.Student at Confidence. When both samples are constant, ministat's formula
// can round the variance below zero and give a NaN half-width; the exact variance is then 0,
// the half-width 0, and any difference of the means is real.
func student(x, y stat.Summary) (stat.Difference, error) {
	d, err := stat.Student(x, y, Confidence)
	if err == nil && math.IsNaN(d.HalfWidth) && x.Min == x.Max && y.Min == y.Max {
		d.StdErr, d.HalfWidth, d.RelHalfWidth, d.RelHalfWidthRatio, d.PooledS = 0, 0, 0, 0, 0
		d.Significant = d.Delta != 0
	}
	return d, err
}

// matches reports whether the grid point has every value of at.
func matches(point, at Values) bool {
	for k, v := range at {
		if x, ok := point[k]; !ok || x != v {
			return false
		}
	}
	return true
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// num formats a measured value with four significant digits, or two decimals from 1000 on.
func num(x float64) string {
	if math.Abs(x) >= 1000 {
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.4g", x)
}

func formatValues(v Values) string {
	var parts []string
	for _, k := range sortedKeys(v) {
		parts = append(parts, fmt.Sprintf("%s=%g", k, v[k]))
	}
	return strings.Join(parts, " ")
}
