package main

// This file implements the host subcommand: a workload as real threads on this machine's
// kernel, beside the model of it; or, with -experiments, the model-vs-host table.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
)

const hostSynopsis = "[flags] WORKLOAD | -experiments [-reps N] [-weight W] [-dir DIR] [-model-only]"

func cmdHost(e *env, args []string) error {
	var f machineFlags
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	f.register(fs, "")
	reps := fs.Int("reps", 1, "`number` of host runs (one after the other), and of simulated runs per policy; with -experiments, of each experiment's host runs and of the nearest model's seeds, 3 unless given")
	skip := fs.Bool("skip-unsupported", false, "run what the host can of a workload that asks for what it cannot (a class without permission, a missing cpu controller), listing what was left out")
	noModel := fs.Bool("no-model", false, "only the host, no simulated runs beside it")
	weight := fs.Uint64("weight", 0, "the `weight` (cpu.weight, 1-10000) of the host runs' parent group against the rest of the machine, for a workload with groups (every experiment has them); 0 is the default weight, 100; -experiments uses 10000 unless given")
	experiments := fs.Bool("experiments", false, "run the model-vs-host table's experiments (seed 000's pipeline beside a hog, its nice split, seed 004's probe) instead of a workload: -reps runs of each, 3 by default")
	dir := fs.String("dir", "", "with -experiments: add the rows of the real tar cf - `DIR` | gzip beside the hogs")
	modelOnly := fs.Bool("model-only", false, "with -experiments: the models' figures alone, on a simulated 2-CPU machine for Linux 6.18 (runs anywhere, the same bytes everywhere)")
	registerMaxMemory(fs)
	if err := parseFlags(e, fs, args, hostSynopsis); err != nil {
		return err
	}
	explicit := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { explicit[fl.Name] = true })
	if *weight > sched.MaxWeight {
		return usagef("-weight %d: want 1..%d (0: the default)", *weight, sched.MaxWeight)
	}
	if *experiments {
		return hostExperiments(e, fs, explicit, *reps, *weight, *dir, *modelOnly, f.seed, f.profile)
	}
	switch {
	case explicit["dir"] || explicit["model-only"]:
		return usagef("-dir and -model-only need -experiments")
	case *reps < 1 || *reps > 1000:
		return usagef("-reps %d: want 1..1000", *reps)
	case *noModel && explicit["policy"]:
		return usagef("-no-model and -policy exclude each other")
	case explicit["topology"] && f.topology != "host":
		return usagef("-topology %s: the host runs on this machine; the model runs on -topology host", f.topology)
	case f.until > host.MaxLimit:
		return usagef("-until %v: the host runner's limit is %v", f.until, host.MaxLimit)
	}
	if f.policy == "" {
		f.policy = host.NearestPolicy(host.Release())
	}
	if !explicit["profile"] {
		f.profile = defaultHostProfile()
	}
	f.topology = "host"
	f.reps = *reps
	s, err := f.resolve(e, fs)
	if err != nil {
		return err
	}
	hc, err := runOnHost(e, s, *reps, host.Options{Limit: f.until, Seed: f.seed, SkipUnsupported: *skip, KeepSignals: true, Weight: *weight})
	if err != nil {
		return err
	}
	var cols []sim.Column
	if len(hc.Reps) > 0 {
		cols = append(cols, hc.Column)
	}
	var cells []*cell
	if !*noModel && e.ctx.Err() == nil {
		cells = runCells(e.ctx, s, *reps, 0, false, nil)
		cols = append(cols, newSummary(s, *reps, cells, " (model)").Columns...)
	}
	if len(cols) > 0 {
		if err := writeHostTable(e.stdout, s, hc, cols); err != nil {
			return err
		}
	}
	if e.ctx.Err() != nil {
		return fmt.Errorf("interrupted: %d of %d host runs finished; the table shows them", len(hc.Reps), *reps)
	}
	for _, c := range cells {
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// hostColumn is the host's column of host's table, with what the runs saw beside it.
type hostColumn struct {
	sim.Column
	until   time.Duration
	skipped []string
	loads   [][2]float64
}

// runOnHost runs s's workload reps times on the host with o (the seeds o.Seed, o.Seed+1, …),
// one after the other, until ^C; a run cut short by ^C is left out.
func runOnHost(e *env, s *setup, reps int, o host.Options) (*hostColumn, error) {
	hc := &hostColumn{until: o.Limit}
	seed := o.Seed
	for rep := range reps {
		if e.ctx.Err() != nil {
			break
		}
		o.Seed = seed + uint64(rep)
		r, err := host.Run(e.ctx, s.w, o)
		var me *host.MissingError
		var le *host.LimitError
		switch {
		case errors.As(err, &me):
			return nil, usagef("the host cannot run %s: %v (-skip-unsupported runs the rest)", s.wname, err)
		case errors.As(err, &le):
			return nil, usagef("%v", err)
		case err != nil && e.ctx.Err() == nil:
			return nil, err
		}
		if e.ctx.Err() != nil {
			break // a run cut short by ^C is not one to compare
		}
		hc.Name = r.Policy
		hc.Reps = append(hc.Reps, sim.Rep{N: rep, Result: &r.Result})
		hc.skipped = r.Skipped
		hc.loads = append(hc.loads, r.Load)
	}
	return hc, nil
}

// writeHostTable writes host's table: the host's column and the model's side by side, then
// what the host's runs saw.
func writeHostTable(w io.Writer, s *setup, hc *hostColumn, cols []sim.Column) error {
	if err := sim.Summarize(tableOf(), cols...).Write(w, sim.Text); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nThe host's columns are what its kernel did (%d run(s) of %v, medians); the model's are simulated on -topology host (%s).\n",
		len(hc.Reps), hc.until, s.topo)
	for i, l := range hc.loads {
		fmt.Fprintf(w, "host run %d: load average %.2f at the start, %.2f at the end (other work on the machine takes CPU from the workload).\n", i, l[0], l[1])
	}
	for _, m := range hc.skipped {
		fmt.Fprintf(w, "left out on the host: %s\n", m)
	}
	return nil
}

// tableExperiments are the experiments of host -experiments (a test runs fewer): the throughput
// rows, then the rows on time, whose benchmark workloads take the program figures of profile p.
var tableExperiments = func(p *sim.Profile, a, b int, dir string) []host.Experiment {
	return append(host.TableExperiments(a, b, dir), host.LatencyExperiments(p, b)...)
}

// hostExperiments runs the model-vs-host table (host.WriteTable), what examples/hostcompare
// prints: each experiment reps times on the host and under the simulated policies on this
// machine's topology, or with modelOnly the models' figures alone.
func hostExperiments(e *env, fs *flag.FlagSet, explicit map[string]bool, reps int, weight uint64, dir string, modelOnly bool, seed uint64, profile string) error {
	var fixed []string
	for _, name := range []string{"policy", "topology", "until", "hz", "stathz", "flatten", "skip-unsupported", "no-model"} {
		if explicit[name] {
			fixed = append(fixed, "-"+name)
		}
	}
	var hostOnly []string
	for _, name := range []string{"reps", "weight", "dir"} {
		if modelOnly && explicit[name] {
			hostOnly = append(hostOnly, "-"+name)
		}
	}
	switch {
	case fs.NArg() > 0:
		return usagef("-experiments runs the table's own workloads: no WORKLOAD (got %q)", fs.Args())
	case len(fixed) > 0:
		return usagef("-experiments fixes the workloads, the machine and the policies: no %s", strings.Join(fixed, ", "))
	case len(hostOnly) > 0:
		return usagef("-model-only runs nothing on the host: no %s", strings.Join(hostOnly, ", "))
	case !explicit["reps"]:
		reps = 3
	}
	if reps < 1 || reps > 100 {
		return usagef("-reps %d: want 1..100 with -experiments", reps)
	}
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usagef("-dir %s: not a directory", dir)
		}
	}
	if !explicit["weight"] {
		weight = sched.MaxWeight // shielded from the rest of the machine unless told otherwise
	}
	if !explicit["profile"] && !modelOnly {
		profile = defaultHostProfile()
	}
	prof, err := resolveProfile(profile)
	if err != nil {
		return err
	}
	o := host.CompareOptions{Reps: reps, Weight: weight, Seed: seed, KeepSignals: true, Profile: prof}
	if modelOnly {
		o = host.ModelOnlyTable()
		o.Seed, o.Profile = seed, prof
	}
	err = host.WriteExperiments(e.ctx, e.stdout, o, func(a, b int) []host.Experiment { return tableExperiments(prof, a, b, dir) })
	var me *host.MissingError
	switch {
	case e.ctx.Err() != nil:
		return fmt.Errorf("interrupted: no table (a row needs every run of its experiment)")
	case errors.As(err, &me):
		return usagef("the host cannot run the experiments: %v", err)
	}
	return err
}
