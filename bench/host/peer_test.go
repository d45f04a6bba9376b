package host_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/host"
)

// Outputs of the real programs on this machine (perf 6.1, rt-tests 2.4, stress-ng 0.15.06).
const (
	perfMessaging = "# Running 'sched/messaging' benchmark:\n# 20 sender and receiver processes per group\n# 1 groups == 40 processes run\n\n     Total time: 0.024 [sec]\n"
	perfPipe      = "# Running 'sched/pipe' benchmark:\n# Executed 1000 pipe operations between two processes\n\n     Total time: 0.006 [sec]\n\n       6.210000 usecs/op\n         161030 ops/sec\n"
	hackbenchOut  = "Running in process mode with 1 groups using 40 file descriptors each (== 40 tasks)\nEach sender will pass 10 messages of 100 bytes\nTime: 0.010\n"
	cyclicOut     = "defaulting realtime priority to 2\n# /dev/cpu_dma_latency set to 0us\nT: 0 ( 2702) P: 2 I:1000 C:     50 Min:     12 Act:   13 Avg:   14 Max:      25\n"
	stressOut     = "stress-ng: info:  [2703] dispatching hogs: 1 cpu\nstress-ng: metrc: [2703] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s\nstress-ng: metrc: [2703]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)\nstress-ng: metrc: [2703] cpu                1758      1.00      0.99      0.00      1755.99        1760.29\nstress-ng: info:  [2703] successful run completed in 1.00s\n"
)

func TestParsePerfBench(t *testing.T) {
	b, err := host.ParsePerfBench(perfMessaging)
	require.NoError(t, err)
	require.Equal(t, host.Bench{Total: 24 * time.Millisecond, Tasks: 40}, b)
	b, err = host.ParsePerfBench(perfPipe)
	require.NoError(t, err)
	require.Equal(t, host.Bench{Total: 6 * time.Millisecond, PerOp: 6210 * time.Nanosecond, OpsPerSec: 161030}, b)
	for _, tc := range []struct{ in, want string }{
		{"# nothing\n", "no Total time line"},
		{"     Total time: x [sec]\n", "perf bench:1:18:"},
		{"     Total time: 1.0 [min]\n", "perf bench:1:6: Total time without [sec]"},
		{"     Total time: 1.0 [sec]\n  y ops/sec\n", "perf bench:2:3:"},
	} {
		_, err := host.ParsePerfBench(tc.in)
		require.ErrorContains(t, err, tc.want, "ParsePerfBench(%q)", tc.in)
	}
}

func TestParseHackbench(t *testing.T) {
	b, err := host.ParseHackbench(hackbenchOut)
	require.NoError(t, err)
	require.Equal(t, host.Bench{Total: 10 * time.Millisecond, Tasks: 40}, b)
	_, err = host.ParseHackbench("Time: soon\n")
	require.ErrorContains(t, err, "hackbench:1:7:")
	_, err = host.ParseHackbench("Running\n")
	require.ErrorContains(t, err, "no Time: line")
}

func TestParseCyclictest(t *testing.T) {
	ts, err := host.ParseCyclictest(cyclicOut)
	require.NoError(t, err)
	require.Equal(t, []host.CyclicThread{{Thread: 0, TID: 2702, Prio: 2, Interval: 1000, Cycles: 50, Min: 12, Act: 13, Avg: 14, Max: 25}}, ts)
	for _, tc := range []struct{ in, want string }{
		{"nothing\n", "no thread line"},
		{"T: 0 ( 2702) P: 2 I:1000 C: 50\n", "cut short"},
		{"T: 0 ( 2702) Q: 2 I:1000 C:     50 Min:     12 Act:   13 Avg:   14 Max:      25\n", `cyclictest:1:14: "Q:" where P: was expected`},
		{"T: 0 ( 2702) P: 2 I:1000 C:     50 Min:     x Act:   13 Avg:   14 Max:      25\n", "cyclictest:1:"},
	} {
		_, err := host.ParseCyclictest(tc.in)
		require.ErrorContains(t, err, tc.want, "ParseCyclictest(%q)", tc.in)
	}
}

func TestParseStressNG(t *testing.T) {
	ms, err := host.ParseStressNG(stressOut)
	require.NoError(t, err)
	require.Equal(t, []host.StressMetric{{Stressor: "cpu", BogoOps: 1758, Real: time.Second, User: 990 * time.Millisecond,
		PerSec: 1755.99, PerCPUSec: 1760.29}}, ms)
	_, err = host.ParseStressNG("stress-ng: metrc: [1] cpu x 1.00 0.99 0.00 1 1\n")
	require.ErrorContains(t, err, "stress-ng:1:")
	_, err = host.ParseStressNG("stress-ng: info: nothing\n")
	require.ErrorContains(t, err, "no metric line")
}

// FuzzPeerOutputs feeds every reader junk and real outputs spliced together: none panics, each
// error is a positioned ParseError, and what one reader accepts it accepts again with the
// output's other lines around it.
func FuzzPeerOutputs(f *testing.F) {
	for _, s := range []string{perfMessaging, perfPipe, hackbenchOut, cyclicOut, stressOut, "T: 1 (1) P:1 I:1 C:1 Min:1 Act:1 Avg:1 Max:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(name string, err error) {
			var pe *host.ParseError
			if err != nil && (!errors.As(err, &pe) || pe.Line < 1 || pe.Col < 1) {
				t.Fatalf("%s(%q): error %v without a position", name, s, err)
			}
		}
		b, err := host.ParsePerfBench(s)
		check("ParsePerfBench", err)
		if err == nil {
			b2, err := host.ParsePerfBench("# header\n" + s)
			require.NoError(t, err)
			require.Equal(t, b, b2)
		}
		_, err = host.ParseHackbench(s)
		check("ParseHackbench", err)
		ts, err := host.ParseCyclictest(s)
		check("ParseCyclictest", err)
		if err == nil {
			require.Equal(t, strings.Count("\n"+s, "\nT:"), len(ts))
		}
		_, err = host.ParseStressNG(s)
		check("ParseStressNG", err)
	})
}
