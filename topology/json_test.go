package topology_test

import (
	"encoding/json"
	"strings"
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

// TestJSONStrict feeds JSON that encoding/json's defaults would read with
// something lost (a misspelt key dropped, a repeated key overwriting the
// first) or that is otherwise wrong, and checks the exact error: the
// problem, its line and column, and the item path where there is one.
func TestJSONStrict(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"spec/misspelt distance",
			`{"items":[{"level":"node","count":2,"items":[{"cpus":2}]}],"distances":[[10,40],[40,10]]}`,
			`topology: json: line 1, column 60: unknown key "distances" in the spec, want "items", "ids", "distance" or "offline"`},
		{"spec/misspelt offline", `{"items":[{"cpus":2}],"ofline":"1"}`,
			`topology: json: line 1, column 23: unknown key "ofline" in the spec, want "items", "ids", "distance" or "offline"`},
		{"spec/wrong case", `{"Items":[{"cpus":2}]}`,
			`topology: json: line 1, column 2: unknown key "Items" in the spec`},
		{"item/misspelt capacity", `{"items":[{"cpus":2,"capcity":512}]}`,
			`topology: json: line 1, column 21: items[0]: unknown key "capcity" in an item, want "level", "count", "items", "cpus" or "capacity"`},
		{"item/nested unknown", "{\"items\":[\n {\"level\":\"llc\",\"count\":1,\"items\":[\n  {\"cpus\":2,\"extra\":1}]}]}",
			`topology: json: line 3, column 13: items[0].items[0]: unknown key "extra" in an item`},
		{"spec/duplicate items", `{"items":[{"cpus":2}],"items":[{"cpus":4}]}`,
			`topology: json: line 1, column 23: the spec: key "items" given twice (first at line 1, column 2)`},
		{"item/duplicate cpus", `{"items":[{"cpus":2,"cpus":3}]}`,
			`topology: json: line 1, column 21: items[0]: key "cpus" given twice (first at line 1, column 12)`},
		{"item/not integer", `{"items":[{"cpus":1e400}]}`,
			`topology: json: line 1, column 19: items[0]: cpus is the number 1e400, want an integer`},
		{"item/fraction", `{"items":[{"cpus":2.5}]}`,
			`topology: json: line 1, column 19: items[0]: cpus is the number 2.5, want an integer`},
		{"item/string count", `{"items":[{"level":"llc","count":"2","items":[{"cpus":2}]}]}`,
			`topology: json: line 1, column 34: items[0]: count is a string, want an integer`},
		{"item/level number", `{"items":[{"level":7,"count":1,"items":[{"cpus":1}]}]}`,
			`topology: json: line 1, column 20: items[0]: level is the number 7, want a level name such as "llc"`},
		{"item/bad level", `{"items":[{"level":"die","count":1,"items":[{"cpus":2}]}]}`,
			`topology: json: line 1, column 20: items[0]: unknown level "die" (want smt, cluster, llc, node, package or machine)`},
		{"item/both kinds", `{"items":[{"level":"llc","cpus":2}]}`,
			`topology: json: line 1, column 26: items[0]: has both "level" and "cpus"`},
		{"item/neither kind", `{"items":[{"count":2}]}`,
			`topology: json: line 1, column 11: items[0]: want "level" or "cpus"`},
		{"item/cpus with count", `{"items":[{"cpus":2,"count":3}]}`,
			`topology: json: line 1, column 21: items[0]: CPUs have no "count" or "items" (the count is "cpus")`},
		{"item/group capacity", `{"items":[{"level":"llc","count":1,"capacity":5,"items":[{"cpus":2}]}]}`,
			`topology: json: line 1, column 36: items[0]: a group has no "capacity"`},
		{"item/not object", `{"items":[2]}`,
			`topology: json: line 1, column 11: items[0] is the number 2, want an object`},
		{"spec/items not array", `{"items":7}`,
			`topology: json: line 1, column 10: items is the number 7, want an array`},
		{"spec/not object", `[]`, `topology: json: line 1, column 1: the spec is an array, want an object`},
		{"spec/null", `null`, `topology: json: line 1, column 1: null, want an object describing the machine`},
		{"ids/negative", `{"items":[{"cpus":2}],"ids":[-1,0]}`,
			`topology: json: line 1, column 30: ids[0]: CPU id -1 out of range 0-1023`},
		{"offline/not list", `{"items":[{"cpus":2}],"offline":"x"}`,
			`topology: json: line 1, column 33: offline: cpulist "x": offset 0: unexpected 'x', want cpu id`},
		{"offline/number", `{"items":[{"cpus":2}],"offline":1}`,
			`topology: json: line 1, column 33: offline is the number 1, want a cpulist string such as "0-3,8"`},
		{"depth", `{"items":[` + strings.Repeat(`{"level":"llc","count":1,"items":[`, 7) + `{"cpus":1}` + strings.Repeat(`]}`, 7) + `]}`,
			`topology: json: line 1, column 249: items[0]` + strings.Repeat(".items[0]", 7) + `: items nested more than 6 deep`},
		// Called directly, UnmarshalJSON sees the syntax too.
		{"syntax/trailing", "{\"items\":[\n  {\"cpus\":2}\n]} trailing",
			`topology: json: line 3, column 4: invalid character 't' after top-level value`},
		{"syntax/truncated", `{"items":[`, `topology: json: line 1, column 11: unexpected end of JSON input`},
		{"syntax/bad literal", "{\"items\":[{\"cpus\":tru}]}", `topology: json: line 1, column 22: invalid character '}' in literal true (expecting 'e')`},
		// The checks of New name the line and column of the item or field.
		{"new/zero count", "{\"items\":[\n  {\"cpus\":0}\n]}",
			`topology: json: line 2, column 3: items[0]: count 0, want at least 1`},
		{"new/capacity", "{\"items\":[\n  {\"level\":\"llc\",\"count\":1,\"items\":[{\"cpus\":2,\"capacity\":2000}]}\n]}",
			`topology: json: line 2, column 37: items[0].items[0]: capacity 2000 out of range 1-1024`},
		{"new/ids repeat", `{"items":[{"cpus":2}],"ids":[5,5]}`, `topology: json: line 1, column 32: ids[1]: cpu5 appears twice`},
		{"new/ids empty", `{"items":[{"cpus":2}],"ids":[]}`, `topology: json: line 1, column 23: ids: 0 ids for 2 CPUs`},
		{"new/offline foreign", `{"items":[{"cpus":2}],"offline":"7"}`,
			`topology: json: line 1, column 23: offline: cpu7 is not a CPU of the machine {0-1}`},
		{"new/distance short", `{"items":[{"level":"node","count":2,"items":[{"cpus":1}]}],"distance":[[10,21],[21]]}`,
			`topology: json: line 1, column 60: distance: distance row 1 has 1 entries, want 2`},
		{"new/distance empty", `{"items":[{"cpus":2}],"distance":[]}`,
			`topology: json: line 1, column 23: distance: a distance table needs NUMA nodes, and the machine has none`},
		{"new/no cpus", `{}`, `topology: json: line 1, column 1: the machine has no CPUs`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tp topology.Topology
			err := tp.UnmarshalJSON([]byte(tc.in))
			require.Error(t, err, "UnmarshalJSON(%s) = nil, want an error", tc.in)
			require.Contains(t, err.Error(), tc.want, "UnmarshalJSON(%s)", tc.in)
			require.Equal(t, 0, tp.NumCPUs(), "UnmarshalJSON(%s) failed but changed the topology", tc.in)
			if strings.HasPrefix(tc.name, "syntax/") {
				return
			}
			// Through encoding/json the value comes without leading space,
			// so the same positions hold for these inputs.
			err = json.Unmarshal([]byte(tc.in), &tp)
			require.Error(t, err, "json.Unmarshal(%s) = nil, want an error", tc.in)
			require.Contains(t, err.Error(), tc.want, "json.Unmarshal(%s)", tc.in)
		})
	}
}

// TestJSONSpecStrict checks that Spec and Item refuse what Topology refuses
// and keep what they read: an empty "ids" or "distance" is not the default.
func TestJSONSpecStrict(t *testing.T) {
	var s topology.Spec
	require.ErrorContains(t, json.Unmarshal([]byte(`{"items":[{"cpus":2}],"ofline":"1"}`), &s), `line 1, column 23: unknown key "ofline"`)
	var it topology.Item
	require.ErrorContains(t, json.Unmarshal([]byte(`{"cpus":2,"capcity":512}`), &it), `line 1, column 11: item: unknown key "capcity"`)
	require.NoError(t, json.Unmarshal([]byte(`{"cpus":2,"capacity":512}`), &it))
	require.Equal(t, topology.Item{CPU: true, Count: 2, Capacity: 512}, it)
	require.NoError(t, json.Unmarshal([]byte(`{"items":[{"cpus":2}],"ids":[],"distance":[]}`), &s))
	require.NotNil(t, s.IDs)
	require.NotNil(t, s.Distance)
	// Null leaves a Spec or Item as it was, the encoding/json convention.
	before := s
	require.NoError(t, json.Unmarshal([]byte(`null`), &s))
	require.Equal(t, before, s)
	require.NoError(t, json.Unmarshal([]byte(`{"items":null,"ids":null,"distance":null,"offline":null}`), &s))
	require.Equal(t, topology.Spec{}, s)
	// Through json.Unmarshal syntax errors are encoding/json's own, with
	// their byte offset in the *json.SyntaxError.
	var tp topology.Topology
	var se *json.SyntaxError
	require.ErrorAs(t, json.Unmarshal([]byte(`{"items":[{"cpus":2}]} trailing`), &tp), &se)
	require.Equal(t, int64(24), se.Offset)
}

// FuzzTopologyJSON checks that UnmarshalJSON never panics, that its errors
// carry the package prefix and a position, and that every topology it
// accepts writes back to JSON that reads back to the same topology.
func FuzzTopologyJSON(f *testing.F) {
	for _, m := range machines {
		b, err := json.Marshal(m.build())
		require.NoError(f, err)
		f.Add(b)
	}
	for _, s := range []string{
		`{"items":[{"cpus":2}],"ids":[1,0],"offline":"1"}`,
		`{"items":[{"level":"node","count":2,"items":[{"cpus":1}]}],"distance":[[10,21],[21,10]]}`,
		`{"items":[{"cpus":2,"cpus":3}]}`, `{"items":[{"cpus":2}]} x`, `{"items":[{"cpus":1e400}]}`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var tp topology.Topology
		if err := tp.UnmarshalJSON(b); err != nil {
			if !strings.HasPrefix(err.Error(), "topology: json: line ") {
				t.Fatalf("UnmarshalJSON(%q) error %q lacks the prefix and position", b, err)
			}
			if tp.NumCPUs() != 0 {
				t.Fatalf("UnmarshalJSON(%q) failed but changed the topology", b)
			}
			return
		}
		checkTopology(t, &tp)
		out, err := json.Marshal(&tp)
		if err != nil {
			t.Fatalf("json.Marshal(%s) = %v", tp.String(), err)
		}
		var back topology.Topology
		if err := back.UnmarshalJSON(out); err != nil {
			t.Fatalf("UnmarshalJSON(%s) = %v; it came from MarshalJSON of %s", out, err, tp.String())
		}
		if back.String() != tp.String() {
			t.Fatalf("JSON round trip of %s gave %s", tp.String(), back.String())
		}
	})
}
