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
// one make that hears of each job's end on a pipe and wakes for each command the shell echoes; the earlier model (chain 0, one_make 0) is
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
	require.Len(t, w.Pipes, 2, "reaped, and make's poll")
	kinds := func(w *workload.Workload, name string) []workload.Kind {
		var out []workload.Kind
		for i := range w.Threads {
			if w.Threads[i].Name == name {
				for _, op := range w.Threads[i].Ops {
					out = append(out, op.Kind)
				}
				return out
			}
		}
		t.Fatalf("no thread %s", name)
		return nil
	}
	// The shell echoes each command into make's pipe before it forks it, and its exit both
	// posts the job to reap and wakes make's poll.
	R, S, F, J := workload.Run, workload.Send, workload.Fork, workload.Join
	assert.Equal(t, []workload.Kind{R, S, F, J, R, S, F, J, S, S}, kinds(w, "sh"))
	mk := w.Threads[len(w.Threads)-3] // make, then the two hogs
	require.Equal(t, "make", mk.Name)
	reap := mk.Ops[1].Body[0]
	assert.Equal(t, workload.Until, reap.Kind)
	assert.Equal(t, "reaped", reap.Name)
	assert.Equal(t, workload.Recv, reap.Body[0].Kind)
	assert.Equal(t, "make", reap.Body[0].Name)

	// Without echo, make sleeps only for the jobs' exits, on one pipe.
	we := buildkernelWorkload(t, s, scenario.Values{"jobs": 20, "hogs": 2, "echo": 0})
	require.Len(t, we.Pipes, 1)
	assert.Equal(t, []workload.Kind{R, F, J, R, F, J, S}, kinds(we, "sh"))

	old := scenario.Values{"jobs": 20, "hogs": 2, "chain": 0, "one_make": 0}
	w0 := buildkernelWorkload(t, s, old)
	n, _ = w0.Started()
	assert.Equal(t, 8+2+20, n, "j make slots, the hogs, one process per object")
	assert.Empty(t, w0.Pipes)

	b, err := scenario.Lookup("seed003-buildworld")
	require.NoError(t, err)
	for _, p := range b.Params {
		assert.NotContains(t, []string{"chain", "one_make", "sh_ms", "ctf_ms", "cc_blocks_per_s", "cc_off_us", "make_ms", "echo", "out_us"}, p.Name)
	}
	wb := buildkernelWorkload(t, b, scenario.Values{"jobs": 20, "hogs": 2, "cpus": 8, "j": 8, "smt": 1})
	assert.Equal(t, w0, wb, "without the chain's parameters the build is the earlier model")
}

// seed002-idle builds one process per job (the earlier model's gcc tree) under one make that
// wakes for each job's echo and exit, so that make is woken from the CPUs its jobs ran on.
func TestSeed002OneMake(t *testing.T) {
	s, err := scenario.Lookup("seed002-idle")
	require.NoError(t, err)
	w := buildkernelWorkload(t, s, scenario.Values{"jobs": 20})
	n, exact := w.Started()
	assert.True(t, exact)
	assert.Equal(t, 1+20, n, "make and one process per object")
	require.Len(t, w.Pipes, 2)
	cc := w.Threads[0]
	require.Equal(t, "cc", cc.Name)
	assert.Equal(t, workload.Send, cc.Ops[0].Kind, "the shell's echo of the command")
	assert.Equal(t, "make", cc.Ops[0].Name)
	assert.Equal(t, workload.Send, cc.Ops[len(cc.Ops)-1].Kind)
}
