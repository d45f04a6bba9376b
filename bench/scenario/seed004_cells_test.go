package scenario_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runSeed004 builds scenario name's run at v (over its defaults) and runs it under policy.
func runSeed004(t *testing.T, name, policy string, v scenario.Values) (*sim.Result, scenario.Setup) {
	t.Helper()
	return runScenario(t, name, policy, v, sim.TraceOff)
}

// runScenario builds scenario name's run at v (over its defaults) with its first row and seed
// 1, keeps at least trace of its trace (more if the scenario asks for it), and runs it under
// policy to its end.
func runScenario(t *testing.T, name, policy string, v scenario.Values, trace sim.TraceMode) (*sim.Result, scenario.Setup) {
	t.Helper()
	s, err := scenario.Lookup(name)
	require.NoError(t, err)
	vals := s.Defaults()
	for k, x := range v {
		vals[k] = x
	}
	setup, err := s.Build(vals, &s.Rows[0])
	require.NoError(t, err)
	setup.Config.Seed, setup.Config.Trace = 1, max(setup.Config.Trace, trace)
	setup.Values = vals
	p, err := presets.New(policy)
	require.NoError(t, err)
	m, err := sim.New(setup.Config, p, setup.Workload)
	require.NoError(t, err)
	_, err = m.RunUntil(sim.Stop{Time: setup.Until, Threads: setup.StopWhenExited})
	require.NoError(t, err)
	r := m.Result()
	require.NoError(t, r.Err())
	return r, setup
}

// The calibration is the stored measurement, and the scenarios' defaults are its numbers.
func TestSeed004Calibration(t *testing.T) {
	c := scenario.Seed004()
	assert.Equal(t, 100, c.MessageBytes)
	for _, x := range []int64{c.ProcessPipesNs, c.ProcessSocketsNs, c.ThreadPipesNs, c.ThreadSocketsNs, c.PerfPipeNs,
		c.TbenchClientNsPerRq, c.TbenchServerNsPerRq} {
		assert.Positive(t, x)
	}
	for name, want := range map[string][2]float64{
		"seed004-hackbench-process-pipes":   {float64(c.ProcessPipesNs), float64(c.PipeCapacity)},
		"seed004-hackbench-process-sockets": {float64(c.ProcessSocketsNs), float64(c.SocketCapacity)},
		"seed004-hackbench-thread-pipes":    {float64(c.ThreadPipesNs), float64(c.PipeCapacity)},
		"seed004-hackbench-thread-sockets":  {float64(c.ThreadSocketsNs), float64(c.SocketCapacity)},
	} {
		s, err := scenario.Lookup(name)
		require.NoError(t, err)
		d := s.Defaults()
		assert.Equal(t, want[0], d["msg_ns"], name)
		assert.Equal(t, want[1], d["cap"], name)
	}
}

// A hackbench run is groups of 20 receivers and 20 senders that all exit, each receiver having
// read 20 × loops messages, and the run ends when the last of them has.
func TestSeed004HackbenchShape(t *testing.T) {
	r, setup := runSeed004(t, "seed004-hackbench-process-pipes", "cfs:v6.5", scenario.Values{"groups": 3, "loops": 4, "cpus": 8, "spread": 0})
	var recv, send int
	var last int64
	for i := range r.Threads {
		th := &r.Threads[i]
		switch {
		case strings.HasPrefix(th.Name, "hbrecv"):
			recv++
		case strings.HasPrefix(th.Name, "hbsend"):
			send++
		default:
			assert.Equal(t, "offline", th.Group, "%s: only the benchmark runs in the normal group", th.Name)
			continue
		}
		require.GreaterOrEqual(t, th.End, int64(0), "%s exited", th.Name)
		last = max(last, th.End)
		assert.Equal(t, "online", th.Group)
	}
	assert.Equal(t, 60, recv)
	assert.Equal(t, 60, send)
	assert.Equal(t, last, r.End, "the run ends at the last exit of the benchmark")
	// Every message costs msg_ns of CPU in all: the benchmark's threads did exactly that work.
	var work int64
	for i := range r.Threads {
		if strings.HasPrefix(r.Threads[i].Name, "hb") {
			work += r.Threads[i].Work
		}
	}
	msgs := int64(3 * 20 * 20 * 4)
	half := int64(setup.Values["msg_ns"] / 2)
	assert.Equal(t, msgs*2*half, work)
}

// With the online group alone on its CPUs and no costs, perf bench sched pipe takes exactly
// two messages' CPU per round trip: each task waits for the other.
func TestSeed004PerfPipeIsSerial(t *testing.T) {
	r, setup := runSeed004(t, "seed004-perfpipe", "cfs:v6.5", scenario.Values{"loops": 100, "cpus": 8, "spread": 0})
	half := int64(setup.Values["msg_ns"] / 2)
	assert.Equal(t, int64(setup.Values["warmup_ms"]*1e6)+100*4*half, r.End)
}

// One tbench client's round trip is its and its server's CPU time per request.
func TestSeed004TbenchRoundTrip(t *testing.T) {
	r, setup := runSeed004(t, "seed004-tbench", "cfs:v6.5", scenario.Values{"clients": 1, "seconds": 0.01, "cpus": 8, "spread": 0})
	c, ok := r.Thread("tbclient0")
	require.True(t, ok)
	rt := setup.Values["client_ns"] + setup.Values["server_ns"]
	want := setup.Values["seconds"] * 1e9 / rt
	assert.InDelta(t, want, float64(c.Wakeups), 1, "one answer per round trip of %g ns", rt)
}

// A tbench line's wake-ups as Linux v6.1 makes them over loopback TCP: tcp_sendmsg's transmit
// runs the receiver's softirq on the sender's CPU, in its context (loopback_xmit, __netif_rx,
// enqueue_to_backlog on smp_processor_id(), do_softirq at __dev_queue_xmit's
// rcu_read_unlock_bh), and tcp_data_ready's sock_def_readable wakes the reader with
// wake_up_interruptible_sync_poll (WF_SYNC). So each wake-up of a client or a server is sync,
// by its partner, from the partner's CPU. At one client the two never share a CPU, so no online
// entity holds one longer than a line and the patch's tick test (after 3 ms) never meets it:
// select_idle_sibling (fair.c) returns a target or prev that runs only idle-group tasks
// (sched_idle_cpu, idle_h_nr_running counting cpu.idle groups' tasks), as the pair's CPUs are
// whenever they are not idle, even on one LLC of 24 CPUs that the messaging fills, where
// SIS_UTIL stops select_idle_cpu's scan. Both kernels then make the same run.
func TestSeed004TbenchWakePath(t *testing.T) {
	for _, tc := range []struct {
		v    scenario.Values
		full bool // the messaging keeps the LLC at least 85 % busy (SIS_UTIL's nr_idle_scan 0)
	}{
		{scenario.Values{"clients": 1, "seconds": 0.01}, false},
		{scenario.Values{"clients": 1, "seconds": 0.01, "cpus": 24, "nodes": 1}, true},
	} {
		v := tc.v
		var hashes []uint64
		for _, policy := range []string{"cfs:v6.5", "cfs:v6.5+favor-nonidle-tick"} {
			r, _ := runSeed004(t, "seed004-tbench", policy, v)
			c, ok := r.Thread("tbclient0")
			require.True(t, ok)
			s, ok := r.Thread("tbserver0")
			require.True(t, ok)
			partner := map[sched.ID]sched.ID{c.ID: s.ID, s.ID: c.ID}
			on := map[sched.ID]topology.CPU{}
			wakes, handed := 0, 0
			for _, rec := range r.Trace.Records {
				_, tb := partner[rec.Thread]
				switch {
				case rec.Kind == sim.KindSwitch && tb:
					on[rec.Thread] = rec.CPU
					if _, from := partner[sched.ID(rec.Other)]; from {
						handed++
					}
				case rec.Kind == sim.KindWakeup && tb && sched.WakeFlags(rec.Arg)&sched.WakeFork == 0:
					wakes++
					p := partner[rec.Thread]
					assert.Equal(t, sched.WakeSync, sched.WakeFlags(rec.Arg), "%v %s: wake-up flags", v, policy)
					assert.Equal(t, int32(p), rec.Other, "%v %s: the waker is the partner", v, policy)
					assert.Equal(t, on[p], rec.CPU, "%v %s: woken from the partner's CPU", v, policy)
				}
			}
			assert.Zero(t, handed, "%v %s: a side handed its CPU to its partner", v, policy)
			if tc.full {
				var busy, all int64
				for _, cpu := range r.CPUs {
					busy, all = busy+cpu.Busy, all+cpu.Busy+cpu.Idle
				}
				assert.GreaterOrEqual(t, float64(busy)/float64(all), 0.85, "%v %s: the LLC's busy share", v, policy)
			}
			assert.Greater(t, wakes, 100, "%v %s: lines exchanged", v, policy)
			hashes = append(hashes, r.Trace.Hash())
		}
		assert.Equal(t, hashes[0], hashes[1], "%v: the two kernels' runs are the same", v)
	}
}

// tbench's latency column is the longest line of any client, a line under way counting with its
// age: with fixed costs every line is one round trip of the two sides' CPU, and a server that
// never answers within the run leaves a line as long as the run.
func TestSeed004TbenchWorstLine(t *testing.T) {
	s, err := scenario.Lookup("seed004-tbench")
	require.NoError(t, err)
	worst := s.Metrics[0].Of
	r, setup := runSeed004(t, "seed004-tbench", "cfs:v6.5", scenario.Values{"clients": 2, "seconds": 0.01, "cpus": 8, "spread": 0})
	rt := (setup.Values["client_ns"] + setup.Values["server_ns"]) / 1e6
	assert.InDelta(t, rt, worst(r, &setup), 1e-9, "one round trip, in ms")
	r, setup = runSeed004(t, "seed004-tbench", "cfs:v6.5", scenario.Values{"clients": 1, "seconds": 0.01, "cpus": 8, "spread": 0, "server_ns": 1e9})
	assert.InDelta(t, 10.0, worst(r, &setup), 1e-9, "the unanswered first line lasts the whole 10 ms run")
}

// The seed 004 cells print the same bytes whatever the number of workers, and their seeded
// repetitions differ (the costs are drawn), so that the t-test has a spread to work with.
func TestSeed004CellsDeterministic(t *testing.T) {
	for _, name := range []string{"seed004-tbench", "seed004-hackbench-thread-pipes"} {
		s, err := scenario.Lookup(name)
		require.NoError(t, err)
		var tables []string
		for _, workers := range []int{1, 2} {
			rep, err := scenario.Run(s, scenario.Options{Small: true, Reps: 2, Workers: workers})
			require.NoError(t, err)
			var b strings.Builder
			require.NoError(t, rep.WriteTable(&b))
			tables = append(tables, b.String())
			xs := rep.Samples[0][0][0]
			assert.NotEqual(t, xs[0], xs[1], "%s: repetitions with different seeds differ", name)
		}
		assert.Equal(t, tables[0], tables[1], name)
	}
}

// Two of the cells' tables at their small size are pinned, so that a change of any number
// shows, and the same bytes come out on every architecture (run it under GOARCH=386 with
// qemu-i386 to check: go test -exec qemu-i386 -run TestSeed004Golden).
func TestSeed004Golden(t *testing.T) {
	var b bytes.Buffer
	for _, name := range []string{"seed004-perfpipe", "seed004-hackbench-process-sockets"} {
		s, err := scenario.Lookup(name)
		require.NoError(t, err)
		rep, err := scenario.Run(s, scenario.Options{Small: true, Reps: 2})
		require.NoError(t, err)
		require.NoError(t, rep.WriteTable(&b))
	}
	file := filepath.Join("testdata", "seed004-cells.golden")
	if *update {
		require.NoError(t, os.WriteFile(file, b.Bytes(), 0o644))
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String())
}

func TestTbenchThroughputErrors(t *testing.T) {
	s, err := scenario.Lookup("seed004-perfpipe")
	require.NoError(t, err)
	rep, err := scenario.Run(s, scenario.Options{Small: true, Reps: 2})
	require.NoError(t, err)
	_, err = scenario.TbenchThroughput(rep, 0)
	assert.ErrorContains(t, err, "want seed004-tbench")
	tb, err := scenario.Lookup("seed004-tbench")
	require.NoError(t, err)
	rep, err = scenario.Run(tb, scenario.Options{Small: true, Reps: 2, Set: scenario.Values{"seconds": 0.001}})
	require.NoError(t, err)
	_, err = scenario.TbenchThroughput(rep, 1)
	assert.ErrorContains(t, err, "point 1 outside 0..0")
	c, err := scenario.TbenchThroughput(rep, 0)
	require.NoError(t, err)
	require.Len(t, c.Ops, 10)
	assert.Equal(t, "384", c.Ops[9].Name)
	assert.Equal(t, rep.Samples[0][19][1], c.Ops[9].Samples[1], "the patched kernel's throughput at 384 clients")
}

// TestSeed004CellsChargeLatenciesOnly: the hackbench, perf-pipe and tbench cells charge the ci
// profile's latencies and none of its CPU figures, which their calibrated CPU holds; under
// another profile (-profile ideal) its latencies; seed004-idlegroup, whose costs are not
// calibrated from a program's CPU time, charges the whole ci profile.
func TestSeed004CellsChargeLatenciesOnly(t *testing.T) {
	ci := sim.DefaultProfile()
	ciCosts, ciExit := ci.Costs()
	for _, name := range scenario.Names() {
		if !strings.HasPrefix(name, "seed004-") || name == "seed004-idlegroup" {
			continue
		}
		s, err := scenario.Lookup(name)
		require.NoError(t, err)
		assert.True(t, s.LatenciesOnly, name)
		pl, err := scenario.NewPlan(s, scenario.Options{Small: true})
		require.NoError(t, err)
		assert.Equal(t, "ci (latencies only)", pl.Profile.Name, name)
		assert.True(t, pl.Profile.LatenciesOnly(), name)
		setup, err := s.Build(pl.Cells[0].Values, &s.Rows[0])
		require.NoError(t, err)
		scenario.Charge(pl.Profile, &setup.Config)
		c := setup.Config.Costs
		assert.Equal(t, ciCosts.IPI, c.IPI, name)
		assert.Equal(t, ciCosts.Timer, c.Timer, name)
		assert.Equal(t, ciExit, setup.Config.Idle.ExitLatency, name)
		assert.False(t, c.IPI.IsZero(), name)
		for _, z := range []sim.Cost{c.Wakeup, c.IPISend, c.Switch, c.SwitchMM, c.Refill, c.Migration.SMT, c.Migration.LLC,
			c.Migration.Node, c.Migration.Remote, c.Tick} {
			assert.True(t, z.IsZero(), "%s charges a CPU figure: %+v", name, c)
		}
		ideal, err := scenario.NewPlan(s, scenario.Options{Small: true, Profile: sim.IdealProfile()})
		require.NoError(t, err)
		assert.Equal(t, "ideal (latencies only)", ideal.Profile.Name, name)
		assert.True(t, ideal.Profile.Ideal(), name)
	}
	s, err := scenario.Lookup("seed004-idlegroup")
	require.NoError(t, err)
	pl, err := scenario.NewPlan(s, scenario.Options{Small: true})
	require.NoError(t, err)
	assert.Equal(t, ci, pl.Profile)
}

// FavorNonIdleTick changes a tick's decision only where the online group's entity has run 3 ms on
// end (sysctl_sched_min_granularity: 0.75 ms × (1 + ilog2(8)) on 96 CPUs) and leads the idle
// group's entity by more than its ideal slice. hackbench process-pipes at 21 groups and the
// default 5 loops ends within a few milliseconds, before any such tick, so both kernels' runs are
// the same thread by thread; at 100 loops (runs of about 16 ms) the patch keeps the online group
// on a CPU where v6.5 hands it to the idle group, and the runs differ.
func TestSeed004HackbenchPatchNeedsLongRuns(t *testing.T) {
	run := func(policy string, loops float64) string {
		r, _ := runSeed004(t, "seed004-hackbench-process-pipes", policy, scenario.Values{"groups": 21, "loops": loops})
		var b strings.Builder
		fmt.Fprintf(&b, "end %d\n", r.End)
		for i := range r.Threads {
			th := &r.Threads[i]
			fmt.Fprintf(&b, "%s cpu %d invol %d\n", th.Name, th.CPUTime, th.Involuntary)
		}
		return b.String()
	}
	assert.True(t, run("cfs:v6.5", 5) == run("cfs:v6.5+favor-nonidle-tick", 5), "5 loops: the runs differ, so some tick decided differently")
	assert.False(t, run("cfs:v6.5", 100) == run("cfs:v6.5+favor-nonidle-tick", 100), "100 loops: the runs are the same, so the patch never acted")
}
