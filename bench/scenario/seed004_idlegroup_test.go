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

// schbench's latency (worker_thread, add_lat) runs from the message thread's clock read before
// its walk, the walk's first wake-up, to the worker's read after its spin, here its block, less
// cputime, and is 1 µs when that is not positive: a preemption before the spin's end does not
// count, one across it does. Hand-made traces, cputime 30 ms.
func TestSeed004WalkLatencies(t *testing.T) {
	const ms = int64(1e6)
	threads := []sim.ThreadStats{{ID: 0, Name: "message0"}, {ID: 1, Name: "worker0_0"}, {ID: 2, Name: "worker0_1"}}
	wake := func(at int64, who, by int32) sim.Record {
		return sim.Record{Time: at, Kind: sim.KindWakeup, Thread: sched.ID(who), Other: by}
	}
	sw := func(at int64, next, prev int32, why sched.StopReason) sim.Record {
		return sim.Record{Time: at, Kind: sim.KindSwitch, Thread: sched.ID(next), Other: prev, Arg: uint8(why)}
	}
	for _, tc := range []struct {
		name string
		recs []sim.Record
		from int64
		want []int64 // min and max of the latencies, and their count
	}{
		{"runs at once and blocks on time: 1 µs", []sim.Record{
			wake(100*ms, 0, -1), wake(110*ms, 1, 0), sw(110*ms, 1, -1, sched.Sleep), sw(140*ms, -1, 1, sched.Sleep)},
			0, []int64{1000, 1000, 1}},
		{"the second of a walk counts from its start; preempted mid-spin, not past its end", []sim.Record{
			wake(100*ms, 0, -1), wake(110*ms, 1, 0), wake(111*ms, 2, 0), sw(110*ms, 1, -1, sched.Sleep),
			sw(113*ms, 2, -1, sched.Sleep), sw(120*ms, -1, 2, sched.Preempt), sw(125*ms, 2, -1, sched.Sleep),
			sw(140*ms, -1, 1, sched.Sleep), sw(143*ms, -1, 2, sched.Sleep)},
			0, []int64{1000, 3 * ms, 2}},
		{"preempted across the end: the overrun counts", []sim.Record{
			wake(100*ms, 0, -1), wake(110*ms, 1, 0), sw(110*ms, 1, -1, sched.Sleep), sw(138*ms, -1, 1, sched.Preempt),
			sw(144*ms, 1, -1, sched.Sleep), sw(144*ms, -1, 1, sched.Sleep)},
			0, []int64{4 * ms, 4 * ms, 1}},
		{"before the warm-up's end: none", []sim.Record{
			wake(100*ms, 0, -1), wake(110*ms, 1, 0), sw(110*ms, 1, -1, sched.Sleep), sw(140*ms, -1, 1, sched.Sleep)},
			141 * ms, []int64{0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &sim.Result{Threads: threads, Trace: &sim.Trace{Records: tc.recs}}
			h := scenario.WalkLatencies(r, tc.from, 30*ms)
			require.Equal(t, tc.want[2], h.Count())
			if h.Count() > 0 {
				assert.Equal(t, tc.want[0], h.Min())
				assert.Equal(t, tc.want[1], h.Max())
			}
		})
	}
}
