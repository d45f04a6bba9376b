package scenario_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ratio is the evidence of a ratio claim: the seed's figure and significance, ours and
// whether our test found it significant.
func ratio(seed float64, sig scenario.Significance, ours float64, significant bool) scenario.Evidence {
	return scenario.Evidence{Seed: seed, HasSeed: true, Ratio: true, SeedSig: sig, Ours: ours, Tested: true, Significant: significant}
}

// TestJudge checks each rule of the verdicts on constructed cases, among them every example
// of issue 25.
func TestJudge(t *testing.T) {
	atLeast := func(e scenario.Evidence) scenario.Evidence { e.AtLeast = true; return e }
	cases := []struct {
		name string
		e    scenario.Evidence
		want scenario.Kind
	}{
		// Issue 25's examples.
		{"seed 000 pipeline, stock ULE: 1.84× vs 20.05×", ratio(907.07/45.23, scenario.SigUnknown, 1.84, true), scenario.DirectionOnly},
		{"seed 000 pipeline, the fix against its baseline: 1.84× vs 1.36×", ratio(61.46/45.23, scenario.SigUnknown, 1.84, true), scenario.DirectionOnly},
		{"seed 000 pipeline, the fix against stock ULE: 1.0001× (significant, all runs alike) vs 0.068×", ratio(61.46/907.07, scenario.SigUnknown, 1.0001, true), scenario.NotReproduced},
		{"seed 000 pipeline, the fix against stock ULE: no difference vs 0.068×", ratio(61.46/907.07, scenario.SigUnknown, 1.0, false), scenario.NotReproduced},
		{"seed 000 buildkernel: 2.61× vs over 8.57×", atLeast(ratio(60.0/7, scenario.SigUnknown, 2.61, true)), scenario.DirectionOnly},
		{"seed 001 Kargl N=6: 1.09× vs 2.81×", ratio(627.56/223.27, scenario.SigUnknown, 1.09, true), scenario.DirectionOnly},
		{"seed 001 Kargl N=8: none vs 1.92×", ratio(429.45/223.27, scenario.SigUnknown, 1.0, false), scenario.NotReproduced},
		{"seed 002 PREEMPTION: none vs 1.31×", ratio(168.53/128.57, scenario.SigUnknown, 1.0, false), scenario.NotReproduced},
		{"seed 004 tbench, 1 client: none vs 0.33× (mmtests '*')", ratio(0.24/0.73, scenario.SigShown, 1.0, false), scenario.NotReproduced},
		{"seed 004 tbench, 8 clients: none vs 0.80× (mmtests '*')", ratio(0.82/1.03, scenario.SigShown, 1.0, false), scenario.NotReproduced},
		// Reproduced.
		{"EEVDF nice 0 hog: 2.00× vs 2.02×", ratio(2.02, scenario.SigUnknown, 2.00, true), scenario.Reproduced},
		{"a small effect within 5 %: 1.01× vs 1.02×", ratio(1.02, scenario.SigUnknown, 1.01, true), scenario.Reproduced},
		{"within a quarter of a large effect: 17× vs 20×", ratio(20, scenario.SigUnknown, 17, true), scenario.Reproduced},
		{"a lower bound exceeded: 12× vs over 8.57×", atLeast(ratio(60.0/7, scenario.SigUnknown, 12, true)), scenario.Reproduced},
		{"neither shows an effect: no difference vs 1.00× (no mmtests '*')", ratio(113.2967/113.1667, scenario.SigNone, 0.99, false), scenario.Reproduced},
		{"the seed's small effect without a test, ours none: 0.97×", ratio(0.97, scenario.SigUnknown, 1.0, false), scenario.Reproduced},
		{"the seed's 0.27 % shown by ministat, ours 0.3 % significant", ratio(436.85/435.67, scenario.SigShown, 1.003, true), scenario.Reproduced},
		{"the seed's 0.27 % shown by ministat, ours 0.16 % significant (over half of it)", ratio(436.85/435.67, scenario.SigShown, 1.0016, true), scenario.Reproduced},
		// The band stops halfway to no effect where the seed showed one.
		{"the seed's 4.7 % shown by ministat, ours 0.01 % significant", ratio(105.29/110.52, scenario.SigShown, 0.9999, true), scenario.NotReproduced},
		{"the seed's 0.68 % shown by ministat, ours 0.17 % significant", ratio(438.62/435.67, scenario.SigShown, 1.0017, true), scenario.NotReproduced},
		{"the seed's 4.7 % shown by ministat, ours 2 % significant", ratio(105.29/110.52, scenario.SigShown, 0.98, true), scenario.DirectionOnly},
		// Significant where the seed's is.
		{"the seed's 0.27 % shown by ministat, ours no difference", ratio(436.85/435.67, scenario.SigShown, 1.0, false), scenario.NotReproduced},
		{"the seed's 4.7 % shown by ministat, ours no difference", ratio(105.29/110.52, scenario.SigShown, 1.0, false), scenario.NotReproduced},
		// Direction only, opposite, and an effect the seed did not show.
		{"same direction, far smaller: 1.10× vs 1.81×", ratio(1.81, scenario.SigUnknown, 1.10, true), scenario.DirectionOnly},
		{"same direction, far larger: 3× vs 1.36×", ratio(1.36, scenario.SigUnknown, 3, true), scenario.DirectionOnly},
		{"the other way: 1.5× vs 0.33× (mmtests '*')", ratio(0.33, scenario.SigShown, 1.5, true), scenario.Opposite},
		{"the other way: 0.8× vs 1.31×", ratio(1.31, scenario.SigUnknown, 0.8, true), scenario.Opposite},
		{"the seed showed none (no '*'), ours 15 %", ratio(1.0, scenario.SigNone, 1.15, true), scenario.NotReproduced},
		{"the seed showed none (no '*', 8 %), ours 50 % the same way", ratio(1.08, scenario.SigNone, 1.5, true), scenario.NotReproduced},
		{"the seed's 3 % without a test, ours 23 % the same way", ratio(0.97, scenario.SigUnknown, 0.77, true), scenario.DirectionOnly},
		// No figure, no test.
		{"no figure", scenario.Evidence{Ratio: true, Ours: 1.5, Tested: true, Significant: true}, scenario.NoFigure},
		{"one run: no test", scenario.Evidence{Seed: 2, HasSeed: true, Ratio: true, Ours: 1.5}, scenario.Untested},
		{"a baseline mean of 0: no ratio", ratio(0.19, scenario.SigUnknown, math.NaN(), false), scenario.Untested},
		// Values that are not ratios.
		{"seed 000 nice: 54 % vs about 50 %", scenario.Evidence{Seed: 50, HasSeed: true, Ours: 54.02}, scenario.Reproduced},
		{"a share 1.4 times the seed's", scenario.Evidence{Seed: 50, HasSeed: true, Ours: 70}, scenario.NotReproduced},
		{"a latency of 0 against the seed's 12 µs", scenario.Evidence{Seed: 12, HasSeed: true, Ours: 0}, scenario.NotReproduced},
		{"seed 003's exact levels: 8 in every run", scenario.Evidence{Seed: 8, HasSeed: true, Exact: true, Ours: 8, Runs: []float64{8, 8, 8}}, scenario.Matches},
		{"seed 003's exact levels: one run of 9", scenario.Evidence{Seed: 8, HasSeed: true, Exact: true, Ours: 8.5, Runs: []float64{8, 9}}, scenario.NotReproduced},
		{"an exact figure with no runs", scenario.Evidence{Seed: 8, HasSeed: true, Exact: true}, scenario.NotReproduced},
	}
	for _, c := range cases {
		v := scenario.Judge(c.e)
		assert.Equal(t, c.want, v.Kind, "%s: got %s (%s)", c.name, v.Kind, v)
	}
}

// TestBand checks the band's bounds: a quarter of the effect in log terms, between 5 % and
// 1.25×, and its edges.
func TestBand(t *testing.T) {
	assert.InDelta(t, 1.25, scenario.Band(20.05), 1e-12)
	assert.InDelta(t, 1.25, scenario.Band(1/20.05), 1e-12)
	assert.InDelta(t, math.Exp(0.25*math.Log(1.36)), scenario.Band(1.36), 1e-12)
	assert.InDelta(t, 1.05, scenario.Band(1.02), 1e-12)
	assert.InDelta(t, 1.05, scenario.Band(1), 1e-12)
	// A seed that showed an effect: the band's outer edge, away from 1×, is seed×/÷Band; its
	// inner edge is the nearer of seed÷×Band and the halfway point √seed.
	for _, seed := range []float64{0.05, 0.5, 0.95, 1.02, 1.36, 2.81, 20} {
		b := scenario.Band(seed)
		outer, inner := seed*b, max(seed/b, math.Sqrt(seed))
		if seed < 1 {
			outer, inner = seed/b, min(seed*b, math.Sqrt(seed))
		}
		for _, edge := range []struct {
			name string
			at   float64
		}{{"outer", outer}, {"inner", inner}} {
			toward := edge.at / seed // the way out of the band at this edge
			in := scenario.Judge(ratio(seed, scenario.SigShown, seed*math.Pow(toward, 1-1e-9), true))
			out := scenario.Judge(ratio(seed, scenario.SigShown, seed*math.Pow(toward, 1.001), true))
			assert.Equal(t, scenario.Reproduced, in.Kind, "seed %g: just inside the %s edge", seed, edge.name)
			assert.NotEqual(t, scenario.Reproduced, out.Kind, "seed %g: just outside the %s edge", seed, edge.name)
		}
	}
	// A seed that showed none: ±Band around it, 1× included.
	for _, seed := range []float64{0.97, 1, 1.02} {
		b := scenario.Band(seed)
		for _, edge := range []float64{b, 1 / b} {
			in := scenario.Judge(ratio(seed, scenario.SigNone, seed*math.Pow(edge, 1-1e-9), true))
			out := scenario.Judge(ratio(seed, scenario.SigNone, seed*math.Pow(edge, 1.001), true))
			assert.Equal(t, scenario.Reproduced, in.Kind, "seed %g (no effect shown): just inside ×%g", seed, edge)
			assert.NotEqual(t, scenario.Reproduced, out.Kind, "seed %g (no effect shown): just outside ×%g", seed, edge)
		}
	}
}

// TestVerdictStrings checks that a verdict that does not come out prints both figures.
func TestVerdictStrings(t *testing.T) {
	v := scenario.Judge(ratio(20.05, scenario.SigUnknown, 1.84, true))
	assert.Equal(t, "direction only: ours 1.84× vs seed 20.05×", v.String())
	v = scenario.Judge(ratio(1.92, scenario.SigUnknown, 1.0, false))
	assert.Equal(t, "not reproduced: seed 1.92×, ours no difference", v.String())
	assert.Equal(t, "1.00× n.s.", v.OursText())
	v = scenario.Judge(ratio(0.0678, scenario.SigUnknown, 1.0001, true))
	assert.Equal(t, "not reproduced: seed 0.0678×, ours 1.0001×, under 1 %", v.String())
	v = scenario.Judge(ratio(436.85/435.67, scenario.SigShown, 1.0016, true))
	assert.Equal(t, "reproduced", v.String(), "the seed showed an effect, so ours is not \"no effect, as the seed\"")
	v = scenario.Judge(ratio(113.2967/113.1667, scenario.SigNone, 0.99, false))
	assert.Equal(t, "reproduced: no effect, as the seed", v.String())
	v = scenario.Judge(atLeast(ratio(8.57, scenario.SigUnknown, 2.61, true)))
	assert.Equal(t, "≥ 8.57×", v.SeedText())
	assert.Equal(t, "baseline", scenario.Verdict{Kind: scenario.IsBaseline}.String())
}

func atLeast(e scenario.Evidence) scenario.Evidence { e.AtLeast = true; return e }

// claimScenario is a scenario whose rows' results the test sets: a baseline, a stock row
// 20× slower and a fixed row no faster, as seed 000's pipeline, with claims on both.
func claimScenario() *scenario.Scenario {
	return &scenario.Scenario{
		Name: "claims-test", Seed: "000", Title: "claims",
		Params: []scenario.Param{{Name: "hog_nice", Default: 20, Min: 0, Max: 20}},
		Rows: []scenario.Row{
			{Label: "baseline", Policy: "ule:legacy", Published: &scenario.Figure{Value: 45.23, Unit: "s"}},
			{Label: "stock", Policy: "ule:legacy", Baseline: "baseline", Published: &scenario.Figure{Value: 907.07, Unit: "s"}},
			{Label: "fix", Policy: "ule:legacy", Baseline: "baseline", Published: &scenario.Figure{Value: 61.46, Unit: "s"}},
		},
		Metrics: []scenario.Metric{{Name: "time", Unit: "s", Of: func(*sim.Result, *scenario.Setup) float64 { return 0 }}},
		Build:   func(scenario.Values, *scenario.Row) (scenario.Setup, error) { return scenario.Setup{}, nil },
		Reps:    3,
		Seeded:  scenario.Values{"hog_nice": 20},
		Claims: []scenario.Claim{
			{Text: "stock ULE", Row: "stock", Why: "gzip never sleeps"},
			{Text: "the fix", Row: "fix", Why: "gzip never sleeps"},
			{Text: "the fix against stock", Row: "fix", Versus: "stock", Why: "gzip never sleeps"},
		},
	}
}

// report runs no simulation: it merges the given repetitions of each row at each point.
func report(t *testing.T, s *scenario.Scenario, o scenario.Options, samples [][][]float64) *scenario.Report {
	t.Helper()
	pl, err := scenario.NewPlan(s, o)
	require.NoError(t, err)
	var rs []scenario.CellResult
	for _, c := range pl.Cells {
		rs = append(rs, scenario.CellResult{Scenario: s.Name, Profile: pl.Profile.Name, Cell: c.Index, Point: pl.Points[c.Point], Row: s.Rows[c.Row].Key(),
			Rep: c.Rep, Metrics: []float64{samples[c.Point][c.Row][c.Rep]}})
	}
	rp, err := pl.Merge(rs)
	require.NoError(t, err)
	return rp
}

// The pick_short row of seed 000 comes out 1.84× beside its baseline, as stock ULE does: the
// claim against its baseline is "direction only", and the claim whose point is that the fix
// works, the fix against stock ULE, is "not reproduced".
func TestClaimsFixAgainstStock(t *testing.T) {
	s := claimScenario()
	rp := report(t, s, scenario.Options{}, [][][]float64{{{4.149, 4.149, 4.149}, {7.63, 7.63, 7.63}, {7.631, 7.631, 7.631}}})
	cs := rp.Claims()
	require.Len(t, cs, 3)
	assert.Equal(t, scenario.DirectionOnly, cs[0].Verdict.Kind)
	assert.Equal(t, scenario.DirectionOnly, cs[1].Verdict.Kind)
	assert.Equal(t, scenario.NotReproduced, cs[2].Verdict.Kind)
	assert.InDelta(t, 61.46/907.07, cs[2].Verdict.Seed, 1e-12)
	assert.Equal(t, scenario.IsBaseline, rp.RowVerdict(0, 0).Kind)

	var b bytes.Buffer
	require.NoError(t, scenario.WriteSummary(&b, []*scenario.Report{rp}))
	out := b.String()
	assert.Contains(t, out, "the fix against stock")
	assert.Contains(t, out, "0.0678×")
	assert.Contains(t, out, "not reproduced [1]", "one reason shared by three claims is printed once")
	assert.Equal(t, 1, strings.Count(out, "gzip never sleeps"))
	for _, l := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, len([]rune(l)), 120, "summary line %q", l)
	}
}

// A grid point where the seed's figure does not apply (the hog's nice is not the seed's 20)
// shows none: no seed figure in the table, "no figure" as the verdict.
func TestFigureOnlyWhereItApplies(t *testing.T) {
	s := claimScenario()
	o := scenario.Options{Grid: map[string][]float64{"hog_nice": {0, 20}}}
	rp := report(t, s, o, [][][]float64{
		{{4, 4.1, 4.2}, {8, 8.1, 8.2}, {8, 8.1, 8.2}},
		{{4, 4.1, 4.2}, {80, 81, 82}, {5, 5.1, 5.2}},
	})
	assert.Equal(t, scenario.NoFigure, rp.RowVerdict(0, 1).Kind, "nice 0: the seed's figure is for nice 20")
	assert.Equal(t, scenario.Reproduced, rp.RowVerdict(1, 1).Kind, "nice 20: 19.5× against 20.05×")
	var b bytes.Buffer
	require.NoError(t, rp.WriteTable(&b))
	blocks := strings.Split(b.String(), "[hog_nice=20]")
	require.Len(t, blocks, 2)
	assert.NotContains(t, blocks[0], "907.1", "the seed's figure is shown at nice 0")
	assert.Contains(t, blocks[1], "907.1")

	// A claim at a point that does not apply is no figure, not a miss.
	s.Claims[0].At = scenario.Values{"hog_nice": 0}
	cs := rp.Claims()
	assert.Equal(t, scenario.NoFigure, cs[0].Verdict.Kind)
}

// Seed 003's levels are exact: every run must give them.
func TestClaimsExact(t *testing.T) {
	s := &scenario.Scenario{
		Name: "exact-test", Seed: "003", Title: "levels", Absolute: true,
		Rows: []scenario.Row{
			{Label: "legacy", Policy: "ule:legacy", Published: &scenario.Figure{Value: 8, Exact: true, Unit: "levels"}},
			{Label: "main", Policy: "ule:legacy", Published: &scenario.Figure{Value: 32, Exact: true, Unit: "levels"}},
		},
		Metrics: []scenario.Metric{{Name: "levels", Unit: "levels", Of: func(*sim.Result, *scenario.Setup) float64 { return 0 }}},
		Build:   func(scenario.Values, *scenario.Row) (scenario.Setup, error) { return scenario.Setup{}, nil },
		Reps:    2,
		Claims:  []scenario.Claim{{Text: "legacy: 8", Row: "legacy"}, {Text: "main: 32", Row: "main"}},
	}
	rp := report(t, s, scenario.Options{}, [][][]float64{{{8, 8}, {32, 31}}})
	cs := rp.Claims()
	assert.Equal(t, scenario.Matches, cs[0].Verdict.Kind)
	assert.Equal(t, scenario.NotReproduced, cs[1].Verdict.Kind)
	assert.Equal(t, scenario.Matches, rp.RowVerdict(0, 0).Kind)
}

// Every registered claim names rows that exist and a figure, with a text the summary can print.
func TestRegisteredClaims(t *testing.T) {
	n := 0
	for _, name := range scenario.Names() {
		s, err := scenario.Lookup(name)
		require.NoError(t, err)
		n += len(s.Claims)
	}
	assert.GreaterOrEqual(t, n, 20, "the seeds' headline claims")
	assert.LessOrEqual(t, n, 34, "a summary of about 20-30 lines")
}

// A claim that names no point, on a plan that sweeps a parameter, is judged at every point;
// where the verdicts differ the summary says "varies" and lists them.
func TestClaimsVaryOverASweep(t *testing.T) {
	s := claimScenario()
	s.Seeded = nil
	o := scenario.Options{Grid: map[string][]float64{"hog_nice": {10, 20}}}
	rp := report(t, s, o, [][][]float64{
		{{4, 4.1, 4.2}, {80, 81, 82}, {5, 5.1, 5.2}},
		{{4, 4.1, 4.2}, {8, 8.1, 8.2}, {8, 8.1, 8.2}},
	})
	cs := rp.Claims()
	require.Len(t, cs[0].Swept, 2)
	assert.True(t, cs[0].Varies(), "stock: 19.8× at nice 10 (reproduced), 2× at nice 20 (direction only)")
	var b bytes.Buffer
	require.NoError(t, scenario.WriteSummary(&b, []*scenario.Report{rp}))
	assert.Contains(t, b.String(), "19.76 / 1.98×")
	assert.Contains(t, b.String(), "varies [1]")
	assert.Contains(t, b.String(), "[1] hog_nice, not known, so swept: hog_nice=10: reproduced; hog_nice=20: direction only")
}
