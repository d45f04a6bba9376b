package sim_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/require"
)

func mustParse(t testing.TB, text string) *workload.Workload {
	t.Helper()
	w, err := workload.Parse(text)
	require.NoError(t, err)
	return w
}

// runChecked runs w under p, checking the conservation of threads after every event.
func runChecked(t testing.TB, cfg sim.Config, p sim.Policy, w *workload.Workload, until time.Duration) *sim.Result {
	t.Helper()
	m, err := sim.New(cfg, p, w)
	require.NoError(t, err)
	for next, ok := m.Next(); ok && next <= int64(until); next, ok = m.Next() {
		m.Step()
		if err := m.Check(); err != nil {
			t.Fatal(err)
		}
	}
	require.NoError(t, m.Run(until))
	return m.Result()
}

func TestOneHog(t *testing.T) {
	w := mustParse(t, "thread hog\n\trun forever\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}
	r := runChecked(t, cfg, newRR(1000, 4), w, time.Second)
	require.Len(t, r.Threads, 1)
	require.Equal(t, 1.0, r.Threads[0].Share())
	require.Equal(t, int64(time.Second), r.Threads[0].CPUTime)
}
