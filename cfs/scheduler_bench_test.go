package cfs

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// BenchmarkScheduler measures one tick of a whole machine driven through the Scheduler: the
// due wakeups (placement), Tick on every CPU (task_tick_fair, rebalance_domains), the stops
// and picks (with newly idle balance) and the reschedules, on topology.FourLLC (24 CPUs) with
// 48 sleepers of random run and sleep phases and 12 hogs, for each version. There is no naive
// implementation to compare with; the versions are each other's baseline.
func BenchmarkScheduler(b *testing.B) {
	for _, v := range schedVersions {
		b.Run("version="+v.String()+"/topo=FourLLC", func(b *testing.B) {
			m := newBenchMachine(b, v)
			b.ReportAllocs()
			for b.Loop() {
				m.step()
			}
		})
	}
}

// newBenchMachine builds BenchmarkScheduler's machine for version v and runs it for one
// simulated second, past the start-up transient.
func newBenchMachine(tb testing.TB, v Version) *smpMachine {
	topo := topology.FourLLC()
	m := newSMPMachine(tb, topo, 1000, vparams(v))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 48 {
		m.spawn(m.cpuAt(i), sched.Attr{Nice: i % 5}, behaviour{run: 1 + rng.IntN(5), sleep: 1 + rng.IntN(10)})
	}
	for i := range 12 {
		m.spawn(m.cpuAt(2*i), sched.Attr{}, behaviour{})
	}
	m.run(1000)
	return m
}

// TestSchedulerZeroAllocs checks that a machine tick through the Scheduler (placement, ticks,
// balancing, stops and picks) allocates nothing once the machine is running, under every
// version, when nobody asks for explanations.
func TestSchedulerZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, v := range schedVersions {
		m := newBenchMachine(t, v)
		if a := testing.AllocsPerRun(200, m.step); a != 0 {
			t.Errorf("%v: a machine tick allocates %v times, want 0", v, a)
		}
	}
}
