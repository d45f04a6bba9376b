package host

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProbeIPCFanout runs the fan-out probe briefly through pipes and sockets: every message
// kept is timed in its write and its read, and the receiver found each message in the pipe or
// socket it was written to, in order (the probe checks the index the sender wrote into it, and
// fails otherwise). The queues' depth here (5 pipes of 3) is small, so the two threads wait
// for each other often. Misuse panics.
func TestProbeIPCFanout(t *testing.T) {
	cpus, err := processAffinity()
	require.NoError(t, err)
	a, _ := cpus.First()
	b, _ := cpus.Last()
	for _, socket := range []bool{false, true} {
		w, r, err := (&prober{}).probeIPCFanout(b, a, 100, 5, 3, 400, socket)
		require.NoError(t, err, "socket %v", socket)
		require.Len(t, w, 400)
		require.Len(t, r, 400)
		for i := range w {
			assert.Positive(t, w[i], "write %d", i)
			assert.Positive(t, r[i], "read %d", i)
		}
	}
	assert.PanicsWithValue(t, "host: probeIPCFanout: k 0, depth 3, n 10, size 100: want positive counts and at least 8 bytes", func() {
		_, _, _ = (&prober{}).probeIPCFanout(b, a, 100, 0, 3, 10, true)
	})
}

// TestCalibrateFanout: CalibrateProgram measures the two fan-out figures alone (as schedbench
// calibrate -program pipe100_fanout,socket100_fanout does), once each, into figures with their
// methods; no other figure is measured.
func TestCalibrateFanout(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the probes run a second or two")
	}
	if os.Geteuid() != 0 {
		t.Skip("the probes' shield group needs root")
	}
	cpus, err := processAffinity()
	require.NoError(t, err)
	if cpus.Count() < 2 {
		t.Skip("one CPU: the fan-out probe needs two")
	}
	figs, m, err := CalibrateProgram(context.Background(), CalibrateOptions{MaxLoad: -1, Samples: 200, Reps: 1}, []string{"pipe100_fanout", "socket100_fanout"})
	require.NoError(t, err)
	require.Len(t, figs, 2)
	for _, name := range []string{"pipe100_fanout", "socket100_fanout"} {
		assert.Positive(t, figs[name].Cost.P50, name)
		assert.LessOrEqual(t, figs[name].Cost.P50, figs[name].Cost.P99, name)
		assert.NotEmpty(t, figs[name].Method, name)
	}
	assert.Equal(t, figs["socket100_fanout"].Cost, m.Socket100Fanout)
	assert.Zero(t, m.Socket100Shared)
	assert.Zero(t, m.Pipe100)
}
