package sim_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Spin ends at its wall-clock end however long its thread was off the CPU in between, where
// a Run of the same duration needs that much CPU; a thread preempted past the end stops as soon
// as it runs again. One CPU, round robin with a 4 ms slice at 1000 Hz.
func TestSpin(t *testing.T) {
	one := topology.Uniform(1, 1, 1, 1, 1)
	for _, tc := range []struct {
		name, text string
		// end and cpu are each thread's exit time and CPU time.
		end, cpu map[string]time.Duration
	}{
		{"alone", "thread a\n\tspin 10ms\nend\n",
			map[string]time.Duration{"a": 10 * time.Millisecond}, map[string]time.Duration{"a": 10 * time.Millisecond}},
		// a runs 0-4 and 8-10 (its end); b runs 4-8, and its end (10 ms) passes while it
		// waits, so it stops as soon as it runs again, at 10.
		{"two spins share the CPU and end by the wall clock", "thread a\n\tspin 10ms\nend\nthread b\n\tspin 6ms\nend\n",
			map[string]time.Duration{"a": 10 * time.Millisecond, "b": 10 * time.Millisecond},
			map[string]time.Duration{"a": 6 * time.Millisecond, "b": 4 * time.Millisecond}},
		// The same with runs: each needs its full CPU time, 16 ms in all.
		{"two runs need their CPU time", "thread a\n\trun 10ms\nend\nthread b\n\trun 6ms\nend\n",
			map[string]time.Duration{"a": 16 * time.Millisecond, "b": 14 * time.Millisecond},
			map[string]time.Duration{"a": 10 * time.Millisecond, "b": 6 * time.Millisecond}},
		// a's first spin ends at 3 ms and its second begins at once; the slice ends at 4 ms,
		// b runs 4-8, and a's second spin, whose end (6 ms) passed meanwhile, stops at 8.
		{"spins in a row", "thread a\n\tspin 3ms\n\tspin 3ms\nend\nthread b\n\trun 4ms\nend\n",
			map[string]time.Duration{"a": 8 * time.Millisecond, "b": 8 * time.Millisecond},
			map[string]time.Duration{"a": 4 * time.Millisecond, "b": 4 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := sim.Run(sim.Config{Topology: one, Seed: 1}, newRR(1000, 4), mustParse(t, tc.text), time.Second)
			require.NoError(t, err)
			for name, end := range tc.end {
				th := thread(t, r, name)
				assert.InDelta(t, int64(end), th.End, 20e3, "%s's end", name)
				assert.InDelta(t, int64(tc.cpu[name]), th.CPUTime, 20e3, "%s's CPU time", name)
			}
		})
	}
}
