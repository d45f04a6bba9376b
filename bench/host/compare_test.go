package host

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
	s := &sim.Result{End: 1000, Threads: []sim.ThreadStats{
		{Name: "a", Start: 0, End: 500, CPUTime: 400},
		{Name: "b", Start: 100, End: -1, CPUTime: 10},
	}}
	s.Finish()
	require.Equal(t, 500.0/1e6, CompletionOf("a").Of(s))
	require.True(t, math.IsNaN(CompletionOf("b").Of(s)), "b did not exit")
	require.True(t, math.IsNaN(CompletionOf("c").Of(s)), "no thread c")
	require.Equal(t, 40.0, CPURatio("a", "b").Of(s))
	require.Equal(t, 80.0, ShareOf("a").Of(s))
	require.InDelta(t, 100*10.0/900, ShareOf("b").Of(s), 1e-9, "b's lifetime runs to the end of the run")
	require.True(t, math.IsNaN(LatencyOf("a", 99).Of(s)), "a was never woken")
}

// TestHostVsModel checks the t test of the host's runs against the model's on constructed
// samples. The host's five runs have mean 10 and s = √0.025, so the one-sample 95% interval of
// their mean is ±t(4) s/√5 = ±2.7764451 × 0.0707107 = ±0.19632.
func TestHostVsModel(t *testing.T) {
	nan := math.NaN()
	host := []float64{10.0, 10.2, 9.8, 10.1, 9.9}
	const hw = 2.7764451 * 0.07071068
	t.Run("clear difference, model constant", func(t *testing.T) {
		v := HostVsModel(host, []float64{12, 12, 12, 12, 12}, 95)
		require.True(t, v.Tested)
		require.True(t, v.OneSample)
		require.True(t, v.Diff.Significant)
		require.InDelta(t, 2.0, v.Diff.Delta, 1e-12, "the model's mean minus the host's")
		require.InDelta(t, 4.0, v.Diff.DF, 1e-9, "one-sample t: N-1 degrees of freedom")
		require.InDelta(t, hw, v.Diff.HalfWidth, 1e-5)
		require.Equal(t, "Difference at 95.0% confidence: 20.0% +/- 1.96%", v.String())
	})
	t.Run("no difference, model constant", func(t *testing.T) {
		// 10.15 is inside 10 ± 0.196; 10.25 would not be.
		v := HostVsModel(host, []float64{10.15, 10.15, 10.15}, 95)
		require.True(t, v.Tested && v.OneSample)
		require.False(t, v.Diff.Significant)
		require.Equal(t, "No difference proven at 95.0% confidence", v.String())
		require.True(t, HostVsModel(host, []float64{10.25}, 95).Diff.Significant, "one model run is a constant model")
	})
	t.Run("model low", func(t *testing.T) {
		v := HostVsModel(host, []float64{9}, 95)
		require.True(t, v.Diff.Significant)
		require.Equal(t, "Difference at 95.0% confidence: -10.0% +/- 1.96%", v.String())
	})
	t.Run("model varies: Welch's two-sample t", func(t *testing.T) {
		v := HostVsModel(host, []float64{9.9, 10.3, 10.1}, 95)
		require.True(t, v.Tested)
		require.False(t, v.OneSample)
		require.Equal(t, "Welch's t", v.Diff.Test.String())
		// s² = 0.025 and 0.04: ν = (0.005 + 0.04/3)² / (0.005²/4 + (0.04/3)²/2) = 3.5328...
		require.InDelta(t, 3.5328, v.Diff.DF, 1e-3)
		require.False(t, v.Diff.Significant, "a difference of 0.1 with a standard error of 0.135")
		v = HostVsModel(host, []float64{11.9, 12.3, 12.1}, 95)
		require.True(t, v.Diff.Significant)
	})
	t.Run("one repetition: no verdict possible", func(t *testing.T) {
		v := HostVsModel([]float64{10}, []float64{12}, 95)
		require.False(t, v.Tested)
		require.Equal(t, "no test (1 host run)", v.String())
		require.Equal(t, "no test (1 host run)", HostVsModel([]float64{nan, 10, nan}, []float64{12}, 95).String(),
			"runs without a figure do not count")
		require.Equal(t, "no test (no host run)", HostVsModel(nil, []float64{12}, 95).String())
	})
	t.Run("zero value", func(t *testing.T) {
		require.Equal(t, "-", StatVerdict{}.String(), "a Row built without a test")
	})
	t.Run("no model figure", func(t *testing.T) {
		require.Equal(t, "no test (no model figure)", HostVsModel(host, []float64{nan, nan}, 95).String())
		require.Equal(t, "no test (no model figure)", HostVsModel(host, nil, 95).String())
	})
	t.Run("constant host", func(t *testing.T) {
		// No spread on either side: any difference of the means is real, none is none.
		require.Equal(t, "No difference proven at 95.0% confidence", HostVsModel([]float64{3, 3, 3}, []float64{3}, 95).String())
		require.Equal(t, "Difference at 95.0% confidence: 33.3% +/- 0.00%", HostVsModel([]float64{3, 3, 3}, []float64{4}, 95).String())
		// A host mean of 0 has no relative difference: the absolute one.
		require.Equal(t, "Difference at 95.0% confidence: 1.00 +/- 0.00", HostVsModel([]float64{0, 0}, []float64{1}, 95).String())
	})
	t.Run("confidence", func(t *testing.T) {
		// 10.19 is inside the 95% interval and outside the 80% one (t(4) = 1.5332: ±0.108).
		require.False(t, HostVsModel(host, []float64{10.19}, 95).Diff.Significant)
		require.True(t, HostVsModel(host, []float64{10.19}, 80).Diff.Significant)
	})
}

// TestWriteRowsStat checks that the table prints the t test beside the ratio and the range
// verdict, and says what it compared.
func TestWriteRowsStat(t *testing.T) {
	host := []float64{10.0, 10.2, 9.8, 10.1, 9.9}
	rows := []Row{{Experiment: "e", Metric: "m", Host: host, Nearest: "cfs:v7.1",
		Models: []ModelFigure{{"cfs:v7.1", 12}}, ModelRuns: []float64{12, 12, 12, 12, 12}, Load: [2]float64{1, 2}}}
	rows[0].Ratio, rows[0].Verdict = verdict(12, host, 0.1)
	rows[0].Stat = HostVsModel(host, rows[0].ModelRuns, 95)
	var b strings.Builder
	require.NoError(t, WriteRows(&b, rows))
	lines := strings.Split(b.String(), "\n")
	require.Regexp(t, `model/host +verdict +goal +t test$`, lines[0])
	require.Regexp(t, `1\.00-2\.00 busy .* 1\.20 +model 18% high +- +Difference at 95\.0% confidence: 20\.0% \+/- 1\.96%$`, lines[1])
	require.Contains(t, b.String(), "(t test: Welch's t")
	require.Contains(t, b.String(), "(busy: 1 row(s)")
	// A row with a goal says whether it meets it.
	rows[0].Goal, rows[0].Meets = GoalP99, true
	b.Reset()
	require.NoError(t, WriteRows(&b, rows))
	require.Contains(t, b.String(), "meets ×/÷2")
	rows[0].Meets = false
	b.Reset()
	require.NoError(t, WriteRows(&b, rows))
	require.Contains(t, b.String(), "misses ×/÷2")
}

func TestGoals(t *testing.T) {
	for _, tc := range []struct {
		g     Goal
		ratio float64
		meets bool
	}{{GoalP50, 1.25, true}, {GoalP50, 1.26, false}, {GoalP50, 0.75, true}, {GoalP50, 0.74, false},
		{GoalP99, 2, true}, {GoalP99, 0.49, false}, {GoalTime, 1.15, true}, {GoalTime, 0.84, false},
		{GoalThroughput, 1.1, true}, {GoalThroughput, 1.11, false}} {
		require.Equal(t, tc.meets, tc.g.Meets(tc.ratio), "%s at %v", tc.g.Name, tc.ratio)
	}
	require.Equal(t, GoalP50, goalFor(50))
	require.Equal(t, GoalP99, goalFor(99))
}

// TestOtherMachine: the host table names a profile measured on another kernel release or CPU
// count than the running machine's, and says nothing for this machine's or the ideal profile.
func TestOtherMachine(t *testing.T) {
	ci := sim.DefaultProfile()
	kernel, cpus := ci.Machine.Kernel, ci.Machine.CPUs
	require.NotEmpty(t, kernel)
	assert.Empty(t, otherMachine(ci, kernel, cpus))
	assert.Empty(t, otherMachine(sim.IdealProfile(), "6.1.0", 64))
	line := otherMachine(ci, kernel+"-other", cpus)
	assert.Contains(t, line, "profile ci (measured")
	assert.Contains(t, line, "(kernel "+kernel+", 2 CPUs) than this one (kernel "+kernel+"-other, 2 CPUs)")
	assert.NotEmpty(t, otherMachine(ci, kernel, cpus*2))
}
