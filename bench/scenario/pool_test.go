package scenario_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pool runs up to Workers cells at once and never more: each Build waits until Workers
// builds are in flight (or 300 ms, for the last cells), and records the most seen together.
func TestPoolIsBoundedAndConcurrent(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		var inFlight, most atomic.Int32
		var mu sync.Mutex
		cond := sync.NewCond(&mu)
		s := &scenario.Scenario{
			Name:    "pool",
			Rows:    []scenario.Row{{Label: "a", Policy: "cfs:v6.5"}},
			Metrics: []scenario.Metric{{Name: "m", Of: func(*sim.Result, *scenario.Setup) float64 { return 1 }}},
			Build: func(scenario.Values, *scenario.Row) (scenario.Setup, error) {
				n := inFlight.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				mu.Lock()
				cond.Broadcast()
				deadline := time.Now().Add(300 * time.Millisecond)
				for inFlight.Load() < int32(workers) && time.Now().Before(deadline) {
					go func() { time.Sleep(10 * time.Millisecond); cond.Broadcast() }()
					cond.Wait()
				}
				mu.Unlock()
				inFlight.Add(-1)
				w := &workload.Workload{Threads: []workload.Thread{{Name: "t", Ops: []workload.Op{workload.RunOp(workload.Fixed(1000))}}}}
				return scenario.Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, Workload: w, Until: time.Second}, nil
			},
			Reps: 4 * workers,
		}
		_, err := scenario.Run(s, scenario.Options{Workers: workers})
		require.NoError(t, err)
		assert.Equal(t, int32(workers), most.Load(), "workers=%d: most cells in flight at once", workers)
	}
}
