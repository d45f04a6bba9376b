package stat

// This file implements mmtests' summary kinds (the Summarise*.pm modules): which rows each
// prints in each version, which row carries the significance marks, and the rows' names.

import (
	"fmt"
	"strconv"
)

// The mmtests versions a Comparison prints as.
const (
	// MMTests2022 is mmtests at commit b5f04c23ee0ef2ea1468b9f2a377d7eec49a4f4b (2022-10-17),
	// the version seed 004's tables came from: rows named "BAmean-95", "Max-90", "2nd-qrtle";
	// the arithmetic Stddev whatever the preferred direction; significance by a t test at 0.10;
	// values 12 wide.
	MMTests2022 = 2022
	// MMTests2026 is mmtests at commit 638401e07e70d67fa5a1e6295e1315ae0af831b2 (2026-06-25):
	// the harmonic spread HStddev and HCoeffVar for higher-is-better metrics and significance
	// where the two 95% confidence intervals do not overlap (both since 2024-12); values 18
	// wide (benchmarks described by shellpack configurations, since 2026-01); Multiops with
	// BAmean.95 only (2026-03); rows named "BAmean.95", "Pctile.90", "Pctile.50" (2026-04).
	MMTests2026 = 2026
	// MMTestsLatest is the version a Comparison with a zero Version prints as.
	MMTestsLatest = MMTests2026
)

// A SummaryKind is one of mmtests' summary kinds (its SummariseMultiops, SummariseSingleops, …
// modules, or a shellpack.yaml's "summarise:" line): the rows a benchmark's table has and, in
// mmtests 2026, the row whose confidence intervals decide the significance marks.
type SummaryKind int

const (
	// Multiops is SummariseMultiops, mmtests' most common kind (hackbench, tbench): Min, the
	// mean, Stddev, CoeffVar, Max and means of the best runs. mmtests 2022 prints BAmean-50,
	// -95 and -99; mmtests 2026 only BAmean.95. The mean row carries the marks.
	Multiops SummaryKind = iota
	// Normalisedops is the 2026 kind for metrics assumed normal (tbench since 2026-03): Min,
	// the mean, BAmean.95, Pctile.95, Stddev, CoeffVar, Max. The mean row carries the marks.
	// mmtests 2022 has no such kind.
	Normalisedops
	// NormalisedLeftSkewops is the 2026 kind for normal metrics with a long tail (dbench):
	// Min, the mean, then BAmean.N and Pctile.N for 50, 75, 90 and 99, Stddev, CoeffVar, Max.
	// mmtests 2022 has no such kind.
	NormalisedLeftSkewops
	// Singleops is SummariseSingleops: one value per operation, the best one, in a row named
	// Comparison.ValueName; no row carries marks.
	Singleops
	// Variabletime is SummariseVariabletime (seed 004's perfpipe table): Min, quartiles,
	// percentiles 1 to 99, Max, the mean, Stddev, CoeffVar and BAmean-99 to BAmean-25. In
	// mmtests 2022 the mean row carries the marks; in mmtests 2026 the Pctile.95 row does,
	// with binomial confidence intervals of that percentile.
	Variabletime
)

var summaryNames = [...]string{"Multiops", "Normalisedops", "NormalisedLeftSkewops", "Singleops", "Variabletime"}

// String returns the summary kind's name as mmtests spells it in a shellpack.yaml.
func (s SummaryKind) String() string {
	if s >= 0 && int(s) < len(summaryNames) {
		return summaryNames[s]
	}
	return "SummaryKind(" + strconv.Itoa(int(s)) + ")"
}

// Stats returns the rows mmtests version prints for summary kind s, in its order, or nil if
// that version has no such kind (mmtests 2022 has no Normalisedops or NormalisedLeftSkewops).
func (s SummaryKind) Stats(version int) []Stat {
	if version == 0 {
		version = MMTestsLatest
	}
	mean := func(p float64) Stat { return Stat{Kind: BestMean, Arg: p} }
	pct := func(p float64) Stat { return Stat{Kind: Percentile, Arg: p} }
	min, max, amean := Stat{Kind: Min}, Stat{Kind: Max}, Stat{Kind: Mean}
	sd, cv := Stat{Kind: Stddev}, Stat{Kind: CoeffVar}
	switch {
	case s == Multiops && version == MMTests2022:
		return []Stat{min, amean, sd, cv, max, mean(50), mean(95), mean(99)}
	case s == Multiops && version == MMTests2026:
		return []Stat{min, amean, sd, cv, max, mean(95)}
	case s == Normalisedops && version == MMTests2026:
		return []Stat{min, amean, mean(95), pct(95), sd, cv, max}
	case s == NormalisedLeftSkewops && version == MMTests2026:
		return []Stat{min, amean, mean(50), pct(50), mean(75), pct(75), mean(90), pct(90),
			mean(99), pct(99), sd, cv, max}
	case s == Singleops && (version == MMTests2022 || version == MMTests2026):
		return []Stat{{Kind: Value}}
	case s == Variabletime && (version == MMTests2022 || version == MMTests2026):
		r := []Stat{min}
		for _, p := range []float64{25, 50, 75, 1, 5, 10, 90, 95, 99} {
			r = append(r, pct(p))
		}
		r = append(r, max, amean, sd, cv)
		for _, p := range []float64{99, 95, 90, 75, 50, 25} {
			r = append(r, mean(p))
		}
		return r
	}
	return nil
}

// marked returns the Stat whose row carries mmtests 2026's significance marks for summary kind
// s (the first of its _RatioSummaryStat when that has confidence bounds), and false for
// Singleops, which has none.
func (s SummaryKind) marked() (Stat, bool) {
	switch s {
	case Singleops:
		return Stat{}, false
	case Variabletime:
		return Stat{Kind: Percentile, Arg: 95}, true
	}
	return Stat{Kind: Mean}, true
}

// statName is Summarise.pm's getStatName with Stat.pm's stat_names of the Comparison's
// version: mmtests' name of a row.
func (c *Comparison) statName(s Stat) string {
	mean, h := "Amean", "A"
	if c.Better == HigherBetter {
		mean, h = "Hmean", "H"
	}
	v2026 := c.version() == MMTests2026
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
		if v2026 && h == "H" {
			return "HStddev"
		}
		return "Stddev"
	case CoeffVar:
		if v2026 && h == "H" {
			return "HCoeffVar"
		}
		return "CoeffVar"
	case Percentile:
		if v2026 {
			// "percentile-99.9" … "percentile-99.99999" have names of their own; any other
			// argument goes through sprintf("Pctile.%d"), which truncates.
			switch s.Arg {
			case 99.9, 99.99, 99.999, 99.9999, 99.99999:
				return "Pctile." + strconv.FormatFloat(s.Arg, 'f', -1, 64)
			}
			return fmt.Sprintf("Pctile.%d", int(s.Arg))
		}
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
		if v2026 {
			return fmt.Sprintf("B%s.%d", mean, int(s.Arg))
		}
		return fmt.Sprintf("B%s-%d", mean, int(s.Arg))
	case Value:
		if c.ValueName == "" {
			return "Ops"
		}
		return c.ValueName
	}
	return fmt.Sprintf("StatKind(%d)", int(s.Kind))
}
