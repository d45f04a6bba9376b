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

// TestAddCost: Setup.SwitchExtra shifts every quantile a cost has by the extra, leaves the
// optional P995 and P999 absent where they are, and turns the zero cost into a fixed one.
func TestAddCost(t *testing.T) {
	us := time.Microsecond
	for _, tc := range []struct {
		name    string
		in, out sim.Cost
	}{
		{"zero extra", sim.Cost{Min: 1, P50: 2, P90: 3, P99: 4, Max: 5}, sim.Cost{Min: 1, P50: 2, P90: 3, P99: 4, Max: 5}},
		{"zero cost", sim.Cost{}, sim.Fixed(us)},
		{"five quantiles", sim.Cost{Min: 1, P50: 2, P90: 3, P99: 4, Max: 5}, sim.Cost{Min: 1 + us, P50: 2 + us, P90: 3 + us, P99: 4 + us, Max: 5 + us}},
		{"with P999", sim.Cost{Min: 1, P50: 2, P90: 3, P99: 4, P999: 6, Max: 7}, sim.Cost{Min: 1 + us, P50: 2 + us, P90: 3 + us, P99: 4 + us, P999: 6 + us, Max: 7 + us}},
		{"with P995 and P999", sim.Cost{Min: 1, P50: 2, P90: 3, P99: 4, P995: 5, P999: 6, Max: 7},
			sim.Cost{Min: 1 + us, P50: 2 + us, P90: 3 + us, P99: 4 + us, P995: 5 + us, P999: 6 + us, Max: 7 + us}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			extra := us
			if tc.name == "zero extra" {
				extra = 0
			}
			require.Equal(t, tc.out, scenario.AddCost(tc.in, extra))
		})
	}
}

// TestSwitchExtra: the runner charges a Setup's SwitchExtra on every context switch it charges,
// over the profile's Switch (nothing here: the ideal profile).
func TestSwitchExtra(t *testing.T) {
	for _, extra := range []time.Duration{0, 7 * time.Microsecond} {
		var switches, got float64
		s := &scenario.Scenario{
			Name: "switches",
			Rows: []scenario.Row{{Label: "a", Policy: "cfs:v6.5"}},
			Metrics: []scenario.Metric{{Name: "switch time", Of: func(r *sim.Result, _ *scenario.Setup) float64 {
				switches, got = float64(r.CPUs[0].Switches), float64(r.CPUs[0].Switch)
				return got
			}}},
			Build: func(scenario.Values, *scenario.Row) (scenario.Setup, error) {
				w, err := workload.Parse("thread a\n\trun forever\nend\nthread b\n\trun forever\nend\n")
				return scenario.Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, Workload: w,
					Until: 200 * time.Millisecond, SwitchExtra: extra}, err
			},
			Reps: 1,
		}
		_, err := scenario.Run(s, scenario.Options{Profile: sim.IdealProfile()})
		require.NoError(t, err)
		require.Greater(t, switches, 10.0, "two hogs on one CPU switch at every slice")
		// Every switch between the hogs is charged; the first, from the idle loop, too.
		require.InDelta(t, switches*float64(extra), got, float64(extra), "extra %v", extra)
	}
}
