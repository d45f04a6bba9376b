package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/require"
)

// A policyCase makes a fresh policy for a benchmark; the real policies join the toy in
// policies_test.go.
type policyCase struct {
	name string
	make func() sim.Policy
}

var benchPolicies = []policyCase{
	{"toy-rr", func() sim.Policy { return newRR(1000, 4) }},
}

// hogs returns n CPU hogs.
func hogs(tb testing.TB, n int) *workload.Workload {
	return mustParse(tb, fmt.Sprintf("thread hog count=%d\n\trun forever\nend\n", n))
}

// mixedScale returns n threads: a quarter hogs, the rest computing and sleeping for
// exponentially distributed times, and a few pipelines.
func mixedScale(tb testing.TB, n int) *workload.Workload {
	var b strings.Builder
	fmt.Fprintf(&b, "pipe p cap=8\nthread hog count=%d nice=5\n\trun forever\nend\n", n/4)
	fmt.Fprintf(&b, "thread worker count=%d\n\tloop\n\t\trun exp(1ms)\n\t\tsleep exp(3ms)\n\tend\nend\n", n/2)
	fmt.Fprintf(&b, "thread prod count=%d\n\tloop\n\t\trun exp(200us)\n\t\tsend p\n\tend\nend\n", n/8)
	fmt.Fprintf(&b, "thread cons count=%d\n\tloop\n\t\trecv p\n\t\trun exp(200us)\n\tend\nend\n", n-n/4-n/2-n/8)
	return mustParse(tb, b.String())
}

// warm returns a machine that has run for a simulated second, past its start-up.
func warm(tb testing.TB, cfg sim.Config, p sim.Policy, w *workload.Workload) *sim.Machine {
	m, err := sim.New(cfg, p, w)
	require.NoError(tb, err)
	require.NoError(tb, m.Run(time.Second))
	return m
}

// BenchmarkEvents measures the cost of events for CPU hogs (two per CPU, so that slices end and
// threads switch) on 8 CPUs: clock interrupts, reschedules, switches. An op is one Step: a tick
// of all 8 CPUs (8 events) or one other event; events/s and ns/event count events.
func BenchmarkEvents(b *testing.B) {
	for _, pc := range benchPolicies {
		b.Run("policy="+pc.name+"/cpus=8/hogs=16", func(b *testing.B) {
			cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 8, 1)}
			m := warm(b, cfg, pc.make(), hogs(b, 16))
			events := m.Events()
			b.ReportAllocs()
			for b.Loop() {
				m.Step()
			}
			n := float64(m.Events() - events)
			b.ReportMetric(n/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/event")
		})
	}
}

// BenchmarkScale runs 64 CPUs (2 packages of 16 two-thread cores) and 1000 threads for 100ms of
// simulated time per op and reports how many times faster than real time that is, for 1000 hogs
// and for the mixed workload of mixedScale.
func BenchmarkScale(b *testing.B) {
	loads := []struct {
		name string
		w    func(testing.TB, int) *workload.Workload
	}{{"hogs", hogs}, {"mixed", mixedScale}}
	for _, pc := range benchPolicies {
		for _, l := range loads {
			b.Run("policy="+pc.name+"/cpus=64/threads=1000/load="+l.name, func(b *testing.B) {
				cfg := sim.Config{Topology: topology.Uniform(2, 1, 1, 16, 2), Seed: 1}
				m := warm(b, cfg, pc.make(), l.w(b, 1000))
				until := time.Second
				events := m.Events()
				b.ReportAllocs()
				for b.Loop() {
					until += 100 * time.Millisecond
					if err := m.Run(until); err != nil {
						b.Fatal(err)
					}
				}
				simulated := float64(until-time.Second) / 1e9
				b.ReportMetric(simulated/b.Elapsed().Seconds(), "x-realtime")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(m.Events()-events), "ns/event")
			})
		}
	}
}

// BenchmarkSize measures the cost per event at three machine sizes, with threads in proportion
// (the mixed workload), to show that the cost grows no worse than linearly with the number of
// events: ns/event stays nearly flat while the machine grows 16-fold (the event queue adds a
// logarithmic term). An op is one Step.
func BenchmarkSize(b *testing.B) {
	sizes := []struct{ cpus, threads int }{{4, 64}, {16, 256}, {64, 1024}}
	for _, pc := range benchPolicies {
		for _, sz := range sizes {
			b.Run(fmt.Sprintf("policy=%s/cpus=%d/threads=%d", pc.name, sz.cpus, sz.threads), func(b *testing.B) {
				cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, sz.cpus, 1), Seed: 1}
				m := warm(b, cfg, pc.make(), mixedScale(b, sz.threads))
				events := m.Events()
				b.ReportAllocs()
				for b.Loop() {
					m.Step()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(m.Events()-events), "ns/event")
			})
		}
	}
}

func TestStepDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, pc := range benchPolicies {
		t.Run(pc.name, func(t *testing.T) {
			cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 8, 1), Checks: checks, Trace: sim.TraceHash}
			m := warm(t, cfg, pc.make(), hogs(t, 16))
			if a := testing.AllocsPerRun(10000, func() { m.Step() }); a != 0 {
				t.Errorf("Step allocates %v times per event for hogs", a)
			}
		})
	}
}
