package sim_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// icountSteps runs n steps of m. It is the function to count instructions in with callgrind
// (docs/performance.md §2): it makes no runtime calls of its own, so
//
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	  --toggle-collect='*icountSteps*' ./sim.test -test.run '^$' \
//	  -test.bench 'ICount/w=hogs/p=toy-rr$' -test.benchtime 100000x -test.cpu 1
//
// and the same with 200000x give the instructions of 100000 steps by difference; ev/step turns
// them into instructions per event.
//
//go:noinline
func icountSteps(m *sim.Machine, n int) {
	for range n {
		m.Step()
	}
}

// BenchmarkICount steps the machines of BenchmarkEvents (hogs on 8 CPUs), BenchmarkPeriodic's
// task sets and BenchmarkScale (the mixed load on 64 CPUs) through icountSteps, for exact
// instruction counts under callgrind; it reports the machine's events per step
// (BenchmarkPeriodicSteps gives SimSo's events per step of the same steps).
func BenchmarkICount(b *testing.B) { icountMachines(b, benchPolicies) }

// icountMachines runs BenchmarkICount's sub-benchmarks, w=hogs, w=periodic-SET and w=mixed,
// for each policy of pcs.
func icountMachines(b *testing.B, pcs []policyCase) {
	for _, pc := range pcs {
		b.Run("w=hogs/p="+pc.name, func(b *testing.B) {
			icountMachine(b, sim.Config{Topology: topology.Uniform(1, 1, 1, 8, 1)}, pc.make(), hogs(b, 16))
		})
		for _, set := range periodicSets {
			b.Run("w=periodic-"+set.name+"/p="+pc.name, func(b *testing.B) {
				cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, set.cpus, 1), Hz: 1000, StatHz: 127, Seed: 1}
				icountMachine(b, cfg, pc.make(), periodicWorkload(b, set.name))
			})
		}
		b.Run("w=mixed/p="+pc.name, func(b *testing.B) {
			icountMachine(b, sim.Config{Topology: topology.Uniform(2, 1, 1, 16, 2), Seed: 1}, pc.make(), mixedScale(b, 1000))
		})
	}
}

// icountMachine warms a machine of cfg, p and w up and counts b.N of its steps with icountSteps,
// reporting the machine's events per step.
func icountMachine(b *testing.B, cfg sim.Config, p sim.Policy, w *workload.Workload) {
	m := warm(b, cfg, p, w)
	e := m.Events()
	b.ResetTimer()
	icountSteps(m, b.N)
	b.ReportMetric(float64(m.Events()-e)/float64(b.N), "ev/step")
}

// BenchmarkPeriodicSteps reports SimSo's events (releases, completions, dispatches) per step of
// the steps BenchmarkICount's periodic sub-benchmarks count instructions of (the same machine
// after the same warm-up: the runs are deterministic), which turn instructions per step into
// instructions per SimSo event (scripts/simcount). It calls Result, which BenchmarkICount must
// not: Result's allocations and recursion grow the goroutine's stack, and callgrind's
// collection toggle loses track when a stack moves.
func BenchmarkPeriodicSteps(b *testing.B) {
	for _, pc := range benchPolicies {
		for _, set := range periodicSets {
			b.Run("w=periodic-"+set.name+"/p="+pc.name, func(b *testing.B) {
				cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, set.cpus, 1), Hz: 1000, StatHz: 127, Seed: 1}
				m := warm(b, cfg, pc.make(), periodicWorkload(b, set.name))
				e := m.Events()
				r0, c0, d0 := simsoEvents(m.Result())
				b.ResetTimer()
				icountSteps(m, b.N)
				b.StopTimer()
				r1, c1, d1 := simsoEvents(m.Result())
				b.ReportMetric(float64(m.Events()-e)/float64(b.N), "ev/step")
				b.ReportMetric(float64((r1-r0)+(c1-c0)+(d1-d0))/float64(b.N), "simso/step")
			})
		}
	}
}
