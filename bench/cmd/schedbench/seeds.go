package main

// This file implements the seeds subcommand: every seed scenario at its defaults, the seeds'
// published figures beside ours, with verdicts.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"

	"github.com/schedkit/schedkit/bench/plot"
	"github.com/schedkit/schedkit/bench/report"
	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/internal/outfile"
)

const seedsSynopsis = "[flags] [SCENARIO|SEED ...]"

func cmdSeeds(e *env, args []string) error {
	fs := flag.NewFlagSet("seeds", flag.ContinueOnError)
	small := fs.Bool("small", false, "run each scenario at its small size (a smoke test, seconds) instead of its defaults")
	reps := fs.Int("reps", 0, "`number` of repetitions per row (0: the scenario's own)")
	parallel := fs.Int("parallel", 0, "`number` of runs at a time (0: one per CPU of this machine)")
	quiet := fs.Bool("q", false, "no progress bar")
	out := fs.String("o", "", "write the tables, the results as JSON lines, pictures and index.html into `dir`")
	verbose := fs.Bool("v", false, "after the summary, print every scenario's table in its seed's layout, with its notes")
	params := fs.Bool("params", false, "list the named scenarios' parameters (default, unit, range) instead of running them")
	registerMaxMemory(fs)
	profile := registerScenarioProfile(fs)
	if err := parseFlagsAnywhere(e, fs, args, seedsSynopsis); err != nil {
		return err
	}
	if *params {
		if fs.NArg() == 0 {
			return usagef("-params: name a scenario or a seed (schedbench seeds -params SCENARIO)")
		}
		ss, err := pickScenarios(fs.Args())
		if err != nil {
			return err
		}
		return writeParams(e.stdout, ss)
	}
	switch {
	case *reps < 0 || *reps > maxReps:
		return usagef("-reps %d: want 0..%d", *reps, maxReps)
	case *parallel < 0 || *parallel > maxParallel:
		return usagef("-parallel %d: want 0..%d", *parallel, maxParallel)
	}
	ss, err := pickScenarios(fs.Args())
	if err != nil {
		return err
	}
	if *out != "" {
		if err := outfile.CheckDir(*out); err != nil {
			return outputErr(err)
		}
	}
	o := scenario.Options{Reps: *reps, Small: *small, Workers: *parallel}
	if o.Profile, err = scenarioProfile(*profile); err != nil {
		return err
	}
	plans, total, err := seedsPlans(e, ss, o)
	if err != nil {
		return err
	}
	reports, results, done, runErr := runSeeds(e, plans, o, total, *quiet)
	if runErr != nil && !errors.Is(runErr, errInterrupted) {
		return runErr
	}
	var text bytes.Buffer
	if err := scenario.WriteSummary(&text, reports); err != nil {
		return err
	}
	summary := bytes.Clone(text.Bytes())
	if len(fs.Args()) > 0 || *verbose {
		for _, rp := range reports {
			fmt.Fprintln(&text)
			if err := rp.WriteTable(&text); err != nil {
				return err
			}
		}
	} else {
		fmt.Fprintln(&text, "\n'schedbench seeds -v' or 'schedbench seeds NAME' adds each scenario's table in its seed's layout, with its notes.")
	}
	if _, err := e.stdout.Write(text.Bytes()); err != nil {
		return err
	}
	if *out != "" {
		if err := writeSeedsArtefacts(*out, reports, results, text.Bytes(), summary, args); err != nil {
			return err
		}
	}
	if runErr != nil {
		return fmt.Errorf("interrupted: %d of %d scenarios finished (%d of %d cells); the table shows them", len(reports), len(plans), done, total)
	}
	return nil
}

// seedsPlans returns the plans of the scenarios ss under o, each checked against the bounds
// before any runs (grid and cell counts, the memory of the cells at a time), and their cells in
// all.
func seedsPlans(e *env, ss []*scenario.Scenario, o scenario.Options) ([]*scenario.Plan, int, error) {
	var plans []*scenario.Plan
	total := 0
	for _, s := range ss {
		if err := checkPlanSize(s, o); err != nil {
			return nil, 0, err
		}
		pl, err := scenario.NewPlan(s, o)
		if err != nil {
			return nil, 0, usagef("%s: %v", s.Name, err)
		}
		if err := checkPlanMemory(pl, pl.All(), o.Workers, e.maxMemory); err != nil {
			return nil, 0, err
		}
		plans = append(plans, pl)
		total += len(pl.Cells)
		if total > maxCells {
			return nil, 0, usagef("%d cells in the scenarios named; at most %d (fewer scenarios or -reps)", total, maxCells)
		}
	}
	return plans, total, nil
}

// runSeeds runs the plans' cells with a progress bar over their total cells (unless quiet) and
// returns the report and results of each plan that finished, the cells done, and the error that
// stopped it (errInterrupted for a signal: the plans before it stand).
func runSeeds(e *env, plans []*scenario.Plan, o scenario.Options, total int, quiet bool) ([]*scenario.Report, [][]scenario.CellResult, int, error) {
	step, finish := newProgress(e.stderr, e.terminal && !quiet, total, "cells")
	defer finish()
	results, errs, left, done := runPlansCells(e.ctx, plans, o, func(done int) {
		step(done, total)
		if e.afterRun != nil {
			e.afterRun(done)
		}
	})
	var reports []*scenario.Report
	var kept [][]scenario.CellResult
	for i, pl := range plans {
		if errs[i] != nil || left[i] > 0 {
			if e.ctx.Err() != nil {
				return reports, kept, done, errInterrupted
			}
			return reports, kept, done, errors.Join(errs[i:]...) // the failing cell's plan: this or a later one
		}
		rp, err := pl.Merge(results[i])
		if err != nil {
			return reports, kept, done, err
		}
		reports, kept = append(reports, rp), append(kept, results[i])
	}
	return reports, kept, done, nil
}

// runPlansCells runs every cell of the plans on one pool of o.Workers goroutines (one per CPU for
// 0), taking them in the plans' order, and returns each plan's results by cell, its error (that
// of its first cell to fail), how many of its cells did not finish, and the cells finished in
// all; step is called with that count after each. A plan's last cells run beside the next
// plan's first, where running the plans in turn left a CPU idle at the end of each; a cell's
// result depends on its seed alone, so the results are the same. Once a cell fails or ctx is
// done no further cell starts.
func runPlansCells(ctx context.Context, plans []*scenario.Plan, o scenario.Options, step func(done int)) (results [][]scenario.CellResult, errs []error, left []int, done int) {
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type cell struct{ plan, idx int }
	type finished struct {
		cell
		res scenario.CellResult
		err error
	}
	results, errs, left = make([][]scenario.CellResult, len(plans)), make([]error, len(plans)), make([]int, len(plans))
	for i, pl := range plans {
		results[i], left[i] = make([]scenario.CellResult, len(pl.Cells)), len(pl.Cells)
	}
	jobs, out := make(chan cell), make(chan finished)
	var stop atomic.Bool
	var wg sync.WaitGroup
	one := o
	one.Workers, one.Context, one.Progress = 1, ctx, nil
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				if stop.Load() {
					continue // a cell failed: no further cell starts, this one is left unfinished
				}
				rs, err := plans[c.plan].Run([]int{c.idx}, one)
				f := finished{cell: c, err: err}
				if err == nil {
					f.res = rs[0]
				} else {
					stop.Store(true) // before the result is handed on, so that this worker's next cell sees it
				}
				out <- f
			}
		}()
	}
	go func() {
	feed:
		for i, pl := range plans {
			for j := range pl.Cells {
				if stop.Load() || ctx.Err() != nil {
					break feed
				}
				jobs <- cell{i, j}
			}
		}
		close(jobs)
		wg.Wait()
		close(out)
	}()
	for f := range out {
		if f.err != nil {
			if errs[f.plan] == nil {
				errs[f.plan] = f.err
			}
			continue
		}
		results[f.plan][f.idx] = f.res
		left[f.plan]--
		done++
		step(done)
	}
	return results, errs, left, done
}

// writeParams lists the parameters of each scenario: name, default, unit, range and what it
// is, then the grid the scenario sweeps by default and the seed's own values.
func writeParams(w io.Writer, ss []*scenario.Scenario) error {
	var b bytes.Buffer
	for i, s := range ss {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s: %s\n\n", s.Name, s.Title)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "parameter\tdefault\tunit\trange\twhat")
		for _, p := range s.Params {
			kind := ""
			if p.Integer {
				kind = ", whole"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s..%s%s\t%s\n", p.Name, fmtNum(p.Default), orDash(p.Unit), fmtNum(p.Min), fmtNum(p.Max), kind, p.Doc)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(s.Sweep) > 0 {
			fmt.Fprintf(&b, "\nswept by default: %s\n", formatGrid(s.Sweep))
		}
		if len(s.Seeded) > 0 {
			fmt.Fprintf(&b, "the seed's own values (its figures are shown only there): %s\n", formatGrid(oneEach(s.Seeded)))
		}
		fmt.Fprintf(&b, "set one with -set NAME=VALUE, sweep with -grid NAME=V1,V2,… (schedbench sweep %s)\n", s.Name)
	}
	_, err := w.Write(b.Bytes())
	return err
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneEach returns v as a grid of one value per parameter.
func oneEach(v scenario.Values) map[string][]float64 {
	g := map[string][]float64{}
	for k, x := range v {
		g[k] = []float64{x}
	}
	return g
}

// formatGrid writes a grid as -grid would take it: NAME=V1,V2 … in name order.
func formatGrid(g map[string][]float64) string { return gridFlag(g).String() }

// writeSeedsArtefacts writes the seeds' table, each scenario's table and results (JSON lines,
// as a shard writes them), a distribution picture per scenario and grid point, and index.html.
func writeSeedsArtefacts(dir string, reports []*scenario.Report, results [][]scenario.CellResult, text, summary []byte, args []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := outfile.Write(filepath.Join(dir, "seeds.txt"), func(w io.Writer) error { _, err := w.Write(text); return err }); err != nil {
		return err
	}
	page := report.Page{Title: "schedbench seeds", Context: []string{"schedbench seeds " + strings.Join(args, " ")},
		Sections: []report.Section{{Heading: "Seeds: the summary", ID: "seeds", Tables: []string{string(summary)}}}}
	for i, rp := range reports {
		s := rp.Plan.Scenario
		var table, tables bytes.Buffer
		if err := rp.WriteTable(&table); err != nil {
			return err
		}
		if err := rp.WriteTables(&tables); err != nil {
			return err
		}
		sec := report.Section{Heading: s.Name, ID: s.Name, Text: s.Title, Tables: []string{tables.String()}}
		for _, l := range rp.NoteLists() {
			sec.Notes = append(sec.Notes, report.NoteList{Heading: l.Heading, Items: l.Items})
		}
		rs := results[i]
		files := []artefact{
			{s.Name + ".txt", func(w io.Writer) error { _, err := w.Write(table.Bytes()); return err }},
			{s.Name + ".jsonl", func(w io.Writer) error { return scenario.WriteJSONL(w, rs) }},
		}
		palette := &plot.Palette{}
		for p := range rp.Plan.Points {
			var b bytes.Buffer
			caption, err := rp.Picture(&b, p, palette)
			if err != nil {
				return err
			}
			name := fmt.Sprintf("%s-point%d.svg", s.Name, p)
			data := b.Bytes()
			files = append(files, artefact{name, func(w io.Writer) error { _, err := w.Write(data); return err }})
			sec.Figures = append(sec.Figures, report.Figure{Caption: caption, SVG: data, File: name})
		}
		for _, a := range files {
			if err := outfile.Write(filepath.Join(dir, a.name), a.fill); err != nil {
				return err
			}
		}
		page.Sections = append(page.Sections, sec)
	}
	return outfile.Write(filepath.Join(dir, "index.html"), func(w io.Writer) error { return report.Write(w, page) })
}
