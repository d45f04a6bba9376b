package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// benchProfiles are the profiles the cost model's benchmarks compare: the ideal machine (the
// baseline, every cost 0) and the default one, whose every cost is charged and most drawn.
var benchProfiles = []*sim.Profile{sim.IdealProfile(), sim.DefaultProfile()}

// periodicConfig returns BenchmarkPeriodic's machine for a set of cpus CPUs, under profile p.
func periodicConfig(cpus int, p *sim.Profile) sim.Config {
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, cpus, 1), Hz: 1000, StatHz: 127, Seed: 1}
	p.Apply(&cfg)
	return cfg
}

// BenchmarkPeriodicProfile is BenchmarkPeriodic under the ideal and the default profile side by
// side (profile=ideal is the baseline): the cost model's price per event. It reports wall-clock
// nanoseconds per SimSo event and per machine event; the costs add machine events of their own
// (IPIs that arrive later, stalls that end), so the second is the cost per unit of the
// machine's work, the first per unit of the workload's.
func BenchmarkPeriodicProfile(b *testing.B) {
	for _, set := range periodicSets {
		for _, pc := range benchPolicies {
			for _, prof := range benchProfiles {
				b.Run(fmt.Sprintf("set=%s/policy=%s/profile=%s", set.name, pc.name, prof.Name), func(b *testing.B) {
					m := warm(b, periodicConfig(set.cpus, prof), pc.make(), periodicWorkload(b, set.name))
					r0, c0, d0 := simsoEvents(m.Result())
					ev0 := m.Events()
					until := time.Second
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						until += time.Second
						if err := m.Run(until); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
					r1, c1, d1 := simsoEvents(m.Result())
					e := float64((r1 - r0) + (c1 - c0) + (d1 - d0))
					wall := b.Elapsed().Seconds()
					b.ReportMetric(e/wall, "events/s")
					b.ReportMetric(wall*1e9/e, "ns/event")
					b.ReportMetric(wall*1e9/float64(m.Events()-ev0), "ns/machine-event")
				})
			}
		}
	}
}

// BenchmarkICountProfile is BenchmarkICount's periodic machines under each profile, for
// scripts/simcount's exact instructions per step (BENCH=ICountProfile; PROFILES chooses the
// profiles). The sub-benchmarks are w=periodic-SET/p=POLICY/profile=NAME.
func BenchmarkICountProfile(b *testing.B) {
	for _, pc := range benchPolicies {
		for _, set := range periodicSets {
			for _, prof := range benchProfiles {
				b.Run("w=periodic-"+set.name+"/p="+pc.name+"/profile="+prof.Name, func(b *testing.B) {
					icountMachine(b, periodicConfig(set.cpus, prof), pc.make(), periodicWorkload(b, set.name))
				})
			}
		}
	}
}

// BenchmarkPeriodicStepsProfile is BenchmarkPeriodicSteps for BenchmarkICountProfile's machines:
// SimSo's events per step, which turn instructions per step into instructions per SimSo event.
func BenchmarkPeriodicStepsProfile(b *testing.B) {
	for _, pc := range benchPolicies {
		for _, set := range periodicSets {
			for _, prof := range benchProfiles {
				b.Run("w=periodic-"+set.name+"/p="+pc.name+"/profile="+prof.Name, func(b *testing.B) {
					m := warm(b, periodicConfig(set.cpus, prof), pc.make(), periodicWorkload(b, set.name))
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
}
