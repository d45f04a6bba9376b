package main

// This file implements the side-by-side text table of run.

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim"
)

// tablePercentiles are the latency percentiles the table shows; 100 is the maximum.
var tablePercentiles = []float64{50, 99, 99.9, 100}

// threadNames returns the names of the threads of every result, in order of first appearance.
func threadNames(results []*sim.Result) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range results {
		for i := range r.Threads {
			if n := r.Threads[i].Name; !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// byPolicy groups the finished results of cells by policy, in repetition order.
func byPolicy(s *setup, cells []*cell) [][]*sim.Result {
	out := make([][]*sim.Result, len(s.policies))
	for _, c := range cells {
		if c.result != nil {
			out[c.policy] = append(out[c.policy], c.result)
		}
	}
	return out
}

// median returns the median of vs (the lower middle value for an even count, so that it is
// always a measured value), or false for none.
func median[T int64 | float64](vs []T) (T, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	return s[(len(s)-1)/2], true
}

// A column of the side-by-side table: a name (the policy, or the host's kernel) and its runs.
type column struct {
	name string
	runs []host.Sample
}

// shareOf returns thread t's share of a CPU in run r: its CPU time over its lifetime within
// the run. It equals t.Share for a simulated run, and is computed here because a host run's
// ThreadStats cannot carry the run's end the way the simulator's do (their Share is 0 for a
// thread still alive at the end of a host run).
func shareOf(r *sim.Result, t *sim.ThreadStats) float64 {
	end := t.End
	if end < 0 {
		end = r.End
	}
	life := end - max(t.Start, r.Start)
	if life <= 0 {
		return 0
	}
	return float64(t.CPUTime) / float64(life)
}

// writeTable writes the side-by-side table of a run's finished cells (see writeColumns), with
// a note of the repetitions' seeds.
func writeTable(w io.Writer, s *setup, runs [][]*sim.Result) error {
	var cols []column
	reps := 0
	for p, rs := range runs {
		if len(rs) == 0 {
			continue
		}
		c := column{name: s.policies[p].name}
		for _, r := range rs {
			c.runs = append(c.runs, host.SimSample(r))
		}
		cols = append(cols, c)
		reps = max(reps, len(rs))
	}
	if err := writeColumns(w, cols); err != nil {
		return err
	}
	if reps > 1 {
		fmt.Fprintf(w, "\nEach figure is the median of %d repetitions (seeds %d..%d).\n", reps, s.flags.seed, s.flags.seed+uint64(reps)-1)
	}
	return nil
}

// writeColumns writes the side-by-side table: one row per thread, and per column its CPU share
// and wake-to-run latency percentiles, each the median over the column's runs, under a header
// naming each column's unit; then one row per column with the runs' totals; each table with a
// legend that says what its columns measure and what "-" and "0ns" mean.
func writeColumns(w io.Writer, cols []column) error {
	var all []*sim.Result
	for _, c := range cols {
		for _, r := range c.runs {
			all = append(all, r.Result)
		}
	}
	names := threadNames(all)
	width := len("thread")
	for _, n := range names {
		width = max(width, len(n))
	}
	var threads bytes.Buffer
	tw := tabwriter.NewWriter(&threads, 0, 0, 0, ' ', tabwriter.AlignRight)
	// Two header lines: the column's name over its CPU share, then every figure's unit.
	names1 := fmt.Sprintf("%-*s\t", width, "")
	head := fmt.Sprintf("%-*s\t", width, "thread")
	for _, c := range cols {
		names1 += "  " + c.name + "\t" + strings.Repeat("\t", len(tablePercentiles))
		head += "  cpu%\t"
		for _, q := range tablePercentiles {
			head += "  wake " + percentileName(q) + "\t"
		}
	}
	fmt.Fprintln(tw, names1)
	fmt.Fprintln(tw, head)
	for _, n := range names {
		row := fmt.Sprintf("%-*s\t", width, n)
		for _, c := range cols {
			var shares []float64
			lats := make([][]int64, len(tablePercentiles))
			for _, r := range c.runs {
				t, ok := r.Thread(n)
				if !ok {
					continue
				}
				shares = append(shares, shareOf(r.Result, t))
				for i, q := range tablePercentiles {
					if l, ok := r.Latency(n, q); ok {
						lats[i] = append(lats[i], l)
					}
				}
			}
			if v, ok := median(shares); ok {
				row += fmt.Sprintf("  %.1f%%\t", 100*v)
			} else {
				row += "  -\t"
			}
			for i := range tablePercentiles {
				if v, ok := median(lats[i]); ok {
					row += "  " + shortDuration(v) + "\t"
				} else {
					row += "  -\t"
				}
			}
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The first header line's empty cells would end it in blanks.
	for _, l := range strings.SplitAfter(threads.String(), "\n") {
		if _, err := io.WriteString(w, strings.TrimRight(l, " \n")+strings.Repeat("\n", strings.Count(l, "\n"))); err != nil {
			return err
		}
	}
	fmt.Fprint(w, threadLegend)
	fmt.Fprintln(w)
	width = len("policy")
	for _, c := range cols {
		width = max(width, len(c.name))
	}
	tw = tabwriter.NewWriter(w, 0, 0, 0, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\t  runs\t  end (time)\t  makespan (time)\t  exited\t  switches\t  migrations\t  idle%%\t  events\t  violations\t\n", width, "policy")
	for _, c := range cols {
		var ends, makespans, exited, switches, migrations, events, violations []int64
		var idle []float64
		for _, r := range c.runs {
			ends = append(ends, r.End)
			makespans = append(makespans, r.Makespan)
			exited = append(exited, r.Exited)
			var sw, mig, busy, idl int64
			for _, c := range r.CPUs {
				sw += c.Switches
				busy += c.Busy
				idl += c.Idle
			}
			for i := range r.Threads {
				mig += r.Threads[i].Migrations
			}
			switches = append(switches, sw)
			migrations = append(migrations, mig)
			if busy+idl > 0 {
				idle = append(idle, float64(idl)/float64(busy+idl))
			}
			events = append(events, int64(r.Events))
			v := 0
			for _, n := range r.Counts {
				v += n
			}
			violations = append(violations, int64(v))
		}
		m := func(vs []int64) int64 { v, _ := median(vs); return v }
		idleMed, _ := median(idle)
		fmt.Fprintf(tw, "%-*s\t  %d\t  %s\t  %s\t  %d\t  %d\t  %d\t  %.1f%%\t  %d\t  %d\t\n", width, c.name,
			len(c.runs), shortDuration(m(ends)), shortDuration(m(makespans)), m(exited), m(switches), m(migrations),
			100*idleMed, m(events), m(violations))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, totalsLegend)
	return err
}

// threadLegend explains the thread table's columns and its empty and zero cells.
const threadLegend = `cpu%: the thread's CPU time over its life in the run. wake p50 … max: its wake-up latency,
from being woken to running, as percentiles of the run. With repetitions, each figure is their
median. "-": no figure (a thread that never slept has no wake-up latency); 0ns: measured, and 0.
`

// totalsLegend explains the totals table's columns.
const totalsLegend = `end: when the run stopped; makespan: when the last thread exited (the end if one still runs);
exited, switches, migrations, events: counts; idle%: the CPUs' idle time over all their time;
violations: what the work-conservation and starvation checkers found.
`

func percentileName(q float64) string {
	if q == 100 {
		return "max"
	}
	return "p" + strings.TrimSuffix(fmt.Sprintf("%g", q), ".0")
}

// shortDuration formats ns with three significant digits in the largest unit it is at least
// one of, as sim.WriteTable does: "870ns", "1.57ms", "10.0ms", "2.00s".
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

func sig3(x float64) string {
	switch {
	case x < 10:
		return fmt.Sprintf("%.2f", x)
	case x < 100:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.0f", x)
}
