package scenario_test

import (
	"bytes"
	"testing"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every registered scenario, at its small size, shows the effects it expects, with Student's
// t significance where the expected band excludes 1.
func TestExpectations(t *testing.T) {
	for _, name := range scenario.Names() {
		t.Run(name, func(t *testing.T) {
			s, err := scenario.Lookup(name)
			require.NoError(t, err)
			require.NotEmpty(t, s.Expect, "a scenario states what it expects")
			rep, err := scenario.Run(s, scenario.Options{Small: true})
			require.NoError(t, err)
			for _, o := range rep.Check() {
				assert.True(t, o.OK, "%s", o)
			}
		})
	}
}

// The table and the results are the same bytes whatever the number of workers.
func TestDeterministic(t *testing.T) {
	s, err := scenario.Lookup("seed000-pipeline")
	require.NoError(t, err)
	var tables, lines []string
	for _, workers := range []int{1, 3, 8} {
		o := scenario.Options{Small: true, Reps: 2, Workers: workers}
		pl, err := scenario.NewPlan(s, o)
		require.NoError(t, err)
		res, err := pl.Run(pl.All(), o)
		require.NoError(t, err)
		var jl bytes.Buffer
		require.NoError(t, scenario.WriteJSONL(&jl, res))
		rep, err := pl.Merge(res)
		require.NoError(t, err)
		var tb bytes.Buffer
		require.NoError(t, rep.WriteTable(&tb))
		tables, lines = append(tables, tb.String()), append(lines, jl.String())
	}
	for i := 1; i < len(tables); i++ {
		assert.Equal(t, tables[0], tables[i])
		assert.Equal(t, lines[0], lines[i])
	}
}

func TestLookupUnknown(t *testing.T) {
	_, err := scenario.Lookup("seed999")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown scenario "seed999"`)
	assert.Contains(t, err.Error(), "seed000-pipeline")
}

func TestPlanErrors(t *testing.T) {
	s, err := scenario.Lookup("seed000-pipeline")
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		o    scenario.Options
		want string
	}{
		{"unknown parameter", scenario.Options{Set: scenario.Values{"recs": 1}}, `unknown parameter "recs"`},
		{"out of range", scenario.Options{Set: scenario.Values{"hog_nice": 21}}, "hog_nice = 21 outside 0..20"},
		{"not whole", scenario.Options{Set: scenario.Values{"records": 1.5}}, "records = 1.5 is not a whole number"},
		{"empty grid", scenario.Options{Grid: map[string][]float64{"records": {}}}, "has no values"},
		{"grid out of range", scenario.Options{Grid: map[string][]float64{"records": {10, 0}}}, "records = 0 outside"},
		{"negative reps", scenario.Options{Reps: -1}, "Reps -1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.NewPlan(s, c.o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// A grid multiplies the cells: points in sorted parameter order, then rows, then repetitions.
func TestPlanGrid(t *testing.T) {
	s, err := scenario.Lookup("seed000-pipeline")
	require.NoError(t, err)
	pl, err := scenario.NewPlan(s, scenario.Options{Small: true, Reps: 2,
		Grid: map[string][]float64{"records": {10, 20}, "gzip_us": {100, 300, 500}}})
	require.NoError(t, err)
	require.Len(t, pl.Points, 6)
	assert.Equal(t, scenario.Values{"gzip_us": 100, "records": 10}, pl.Points[0])
	assert.Equal(t, scenario.Values{"gzip_us": 100, "records": 20}, pl.Points[1])
	assert.Equal(t, scenario.Values{"gzip_us": 500, "records": 20}, pl.Points[5])
	require.Len(t, pl.Cells, 6*len(s.Rows)*2)
	c := pl.Cells[2*len(s.Rows)+3] // point 1, row 1, rep 1
	assert.Equal(t, 1, c.Point)
	assert.Equal(t, 1, c.Row)
	assert.Equal(t, 1, c.Rep)
	assert.Equal(t, uint64(2), c.Seed())
	assert.Equal(t, 20.0, c.Values["records"])
	assert.Equal(t, 1.0, c.Values["hog"], "the row's own values win")
}

func TestRunReportsProgress(t *testing.T) {
	s, err := scenario.Lookup("seed000-pipeline")
	require.NoError(t, err)
	var seen []int
	total := 0
	_, err = scenario.Run(s, scenario.Options{Small: true, Reps: 2, Workers: 2, Progress: func(done, n int) {
		seen = append(seen, done)
		total = n
	}})
	require.NoError(t, err)
	require.Equal(t, 2*len(s.Rows), total)
	require.Len(t, seen, total)
	for i, d := range seen {
		assert.Equal(t, i+1, d)
	}
}
