package sim_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIPICurveByIdleTime: the producer of lostWakeups sends every 300 µs and the consumer runs
// 100 µs after each, so CPU 1 has been idle 200 µs less the last IPI's latency when the next
// is sent. On a curve rising from 10 µs at no idle to 110 µs at 1 ms the latency settles where
// ipi = 10 µs + 100 µs × (200 µs − ipi) / 1 ms, 30/1.1 µs; the first send finds CPU 1 idle
// since the consumer blocked, 10 µs after the start (its own IPI at no idle): 290 µs, 39 µs.
func TestIPICurveByIdleTime(t *testing.T) {
	w := mustParse(t, lostWakeups)
	two := topology.Uniform(1, 1, 1, 2, 1)
	us := time.Microsecond
	curve := []sim.IdleIPI{{Idle: 0, Cost: sim.Fixed(10 * us)}, {Idle: time.Millisecond, Cost: sim.Fixed(110 * us)}}
	cfg := sim.Config{Topology: two, Costs: sim.Costs{IPI: sim.Fixed(500 * us)}, Idle: sim.Idle{IPICurve: curve}}
	r, err := sim.Run(cfg, newRR(1000, 4), w, 100*time.Millisecond)
	require.NoError(t, err)
	c := thread(t, r, "consumer")
	require.Greater(t, c.Wakeup.Count(), int64(100))
	assert.InDelta(t, 39e3, float64(c.Wakeup.Max()), 1, "idle 290 µs at the first send")
	med, _ := c.Wakeup.Percentile(50)
	assert.InDelta(t, 30e3/1.1, float64(med), 2, "settled: the curve at the idle time, not Costs.IPI")
	assert.Greater(t, c.Wakeup.Min(), int64(26*us), "no IPI as cheap as idle ~174 µs")

	// The same run with the curve's second point at 100 µs instead: idle ~170 µs is beyond the
	// last point, so every IPI after the first costs its 110 µs.
	cfg.Idle.IPICurve = []sim.IdleIPI{{Idle: 0, Cost: sim.Fixed(10 * us)}, {Idle: 100 * us, Cost: sim.Fixed(110 * us)}}
	r, err = sim.Run(cfg, newRR(1000, 4), w, 100*time.Millisecond)
	require.NoError(t, err)
	lat, _ := thread(t, r, "consumer").Wakeup.Exact()
	// 200 − 110 = 90 µs idle before the next send: 10 + 100 × 90/100 = 100 µs, then 10 + 100 ×
	// 100/100 = 110 µs, and so on between the two.
	for _, v := range lat[1:] {
		assert.GreaterOrEqual(t, v, int64(10*us))
		assert.LessOrEqual(t, v, int64(110*us))
	}
}

// TestIPICurveSinglePointIsIPI: a curve of one point whose cost is Costs.IPI draws what Costs.IPI
// draws, from the same stream at the same moments: every result is the run's without a curve,
// with the ci profile's spread IPI. A curve that differs changes them.
func TestIPICurveSinglePointIsIPI(t *testing.T) {
	w := mustParse(t, lostWakeups)
	two := topology.Uniform(1, 1, 1, 2, 1)
	cfg := sim.Config{Topology: two, Seed: 3}
	sim.DefaultProfile().Apply(&cfg)
	require.Nil(t, cfg.Idle.IPICurve, "the ci profile has no curve")
	require.True(t, cfg.Costs.IPI.Varies())
	run := func(cfg sim.Config) []byte {
		r, err := sim.Run(cfg, newRR(1000, 4), w, 50*time.Millisecond)
		require.NoError(t, err)
		b, err := json.Marshal(r)
		require.NoError(t, err)
		return b
	}
	base := run(cfg)
	cfg.Idle.IPICurve = []sim.IdleIPI{{Idle: 40 * time.Microsecond, Cost: cfg.Costs.IPI}}
	assert.Equal(t, string(base), string(run(cfg)))
	cfg.Idle.IPICurve[0].Cost.P50 += time.Microsecond
	assert.NotEqual(t, string(base), string(run(cfg)))
}

// TestIPICurveInvalid: New refuses a curve out of order.
func TestIPICurveInvalid(t *testing.T) {
	w := mustParse(t, lostWakeups)
	curve := []sim.IdleIPI{{Idle: time.Millisecond, Cost: sim.Fixed(time.Microsecond)}, {Idle: 0, Cost: sim.Fixed(time.Microsecond)}}
	two := topology.Uniform(1, 1, 1, 2, 1)
	_, err := sim.Run(sim.Config{Topology: two, Idle: sim.Idle{IPICurve: curve}}, newRR(1000, 4), w, time.Millisecond)
	assert.ErrorContains(t, err, "Config.Idle.IPICurve[1]: idle time 0s not above the point before's (1ms)")
}
