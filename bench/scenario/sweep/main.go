// Command sweep runs a scenario, or one shard of it, and merges shards: the smallest front end
// of package scenario, for batch systems (see ../SHARDING.md).
//
//	go run ./bench/scenario/sweep -scenario seed000-pipeline                  # the table
//	go run ./bench/scenario/sweep -scenario seed000-pipeline -shard 2/8 > s2.jsonl
//	go run ./bench/scenario/sweep -scenario seed000-pipeline -merge s*.jsonl  # the same table
//
// Every invocation of one sweep must give the same -scenario, -reps, -small, -set and -grid:
// they define the plan, whose cells the shards split. -set NAME=VALUE and -grid NAME=V1,V2,…
// are repeatable, in the syntax of schedbench sweep. -list prints the scenarios.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/scenario"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sweep:", err)
		os.Exit(2)
	}
}

// run is the command with its arguments and outputs.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("scenario", "", "scenario to run (see -list)")
	list := fs.Bool("list", false, "list the scenarios")
	reps := fs.Int("reps", 0, "seeded repetitions per cell (0: the scenario's)")
	small := fs.Bool("small", false, "the scenario's small size")
	set, grid := scenario.SetFlag{}, scenario.GridFlag{}
	fs.Var(set, "set", "fix a parameter, NAME=VALUE (repeatable)")
	fs.Var(grid, "grid", "sweep a parameter over values, NAME=V1,V2,… (repeatable: the grid is every combination)")
	shard := fs.String("shard", "", "run only shard K/N (K from 0) and write its results as JSON lines")
	merge := fs.Bool("merge", false, "merge the JSON-lines files given as arguments and print the table")
	workers := fs.Int("workers", 0, "goroutines (0: all cores)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *list {
		for _, n := range scenario.Names() {
			s, _ := scenario.Lookup(n)
			fmt.Fprintf(stdout, "%-22s %s\n", n, s.Title)
		}
		return nil
	}
	s, err := scenario.Lookup(*name)
	if err != nil {
		return err
	}
	o := scenario.Options{Reps: *reps, Small: *small, Workers: *workers, Set: scenario.Values(set)}
	if len(grid) > 0 {
		o.Grid = grid
	}
	pl, err := scenario.NewPlan(s, o)
	if err != nil {
		return err
	}
	switch {
	case *merge:
		return mergeFiles(pl, fs.Args(), stdout)
	case *shard != "":
		return runShard(pl, o, *shard, stdout)
	default:
		res, err := pl.Run(pl.All(), o)
		if err != nil {
			return err
		}
		rep, err := pl.Merge(res)
		if err != nil {
			return err
		}
		return rep.WriteTable(stdout)
	}
}

// mergeFiles reads the JSON-lines results of files, merges them into pl's report and writes its
// table.
func mergeFiles(pl *scenario.Plan, files []string, stdout io.Writer) error {
	var all []scenario.CellResult
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			return err
		}
		rs, err := scenario.ReadJSONL(r)
		r.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		all = append(all, rs...)
	}
	rep, err := pl.Merge(all)
	if err != nil {
		return err
	}
	return rep.WriteTable(stdout)
}

// runShard runs shard K/N of pl and writes its results as JSON lines.
func runShard(pl *scenario.Plan, o scenario.Options, shard string, stdout io.Writer) error {
	ks, ns, ok := strings.Cut(shard, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("-shard %q: want K/N", shard)
	}
	idx, err := pl.Shard(k, n)
	if err != nil {
		return err
	}
	res, err := pl.Run(idx, o)
	if err != nil {
		return err
	}
	return scenario.WriteJSONL(stdout, res)
}
