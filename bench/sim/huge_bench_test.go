package sim_test

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// BenchmarkHuge measures the machine at the size of a large server: 1024 CPUs (4 packages of 16
// LLCs of 8 two-thread cores) and 100,000 threads of the mixed workload (see mixedScale), so
// that the cost of starting and running does not hide behind a small machine.
//
// phase=start: an op builds the machine and runs its first 10 ms, every thread forked and placed
// then; x-realtime is simulated over wall-clock time and B/thread the memory allocated per
// thread (policy and machine, growth of their tables included); scan-B/thread is what of the
// started machine the garbage collector must scan (the heap that may hold pointers, after a
// collection with the last op's machine live), per thread.
//
// phase=steady: the machine first runs 100 ms outside the timer; an op is the next 10 ms.
//
// Run it alone, for a few ops: -bench 'Huge' -benchtime 3x.
func BenchmarkHuge(b *testing.B) {
	const (
		threads = 100_000
		slice   = 10 * time.Millisecond
	)
	top := topology.Uniform(4, 1, 16, 8, 2)
	cfg := sim.Config{Topology: top, Hz: 1000, StatHz: 127, Seed: 1}
	w := mixedScale(b, threads)
	for _, pc := range realPoliciesFor(top) {
		b.Run("policy="+pc.name+"/cpus=1024/threads=100000/phase=start", func(b *testing.B) {
			b.ReportAllocs()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			var m *sim.Machine
			for b.Loop() {
				var err error
				if m, err = sim.New(cfg, pc.make(), w); err != nil {
					b.Fatal(err)
				}
				if err := m.Run(slice); err != nil {
					b.Fatal(err)
				}
			}
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(scannable(m))/threads, "scan-B/thread")
			b.ReportMetric(float64(b.N)*slice.Seconds()/b.Elapsed().Seconds(), "x-realtime")
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N*threads), "B/thread")
		})
		b.Run("policy="+pc.name+"/cpus=1024/threads=100000/phase=steady", func(b *testing.B) {
			m, err := sim.New(cfg, pc.make(), w)
			if err != nil {
				b.Fatal(err)
			}
			until := 100 * time.Millisecond
			if err := m.Run(until); err != nil {
				b.Fatal(err)
			}
			events := m.Events()
			b.ReportAllocs()
			for b.Loop() {
				until += slice
				if err := m.Run(until); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*slice.Seconds()/b.Elapsed().Seconds(), "x-realtime")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(m.Events()-events), "ns/event")
		})
	}
}

// scannable returns the bytes of heap the garbage collector must scan (runtime/metrics'
// /gc/scan/heap:bytes) after a collection that finds m live.
func scannable(m *sim.Machine) uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(s)
	runtime.KeepAlive(m)
	return s[0].Value.Uint64()
}

// realPoliciesFor returns the benchmarked policies (the toy and one preset of each real policy)
// made for a machine of topo.
func realPoliciesFor(top *topology.Topology) []policyCase {
	ps := []policyCase{benchPolicies[0]}
	for _, pc := range realPolicies(top) {
		for _, name := range benchmarked {
			if pc.name == name {
				ps = append(ps, pc)
			}
		}
	}
	return ps
}
