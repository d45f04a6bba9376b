package sim_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLargestCostsEnd runs every preset of every policy with every cost at MaxCost: the run must
// end at its time limit within a bounded number of events (it livelocked, or wrapped time
// negative, with costs of MaxInt64 before they were bounded), and the switch time it reports
// must fit in the run.
func TestLargestCostsEnd(t *testing.T) {
	w := mustParse(t, `
thread hog count=3
	run forever
end
thread napper count=2
	loop
		run 1ms
		sleep 2ms
	end
end`)
	topo := topology.Uniform(1, 1, 1, 2, 1)
	most := sim.Fixed(sim.MaxCost)
	spread := sim.Cost{P50: time.Millisecond, P90: time.Second, P99: time.Minute, Max: sim.MaxCost}
	costs := []sim.Costs{
		{Switch: most}, {Migration: sim.EveryLevel(most)}, {IPI: most}, {Wakeup: most}, {Timer: most}, {Refill: most},
		{Switch: most, Migration: sim.EveryLevel(most), IPI: most, Wakeup: most, Timer: most, Refill: most,
			Tick: sim.Fixed(400 * time.Microsecond)},
		{Switch: spread, Migration: sim.EveryLevel(spread), IPI: spread, Wakeup: spread, Timer: spread, Refill: spread,
			Tick: sim.Cost{Max: 700 * time.Microsecond}},
	}
	for _, pc := range append(realPolicies(topo), policyCase{"toy-rr", func() sim.Policy { return newRR(1000, 4) }}) {
		for _, c := range costs {
			cfg := sim.Config{Topology: topo, Hz: 1000, StatHz: 127, Costs: c}
			m, err := sim.New(cfg, pc.make(), w)
			require.NoError(t, err)
			end, err := m.RunUntil(sim.Stop{Time: 2 * time.Second, Events: 1_000_000})
			require.NoError(t, err)
			require.Equal(t, sim.TimeReached, end, "%s with %+v: ended by %v after %d events", pc.name, c, end, m.Events())
			r := m.Result()
			for id := range r.CPUs {
				cs := &r.CPUs[id]
				assert.LessOrEqual(t, cs.Switch+cs.Interrupt, r.End, "%s %+v cpu%d", pc.name, c, id)
				assert.GreaterOrEqual(t, cs.Switch, int64(0))
				assert.Equal(t, r.End, cs.Busy+cs.Idle)
			}
		}
	}
}

// FuzzConfig builds a Config from fuzzed fields: New either refuses it with an error or the
// machine runs a short workload to its end without a panic, a hang or a time that goes
// backwards.
func FuzzConfig(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), int64(0), 0, 0, 0, int64(0), 0.0, false, uint64(1), int64(0), int64(0))
	f.Add(int64(3000), int64(20000), int64(2000), int64(1000), 1000, 127, 640, int64(50000), 0.5, true, uint64(2), int64(1500), int64(20000))
	f.Add(int64(1<<62), int64(-1), int64(1<<63-1), int64(5), -3, 1<<30, 4096, int64(-5), 2.0, false, uint64(3), int64(-1), int64(1<<62))
	w := mustParse(f, `
thread hog count=2
	run forever
end
thread napper
	loop
		run 1ms
		sleep 500us
	end
end`)
	f.Fuzz(func(t *testing.T, sw, mig, ipi, tick int64, hz, stathz, smt int, exit int64, miss float64, spin bool, seed uint64, wake, slack int64) {
		// A spread cost: the fuzzed figure as the median, up to ten times it at the maximum.
		spread := func(d int64) sim.Cost {
			return sim.Cost{Min: time.Duration(d / 2), P50: time.Duration(d), P90: time.Duration(d * 2), P99: time.Duration(d * 5), Max: time.Duration(d * 10)}
		}
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 2), Hz: hz, StatHz: stathz, SMTFactor: smt, Seed: seed,
			Costs: sim.Costs{Switch: sim.Fixed(time.Duration(sw)), Migration: sim.EveryLevel(sim.Fixed(time.Duration(mig))),
				IPI: spread(ipi), Tick: sim.Fixed(time.Duration(tick)), Wakeup: sim.Fixed(time.Duration(wake)), Timer: spread(slack)},
			Idle: sim.Idle{ExitLatency: spread(exit), MissProbability: miss, Spin: spin}}
		m, err := sim.New(cfg, newRR(1000, 4), w)
		if err != nil {
			return
		}
		last := int64(0)
		for m.Step() && m.Events() < 20000 {
			if m.Now() < last {
				t.Fatalf("time went back from %d to %d", last, m.Now())
			}
			last = m.Now()
			if err := m.Check(); err != nil {
				t.Fatal(err)
			}
		}
		r := m.Result()
		for id := range r.CPUs {
			if c := &r.CPUs[id]; c.Busy < 0 || c.Idle < 0 || c.Switch < 0 || c.Interrupt < 0 || c.Switch+c.IdleExit > c.Busy {
				t.Fatalf("cpu%d: %+v", id, *c)
			}
		}
	})
}
