package sim_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// BenchmarkIdleThread measures what a thread that does nothing costs the machine with its
// policy: each op builds a machine of 8 CPUs with 1000 threads that block at once, forever (recv
// on a pipe nobody sends to), and runs it until they all have. B/thread is the memory allocated
// per thread (the policy's and the machine's, amortised growth of their tables included, as
// the policies' own BenchmarkIdleThread counts it); live-B/thread is what stays reachable from
// the machine afterwards, measured after a collection.
func BenchmarkIdleThread(b *testing.B) {
	const perOp = 1000
	w := mustParse(b, fmt.Sprintf("pipe never\nthread idle count=%d\n\trecv never\nend\n", perOp))
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 8, 1), Seed: 1}
	for _, pc := range benchPolicies {
		b.Run("policy="+pc.name, func(b *testing.B) {
			b.ReportAllocs()
			var total, live uint64
			for b.Loop() {
				b.StopTimer()
				runtime.GC()
				var m0, m1, m2 runtime.MemStats
				runtime.ReadMemStats(&m0)
				b.StartTimer()
				m, err := sim.New(cfg, pc.make(), w)
				if err != nil {
					b.Fatal(err)
				}
				if err := m.Run(time.Millisecond); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				runtime.ReadMemStats(&m1)
				runtime.GC()
				runtime.ReadMemStats(&m2)
				runtime.KeepAlive(m)
				total += m1.TotalAlloc - m0.TotalAlloc
				live += m2.HeapAlloc - m0.HeapAlloc
				b.StartTimer()
			}
			b.ReportMetric(float64(total)/float64(b.N*perOp), "B/thread")
			b.ReportMetric(float64(live)/float64(b.N*perOp), "live-B/thread")
		})
	}
}

// BenchmarkForks measures a machine that creates many threads: a make forking jobs=N jobs of
// 100us, one at a time, on 2 CPUs, as a build's job shells are forked. Each fork appends a
// thread to the machine's table, so its growth is part of ns/fork.
func BenchmarkForks(b *testing.B) {
	for _, jobs := range []int{1000, 30000} {
		w := mustParse(b, fmt.Sprintf("template job\n\trun 100us\nend\nthread make\n\trepeat %d\n\t\tfork job\n\t\tjoin\n\tend\nend\n", jobs))
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 1}
		for _, pc := range benchPolicies {
			b.Run(fmt.Sprintf("jobs=%d/policy=%s", jobs, pc.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					m, err := sim.New(cfg, pc.make(), w)
					if err != nil {
						b.Fatal(err)
					}
					if err := m.Run(time.Hour); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*jobs), "ns/fork")
			})
		}
	}
}
