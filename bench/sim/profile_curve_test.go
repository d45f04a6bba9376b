package sim_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// curveProfile returns spreadProfile with an ipi_idle curve of three points.
func curveProfile() *sim.Profile {
	p := spreadProfile()
	us := time.Microsecond
	p.IPIIdle = sim.IdleCurve{Unit: "us", Method: "a futex ping-pong, the replier waiting", Date: "2026-01-02", Points: []sim.IdleIPI{
		{Idle: 0, Cost: sim.Cost{Min: 2 * us, P50: 17 * us, P90: 22 * us, P99: 40 * us, P995: 50 * us, P999: 90 * us, Max: 300 * us}},
		{Idle: 40 * us, Cost: sim.Cost{Min: 3 * us, P50: 25 * us, P90: 30 * us, P99: 48 * us, Max: 200 * us}},
		{Idle: 320 * us, Cost: sim.Fixed(31 * us)},
	}}
	return p
}

// TestProfileCurveRoundTrip: a curve writes and reads back unchanged, and Apply puts it into
// Idle.IPICurve; a profile without one writes no ipi_idle and applies none.
func TestProfileCurveRoundTrip(t *testing.T) {
	p := curveProfile()
	b, err := p.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(b), `"ipi_idle": {"unit":"us","points":[{"idle":0,"min":2,"p50":17,`)
	q, err := sim.ParseProfile("x.json", b)
	require.NoError(t, err, "%s", b)
	assert.Equal(t, p, q)
	var cfg sim.Config
	q.Apply(&cfg)
	assert.Equal(t, p.IPIIdle.Points, cfg.Idle.IPICurve)
	assert.Equal(t, p.IPIIdle.Points, q.Latencies().IPIIdle.Points, "a latency: kept in the latencies only")

	b, err = json.Marshal(spreadProfile())
	require.NoError(t, err)
	assert.NotContains(t, string(b), "ipi_idle")
	q, err = sim.ParseProfile("x.json", b)
	require.NoError(t, err)
	q.Apply(&cfg)
	assert.Nil(t, cfg.Idle.IPICurve)
}

// TestProfileCurveErrors: every kind of bad curve is an error naming the file and the field.
func TestProfileCurveErrors(t *testing.T) {
	pt := `{"idle": 0, "p50": 20}`
	curve := func(unit, points string) string {
		return `{"unit": "` + unit + `", "points": [` + points + `], "method": "m", "date": "d"}`
	}
	cases := []struct {
		name, raw, want string
	}{
		{"unknown unit", curve("h", pt), "figures.ipi_idle.unit: \"h\", want ns"},
		{"no method", `{"unit": "us", "points": [` + pt + `], "date": "d"}`, "figures.ipi_idle.method: missing"},
		{"no date", `{"unit": "us", "points": [` + pt + `], "method": "m"}`, "figures.ipi_idle.date: missing"},
		{"no points", curve("us", ""), "figures.ipi_idle.points: none"},
		{"unknown member", `{"unit": "us", "points": [` + pt + `], "method": "m", "date": "d", "x": 1}`, "figures.ipi_idle: json: unknown field \"x\""},
		{"unknown point member", curve("us", `{"idle": 0, "p50": 20, "p75": 1}`), "figures.ipi_idle.points[0]: json: unknown field \"p75\""},
		{"no idle", curve("us", `{"p50": 20}`), "figures.ipi_idle.points[0].idle: missing"},
		{"negative idle", curve("us", `{"idle": -1, "p50": 20}`), "figures.ipi_idle.points[0].idle: negative: -1 us"},
		{"infinite idle", curve("us", `{"idle": 987654321, "p50": 20}`), "figures.ipi_idle.points[0].idle: 1e400 us is not a finite idle time"},
		{"absurd idle", curve("s", `{"idle": 2, "p50": 1e-5}`), "figures.ipi_idle.points[0].idle: 2 s is absurd (above 1s)"},
		{"descending", curve("us", pt+`, {"idle": 40, "p50": 20}, {"idle": 10, "p50": 20}`), "figures.ipi_idle.points[2].idle: 10µs not above the point before's (40µs)"},
		{"repeated", curve("us", pt+`, `+pt), "figures.ipi_idle.points[1].idle: 0s not above"},
		{"no p50", curve("us", `{"idle": 0}`), "figures.ipi_idle.points[0].p50: missing"},
		{"above ipi's limit", curve("ms", `{"idle": 0, "p50": 200}`), "figures.ipi_idle.points[0].min: 200 ms is absurd (above 100ms)"},
		{"out of order", curve("us", `{"idle": 0, "min": 5, "p50": 4, "p90": 6, "p99": 7, "max": 8}`), "figures.ipi_idle.points[0]: quantiles out of order"},
		{"partial quantiles", curve("us", `{"idle": 0, "min": 5, "p50": 6}`), "figures.ipi_idle.points[0]: give p50 alone"},
		{"negative quantile", curve("us", `{"idle": 0, "p50": -3}`), "figures.ipi_idle.points[0].min: negative"},
	}
	for _, c := range cases {
		// A number JSON cannot hold in a float64 goes in after editFigure's round trip.
		text := strings.Replace(editFigure(t, "ipi_idle", c.raw), "987654321", "1e400", 1)
		_, err := sim.ParseProfile("p.json", []byte(text))
		require.Error(t, err, c.name)
		var pe *sim.ProfileError
		require.ErrorAs(t, err, &pe, c.name)
		assert.Equal(t, "p.json", pe.File, c.name)
		assert.Contains(t, err.Error(), "sim: profile p.json: "+c.want, c.name)
	}
	p, err := sim.ParseProfile("p.json", []byte(editFigure(t, "ipi_idle", curve("ms", `{"idle": 0, "p50": 0.02}, {"idle": 0.08, "p50": 0.03}`))))
	require.NoError(t, err)
	assert.Equal(t, []sim.IdleIPI{{Idle: 0, Cost: sim.Fixed(20 * time.Microsecond)}, {Idle: 80 * time.Microsecond, Cost: sim.Fixed(30 * time.Microsecond)}},
		p.IPIIdle.Points, "idle and figures in the curve's unit")
	assert.True(t, strings.HasPrefix(p.IPIIdle.Method, "m"))
}
