package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteTableOf(t *testing.T) {
	w := mustParse(t, "thread hog count=2\n\trun forever\nend\nthread tick\n\tevery 10ms\n\t\trun 1ms\n\tend\nend\n")
	r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, newRR(1000, 4), w, time.Second)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, sim.WriteTableOf(&b, sim.Table{Series: sim.RequestLatency, Percentiles: []float64{50, 99.99},
		Totals: []sim.Total{sim.Makespan, sim.IdleShare, sim.Switches, sim.Migrations}}, r))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 1+3+4)
	assert.Equal(t, []string{"thread", "toy-rr", "p50", "p99.99"}, strings.Fields(lines[0]))
	tk := thread(t, r, "tick")
	p50, _ := tk.Request.Percentile(50)
	assert.Contains(t, lines[3], "tick")
	require.True(t, p50 >= 1e6 && p50 < 10e6, "p50 %d", p50)
	assert.Equal(t, fmt.Sprintf("%.2fms", float64(p50)/1e6), strings.Fields(lines[3])[2])
	assert.Equal(t, []string{"makespan", "1.00s"}, strings.Fields(lines[4]))
	assert.Equal(t, "idle", strings.Fields(lines[5])[0])
	assert.Equal(t, "switches", strings.Fields(lines[6])[0])
	assert.Equal(t, "migrations", strings.Fields(lines[7])[0])
}

func TestWriteTableNilResult(t *testing.T) {
	defer func() {
		p := recover()
		if s, ok := p.(string); !ok || !strings.HasPrefix(s, "sim: WriteTable of a nil result") {
			t.Errorf("WriteTable(w, nil) panicked with %v, want a panic starting \"sim: WriteTable of a nil result\"", p)
		}
	}()
	sim.WriteTable(&strings.Builder{}, nil)
}
