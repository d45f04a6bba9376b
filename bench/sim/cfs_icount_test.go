package sim_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// BenchmarkCFSICount steps every cfs preset through the three periodic task sets (4, 16 and 64
// CPUs, as BenchmarkPeriodic runs them), and through BenchmarkICount's hogs and mixed machines,
// with icountSteps, for exact instruction counts under callgrind, as BenchmarkICount does for
// the benchmarked preset of each policy:
//
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	  --toggle-collect='*icountSteps*' ./sim.test -test.run '^$' \
//	  -test.bench 'CFSICount/w=periodic-4x20/p=cfs-v7.1$' -test.benchtime 20000x -test.cpu 1
//
// and the same with 40000x give the instructions of 20000 steps by difference; ev/step turns
// them into instructions per event.
func BenchmarkCFSICount(b *testing.B) {
	for _, set := range periodicSets {
		for _, pc := range cfsPresets() {
			b.Run("w=periodic-"+set.name+"/p="+pc.name, func(b *testing.B) {
				cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, set.cpus, 1), Hz: 1000, StatHz: 127, Seed: 1}
				m := warm(b, cfg, pc.make(), periodicWorkload(b, set.name))
				e := m.Events()
				b.ResetTimer()
				icountSteps(m, b.N)
				b.ReportMetric(float64(m.Events()-e)/float64(b.N), "ev/step")
			})
		}
	}
	for _, pc := range cfsPresets() {
		b.Run("w=hogs/p="+pc.name, func(b *testing.B) {
			m := warm(b, sim.Config{Topology: topology.Uniform(1, 1, 1, 8, 1)}, pc.make(), hogs(b, 16))
			e := m.Events()
			b.ResetTimer()
			icountSteps(m, b.N)
			b.ReportMetric(float64(m.Events()-e)/float64(b.N), "ev/step")
		})
		b.Run("w=mixed/p="+pc.name, func(b *testing.B) {
			m := warm(b, sim.Config{Topology: topology.Uniform(2, 1, 1, 16, 2), Seed: 1}, pc.make(), mixedScale(b, 1000))
			e := m.Events()
			b.ResetTimer()
			icountSteps(m, b.N)
			b.ReportMetric(float64(m.Events()-e)/float64(b.N), "ev/step")
		})
	}
}
