package sim_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wantKinds is every figure's kind by the rule of the package's doc: CPU time the kernel counts
// in a workload thread's user+system time, or wall time in which no thread of the workload runs
// for it. A figure added to ProfileFigures fails TestProfileFigureKinds until it is decided here.
var wantKinds = map[string]sim.FigureKind{
	"wakeup": sim.CPUFigure, "ipi": sim.LatencyFigure, "ipi_send": sim.CPUFigure, "idle_exit": sim.LatencyFigure,
	"idle_poll": sim.LatencyFigure, "timer": sim.LatencyFigure, "timer_exit": sim.LatencyFigure, "switch": sim.CPUFigure, "switch_mm": sim.CPUFigure,
	"refill": sim.CPUFigure, "migration_smt": sim.CPUFigure, "migration_llc": sim.CPUFigure,
	"migration_node": sim.CPUFigure, "migration_remote": sim.CPUFigure, "tick": sim.CPUFigure,
}

func TestProfileFigureKinds(t *testing.T) {
	names := sim.ProfileFigures()
	require.Len(t, wantKinds, len(names), "a figure of wantKinds is not in ProfileFigures")
	for _, name := range names {
		want, ok := wantKinds[name]
		require.True(t, ok, "figure %s has no kind in wantKinds", name)
		got, ok := sim.ProfileFigureKind(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	_, ok := sim.ProfileFigureKind("pipe")
	assert.False(t, ok, "a program figure is no figure the machine charges")
	assert.Equal(t, "cpu", sim.CPUFigure.String())
	assert.Equal(t, "latency", sim.LatencyFigure.String())
	assert.Equal(t, "FigureKind(0)", sim.FigureKind(0).String())
}

// TestProfileLatencies: the restriction keeps exactly the latency figures, as they are, and
// makes every CPU figure 0, keeping its unit and date; the program figures and the machine are
// p's; p itself is not changed.
func TestProfileLatencies(t *testing.T) {
	p := spreadProfile()
	before, err := json.Marshal(p)
	require.NoError(t, err)
	q := p.Latencies()
	for _, name := range sim.ProfileFigures() {
		f, g := p.Figures[name], q.Figures[name]
		require.False(t, f.Cost.IsZero(), "%s: the spread profile charges every figure", name)
		if wantKinds[name] == sim.LatencyFigure {
			assert.Equal(t, f, g, "%s: a latency is kept as it is", name)
			continue
		}
		assert.True(t, g.Cost.IsZero(), "%s: a CPU figure is left out", name)
		assert.Equal(t, f.Date, g.Date, name)
		assert.Equal(t, f.Unit, g.Unit, name)
		assert.Contains(t, g.Method, "left out (latencies only)", name)
		assert.Contains(t, g.Method, f.Method, name)
	}
	assert.Len(t, q.Figures, len(p.Figures))
	assert.Equal(t, p.Program, q.Program)
	assert.Equal(t, p.Machine, q.Machine)
	assert.Equal(t, p.Provenance, q.Provenance)
	assert.Equal(t, "test (latencies only)", q.Name)
	assert.Equal(t, "test (latencies only, measured 2026-01-02)", q.String())
	assert.True(t, q.LatenciesOnly())
	assert.False(t, p.LatenciesOnly())
	assert.False(t, q.Ideal())
	after, err := json.Marshal(p)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "Latencies changed its receiver")

	// Its Config charges the latencies alone.
	var cfg sim.Config
	q.Apply(&cfg)
	want := sim.Config{Costs: sim.Costs{IPI: p.Figures["ipi"].Cost, Timer: p.Figures["timer"].Cost,
		TimerExit: p.Figures["timer_exit"].Cost},
		Idle: sim.Idle{ExitLatency: p.Figures["idle_exit"].Cost, PollWindow: p.Figures["idle_poll"].Cost}}
	assert.Equal(t, want, cfg)
}

// TestProfileLatenciesDeterministic: the restriction is a function of the profile (twice the
// same, and the latencies of the latencies are the latencies), and writes and reads back as a
// profile file.
func TestProfileLatenciesDeterministic(t *testing.T) {
	for _, name := range sim.BuiltinProfiles() {
		p, ok := sim.BuiltinProfile(name)
		require.True(t, ok)
		q := p.Latencies()
		assert.Equal(t, q, p.Latencies(), name)
		assert.Equal(t, q, q.Latencies(), "%s: the restriction of a restriction", name)
		b, err := json.Marshal(q)
		require.NoError(t, err)
		r, err := sim.ParseProfile(name+".json", b)
		require.NoError(t, err, "%s", b)
		b2, err := json.Marshal(r)
		require.NoError(t, err)
		assert.Equal(t, string(b), string(b2), name)
		qc, qx := q.Costs()
		rc, rx := r.Costs()
		assert.Equal(t, qc, rc, name)
		assert.Equal(t, qx, rx, name)
	}
	ideal := sim.IdealProfile().Latencies()
	assert.True(t, ideal.Ideal(), "the ideal profile's latencies charge nothing")
	assert.False(t, ideal.LatenciesOnly(), "a profile that charges nothing charges no latency")
	assert.Equal(t, "ideal (latencies only) (no costs)", ideal.String())
}

func TestProfileLatenciesNil(t *testing.T) {
	assert.PanicsWithValue(t, "sim: Latencies of a nil profile", func() { (*sim.Profile)(nil).Latencies() })
}

// TestProfileLatenciesRun: a cross-CPU producer and consumer under the restricted profile. The
// producer pays no wake-up and no IPI send (CPU figures): its CPU time is its script's; the
// consumer's wake-ups still wait for the IPI and the idle exit (latencies), as under the whole
// profile, where the producer pays both. Two runs with one seed are the same.
func TestProfileLatenciesRun(t *testing.T) {
	fixed := spreadProfile()
	for name, f := range fixed.Figures {
		f.Cost = sim.Fixed(f.Cost.P50)
		fixed.Figures[name] = f
	}
	fixed.Figures["idle_poll"] = sim.Figure{Unit: "us", Method: "no polling", Date: "2026-01-02"}
	run := func(p *sim.Profile) *sim.Result {
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 3, Trace: sim.TraceHash}
		p.Apply(&cfg)
		return runChecked(t, cfg, newRR(1000, 4), mustParse(t, crossCPU), time.Second)
	}
	lat, again, whole := run(fixed.Latencies()), run(fixed.Latencies()), run(fixed)
	assert.Equal(t, lat.Trace.Hash(), again.Trace.Hash())
	assert.Equal(t, lat.Threads, again.Threads)
	assert.Equal(t, 10*300*us, thread(t, lat, "producer").CPUTime, "the producer pays no CPU figure")
	wakeup, send := fixed.Figures["wakeup"].Cost.P50, fixed.Figures["ipi_send"].Cost.P50
	// The whole profile's producer pays them, and its first switch and the ticks besides.
	assert.GreaterOrEqual(t, thread(t, whole, "producer").CPUTime, 10*(300*us+int64(wakeup+send)))
	// Each wake-up of the idle consumer waits for the IPI and the idle exit, in both.
	ipi, exit := fixed.Figures["ipi"].Cost.P50, fixed.Figures["idle_exit"].Cost.P50
	c := thread(t, lat, "consumer")
	v, ok := c.Latency(50)
	require.True(t, ok)
	assert.Equal(t, int64(ipi+exit), v, "the consumer's median wake-up latency is the IPI and the idle exit")
}
