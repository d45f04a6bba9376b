package sim_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/internal/schematest"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handRun returns a Result made by hand: threads with the given CPU times over a run of 100 ns,
// each woken once with the given latency (none for a negative one).
func handRun(policy string, seed uint64, cpu map[string]int64, lat map[string]int64) *sim.Result {
	r := &sim.Result{Policy: policy, Seed: seed, End: 100, Makespan: 100, CPUs: []sim.CPUStats{{Busy: 60, Idle: 40, Switches: int64(seed)}}}
	for _, name := range []string{"a", "b", "c"} {
		c, ok := cpu[name]
		if !ok {
			continue
		}
		t := sim.ThreadStats{ID: 0, Name: name, Decl: strings.ToUpper(name), End: -1, CPUTime: c}
		if l, ok := lat[name]; ok {
			t.Wakeup.Add(l)
		}
		r.Threads = append(r.Threads, t)
	}
	r.Finish()
	return r
}

// TestSummarizeMedians checks the medians against values worked out by hand: an odd count takes
// the middle value, an even count the mean of the middle two (stat.Median), a thread absent
// from a run counts only in the others, and a thread never woken has no latency.
func TestSummarizeMedians(t *testing.T) {
	col := sim.Column{Name: "x", Reps: []sim.Rep{
		{N: 0, Result: handRun("x", 1, map[string]int64{"a": 10, "b": 50}, map[string]int64{"a": 7})},
		{N: 1, Result: handRun("x", 2, map[string]int64{"a": 30, "b": 70}, map[string]int64{"a": 1})},
		{N: 2, Result: handRun("x", 3, map[string]int64{"a": 20, "c": 5}, map[string]int64{"a": 4})},
		{N: 3, Result: handRun("x", 4, map[string]int64{"a": 40}, map[string]int64{"a": 100})},
	}}
	s := sim.Summarize(sim.Table{Percentiles: []float64{50}, Totals: []sim.Total{sim.Switches, sim.IdleShare, sim.End}}, col)
	require.Len(t, s.Threads, 3)
	assert.Equal(t, []string{"a", "b", "c"}, []string{s.Threads[0].Name, s.Threads[1].Name, s.Threads[2].Name})
	assert.Equal(t, []string{"A", "B", "C"}, s.Decls())
	a, b, c := s.Threads[0].Cells[0], s.Threads[1].Cells[0], s.Threads[2].Cells[0]
	assert.Equal(t, 4, a.Runs)
	assert.InDelta(t, 0.25, a.Share, 1e-15, "shares 0.1 0.2 0.3 0.4: the mean of the middle two")
	assert.Equal(t, []float64{5.5}, a.Latency, "latencies 1 4 7 100: (4+7)/2")
	assert.Equal(t, 2, b.Runs)
	assert.InDelta(t, 0.6, b.Share, 1e-15)
	assert.True(t, math.IsNaN(b.Latency[0]), "b was never woken")
	assert.Equal(t, 1, c.Runs)
	assert.InDelta(t, 0.05, c.Share, 1e-15)
	assert.Equal(t, []float64{2.5, 0.4, 100}, s.Totals[0], "switches 1 2 3 4; idle 40 of 100 in each; end 100")

	var out strings.Builder
	require.NoError(t, s.Write(&out, sim.Text))
	lines := strings.Split(out.String(), "\n")
	assert.Equal(t, []string{"a", "25.0%", "6ns"}, strings.Fields(lines[2]), "5.5 ns rounds to 6")
	assert.Equal(t, []string{"b", "60.0%", "-"}, strings.Fields(lines[3]))
	assert.Equal(t, []string{"x", "4", "2.5", "40.0%", "100ns"}, strings.Fields(lines[10]))
}

// TestSummarizeColumns checks that a thread a column lacks shows "-" in every cell of it.
func TestSummarizeColumns(t *testing.T) {
	x := sim.Column{Name: "x", Reps: []sim.Rep{{Result: handRun("x", 1, map[string]int64{"a": 10}, nil)}}}
	y := sim.Column{Name: "y", Reps: []sim.Rep{{Result: handRun("y", 1, map[string]int64{"b": 10}, map[string]int64{"b": 3})}}}
	var out strings.Builder
	require.NoError(t, sim.Summarize(sim.Table{Percentiles: []float64{50, 100}}, x, y).Write(&out, sim.Text))
	lines := strings.Split(out.String(), "\n")
	assert.Equal(t, []string{"a", "10.0%", "-", "-", "-", "-", "-"}, strings.Fields(lines[2]))
	assert.Equal(t, []string{"b", "-", "-", "-", "10.0%", "3ns", "3ns"}, strings.Fields(lines[3]))
}

func TestSummarizeNilResult(t *testing.T) {
	defer func() {
		p := recover()
		if s, ok := p.(string); !ok || !strings.HasPrefix(s, "sim: Summarize: column \"x\": run 0 has a nil result") {
			t.Errorf("Summarize panicked with %v, want a sim: message naming the column", p)
		}
	}()
	sim.Summarize(sim.Table{}, sim.Column{Name: "x", Reps: []sim.Rep{{}}})
}

// TestSummaryJSON checks the runs document: it validates against the published schema, holds
// every run with its column, repetition and seed, and its results read back as the runs' own.
func TestSummaryJSON(t *testing.T) {
	r := keptRun(t)
	s := sim.Summarize(sim.Table{}, sim.Column{Name: "rr", Reps: []sim.Rep{{N: 0, Result: r}, {N: 2, Result: r}}})
	s.Settings = []sim.Setting{{Key: "workload", Value: "mixed"}, {Key: "seed", Value: "1"}}
	s.Missing = 1
	var b bytes.Buffer
	require.NoError(t, s.Write(&b, sim.JSON))
	schematest.Validate(t, b.Bytes())
	var doc struct {
		Schema   string            `json:"schema"`
		Settings map[string]string `json:"settings"`
		Columns  []string          `json:"columns"`
		Complete bool              `json:"complete"`
		Runs     []struct {
			Column string          `json:"column"`
			Rep    int             `json:"rep"`
			Seed   uint64          `json:"seed"`
			Result json.RawMessage `json:"result"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	assert.Equal(t, sim.RunsSchema, doc.Schema)
	assert.Equal(t, map[string]string{"workload": "mixed", "seed": "1"}, doc.Settings)
	assert.Equal(t, []string{"rr"}, doc.Columns)
	assert.False(t, doc.Complete, "a run is missing")
	require.Len(t, doc.Runs, 2)
	assert.Equal(t, 2, doc.Runs[1].Rep)
	assert.Equal(t, uint64(1), doc.Runs[1].Seed)
	var back sim.Result
	require.NoError(t, json.Unmarshal(doc.Runs[1].Result, &back))
	assert.Equal(t, r.Threads, back.Threads)
}

// TestResultJSONSchema validates Results of every kind the package makes against the schema:
// a run with violations, latencies beyond the exact budget and a policy's error, and a run
// stopped early with threads alive.
func TestResultJSONSchema(t *testing.T) {
	r := keptRun(t)
	r.PolicyErr = assert.AnError
	r.Violations = append(r.Violations, sim.Violation{Invariant: sim.Starvation, Time: 5, CPU: sim.NoCPU, Thread: 2, Wait: 7})
	data, err := json.Marshal(r)
	require.NoError(t, err)
	schematest.Validate(t, data)
	w := mustParse(t, "thread a count=3\n\trun 1ms\n\tsleep 1ms\n\trun forever\nend\n")
	early, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, newRR(1000, 4), w, 3*time.Millisecond)
	require.NoError(t, err)
	data, err = json.Marshal(early)
	require.NoError(t, err)
	schematest.Validate(t, data)
}

// TestSummaryCSV checks the CSV form: a row per thread of each run, after the heading, with the
// column, repetition and seed of its run.
func TestSummaryCSV(t *testing.T) {
	r1 := handRun("x", 7, map[string]int64{"a": 10, "b": 20}, map[string]int64{"a": 3})
	r2 := handRun("x", 8, map[string]int64{"a": 10}, nil)
	var b bytes.Buffer
	require.NoError(t, sim.Summarize(sim.Table{}, sim.Column{Name: "col", Reps: []sim.Rep{{N: 0, Result: r1}, {N: 1, Result: r2}}}).Write(&b, sim.CSV))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1+3)
	assert.Equal(t, sim.CSVHeader(sim.StandardPercentiles...), rows[0])
	assert.Equal(t, []string{"col", "0", "7", "x"}, rows[1][:4])
	assert.Equal(t, []string{"col", "1", "8", "x"}, rows[3][:4])
	assert.Equal(t, "b", rows[2][7])
}

func TestParseFormat(t *testing.T) {
	for _, f := range []sim.Format{sim.Text, sim.CSV, sim.JSON} {
		g, err := sim.ParseFormat(string(f))
		require.NoError(t, err)
		assert.Equal(t, f, g)
	}
	_, err := sim.ParseFormat("xml")
	assert.ErrorContains(t, err, `"xml"`)
}
