// This file implements the summary: one line per seed claim, the seed's figure, ours and the
// verdict, with the reason under it for each claim that does not come out.

package scenario

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// A ClaimResult is a claim judged on a report.
type ClaimResult struct {
	Scenario *Scenario
	Claim    *Claim
	// Point is the grid point the claim was judged at, or -1 when the report has no point
	// with the claim's At values (the claim is then not judged: Verdict.Kind is NoFigure).
	Point   int
	Verdict Verdict
	// Unit is the unit of a figure that is not a ratio.
	Unit string
	// Swept are the verdicts at every grid point, in the plan's order, when the claim names no
	// point (At is nil) and the plan sweeps a parameter the seed does not fix: the summary
	// then shows where the seed's figure falls. Nil otherwise.
	Swept []Verdict
}

// Varies reports whether the claim's verdict differs between the swept grid points.
func (c *ClaimResult) Varies() bool {
	for _, v := range c.Swept {
		if v.Kind != c.Verdict.Kind {
			return true
		}
	}
	return false
}

// Claims judges every claim of the report's scenario.
func (rp *Report) Claims() []ClaimResult {
	s := rp.Plan.Scenario
	var out []ClaimResult
	for i := range s.Claims {
		c := &s.Claims[i]
		res := ClaimResult{Scenario: s, Claim: c, Point: -1, Unit: s.Metrics[0].Unit}
		for p, point := range rp.Plan.Points {
			if matches(point, c.At) || (c.At == nil && p == 0) {
				res.Point = p
				break
			}
		}
		if res.Point >= 0 {
			r, b := s.claimRows(c)
			f, ok := s.claimFigure(c)
			if !f.Ratio && (b < 0 || c.Figure != nil) {
				b = -1
			}
			res.Verdict = rp.compare(res.Point, r, b, f, ok)
			if c.At == nil && len(rp.Plan.Points) > 1 {
				for p := range rp.Plan.Points {
					res.Swept = append(res.Swept, rp.compare(p, r, b, f, ok))
				}
			}
		}
		out = append(out, res)
	}
	return out
}

// valueText formats a figure that is not a ratio with its unit.
func valueText(x float64, unit string, atLeast bool) string {
	s := num(x)
	if unit != "" {
		if unit == "%" {
			s += " %"
		} else {
			s += " " + unit
		}
	}
	if atLeast {
		s = "≥ " + s
	}
	return s
}

// seedCell and oursCell format the claim's two figures for the summary.
func (c *ClaimResult) seedCell() string {
	v := &c.Verdict
	switch {
	case c.Point < 0 || !v.HasSeed:
		return "-"
	case v.Ratio:
		return v.SeedText()
	}
	return valueText(v.Seed, c.Unit, v.AtLeast)
}

func (c *ClaimResult) oursCell() string {
	v := &c.Verdict
	switch {
	case c.Point < 0:
		return "not run"
	case len(c.Swept) > 0:
		var parts []string
		for _, w := range c.Swept {
			if w.Ratio {
				parts = append(parts, strings.TrimSuffix(w.OursText(), "×"))
			} else {
				parts = append(parts, num(w.Ours))
			}
		}
		out := strings.Join(parts, " / ")
		if v.Ratio {
			out += "×"
		}
		return out
	case v.Ratio:
		return v.OursText()
	}
	return valueText(v.Ours, c.Unit, false)
}

// sweptText says the verdict at each swept point: "iter_ms=50: reproduced; iter_ms=1000:
// direction only".
func (c *ClaimResult) sweptText(rp *Report) string {
	var parts []string
	for p, v := range c.Swept {
		parts = append(parts, formatValues(rp.Plan.Points[p])+": "+v.Kind.String())
	}
	return strings.Join(parts, "; ")
}

// WriteSummary writes the summary of the reports' claims: one line per claim with its seed,
// the claim in a few words, the seed's figure, ours and the verdict; then, for each claim that
// does not come out, the reason in one line. Claims are in the reports' order.
func WriteSummary(w io.Writer, reports []*Report) error {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "seed\tclaim\tseed's\tours\tverdict")
	var why []string
	marks := map[string]string{}
	n := map[Kind]int{}
	total := 0
	for _, rp := range reports {
		for _, c := range rp.Claims() {
			total++
			verdict := c.Verdict.Kind.String()
			if c.Point < 0 {
				verdict = "not judged"
			}
			if c.Varies() {
				n[-1]++
				mark := fmt.Sprintf("[%d]", len(why)+1)
				verdict = "varies " + mark
				why = append(why, fmt.Sprintf("%s %s, not known, so swept: %s", mark, strings.Join(sortedKeys(rp.Plan.Points[0]), ", "), c.sweptText(rp)))
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Scenario.Seed, c.Claim.Text, c.seedCell(), c.oursCell(), verdict)
				continue
			}
			n[c.Verdict.Kind]++
			if !c.Verdict.Kind.Comes() && c.Point >= 0 {
				reason := c.Claim.Why
				if reason == "" {
					reason = "(no reason recorded; see the scenario's notes)"
				}
				// A reason shared by several claims is printed once.
				mark, ok := marks[reason]
				if !ok {
					mark = fmt.Sprintf("[%d]", len(why)+1)
					marks[reason] = mark
					why = append(why, mark+" "+reason)
				}
				verdict += " " + mark
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Scenario.Seed, c.Claim.Text, c.seedCell(), c.oursCell(), verdict)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if total > 0 {
		var parts []string
		for _, k := range []Kind{Matches, Reproduced, DirectionOnly, NotReproduced, Opposite, NoFigure, Untested, -1} {
			if n[k] > 0 {
				name := k.String()
				if k == -1 {
					name = "varies with a swept unknown"
				}
				parts = append(parts, fmt.Sprintf("%d %s", n[k], name))
			}
		}
		fmt.Fprintf(&b, "\n%d %s: %s.\n", total, plural(total, "claim"), strings.Join(parts, ", "))
	}
	b.WriteString(profilesLine(reports))
	if len(why) > 0 {
		b.WriteString("\nwhy not:\n")
		for _, l := range why {
			b.WriteString(l + "\n")
		}
	}
	_, err := io.WriteString(w, trimLines(b.String()))
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// profilesLine names the machine profiles the reports ran on: one for all, or each with the
// scenarios that ran on it.
func profilesLine(reports []*Report) string {
	var names []string
	by := map[string][]string{}
	for _, rp := range reports {
		n := profileText(rp.Plan.Profile)
		if _, ok := by[n]; !ok {
			names = append(names, n)
		}
		by[n] = append(by[n], rp.Plan.Scenario.Name)
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "machine profile " + names[0] + ".\n"
	}
	var b strings.Builder
	b.WriteString("machine profiles:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %s:\n", n)
		wrapList(&b, "    ", by[n], 100)
	}
	return b.String()
}

// wrapList writes items to b separated by commas, in lines of at most width columns that start
// with indent (an item longer than a line gets a line of its own).
func wrapList(b *strings.Builder, indent string, items []string, width int) {
	line := indent
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		if line != indent && len(line)+1+len(it) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += it
	}
	b.WriteString(line + "\n")
}
