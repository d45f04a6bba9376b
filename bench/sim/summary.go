package sim

// This file implements Summary: runs of one workload, one column per policy, reduced to the
// figures of a table — the medians over each column's repetitions.

import (
	"fmt"
	"math"
	"slices"

	"github.com/schedkit/schedkit/bench/stat"
)

// A Rep is one repetition of a column: its number, from 0, and its run's Result.
type Rep struct {
	N      int
	Result *Result
}

// A Column is the runs of one policy, or of the host's kernel, over repetitions: the runs a
// table puts in one group of columns under Name.
type Column struct {
	Name string
	Reps []Rep
}

// A Setting is one line of what ran, as a Summary's maker describes it: a workload file, a
// topology, a flag (golang.org/x/perf/benchfmt's configuration lines).
type Setting struct {
	Key, Value string
}

// A Summary is runs of one workload reduced to a table's figures: for each thread name, in
// each column, the median over the column's runs of its CPU share and of each percentile of its
// latencies; for each column, the medians of the totals. Medians are [stat.Median]'s, the middle
// value of an odd count and the mean of the middle two of an even one. It is a pure function of
// its runs ([Summarize]); [Summary.Write] writes it as text, CSV or JSON.
type Summary struct {
	// Table says what the summary shows: the latency series, its percentiles, the totals.
	Table Table
	// Columns are the runs summarized, in order.
	Columns []Column
	// Settings describe what ran; only the JSON form writes them. Missing counts runs that
	// were planned and did not finish (a run stopped by ^C): the JSON form says it is
	// incomplete.
	Settings []Setting
	Missing  int

	// Threads has a row per thread name, in order of first appearance over the columns' runs.
	Threads []ThreadRow
	// Totals[c][i] is the median over column c's runs of Table's i-th total; NaN for none.
	Totals [][]float64
}

// A ThreadRow is one thread name's figures in every column of a Summary.
type ThreadRow struct {
	// Name is the threads' name and Decl the declaration (thread or template) the first of them
	// was made from: the rows of a template's threads share a Decl.
	Name, Decl string
	// Cells holds the figures of each column, in the Summary's order.
	Cells []Cell
}

// A Cell is one thread's figures in one column: medians over the column's runs that have it.
type Cell struct {
	// Runs counts the column's runs with a thread of the row's name.
	Runs int
	// Share is the median CPU share ([ThreadStats.Share]), NaN for no run.
	Share float64
	// Latency[i] is the median of the Table's i-th percentile of the series, in nanoseconds,
	// over the runs in which the thread has one; NaN if it has none in any.
	Latency []float64
}

// Summarize returns the Summary of cols under t. It panics if a run's Result is nil or a
// percentile of t is outside 0..100. The cost is one pass over every thread of every run, plus
// the percentiles asked for.
func Summarize(t Table, cols ...Column) *Summary {
	t.Percentiles = t.percentiles()
	for _, c := range cols {
		for i, r := range c.Reps {
			if r.Result == nil {
				panic(fmt.Sprintf("sim: Summarize: column %q: run %d has a nil result", c.Name, i))
			}
		}
	}
	s := &Summary{Table: t, Columns: cols}
	seen := map[string]int{}
	for _, c := range cols {
		for _, run := range c.Reps {
			for i := range run.Result.Threads {
				th := &run.Result.Threads[i]
				if _, ok := seen[th.Name]; !ok {
					seen[th.Name] = len(s.Threads)
					s.Threads = append(s.Threads, ThreadRow{Name: th.Name, Decl: th.Decl})
				}
			}
		}
	}
	for i := range s.Threads {
		row := &s.Threads[i]
		for _, c := range cols {
			row.Cells = append(row.Cells, t.cell(c, row.Name))
		}
	}
	for _, c := range cols {
		tot := make([]float64, len(t.Totals))
		for i, k := range t.Totals {
			var vs []float64
			for _, run := range c.Reps {
				if v := k.Of(run.Result); !math.IsNaN(v) {
					vs = append(vs, v)
				}
			}
			tot[i] = median(vs)
		}
		s.Totals = append(s.Totals, tot)
	}
	return s
}

// percentiles returns t's percentiles, the default ones for nil, after checking them.
func (t Table) percentiles() []float64 {
	ps := t.Percentiles
	if ps == nil {
		ps = []float64{50, 99, 99.9, 100}
	}
	for _, p := range ps {
		percentMilli(p)
	}
	return ps
}

// cell returns the figures of the thread named name in column c.
func (t Table) cell(c Column, name string) Cell {
	var shares []float64
	lats := make([][]float64, len(t.Percentiles))
	for _, run := range c.Reps {
		th, ok := run.Result.Thread(name)
		if !ok {
			continue
		}
		shares = append(shares, th.Share())
		h := th.Histogram(t.Series)
		for i, p := range t.Percentiles {
			if v, ok := h.Percentile(p); ok {
				lats[i] = append(lats[i], float64(v))
			}
		}
	}
	cell := Cell{Runs: len(shares), Share: median(shares), Latency: make([]float64, len(lats))}
	for i, vs := range lats {
		cell.Latency[i] = median(vs)
	}
	return cell
}

// median returns stat.Median of vs, NaN for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	return stat.Median(s)
}

// Decls returns the declarations of the summary's threads, in order of first appearance: the
// groups in which a report pools threads (hog for hog.0 … hog.3).
func (s *Summary) Decls() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range s.Threads {
		if !seen[r.Decl] {
			seen[r.Decl] = true
			out = append(out, r.Decl)
		}
	}
	return out
}

// Reps returns the largest number of runs of a column.
func (s *Summary) Reps() int {
	n := 0
	for _, c := range s.Columns {
		n = max(n, len(c.Reps))
	}
	return n
}
