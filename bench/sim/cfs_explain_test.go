package sim_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/stretchr/testify/require"
)

// TestCFSExplainKeepsTheCodePath runs the common workload under every cfs preset with
// explanations recorded and without: apart from the Explain records themselves the two traces
// are identical, record for record, so explaining a decision never changes the code that takes
// it (the fast forms in cfs/internal run, or not, by the same rule either way).
func TestCFSExplainKeepsTheCodePath(t *testing.T) {
	text, err := os.ReadFile("testdata/common.wl")
	require.NoError(t, err)
	w := mustParse(t, string(text))
	topo := commonTopology()
	n := 0
	for _, pc := range realPolicies(topo) {
		if !strings.HasPrefix(pc.name, "cfs") && !strings.HasPrefix(pc.name, "eevdf") {
			continue
		}
		n++
		t.Run(pc.name, func(t *testing.T) {
			run := func(explain bool) ([]sim.Record, int) {
				cfg := sim.Config{Topology: topo, StatHz: 127, Seed: 1, FlattenGroups: true, Trace: sim.TraceFull, Explain: explain,
					Costs: sim.Costs{IPI: sim.Fixed(2 * time.Microsecond), Switch: sim.Fixed(time.Microsecond)}}
				r, err := sim.Run(cfg, pc.make(), w, 300*time.Millisecond)
				require.NoError(t, err)
				var out []sim.Record
				explained := 0
				for _, rec := range r.Trace.Records {
					if rec.Kind == sim.KindExplain {
						explained++
						continue
					}
					out = append(out, rec)
				}
				return out, explained
			}
			on, explained := run(true)
			off, none := run(false)
			require.Positive(t, explained, "no explanation recorded: the test would compare nothing")
			require.Zero(t, none)
			require.Equal(t, len(off), len(on))
			require.Equal(t, off, on)
		})
	}
	require.Positive(t, n, "no cfs preset found")
}
