package host

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// BenchmarkRunOverhead measures the runner's own cost per simulated op: a thread doing
// "repeat N / run D / end". cpu-ns/op is the thread's CPU time per op (schedstat), asked-ns/op
// is D, and overhead-ns/op their difference: what the interpreter, the clock reads and the
// spin loop's last chunk add to each op. impl=spin is the baseline in the same binary: the spin
// loop alone, called directly on a locked thread, with no runner around it.
func BenchmarkRunOverhead(b *testing.B) {
	for _, d := range []time.Duration{10 * time.Microsecond, 100 * time.Microsecond} {
		b.Run(fmt.Sprintf("impl=runner/asked=%v", d), func(b *testing.B) {
			b.ReportAllocs()
			n := b.N
			w, err := workload.Parse(fmt.Sprintf("thread x\n\trepeat %d\n\t\trun %dns\n\tend\nend\n", n, d.Nanoseconds()))
			if err != nil {
				b.Fatal(err)
			}
			limit := min(MaxLimit, time.Duration(n)*d*20+time.Second)
			b.ResetTimer()
			r, err := Run(context.Background(), w, Options{Limit: limit})
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			x := &r.Threads[0]
			b.ReportMetric(float64(x.CPUTime)/float64(n), "cpu-ns/op")
			b.ReportMetric(float64(d), "asked-ns/op")
			b.ReportMetric(float64(x.CPUTime)/float64(n)-float64(d), "overhead-ns/op")
		})
		b.Run(fmt.Sprintf("impl=spin/asked=%v", d), func(b *testing.B) {
			b.ReportAllocs()
			s := newSpinner()
			var stop uint32
			done := make(chan int64)
			b.ResetTimer()
			go func() {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				start := threadCPU()
				for range b.N {
					s.spin(int64(d), &stop, 1<<62)
				}
				done <- threadCPU() - start
			}()
			used := <-done
			b.StopTimer()
			b.ReportMetric(float64(used)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(d), "asked-ns/op")
			b.ReportMetric(float64(used)/float64(b.N)-float64(d), "overhead-ns/op")
		})
	}
}
