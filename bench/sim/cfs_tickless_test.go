package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/topology"
)

// nextBalanceHorizon is a cfs Scheduler that claims TicklessIdle with the horizon an idle
// CPU's Tick seems to have: the first clock interrupt whose jiffy reaches the CPU's
// next_balance, when rebalance_domains is due. cfs.Scheduler does not implement TicklessIdle,
// and TestCFSIdleTicksAreObservable shows why.
type nextBalanceHorizon struct {
	*cfs.Scheduler
}

func (p nextBalanceHorizon) IdleTickHorizon(now int64, cpu topology.CPU) int64 {
	return p.System().NextBalance(cpu) * 1_000_000_000 / int64(p.TickHz())
}

// TestCFSIdleTicksAreObservable runs every cfs preset on the 16-CPU periodic set with and
// without Config.EveryTick under nextBalanceHorizon, and requires the traces to differ: an
// idle CPU's Tick does more than wait for its next balance. It refreshes the CPU's statistics,
// and the utilisation they publish (cpu_util_cfs, which other CPUs' balancing and wakeup
// placement read: the LLC's summed utilisation sets select_idle_cpu's scan budget) decays at
// every tick until it stops moving below 2^k, and takes in at the next tick what a sleeper
// that last ran there detached when it woke elsewhere (System.Wakeup's detachUtil), without a
// reschedule of the idle CPU. Which call at the instant of a skipped tick would have seen the
// refreshed value depends on the order of the machine's events at that instant, which a
// policy does not see; so no horizon beyond the next tick is honest for cfs.
func TestCFSIdleTicksAreObservable(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs every cfs preset twice")
	}
	for _, pc := range cfsPresets() {
		t.Run("p="+pc.name, func(t *testing.T) {
			run := func(every bool) *sim.Result {
				cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 16, 1), Hz: 1000, StatHz: 127, Seed: 1,
					Trace: sim.TraceHash, EveryTick: every}
				m, err := sim.New(cfg, nextBalanceHorizon{pc.make().(*cfs.Scheduler)}, periodicWorkload(t, "16x100"))
				require.NoError(t, err)
				require.NoError(t, m.Run(time.Second))
				return m.Result()
			}
			require.NotEqual(t, run(true).Trace.Hash(), run(false).Trace.Hash(),
				"the next-balance horizon left the trace as it was: is an idle CPU's tick a no-op now?")
		})
	}
}
