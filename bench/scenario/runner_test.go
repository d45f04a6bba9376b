package scenario_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// TestCellEventBound: a cell that would simulate more events than the bound is an error naming
// it, not a run without end; one within it runs.
func TestCellEventBound(t *testing.T) {
	defer scenario.SetCellEvents(10000)()
	for _, tc := range []struct {
		until time.Duration
		ok    bool
	}{{time.Millisecond, true}, {time.Hour, false}} {
		s := &scenario.Scenario{
			Name:    "bounded",
			Rows:    []scenario.Row{{Label: "a", Policy: "cfs:v6.5"}},
			Metrics: []scenario.Metric{{Name: "m", Of: func(*sim.Result, *scenario.Setup) float64 { return 1 }}},
			Build: func(scenario.Values, *scenario.Row) (scenario.Setup, error) {
				w, err := workload.Parse("thread a\n\trun forever\nend\nthread b\n\trun forever\nend\n")
				return scenario.Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, Workload: w, Until: tc.until}, err
			},
			Reps: 1,
		}
		_, err := scenario.Run(s, scenario.Options{})
		if tc.ok {
			require.NoError(t, err)
		} else {
			require.ErrorContains(t, err, "more than 10000 events, the bound of one cell's work")
		}
	}
}
