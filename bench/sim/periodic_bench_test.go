package sim_test

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// periodicSets are the task sets of testdata/periodic (SimSo 0.8's generator, seed 1; see its
// README): n periodic tasks on m CPUs at 0.7·m utilisation.
var periodicSets = []struct {
	name string
	cpus int
}{{"4x20", 4}, {"16x100", 16}, {"64x1000", 64}}

// periodicWorkload reads testdata/periodic/periodic-NAME.txt (items WCET_ms/period_ms, tasks
// T1…Tn) as threads that wake every period from phase 0 and run their WCET, with durations
// rounded to the nanosecond.
func periodicWorkload(tb testing.TB, name string) *workload.Workload {
	data, err := os.ReadFile("testdata/periodic/periodic-" + name + ".txt")
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	for i, item := range strings.Fields(string(data)) {
		wcet, period, ok := strings.Cut(item, "/")
		c, err1 := strconv.ParseFloat(wcet, 64)
		p, err2 := strconv.ParseFloat(period, 64)
		if !ok || err1 != nil || err2 != nil || c <= 0 || p <= 0 {
			tb.Fatalf("%s item %d: %q is not WCET_ms/period_ms", name, i+1, item)
		}
		fmt.Fprintf(&b, "thread T%d\n\tevery %dns\n\t\trun %dns\n\tend\nend\n", i+1, int64(math.Round(p*1e6)), int64(math.Round(c*1e6)))
	}
	return mustParse(tb, b.String())
}

// simsoEvents counts a result's events as SimSo does: job releases (the periodic wake-ups),
// job completions (a job ends when its thread sleeps until the next period: a voluntary
// switch) and dispatches (each time a thread was put on a CPU: every voluntary or involuntary
// switch ends one dispatch, and a thread still running at the end is one more).
func simsoEvents(r *sim.Result) (releases, completions, dispatches int64) {
	for i := range r.Threads {
		t := &r.Threads[i]
		releases += t.Wakeups
		completions += t.Voluntary
		dispatches += t.Voluntary + t.Involuntary
	}
	return releases, completions, dispatches
}

// BenchmarkPeriodic runs the periodic task sets for one simulated second per op, after a
// simulated second of warm-up, under every policy, and reports SimSo-comparable events per
// second (releases + completions + dispatches; the machine's own events, clock interrupts
// included, as machine-events/s), simulated seconds per wall-clock second (x-realtime) and
// wall-clock nanoseconds per SimSo event.
func BenchmarkPeriodic(b *testing.B) {
	for _, set := range periodicSets {
		for _, pc := range benchPolicies {
			b.Run(fmt.Sprintf("set=%s/policy=%s", set.name, pc.name), func(b *testing.B) {
				w := periodicWorkload(b, set.name)
				cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, set.cpus, 1), Hz: 1000, StatHz: 127, Seed: 1}
				m := warm(b, cfg, pc.make(), w)
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
				b.ReportMetric(float64(m.Events()-ev0)/wall, "machine-events/s")
				b.ReportMetric(float64(b.N)/wall, "x-realtime")
				b.ReportMetric(wall*1e9/e, "ns/event")
			})
		}
	}
}

// TestPeriodicSets checks the task sets load as the README says: the jobs released per
// simulated second match its table within a job per task (phase 0, so every task releases at
// t = 0 and then once per period).
func TestPeriodicSets(t *testing.T) {
	want := map[string]float64{"4x20": 990, "16x100": 4074, "64x1000": 39079}
	for _, set := range periodicSets {
		w := periodicWorkload(t, set.name)
		var jobs float64
		for _, th := range w.Threads {
			jobs += 1e9 / float64(th.Ops[0].Time.A)
		}
		n := float64(len(w.Threads))
		if math.Abs(jobs-want[set.name]) > n {
			t.Errorf("%s: %.0f jobs per second, want %.0f (testdata/periodic/README.md)", set.name, jobs, want[set.name])
		}
	}
}

// BenchmarkResult measures Machine.Result after sec simulated seconds of a periodic task set
// (exact latency samples to snapshot and sort: up to Config.ExactSamples per series), per call,
// the machine running another simulated millisecond between calls, outside the timer.
// read=first sorts every sample, as a machine's first Result does (what a run that ends with
// one pays; the machine forgets what it sorted before each call); read=again is the next
// Result of a machine read as it runs (schedbench top), which sorts only the samples since the
// last call and merges them with those it sorted then.
func BenchmarkResult(b *testing.B) {
	for _, set := range periodicSets[1:] {
		for _, sec := range []int{1, 10} {
			w := periodicWorkload(b, set.name)
			cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, set.cpus, 1), Hz: 1000, StatHz: 127, Seed: 1}
			m, err := sim.New(cfg, benchPolicies[0].make(), w)
			if err != nil {
				b.Fatal(err)
			}
			until := time.Duration(sec) * time.Second
			if err := m.Run(until); err != nil {
				b.Fatal(err)
			}
			for _, read := range []string{"first", "again"} {
				b.Run(fmt.Sprintf("set=%s/sec=%d/read=%s", set.name, sec, read), func(b *testing.B) {
					m.Result()
					b.ReportAllocs()
					for b.Loop() {
						b.StopTimer()
						until += time.Millisecond
						if err := m.Run(until); err != nil {
							b.Fatal(err)
						}
						if read == "first" {
							sim.ForgetSorted(m)
						}
						b.StartTimer()
						m.Result()
					}
				})
			}
		}
	}
}
