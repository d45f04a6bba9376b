package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	rtrace "runtime/trace"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// spin burns CPU for about n iterations, so that each stage's bursts show in the trace.
func spin(n int) uint64 {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

var sink uint64

// pipelineStage and pipelineSink are the goroutines of the traced program: items go from
// the producer through two stages to the sink over unbuffered channels.
func pipelineStage(in <-chan uint64, out chan<- uint64, work int) {
	for v := range in {
		out <- v + spin(work)
	}
	close(out)
}

func pipelineSink(in <-chan uint64, done *sync.WaitGroup) {
	for v := range in {
		sink += v + spin(2000)
	}
	done.Done()
}

// runPipeline is the small Go program the Go-trace tests trace: a producer, two stages and a
// sink connected by channels. It returns once the three goroutines have exited, not merely
// finished their work, so that a trace stopped right after it records their exits: the sink's
// Done wakes the producer before the sink (or the last stage) has returned.
func runPipeline(items int) {
	before := runtime.NumGoroutine()
	a, b, c := make(chan uint64), make(chan uint64), make(chan uint64)
	var done sync.WaitGroup
	done.Add(1)
	go pipelineStage(a, b, 20000)
	go pipelineStage(b, c, 40000)
	go pipelineSink(c, &done)
	for i := range items {
		a <- uint64(i) + spin(5000)
	}
	close(a)
	done.Wait()
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(50 * time.Microsecond)
	}
}

// tracePipeline records runPipeline with runtime/trace.
func tracePipeline(t testing.TB, items int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := rtrace.Start(&buf); err != nil {
		t.Skipf("runtime/trace unavailable: %v", err)
	}
	runPipeline(items)
	rtrace.Stop()
	return buf.Bytes()
}

func TestReadGoTracePipeline(t *testing.T) {
	data := tracePipeline(t, 200)
	im, err := ReadGoTrace(bytes.NewReader(data), "pipeline.trace", nil)
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]*TaskStats{}
	for i := range im.Tasks {
		ts := &im.Tasks[i]
		if strings.Contains(ts.Comm, "pipelineStage") || strings.Contains(ts.Comm, "pipelineSink") {
			stages[ts.Name] = ts
		}
	}
	if len(stages) != 3 {
		t.Fatalf("found %d pipeline goroutines (%v), want 3", len(stages), stages)
	}
	for name, ts := range stages {
		if ts.CPUTime <= 0 || ts.Wakeups == 0 || !ts.Forked || !ts.Exited {
			t.Errorf("%s: %+v; want CPU time, wake-ups, a fork and an exit", name, *ts)
		}
	}
	// The channel hand-offs are wake-ups by the goroutine that unblocked the waiter: pipes
	// between the stages.
	pipes := 0
	for _, p := range im.Workload.Pipes {
		if strings.Contains(p.Name, "pipeline") {
			pipes++
		}
	}
	if pipes < 3 {
		t.Errorf("%d pipes between pipeline goroutines, want at least 3: %v", pipes, im.Workload.Pipes)
	}
	// Replayed under two policies on two CPUs, every pipeline goroutine gets its CPU time.
	for _, p := range []sim.Policy{policy("ule:main"), policy("cfs:v6.6")} {
		c, err := Replay(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, p, im, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range c.Tasks {
			if stages[tc.Trace.Name] == nil {
				continue
			}
			if !tc.Ran || tc.CPUTime != tc.Trace.CPUTime {
				t.Errorf("%T: %s replayed %d ns of CPU (ran %t), the trace shows %d", p, tc.Trace.Name, tc.CPUTime, tc.Ran, tc.Trace.CPUTime)
			}
		}
	}
	// The M-level import has one thread per M that ran goroutines.
	ms, err := ReadGoTrace(bytes.NewReader(data), "pipeline.trace", &ImportOptions{GoThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	var mcpu, gcpu int64
	for _, ts := range ms.Tasks {
		if !strings.HasPrefix(ts.Name, "M") {
			t.Errorf("M-level task %q", ts.Name)
		}
		mcpu += ts.CPUTime
	}
	for _, ts := range im.Tasks {
		gcpu += ts.CPUTime
	}
	if mcpu != gcpu {
		t.Errorf("Ms ran %d ns, goroutines %d", mcpu, gcpu)
	}
}

func TestReadGoTraceErrors(t *testing.T) {
	data := tracePipeline(t, 5)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"not a trace", []byte("go 1.22 trace\x00\x00\x00 nonsense")},
		{"truncated", data[:len(data)/2]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadGoTrace(bytes.NewReader(tc.data), "x.trace", nil)
			var e *Error
			if !errors.As(err, &e) || e.File != "x.trace" {
				t.Errorf("ReadGoTrace = %v, want an *Error naming x.trace", err)
			}
		})
	}
}

func FuzzReadGoTrace(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "pipeline.gotrace"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:min(len(data), 4096)])
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := ReadGoTrace(bytes.NewReader(data), "fuzz.trace", nil)
		if err != nil {
			return
		}
		if err := im.Workload.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestMakeGoTraceTestdata rewrites testdata/pipeline.gotrace with
// `go test -trimpath -run MakeGoTraceTestdata -update`: a trace of the pipeline moving 40
// items, which ExampleReplay, the README and the fuzz seed use. Without -trimpath the trace
// would hold this machine's paths in its stack frames, and the test refuses to write it.
func TestMakeGoTraceTestdata(t *testing.T) {
	if !*update {
		t.Skip("run with -trimpath -update to record testdata/pipeline.gotrace")
	}
	data := tracePipeline(t, 40)
	if wd, err := os.Getwd(); err != nil || bytes.Contains(data, []byte(wd)) {
		t.Fatalf("the trace holds the working directory's path (%v): record it with go test -trimpath", err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "pipeline.gotrace"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
