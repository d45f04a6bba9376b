// This file implements the report: summaries, verdicts against the seed, and the table.

package scenario

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/stat"
)

// Confidence is the confidence level of every verdict, in percent (ministat's default).
const Confidence = 95

// Summary returns ministat's summary of metric m of row r at grid point p.
func (rp *Report) Summary(p, r, m int) stat.Summary { return stat.Summarize(rp.Samples[p][r][m]) }

// seedFigure returns the seed's figure for row r compared with row b (b < 0: r alone, an
// absolute figure): the ratio r printed, the ratio of the two rows' printed values, or r's
// value; false if there is none.
func (s *Scenario) seedFigure(r, b int) (Figure, bool) {
	pub := s.Rows[r].Published
	if pub == nil {
		return Figure{}, false
	}
	if b < 0 {
		return *pub, !pub.Ratio
	}
	own := s.Rows[r].Baseline != "" && s.rowIndex(s.Rows[r].Baseline) == b
	if pub.Ratio {
		return *pub, own
	}
	bp := s.Rows[b].Published
	if bp == nil || bp.Ratio || bp.Value == 0 {
		return Figure{}, false
	}
	f := *pub
	f.Value, f.Ratio, f.Exact = pub.Value/bp.Value, true, false
	f.Reference = pub.Reference || bp.Reference
	if !own {
		f.Sig = SigUnknown
	}
	return f, true
}

// claimFigure returns the seed's figure for claim c.
func (s *Scenario) claimFigure(c *Claim) (Figure, bool) {
	if c.Figure != nil {
		return *c.Figure, true
	}
	r, b := s.claimRows(c)
	return s.seedFigure(r, b)
}

// claimRows returns the rows claim c compares: its row and the row it is compared with (-1:
// none).
func (s *Scenario) claimRows(c *Claim) (int, int) {
	r, b := s.rowIndex(c.Row), -1
	switch {
	case c.Versus != "":
		b = s.rowIndex(c.Versus)
	case s.Rows[r].Baseline != "":
		b = s.rowIndex(s.Rows[r].Baseline)
	}
	return r, b
}

// applies reports whether the seed's figures hold for row r at grid point p: every parameter
// of the scenario's Seeded has the seed's value in the row's cells.
func (rp *Report) applies(p, r int) bool {
	s := rp.Plan.Scenario
	if len(s.Seeded) == 0 {
		return true
	}
	c := &rp.Plan.Cells[(p*len(s.Rows)+r)*rp.Plan.Reps]
	for k, x := range s.Seeded {
		if c.Values[k] != x {
			return false
		}
	}
	return true
}

// compare returns the verdict on row r against row b (b < 0: r's mean alone) at grid point
// p, on the first metric, against the seed's figure fig (ok false: none).
func (rp *Report) compare(p, r, b int, fig Figure, ok bool) Verdict {
	ok = ok && rp.applies(p, r) && (b < 0 || rp.applies(p, b))
	e := Evidence{HasSeed: ok}
	if ok {
		e.Seed, e.Ratio, e.SeedSig, e.AtLeast, e.Exact = fig.Value, fig.Ratio, fig.Sig, fig.AtLeast, fig.Exact
	}
	ys := rp.Summary(p, r, 0)
	if b < 0 {
		e.Ratio = false
		e.Ours, e.Runs, e.Tested, e.Significant = ys.Mean, rp.Samples[p][r][0], ys.N >= 2, true
		return Judge(e)
	}
	xs := rp.Summary(p, b, 0)
	e.Ratio, e.Ours = true, ys.Mean/xs.Mean
	if d, err := student(xs, ys); err == nil && xs.Mean != 0 {
		e.Tested, e.Significant = true, d.Significant
	}
	return Judge(e)
}

// RowVerdict returns the verdict of row r at grid point p, as its table prints it: a row
// with a baseline against it, a row other rows are compared with as IsBaseline, and a row of
// an Absolute scenario against the seed's value.
func (rp *Report) RowVerdict(p, r int) Verdict {
	s := rp.Plan.Scenario
	row := &s.Rows[r]
	if row.Baseline != "" {
		b := s.rowIndex(row.Baseline)
		f, ok := s.seedFigure(r, b)
		return rp.compare(p, r, b, f, ok)
	}
	for i := range s.Rows {
		if s.Rows[i].Baseline == row.Key() {
			return Verdict{Kind: IsBaseline}
		}
	}
	f, ok := s.seedFigure(r, -1)
	return rp.compare(p, r, -1, f, ok && s.Absolute)
}

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

// WriteTables writes the report as the seed's table: for each grid point, one block per
// column of rows, each row with the seed's figure, our mean ± the 95 % half-width of the
// mean, both ratios to the row's baseline, the means of the other metrics and the verdict
// (RowVerdict), and the scenario's mmtests tables.
func (rp *Report) WriteTables(w io.Writer) error {
	s := rp.Plan.Scenario
	var b strings.Builder
	m := s.Metrics[0]
	fmt.Fprintf(&b, "%s: %s\n", s.Name, s.Title)
	fmt.Fprintf(&b, "%s (%s): mean ± %d%% half-width of the mean over %d seeded runs; ratios to the row's baseline\n",
		m.Name, m.Unit, Confidence, rp.Plan.Reps)
	b.WriteString("-: no figure (the seed gives none for the row, or the row has no baseline to divide by)\n")
	fmt.Fprintf(&b, "machine profile %s\n", profileText(rp.Plan.Profile))
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
			ours := num(sum.Mean)
			if hw, ok := halfWidth(sum); ok {
				ours += " ± " + num(hw)
			}
			oursRatio := "-"
			v := rp.RowVerdict(p, r)
			if v.Ratio {
				oursRatio = v.OursText()
			}
			pub, pubRatio := publishedText(row, v, rp.applies(p, r))
			verdict := v.String()
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
	_, err := io.WriteString(w, trimLines(b.String()))
	return err
}

// publishedText formats row's published figure as the seed's columns show it: the figure, with
// its spread and "≥" for a lower bound, or its ratio (the verdict's seed ratio where it has
// one), marked "ref" when it is not the seed's own; "-" where there is none or the row does not
// apply at this point.
func publishedText(row *Row, v Verdict, applies bool) (pub, pubRatio string) {
	if !applies {
		return "-", "-"
	}
	pub, pubRatio = "-", "-"
	f := row.Published
	if f != nil {
		if f.Ratio {
			pubRatio = times(f.Value)
		} else {
			pub = num(f.Value)
			if f.Spread != 0 {
				pub += fmt.Sprintf(" (%s)", num(f.Spread))
			}
			if f.AtLeast {
				pub = "≥ " + pub
			}
		}
	}
	if v.Ratio && v.HasSeed {
		pubRatio = v.SeedText()
	}
	if f != nil && f.Reference {
		// Not the seed's own figure: the kernel's table, the host's measurement.
		if f.Ratio {
			pubRatio += " ref"
		} else {
			pub += " ref"
		}
	}
	return pub, pubRatio
}

// A NoteList is a heading and its items, as a scenario's table prints them under it.
type NoteList struct {
	Heading string
	Items   []string
}

// NoteLists returns what WriteTable prints under the tables: where the seed's figures were
// measured, and the scenario's notes (what the model leaves out and why, the sources read).
func (rp *Report) NoteLists() []NoteList {
	s := rp.Plan.Scenario
	var out []NoteList
	var figs []string
	seen := map[string]bool{}
	refs := false
	for _, row := range s.Rows {
		if f := row.Published; f != nil && !seen[f.On] {
			seen[f.On] = true
			figs = append(figs, f.On)
			refs = refs || f.Reference
		}
	}
	if len(figs) > 0 {
		h := "seed figures measured on"
		if refs {
			h += " (ref: a reference that stands for the seed, not its own figure)"
		}
		out = append(out, NoteList{Heading: h, Items: figs})
	}
	if m := machineOf(s); m != "" {
		out = append(out, NoteList{Heading: "the seed's machine, and the profile that stands for it", Items: []string{m}})
	}
	if len(s.Notes) > 0 {
		out = append(out, NoteList{Heading: "notes: what the model leaves out and why, and the sources read", Items: s.Notes})
	}
	return out
}

// profileText names a machine profile in a table: "ci (measured 2026-12-04): the costs
// between a decision and its effect", a profile restricted to its latencies ("ci (latencies
// only, measured 2026-12-04)"), or the ideal profile's "ideal (no costs)".
func profileText(p *sim.Profile) string {
	switch {
	case p.Ideal():
		return p.String() + ": a woken thread runs the instant it is chosen"
	case p.LatenciesOnly():
		return p.String() + ": the latencies between a decision and its effect, not its CPU costs"
	}
	return p.String() + ": the costs between a decision and its effect"
}

// WriteTable writes the report's tables (WriteTables) and, under them, its notes (NoteLists).
func (rp *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	if err := rp.WriteTables(&b); err != nil {
		return err
	}
	for _, l := range rp.NoteLists() {
		fmt.Fprintf(&b, "\n%s:\n", l.Heading)
		for _, it := range l.Items {
			fmt.Fprintf(&b, "  - %s\n", it)
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
	// Seed 004's tables came from mmtests of October 2022, and keep its form.
	c := &stat.Comparison{Stats: []stat.Stat{{Kind: stat.Amean}}, Better: stat.LowerBetter, Version: stat.MMTests2022}
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
