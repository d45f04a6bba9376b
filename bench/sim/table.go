package sim

// This file implements WriteTable and WriteTableOf: several runs of one workload side by side as
// an aligned text table.

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// A Total is a figure of a whole run that a table can show below its threads.
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
	numTotals
)

var totalNames = [numTotals]string{"makespan", "idle", "switches", "migrations"}

// String returns the total's row name: "makespan", "idle", "switches" or "migrations".
func (t Total) String() string {
	if t < numTotals {
		return totalNames[t]
	}
	return fmt.Sprintf("total(%d)", uint8(t))
}

// Table says what WriteTableOf shows.
type Table struct {
	// Series is the latency series of the percentile columns.
	Series Series
	// Percentiles are the percentiles shown for each thread; nil means p50, p99, p99.9 and the
	// maximum. An empty non-nil slice shows none.
	Percentiles []float64
	// Totals are the rows shown below the threads, one per Total, in this order.
	Totals []Total
}

// WriteTable writes the per-thread CPU share and wake-to-run latency percentiles (p50, p99,
// p99.9, max) of one or more runs of the same workload side by side, one row per thread name and
// one group of columns per result (headed by the policy's name, over the share), as an aligned
// text table. Latencies are rounded to three significant digits; "-" marks a thread never woken
// or absent from a run. It is WriteTableOf with the zero Table, and panics as it does.
func WriteTable(w io.Writer, results ...*Result) error {
	return WriteTableOf(w, Table{}, results...)
}

// WriteTableOf writes the table t describes: for each thread name a row with, for each result,
// the thread's CPU share (under the policy's name) and the percentiles of t.Series, then a row per
// total of t.Totals whose value sits under each policy's name. It panics if a percentile is
// outside 0..100 or a result is nil.
func WriteTableOf(w io.Writer, t Table, results ...*Result) error {
	for i, r := range results {
		if r == nil {
			panic(fmt.Sprintf("sim: WriteTable of a nil result (argument %d)", i))
		}
	}
	ps := t.Percentiles
	if ps == nil {
		ps = []float64{50, 99, 99.9, 100}
	}
	var names []string
	seen := map[string]bool{}
	width := len("thread")
	for _, r := range results {
		for i := range r.Threads {
			if n := r.Threads[i].Name; !seen[n] {
				seen[n] = true
				names = append(names, n)
				width = max(width, len(n))
			}
		}
	}
	for _, tot := range t.Totals {
		width = max(width, len(tot.String()))
	}
	// Numbers align right, two spaces apart; names are padded to the widest so that they align
	// left.
	tw := tabwriter.NewWriter(w, 0, 0, 0, ' ', tabwriter.AlignRight)
	head := fmt.Sprintf("%-*s\t", width, "thread")
	for _, r := range results {
		head += "  " + r.Policy + "\t"
		for _, p := range ps {
			head += "  " + percentileName(p) + "\t"
		}
	}
	fmt.Fprintln(tw, head)
	for _, n := range names {
		row := fmt.Sprintf("%-*s\t", width, n)
		for _, r := range results {
			th, ok := r.Thread(n)
			if !ok {
				row += strings.Repeat("  -\t", 1+len(ps))
				continue
			}
			row += fmt.Sprintf("  %.1f%%\t", 100*th.Share())
			h := th.Histogram(t.Series)
			for _, p := range ps {
				if l, ok := h.Percentile(p); ok {
					row += "  " + shortDuration(l) + "\t"
				} else {
					row += "  -\t"
				}
			}
		}
		fmt.Fprintln(tw, row)
	}
	for _, tot := range t.Totals {
		row := fmt.Sprintf("%-*s\t", width, tot)
		for i, r := range results {
			row += "  " + r.total(tot) + "\t"
			if i < len(results)-1 {
				row += strings.Repeat("\t", len(ps))
			}
		}
		fmt.Fprintln(tw, row)
	}
	return tw.Flush()
}

// total formats one total of r.
func (r *Result) total(t Total) string {
	switch t {
	case Makespan:
		return shortDuration(r.Makespan)
	case IdleShare:
		var idle, all int64
		for i := range r.CPUs {
			idle += r.CPUs[i].Idle
			all += r.CPUs[i].Idle + r.CPUs[i].Busy
		}
		if all == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(idle)/float64(all))
	case Switches:
		var n int64
		for i := range r.CPUs {
			n += r.CPUs[i].Switches
		}
		return fmt.Sprint(n)
	case Migrations:
		var n int64
		for i := range r.Threads {
			n += r.Threads[i].Migrations
		}
		return fmt.Sprint(n)
	}
	panic(fmt.Sprintf("sim: unknown total %d", uint8(t)))
}

// percentileName heads a percentile column: "p50", "p99.9", and "max" for 100.
func percentileName(p float64) string {
	percentMilli(p)
	if p == 100 {
		return "max"
	}
	return "p" + strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", p), "0"), ".")
}

// shortDuration formats ns nanoseconds with three significant digits in the largest unit that
// keeps the number at least 1: "950ns", "12.3us", "4.56ms", "1.20s".
func shortDuration(ns int64) string {
	d := float64(ns)
	switch {
	case ns < int64(time.Microsecond):
		return fmt.Sprintf("%dns", ns)
	case ns < int64(time.Millisecond):
		return sig3(d/1e3) + "us"
	case ns < int64(time.Second):
		return sig3(d/1e6) + "ms"
	}
	return sig3(d/1e9) + "s"
}
