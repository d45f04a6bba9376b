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
	lines := strings.Split(b.String(), "\n")
	// Two heading lines, three threads, four lines of legend, a blank line, the totals' heading,
	// its row and two lines of legend.
	require.Len(t, lines, 2+3+4+1+2+2+1, b.String())
	assert.Equal(t, []string{"toy-rr"}, strings.Fields(lines[0]))
	assert.Equal(t, []string{"thread", "cpu%", "req", "p50", "req", "p99.99"}, strings.Fields(lines[1]),
		"each heading names the series: request latency")
	tk := thread(t, r, "tick")
	p50, _ := tk.Request.Percentile(50)
	assert.Contains(t, lines[4], "tick")
	require.True(t, p50 >= 1e6 && p50 < 10e6, "p50 %d", p50)
	assert.Equal(t, fmt.Sprintf("%.2fms", float64(p50)/1e6), strings.Fields(lines[4])[2])
	assert.True(t, strings.HasPrefix(lines[5], "cpu%: the thread's CPU time"), lines[5])
	assert.Contains(t, lines[5], "req p50 … p99.99: its request latency")
	assert.Empty(t, lines[9])
	assert.Equal(t, []string{"policy", "runs", "makespan", "(time)", "idle%", "switches", "migrations"}, strings.Fields(lines[10]))
	assert.Equal(t, []string{"toy-rr", "1", "1.00s"}, strings.Fields(lines[11])[:3])
	assert.Equal(t, "makespan: when the last thread exited (the end if one still runs); idle%: the CPUs' idle time over\n"+
		"all their time; switches, migrations: counts.", lines[12]+"\n"+lines[13])
}

// TestTableHeadings checks that every column of every series says what it measures: the
// latency columns name their series, the share column its unit, and the legend explains the
// series.
func TestTableHeadings(t *testing.T) {
	r := keptRun(t)
	for _, tc := range []struct {
		s      sim.Series
		head   string
		legend string
	}{
		{sim.WakeupLatency, "wake p99", "its wake-up latency"},
		{sim.RunqWait, "runq p99", "its run-queue wait"},
		{sim.RequestLatency, "req p99", "its request latency"},
	} {
		var b strings.Builder
		require.NoError(t, sim.WriteTableOf(&b, sim.Table{Series: tc.s, Percentiles: []float64{99}}, r))
		lines := strings.Split(b.String(), "\n")
		assert.Equal(t, []string{"thread", "cpu%", tc.head[:strings.IndexByte(tc.head, ' ')], "p99"}, strings.Fields(lines[1]), tc.s)
		assert.Contains(t, b.String(), tc.head+": "+tc.legend, tc.s)
		assert.Contains(t, b.String(), `"-": no figure`, tc.s)
		assert.Contains(t, b.String(), `0ns: measured, and 0.`, tc.s)
	}
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
