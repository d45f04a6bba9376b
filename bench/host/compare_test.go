package host

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/sim"
)

func TestVerdict(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name  string
		model float64
		host  []float64
		ratio float64
		want  string
	}{
		{"inside", 2.0, []float64{1.9, 2.1, 2.0}, 1.0, "agrees"},
		{"within tolerance", 2.2, []float64{1.9, 2.0}, 2.2 / 1.95, "agrees"},
		{"high", 3.0, []float64{1.9, 2.0, 2.1}, 1.5, "model 43% high"},
		{"low", 1.0, []float64{1.9, 2.0, 2.1}, 0.5, "model 47% low"},
		{"wide", 2.0, []float64{1.0, 2.0, 3.0}, 1.0, "inconclusive (host range 100% of its median)"},
		{"NaN runs left out", 2.0, []float64{nan, 2.0, 2.0}, 1.0, "agrees"},
		{"no host figure", 2.0, []float64{nan}, nan, "no host figure"},
		{"no model figure", nan, []float64{2.0}, nan, "no model figure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ratio, v := verdict(tc.model, tc.host, 0.1)
			require.Equal(t, tc.want, v)
			if math.IsNaN(tc.ratio) {
				require.True(t, math.IsNaN(ratio))
			} else {
				require.InDelta(t, tc.ratio, ratio, 1e-9)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	r := &sim.Result{End: 1000, Threads: []sim.ThreadStats{
		{Name: "a", Start: 0, End: 500, CPUTime: 400},
		{Name: "b", Start: 100, End: -1, CPUTime: 10},
	}}
	s := SimSample(r)
	require.Equal(t, 500.0/1e6, CompletionOf("a").Of(s))
	require.True(t, math.IsNaN(CompletionOf("b").Of(s)), "b did not exit")
	require.True(t, math.IsNaN(CompletionOf("c").Of(s)), "no thread c")
	require.Equal(t, 40.0, CPURatio("a", "b").Of(s))
	require.Equal(t, 80.0, ShareOf("a").Of(s))
	require.InDelta(t, 100*10.0/900, ShareOf("b").Of(s), 1e-9, "b's lifetime runs to the end of the run")
	require.True(t, math.IsNaN(LatencyOf("a", 99).Of(s)), "a was never woken")
}
