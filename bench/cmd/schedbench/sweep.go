package main

// This file implements the sweep and merge subcommands: a scenario over a parameter grid with
// repetitions, whole or as deterministic shards whose JSON lines merge into the same table.

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"regexp"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/internal/outfile"
)

const sweepSynopsis = "[flags] SCENARIO"
const mergeSynopsis = "[flags] SCENARIO RESULTS.jsonl..."

// planFlags are the flags that choose a scenario's plan; sweep and merge must be given the
// same ones, so that merge rebuilds the plan the shards ran.
type planFlags struct {
	reps    int
	small   bool
	set     valuesFlag
	grid    gridFlag
	profile *string
}

func (p *planFlags) register(fs *flag.FlagSet) {
	p.set, p.grid = valuesFlag{}, gridFlag{}
	fs.IntVar(&p.reps, "reps", 0, "`number` of repetitions per row and grid point (0: the scenario's own)")
	fs.BoolVar(&p.small, "small", false, "start from the scenario's small size instead of its defaults")
	fs.Var(p.set, "set", "fix a parameter, `NAME=VALUE` (repeatable)")
	fs.Var(p.grid, "grid", "sweep a parameter over values, `NAME=V1,V2,…` (repeatable: the grid is every combination)")
	registerMaxMemory(fs)
	p.profile = registerScenarioProfile(fs)
}

// plan returns the scenario named name and its plan under p.
func (p *planFlags) plan(name string, workers int) (*scenario.Plan, scenario.Options, error) {
	s, err := scenario.Lookup(name)
	if err != nil {
		return nil, scenario.Options{}, usagef("%v", err)
	}
	if p.reps < 0 || p.reps > maxReps {
		return nil, scenario.Options{}, usagef("-reps %d: want 0..%d", p.reps, maxReps)
	}
	for name := range p.grid {
		if _, ok := p.set[name]; ok {
			return nil, scenario.Options{}, usagef("%s is both fixed by -set and swept by -grid: give one", name)
		}
	}
	o := scenario.Options{Reps: p.reps, Small: p.small, Set: scenario.Values(p.set), Grid: map[string][]float64(p.grid), Workers: workers}
	if o.Profile, err = scenarioProfile(*p.profile); err != nil {
		return nil, o, err
	}
	if err := checkPlanSize(s, o); err != nil {
		return nil, o, err
	}
	pl, err := scenario.NewPlan(s, o)
	if err != nil {
		return nil, o, usagef("%s: %v", name, err)
	}
	return pl, o, nil
}

func cmdSweep(e *env, args []string) error {
	var p planFlags
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	p.register(fs)
	shard := fs.String("shard", "", "run only shard `k/n` of the cells (0 <= k < n) and write its results as JSON lines, for merge")
	parallel := fs.Int("parallel", 0, "`number` of runs at a time (0: one per CPU of this machine)")
	quiet := fs.Bool("q", false, "no progress bar")
	out := fs.String("o", "", "write the results as JSON lines to `file` (atomically); with -shard the default is stdout")
	if err := parseFlags(e, fs, args, sweepSynopsis); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("want one scenario, got %d arguments (schedbench sweep %s)", fs.NArg(), sweepSynopsis)
	}
	if *parallel < 0 || *parallel > maxParallel {
		return usagef("-parallel %d: want 0..%d", *parallel, maxParallel)
	}
	explicit := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { explicit[fl.Name] = true })
	k, n := 0, 1
	if explicit["shard"] {
		var err error
		if k, n, err = parseShard(*shard); err != nil {
			return err
		}
	}
	pl, o, err := p.plan(fs.Arg(0), *parallel)
	if err != nil {
		return err
	}
	idx, err := pl.Shard(k, n)
	if err != nil {
		return usagef("-shard %s: %v", *shard, err)
	}
	if err := checkPlanMemory(pl, idx, *parallel, e.maxMemory); err != nil {
		return err
	}
	var of *outfile.File
	if *out != "" {
		if of, err = outfile.Create(*out); err != nil {
			return outputErr(err)
		}
		defer of.Abort()
	}
	step, finish := newProgress(e.stderr, e.terminal && !*quiet, len(idx), "cells")
	rs, err := runPlan(e.ctx, pl, idx, o, func(d int) { step(d, len(idx)) })
	finish()
	if errors.Is(err, errInterrupted) {
		return fmt.Errorf("interrupted: %d of %d cells finished; nothing written", len(rs), len(idx))
	}
	if err != nil {
		return err
	}
	if *out != "" {
		if err := scenario.WriteJSONL(of, rs); err != nil {
			return err
		}
		if err := of.Commit(); err != nil {
			return err
		}
	}
	if explicit["shard"] {
		if *out == "" {
			return scenario.WriteJSONL(e.stdout, rs)
		}
		return nil
	}
	rp, err := pl.Merge(rs)
	if err != nil {
		return err
	}
	return rp.WriteTable(e.stdout)
}

func cmdMerge(e *env, args []string) error {
	var p planFlags
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	p.register(fs)
	if err := parseFlags(e, fs, args, mergeSynopsis); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usagef("want a scenario and at least one results file (schedbench merge %s)", mergeSynopsis)
	}
	pl, _, err := p.plan(fs.Arg(0), 1)
	if err != nil {
		return err
	}
	var all []scenario.CellResult
	for _, file := range fs.Args()[1:] {
		name := inputName(file)
		f, err := e.openInput(file)
		if err != nil {
			if u := errors.Unwrap(err); u != nil {
				err = u
			}
			return usagef("%s: %v", name, err)
		}
		in := bufio.NewReader(e.limitInput(f, name, dataShare))
		if schema := documentSchema(in); schema != "" {
			f.Close()
			return usagef("%s: a %s document, not a sweep's results: merge reads the JSON lines of sweep -shard", name, schema)
		}
		rs, err := scenario.ReadJSONL(in)
		f.Close()
		var big *errTooLarge
		if errors.As(err, &big) {
			return usagef("%v", big)
		}
		if err != nil {
			return usagef("%s: %v", name, err)
		}
		all = append(all, rs...)
	}
	rp, err := pl.Merge(all)
	if err != nil {
		return usagef("%v (were the shards run with the same -reps, -small, -set and -grid?)", err)
	}
	return rp.WriteTable(e.stdout)
}

// schemaMember finds the schema member of a JSON document near its start.
var schemaMember = regexp.MustCompile(`^\s*\{\s*"schema"\s*:\s*"([^"\\]{1,100})"`)

// documentSchema returns the schema named by the JSON document at the start of r (run's
// schedkit.sim.runs/1, a Result's schedkit.sim.result/1, or the schedbench.run/1 of earlier
// versions), or "" if r does not start with one: a sweep's results carry no schema member.
func documentSchema(r *bufio.Reader) string {
	b, _ := r.Peek(512)
	if m := schemaMember.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}
