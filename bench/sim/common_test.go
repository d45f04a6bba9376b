package sim_test

import (
	"os"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commonTopology is the machine every policy runs the common workload on: two packages of two
// cores with two hardware threads each.
func commonTopology() *topology.Topology { return topology.Uniform(2, 1, 1, 2, 2) }

// TestEveryPolicyRunsTheCommonWorkload runs testdata/common.wl under every preset of every
// policy on the same topology, checking the conservation of threads after every event.
func TestEveryPolicyRunsTheCommonWorkload(t *testing.T) {
	text, err := os.ReadFile("testdata/common.wl")
	require.NoError(t, err)
	w := mustParse(t, string(text))
	topo := commonTopology()
	for _, pc := range realPolicies(topo) {
		t.Run(pc.name, func(t *testing.T) {
			cfg := sim.Config{Topology: topo, Hz: 1000, StatHz: 127, Seed: 1, FlattenGroups: true,
				Checks: sim.Checks{Starvation: 5 * time.Second}}
			r := runChecked(t, cfg, pc.make(), w, 3*time.Second)
			require.NoError(t, r.Err())
			for i := range r.Threads {
				// make only forks and waits, which take no time, and the last jobs may be new.
				if th := &r.Threads[i]; th.Name != "make" && th.Start < int64(time.Second) {
					assert.Greater(t, th.CPUTime, int64(0), "%s never ran", th.Name)
				}
			}
			// Some make jobs finish, and the pipeline moves messages.
			assert.Greater(t, r.Exited, int64(10))
			assert.Greater(t, r.Messages, int64(100))
			// The CPUs are busy: eight hogs alone would fill them.
			for id, c := range r.CPUs {
				assert.Greater(t, c.Busy, int64(2900*time.Millisecond), "cpu%d", id)
			}
		})
	}
}
