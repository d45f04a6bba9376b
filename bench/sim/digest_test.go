package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// A digestCase is a machine and workload whose run under every preset of every policy is pinned
// by TestPolicyDigests.
type digestCase struct {
	name  string
	cfg   sim.Config
	load  func(testing.TB) *workload.Workload
	until time.Duration
}

// digestCases cover what the speed work touches: the periodic task sets (timers grouped by
// time, wake-up placement, new-idle balancing), the mixed load with every cost, lost IPIs and an
// idle-exit latency on SMT pairs (stalls, IPIs, SMT rates), the common workload (pipes, forks,
// joins, affinity), and hogs at two nice levels with a warm-up.
func digestCases() []digestCase {
	file := func(name string) func(testing.TB) *workload.Workload {
		return func(tb testing.TB) *workload.Workload {
			text, err := os.ReadFile("testdata/" + name)
			require.NoError(tb, err)
			return mustParse(tb, string(text))
		}
	}
	periodic := func(set string) func(testing.TB) *workload.Workload {
		return func(tb testing.TB) *workload.Workload { return periodicWorkload(tb, set) }
	}
	uniform := func(cpus int) sim.Config {
		return sim.Config{Topology: topology.Uniform(1, 1, 1, cpus, 1), Hz: 1000, StatHz: 127, Seed: 1}
	}
	smt := sim.Config{Topology: topology.Uniform(2, 1, 1, 8, 2), Hz: 250, StatHz: 127, Seed: 7, FlattenGroups: true,
		Costs: sim.Costs{Switch: sim.Fixed(2 * time.Microsecond), Migration: sim.EveryLevel(sim.Fixed(15 * time.Microsecond)), IPI: sim.Fixed(3 * time.Microsecond),
			Tick: sim.Fixed(time.Microsecond)},
		Idle: sim.Idle{ExitLatency: sim.Fixed(20 * time.Microsecond), MissProbability: 0.05, MissWindow: time.Millisecond}}
	common := sim.Config{Topology: commonTopology(), Hz: 1000, StatHz: 127, Seed: 3, FlattenGroups: true,
		Costs: sim.Costs{IPI: sim.Fixed(2 * time.Microsecond), Switch: sim.Fixed(time.Microsecond)}}
	hogs := sim.Config{Topology: topology.Uniform(1, 1, 2, 2, 2), Hz: 100, StatHz: 128, Seed: 5,
		Idle: sim.Idle{Spin: true}}
	return []digestCase{
		{"periodic-4x20", uniform(4), periodic("4x20"), 3 * time.Second},
		{"periodic-16x100", uniform(16), periodic("16x100"), time.Second},
		{"periodic-64x1000", uniform(64), periodic("64x1000"), 300 * time.Millisecond},
		{"mixed-smt", smt, func(tb testing.TB) *workload.Workload { return mixedScale(tb, 200) }, 200 * time.Millisecond},
		{"common", common, file("common.wl"), time.Second},
		{"hogs-nice", hogs, func(tb testing.TB) *workload.Workload {
			return mustParse(tb, "thread a count=6\n\trun forever\nend\nthread b count=5 nice=10\n\trun forever\nend\n")
		}, 2 * time.Second},
	}
}

// policyDigest runs c under the policy pc makes and returns the trace's hash and an FNV-1a
// hash of the Result's JSON (every thread's and CPU's statistics, latency series included).
// The hogs case discards a warm-up of a quarter of the run.
func policyDigest(tb testing.TB, c digestCase, pc policyCase) (trace, result uint64) {
	cfg := c.cfg
	cfg.Trace = sim.TraceHash
	m, err := sim.New(cfg, pc.make(), c.load(tb))
	require.NoError(tb, err)
	stop := sim.Stop{Time: c.until}
	if strings.HasPrefix(c.name, "hogs") {
		stop.Warmup = c.until / 4
	}
	_, err = m.RunUntil(stop)
	require.NoError(tb, err)
	r := m.Result()
	js, err := json.Marshal(r)
	require.NoError(tb, err)
	h := fnv.New64a()
	h.Write(js)
	return r.Trace.Hash(), h.Sum64()
}

// TestPolicyDigests pins, for every preset of every policy and the toy, the trace and the
// results of each digestCase: the speed work on the machine and the policies must leave every
// decision and every statistic as it was. A change of testdata/policy-digests.golden means the
// model now behaves differently, which must be deliberate and explained; rewrite it with
// -update and read the diff. The digests are the same on every GOARCH (.ci/run checks 386).
func TestPolicyDigests(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the digests run every preset on six workloads")
	}
	var got bytes.Buffer
	for _, c := range digestCases() {
		pcs := append([]policyCase{{"toy-rr", func() sim.Policy { return newRR(1000, 4) }}},
			realPolicies(c.cfg.Topology)...)
		for _, pc := range pcs {
			tr, res := policyDigest(t, c, pc)
			fmt.Fprintf(&got, "%-17s %-16s trace=%016x result=%016x\n", c.name, pc.name, tr, res)
		}
	}
	const golden = "testdata/policy-digests.golden"
	if *update {
		require.NoError(t, os.WriteFile(golden, got.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got.String())
}

// TestIdealProfileDigests is the differential test of the cost model: every digest case that
// charges nothing, run with the ideal profile (profiles/ideal.json, read and applied as any
// profile is), gives the golden's trace and result under every preset, byte for byte — the
// machine with the cost model and no costs is the machine before it.
func TestIdealProfileDigests(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the digests run every preset on four workloads")
	}
	want, err := os.ReadFile("testdata/policy-digests.golden")
	require.NoError(t, err)
	ideal := sim.IdealProfile()
	n := 0
	for _, c := range digestCases() {
		if !c.cfg.Costs.IsZero() || !c.cfg.Idle.ExitLatency.IsZero() {
			continue
		}
		ideal.Apply(&c.cfg)
		pcs := append([]policyCase{{"toy-rr", func() sim.Policy { return newRR(1000, 4) }}},
			realPolicies(c.cfg.Topology)...)
		for _, pc := range pcs {
			tr, res := policyDigest(t, c, pc)
			line := fmt.Sprintf("%-17s %-16s trace=%016x result=%016x\n", c.name, pc.name, tr, res)
			assert.Contains(t, string(want), line)
			n++
		}
	}
	assert.Greater(t, n, 40, "the ideal cases: the periodic sets and the hogs under every preset")
}
