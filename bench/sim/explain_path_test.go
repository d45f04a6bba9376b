package sim_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/require"
)

// TestExplainKeepsTheCodePath runs the common workload under every preset of every real policy
// (ULE, 4BSD, CFS/EEVDF) with explanations recorded (schedbench explain) and without
// (schedbench run): apart from the Explain records themselves the two traces are identical,
// record for record, so explaining a decision never changes the code that takes it (the fast
// forms in cfs/internal and ULE's load index run, or not, by the same rule either way). It does
// so on the common topology of 8 CPUs and on one of 32 with LLCs of 16, where ULE keeps its
// load index (ule.IndexCPUs) and CFS scans its idle mask (LLCs above cfs's maxWalk of 8).
func TestExplainKeepsTheCodePath(t *testing.T) {
	text, err := os.ReadFile("testdata/common.wl")
	require.NoError(t, err)
	w := mustParse(t, string(text))
	families := map[string]int{}
	for _, topo := range []*topology.Topology{commonTopology(), topology.Uniform(2, 1, 1, 8, 2)} {
		for _, pc := range realPolicies(topo) {
			families[strings.SplitN(pc.name, "-", 2)[0]]++
			t.Run(fmt.Sprintf("cpus=%d/%s", topo.NumCPUs(), pc.name), func(t *testing.T) {
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
	}
	for _, f := range []string{"ule", "4bsd", "cfs"} {
		require.Positive(t, families[f], "no %s preset found among %v", f, families)
	}
}
