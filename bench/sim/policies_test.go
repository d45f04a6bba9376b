package sim_test

// The real policies: each one's Scheduler satisfies Policy (the policy packages cannot say so
// themselves, since nothing outside bench imports bench), and each preset runs the common
// workload on the common topology.

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

var (
	_ sim.Policy = (*bsd4.Scheduler)(nil)
	_ sim.Policy = (*cfs.Scheduler)(nil)
	_ sim.Policy = (*ule.Scheduler)(nil)
)

// countedCFS adds the Queuer count to a CFS scheduler: each CPU's list of tasks (cfs_tasks)
// holds its queued tasks, the running one and, from v7.1 on, sleepers whose dequeue is delayed
// (DELAY_DEQUEUE), which are not runnable.
type countedCFS struct {
	*cfs.Scheduler
	cpus []topology.CPU
}

func (c *countedCFS) Queued() int {
	n := 0
	for _, cpu := range c.cpus {
		for t := c.System().Tasks(cpu).Front(); t != nil; t = t.Next() {
			if !t.E.Delayed() {
				n++
			}
		}
		if c.System().RunQueue(cpu).Curr() != nil {
			n--
		}
	}
	return n
}

// countedULE adds the Queuer count to a ULE scheduler: each CPU's load (tdq_load) counts its
// queued threads and the running one.
type countedULE struct {
	*ule.Scheduler
	cpus []topology.CPU
}

func (c *countedULE) Queued() int {
	n := 0
	for _, cpu := range c.cpus {
		st := c.System().CPU(cpu)
		n += st.Load()
		if st.Cur != nil {
			n--
		}
	}
	return n
}

// counted4BSD adds the Queuer count to a 4BSD scheduler, from its System's queues, so that
// Machine.Check compares the policy's count of queued threads with the machine's.
type counted4BSD struct {
	*bsd4.Scheduler
}

func (c *counted4BSD) Queued() int { return c.System().Queued() }

// realPolicies are every preset of every real policy, made fresh for a machine of topo.
func realPolicies(topo *topology.Topology) []policyCase {
	cpus := slices.Collect(topo.CPUs().All())
	var ps []policyCase
	for _, name := range ule.Presets() {
		p, err := ule.Preset(name)
		if err != nil {
			panic(err)
		}
		ps = append(ps, policyCase{p.Name, func() sim.Policy { return &countedULE{must(ule.New(p)), cpus} }})
	}
	for _, name := range bsd4.Presets() {
		p, err := bsd4.Preset(name)
		if err != nil {
			panic(err)
		}
		ps = append(ps, policyCase{p.Name, func() sim.Policy { return &counted4BSD{must(bsd4.New(p))} }})
	}
	for _, name := range cfs.Presets() {
		p, err := cfs.Preset(name)
		if err != nil {
			panic(err)
		}
		ps = append(ps, policyCase{p.Name, func() sim.Policy {
			s, err := cfs.New(p)
			if err != nil {
				panic(err)
			}
			return &countedCFS{s, cpus}
		}})
	}
	return ps
}

// benchmarked are the presets the benchmarks run besides the toy: one per policy.
var benchmarked = []string{"ule-main", "4bsd-main", "cfs-v6.5"}

func init() {
	for _, pc := range realPolicies(topology.Uniform(1, 1, 1, 8, 1)) {
		if slices.Contains(benchmarked, pc.name) {
			benchPolicies = append(benchPolicies, pc)
		}
	}
}

// TestCFSRequestsItCannotHonour runs the real cfs policy through the machine on the requests it
// cannot honour (issue 13's two examples): SCHED_FIFO and SCHED_RR threads, which it runs as
// SCHED_NORMAL and must say so through Result.Err, and seed 004's FavorNonIdleTick, a rule of
// classic CFS's tick that EEVDF has not, which must be refused before the run starts.
func TestCFSRequestsItCannotHonour(t *testing.T) {
	one := topology.Uniform(1, 1, 1, 1, 1)
	for _, preset := range []string{"v6.5", "v7.1"} {
		for _, class := range []string{"fifo", "rr"} {
			p, err := cfs.Preset(preset)
			require.NoError(t, err)
			s, err := cfs.New(p)
			require.NoError(t, err)
			w := mustParse(t, "thread a class="+class+" rtprio=10\n\trun 1ms\nend\nthread b\n\trun 1ms\nend\n")
			r, err := sim.Run(sim.Config{Topology: one}, s, w, time.Second)
			require.NoError(t, err, "%s %s", preset, class)
			require.Error(t, r.Err(), "%s ran a %s thread as SCHED_NORMAL without saying so", preset, class)
			assert.Contains(t, r.Err().Error(), "class "+class+" is a real-time class", "%s %s", preset, class)
		}
		p, err := cfs.Preset(preset)
		require.NoError(t, err)
		s, err := cfs.New(p)
		require.NoError(t, err)
		r, err := sim.Run(sim.Config{Topology: one}, s, mustParse(t, "thread b\n\trun 1ms\nend\n"), time.Second)
		require.NoError(t, err)
		assert.NoError(t, r.Err(), "%s: a normal thread is honoured", preset)
	}
	p, err := cfs.Preset("v7.1")
	require.NoError(t, err)
	p.FavorNonIdleTick = true
	s, err := cfs.New(p)
	if err == nil {
		_, err = sim.Run(sim.Config{Topology: one}, s, mustParse(t, "thread b\n\trun 1ms\nend\n"), time.Second)
	}
	require.Error(t, err, "FavorNonIdleTick under EEVDF must be refused before the run")
	assert.Contains(t, err.Error(), "FavorNonIdleTick")
}
