package main

// This file implements the host subcommand: a workload as real threads on this machine's
// kernel, beside the model of it.

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/bench/host"
)

const hostSynopsis = "[flags] WORKLOAD"

func cmdHost(e *env, args []string) error {
	var f machineFlags
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	f.register(fs, "")
	reps := fs.Int("reps", 1, "`number` of host runs (one after the other), and of simulated runs per policy")
	skip := fs.Bool("skip-unsupported", false, "run what the host can of a workload that asks for what it cannot (a class without permission, a missing cpu controller), listing what was left out")
	noModel := fs.Bool("no-model", false, "only the host, no simulated runs beside it")
	if err := parseFlags(e, fs, args, hostSynopsis); err != nil {
		return err
	}
	explicit := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { explicit[fl.Name] = true })
	switch {
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
	f.topology = "host"
	s, err := f.resolve(fs)
	if err != nil {
		return err
	}
	var cols []column
	hc := column{}
	var skipped []string
	var loads [][2]float64
	for rep := range *reps {
		if e.ctx.Err() != nil {
			break
		}
		r, err := host.Run(e.ctx, s.w, host.Options{Limit: f.until, Seed: f.seed + uint64(rep), SkipUnsupported: *skip, KeepSignals: true})
		var me *host.MissingError
		var le *host.LimitError
		switch {
		case errors.As(err, &me):
			return usagef("the host cannot run %s: %v (-skip-unsupported runs the rest)", s.wname, err)
		case errors.As(err, &le):
			return usagef("%v", err)
		case err != nil && e.ctx.Err() == nil:
			return err
		}
		if e.ctx.Err() != nil {
			break // a run cut short by ^C is not one to compare
		}
		hc.name = r.Policy
		hc.runs = append(hc.runs, host.HostSample(r))
		skipped = r.Skipped
		loads = append(loads, r.Load)
	}
	if len(hc.runs) > 0 {
		cols = append(cols, hc)
	}
	var cells []*cell
	if !*noModel && e.ctx.Err() == nil {
		cells = runCells(e.ctx, s, *reps, 0, false, nil)
		for p, rs := range byPolicy(s, cells) {
			c := column{name: s.policies[p].name + " (model)"}
			for _, r := range rs {
				c.runs = append(c.runs, host.SimSample(r))
			}
			if len(c.runs) > 0 {
				cols = append(cols, c)
			}
		}
	}
	if len(cols) > 0 {
		if err := writeColumns(e.stdout, cols); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "\nThe host's columns are what its kernel did (%d run(s) of %v, medians); the model's are simulated on -topology host (%s).\n",
			len(hc.runs), time.Duration(f.until), s.topo)
		for i, l := range loads {
			fmt.Fprintf(e.stdout, "host run %d: load average %.2f at the start, %.2f at the end (other work on the machine takes CPU from the workload).\n", i, l[0], l[1])
		}
		for _, m := range skipped {
			fmt.Fprintf(e.stdout, "left out on the host: %s\n", m)
		}
	}
	if e.ctx.Err() != nil {
		return fmt.Errorf("interrupted: %d of %d host runs finished; the table shows them", len(hc.runs), *reps)
	}
	for _, c := range cells {
		if c.err != nil {
			return c.err
		}
	}
	return nil
}
