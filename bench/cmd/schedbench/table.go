package main

// This file implements run's output: the finished cells as a sim.Summary, one column per
// policy, written as text, CSV or JSON by the summary's one writer.

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
)

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

// tableOf is what schedbench's tables show: the wake-up latencies at p50, p99, p99.9 and the
// maximum, and every total.
func tableOf() sim.Table { return sim.Table{Totals: sim.AllTotals()} }

// newSummary returns the Summary of a run's finished cells, one column per policy that finished
// a run (its name suffixed by suffix), with the run's settings.
func newSummary(s *setup, reps int, cells []*cell, suffix string) *sim.Summary {
	cols := make([]sim.Column, len(s.policies))
	missing := 0
	for _, c := range cells {
		if c.result == nil {
			missing++
			continue
		}
		cols[c.policy].Reps = append(cols[c.policy].Reps, sim.Rep{N: c.rep, Result: c.result})
	}
	var finished []sim.Column
	for p, c := range cols {
		if len(c.Reps) > 0 {
			c.Name = s.policies[p].name + suffix
			finished = append(finished, c)
		}
	}
	sum := sim.Summarize(tableOf(), finished...)
	sum.Missing = missing
	sum.Settings = []sim.Setting{{Key: "workload", Value: s.wname}, {Key: "topology", Value: s.topo.String()},
		{Key: "until", Value: time.Duration(s.flags.until).String()}, {Key: "hz", Value: strconv.Itoa(s.flags.hz)},
		{Key: "stathz", Value: strconv.Itoa(s.flags.statHz)}, {Key: "seed", Value: strconv.FormatUint(s.flags.seed, 10)},
		{Key: "reps", Value: strconv.Itoa(reps)},
		{Key: "profile", Value: s.flags.prof.String()}}
	return sum
}

// writeTable writes the text form of a run's summary, with a note of the repetitions' seeds.
func writeTable(w io.Writer, s *setup, sum *sim.Summary) error {
	if err := sum.Write(w, sim.Text); err != nil {
		return err
	}
	reps := sum.Reps()
	if reps > 1 {
		fmt.Fprintf(w, "\nEach figure is the median of %d repetitions (seeds %d..%d).\n", reps, s.flags.seed, s.flags.seed+uint64(reps)-1)
	}
	sep := "\n"
	if reps > 1 {
		sep = ""
	}
	_, err := fmt.Fprintf(w, "%s%s\n", sep, profileNote(s.flags.prof))
	return err
}

// profileNote says which machine profile a table's simulated runs charged.
func profileNote(p *sim.Profile) string {
	if p.Ideal() {
		return "Machine profile: ideal (no costs: a woken thread runs the instant it is chosen)."
	}
	return "Machine profile: " + p.String() + ": the costs between a decision and its effect (-profile ideal: none)."
}
