package trace

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// TestFtraceRoundTrip exports a simulated run as ftrace text, imports it, and checks that the
// import sees each thread exactly as the simulator measured it, and that replaying the
// imported workload on the same machine under the same policy behaves the same way.
func TestFtraceRoundTrip(t *testing.T) {
	for _, ncpu := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("cpus=%d", ncpu), func(t *testing.T) { checkFtraceRoundTrip(t, ncpu) })
	}
}

func checkFtraceRoundTrip(t *testing.T, ncpu int) {
	res := runResult(t, pingPong, ncpu, 50*time.Millisecond)
	var buf bytes.Buffer
	if err := WriteFtrace(&buf, res.Trace, &FtraceOptions{FullComm: true, IRQFlags: true}); err != nil {
		t.Fatal(err)
	}
	im, err := ReadFtrace(&buf, "pingpong.ftrace", nil)
	if err != nil {
		t.Fatal(err)
	}
	if im.Warned != 0 {
		t.Errorf("warnings on our own export: %v", im.Warnings)
	}
	if len(im.Tasks) != len(res.Threads) {
		t.Fatalf("imported %d tasks, the run had %d threads", len(im.Tasks), len(res.Threads))
	}
	for _, st := range res.Threads {
		var ts *TaskStats
		for i := range im.Tasks {
			if im.Tasks[i].PID == int64(DefaultPIDBase)+int64(st.ID) {
				ts = &im.Tasks[i]
			}
		}
		if ts == nil {
			t.Fatalf("thread %s not imported", st.Name)
		}
		if ts.Comm != st.Name || ts.CPUTime != st.CPUTime || ts.WaitTime != st.WaitTime || ts.Sleep != st.Sleep || ts.Wakeups != st.Wakeups {
			t.Errorf("%s: imported comm %s cpu %d wait %d sleep %d wakeups %d; simulated cpu %d wait %d sleep %d wakeups %d",
				st.Name, ts.Comm, ts.CPUTime, ts.WaitTime, ts.Sleep, ts.Wakeups, st.CPUTime, st.WaitTime, st.Sleep, st.Wakeups)
		}
		if lat, ok := st.Wakeup.Exact(); ok {
			var sum int64
			for _, l := range lat {
				sum += l
			}
			if int64(len(lat)) != ts.Latencies || sum != ts.LatencySum {
				t.Errorf("%s: imported %d latencies summing to %d; simulated %d summing to %d", st.Name, ts.Latencies, ts.LatencySum, len(lat), sum)
			}
		}
		if ts.RunningAtStart || ts.RunnableAtStart || ts.SleepingAtStart {
			t.Errorf("%s marked as existing before the trace", st.Name)
		}
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, ncpu, 1)}
	c, err := Replay(cfg, policy("ule:main"), im, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range c.Tasks {
		if !tc.Ran {
			t.Errorf("%s did not run in the replay", tc.Trace.Name)
			continue
		}
		if tc.CPUTime != tc.Trace.CPUTime || tc.WaitTime != tc.Trace.WaitTime || tc.MeanLatency != tc.Trace.MeanLatency() {
			t.Errorf("%s: replay cpu %d wait %d latency %d; trace cpu %d wait %d latency %d", tc.Trace.Name,
				tc.CPUTime, tc.WaitTime, tc.MeanLatency, tc.Trace.CPUTime, tc.Trace.WaitTime, tc.Trace.MeanLatency())
		}
	}
	var tab bytes.Buffer
	if err := c.WriteTable(&tab, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", tab.String())
}
