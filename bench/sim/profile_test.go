package sim_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spreadProfile returns a profile with a spread on every figure, for round trips.
func spreadProfile() *sim.Profile {
	p := &sim.Profile{Name: "test", About: "a made-up machine", Machine: sim.ProfileMachine{CPU: "x", Kernel: "6.18", CPUs: 2, Hz: 250},
		Provenance: sim.Provenance{Date: "2026-01-02", Command: "schedbench calibrate", LoadAverage: [2]float64{0.1, 0.25}, Notes: []string{"n"}},
		Figures:    map[string]sim.Figure{}, Program: map[string]sim.Figure{}}
	for i, name := range sim.ProfileFigures() {
		d := time.Duration(i+1) * 1001 * time.Nanosecond
		c := sim.Cost{Min: d / 2, P50: d, P90: 2 * d, P99: 5 * d, Max: 9 * d}
		if i%2 == 0 {
			c.P999 = 7 * d
		}
		if i%4 == 0 {
			c.P995 = 6 * d
		}
		if name == "tick" {
			c = sim.Fixed(1234 * time.Nanosecond)
		}
		p.Figures[name] = sim.Figure{Cost: c, Unit: "us", Method: "measured " + name, Date: "2026-01-02"}
	}
	p.Figures["migration_remote"] = sim.Figure{Cost: p.Figures["migration_node"].Cost, Unit: "us", Method: "migration_node's",
		Date: "2026-01-02", Assumed: "one node"}
	p.Program["pipe"] = sim.Figure{Cost: sim.Fixed(900 * time.Nanosecond), Unit: "us", Method: "write+read", Date: "2026-01-02"}
	return p
}

func TestProfileRoundTrip(t *testing.T) {
	p := spreadProfile()
	b, err := json.Marshal(p)
	require.NoError(t, err)
	q, err := sim.ParseProfile("x.json", b)
	require.NoError(t, err, "%s", b)
	assert.Equal(t, p, q)
	b2, err := json.Marshal(q)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(b2))
}

// TestProfileRoundTripOddNames: a program figure's name is the file's own key, any string;
// one with a character Go's %q writes in a form JSON has not (\x00, \a, \v, \U0001f600) is
// written as JSON writes it and read back the same. CI's fuzzing found "\x00" written so once.
func TestProfileRoundTripOddNames(t *testing.T) {
	for _, name := range []string{"nul\x00", "bell\a", "tab\v", "emoji\U0001f600", "quote\"", "back\\slash", "<html>&", "\u2028"} {
		p := spreadProfile()
		p.Program[name] = sim.Figure{Cost: sim.Fixed(time.Microsecond), Unit: "us", Method: "m " + name, Date: "2026-01-02"}
		b, err := json.Marshal(p)
		require.NoError(t, err, "%q", name)
		q, err := sim.ParseProfile("x.json", b)
		require.NoError(t, err, "%q: %s", name, b)
		assert.Equal(t, p, q, "%q", name)
	}
}

func TestIdealProfile(t *testing.T) {
	p := sim.IdealProfile()
	assert.Equal(t, "ideal", p.Name)
	assert.True(t, p.Ideal())
	cfg := sim.Config{Idle: sim.Idle{MissProbability: 0.5}}
	p.Apply(&cfg)
	assert.Equal(t, sim.Config{Idle: sim.Idle{MissProbability: 0.5}}, cfg, "the ideal profile is the zero Config's costs")
	assert.Contains(t, sim.BuiltinProfiles(), "ideal")
	_, ok := sim.BuiltinProfile("no-such")
	assert.False(t, ok)
}

// TestBuiltinProfilesParse checks every shipped profile and that each figure says how it was
// measured: a measured one (not ideal) has no figure of exactly 0 that is not marked assumed.
func TestBuiltinProfilesParse(t *testing.T) {
	for _, name := range sim.BuiltinProfiles() {
		p, ok := sim.BuiltinProfile(name)
		require.True(t, ok, name)
		assert.Equal(t, name, p.Name)
		if p.Ideal() {
			continue
		}
		for _, f := range sim.ProfileFigures() {
			fig, ok := p.Figures[f]
			if !ok && (f == "idle_poll" || f == "timer_exit") {
				continue // optional: a machine that does not poll before it halts; a profile calibrated untraced
			}
			if fig.Assumed == "" {
				assert.NotZero(t, fig.Cost.Max, "%s: %s measured as 0", name, f)
			}
		}
		assert.Positive(t, p.Machine.Hz, name)
	}
}

func TestProfileApply(t *testing.T) {
	p := spreadProfile()
	cfg := sim.Config{Idle: sim.Idle{Spin: true, MissProbability: 0.1}}
	p.Apply(&cfg)
	assert.Equal(t, p.Figures["switch"].Cost, cfg.Costs.Switch)
	assert.Equal(t, p.Figures["idle_exit"].Cost, cfg.Idle.ExitLatency)
	assert.Equal(t, p.Figures["migration_llc"].Cost, cfg.Costs.Migration.LLC)
	assert.Equal(t, p.Figures["tick"].Cost, cfg.Costs.Tick)
	assert.True(t, cfg.Idle.Spin)
	assert.Equal(t, 0.1, cfg.Idle.MissProbability)
	assert.Equal(t, "test (measured 2026-01-02)", p.String())
}

// editFigure returns the spread profile's JSON with figure name's JSON replaced by raw.
func editFigure(t testing.TB, name, raw string) string {
	b, err := json.Marshal(spreadProfile())
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	figs := m["figures"].(map[string]any)
	if raw == "" {
		delete(figs, name)
	} else {
		var v any
		require.NoError(t, json.Unmarshal([]byte(raw), &v))
		figs[name] = v
	}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return string(out)
}

// TestProfileErrors: every kind of bad figure is an error naming the file and the field.
func TestProfileErrors(t *testing.T) {
	ok := `"method": "m", "date": "d"`
	cases := []struct {
		name, text, want string
	}{
		{"missing figure", editFigure(t, "ipi", ""), "sim: profile p.json: figures.ipi: missing (a reschedule IPI's latency (Costs.IPI))"},
		{"negative", editFigure(t, "switch", `{"unit": "us", "p50": -1, `+ok+`}`), "figures.switch.min: negative: -1 us"},
		{"non-finite", strings.Replace(editFigure(t, "switch", `{"unit": "us", "p50": 12345678, `+ok+`}`), "12345678", "1e999", 1), "figures.switch.min: 1e999 us is not a finite figure"},
		{"absurd switch", editFigure(t, "switch", `{"unit": "s", "p50": 1.5, `+ok+`}`), "figures.switch.min: 1.5 s is absurd (above 1s)"},
		{"absurd ipi", editFigure(t, "ipi", `{"unit": "ms", "p50": 1, "min": 1, "p90": 2, "p99": 3, "max": 101, `+ok+`}`), "figures.ipi.max: 101 ms is absurd (above 100ms)"},
		{"absurd tick", editFigure(t, "tick", `{"unit": "ms", "p50": 11, `+ok+`}`), "figures.tick.min: 11 ms is absurd (above 10ms)"},
		{"no p50", editFigure(t, "timer", `{"unit": "us", `+ok+`}`), "figures.timer.p50: missing"},
		{"no unit", editFigure(t, "timer", `{"p50": 3, `+ok+`}`), `figures.timer.unit: "", want ns, us, µs, ms or s`},
		{"bad unit", editFigure(t, "timer", `{"unit": "min", "p50": 3, `+ok+`}`), `figures.timer.unit: "min"`},
		{"no method", editFigure(t, "timer", `{"unit": "us", "p50": 3, "date": "d"}`), "figures.timer.method: missing"},
		{"no date", editFigure(t, "timer", `{"unit": "us", "p50": 3, "method": "m"}`), "figures.timer.date: missing"},
		{"some quantiles", editFigure(t, "timer", `{"unit": "us", "p50": 3, "p99": 9, `+ok+`}`), "figures.timer: give p50 alone"},
		{"out of order", editFigure(t, "timer", `{"unit": "us", "min": 1, "p50": 3, "p90": 2, "p99": 4, "max": 5, `+ok+`}`), "figures.timer: quantiles out of order"},
		{"p99.9 out of order", editFigure(t, "timer", `{"unit": "us", "min": 1, "p50": 2, "p90": 3, "p99": 4, "p99.9": 6, "max": 5, `+ok+`}`), "figures.timer: quantiles out of order"},
		{"p99.9 of a fixed cost", editFigure(t, "timer", `{"unit": "us", "p50": 2, "p99.9": 6, `+ok+`}`), "figures.timer.p99.9: a fixed cost has no p99.9"},
		{"p99.5 without p99.9", editFigure(t, "timer", `{"unit": "us", "min": 1, "p50": 2, "p90": 3, "p99": 4, "p99.5": 5, "max": 6, `+ok+`}`), "figures.timer.p99.5: given without p99.9"},
		{"p99.5 of a fixed cost", editFigure(t, "timer", `{"unit": "us", "p50": 2, "p99.5": 6, `+ok+`}`), "figures.timer.p99.5: a fixed cost has no p99.5"},
		{"p99.5 above p99.9", editFigure(t, "timer", `{"unit": "us", "min": 1, "p50": 2, "p90": 3, "p99": 4, "p99.5": 7, "p99.9": 6, "max": 8, `+ok+`}`), "figures.timer: quantiles out of order: min 1µs, p50 2µs, p90 3µs, p99 4µs, p99.5 7µs"},
		{"p99.5 below p99", editFigure(t, "timer", `{"unit": "us", "min": 1, "p50": 2, "p90": 3, "p99": 4, "p99.5": 3.5, "p99.9": 6, "max": 8, `+ok+`}`), "figures.timer: quantiles out of order"},
		{"p99.5 of 0", editFigure(t, "timer", `{"unit": "us", "min": 0, "p50": 0, "p90": 0, "p99": 0, "p99.5": 0, "p99.9": 0, "max": 5, `+ok+`}`), "figures.timer.p99.9: 0 below"},
		{"p99.9 of 0", editFigure(t, "timer", `{"unit": "us", "min": 0, "p50": 0, "p90": 0, "p99": 0, "p99.9": 0, "max": 5, `+ok+`}`), "figures.timer.p99.9: 0 below"},
		{"string figure", editFigure(t, "timer", `{"unit": "us", "p50": "three", `+ok+`}`), "figures.timer"},
		{"unknown figure", editFigure(t, "dispatch", `{"unit": "us", "p50": 3, `+ok+`}`), "figures.dispatch: unknown figure"},
		{"unknown member", editFigure(t, "timer", `{"unit": "us", "p50": 3, "p95": 4, `+ok+`}`), `figures.timer: json: unknown field "p95"`},
		{"schema", `{"schema": "x", "name": "n", "figures": {}}`, `sim: profile p.json: schema: "x"`},
		{"not json", `{"schema": `, "sim: profile p.json: unexpected EOF"},
		{"trailing", editFigure(t, "ipi", `{"unit": "us", "p50": 1, `+ok+`}`) + "{}", "data after the profile's object"},
		{"no name", `{"schema": "schedkit.profile/1", "figures": {}}`, "sim: profile p.json: name: missing"},
		{"load", strings.Replace(editFigure(t, "ipi", `{"unit": "us", "p50": 1, `+ok+`}`), `"load_average":[0.1,0.25]`, `"load_average":[-1,0.25]`, 1), "provenance.load_average[0]: -1 is not a load average"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.ParseProfile("p.json", []byte(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "p.json")
			var pe *sim.ProfileError
			assert.True(t, errors.As(err, &pe))
		})
	}
}

func TestLoadProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "host.json")
	b, err := json.Marshal(spreadProfile())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	p, err := sim.LoadProfile(path)
	require.NoError(t, err)
	assert.Equal(t, "test", p.Name)
	_, err = sim.LoadProfile(filepath.Join(dir, "none.json"))
	assert.ErrorContains(t, err, "sim: profile: open")
	require.NoError(t, os.WriteFile(path, []byte(editFigure(t, "refill", "")), 0o644))
	_, err = sim.LoadProfile(path)
	assert.ErrorContains(t, err, path+": figures.refill: missing")
}

// FuzzParseProfile: whatever the bytes, ParseProfile returns a profile or an error, never
// panics; a profile it accepts is valid for a Config and survives a round trip through its
// own JSON unchanged.
func FuzzParseProfile(f *testing.F) {
	b, _ := json.Marshal(spreadProfile())
	f.Add(b)
	ideal, _ := os.ReadFile("profiles/ideal.json")
	f.Add(ideal)
	f.Add([]byte(editFigure(f, "ipi", `{"unit": "ms", "p50": 1e-3, "method": "m", "date": "d"}`)))
	curved, _ := json.Marshal(curveProfile())
	f.Add(curved)
	f.Add([]byte(editFigure(f, "ipi_idle", `{"unit": "ms", "points": [{"idle": 0, "p50": 0.02}, {"idle": 0.1, "p50": 0.03}], "method": "m", "date": "d"}`)))
	odd := spreadProfile()
	odd.Program["nul\x00bell\a"] = sim.Figure{Cost: sim.Fixed(time.Microsecond), Unit: "us", Method: "m", Date: "d"}
	oddJSON, _ := json.Marshal(odd)
	f.Add(oddJSON)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := sim.ParseProfile("f.json", data)
		if err != nil {
			return
		}
		cfg := sim.Config{Topology: nil}
		p.Apply(&cfg)
		for _, name := range sim.ProfileFigures() {
			limit, _ := sim.ProfileFigureLimit(name)
			c := p.Figures[name].Cost
			if c.Min < 0 || c.Max > limit || c.Min > c.P50 || c.P50 > c.P90 || c.P90 > c.P99 || c.P99 > c.Max {
				t.Fatalf("%s accepted: %v", name, c)
			}
		}
		ipiLimit, _ := sim.ProfileFigureLimit("ipi")
		for i, pt := range cfg.Idle.IPICurve {
			c := pt.Cost
			if pt.Idle < 0 || pt.Idle > time.Second || i > 0 && pt.Idle <= cfg.Idle.IPICurve[i-1].Idle ||
				c.Min < 0 || c.Max > ipiLimit || c.Min > c.P50 || c.P50 > c.P90 || c.P90 > c.P99 || c.P99 > c.Max {
				t.Fatalf("ipi_idle point %d accepted: %v at %v", i, c, pt.Idle)
			}
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := sim.ParseProfile("f.json", out)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for name, fig := range p.Figures {
			if q.Figures[name].Cost != fig.Cost || q.Figures[name].Method != fig.Method {
				t.Fatalf("round trip changed %s: %v, then %v", name, fig, q.Figures[name])
			}
		}
		if !slices.Equal(p.IPIIdle.Points, q.IPIIdle.Points) || p.IPIIdle.Method != q.IPIIdle.Method {
			t.Fatalf("round trip changed ipi_idle: %v, then %v", p.IPIIdle, q.IPIIdle)
		}
		if p.Name != q.Name || p.About != q.About || len(p.Program) != len(q.Program) {
			t.Fatalf("round trip changed the profile:\n%s\n%s", data, out)
		}
	})
}

// TestProfileOptionalPollWindow: idle_poll may be left out (a machine that halts at once) and
// is then 0; given, it is the window Apply puts into Idle.PollWindow, and it round-trips.
func TestProfileOptionalPollWindow(t *testing.T) {
	p, err := sim.ParseProfile("p.json", []byte(editFigure(t, "idle_poll", "")))
	require.NoError(t, err)
	_, ok := p.Figures["idle_poll"]
	assert.False(t, ok)
	var cfg sim.Config
	p.Apply(&cfg)
	assert.True(t, cfg.Idle.PollWindow.IsZero())
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "idle_poll", "a figure left out stays out")
	_, err = sim.ParseProfile("p.json", b)
	require.NoError(t, err)

	p, err = sim.ParseProfile("p.json", []byte(editFigure(t, "idle_poll", `{"unit": "us", "p50": 200, "method": "m", "date": "d"}`)))
	require.NoError(t, err)
	p.Apply(&cfg)
	assert.Equal(t, sim.Fixed(200*time.Microsecond), cfg.Idle.PollWindow)
	_, err = sim.ParseProfile("p.json", []byte(editFigure(t, "idle_poll", `{"unit": "s", "p50": 2, "method": "m", "date": "d"}`)))
	assert.ErrorContains(t, err, "figures.idle_poll.min: 2 s is absurd")
}
