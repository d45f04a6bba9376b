package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// ticklessRR is the toy round robin as a TicklessIdle policy, for machines where IPIs cost
// nothing and threads may run anywhere: a wake-up then kicks an idle CPU, which picks at the
// same instant, so a clock interrupt never finds an idle CPU while the queue holds a thread,
// and rr's Tick on an idle CPU does nothing. It counts the Ticks it gets, idle or busy.
type ticklessRR struct {
	*rr
	horizon         int64 // returned by IdleTickHorizon, relative to now; MaxInt64: none
	idleTicks, busy int
	asked           int
}

func (p *ticklessRR) Tick(now int64, cpu topology.CPU) {
	if p.cur[cpu] < 0 {
		p.idleTicks++
	} else {
		p.busy++
	}
	p.rr.Tick(now, cpu)
}

func (p *ticklessRR) IdleTickHorizon(now int64, cpu topology.CPU) int64 {
	p.asked++
	if p.horizon == math.MaxInt64 {
		return math.MaxInt64
	}
	return now + p.horizon
}

// TestTicklessIdleSkipsIdleTicks checks the machine's side of TicklessIdle: an idle CPU whose
// policy promised its Ticks do nothing gets none until it is rescheduled, busy CPUs get every
// one, the clock interrupts are still counted (events, CPUStats.Ticks), and the run is the same
// as with Config.EveryTick.
func TestTicklessIdleSkipsIdleTicks(t *testing.T) {
	w := periodicWorkload(t, "4x20")
	for _, h := range []int64{math.MaxInt64, int64(3 * time.Millisecond), 0} {
		run := func(every bool) (*sim.Result, *ticklessRR) {
			p := &ticklessRR{rr: newRR(1000, 4), horizon: h}
			cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 8, 1), Seed: 2, Trace: sim.TraceHash,
				EveryTick: every, Checks: checks}
			r := runChecked(t, cfg, p, w, 300*time.Millisecond)
			return r, p
		}
		full, pf := run(true)
		less, pl := run(false)
		require.Equal(t, full.Trace.Hash(), less.Trace.Hash(), "horizon %d", h)
		require.Equal(t, full.Events, less.Events)
		require.Equal(t, full.CPUs, less.CPUs)
		require.Equal(t, full.Threads, less.Threads)
		assert.Zero(t, pf.asked, "EveryTick asked for horizons")
		assert.Equal(t, pf.busy, pl.busy, "busy CPUs' ticks")
		assert.Greater(t, pf.idleTicks, 100, "the load leaves CPUs idle")
		switch h {
		case math.MaxInt64:
			assert.Less(t, pl.idleTicks, pf.idleTicks/10, "idle ticks kept with no horizon")
		case 0:
			assert.Equal(t, pf.idleTicks, pl.idleTicks, "a horizon of now keeps every tick")
		default:
			assert.Less(t, pl.idleTicks, pf.idleTicks, "a 3 ms horizon keeps every idle tick")
			assert.Greater(t, pl.idleTicks, 0)
		}
		assert.Greater(t, pl.asked, 100)
	}
}

// TestTicklessIdleEndsWithResched checks that a reschedule ends the promise: with IPIs that
// take time, a wake-up leaves the thread queued while the IPI is on its way, and the kicked idle
// CPU's clock interrupts in that interval reach the policy again, as they would without the
// promise; the run stays the same as with Config.EveryTick.
func TestTicklessIdleEndsWithResched(t *testing.T) {
	w := mustParse(t, "pipe p\nthread a cpus=0\n\tloop\n\t\trun 5ms\n\t\tsend p\n\tend\nend\n"+
		"thread b cpus=1\n\tloop\n\t\trecv p\n\t\trun 100us\n\tend\nend\n")
	run := func(every bool) (*sim.Result, *ticklessRR) {
		p := &ticklessRR{rr: newRR(1000, 4), horizon: math.MaxInt64}
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 1, Trace: sim.TraceHash, EveryTick: every,
			Costs: sim.Costs{IPI: sim.Fixed(2 * time.Millisecond)}}
		r := runChecked(t, cfg, p, w, 50*time.Millisecond)
		return r, p
	}
	full, pf := run(true)
	less, pl := run(false)
	require.Equal(t, full.Trace.Hash(), less.Trace.Hash())
	require.Equal(t, full.Threads, less.Threads)
	assert.Greater(t, pl.idleTicks, 0, "no tick reached an idle CPU with an IPI on its way")
	assert.Less(t, pl.idleTicks, pf.idleTicks)
}
