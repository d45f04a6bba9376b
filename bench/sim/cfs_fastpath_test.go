package sim_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/topology"
)

// cfsVariedCase is a machine and a load for the cfs tests that compare two ways of running the
// same policy.
type cfsVariedCase struct {
	name  string
	cfg   sim.Config
	load  func(testing.TB) *workload.Workload
	until time.Duration
}

// cfsVariedCases are machines and loads that take cfs through its balancing and placement
// paths: the periodic sets on one cache of independent CPUs (flat domains: new-idle balancing
// nearly at every switch), with and without IPI latency; the mixed load on SMT pairs in two
// packages with every cost, lost IPIs and an idle-exit latency, at two seeds; the common
// workload (pipes, forks, joins, affinity changes, groups) with IPI latency; and hogs at two
// nice levels on a machine of two caches of SMT pairs.
func cfsVariedCases() []cfsVariedCase {
	periodic := func(set string) func(testing.TB) *workload.Workload {
		return func(tb testing.TB) *workload.Workload { return periodicWorkload(tb, set) }
	}
	flat := func(cpus int, seed uint64, ipi time.Duration) sim.Config {
		return sim.Config{Topology: topology.Uniform(1, 1, 1, cpus, 1), Hz: 1000, StatHz: 127, Seed: seed,
			Costs: sim.Costs{IPI: sim.Fixed(ipi)}}
	}
	smt := func(seed uint64) sim.Config {
		return sim.Config{Topology: topology.Uniform(2, 1, 1, 8, 2), Hz: 250, StatHz: 127, Seed: seed, FlattenGroups: true,
			Costs: sim.Costs{Switch: sim.Fixed(2 * time.Microsecond), Migration: sim.EveryLevel(sim.Fixed(15 * time.Microsecond)), IPI: sim.Fixed(3 * time.Microsecond),
				Tick: sim.Fixed(time.Microsecond)},
			Idle: sim.Idle{ExitLatency: sim.Fixed(20 * time.Microsecond), MissProbability: 0.05, MissWindow: time.Millisecond}}
	}
	common := func(tb testing.TB) *workload.Workload {
		text, err := os.ReadFile("testdata/common.wl")
		require.NoError(tb, err)
		return mustParse(tb, string(text))
	}
	return []cfsVariedCase{
		{"periodic-4x20", flat(4, 1, 0), periodic("4x20"), time.Second},
		{"periodic-16x100-ipi", flat(16, 2, 5*time.Microsecond), periodic("16x100"), 500 * time.Millisecond},
		{"periodic-64x1000", flat(64, 1, 0), periodic("64x1000"), 150 * time.Millisecond},
		{"mixed-smt-7", smt(7), func(tb testing.TB) *workload.Workload { return mixedScale(tb, 200) }, 200 * time.Millisecond},
		{"mixed-smt-8", smt(8), func(tb testing.TB) *workload.Workload { return mixedScale(tb, 64) }, 200 * time.Millisecond},
		{"mixed-flat-12", flat(12, 3, 2*time.Microsecond), func(tb testing.TB) *workload.Workload { return mixedScale(tb, 40) }, 300 * time.Millisecond},
		{"common", sim.Config{Topology: commonTopology(), Hz: 1000, StatHz: 127, Seed: 3, FlattenGroups: true,
			Costs: sim.Costs{IPI: sim.Fixed(2 * time.Microsecond), Switch: sim.Fixed(time.Microsecond)}}, common, time.Second},
		{"hogs-nice", sim.Config{Topology: topology.Uniform(1, 1, 2, 2, 2), Hz: 100, StatHz: 128, Seed: 5},
			func(tb testing.TB) *workload.Workload {
				return mustParse(tb, "thread a count=6\n\trun forever\nend\nthread b count=5 nice=10\n\trun forever\nend\n")
			}, time.Second},
	}
}

// cfsPresets returns a maker of a fresh Scheduler for every cfs preset.
func cfsPresets() []policyCase {
	var ps []policyCase
	for _, name := range cfs.Presets() {
		p, err := cfs.Preset(name)
		if err != nil {
			panic(err)
		}
		ps = append(ps, policyCase{p.Name, func() sim.Policy { return must(cfs.New(p)) }})
	}
	return ps
}

// TestCFSFastPathsMatchExplained runs every cfs preset on cfsVariedCases with explanations and
// without, and requires the same trace (the explanations aside) and the same results. The
// System's fast paths (a flat domain's balance from the CPUs with two tasks or more) step aside
// when the machine explains, since the explanations print what only the kernel's full visit
// computes; so this compares each fast path with the code it replaces, on whole runs.
func TestCFSFastPathsMatchExplained(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: full traces of every cfs preset on eight workloads")
	}
	for _, c := range cfsVariedCases() {
		for _, pc := range cfsPresets() {
			t.Run(fmt.Sprintf("w=%s/p=%s", c.name, pc.name), func(t *testing.T) {
				run := func(explain bool) *sim.Result {
					cfg := c.cfg
					cfg.Trace, cfg.Explain = sim.TraceFull, explain
					m, err := sim.New(cfg, pc.make(), c.load(t))
					require.NoError(t, err)
					require.NoError(t, m.Run(c.until))
					return m.Result()
				}
				plain, explained := run(false), run(true)
				var kept []sim.Record
				for _, r := range explained.Trace.Records {
					if r.Kind != sim.KindExplain {
						kept = append(kept, r)
					}
				}
				require.Greater(t, len(explained.Trace.Records), len(kept), "no explanations")
				require.Equal(t, len(plain.Trace.Records), len(kept), "records")
				for i := range kept {
					if kept[i] != plain.Trace.Records[i] {
						t.Fatalf("record %d: explained %s, plain %s", i, explained.Trace.Format(kept[i]), plain.Trace.Format(plain.Trace.Records[i]))
					}
				}
				require.Equal(t, plain.Threads, explained.Threads)
				require.Equal(t, plain.CPUs, explained.CPUs)
				require.Equal(t, plain.Events, explained.Events)
			})
		}
	}
}
