// Command sweep runs a scenario, or one shard of it, and merges shards: the smallest front end
// of package scenario, for batch systems (see ../SHARDING.md).
//
//	go run ./bench/scenario/sweep -scenario seed000-pipeline                  # the table
//	go run ./bench/scenario/sweep -scenario seed000-pipeline -shard 2/8 > s2.jsonl
//	go run ./bench/scenario/sweep -scenario seed000-pipeline -merge s*.jsonl  # the same table
//
// Every invocation of one sweep must give the same -scenario, -reps, -small, -set and -grid:
// they define the plan, whose cells the shards split. -list prints the scenarios.
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
	set := fs.String("set", "", "parameter values, NAME=V,NAME=V")
	grid := fs.String("grid", "", "parameters to sweep, NAME=V:V:V;NAME=V:V")
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
	o := scenario.Options{Reps: *reps, Small: *small, Workers: *workers}
	if o.Set, err = parseValues(*set); err != nil {
		return fmt.Errorf("-set: %w", err)
	}
	if *grid != "" {
		if o.Grid, err = parseGrid(*grid); err != nil {
			return fmt.Errorf("-grid: %w", err)
		}
	}
	pl, err := scenario.NewPlan(s, o)
	if err != nil {
		return err
	}
	switch {
	case *merge:
		var all []scenario.CellResult
		for _, f := range fs.Args() {
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
	case *shard != "":
		ks, ns, ok := strings.Cut(*shard, "/")
		k, err1 := strconv.Atoi(ks)
		n, err2 := strconv.Atoi(ns)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("-shard %q: want K/N", *shard)
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

// parseValues reads NAME=V,NAME=V.
func parseValues(s string) (scenario.Values, error) {
	v := scenario.Values{}
	if s == "" {
		return v, nil
	}
	for i, kv := range strings.Split(s, ",") {
		k, x, ok := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(x, 64)
		if !ok || k == "" || err != nil {
			return nil, fmt.Errorf("item %d %q: want NAME=NUMBER", i+1, kv)
		}
		v[k] = f
	}
	return v, nil
}

// parseGrid reads NAME=V:V;NAME=V.
func parseGrid(s string) (map[string][]float64, error) {
	g := map[string][]float64{}
	for i, item := range strings.Split(s, ";") {
		k, xs, ok := strings.Cut(item, "=")
		if !ok || k == "" || xs == "" {
			return nil, fmt.Errorf("item %d %q: want NAME=V:V", i+1, item)
		}
		if _, dup := g[k]; dup {
			return nil, fmt.Errorf("item %d: %s given twice", i+1, k)
		}
		for _, x := range strings.Split(xs, ":") {
			f, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return nil, fmt.Errorf("item %d %q: %q is not a number", i+1, item, x)
			}
			g[k] = append(g[k], f)
		}
	}
	return g, nil
}
