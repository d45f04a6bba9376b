package host

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLatencyExperimentsBuild builds the rows on time under the shipped profiles: every
// workload parses and validates, every row has a goal, and the benchmark workloads have the
// programs' shapes.
func TestLatencyExperimentsBuild(t *testing.T) {
	for _, p := range []*sim.Profile{sim.IdealProfile(), sim.DefaultProfile()} {
		exps := LatencyExperiments(p, 1)
		require.Len(t, exps, 6+4+12+4)
		for _, e := range exps {
			require.NoError(t, e.Workload.Validate(), e.Name)
			assert.NotEmpty(t, e.Goal.Name, e.Name)
		}
	}
	// hackbench -g 2: 2 × (20 senders + 20 receivers), 40 pipes; processes each their own.
	w := mustParse(hackbenchText(sim.DefaultProfile(), 2, 3, false, false))
	assert.Len(t, w.Threads, 80)
	assert.Len(t, w.Pipes, 40)
	procs := map[string]bool{}
	for _, th := range w.Threads {
		procs[th.Process] = true
	}
	assert.Len(t, procs, 80)
	w = mustParse(hackbenchText(sim.DefaultProfile(), 1, 3, true, true))
	for _, th := range w.Threads {
		assert.Equal(t, "hackbench", th.Process)
	}
	assert.Equal(t, hackbenchSocketCap, w.Pipes[0].Cap)
	// perf bench sched pipe: threads of one process with -T, processes without.
	assert.Contains(t, perfPipeText(nil, 10, true, 1), "process=perf")
	assert.NotContains(t, perfPipeText(nil, 10, false, -1), "process=")
	assert.Contains(t, perfPipeText(nil, 10, false, 1), "cpus=1")
}

// TestPerfPipeModel: on the ideal machine the model's round trip is the system calls alone (the
// profile's pipe figure twice, a write and a read on each side); under a profile it adds the
// wake-ups and switches of both ways.
func TestPerfPipeModel(t *testing.T) {
	ideal := sim.IdealProfile()
	e := PerfPipeExperiment(ideal, true, 0)
	v, err := modelExperiment(mustTopo(t), ideal, "cfs:v7.1", e, 1)
	require.NoError(t, err)
	assert.InDelta(t, 2*float64(defaultPipeRW)/1e3, v, 0.01)
	ci := sim.DefaultProfile()
	e = PerfPipeExperiment(ci, true, 0)
	c, err := modelExperiment(mustTopo(t), ci, "cfs:v7.1", e, 1)
	require.NoError(t, err)
	k, _ := ci.Costs()
	low := 2 * float64(programCost(ci, "pipe", 0)+k.Switch.Min+k.Wakeup.Min) / 1e3
	assert.Greater(t, c, low, "two pipe system calls, two wake-ups, two switches per round trip")
}

func TestOneProcess(t *testing.T) {
	w := mustParse("thread a\n\trun 1ms\nend\nthread b process=x\n\trun 1ms\nend\n")
	o := oneProcess(w)
	for _, th := range o.Threads {
		assert.Equal(t, runnerProcess, th.Process)
	}
	assert.Equal(t, "", w.Threads[0].Process, "the original is left alone")
	assert.Nil(t, oneProcess(nil))
}

func TestCyclictestExperimentRuns(t *testing.T) {
	e := CyclictestExperiment(0, 50, true)
	v, err := modelExperiment(mustTopo(t), sim.DefaultProfile(), "cfs:v7.1", e, 1)
	require.NoError(t, err)
	assert.Positive(t, v, "a percentile of exactly 0 under a profile with costs is a bug")
	assert.True(t, strings.HasPrefix(e.Name, "cyclictest"))
	assert.Equal(t, time.Duration(CyclictestPeriods)*time.Millisecond+time.Second, e.Limit)
}

// TestModelOnlyMachine: the model-only table's machine is what topology.Discover reads from the
// CI guest's sysfs (Linux 6.18.44 on Firecracker, the guest fc-v1300 of 2026-12-07): two CPUs
// of one package and node, a core each, with private L1 and L2 caches and an L3 shared by both;
// and it has the LLC level of two CPUs, which the guest before it (fc-v1272, no cache
// directories: package:1 node:1 cpu:2) did not.
func TestModelOnlyMachine(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s + "\n")} }
	guest := fstest.MapFS{
		"devices/system/cpu/online":          file("0-1"),
		"devices/system/node/node0/cpulist":  file("0-1"),
		"devices/system/node/node0/distance": file("10"),
	}
	for c := range 2 {
		dir := fmt.Sprintf("devices/system/cpu/cpu%d/", c)
		guest[dir+"topology/core_cpus_list"] = file(fmt.Sprint(c))
		guest[dir+"topology/cluster_cpus_list"] = file(fmt.Sprint(c))
		guest[dir+"topology/package_cpus_list"] = file("0-1")
		guest[dir+"cpu_capacity"] = file("1024")
		for i, cache := range []struct{ level, shared string }{{"1", fmt.Sprint(c)}, {"1", fmt.Sprint(c)}, {"2", fmt.Sprint(c)}, {"3", "0-1"}} {
			idx := fmt.Sprintf("%scache/index%d/", dir, i)
			guest[idx+"level"] = file(cache.level)
			guest[idx+"shared_cpu_list"] = file(cache.shared)
		}
	}
	read, err := topology.DiscoverFS(guest, topology.CPURange(0, topology.MaxCPUs-1))
	require.NoError(t, err)
	m := ModelOnlyTable().Topology
	assert.Equal(t, read.String(), m.String())
	assert.Equal(t, "package:1 node:1 llc:1 cpu:2", m.String())
	private, err := topology.Parse("package:1 node:1 cpu:2")
	require.NoError(t, err)
	assert.NotEqual(t, private.String(), m.String())
}

// mustTopo returns the two-CPU machine the model-only table simulates (an LLC of both CPUs).
func mustTopo(t *testing.T) *topology.Topology {
	t.Helper()
	return ModelOnlyTable().Topology
}

// TestHackbenchProcessCosts: a child process of hackbench starts with one copy-on-write fault
// and ends with hackbenchExitFaults more and its exit, at the profile's figures beside a busy
// CPU where it has them, else beside an idle one; threads (-T) and a profile without these
// figures charge none of it, so that their workloads are as they were.
func TestHackbenchProcessCosts(t *testing.T) {
	fig := func(us float64) sim.Figure {
		return sim.Figure{Cost: sim.Fixed(time.Duration(us * 1e3)), Unit: "us", Method: "test", Date: "2026-12-06"}
	}
	idle := &sim.Profile{Name: "idle", Program: map[string]sim.Figure{"fault": fig(13), "exit": fig(270)}}
	busy := &sim.Profile{Name: "busy", Program: map[string]sim.Figure{"fault": fig(13), "exit": fig(270), "fault_busy": fig(38), "exit_busy": fig(555)}}
	for _, tc := range []struct {
		p          *sim.Profile
		start, end string
	}{
		{idle, "\trun 13000ns\n\trepeat", "\tend\n\trun 452000ns\nend\n"},  // 14 × 13 + 270 µs
		{busy, "\trun 38000ns\n\trepeat", "\tend\n\trun 1087000ns\nend\n"}, // 14 × 38 + 555 µs
	} {
		text := hackbenchText(tc.p, 1, 3, false, false)
		assert.Equal(t, 2*hackbenchFDs, strings.Count(text, tc.start), tc.p.Name)
		assert.Equal(t, 2*hackbenchFDs, strings.Count(text, tc.end), tc.p.Name)
		assert.Equal(t, hackbenchText(nil, 1, 3, true, false), hackbenchText(tc.p, 1, 3, true, false), "threads under %s", tc.p.Name)
	}
	plain := hackbenchText(&sim.Profile{Name: "none"}, 1, 3, false, false)
	assert.Equal(t, hackbenchText(nil, 1, 3, false, false), plain)
	assert.NotContains(t, plain, "\tend\n\trun")
	// The costs lengthen the model's run (on the ideal machine), which cannot be shorter than
	// its CPU work on 2 CPUs: 20 × 20 × 50 messages of defaultPipeRW and 40 children's
	// 1.125 ms of faults and exit.
	ideal := sim.IdealProfile()
	plainMs, err := modelExperiment(mustTopo(t), ideal, "cfs:v7.1", HackbenchExperiment(&sim.Profile{Name: "none"}, 1, false, false), 1)
	require.NoError(t, err)
	busyMs, err := modelExperiment(mustTopo(t), ideal, "cfs:v7.1", HackbenchExperiment(busy, 1, false, false), 1)
	require.NoError(t, err)
	work := float64(hackbenchFDs*hackbenchFDs*HackbenchLoops)*defaultPipeRW.Seconds()*1e3 + 2*hackbenchFDs*1.125
	assert.Greater(t, busyMs, plainMs)
	assert.GreaterOrEqual(t, busyMs, work/2, "%.2f ms → %.2f ms", plainMs, busyMs)
}

// TestHackbenchSharedMessage: hackbench's messages cost the profile's shared figure (the pipe or
// socket written from another CPU too) where it has one, else the one-thread figure, else the
// default; half on the sender's side and half on the receiver's.
func TestHackbenchSharedMessage(t *testing.T) {
	fig := func(ns int64) sim.Figure {
		return sim.Figure{Cost: sim.Fixed(time.Duration(ns)), Unit: "us", Method: "test", Date: "2026-12-06"}
	}
	one := map[string]sim.Figure{"pipe100": fig(2400), "socket100": fig(3000)}
	shared := map[string]sim.Figure{"pipe100": fig(2400), "socket100": fig(3000), "pipe100_shared": fig(3600), "socket100_shared": fig(4400)}
	for _, tc := range []struct {
		name    string
		program map[string]sim.Figure
		socket  bool
		half    string
	}{
		{"none", nil, false, fmt.Sprintf("run %dns\n", defaultPipeRW.Nanoseconds()/2)},
		{"one", one, false, "run 1200ns\n"},
		{"one", one, true, "run 1500ns\n"},
		{"shared", shared, false, "run 1800ns\n"},
		{"shared", shared, true, "run 2200ns\n"},
	} {
		text := hackbenchText(&sim.Profile{Name: tc.name, Program: tc.program}, 1, 3, true, tc.socket)
		// 20 senders × 20 receivers' halves, and 20 receivers' halves.
		assert.Equal(t, hackbenchFDs*hackbenchFDs+hackbenchFDs, strings.Count(text, tc.half), "%s socket=%v", tc.name, tc.socket)
	}
}

// TestHackbenchSwitchMMRing: hackbench's process mode on a profile with switch_mm_ring charges
// its median as the switch of address space (and leaves the other costs as the profile has
// them); threads, and a profile without the figure, keep the profile's switch_mm. The model's
// switches cost more with it: hackbench's processes switch among themselves. (Its run's length
// is no test: the model's response is chaotic, and on the CI guest's machine, two CPUs sharing
// no cache, the dearer switch shortens seed 1's run by stacking fewer wake-ups.)
func TestHackbenchSwitchMMRing(t *testing.T) {
	// The default profile without the figure, and with it at a known cost.
	base := *sim.DefaultProfile()
	base.Program = maps.Clone(base.Program)
	delete(base.Program, "switch_mm_ring")
	ci := &base
	r := *ci
	ring := &r
	ring.Program = maps.Clone(ci.Program)
	ring.Program["switch_mm_ring"] = sim.Figure{Cost: sim.Cost{Min: 5000, P50: 11000, P90: 14000, P99: 30000, Max: 200000}, Unit: "us", Method: "test", Date: "2026-12-06"}
	assert.Nil(t, HackbenchExperiment(ring, 1, true, false).Costs, "threads switch no address space")
	assert.Nil(t, HackbenchExperiment(ci, 1, false, false).Costs, "no figure: the profile's switch_mm")
	assert.Nil(t, hackbenchSwitchMM(nil, false))
	adjust := HackbenchExperiment(ring, 1, false, true).Costs
	require.NotNil(t, adjust)
	k, _ := ring.Costs()
	before := k
	adjust(&k)
	assert.Equal(t, sim.Fixed(11000), k.SwitchMM)
	k.SwitchMM = before.SwitchMM
	assert.Equal(t, before, k, "nothing else moves")
	perSwitch := Metric{Name: "switching time a switch (ns)", Of: func(r *sim.Result) float64 {
		var d, n int64
		for _, c := range r.CPUs {
			d, n = d+c.Switch, n+c.Switches
		}
		return float64(d) / float64(n)
	}}
	plainExp, ringExp := HackbenchExperiment(ci, 1, false, true), HackbenchExperiment(ring, 1, false, true)
	plainExp.Metric, ringExp.Metric = perSwitch, perSwitch
	plain, err := modelExperiment(mustTopo(t), ci, "cfs:v7.1", plainExp, 1)
	require.NoError(t, err)
	withRing, err := modelExperiment(mustTopo(t), ring, "cfs:v7.1", ringExp, 1)
	require.NoError(t, err)
	assert.Greater(t, withRing, plain)
}
