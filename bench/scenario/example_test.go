package scenario_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// A user's own scenario in a few lines: a nice 0 and a nice N hog on one CPU, the nice 0 hog's
// share under two policies, compared with Student's t over five seeded runs.
func Example() {
	s := &scenario.Scenario{
		Name:   "my-nice",
		Title:  "share of a nice 0 hog beside a nice N hog",
		Params: []scenario.Param{{Name: "nice", Default: 10, Min: 0, Max: 19, Integer: true}},
		Rows: []scenario.Row{
			{Label: "CFS", Policy: "cfs:v6.5"},
			{Label: "ULE", Policy: "ule:main", Baseline: "CFS"},
		},
		Metrics: []scenario.Metric{{Name: "share", Unit: "%", Of: func(r *sim.Result, _ *scenario.Setup) float64 {
			return 100 * r.Threads[0].Share()
		}}},
		Build: func(v scenario.Values, _ *scenario.Row) (scenario.Setup, error) {
			hog := []workload.Op{workload.RunOp(workload.Unbounded())}
			w := &workload.Workload{Threads: []workload.Thread{{Name: "a", Ops: hog}, {Name: "b", Nice: int(v["nice"]), Ops: hog}}}
			return scenario.Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), StatHz: 127},
				Workload: w, Until: 5 * time.Second}, nil
		},
		Reps: 5,
	}
	rep, err := scenario.Run(s, scenario.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep.WriteTable(os.Stdout)
	// Output:
	// my-nice: share of a nice 0 hog beside a nice N hog
	// share (%): mean ± 95% half-width of the mean over 5 seeded runs; ratios to the row's baseline
	// -: no figure (the seed gives none for the row, or the row has no baseline to divide by)
	// machine profile ci (measured 2026-12-07): the costs between a decision and its effect
	//
	// -    policy    seed  ours       seed ratio  ours ratio  verdict
	// CFS  cfs:v6.5  -     90.3 ± 0   -           -           baseline
	// ULE  ule:main  -     50.87 ± 0  -           0.56×       no figure (ours: 0.56×)
}

// Judging a figure of ours against a seed's: seed 000's stock ULE was 20.05× slower beside
// the hog; 1.84× is the right direction but far from the size, 17× is within the band, and
// no difference at all is a miss.
func ExampleJudge() {
	for _, ours := range []struct {
		ratio       float64
		significant bool
	}{{1.84, true}, {17, true}, {1, false}} {
		v := scenario.Judge(scenario.Evidence{Seed: 907.07 / 45.23, HasSeed: true, Ratio: true,
			Ours: ours.ratio, Tested: true, Significant: ours.significant})
		fmt.Println(v)
	}
	fmt.Printf("band around 20.05×: ×/÷ %.2f\n", scenario.Band(20.05))
	// Output:
	// direction only: ours 1.84× vs seed 20.05×
	// reproduced
	// not reproduced: seed 20.05×, ours no difference
	// band around 20.05×: ×/÷ 1.25
}

// The summary of seed 003's claims, at the small size: its exact levels match.
func ExampleWriteSummary() {
	s, _ := scenario.Lookup("seed003-posix")
	rep, err := scenario.Run(s, scenario.Options{Small: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	scenario.WriteSummary(os.Stdout, []*scenario.Report{rep})
	// Output:
	// seed  claim                                                    seed's     ours       verdict
	// 003   64 queues keep 8 of rtprio's 32 levels apart (ULE 2024)  8 levels   8 levels   matches
	// 003   … and 4BSD 14                                            8 levels   8 levels   matches
	// 003   256 queues keep all 32 (ULE main)                        32 levels  32 levels  matches
	//
	// 3 claims: 3 matches.
	// machine profile ci (measured 2026-12-07): the costs between a decision and its effect.
}

// A registered seed scenario at its small size: the verdict of one row and the expectations
// the tests check.
func ExampleLookup() {
	s, err := scenario.Lookup("seed003-posix")
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := scenario.Run(s, scenario.Options{Small: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range rep.Check() {
		fmt.Println(o)
	}
	// Output:
	// legacy ULE keeps 8 of the 32 levels apart: ULE 2024 (legacy, 64 queues) = 8, want 8..8: holds
	// main ULE keeps all 32: ULE main (256 queues) = 32, want 32..32: holds
	// 4BSD on 64 queues conflates too: 4BSD 14 (64 queues) = 8, want 8..8: holds
}

// Shards of a plan, run separately and merged from their JSON lines, give the single run's
// report.
func ExamplePlan_Shard() {
	s, _ := scenario.Lookup("seed000-nice")
	o := scenario.Options{Small: true, Reps: 2}
	pl, _ := scenario.NewPlan(s, o)
	var lines bytes.Buffer
	for k := range 3 {
		idx, _ := pl.Shard(k, 3)
		res, _ := pl.Run(idx, o)
		_ = scenario.WriteJSONL(&lines, res)
	}
	all, _ := scenario.ReadJSONL(&lines)
	rep, err := pl.Merge(all)
	fmt.Println(len(pl.Cells), "cells,", len(all), "results, merge error:", err)
	v := rep.Summary(0, 0, 0)
	fmt.Printf("%s: nice 0 share %.1f %%\n", s.Rows[0].Label, v.Mean)
	// Output:
	// 12 cells, 12 results, merge error: <nil>
	// ULE 2023 (legacy): nice 0 share 53.9 %
}

// The calibration behind seed000-pipeline, measured from the real tar and gzip.
func ExamplePipeline() {
	c := scenario.Pipeline()
	fmt.Println(c.RecordBytes, "bytes per tar record; gzip costs more than tar per record:", c.GzipNsPerRec > c.TarNsPerRec)
	// Output: 10240 bytes per tar record; gzip costs more than tar per record: true
}

// The one syntax of parameters on a command line: -grid NAME=V1,V2,… and -set NAME=VALUE,
// each repeatable, as flag values.
func ExampleGridFlag() {
	grid, set := scenario.GridFlag{}, scenario.SetFlag{}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.Var(grid, "grid", "sweep NAME=V1,V2,…")
	fs.Var(set, "set", "fix NAME=VALUE")
	err := fs.Parse([]string{"-grid", "nice=0,10,20", "-grid", "seconds=5,10", "-set", "seconds=2"})
	fmt.Println(err, grid, set)
	_, _, err = scenario.ParseGrid("nice=1,x")
	fmt.Println(err)
	// Output:
	// <nil> nice=0,10,20 seconds=5,10 seconds=2
	// nice: "x" is not a number
}

// Setup.SwitchExtra charges every context switch of a row more CPU than the machine profile
// measured: here two threads hand a token back and forth 1,000 times on one CPU, about two
// switches a hand-over, and the row whose kernel is said to spend 10 µs more on each switch
// takes about 20 ms more.
func ExampleSetup_switchExtra() {
	s := &scenario.Scenario{
		Name:  "switch-cost",
		Title: "a ping-pong on one CPU, with and without 10 µs more per switch",
		Rows: []scenario.Row{
			{Label: "profile", Policy: "cfs:v6.5"},
			{Label: "+10 µs", Policy: "cfs:v6.5", Baseline: "profile"},
		},
		Metrics: []scenario.Metric{{Name: "time", Unit: "ms", Of: func(r *sim.Result, _ *scenario.Setup) float64 {
			return float64(r.End) / 1e6
		}}},
		Build: func(_ scenario.Values, row *scenario.Row) (scenario.Setup, error) {
			work := workload.RunOp(workload.Fixed(workload.Duration(5 * time.Microsecond)))
			w := &workload.Workload{
				Pipes: []workload.Pipe{{Name: "ping"}, {Name: "pong"}},
				Threads: []workload.Thread{
					{Name: "a", Ops: []workload.Op{workload.RepeatOp(1000, work, workload.SendOp("ping", 1), workload.RecvOp("pong", 1))}},
					{Name: "b", Ops: []workload.Op{workload.RepeatOp(1000, workload.RecvOp("ping", 1), work, workload.SendOp("pong", 1))}},
				},
			}
			setup := scenario.Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, Workload: w,
				Until: time.Second, StopWhenExited: []string{"a", "b"}}
			if row.Label == "+10 µs" {
				setup.SwitchExtra = 10 * time.Microsecond
			}
			return setup, nil
		},
		Reps: 3,
	}
	rep, err := scenario.Run(s, scenario.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep.WriteTable(os.Stdout)
	// Output:
	// switch-cost: a ping-pong on one CPU, with and without 10 µs more per switch
	// time (ms): mean ± 95% half-width of the mean over 3 seeded runs; ratios to the row's baseline
	// -: no figure (the seed gives none for the row, or the row has no baseline to divide by)
	// machine profile ci (measured 2026-12-07): the costs between a decision and its effect
	//
	// -        policy    seed  ours            seed ratio  ours ratio  verdict
	// profile  cfs:v6.5  -     15.65 ± 0.2194  -           -           baseline
	// +10 µs   cfs:v6.5  -     36.08 ± 0.285   -           2.31×       no figure (ours: 2.31×)
}
