package scenario_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func validScenario() scenario.Scenario {
	return scenario.Scenario{
		Name:    "t",
		Params:  []scenario.Param{{Name: "n", Default: 1, Min: 1, Max: 9}},
		Rows:    []scenario.Row{{Label: "a", Policy: "ule:main"}, {Label: "b", Policy: "cfs:v6.5", Baseline: "a"}},
		Metrics: []scenario.Metric{{Name: "m", Of: func(*sim.Result, *scenario.Setup) float64 { return 0 }}},
		Build:   func(scenario.Values, *scenario.Row) (scenario.Setup, error) { return scenario.Setup{}, nil },
		Reps:    1,
	}
}

func TestValidate(t *testing.T) {
	s := validScenario()
	require.NoError(t, s.Validate())
	for _, c := range []struct {
		name string
		mod  func(s *scenario.Scenario)
		want string
	}{
		{"no name", func(s *scenario.Scenario) { s.Name = "" }, "no name"},
		{"no build", func(s *scenario.Scenario) { s.Build = nil }, "needs Build"},
		{"no reps", func(s *scenario.Scenario) { s.Reps = 0 }, "Reps 0"},
		{"param twice", func(s *scenario.Scenario) { s.Params = append(s.Params, s.Params[0]) }, "parameter n twice"},
		{"bad default", func(s *scenario.Scenario) { s.Params[0].Default = 10 }, "n = 10 outside 1..9"},
		{"row twice", func(s *scenario.Scenario) { s.Rows[1].Label = "a" }, `row "a" twice`},
		{"bad policy", func(s *scenario.Scenario) { s.Rows[0].Policy = "ule:nope" }, `unknown ule preset "nope"`},
		{"bad baseline", func(s *scenario.Scenario) { s.Rows[1].Baseline = "z" }, `unknown baseline "z"`},
		{"bad row value", func(s *scenario.Scenario) { s.Rows[0].Set = scenario.Values{"x": 1} }, `unknown parameter "x"`},
		{"bad expectation", func(s *scenario.Scenario) {
			s.Expect = []scenario.Expectation{{Doc: "e", Row: "a", Baseline: "q"}}
		}, "unknown rows"},
		{"bad band", func(s *scenario.Scenario) {
			s.Expect = []scenario.Expectation{{Doc: "e", Row: "b", Baseline: "a", Min: 2, Max: 1}}
		}, "Min > Max"},
		{"bad small", func(s *scenario.Scenario) { s.Small = scenario.Values{"n": 0} }, "n = 0 outside"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := validScenario()
			s.Rows = append([]scenario.Row(nil), s.Rows...)
			s.Params = append([]scenario.Param(nil), s.Params...)
			c.mod(&s)
			err := s.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestRegisterPanics(t *testing.T) {
	bad := validScenario()
	bad.Name = ""
	assert.PanicsWithValue(t, "scenario: no name", func() { scenario.Register(&bad) })
	s, err := scenario.Lookup("seed000-pipeline")
	require.NoError(t, err)
	assert.Panics(t, func() { scenario.Register(s) })
}
