package sim_test

import (
	"bytes"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func mixedRun(t *testing.T, seed uint64) *sim.Result {
	t.Helper()
	text, err := os.ReadFile("testdata/mixed.wl")
	require.NoError(t, err)
	cfg := sim.Config{
		Topology: topology.Uniform(2, 1, 1, 2, 2),
		Seed:     seed,
		Costs:    sim.Costs{Switch: sim.Fixed(3 * time.Microsecond), Migration: sim.EveryLevel(sim.Fixed(20 * time.Microsecond)), IPI: sim.Fixed(2 * time.Microsecond), Tick: sim.Fixed(time.Microsecond)},
		Trace:    sim.TraceFull,
		Explain:  true,
		Checks:   checks,
	}
	return runChecked(t, cfg, newRR(250, 3), mustParse(t, string(text)), 300*time.Millisecond)
}

func TestSameSeedSameTrace(t *testing.T) {
	a, b := mixedRun(t, 1), mixedRun(t, 1)
	require.Equal(t, a.Trace.Hash(), b.Trace.Hash())
	require.Equal(t, a.Trace.Records, b.Trace.Records)
	require.Equal(t, a.Threads, b.Threads)
	assert.Greater(t, a.Trace.Len(), 10000)
}

func TestDifferentSeedsDiffer(t *testing.T) {
	a, b := mixedRun(t, 1), mixedRun(t, 2)
	assert.NotEqual(t, a.Trace.Hash(), b.Trace.Hash())
	assert.NotEqual(t, a.Threads[0].CPUTime, b.Threads[0].CPUTime)
}

// TestTraceHashGolden pins the trace of the mixed workload: a change of this constant means the
// machine now behaves differently, which must be deliberate. It is the same on every GOARCH:
// run GOARCH=386 go test ./bench/sim/... to check.
func TestTraceHashGolden(t *testing.T) {
	r := mixedRun(t, 1)
	const want = 0xe7bd957179a16657
	assert.Equal(t, uint64(want), r.Trace.Hash(), "hash %#x over %d records", r.Trace.Hash(), r.Trace.Len())
	require.NoError(t, r.Err())
}

// TestTraceTextGolden keeps a small trace readable and reviewed: run with -update after an
// intended change and read the diff.
func TestTraceTextGolden(t *testing.T) {
	w := mustParse(t, `
pipe ab
pipe ba
thread a
	repeat 2
		run 1ms
		send ab
		recv ba
	end
end
thread b
	repeat 2
		recv ab
		run 2ms
		send ba
	end
end
thread hog nice=5
	run 3ms
end`)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Trace: sim.TraceFull, Explain: true,
		Costs: sim.Costs{IPI: sim.Fixed(10 * time.Microsecond)}}
	r := runChecked(t, cfg, newRR(1000, 2), w, time.Second)
	var buf bytes.Buffer
	require.NoError(t, r.Trace.WriteText(&buf))
	const golden = "testdata/pingpong.trace"
	if *update {
		require.NoError(t, os.WriteFile(golden, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), buf.String())
}

// TestPolicyRunsAreDeterministic runs the common workload twice under every preset with the same
// seed (identical traces) and once with another seed (a different trace: the workload's random
// durations change).
func TestPolicyRunsAreDeterministic(t *testing.T) {
	text, err := os.ReadFile("testdata/common.wl")
	require.NoError(t, err)
	w := mustParse(t, string(text))
	topo := commonTopology()
	for _, pc := range realPolicies(topo) {
		t.Run(pc.name, func(t *testing.T) {
			hash := func(seed uint64) uint64 {
				cfg := sim.Config{Topology: topo, StatHz: 127, Seed: seed, FlattenGroups: true, Trace: sim.TraceHash,
					Costs: sim.Costs{IPI: sim.Fixed(2 * time.Microsecond), Switch: sim.Fixed(time.Microsecond)}}
				r, err := sim.Run(cfg, pc.make(), w, time.Second)
				require.NoError(t, err)
				return r.Trace.Hash()
			}
			a, b, c := hash(1), hash(1), hash(2)
			assert.Equal(t, a, b)
			assert.NotEqual(t, a, c)
			t.Logf("%s %#x", pc.name, a)
		})
	}
}
