package sim

// This file implements the text form of a Summary — runs of one workload side by side as an
// aligned table with a unit in every column's heading and a legend — and WriteTable and
// WriteTableOf, which write it for one run per policy.

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/schedkit/schedkit/internal/numfmt"
	"github.com/schedkit/schedkit/sched"
)

// A Total is a figure of a whole run that a table shows in its totals, one column per Total
// under a row per policy.
type Total uint8

const (
	// Makespan is Result.Makespan.
	Makespan Total = iota
	// IdleShare is the CPUs' idle time as a fraction of their time in the measured interval.
	IdleShare
	// Switches is the context switches of every CPU.
	Switches
	// Migrations is the migrations of every thread.
	Migrations
	// End is Result.End: when the run stopped.
	End
	// Exited is Result.Exited.
	Exited
	// Events is Result.Events.
	Events
	// Violations is the violations of every checker (Result.Counts).
	Violations
	numTotals
)

var totalNames = [numTotals]string{"makespan", "idle", "switches", "migrations", "end", "exited", "events", "violations"}

// String returns the total's name: "makespan", "idle", "switches", "migrations", "end",
// "exited", "events" or "violations".
func (t Total) String() string { return sched.EnumName(totalNames[:], t, "total") }

// AllTotals returns every Total in the order schedbench's tables show them: end, makespan,
// exited, switches, migrations, idle, events, violations.
func AllTotals() []Total {
	return []Total{End, Makespan, Exited, Switches, Migrations, IdleShare, Events, Violations}
}

// heading returns the total's column heading, with its unit.
func (t Total) heading() string {
	switch t {
	case End, Makespan:
		return t.String() + " (time)"
	case IdleShare:
		return "idle%"
	}
	return t.String()
}

// Of returns the total t of r (nanoseconds for the times, a fraction for the idle share, a count
// for the rest), NaN if r has none (an idle share of no CPU time).
func (t Total) Of(r *Result) float64 {
	var n int64
	switch t {
	case Makespan:
		return float64(r.Makespan)
	case End:
		return float64(r.End)
	case Exited:
		return float64(r.Exited)
	case Events:
		return float64(r.Events)
	case IdleShare:
		var idle, all int64
		for i := range r.CPUs {
			idle += r.CPUs[i].Idle
			all += r.CPUs[i].Idle + r.CPUs[i].Busy
		}
		if all == 0 {
			return math.NaN()
		}
		return float64(idle) / float64(all)
	case Switches:
		for i := range r.CPUs {
			n += r.CPUs[i].Switches
		}
	case Migrations:
		for i := range r.Threads {
			n += r.Threads[i].Migrations
		}
	case Violations:
		for _, c := range r.Counts {
			n += int64(c)
		}
	default:
		panic(fmt.Sprintf("sim: unknown total %d", uint8(t)))
	}
	return float64(n)
}

// format writes the median v of total t: a duration, a percentage or a count ("-" for NaN).
func (t Total) format(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case t == End || t == Makespan:
		return numfmt.Duration(int64(math.Round(v)))
	case t == IdleShare:
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64) // a count, or the mean of two: 57.5
}

// Table says what a Summary shows.
type Table struct {
	// Series is the latency series of the percentile columns.
	Series Series
	// Percentiles are the percentiles shown for each thread; nil means p50, p99, p99.9 and the
	// maximum. An empty non-nil slice shows none.
	Percentiles []float64
	// Totals are the columns of the totals below the threads, in this order; none shows no
	// totals.
	Totals []Total
}

// WriteTable writes the per-thread CPU share and wake-up latency percentiles (p50, p99, p99.9,
// max) of one or more runs of the same workload side by side, as WriteTableOf does with the
// zero Table, and panics as it does.
func WriteTable(w io.Writer, results ...*Result) error {
	return WriteTableOf(w, Table{}, results...)
}

// WriteTableOf writes the text form of the Summary of results under t (see [Summary.Write]),
// one column per result headed by its policy's name. It panics if a percentile is outside
// 0..100 or a result is nil.
func WriteTableOf(w io.Writer, t Table, results ...*Result) error {
	cols := make([]Column, len(results))
	for i, r := range results {
		if r == nil {
			panic(fmt.Sprintf("sim: WriteTable of a nil result (argument %d)", i))
		}
		cols[i] = Column{Name: r.Policy, Reps: []Rep{{Result: r}}}
	}
	return Summarize(t, cols...).Write(w, Text)
}

// seriesHead is the prefix of each series' percentile headings.
var seriesHead = [numSeries]string{"wake", "runq", "req"}

// seriesLegend explains each series' columns: %s is their headings ("wake p50 … max").
var seriesLegend = [numSeries]string{
	`cpu%%: the thread's CPU time over its life in the run. %s: its wake-up latency,
from being woken to running, as percentiles of the run. With repetitions, each figure is their
median. "-": no figure (a thread that never slept has no wake-up latency); 0ns: measured, and 0.
`,
	`cpu%%: the thread's CPU time over its life in the run. %s: its run-queue wait,
from becoming runnable to running, per dispatch, as percentiles of the run. With repetitions,
each figure is their median. "-": no figure (a thread never dispatched after a wait has none);
0ns: measured, and 0.
`,
	`cpu%%: the thread's CPU time over its life in the run. %s: its request latency
(schbench's), from each wake-up to the end of the work it then did, as percentiles of the run.
With repetitions, each figure is their median. "-": no figure (a thread that never slept has no
request latency); 0ns: measured, and 0.
`,
}

// percentileName heads a percentile column: "p50", "p99.9", and "max" for 100.
func percentileName(p float64) string {
	if p == 100 {
		return "max"
	}
	return "p" + strconv.FormatFloat(p, 'f', -1, 64)
}

// writeText writes the text form of s: the threads' table, its legend, and the totals' table
// with its legend.
func (s *Summary) writeText(w io.Writer) error {
	if err := s.writeThreads(w); err != nil {
		return err
	}
	if len(s.Table.Totals) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return s.writeTotals(w)
}

// writeThreads writes the threads' table: two heading lines (each column's name over its CPU
// share, then every figure's unit), a row per thread, and the legend.
func (s *Summary) writeThreads(w io.Writer) error {
	t := s.Table
	width := len("thread")
	for _, r := range s.Threads {
		width = max(width, len(r.Name))
	}
	var b bytes.Buffer
	// Numbers align right, two spaces apart; names are padded to the widest so that they align
	// left.
	tw := tabwriter.NewWriter(&b, 0, 0, 0, ' ', tabwriter.AlignRight)
	names := fmt.Sprintf("%-*s\t", width, "")
	head := fmt.Sprintf("%-*s\t", width, "thread")
	for _, c := range s.Columns {
		names += "  " + c.Name + "\t" + strings.Repeat("\t", len(t.Percentiles))
		head += "  cpu%\t"
		for _, p := range t.Percentiles {
			head += "  " + seriesHead[t.Series] + " " + percentileName(p) + "\t"
		}
	}
	fmt.Fprintln(tw, names)
	fmt.Fprintln(tw, head)
	for _, r := range s.Threads {
		row := fmt.Sprintf("%-*s\t", width, r.Name)
		for _, c := range r.Cells {
			if math.IsNaN(c.Share) {
				row += "  -\t"
			} else {
				row += fmt.Sprintf("  %.1f%%\t", 100*c.Share)
			}
			for _, v := range c.Latency {
				if math.IsNaN(v) {
					row += "  -\t"
				} else {
					row += "  " + numfmt.Duration(int64(math.Round(v))) + "\t"
				}
			}
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The first heading line's empty cells would end it in blanks.
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if _, err := io.WriteString(w, strings.TrimRight(l, " \n")+strings.Repeat("\n", strings.Count(l, "\n"))); err != nil {
			return err
		}
	}
	cols := "none"
	if ps := t.Percentiles; len(ps) > 0 {
		cols = seriesHead[t.Series] + " " + percentileName(ps[0])
		if len(ps) > 1 {
			cols += " … " + percentileName(ps[len(ps)-1])
		}
	}
	_, err := fmt.Fprintf(w, seriesLegend[t.Series], cols)
	return err
}

// writeTotals writes the totals' table, a row per column, and its legend.
func (s *Summary) writeTotals(w io.Writer) error {
	width := len("policy")
	for _, c := range s.Columns {
		width = max(width, len(c.Name))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 0, ' ', tabwriter.AlignRight)
	head := fmt.Sprintf("%-*s\t  runs\t", width, "policy")
	for _, k := range s.Table.Totals {
		head += "  " + k.heading() + "\t"
	}
	fmt.Fprintln(tw, head)
	for i, c := range s.Columns {
		row := fmt.Sprintf("%-*s\t  %d\t", width, c.Name, len(c.Reps))
		for j, k := range s.Table.Totals {
			row += "  " + k.format(s.Totals[i][j]) + "\t"
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, totalsLegend(s.Table.Totals))
	return err
}

// totalLegend explains each total; the counts share one entry.
var totalLegend = [numTotals]string{
	Makespan:   "makespan: when the last thread exited (the end if one still runs)",
	IdleShare:  "idle%: the CPUs' idle time over all their time",
	End:        "end: when the run stopped",
	Violations: "violations: what the work-conservation and starvation checkers found",
}

// totalsLegend returns the legend of the totals ts, wrapped at 100 columns: each one's meaning,
// in their order, the counts named together where the first of them stands.
func totalsLegend(ts []Total) string {
	var parts, counts []string
	countAt := -1
	for _, k := range ts {
		if totalLegend[k] == "" {
			if countAt < 0 {
				countAt = len(parts)
				parts = append(parts, "")
			}
			counts = append(counts, k.String())
			continue
		}
		parts = append(parts, totalLegend[k])
	}
	if countAt >= 0 {
		parts[countAt] = strings.Join(counts, ", ") + ": counts"
	}
	return wrap(strings.Join(parts, "; ")+".", 100)
}

// wrap breaks text into lines of at most width bytes at spaces (a longer word stands alone),
// each ended by a newline.
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		switch {
		case i == 0:
		case line+1+len(word) > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	b.WriteByte('\n')
	return b.String()
}
