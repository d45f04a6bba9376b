package scenario_test

import (
	"context"
	"errors"
	"sync/atomic"
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

// hogScenario is a scenario of reps cells, each two hogs on one CPU for until; built counts the
// cells that started.
func hogScenario(reps int, until time.Duration, built *atomic.Int64) *scenario.Scenario {
	return &scenario.Scenario{
		Name:    "hogs",
		Rows:    []scenario.Row{{Label: "a", Policy: "cfs:v6.5"}},
		Metrics: []scenario.Metric{{Name: "m", Of: func(*sim.Result, *scenario.Setup) float64 { return 1 }}},
		Build: func(scenario.Values, *scenario.Row) (scenario.Setup, error) {
			built.Add(1)
			w, err := workload.Parse("thread a\n\trun forever\nend\nthread b\n\trun forever\nend\n")
			return scenario.Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, Workload: w, Until: until}, err
		},
		Reps: reps,
	}
}

// TestRunStopsAtFirstFailure: once a cell fails (here on the event bound), no further cell
// starts, so a bound every cell would reach costs the cells already running, not all of them.
func TestRunStopsAtFirstFailure(t *testing.T) {
	defer scenario.SetCellEvents(10000)()
	var built atomic.Int64
	_, err := scenario.Run(hogScenario(200, time.Hour, &built), scenario.Options{Workers: 2})
	require.ErrorContains(t, err, "more than 10000 events")
	require.LessOrEqual(t, built.Load(), int64(4), "cells started after the first failure")
}

// TestRunContext: a plan whose context ends stops within milliseconds, even in a cell that
// would run for minutes, and returns the context's cause; no cell starts after it.
func TestRunContext(t *testing.T) {
	cause := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	var built atomic.Int64
	s := hogScenario(50, 24*time.Hour, &built)
	time.AfterFunc(50*time.Millisecond, func() { cancel(cause) })
	start := time.Now()
	_, err := scenario.Run(s, scenario.Options{Workers: 2, Context: ctx})
	require.ErrorIs(t, err, cause)
	require.Less(t, time.Since(start), 20*time.Second, "a day of two hogs at 1000 Hz would take minutes")
	require.LessOrEqual(t, built.Load(), int64(2), "cells started after the context ended")
}
