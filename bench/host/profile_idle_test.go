package host

import (
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeriveIPIIdle: a machine whose IPI to a CPU idle t costs ipi(t), measured by the idle
// ping-pong (the futex wake, the wakeup, the IPI, and the idle exit where the idle time until
// the wakee ran passes the poll window), comes apart into ipi(t) at every point, with the
// ping-pong's spread.
func TestDeriveIPIIdle(t *testing.T) {
	us := time.Microsecond
	futex, wake, exit, window := 300*time.Nanosecond, 2*us, 15*us, 150*us
	ipi := func(idle time.Duration) time.Duration { return 10*us + idle/10 }
	measure := func(window time.Duration) Measurements {
		m := Measurements{FutexWake: sim.Fixed(futex)}
		for _, w := range IPIIdleTimes {
			sent := w + 500*time.Nanosecond
			one := futex + wake + ipi(sent)
			if window == 0 || sent+one > window {
				one += exit
			}
			m.IPIByIdle = append(m.IPIByIdle, IdleIPILatency{Wait: w, Sent: sent, Late: spread(one)})
		}
		return m
	}
	m := measure(window)
	c, err := DeriveIPIIdle(m, sim.Fixed(wake), spread(exit), window, "2026-12-07")
	require.NoError(t, err)
	require.Len(t, c.Points, len(IPIIdleTimes))
	for i, p := range c.Points {
		sent := IPIIdleTimes[i] + 500*time.Nanosecond
		assert.Equal(t, sent, p.Idle, "the point at the median send")
		assert.Equal(t, ipi(sent), p.Cost.P50, "at %v", sent)
		assert.Equal(t, m.IPIByIdle[i].Late.Max-(m.IPIByIdle[i].Late.P50-p.Cost.P50), p.Cost.Max, "the ping-pong's spread")
	}
	assert.Equal(t, "us", c.Unit)
	assert.Equal(t, "2026-12-07", c.Date)
	assert.Contains(t, c.Method, "the idle exit (15µs) at the waits whose idle time until the wakee ran is beyond the poll window (150µs): 160µs, 320µs")

	// Without a poll window every point pays the exit.
	c, err = DeriveIPIIdle(measure(0), sim.Fixed(wake), spread(exit), 0, "d")
	require.NoError(t, err)
	for i, p := range c.Points {
		assert.Equal(t, ipi(IPIIdleTimes[i]+500*time.Nanosecond), p.Cost.P50)
	}
}

// TestDeriveIPIIdleErrors: a missing measurement, sends out of order and a point at 0 or less
// are errors saying which.
func TestDeriveIPIIdleErrors(t *testing.T) {
	us := time.Microsecond
	good := func() Measurements {
		return Measurements{FutexWake: sim.Fixed(300 * time.Nanosecond), IPIByIdle: []IdleIPILatency{
			{Wait: 10 * us, Sent: 10 * us, Late: spread(20 * us)}, {Wait: 20 * us, Sent: 20 * us, Late: spread(25 * us)}}}
	}
	_, err := DeriveIPIIdle(good(), sim.Fixed(us), sim.Fixed(us), 100*us, "d")
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		edit func(*Measurements)
		want string
	}{
		{"no futex wake", func(m *Measurements) { m.FutexWake = sim.Cost{} }, "no futex wake measurement"},
		{"no points", func(m *Measurements) { m.IPIByIdle = nil }, "no idle ping-pong measurement"},
		{"a point unmeasured", func(m *Measurements) { m.IPIByIdle[1].Late = sim.Cost{} }, "no idle ping-pong measurement at a wait of 20µs"},
		{"sends out of order", func(m *Measurements) { m.IPIByIdle[1].Sent = 9 * us }, "at a wait of 20µs was sent 9µs after the sleeper blocked, not later than at 10µs (10µs)"},
		{"nothing left", func(m *Measurements) { m.IPIByIdle[0].Late = spread(us) }, "the IPI after a wait of 10µs comes out as"},
	} {
		m := good()
		c.edit(&m)
		_, err := DeriveIPIIdle(m, sim.Fixed(us), sim.Fixed(us), 100*us, "d")
		require.Error(t, err, c.name)
		assert.True(t, strings.HasPrefix(err.Error(), "host: derive: "), c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
	}
}
