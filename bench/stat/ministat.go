package stat

// This file implements Ministat, which writes the report FreeBSD's ministat prints: the legend,
// the ASCII distribution plot, the N/Min/Max/Median/Avg/Stddev table and, for every data set
// after the first, the "Difference at C% confidence" lines.

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// MaxSamples is the number of data sets ministat compares at once, one per plot symbol (MAX_DS
// - 1 in ministat.c).
const MaxSamples = 7

// symbols are ministat's plot symbols: index i marks data set i (1 is the baseline). A position
// where several data sets have a value shows the bitwise OR of their indexes, so '*' is both the
// third data set and the first two together, as in ministat.
const symbols = " x+*%#@O"

// MinPoints is the number of values ministat insists on in each data set ("Dataset %s must
// contain at least 3 data points").
const MinPoints = 3

// A Sample is one data set of a report: its name, as the legend prints it, and its values.
type Sample struct {
	Name string
	Data *Dataset
}

// Options are ministat's command-line options, as fields. The zero Options is not ministat's
// default (it has no confidence level and a plot 0 columns wide); start from [DefaultOptions].
type Options struct {
	// Confidence is the confidence level in percent, one of [Levels] (-c; default 95).
	Confidence float64
	// Width is the width of the plot in columns, not counting its frame (-w; default 74).
	// Width 0 draws an empty frame, as ministat does when it survives its writes into
	// zero-length buffers; width 1 makes ministat's scale infinite (ministat crashes), so
	// Ministat refuses it.
	Width int
	// Separate puts each data set's mean/median/stddev bar on a line of its own (-s).
	Separate bool
	// NoPlot leaves out the plot but keeps the comparisons (-A in Debian's ministat).
	NoPlot bool
	// SummaryOnly prints only the legend and the table: no plot, no comparisons (-n).
	SummaryOnly bool
	// Quiet leaves out the legend of data set names and the table's header line (-q of
	// FreeBSD's later ministat, which Debian's 20150715 lacks: with it, the report is Debian's
	// without those lines).
	Quiet bool
	// RatioHalfWidth prints the relative half-width as FreeBSD's later ministat does (the one
	// seeds 000 and 003 quote), accounting for the uncertainty of both means
	// ([Difference].RelHalfWidthRatio), instead of Debian's ± × 100 / baseline mean. Debian's
	// ministat has no such option.
	RatioHalfWidth bool
}

// DefaultOptions returns ministat's defaults: 95% confidence and a 74-column plot, the width
// ministat uses when its output is not a terminal.
func DefaultOptions() Options {
	return Options{Confidence: 95, Width: 74}
}

// Ministat writes to w the report ministat prints for samples: each compared against the first
// with [Student] at o.Confidence. The bytes are ministat's (FreeBSD's usr.bin/ministat, the
// version Debian packages as ministat 20150715) for the same values and options; the tests
// compare them with Debian's binary. The report is built in memory and written with one Write,
// so an error leaves w untouched.
//
// Ministat returns an error if there are no samples or more than [MaxSamples], if a sample has
// fewer than [MinPoints] values (ministat's own message), if o.Confidence is not one of
// [Levels], or if o.Width is negative or 1.
func Ministat(w io.Writer, samples []Sample, o Options) error {
	if len(samples) == 0 || len(samples) > MaxSamples {
		return fmt.Errorf("stat: ministat compares 1 to %d data sets, have %d", MaxSamples, len(samples))
	}
	if _, err := levelIndex(o.Confidence); err != nil {
		return err
	}
	if o.Width < 0 || o.Width == 1 {
		return fmt.Errorf("stat: ministat plot width %d: want 0 or at least 2", o.Width)
	}
	sums := make([]Summary, len(samples))
	for i, s := range samples {
		if s.Data == nil || s.Data.Len() < MinPoints {
			return fmt.Errorf("stat: Dataset %s must contain at least %d data points", s.Name, MinPoints)
		}
		sums[i] = s.Data.Summary()
	}
	if !o.SummaryOnly && !o.NoPlot {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range sums {
			lo, hi = min(lo, s.Min), max(hi, s.Max)
			if !math.IsNaN(s.Stddev) {
				lo, hi = min(lo, s.Mean-s.Stddev), max(hi, s.Mean+s.Stddev)
			}
		}
		if math.IsInf(hi-lo, 0) {
			return fmt.Errorf("stat: the values and their mean ± stddev span %g..%g, more than a float64 holds (1.8e308): no plot can scale them (-n or -A leave the plot out)", lo, hi)
		}
	}

	var b bytes.Buffer
	if !o.Quiet {
		for i, s := range samples {
			fmt.Fprintf(&b, "%c %s\n", symbols[i+1], s.Name)
		}
	}
	if !o.SummaryOnly && !o.NoPlot {
		writePlot(&b, samples, sums, o.Width, o.Separate)
	}
	if !o.Quiet {
		b.WriteString("    N           Min           Max        Median           Avg        Stddev\n")
	}
	writeVitals(&b, sums[0], 1)
	for i := 1; i < len(sums); i++ {
		writeVitals(&b, sums[i], i+1)
		if !o.SummaryOnly {
			d, err := Student(sums[0], sums[i], o.Confidence)
			if err != nil {
				return err // not reached: N ≥ 3 and the level was checked
			}
			if o.RatioHalfWidth {
				d.RelHalfWidth = d.RelHalfWidthRatio
			}
			b.WriteString(d.String())
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeVitals writes one row of the table (Vitals in ministat.c): printf("%c %3d %13.8g …").
func writeVitals(b *bytes.Buffer, s Summary, flag int) {
	fmt.Fprintf(b, "%c %3d", symbols[flag], s.N)
	for _, x := range []float64{s.Min, s.Max, s.Median, s.Mean, s.Stddev} {
		b.WriteByte(' ')
		b.WriteString(padLeft(formatG(x, 8), 13))
	}
	b.WriteByte('\n')
}

// String returns d as ministat prints a comparison: "Difference at 95.0% confidence" and three
// indented lines (the difference ± half-width, the same relative to the baseline's mean, and the
// test), or "No difference proven at 95.0% confidence". A Welch comparison names its test and
// degrees of freedom where Student's names the pooled s.
func (d Difference) String() string {
	if !d.Significant {
		return fmt.Sprintf("No difference proven at %.1f%% confidence\n", d.Confidence)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Difference at %.1f%% confidence\n", d.Confidence)
	fmt.Fprintf(&b, "\t%s +/- %s\n", formatG(d.Delta, 6), formatG(d.HalfWidth, 6))
	fmt.Fprintf(&b, "\t%s%% +/- %s%%\n", formatG(d.Rel, 6), formatG(d.RelHalfWidth, 6))
	switch d.Test {
	case StudentT:
		fmt.Fprintf(&b, "\t(Student's t, pooled s = %s)\n", formatG(d.PooledS, 6))
	default:
		fmt.Fprintf(&b, "\t(%v, df = %s)\n", d.Test, formatG(d.DF, 6))
	}
	return b.String()
}
