package stat

// This file implements mmtests' comparison tables: the rows compare-mmtests prints for a
// benchmark run under a baseline and under candidates, with its statistics, its percentage
// changes and its significance marks.
//
// Source: mmtests (github.com/gormanm/mmtests) at commit b5f04c23ee0ef2ea1468b9f2a377d7eec49a4f4b
// (October 2022, the version seed 004's tables come from): bin/lib/MMTests/Stat.pm (calc_*,
// pdiff, pndiff, stat_names), Summarise.pm (runStatFunc, extractSummary, getStatName),
// Compare.pm (_generateComparisonTable, _significanceTest, _generateRenderTable,
// _generateHeaderTable), PrintGeneric.pm (printRow), SummariseMultiops.pm and
// SummariseVariabletime.pm (the lists of rows).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
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
	Stddev                     // "Stddev": the sample standard deviation (calc_stddev, N-1)
	CoeffVar                   // "CoeffVar": Stddev × 100 / Amean, in percent
	Percentile                 // "Max-P", or "1st-qrtle", "2nd-qrtle", "3rd-qrtle" for P = 25, 50, 75
	BestMean                   // "BAmean-P" or "BHmean-P": the mean of the best P% of the values
	Value                      // the first value, named Comparison.ValueName (SummariseSingleops' _value)
)

// A Stat is one row kind with its argument (the P of Percentile and BestMean).
type Stat struct {
	Kind StatKind
	Arg  float64
}

// MultiopsStats returns the rows mmtests' SummariseMultiops prints: Min, mean, Stddev, CoeffVar,
// Max, and the means of the best 50%, 95% and 99%.
func MultiopsStats() []Stat {
	return []Stat{{Kind: Min}, {Kind: Mean}, {Kind: Stddev}, {Kind: CoeffVar}, {Kind: Max},
		{Kind: BestMean, Arg: 50}, {Kind: BestMean, Arg: 95}, {Kind: BestMean, Arg: 99}}
}

// VariabletimeStats returns the rows mmtests' SummariseVariabletime prints (seed 004's perfpipe
// table): Min, the quartiles, Max-1 … Max-99, Max, Amean, Stddev, CoeffVar and BAmean-99 …
// BAmean-25.
func VariabletimeStats() []Stat {
	s := []Stat{{Kind: Min}}
	for _, p := range []float64{25, 50, 75, 1, 5, 10, 90, 95, 99} {
		s = append(s, Stat{Kind: Percentile, Arg: p})
	}
	s = append(s, Stat{Kind: Max}, Stat{Kind: Mean}, Stat{Kind: Stddev}, Stat{Kind: CoeffVar})
	for _, p := range []float64{99, 95, 90, 75, 50, 25} {
		s = append(s, Stat{Kind: BestMean, Arg: p})
	}
	return s
}

// An Op is one operation of a comparison (a column of mmtests' results: "21" groups of
// hackbench, "Time" of perfpipe): its samples under each run, Samples[0] the baseline's.
type Op struct {
	Name    string
	Samples [][]float64
}

// A Comparison is a table as compare-mmtests prints it: for every Stat and then every Op, a
// row with the statistic under each run and its change against the baseline.
type Comparison struct {
	Runs   []string // the run names, the baseline first; printed as mmtests prints test names
	Better Better
	Stats  []Stat
	Ops    []Op
	// Precision is the number of decimals of the values (mmtests' _Precision; 0 means 2;
	// hackbench uses 4).
	Precision int
	// FieldLength is the width of a value (mmtests' _FieldLength; 0 means 12).
	FieldLength int
	// Level is the significance level of the marks (mmtests' _SignificanceLevel; 0 means 0.10).
	Level float64
	// ValueName names Value rows ("Lat" for schbench's table; "" means "Value").
	ValueName string
	// NoChanges leaves out the changes and marks (compare-mmtests without a comparison, as
	// seed 004's schbench table).
	NoChanges bool
}

// A Row is one computed row of a Comparison.
type Row struct {
	Name   string    // the statistic's name: "Amean", "Max-90", "BAmean-95"
	Op     string    // the operation
	Values []float64 // one per run; 0 where the statistic is invalid, as mmtests prints it
	// Changes are the percentage changes against the baseline (0 for the baseline itself and
	// wherever a value is invalid), signed so that positive is better for Min, Max,
	// percentiles and means, and positive is lower for Stddev and CoeffVar.
	Changes []float64
	// Significant marks the runs whose difference from the baseline mmtests calls significant;
	// only mean rows (Amean, Hmean, Gmean) carry marks.
	Significant []bool
}

var errNoRuns = errors.New("stat: a comparison needs at least one run")

// Rows computes c's rows, one per Stat and Op (all the Ops of the first Stat, then of the
// second, …), as mmtests computes them:
//
//   - each run's samples are sorted best first (ascending if LowerBetter, else descending);
//   - Percentile P is the value at index max(1, ⌊N·P/100⌋) - 1 of that order, so "Max-90" of a
//     time is the 90th percentile and "Max-1" is close to the minimum; BestMean P is the mean of
//     the first max(1, ⌊N·P/100⌋) values;
//   - Stddev is always the arithmetic one, and CoeffVar divides it by the arithmetic mean;
//   - a change is pndiff (100 - new×100/base) when lower is better, and for Stddev and
//     CoeffVar always; pdiff (new×100/base - 100) otherwise;
//   - significance is mmtests' _significanceTest on each Op: t = |m₀ - m₁| / sqrt(s₀²/N₀ +
//     s₁²/N₁) where m is the mean of the Mean row (Amean or Hmean) and s the arithmetic Stddev,
//     with N₀+N₁-2 degrees of freedom (not Welch's), and the difference is significant when the
//     two-sided p-value is below Level; when both deviations are 0, any difference is
//     significant.
//
// Rows returns an error if there are no runs, an Op does not have one sample set per run, a
// sample set is empty, or a Stat's argument is outside (0, 100].
func (c *Comparison) Rows() ([]Row, error) {
	if len(c.Runs) == 0 {
		return nil, errNoRuns
	}
	for _, op := range c.Ops {
		if len(op.Samples) != len(c.Runs) {
			return nil, fmt.Errorf("stat: operation %q has %d sample sets for %d runs", op.Name, len(op.Samples), len(c.Runs))
		}
		for i, s := range op.Samples {
			if len(s) == 0 {
				return nil, fmt.Errorf("stat: operation %q has no samples for run %q", op.Name, c.Runs[i])
			}
		}
	}
	for _, s := range c.Stats {
		if (s.Kind == Percentile || s.Kind == BestMean) && !(s.Arg > 0 && s.Arg <= 100) {
			return nil, fmt.Errorf("stat: %s row with argument %g: want a percentage in (0, 100]", c.statName(s), s.Arg)
		}
	}
	level := c.Level
	if level == 0 {
		level = 0.10
	}
	// The sorted samples and the significance of each Op.
	sorted := make([][][]float64, len(c.Ops))
	sig := make([][]bool, len(c.Ops))
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
		sig[o] = make([]bool, len(c.Runs))
		base := c.significanceData(sorted[o][0])
		for r := 1; r < len(c.Runs); r++ {
			sig[o][r] = mmSignificant(base, c.significanceData(sorted[o][r]), level)
		}
	}
	var rows []Row
	for _, st := range c.Stats {
		for o, op := range c.Ops {
			row := Row{Name: c.statName(st), Op: op.Name}
			vals := make([]float64, len(c.Runs))
			valid := make([]bool, len(c.Runs))
			for r := range c.Runs {
				vals[r], valid[r] = c.compute(st, sorted[o][r])
			}
			cmp := pndiff
			if c.Better == HigherBetter && st.Kind != Stddev && st.Kind != CoeffVar {
				cmp = pdiff
			}
			for r := range c.Runs {
				// _generateComparisonTable: an invalid candidate shows 0 and no change; the
				// baseline's validity is tested against -1 only.
				if valid[r] && vals[0] != -1 {
					row.Values = append(row.Values, vals[r])
					row.Changes = append(row.Changes, cmp(vals[r], vals[0]))
				} else {
					row.Values = append(row.Values, 0)
					row.Changes = append(row.Changes, 0)
				}
			}
			row.Significant = make([]bool, len(c.Runs))
			if isMeanRow(row.Name) {
				copy(row.Significant, sig[o])
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// isMeanRow reports whether a row named name carries significance marks: _generateRenderTable
// marks rows whose name matches /^.mean/.
func isMeanRow(name string) bool { return len(name) >= 5 && name[1:5] == "mean" }

// statName is getStatName: mmtests' name of a row.
func (c *Comparison) statName(s Stat) string {
	mean := "Amean"
	if c.Better == HigherBetter {
		mean = "Hmean"
	}
	switch s.Kind {
	case Min:
		return "Min"
	case Max:
		return "Max"
	case Mean:
		return mean
	case Amean:
		return "Amean"
	case Hmean:
		return "Hmean"
	case Gmean:
		return "Gmean"
	case Stddev:
		return "Stddev"
	case CoeffVar:
		return "CoeffVar"
	case Percentile:
		switch s.Arg {
		case 25:
			return "1st-qrtle"
		case 50:
			return "2nd-qrtle"
		case 75:
			return "3rd-qrtle"
		}
		return fmt.Sprintf("Max-%d", int(s.Arg)) // Perl's sprintf("Max-%d") truncates
	case BestMean:
		return fmt.Sprintf("B%s-%d", mean, int(s.Arg))
	case Value:
		if c.ValueName == "" {
			return "Value"
		}
		return c.ValueName
	}
	return fmt.Sprintf("StatKind(%d)", int(s.Kind))
}

// compute returns statistic s of the best-first sorted values xs, and whether it is valid (not
// mmtests' "NaN" or -1).
func (c *Comparison) compute(s Stat, xs []float64) (float64, bool) {
	count := func() int { return max(1, int(float64(len(xs))*s.Arg/100)) }
	valid := func(v float64) (float64, bool) { return v, !math.IsNaN(v) && v != -1 }
	switch s.Kind {
	case Min:
		return slices.Min(xs), true
	case Max:
		return slices.Max(xs), true
	case Mean:
		return valid(c.mean(xs))
	case Amean:
		return mmAmean(xs), true
	case Hmean:
		return valid(mmHmean(xs))
	case Gmean:
		return valid(mmGmean(xs))
	case Stddev:
		return valid(mmStddev(xs))
	case CoeffVar:
		return mmCoeffVar(xs), true
	case Percentile:
		return xs[count()-1], true
	case BestMean:
		return valid(c.mean(xs[:count()]))
	case Value:
		return xs[0], true
	}
	panic(fmt.Sprintf("stat: Comparison: unknown StatKind %d", int(s.Kind)))
}

// mean is mmtests' _mean: the arithmetic mean of times, the harmonic mean of throughputs.
func (c *Comparison) mean(xs []float64) float64 {
	if c.Better == HigherBetter {
		return mmHmean(xs)
	}
	return mmAmean(xs)
}

// mmAmean is calc_amean: the sum in the order given, over N.
func mmAmean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// mmHmean is calc_hmean: N/Σ(1/x), or -1 (mmtests' marker of an invalid value) if some x ≤ 0.
func mmHmean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		if !(x > 0) {
			return -1
		}
		sum += 1 / x
	}
	return float64(len(xs)) / sum
}

// mmGmean is calc_geomean: the N-th root of the product.
func mmGmean(xs []float64) float64 {
	p := 1.0
	for _, x := range xs {
		p *= x
	}
	return math.Pow(p, 1/float64(len(xs)))
}

// mmStddev is calc_stddev: sqrt(Σ(x - amean)² / (N-1)), NaN for N ≤ 1.
func mmStddev(xs []float64) float64 {
	if len(xs) <= 1 {
		return math.NaN()
	}
	m := mmAmean(xs)
	var d float64
	for _, x := range xs {
		d += float64((x - m) * (x - m)) // no fused multiply-add: Perl rounds the square
	}
	return math.Sqrt(d / float64(len(xs)-1))
}

// mmCoeffVar is calc_coeffvar: Stddev×100/Amean, a NaN Stddev counting as 0, and 0 when the
// mean is 0.
func mmCoeffVar(xs []float64) float64 {
	s, m := mmStddev(xs), mmAmean(xs)
	if math.IsNaN(s) {
		s = 0
	}
	if m == 0 {
		return 0
	}
	return s * 100 / m
}

// pdiff is Stat.pm's pdiff: the percentage by which a exceeds b.
func pdiff(a, b float64) float64 {
	if a == b || a == 0 {
		return 0
	}
	if b == 0 || math.IsNaN(b) {
		return 100
	}
	return a*100/b - 100
}

// pndiff is Stat.pm's pndiff: the percentage by which a is below b.
func pndiff(a, b float64) float64 {
	if a == b {
		return 0
	}
	if a == 0 {
		return 100
	}
	if b == 0 {
		return -99
	}
	return 100 - a*100/b
}

// sigData is what extractSummary keeps for the significance test of one run of one Op.
type sigData struct {
	mean, stddev float64
	n            int
}

func (c *Comparison) significanceData(xs []float64) sigData {
	s := mmStddev(xs)
	if math.IsNaN(s) {
		s = 0
	}
	return sigData{mean: c.mean(xs), stddev: s, n: len(xs)}
}

// mmSignificant is Compare.pm's _significanceTest.
func mmSignificant(base, r sigData, level float64) bool {
	se := math.Sqrt(base.stddev*base.stddev/float64(base.n) + r.stddev*r.stddev/float64(r.n))
	delta := base.mean - r.mean
	if se == 0 {
		return delta != 0
	}
	t := math.Abs(delta / se)
	df := float64(base.n + r.n - 2)
	p := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(t)
	return p < level
}

// Write writes c as compare-mmtests prints it (PrintGeneric): two header lines with the run
// names split at their first '-' (as _generateHeaderTable splits "6.1.0-rc1-vanilla" into
// "6.1.0-rc1" and "vanilla"), then one line per row: the name and operation left-aligned in
// columns as wide as the longest, and for each run the value in FieldLength columns with
// Precision decimals followed by the change as " (  0.92%)", or " * -21.26%*" where it is
// significant. It returns Rows' error, or w's.
func (c *Comparison) Write(w io.Writer) error {
	rows, err := c.Rows()
	if err != nil {
		return err
	}
	field := c.FieldLength
	if field == 0 {
		field = 12
	}
	prec := c.Precision
	if prec == 0 {
		prec = 2
	}
	const compareLength = 7
	nameLen, opLen := 0, 0
	for _, st := range c.Stats {
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
			open, close := "(", ")"
			if row.Significant[r] {
				open, close = "*", "*"
			}
			fmt.Fprintf(&b, " %s%s%%%s", open, perlFloat(fmt.Sprintf("%*.2f", compareLength, row.Changes[r]), row.Changes[r]), close)
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
