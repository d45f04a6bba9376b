package stat

// This file implements mmtests' comparison tables: the rows compare-mmtests prints for a
// benchmark run under a baseline and under candidates, with its statistics, its percentage
// changes and its significance marks, as two versions of mmtests print them.
//
// Sources: mmtests (github.com/gormanm/mmtests) at the commits MMTests2022 and MMTests2026
// name: bin/lib/MMTests/Stat.pm (calc_*, pdiff, pndiff, cidiff, _calc_meanci,
// _calc_percentileci, stat_names), Summarise.pm (runStatFunc, extractSummary, getStatName,
// getStatCompareFunc), Compare.pm (_generateComparisonTable, _significanceTest,
// _generateRenderTable, _generateHeaderTable), PrintGeneric.pm (printRow), Extract.pm and
// ExtractShellpack.pm (the field width and precision), the Summarise*.pm modules (the lists of
// rows) and compare-mmtests.pl (--print-significance, --no-compare).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Better says which direction of a metric is an improvement (mmtests' getPreferredValue).
type Better int

const (
	// LowerBetter is for times and latencies: data sort ascending, the mean row is the
	// arithmetic mean (Amean), and a change is 100 - new×100/base (pndiff), positive when the
	// candidate is lower.
	LowerBetter Better = iota
	// HigherBetter is for throughputs: data sort descending, the mean row is the harmonic mean
	// (Hmean), and a change is new×100/base - 100 (pdiff), positive when the candidate is higher.
	HigherBetter
)

// A StatKind is one kind of row of a comparison table.
type StatKind int

const (
	Min        StatKind = iota // "Min": the smallest value (calc_min)
	Max                        // "Max": the largest value (calc_max)
	Mean                       // "Amean" or "Hmean" by Better: mmtests' _mean
	Amean                      // "Amean": the arithmetic mean, whatever Better says
	Hmean                      // "Hmean": the harmonic mean N/Σ(1/x); invalid if a value is ≤ 0
	Gmean                      // "Gmean": the geometric mean (Πx)^(1/N) (calc_geomean)
	Stddev                     // "Stddev" (2026 and higher is better: "HStddev"): the spread of the mean (calc_stddev)
	CoeffVar                   // "CoeffVar" ("HCoeffVar"): Stddev × 100 / the mean, in percent
	Percentile                 // "Pctile.P"; 2022: "Max-P", or "1st-qrtle", "2nd-qrtle", "3rd-qrtle" for P = 25, 50, 75
	BestMean                   // "BAmean.P" or "BHmean.P" (2022: "BAmean-P"): the mean of the best P% of the values
	Value                      // the best value, named Comparison.ValueName (SummariseSingleops' _value)
)

// A Stat is one row kind with its argument (the P of Percentile and BestMean).
type Stat struct {
	Kind StatKind
	Arg  float64
}

// An Op is one operation of a comparison (a column of mmtests' results: "21" groups of
// hackbench, "Time" of perfpipe): its samples under each run, Samples[0] the baseline's.
type Op struct {
	Name    string
	Samples [][]float64
}

// A Comparison is a table as compare-mmtests prints it: for every Stat and then every Op, a
// row with the statistic under each run and its change against the baseline. Its zero value
// prints as the newest mmtests (MMTestsLatest) prints a Multiops benchmark.
type Comparison struct {
	Runs   []string // the run names, the baseline first; printed as mmtests prints test names
	Better Better
	// Version is the mmtests whose table is printed: MMTests2022 or MMTests2026; 0 means
	// MMTestsLatest.
	Version int
	// Summary is the benchmark's summary kind: its rows when Stats is nil, and in mmtests
	// 2026 the row that carries the significance marks (the first Stat equal to the kind's
	// mean row, or its Pctile.95 row for Variabletime).
	Summary SummaryKind
	Stats   []Stat // the rows; nil means Summary's rows for Version
	Ops     []Op
	// Precision is the number of decimals of the values (mmtests' _Precision, a shellpack's
	// DecimalPlaces; 0 means 2; hackbench uses 4).
	Precision int
	// FieldLength is the width of a value (mmtests' _FieldLength; 0 means 12 for MMTests2022
	// and 18 for MMTests2026).
	FieldLength int
	// Level is, for MMTests2022, the significance level of the t test (mmtests'
	// _SignificanceLevel; 0 means 0.10) and, for MMTests2026, the alpha of the confidence
	// intervals (0 means 0.05, mmtests' fixed value).
	Level float64
	// ValueName names Value rows ("Lat" for schbench's table; "" means "Ops", mmtests' default
	// _Opname).
	ValueName string
	// NoChanges leaves out the changes and marks (compare-mmtests --no-compare, as seed 004's
	// schbench table).
	NoChanges bool
	// PrintSignificance adds compare-mmtests --print-significance's rows: one "Significant"
	// row per Op after the others, with 1 or 0 for each run and, in the change column, the
	// p-value in percent (2022) or the difference over the intervals' half-widths (2026).
	PrintSignificance bool
}

// A Row is one computed row of a Comparison.
type Row struct {
	Name   string    // the statistic's name: "Amean", "Pctile.90", "BAmean.95", "Significant"
	Op     string    // the operation
	Values []float64 // one per run; 0 where the statistic is invalid, as mmtests prints it
	// Changes are the percentage changes against the baseline (0 for the baseline itself and
	// wherever a value is invalid), signed so that positive is better for Min, Max,
	// percentiles and means, and positive is lower for Stddev and CoeffVar. A change against
	// an undefined baseline is 100 (higher is better) or NaN (lower is better), as mmtests
	// prints it. In a "Significant" row they are the figures of the significance rule: the
	// p-value in percent (2022), or the difference over the intervals' half-widths (2026).
	Changes []float64
	// Significant marks the runs whose difference from the baseline mmtests calls
	// significant; only the marked rows carry marks (2022: the mean rows, Amean, Hmean and
	// Gmean; 2026: the Summary's mean or Pctile.95 row).
	Significant []bool
	// tagged is a row whose changes mmtests turns into text before printing (the rows it
	// considers for marks).
	tagged bool
}

var errNoRuns = errors.New("stat: a comparison needs at least one run")

// version returns c's mmtests version, MMTestsLatest for 0.
func (c *Comparison) version() int {
	if c.Version == 0 {
		return MMTestsLatest
	}
	return c.Version
}

// stats returns c's rows: Stats, or its Summary's.
func (c *Comparison) stats() []Stat {
	if c.Stats != nil {
		return c.Stats
	}
	return c.Summary.Stats(c.version())
}

// Rows computes c's rows, one per Stat and Op (all the Ops of the first Stat, then of the
// second, …) and, with PrintSignificance, one "Significant" row per Op, as mmtests computes
// them:
//
//   - each run's samples are sorted best first (ascending if LowerBetter, else descending);
//   - Percentile P is the value at index max(1, ⌊N·P/100⌋) - 1 of that order, so "Pctile.90"
//     ("Max-90" in 2022) of a time is the 90th percentile; BestMean P is the mean of the
//     first max(1, ⌊N·P/100⌋) values;
//   - Stddev is the sample deviation around the arithmetic mean, sqrt(Σ(x-A)²/(N-1)), and
//     CoeffVar is Stddev×100/A; in mmtests 2026 a higher-is-better metric has HStddev, the
//     spread of the harmonic mean H, sqrt(Σ(1/x-1/H)²·H⁴/N), and HCoeffVar = HStddev×100/H;
//   - the harmonic mean is undefined if a value is ≤ 0 (2022: the -1 marker, whose row then
//     shows 0 for every run; 2026: NaN, which shows 0 for that run only);
//   - a change is pndiff (100 - new×100/base) when lower is better, and for Stddev and
//     CoeffVar always; pdiff (new×100/base - 100) otherwise;
//   - significance in mmtests 2022 is a t test on each Op (see Row.Significant): t = |m₀ - m₁|
//     / sqrt(s₀²/N₀ + s₁²/N₁), m the mean of the Mean row and s the arithmetic Stddev, with
//     N₀+N₁-2 degrees of freedom, significant when R's two-sided p-value is below Level; when
//     both deviations are 0, any difference is significant;
//   - significance in mmtests 2026 compares confidence intervals of level 1-Level (95%): the
//     mean ± R's qnorm(0.975)·Stddev (or HStddev), or for Variabletime the Pctile.95 row
//     between the values at R's qbinom(0.025, N-1, 0.95) and qbinom(0.975, N-1, 0.95); a run
//     is significant when the difference of the values exceeds the sum of the half-widths
//     facing each other, |Δ| > 1.96·(s₀+s₁) for means; when both widths are 0, when Δ > 1.
//
// Rows returns an error if there are no runs, the Version is unknown, the Summary has no rows
// in that version, an Op does not have one sample set per run, a sample set is empty, or a
// Stat's argument is outside (0, 100].
func (c *Comparison) Rows() ([]Row, error) {
	if len(c.Runs) == 0 {
		return nil, errNoRuns
	}
	v := c.version()
	if v != MMTests2022 && v != MMTests2026 {
		return nil, fmt.Errorf("stat: mmtests version %d: want %d or %d", c.Version, MMTests2022, MMTests2026)
	}
	stats := c.stats()
	if stats == nil {
		return nil, fmt.Errorf("stat: mmtests %d has no %v summary", v, c.Summary)
	}
	if err := c.check(stats); err != nil {
		return nil, err
	}
	sorted := c.sortedSamples()
	verdicts, tagged := c.verdicts(stats, sorted)
	var rows []Row
	for i, st := range stats {
		for o, op := range c.Ops {
			row := Row{Name: c.statName(st), Op: op.Name, tagged: i == tagged}
			vals := make([]float64, len(c.Runs))
			for r := range c.Runs {
				vals[r] = c.compute(st, sorted[o][r])
			}
			cmp := pndiff
			if c.Better == HigherBetter && st.Kind != Stddev && st.Kind != CoeffVar {
				cmp = pdiff
			}
			for r := range c.Runs {
				// _generateComparisonTable: an invalid value (NaN, or -1) shows 0 and no change,
				// and so does every run's when the baseline's is -1; a NaN baseline is not
				// tested for.
				if vals[r] != -1 && !math.IsNaN(vals[r]) && vals[0] != -1 {
					row.Values = append(row.Values, vals[r])
					row.Changes = append(row.Changes, cmp(vals[r], vals[0]))
				} else {
					row.Values = append(row.Values, 0)
					row.Changes = append(row.Changes, 0)
				}
			}
			row.Significant = make([]bool, len(c.Runs))
			if c.marks(row.Name, i, tagged) {
				for r, vd := range verdicts[o] {
					row.Significant[r] = vd.significant
				}
			}
			rows = append(rows, row)
		}
	}
	if c.PrintSignificance && !c.NoChanges {
		for o, op := range c.Ops {
			row := Row{Name: "Significant", Op: op.Name, Significant: make([]bool, len(c.Runs))}
			for _, vd := range verdicts[o] {
				row.Values = append(row.Values, b2f(vd.significant))
				row.Changes = append(row.Changes, vd.figure)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// check returns an error naming the first operation without a sample set per run or with an
// empty one, or the first statistic whose percentage is outside (0, 100].
func (c *Comparison) check(stats []Stat) error {
	for _, op := range c.Ops {
		if len(op.Samples) != len(c.Runs) {
			return fmt.Errorf("stat: operation %q has %d sample sets for %d runs", op.Name, len(op.Samples), len(c.Runs))
		}
		for i, s := range op.Samples {
			if len(s) == 0 {
				return fmt.Errorf("stat: operation %q has no samples for run %q", op.Name, c.Runs[i])
			}
		}
	}
	for _, s := range stats {
		if (s.Kind == Percentile || s.Kind == BestMean) && !(s.Arg > 0 && s.Arg <= 100) {
			return fmt.Errorf("stat: %s row with argument %g: want a percentage in (0, 100]", c.statName(s), s.Arg)
		}
	}
	return nil
}

// sortedSamples returns each Op's samples per run, sorted best first (ascending, or descending
// when higher is better), as mmtests sorts them before its statistics.
func (c *Comparison) sortedSamples() [][][]float64 {
	sorted := make([][][]float64, len(c.Ops))
	for o, op := range c.Ops {
		sorted[o] = make([][]float64, len(c.Runs))
		for r, s := range op.Samples {
			s = slices.Clone(s)
			slices.Sort(s)
			if c.Better == HigherBetter {
				slices.Reverse(s)
			}
			sorted[o][r] = s
		}
	}
	return sorted
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// marks reports whether row i, named name, carries significance marks: in mmtests 2022 the
// rows whose name matches /^.mean/ (_generateRenderTable), in mmtests 2026 the row of the
// Summary's marked Stat.
func (c *Comparison) marks(name string, i, tagged int) bool {
	if c.version() == MMTests2022 {
		return len(name) >= 5 && name[1:5] == "mean"
	}
	_, ok := c.Summary.marked()
	return ok && i == tagged
}

// verdicts returns the verdicts of every Op's runs and the index of the row mmtests 2026 tags
// for marks (its _ComparisonStatIndex: the Summary's marked Stat, or, where there is none,
// row 0, which Perl's undef == 0 selects; -1 for mmtests 2022, which tags rows by name).
func (c *Comparison) verdicts(stats []Stat, sorted [][][]float64) ([][]verdict, int) {
	out := make([][]verdict, len(c.Ops))
	if c.version() == MMTests2022 {
		level := c.Level
		if level == 0 {
			level = 0.10
		}
		for o := range c.Ops {
			out[o] = make([]verdict, len(c.Runs))
			base := c.significanceData(sorted[o][0])
			for r := 1; r < len(c.Runs); r++ {
				out[o][r] = tTest(base, c.significanceData(sorted[o][r]), level)
			}
		}
		return out, -1
	}
	alpha := c.Level
	if alpha == 0 {
		alpha = 0.05
	}
	tagged := 0
	m, ok := c.Summary.marked()
	if ok {
		ok = false
		if i := slices.Index(stats, m); i >= 0 {
			tagged, ok = i, true
		}
	}
	ivs := make([][]confInterval, len(c.Runs))
	for r := range c.Runs {
		ivs[r] = make([]confInterval, len(c.Ops))
		for o := range c.Ops {
			xs := sorted[o][r]
			switch {
			case !ok:
			case m.Kind == Percentile:
				ivs[r][o] = percentileInterval(c.compute(m, xs), xs, m.Arg, alpha)
			default:
				ivs[r][o] = meanInterval(c.mean(xs), c.compute(Stat{Kind: Stddev}, xs), alpha)
			}
		}
	}
	for o := range c.Ops {
		out[o] = intervalVerdicts(ivs, o)
	}
	return out, tagged
}

// compute returns statistic s of the best-first sorted values xs as mmtests computes it, NaN
// or -1 where mmtests' value is "NaN" or its -1 marker.
func (c *Comparison) compute(s Stat, xs []float64) float64 {
	count := func() int { return max(1, int(float64(len(xs))*s.Arg/100)) }
	switch s.Kind {
	case Min:
		return slices.Min(xs)
	case Max:
		return slices.Max(xs)
	case Mean:
		return c.mean(xs)
	case Amean:
		return mmAmean(xs)
	case Hmean:
		return c.hmean(xs)
	case Gmean:
		return mmGmean(xs)
	case Stddev:
		if c.version() == MMTests2026 && c.Better == HigherBetter {
			return mmHStddev(xs)
		}
		return mmStddev(xs)
	case CoeffVar:
		if c.version() == MMTests2026 && c.Better == HigherBetter {
			return mmCoeffVar(mmHStddev(xs), mmHmean(xs))
		}
		return mmCoeffVar(mmStddev(xs), mmAmean(xs))
	case Percentile:
		return xs[count()-1]
	case BestMean:
		return c.mean(xs[:count()])
	case Value:
		return xs[0]
	}
	panic(fmt.Sprintf("stat: Comparison: unknown StatKind %d", int(s.Kind)))
}

// mean is mmtests' _mean: the arithmetic mean of times, the harmonic mean of throughputs.
func (c *Comparison) mean(xs []float64) float64 {
	if c.Better == HigherBetter {
		return c.hmean(xs)
	}
	return mmAmean(xs)
}

// hmean is calc_hmean of c's version: undefined if some x ≤ 0, which mmtests 2022 marks -1
// and mmtests 2026 NaN.
func (c *Comparison) hmean(xs []float64) float64 {
	h := mmHmean(xs)
	if math.IsNaN(h) && c.version() == MMTests2022 {
		return -1
	}
	return h
}

// significanceData is what mmtests 2022's extractSummary keeps for the t test: the mean of the
// Mean row, the arithmetic deviation (0 where undefined) and N.
func (c *Comparison) significanceData(xs []float64) sigData {
	s := mmStddev(xs)
	if math.IsNaN(s) {
		s = 0
	}
	return sigData{mean: c.mean(xs), stddev: s, n: len(xs)}
}

// Write writes c as compare-mmtests prints it (PrintGeneric): two header lines with the run
// names split at their first '-' (as _generateHeaderTable splits "6.1.0-rc1-vanilla" into
// "6.1.0-rc1" and "vanilla"), then one line per row: the name and operation left-aligned in
// columns as wide as the longest, and for each run the value in FieldLength columns with
// Precision decimals followed by the change as " (  0.92%)", or " * -21.26%*" where it is
// significant. The "Significant" rows of PrintSignificance overflow the name column and end
// in FieldLength spaces, as mmtests prints them. It returns Rows' error, or w's.
func (c *Comparison) Write(w io.Writer) error {
	rows, err := c.Rows()
	if err != nil {
		return err
	}
	field := c.FieldLength
	if field == 0 {
		field = 12
		if c.version() == MMTests2026 {
			field = 18
		}
	}
	prec := c.Precision
	if prec == 0 {
		prec = 2
	}
	const compareLength = 7
	nameLen, opLen := 0, 0
	for _, st := range c.stats() {
		nameLen = max(nameLen, len(c.statName(st)))
	}
	for _, op := range c.Ops {
		opLen = max(opLen, len(op.Name))
	}
	var b bytes.Buffer
	for line := range 2 {
		fmt.Fprintf(&b, "%*s", nameLen+opLen+1, "")
		for _, run := range c.Runs {
			width := field
			if !c.NoChanges {
				width += compareLength + 4
			}
			fmt.Fprintf(&b, "%*s", width, headerPart(run, line))
		}
		b.WriteByte('\n')
	}
	for _, row := range rows {
		fmt.Fprintf(&b, "%-*s %-*s", nameLen, row.Name, opLen, row.Op)
		for r, v := range row.Values {
			b.WriteString(perlFloat(fmt.Sprintf("%*.*f", field, prec, v), v))
			if c.NoChanges {
				continue
			}
			ch := row.Changes[r]
			if row.tagged {
				ch = perlNum(ch) // "$compare$sig": the change becomes text, then a number again
			}
			open, close := "(", ")"
			if row.Significant[r] {
				open, close = "*", "*"
			}
			fmt.Fprintf(&b, " %s%s%%%s", open, perlFloat(fmt.Sprintf("%*.2f", compareLength, ch), ch), close)
		}
		if row.Name == "Significant" && row.Op != "" {
			// The significance table has one more column than it fills: printRow prints an
			// undefined value as blanks as wide as its format's output.
			b.WriteString(strings.Repeat(" ", field))
		}
		b.WriteByte('\n')
	}
	_, err = w.Write(b.Bytes())
	return err
}

// perlFloat returns s, Go's formatting of v, as Perl's sprintf formats a NaN or an infinity
// ("NaN", "Inf", "-Inf", right-aligned in the same width).
func perlFloat(s string, v float64) string {
	var p string
	switch {
	case math.IsNaN(v):
		p = "NaN"
	case math.IsInf(v, 1):
		p = "Inf"
	case math.IsInf(v, -1):
		p = "-Inf"
	default:
		return s
	}
	return fmt.Sprintf("%*s", len(s), p)
}

var rcName = regexp.MustCompile(`-rc[0-9]`)

// headerPart returns line 0 or 1 of a run name's header, as _generateHeaderTable cuts it, with
// its quirks: the part before the first '-' and the part after it, a "-rcN" staying in the
// first part; a name without '-' loses its last character in the first line (Perl's
// substr($name, 0, -1)) and shows whole in the second.
func headerPart(name string, line int) string {
	index := strings.IndexByte(name, '-')
	if index >= 0 {
		if end := min(len(name), 2*index+3); rcName.MatchString(name[index:end]) {
			index += 4
		}
	}
	if line == 0 {
		if index < 0 {
			return name[:max(0, len(name)-1)]
		}
		return name[:min(index, len(name))]
	}
	if index < 0 {
		return name
	}
	if index+1 >= len(name) {
		return ""
	}
	return name[index+1:]
}
