package presets_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamesAreSortedAndUnique(t *testing.T) {
	names := presets.Names()
	require.NotEmpty(t, names)
	for i := 1; i < len(names); i++ {
		assert.Less(t, names[i-1], names[i], "Names must be sorted and unique")
	}
	for _, want := range []string{"ule:main", "ule:legacy", "bsd4:main", "bsd4:freebsd9", "cfs:v6.5", "cfs:v6.6", "cfs:v7.1"} {
		assert.Contains(t, names, want)
	}
}

// Every name runs two hogs on one CPU and shares it, or, for a policy that never preempts (the
// toy's FIFO and SJF), gives it all to the first: the constructor behind each name builds a
// working policy, and a fresh one each call.
func TestEveryNameRuns(t *testing.T) {
	w, err := workload.Parse("thread hog count=2\n\trun forever\nend\n")
	require.NoError(t, err)
	for _, name := range presets.Names() {
		t.Run(name, func(t *testing.T) {
			p1, err := presets.New(name)
			require.NoError(t, err)
			p2, err := presets.New(name)
			require.NoError(t, err)
			require.NotSame(t, p1, p2)
			r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), StatHz: 127}, p1, w, 2*time.Second)
			require.NoError(t, err)
			require.NoError(t, r.Err())
			f, preset, err := presets.Find(name)
			require.NoError(t, err)
			want := 0.5
			if slices.Contains(f.NonPreemptive, preset) {
				want = 1
			}
			assert.InDelta(t, want, r.Threads[0].Share(), 0.1, "%s: hog 0 share", name)
		})
	}
}

func TestNewErrors(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"", "not FAMILY:PRESET"},
		{"ule", "not FAMILY:PRESET"},
		{"ule:", "not FAMILY:PRESET"},
		{":main", "not FAMILY:PRESET"},
		{"linux:v6.5", `unknown family "linux"`},
		{"ule:freebsd3", `unknown ule preset "freebsd3"`},
		{"cfs:v6.4", `unknown cfs preset "v6.4"`},
		{"bsd4:legacy", `unknown bsd4 preset "legacy"`},
	} {
		_, err := presets.New(c.name)
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		assert.True(t, strings.HasPrefix(err.Error(), "presets: "), err.Error())
	}
}

// The knob preset scales v6.5's tunables to the machine and sets FavorNonIdleTick; plain v6.5
// does not.
func TestFavorNonIdleTick(t *testing.T) {
	w, err := workload.Parse("thread hog\n\trun 1ms\nend\n")
	require.NoError(t, err)
	topo := topology.Uniform(1, 1, 1, 8, 1)
	for _, c := range []struct {
		name string
		want bool
	}{{"cfs:v6.5", false}, {"cfs:v6.5+favor-nonidle-tick", true}} {
		p, err := presets.New(c.name)
		require.NoError(t, err)
		_, err = sim.Run(sim.Config{Topology: topo}, p, w, time.Second)
		require.NoError(t, err)
		s, ok := p.(*cfs.Scheduler)
		require.True(t, ok, "%s: %T is not a CFS scheduler", c.name, p)
		got := s.Params()
		assert.Equal(t, c.want, got.FavorNonIdleTick, c.name)
		v65, err := cfs.Preset("v6.5")
		require.NoError(t, err)
		assert.Equal(t, v65.ForCPUs(8).Latency, got.Latency, "%s: latency scaled to 8 CPUs", c.name)
	}
}
