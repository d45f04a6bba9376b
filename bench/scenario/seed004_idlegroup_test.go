package scenario_test

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schbench -m M -t N runs M message threads, each waking its own N workers (schbench.c of
// 2021: worker_threads is "workers per message thread"), and its latencies pool every
// message thread's workers: each worker is woken by its own message thread alone, and every
// such wake-up that ran after the warm-up counts once.
func TestSeed004IdlegroupMessageThreads(t *testing.T) {
	r, _ := runSeed004(t, "seed004-idlegroup", "cfs:v6.5", scenario.Values{
		"msg_threads": 2, "workers": 3, "cpus": 8, "nodes": 2, "seconds": 0.5, "warmup_s": 0})
	owner := map[sched.ID]string{}
	msg := map[sched.ID]string{}
	for i := range r.Threads {
		th := &r.Threads[i]
		switch {
		case strings.HasPrefix(th.Name, "message"):
			msg[th.ID] = strings.TrimPrefix(th.Name, "message")
		case strings.HasPrefix(th.Name, "worker"):
			owner[th.ID] = strings.SplitN(strings.TrimPrefix(th.Name, "worker"), "_", 2)[0]
		}
	}
	require.Len(t, msg, 2, "two message threads")
	require.Len(t, owner, 6, "three workers each")
	woken := map[string]int{}
	for _, rec := range r.Trace.Records {
		if m, ok := msg[sched.ID(rec.Other)]; ok && rec.Kind == sim.KindWakeup {
			if o, ok := owner[rec.Thread]; ok {
				assert.Equal(t, o, m, "worker %d woken by another message thread", rec.Thread)
				woken[m]++
			}
		}
	}
	assert.Positive(t, woken["0"])
	assert.Positive(t, woken["1"])
	// Every wake-up but those still waiting for a CPU at the end counts.
	n := scenario.WalkLatencies(r, 0, 30e6).Count()
	assert.InDelta(t, woken["0"]+woken["1"], n, 6, "the latencies pool both message threads' workers")
}

// Seed 004's machine is mmtests' arithmetic: 96 CPUs in 4 NUMA nodes by default, and a CPU
// count the nodes and SMT do not divide is an error, not a silent rounding.
func TestSeed004Topology(t *testing.T) {
	for _, name := range []string{"seed004-idlegroup", "seed004-tbench", "seed004-perfpipe", "seed004-hackbench-process-pipes"} {
		s, err := scenario.Lookup(name)
		require.NoError(t, err)
		v := s.Defaults()
		setup, err := s.Build(v, &s.Rows[0])
		require.NoError(t, err, name)
		topo := setup.Config.Topology
		assert.Equal(t, 96, topo.NumCPUs(), name)
		assert.Equal(t, 4, topo.NumNodes(), name)
		assert.Len(t, topo.Groups(topology.LLC), 4, "one cache a node: %s", name)
		v["cpus"] = 90
		_, err = s.Build(v, &s.Rows[0])
		assert.ErrorContains(t, err, "not a multiple", name)
	}
}
