package host

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProbeSwitchRing runs the ring probe briefly with processes and with threads on one CPU:
// every lap kept is timed, each hop positive; a lap lost (the probe checks each write and read
// of the token) fails it. The processes' hop is not compared with the threads' here: that is
// the machine's figure (where it does not hold, switchMMRing's extra is 0 at the median). Misuse
// panics.
func TestProbeSwitchRing(t *testing.T) {
	cpus, err := processAffinity()
	require.NoError(t, err)
	cpu, _ := cpus.Last()
	// Another goroutine allocates all along, as the rest of a program may: a collection that
	// started while the ring's threads sit in their raw reads would wait for them forever.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		var sink [][]byte
		for {
			select {
			case <-stop:
				return
			default:
				sink = append(sink, make([]byte, 64<<10))
				if len(sink) > 64 {
					sink = sink[:0]
				}
			}
		}
	}()
	for _, procs := range []bool{false, true} {
		s, err := (&prober{}).probeSwitchRing(cpu, 4, 50, procs)
		require.NoError(t, err, "procs %v", procs)
		require.Len(t, s, 50)
		for i, v := range s {
			assert.Positive(t, v, "lap %d", i)
		}
	}
	assert.PanicsWithValue(t, "host: probeSwitchRing: k 1, n 10: want a ring of 2 tasks or more and a lap", func() {
		_, _ = (&prober{}).probeSwitchRing(cpu, 1, 10, true)
	})
}

// TestCalibrateSwitchMMRing: CalibrateProgram measures switch_mm_ring alone (as schedbench
// calibrate -program switch_mm_ring does) into a figure with its method; no other figure is
// measured. The figure is a difference, the processes' hop less the threads' median hop, kept
// at 0 where the processes are no slower: its quantiles are 0 or more and in order, not
// positive, since on a loaded machine (go test's other packages beside it) the two rings'
// spread can exceed the switch of address space, and then the median's extra is 0.
func TestCalibrateSwitchMMRing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the probe starts 19 processes and runs a second")
	}
	if os.Geteuid() != 0 {
		t.Skip("the probes' shield group needs root")
	}
	figs, m, err := CalibrateProgram(context.Background(), CalibrateOptions{MaxLoad: -1, Samples: 200, Reps: 1}, []string{"switch_mm_ring"})
	require.NoError(t, err)
	require.Len(t, figs, 1)
	f := figs["switch_mm_ring"]
	q := q7(f.Cost)
	assert.GreaterOrEqual(t, q[0], int64(0))
	for i := 1; i < 7; i++ {
		assert.LessOrEqual(t, q[i-1], q[i], "quantiles out of order")
	}
	assert.Contains(t, f.Method, "ring of 20 processes")
	assert.Equal(t, f.Cost, m.SwitchMMRing)
	assert.Zero(t, m.Socket100Fanout)
}
