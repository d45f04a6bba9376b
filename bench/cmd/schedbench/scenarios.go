package main

// This file implements what seeds, sweep and merge share: choosing scenarios, parsing -set and
// -grid, and running a plan's cells in batches so that ^C stops between them.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/scenario"
)

// errInterrupted is returned when ^C stopped the cells: sweep's between two batches, seeds'
// wherever its pool was.
var errInterrupted = errors.New("interrupted")

// pickScenarios returns the scenarios args name: a scenario's name, a seed number such as 000
// (every scenario of that seed), or a prefix of exactly one name such as seed000-pipe; no
// argument means all. A prefix of several names is an error listing them.
func pickScenarios(args []string) ([]*scenario.Scenario, error) {
	names := scenario.Names()
	if len(args) == 0 {
		args = names
	}
	var out []*scenario.Scenario
	for _, a := range args {
		var matched []string
		for _, n := range names {
			if s, _ := scenario.Lookup(n); n == a || s.Seed == a {
				matched = append(matched, n)
			}
		}
		if len(matched) == 0 {
			for _, n := range names {
				if strings.HasPrefix(n, a) {
					matched = append(matched, n)
				}
			}
			if len(matched) > 1 {
				hint := ""
				if s, _ := scenario.Lookup(matched[0]); s != nil && s.Seed != "" && strings.HasPrefix("seed"+s.Seed, a) {
					hint = fmt.Sprintf("; %s names all of seed %s's", s.Seed, s.Seed)
				}
				return nil, usagef("%q is the beginning of %d scenarios (%s): name one%s", a, len(matched), strings.Join(matched, ", "), hint)
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

// valuesFlag is a repeatable -set NAME=VALUE and gridFlag a repeatable -grid NAME=V1,V2,…:
// bench/scenario's syntax, which bench/scenario/sweep shares.
type (
	valuesFlag = scenario.SetFlag
	gridFlag   = scenario.GridFlag
)

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
// batches and passing it to the cells, which stop within milliseconds once it is done; step is
// called with the number of cells finished so far. On ^C it returns the results of the
// finished batches and errInterrupted.
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
		o.Context = ctx
		rs, err := pl.Run(part, o)
		if ctx.Err() != nil {
			return out, errInterrupted // the batch's cells stopped within milliseconds
		}
		if err != nil {
			return out, err
		}
		out = append(out, rs...)
	}
	return out, nil
}
