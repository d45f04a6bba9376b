package host

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProbeIdlePingPong runs the idle ping-pong briefly: every wake-up kept was sent at least
// the wait after the sleeper noted the time (the replier waited), each latency is positive, and
// most round trips found the sleeper asleep. One CPU is an error. As in Calibrate (measure),
// the probe's threads hold their Ps in their raw system calls, and a collection would wait for
// the sleeper: spare Ps, no collection.
func TestProbeIdlePingPong(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 4))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	cpus, err := processAffinity()
	require.NoError(t, err)
	a, _ := cpus.First()
	b, _ := cpus.Last()
	if a == b {
		_, _, err := (&prober{}).probeIdlePingPong(a, b, 100, 0)
		assert.ErrorContains(t, err, "one CPU")
		t.Skip("one CPU: no ping-pong between two")
	}
	const n, wait = 200, 50 * time.Microsecond
	lat, sent, err := (&prober{}).probeIdlePingPong(a, b, n, wait)
	require.NoError(t, err)
	require.Len(t, sent, len(lat))
	assert.Greater(t, len(lat), n/2, "round trips that found the sleeper asleep")
	for i := range lat {
		assert.GreaterOrEqual(t, sent[i], int64(wait))
		assert.Positive(t, lat[i])
	}
	_, _, err = (&prober{}).probeIdlePingPong(a, a, 100, 0)
	assert.ErrorContains(t, err, "one CPU")
}
