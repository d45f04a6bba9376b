package sim_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keptRun is a run with something in every part of a Result: violations (from the broken toy),
// latencies beyond the exact budget, groups, exits, costs and ticks.
func keptRun(t *testing.T) *sim.Result {
	t.Helper()
	text, err := os.ReadFile("testdata/mixed.wl")
	require.NoError(t, err)
	cfg := sim.Config{Topology: topology.Uniform(2, 1, 1, 2, 2), Seed: 1, ExactSamples: 16,
		Costs: sim.Costs{Switch: sim.Fixed(3 * time.Microsecond), Tick: sim.Fixed(time.Microsecond)}, Checks: checks}
	r, err := sim.RunUntil(cfg, newRR(250, 3), mustParse(t, string(text)), sim.Stop{Time: 200 * time.Millisecond, Warmup: 20 * time.Millisecond})
	require.NoError(t, err)
	return r
}

func TestResultJSONRoundTrip(t *testing.T) {
	r := keptRun(t)
	r.PolicyErr = assert.AnError
	r.Violations = append(r.Violations, sim.Violation{Invariant: sim.Starvation, Time: 5, CPU: sim.NoCPU, Thread: 2, Wait: 7})
	r.Counts[sim.Starvation]++
	data, err := json.Marshal(r)
	require.NoError(t, err)
	var back sim.Result
	require.NoError(t, json.Unmarshal(data, &back))
	again, err := json.Marshal(&back)
	require.NoError(t, err)
	assert.JSONEq(t, string(data), string(again))
	assert.Equal(t, r.Threads, back.Threads)
	assert.Equal(t, r.CPUs, back.CPUs)
	assert.Equal(t, r.Violations, back.Violations)
	assert.Equal(t, r.Counts, back.Counts)
	assert.Equal(t, r.PolicyErr.Error(), back.PolicyErr.Error())
	for _, f := range []string{`"schema":"schedkit.sim.result/1"`, `"ending":"time"`, `"start_ns":20000000`, `"cpu_ns":`, `"share":`, `"buckets":`, `"exact_ns":`, `"ticks":{`} {
		assert.Contains(t, string(data), f)
	}
	for i := range r.Threads {
		assert.Equal(t, r.Threads[i].Share(), back.Threads[i].Share(), "share is derived from the kept fields")
	}

	for _, bad := range []string{
		strings.Replace(string(data), `schedkit.sim.result/1`, `schedkit.sim.result/0`, 1),
		strings.Replace(string(data), `"ending":"time"`, `"ending":"later"`, 1),
		strings.Replace(string(data), `"starvation":`, `"laziness":`, 1),
		strings.Replace(string(data), `"id":1,`, `"id":7,`, 1),
	} {
		var x sim.Result
		assert.Error(t, json.Unmarshal([]byte(bad), &x))
	}
}

func TestWriteCSV(t *testing.T) {
	r := keptRun(t)
	var b bytes.Buffer
	require.NoError(t, sim.WriteCSV(&b, []float64{50, 99.9}, r, r))
	rows, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 1+2*len(r.Threads))
	head := rows[0]
	assert.Equal(t, sim.CSVHeader(50, 99.9), head)
	assert.Contains(t, head, "wakeup_p99.9_ns")
	assert.Contains(t, head, "runq-wait_p50_ns")
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	for i := range r.Threads {
		th := &r.Threads[i]
		row := rows[1+i]
		assert.Equal(t, th.Name, row[col("thread")])
		assert.Equal(t, itoa(int(th.CPUTime)), row[col("cpu_ns")])
		if v, ok := th.RunqWait.Percentile(99.9); ok {
			assert.Equal(t, itoa(int(v)), row[col("runq-wait_p99.9_ns")])
		} else {
			assert.Empty(t, row[col("runq-wait_p99.9_ns")])
		}
	}
}

func TestPooledHistograms(t *testing.T) {
	r := keptRun(t)
	all := r.Pooled(sim.RunqWait, nil)
	var n int64
	decls := map[string]bool{}
	for i := range r.Threads {
		n += r.Threads[i].RunqWait.Count()
		decls[r.Threads[i].Decl] = true
	}
	assert.Equal(t, n, all.Count())
	var byDecl int64
	for d := range decls {
		byDecl += r.Decl(sim.RunqWait, d).Count()
	}
	assert.Equal(t, n, byDecl, "the declarations partition the threads")
	// Pooling two runs is merging their pooled histograms.
	two := r.Pooled(sim.RunqWait, nil)
	two.Merge(all)
	assert.Equal(t, 2*n, two.Count())
	p, _ := two.Percentile(99)
	q, _ := all.Percentile(99)
	assert.Equal(t, q, p, "the same run twice has the same percentiles")
}
