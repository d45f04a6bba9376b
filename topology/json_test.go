package topology_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/topology"
)

func TestJSONRoundTrip(t *testing.T) {
	for _, m := range machines {
		t.Run(m.name, func(t *testing.T) {
			tp := m.build()
			b, err := json.Marshal(tp)
			require.NoError(t, err)
			var back topology.Topology
			require.NoError(t, json.Unmarshal(b, &back))
			checkTopology(t, &back)
			require.Equal(t, tp.String(), back.String())
			b2, err := json.Marshal(&back)
			require.NoError(t, err)
			require.JSONEq(t, string(b), string(b2))
		})
	}
}

func TestJSONShape(t *testing.T) {
	b, err := json.Marshal(topology.BigLittle())
	require.NoError(t, err)
	require.JSONEq(t, `{"items":[{"level":"package","count":1,"items":[{"level":"node","count":1,"items":[{"level":"llc","count":1,"items":[
		{"level":"cluster","count":2,"items":[{"level":"smt","count":1,"items":[{"cpus":2}]}]},
		{"level":"cluster","count":1,"items":[{"cpus":4,"capacity":600}]}]}]}]}]}`, string(b))
	s := topology.UniformSpec(1, 2, 1, 1, 2)
	s.Distance = [][]int{{10, 16}, {16, 10}}
	s.Offline = topology.CPUSetOf(3)
	s.IDs = []topology.CPU{0, 1, 2, 3}
	b, err = json.Marshal(s)
	require.NoError(t, err)
	var back topology.Spec
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, s, back)
	require.Contains(t, string(b), `"offline":"3"`)
	require.Error(t, json.Unmarshal([]byte(`{"items":7}`), &back))
}
