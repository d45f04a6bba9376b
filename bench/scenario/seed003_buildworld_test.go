package scenario_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim/workload"
)

// worldStages walks make's ops in seed003-buildworld's workload and returns the objects (forks of
// the job shell, counted through Repeat) make forks before each link, and the link forks' count.
func worldStages(t *testing.T, w *workload.Workload) ([]int, int) {
	t.Helper()
	var mk *workload.Thread
	for i := range w.Threads {
		if w.Threads[i].Name == "make" {
			mk = &w.Threads[i]
		}
	}
	require.NotNil(t, mk, "no make thread")
	var count func(ops []workload.Op) int
	count = func(ops []workload.Op) int {
		n := 0
		for _, op := range ops {
			switch {
			case op.Kind == workload.Fork && op.Name == "sh":
				n += op.N
			case op.Kind == workload.Repeat:
				n += op.N * count(op.Body)
			}
		}
		return n
	}
	var stages []int
	links, cur := 0, 0
	for _, op := range mk.Ops {
		if op.Kind == workload.Fork && op.Name == "ld" {
			links++
			stages = append(stages, cur)
			cur = 0
			continue
		}
		cur += count([]workload.Op{op})
	}
	if cur > 0 {
		stages = append(stages, cur)
	}
	return stages, links
}

// linkNs returns the CPU time of the ld template of w.
func linkNs(t *testing.T, w *workload.Workload) float64 {
	t.Helper()
	for _, th := range w.Threads {
		if th.Name == "ld" {
			require.Len(t, th.Ops, 1)
			require.Equal(t, workload.Run, th.Ops[0].Kind)
			return float64(th.Ops[0].Time.A)
		}
	}
	t.Fatal("no ld template")
	return 0
}

// seed003-buildworld's make builds each stage's share of the objects through the job-shell
// chain, then forks one link and waits for it; serial_pct sets the links' share of the build's
// one-CPU time, split evenly over the stages.
func TestBuildworldStages(t *testing.T) {
	s, err := scenario.Lookup("seed003-buildworld")
	require.NoError(t, err)
	build := func(set scenario.Values) (*workload.Workload, error) {
		v := s.Defaults()
		for k, x := range set {
			v[k] = x
		}
		setup, err := s.Build(v, &s.Rows[0])
		if err != nil {
			return nil, err
		}
		require.NoError(t, setup.Workload.Validate())
		return setup.Workload, nil
	}
	for _, c := range []struct {
		name   string
		set    scenario.Values
		stages []int
		links  int
	}{
		{"even stages", scenario.Values{"jobs": 20, "stages": 4}, []int{5, 5, 5, 5}, 4},
		{"the first stages take the remainder", scenario.Values{"jobs": 20, "stages": 3}, []int{7, 7, 6}, 3},
		{"one stage wider than -j", scenario.Values{"jobs": 20, "stages": 1, "j": 8}, []int{20}, 1},
		{"one object a stage", scenario.Values{"jobs": 5, "stages": 5}, []int{1, 1, 1, 1, 1}, 5},
		{"no serial share: no links, one run of objects", scenario.Values{"jobs": 20, "stages": 4, "serial_pct": 0}, []int{20}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := build(c.set)
			require.NoError(t, err)
			stages, links := worldStages(t, w)
			assert.Equal(t, c.stages, stages)
			assert.Equal(t, c.links, links)
		})
	}

	// The links' time: share/(100-share) of the rest, split over the stages.
	base, err := build(scenario.Values{"jobs": 20, "stages": 4, "serial_pct": 10})
	require.NoError(t, err)
	tripled, err := build(scenario.Values{"jobs": 20, "stages": 4, "serial_pct": 30})
	require.NoError(t, err)
	halved, err := build(scenario.Values{"jobs": 20, "stages": 8, "serial_pct": 10})
	require.NoError(t, err)
	l := linkNs(t, base)
	assert.Greater(t, l, 0.0)
	assert.InDelta(t, (30.0/70)/(10.0/90), linkNs(t, tripled)/l, 1e-6)
	assert.InDelta(t, 0.5, linkNs(t, halved)/l, 1e-6)

	for _, bad := range []scenario.Values{{"jobs": 3, "stages": 4}, {"cpus": 25, "smt": 2}} {
		_, err := build(bad)
		assert.Error(t, err, "%v", bad)
	}
}

// seed003-buildworld's legacy_switch_us charges legacy's row alone, on every switch, over the
// profile: main pays the profile's switch, and the default charges nothing more.
func TestBuildworldLegacySwitch(t *testing.T) {
	s, err := scenario.Lookup("seed003-buildworld")
	require.NoError(t, err)
	for _, c := range []struct {
		us           float64
		legacy, main time.Duration
	}{{0, 0, 0}, {700, 700 * time.Microsecond, 0}, {0.5, 500 * time.Nanosecond, 0}} {
		v := s.Defaults()
		v["legacy_switch_us"] = c.us
		got := map[string]time.Duration{}
		for i := range s.Rows {
			setup, err := s.Build(v, &s.Rows[i])
			require.NoError(t, err)
			got[s.Rows[i].Policy] = setup.SwitchExtra
		}
		assert.Equal(t, map[string]time.Duration{"ule:legacy": c.legacy, "ule:main": c.main}, got, "legacy_switch_us %g", c.us)
	}
}
