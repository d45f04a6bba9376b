package host

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCalibrateProbes runs every probe with few samples, on whatever load there is: each
// measurement the host can make has positive quantiles in order; what it cannot make is named
// in Skipped, and then no profile comes back. The figures of a loaded machine are not checked:
// they are the load's.
func TestCalibrateProbes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the probes run a few seconds")
	}
	if os.Geteuid() != 0 {
		t.Skip("the timer probes need SCHED_IDLE and a cgroup: run as root")
	}
	p, m, err := Calibrate(context.Background(), CalibrateOptions{MaxLoad: -1, Samples: 100})
	for _, c := range []struct {
		name string
		q    [7]int64
	}{{"futex wake", q7(m.FutexWake)}, {"local wake", q7(m.WakeLocal)}, {"pipe", q7(m.PipeRW)}, {"timer idle", q7(m.TimerIdle)},
		{"timer busy", q7(m.TimerBusy)}, {"pipe100", q7(m.Pipe100)}, {"socket100", q7(m.Socket100)},
		{"pipe100 shared", q7(m.Pipe100Shared)}, {"socket100 shared", q7(m.Socket100Shared)},
		{"pipe100 fanout", q7(m.Pipe100Fanout)}, {"socket100 fanout", q7(m.Socket100Fanout)}} {
		assert.Positive(t, c.q[1], c.name)
		for i := 1; i < 7; i++ {
			assert.LessOrEqual(t, c.q[i-1], c.q[i], "%s quantiles out of order", c.name)
		}
	}
	// perf bench sched pipe blocks in one or both of a round trip's reads (one on Linux 6.18,
	// where the woken reader preempts the writer; two where it does not), whatever the load.
	if m.PerfPipeThreads.Max > 0 {
		assert.InDelta(t, 1.5, m.PerfPipeThreadsWakes, 0.75, "perf bench sched pipe -T's wake-ups a round trip")
		assert.InDelta(t, 1.5, m.PerfPipeWakes, 0.75, "perf bench sched pipe's wake-ups a round trip")
	}
	// Every probe ran the default three times, and each figure is the repetitions' median.
	require.Len(t, m.Reps, 3)
	pings := []sim.Cost{m.Reps[0].PingRemote, m.Reps[1].PingRemote, m.Reps[2].PingRemote}
	for _, c := range []struct {
		name   string
		median sim.Cost
		reps   []sim.Cost
	}{{"timer idle", m.TimerIdle, m.TimerIdleReps}, {"timer busy", m.TimerBusy, m.TimerBusyReps}, {"ping-pong", m.PingRemote, pings}} {
		require.Len(t, c.reps, 3, c.name)
		assert.Equal(t, MedianCost(c.reps), c.median, c.name)
	}
	if err != nil {
		// A calibration fails only by skipping a measurement, or where a loaded machine's
		// measurements disagree (Derive); it then returns no profile.
		assert.Nil(t, p)
		var se *SkippedError
		if errors.As(err, &se) {
			assert.NotEmpty(t, se.Skipped)
			t.Logf("skipped: %s", strings.Join(se.Skipped, "; "))
			return
		}
		require.Contains(t, err.Error(), "host: derive:")
		t.Logf("%v (load average %.2f)", err, loadavg())
		return
	}
	require.NotNil(t, p)
	assert.Positive(t, p.Machine.Hz)
	assert.Equal(t, "host", p.Name)
	assert.Contains(t, strings.Join(p.Provenance.Notes, "\n"), "timer on an idle CPU: 3 repetitions of 100 samples, each quantile the median of theirs")
}

// q7 returns c's quantiles as nanoseconds.
func q7(c sim.Cost) [7]int64 {
	var q [7]int64
	for i, d := range quantiles(c) {
		q[i] = int64(d)
	}
	return q
}
