package scenario_test

import (
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
	//
	// -    policy    seed  ours       seed ratio  ours ratio  verdict
	// CFS  cfs:v6.5  -     90.3 ± 0   -           -
	// ULE  ule:main  -     50.87 ± 0  -           0.56×       0.56× (no published figure)
}
