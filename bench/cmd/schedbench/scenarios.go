package main

// This file implements what seeds, sweep and merge share: choosing scenarios, parsing -set and
// -grid, and running a plan's cells in batches so that ^C stops between them.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/scenario"
)

// errInterrupted is returned when ^C stopped a plan between two batches of cells.
var errInterrupted = errors.New("interrupted")

// pickScenarios returns the scenarios args name: a scenario's name, a seed number such as 000
// (every scenario of that seed), or a prefix such as seed000; no argument means all.
func pickScenarios(args []string) ([]*scenario.Scenario, error) {
	names := scenario.Names()
	if len(args) == 0 {
		args = names
	}
	var out []*scenario.Scenario
	for _, a := range args {
		var matched []string
		for _, n := range names {
			s, _ := scenario.Lookup(n)
			if n == a || s.Seed == a || strings.HasPrefix(n, a) {
				matched = append(matched, n)
			}
		}
		if len(matched) == 0 {
			return nil, usagef("no scenario %q (known: %s; or a seed number such as 000)", a, strings.Join(names, ", "))
		}
		for _, n := range matched {
			s, _ := scenario.Lookup(n)
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// valuesFlag is a repeatable -set NAME=VALUE.
type valuesFlag map[string]float64

func (v valuesFlag) String() string {
	var parts []string
	for k, x := range v {
		parts = append(parts, k+"="+strconv.FormatFloat(x, 'g', -1, 64))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (v valuesFlag) Set(s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", s)
	}
	x, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return fmt.Errorf("%s=%s: not a number", name, val)
	}
	if _, dup := v[name]; dup {
		return fmt.Errorf("%s is set twice", name)
	}
	v[name] = x
	return nil
}

// gridFlag is a repeatable -grid NAME=V1,V2,….
type gridFlag map[string][]float64

func (g gridFlag) String() string {
	var parts []string
	for k, xs := range g {
		var vs []string
		for _, x := range xs {
			vs = append(vs, strconv.FormatFloat(x, 'g', -1, 64))
		}
		parts = append(parts, k+"="+strings.Join(vs, ","))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func (g gridFlag) Set(s string) error {
	name, list, ok := strings.Cut(s, "=")
	if !ok || name == "" || list == "" {
		return fmt.Errorf("want NAME=V1,V2,…, got %q", s)
	}
	if _, dup := g[name]; dup {
		return fmt.Errorf("%s is swept twice", name)
	}
	for _, f := range strings.Split(list, ",") {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", name, f)
		}
		g[name] = append(g[name], x)
	}
	return nil
}

// parseShard parses -shard k/n, 0 <= k < n.
func parseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return 0, 0, usagef("-shard %q: want k/n, such as 0/4", s)
	case n < 1 || k < 0 || k >= n:
		return 0, 0, usagef("-shard %s: shard k of n needs 0 <= k < n", s)
	}
	return k, n, nil
}

// runPlan runs the cells idx of pl in batches of a few per worker, checking ctx between
// batches; step is called with the number of cells finished so far. On ^C it returns the
// results of the finished batches and errInterrupted.
func runPlan(ctx context.Context, pl *scenario.Plan, idx []int, o scenario.Options, step func(done int)) ([]scenario.CellResult, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	batch := 4 * workers
	var out []scenario.CellResult
	for i := 0; i < len(idx); i += batch {
		if ctx.Err() != nil {
			return out, errInterrupted
		}
		part := idx[i:min(i+batch, len(idx))]
		base := len(out)
		o.Progress = func(done, _ int) { step(base + done) }
		rs, err := pl.Run(part, o)
		if err != nil {
			return out, err
		}
		out = append(out, rs...)
	}
	return out, nil
}
