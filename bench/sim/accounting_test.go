package sim_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTickSamplingMissesPhaseLockedWork reproduces seed 002's I vs X: a thread that runs 500us
// just after each clock interrupt and sleeps across the next is never seen by the ticks, so
// kern.cp_time reports the CPU idle all the time (I = r) while td_runtime knows it was busy half
// of it (X = r/2): the disagreement is exactly the work the sampling cannot see.
func TestTickSamplingMissesPhaseLockedWork(t *testing.T) {
	w := mustParse(t, "thread sneak\n\tevery 1ms phase=100us\n\t\trun 500us\n\tend\nend\n")
	r, err := sim.RunUntil(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, newRR(1000, 4), w, sim.Stop{Time: time.Second})
	require.NoError(t, err)
	a := r.Accounting()
	assert.Equal(t, time.Second, a.Real)
	assert.Equal(t, int64(1000), a.Ticks[sim.CPUIdle], "every tick finds the CPU idle")
	assert.Equal(t, time.Second, a.Idle)
	assert.Zero(t, a.Total)
	// The first period starts at 100us, the thread's creation at 0 being before it.
	assert.Equal(t, time.Second-1000*500*time.Microsecond, a.IdleExact)
	assert.Equal(t, 500*time.Millisecond, a.Idle-a.IdleExact, "I - X = the work between ticks")
	assert.Equal(t, "1.00r 0.00u 0.00s 0.00i 0.00t 1.00I 0.50X", a.String())

	// Shifted to straddle the ticks (800us to 1.3ms of each period), the same work is seen by
	// every tick: kern.cp_time now reports the CPU busy all the time, twice the truth.
	w = mustParse(t, "thread lump\n\tevery 1ms phase=800us\n\t\trun 500us\n\tend\nend\n")
	r, err = sim.RunUntil(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, newRR(1000, 4), w, sim.Stop{Time: time.Second})
	require.NoError(t, err)
	a = r.Accounting()
	assert.Equal(t, int64(1000), a.Ticks[sim.CPUUser], "the ticks at 1, 2, …, 1000ms find it running")
	assert.Zero(t, a.Idle)
	assert.Equal(t, 500*time.Millisecond+300*time.Microsecond, a.IdleExact, "half of each period, and the last run is cut at 1s")
}

func TestAccountingColumns(t *testing.T) {
	// Two hogs on one CPU, switching every 4 ticks with a switch stall of 1.5ms that covers the
	// next tick: that tick counts as system time, the others as user (nice 0) or nice (nice 5).
	w := mustParse(t, "thread a nice=5\n\trun forever\nend\nthread b\n\trun forever\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Costs: sim.Costs{Tick: sim.Fixed(10 * time.Microsecond), Switch: sim.Fixed(1500 * time.Microsecond)}}
	r, err := sim.Run(cfg, newRR(1000, 4), w, time.Second)
	require.NoError(t, err)
	a := r.Accounting()
	assert.Equal(t, int64(1000), a.Ticks[sim.CPUUser]+a.Ticks[sim.CPUNice]+a.Ticks[sim.CPUSys]+a.Ticks[sim.CPUIntr]+a.Ticks[sim.CPUIdle])
	assert.Equal(t, r.CPUs[0].Switches-1, a.Ticks[sim.CPUSys], "one tick inside each switch stall (not the first switch, from idle)")
	assert.Greater(t, a.Nice, time.Duration(0))
	assert.Greater(t, a.User, a.Nice)
	assert.Equal(t, a.User+a.Sys+a.Intr, a.Total)
	assert.Equal(t, a.Real, a.Total+a.Idle)
	assert.Equal(t, time.Duration(r.CPUs[0].Idle), a.IdleExact)
}
