package main

// This file implements the run subcommand.

import (
	"bytes"
	"flag"
	"fmt"
	"runtime"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/internal/outfile"
)

const runSynopsis = "[flags] WORKLOAD"

// runFlags are run's own flags; -reps and -parallel are the embedded machineFlags' reps and
// parallel, which its bounds of the work read.
type runFlags struct {
	machineFlags
	format, out string
	quiet       bool
	zoom        time.Duration
	linear      bool
}

func cmdRun(e *env, args []string) error {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f.register(fs, "ule,cfs")
	fs.IntVar(&f.reps, "reps", 1, "`number` of repetitions per policy, with seeds seed, seed+1, …")
	fs.IntVar(&f.parallel, "parallel", 0, "`number` of runs at a time (0: one per CPU of this machine)")
	fs.StringVar(&f.format, "format", "text", "output `format` on stdout: text, csv or json (schema in the package documentation)")
	fs.StringVar(&f.out, "o", "", "write every artefact (table, JSON, CSV, pictures, traces, index.html) into `dir`")
	fs.BoolVar(&f.quiet, "q", false, "no progress bar")
	fs.DurationVar(&f.zoom, "zoom", 10*time.Millisecond, "length of the `window` of the zoomed Gantt charts in -o's report")
	fs.BoolVar(&f.linear, "linear", false, "draw latency distributions on a linear axis instead of a logarithmic one")
	registerMaxMemory(fs)
	if err := parseFlags(e, fs, args, runSynopsis); err != nil {
		return err
	}
	switch {
	case f.reps < 1 || f.reps > maxReps:
		return usagef("-reps %d: want 1..%d", f.reps, maxReps)
	case f.parallel < 0 || f.parallel > maxParallel:
		return usagef("-parallel %d: want 0..%d", f.parallel, maxParallel)
	case f.format != "text" && f.format != "csv" && f.format != "json":
		return usagef("-format %q: want text, csv or json", f.format)
	case f.zoom <= 0:
		return usagef("-zoom %v: want a positive duration", f.zoom)
	}
	format, err := sim.ParseFormat(f.format)
	if err != nil {
		return err // checked above
	}
	if f.parallel == 0 {
		f.parallel = runtime.GOMAXPROCS(0)
	}
	s, err := f.resolve(e, fs)
	if err != nil {
		return err
	}
	if f.out != "" {
		if err := outfile.CheckDir(f.out); err != nil {
			return outputErr(err)
		}
	}
	step, finish := newProgress(e.stderr, e.terminal && !f.quiet, len(s.policies)*f.reps, "runs")
	cells := runCells(e.ctx, s, f.reps, f.parallel, f.out != "", func(done, total int) {
		step(done, total)
		if e.afterRun != nil {
			e.afterRun(done)
		}
	})
	finish()
	for _, c := range cells {
		if c.err != nil {
			return fmt.Errorf("%s, repetition %d: %v", s.policies[c.policy].name, c.rep, c.err)
		}
	}
	return writeRun(e, s, &f, format, cells, args)
}

// writeRun writes a run's output: the form f.format asks for on stdout, and with -o every
// artefact; then, if ^C stopped some runs, the error that says how many finished.
func writeRun(e *env, s *setup, f *runFlags, format sim.Format, cells []*cell, args []string) error {
	sum := newSummary(s, f.reps, cells, "")
	var table bytes.Buffer
	if err := writeTable(&table, s, sum); err != nil {
		return err
	}
	var err error
	if format == sim.Text {
		_, err = e.stdout.Write(table.Bytes())
	} else {
		err = sum.Write(e.stdout, format)
	}
	if err != nil {
		return err
	}
	if f.out != "" {
		if err := writeArtefacts(f.out, s, f, cells, byPolicy(s, cells), table.Bytes(), sum, args); err != nil {
			return err
		}
	}
	if sum.Missing > 0 {
		return fmt.Errorf("interrupted: %d of %d runs finished; the table shows them", len(cells)-sum.Missing, len(cells))
	}
	return nil
}
