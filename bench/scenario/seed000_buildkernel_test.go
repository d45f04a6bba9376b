package scenario_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim/workload"
)

// buildkernelWorkload builds seed000-buildkernel's workload at its defaults with set applied.
func buildkernelWorkload(t *testing.T, s *scenario.Scenario, set scenario.Values) *workload.Workload {
	t.Helper()
	v := s.Defaults()
	for k, x := range set {
		v[k] = x
	}
	setup, err := s.Build(v, &s.Rows[0])
	require.NoError(t, err)
	require.NoError(t, setup.Workload.Validate())
	return setup.Workload
}

// The per-object chain is three processes an object (sh, the compiler, ctfconvert), forked by
// one make that hears of each job's end on a pipe; the earlier model (chain 0, one_make 0) is
// one process per object in j slots, and it is what the scenarios that reuse the build without
// the chain's parameters (seed002-idle, seed003-buildworld) still build.
func TestBuildkernelChain(t *testing.T) {
	s, err := scenario.Lookup("seed000-buildkernel")
	require.NoError(t, err)
	small := scenario.Values{"jobs": 20, "hogs": 2}
	w := buildkernelWorkload(t, s, small)
	n, exact := w.Started()
	assert.True(t, exact)
	assert.Equal(t, 1+2+3*20, n, "make, the hogs, and sh, cc and ctfconvert per object")
	require.Len(t, w.Pipes, 1)
	var sh *workload.Thread
	for i := range w.Threads {
		if w.Threads[i].Name == "sh" {
			sh = &w.Threads[i]
		}
	}
	require.NotNil(t, sh)
	var kinds []workload.Kind
	for _, op := range sh.Ops {
		kinds = append(kinds, op.Kind)
	}
	assert.Equal(t, []workload.Kind{workload.Run, workload.Fork, workload.Join, workload.Run, workload.Fork, workload.Join, workload.Send}, kinds)
	assert.Equal(t, "cc", sh.Ops[1].Name)
	assert.Equal(t, "ctfconvert", sh.Ops[4].Name)

	old := scenario.Values{"jobs": 20, "hogs": 2, "chain": 0, "one_make": 0}
	w0 := buildkernelWorkload(t, s, old)
	n, _ = w0.Started()
	assert.Equal(t, 8+2+20, n, "j make slots, the hogs, one process per object")
	assert.Empty(t, w0.Pipes)

	b, err := scenario.Lookup("seed003-buildworld")
	require.NoError(t, err)
	for _, p := range b.Params {
		assert.NotContains(t, []string{"chain", "one_make", "sh_ms", "ctf_ms", "cc_blocks_per_s", "cc_off_us", "make_ms"}, p.Name)
	}
	wb := buildkernelWorkload(t, b, scenario.Values{"jobs": 20, "hogs": 2, "cpus": 8, "j": 8, "smt": 1})
	assert.Equal(t, w0, wb, "without the chain's parameters the build is the earlier model")
}
