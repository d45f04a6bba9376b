package host_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// TestCompareRounds checks that Compare measures the host a round at a time: the first
// repetition of every experiment, then the second, so that a slow spell of the machine lands
// on one repetition of several rows rather than on all of one row's; that each row's figures
// are its own, in the order measured, with the repetition's seed; and that a failing host
// measurement stops the table with the experiment's name.
func TestCompareRounds(t *testing.T) {
	var order []string
	exp := func(name string) host.Experiment {
		e := host.ProbeAloneExperiment(0, 5, 0.5)
		e.Name = name
		e.HostFigure = func(_ context.Context, o host.Options) (float64, error) {
			order = append(order, fmt.Sprintf("%s/%d", name, o.Seed))
			return float64(len(order)), nil
		}
		return e
	}
	exps := []host.Experiment{exp("a"), exp("b"), exp("c")}
	o := host.CompareOptions{Reps: 3, Seed: 10, Topology: topology.Uniform(1, 1, 1, 2, 1), Release: "6.18.0",
		Policies: []string{}, Profile: sim.IdealProfile()}
	rows, err := host.Compare(context.Background(), exps, o)
	require.NoError(t, err)
	require.Equal(t, []string{"a/10", "b/10", "c/10", "a/11", "b/11", "c/11", "a/12", "b/12", "c/12"}, order)
	for i, r := range rows {
		require.Equal(t, exps[i].Name, r.Experiment)
		require.Equal(t, []float64{float64(i + 1), float64(i + 4), float64(i + 7)}, r.Host, r.Experiment)
		require.Len(t, r.ModelRuns, 3, r.Experiment)
	}

	order = nil
	exps[1].HostFigure = func(context.Context, host.Options) (float64, error) { return 0, fmt.Errorf("no perf") }
	_, err = host.Compare(context.Background(), exps, o)
	require.EqualError(t, err, "b: no perf")
	require.Equal(t, []string{"a/10"}, order, "the table stops at the first failing measurement")
}
