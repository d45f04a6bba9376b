package topology_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/topology"
)

func TestParseRoundTrip(t *testing.T) {
	for _, text := range []string{
		"cpu:1",
		"cpu:2",
		"package:1 node:1 cpu:2",
		"package:2 node:2 llc:2 core:4 cpu:2",
		"llc:4 core:3 cpu:2",
		"package:2 node:1 llc:1 core:4 cpu:2 cpus=0,8,1,9,2,10,3,11,4,12,5,13,6,14,7,15 distance=10,21/21,10",
		"llc:1 (cluster:2 core:1 cpu:2 + cluster:1 cpu:4@600)",
		"llc:1 (core:2 cpu:2 + core:2 cpu:1)",
		"node:3 cpu:1 distance=10,20,30/20,10,20/30,20,10",
		"core:2 cpu:1@512 + core:1 cpu:2",
		"core:2 (cpu:1 + cpu:1@700)",
		"cpu:3 cpus=0,2-3",
		"package:16 node:4 llc:2 core:4 cpu:2",
		"cluster:2 cpu:4@300 + core:2 cpu:2",
	} {
		tp, err := topology.Parse(text)
		require.NoError(t, err, "Parse(%q)", text)
		checkTopology(t, tp)
		if got := tp.String(); got != text {
			t.Errorf("Parse(%q).String() = %q", text, got)
		}
		spec, err := topology.ParseSpec(text)
		require.NoError(t, err)
		require.Equal(t, text, spec.String())
	}
}

func TestParseSpecOffline(t *testing.T) {
	s, err := topology.ParseSpec("core:4 cpu:2 offline=3,5")
	require.NoError(t, err)
	require.Equal(t, "3,5", s.Offline.String())
	require.Equal(t, "core:4 cpu:2 offline=3,5", s.String())
	tp, err := topology.New(s)
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, "core:1 cpu:2 + core:2 cpu:1 + core:1 cpu:2 cpus=0-2,4,6-7", tp.String())
}

// sysfsBase is a small valid sysfs tree: 4 CPUs, 2 cores of 2 threads, one
// package, one L3, one node.
func sysfsBase() fstest.MapFS {
	m := fstest.MapFS{
		"devices/system/cpu/online":          {Data: []byte("0-3\n")},
		"devices/system/node/node0/cpulist":  {Data: []byte("0-3\n")},
		"devices/system/node/node0/distance": {Data: []byte("10\n")},
	}
	for c, core := range []string{"0-1", "0-1", "2-3", "2-3"} {
		dir := "devices/system/cpu/cpu" + string(rune('0'+c)) + "/"
		m[dir+"topology/core_cpus_list"] = &fstest.MapFile{Data: []byte(core + "\n")}
		m[dir+"topology/package_cpus_list"] = &fstest.MapFile{Data: []byte("0-3\n")}
		m[dir+"cache/index3/level"] = &fstest.MapFile{Data: []byte("3\n")}
		m[dir+"cache/index3/shared_cpu_list"] = &fstest.MapFile{Data: []byte("0-3\n")}
	}
	return m
}

// sysfsWith returns sysfsBase changed by edits: a nil value deletes a file.
func sysfsWith(edits map[string]*string) fstest.MapFS {
	m := sysfsBase()
	for k, v := range edits {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = &fstest.MapFile{Data: []byte(*v)}
		}
	}
	return m
}

func str(s string) *string { return &s }

// TestMalformed feeds malformed text forms, specs, JSON and sysfs trees and
// checks that each is refused with an error naming the problem and where.
func TestMalformed(t *testing.T) {
	all := topology.CPURange(0, topology.MaxCPUs-1)
	text := func(s string) func() error { return func() error { _, err := topology.Parse(s); return err } }
	spec := func(s topology.Spec) func() error { return func() error { _, err := topology.New(s); return err } }
	jsn := func(s string) func() error {
		return func() error { var tp topology.Topology; return json.Unmarshal([]byte(s), &tp) }
	}
	sysfs := func(edits map[string]*string) func() error {
		return func() error { _, err := topology.DiscoverFS(sysfsWith(edits), all); return err }
	}
	cpus := func(n int) []topology.Item { return []topology.Item{{CPU: true, Count: n}} }
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		// Text form.
		{"text/empty", text(""), `column 1: want cpu:, core:, cluster:, llc:, node: or package:, found ""`},
		{"text/unknown level", text("die:2 cpu:2"), `column 1: want cpu:, core:`},
		{"text/missing count", text("cpu:"), "column 5: want a CPU count, found the end"},
		{"text/zero count", text("cpu:0"), `topology: parse "cpu:0": column 1: items[0]: count 0, want at least 1`},
		{"text/zero groups", text("core:0 cpu:2"), "column 1: items[0]: count 0, want at least 1"},
		{"text/huge count", text("cpu:99999999"), "column 5: a CPU count 99999999… is too large"},
		{"text/too many cpus", text("package:2 core:512 cpu:2"), "column 1: items[0]: more than 1024 CPUs"},
		{"text/level not below", text("llc:2 package:2 cpu:2"), "column 7: package group inside a llc group, want a lower level"},
		{"text/same level twice", text("core:2 core:2 cpu:2"), "column 8: core group inside a core group"},
		{"text/missing space", text("core:2cpu:2"), "column 7: want a space and the contents of the core group"},
		{"text/unclosed paren", text("llc:1 (core:2 cpu:2 + cpu:2"), `column 28: want " + " or ")", found ""`},
		{"text/double space", text("core:2  cpu:2"), "column 8: want cpu:, core:"},
		{"text/trailing junk", text("cpu:2 x"), `column 6: unexpected " x", want " + "`},
		{"text/non-canonical count 1", text("core:4 cpu:1"), `column 2: not in canonical form; this machine is written "cpu:4"`},
		{"text/non-canonical unmerged", text("core:1 cpu:2 + core:1 cpu:2"), `not in canonical form; this machine is written "core:2 cpu:2"`},
		{"text/non-canonical default distance", text("node:2 cpu:2 distance=10,20/20,10"), `this machine is written "node:2 cpu:2"`},
		{"text/capacity 0", text("cpu:2@0"), "not in canonical form"},
		{"text/capacity too big", text("cpu:2@2000"), "column 1: items[0]: capacity 2000 out of range 1-1024"},
		{"text/nested capacity", text("core:2 cpu:2 + core:1 cpu:2@2000"), "column 23: items[1].items[0]: capacity 2000 out of range 1-1024"},
		{"text/nested zero count", text("llc:1 (core:2 cpu:2 + cpu:0)"), "column 23: items[0].items[1]: count 0, want at least 1"},
		{"text/asymmetric distance", text("node:2 cpu:1 distance=10,20/30,10"), "column 23: distance: distance table is not symmetric: distance[0][1] = 20 but distance[1][0] = 30"},
		{"text/bad diagonal", text("node:2 cpu:1 distance=11,20/20,10"), "distance[0][0] = 11, want 10 from a node to itself"},
		{"text/distance too small", text("node:2 cpu:1 distance=10,10/10,10"), "distance[0][1] = 10, want 10 < distance < 256 between nodes"},
		{"text/distance too large", text("node:2 cpu:1 distance=10,300/300,10"), "distance[0][1] = 300"},
		{"text/distance not square", text("node:2 cpu:1 distance=10,20/20"), "distance row 1 has 1 entries, want 2"},
		{"text/distance rows", text("node:3 cpu:1 distance=10,20/20,10"), "distance table has 2 rows, want one per node (3)"},
		{"text/distance without nodes", text("cpu:2 distance=10,20/20,10"), "a distance table needs NUMA nodes"},
		{"text/ids count", text("cpu:2 cpus=0-2"), "column 12: ids: 3 ids for 2 CPUs"},
		{"text/ids repeat", text("cpu:2 cpus=1,1"), "column 14: ids[1]: cpu1 appears twice"},
		{"text/ids repeat in run", text("cpu:4 cpus=0,1-2,2"), "column 18: ids[3]: cpu2 appears twice"},
		{"text/offline foreign", text("cpu:2 offline=5"), `topology: parse "cpu:2 offline=5": column 15: offline: cpu5 is not a CPU of the machine {0-1}`},
		{"text/all offline", text("cpu:2 offline=0-1"), "column 15: offline: every CPU is offline"},
		{"text/id out of range", text("cpu:2 cpus=0,1024"), "CPU id 1024 out of range (max 1023)"},
		{"text/ids backwards", text("cpu:2 cpus=3-2"), "run 3-2 runs backwards"},
		// Spec.
		{"spec/no items", spec(topology.Spec{}), "the machine has no CPUs"},
		{"spec/empty group", spec(topology.Spec{Items: []topology.Item{{Level: topology.LLC, Count: 2}}}), "items[0]: llc group with no contents"},
		{"spec/nested wrong", spec(topology.Spec{Items: []topology.Item{{Level: topology.SMT, Count: 1, Items: []topology.Item{{Level: topology.LLC, Count: 2, Items: cpus(2)}}}}}), "items[0].items[0]: llc group inside a smt group"},
		{"spec/machine item", spec(topology.Spec{Items: []topology.Item{{Level: topology.Machine, Count: 1, Items: cpus(2)}}}), "items[0]: machine group inside a machine group"},
		{"spec/negative count", spec(topology.Spec{Items: []topology.Item{{CPU: true, Count: -3}}}), "items[0]: count -3"},
		{"spec/offline foreign", spec(topology.Spec{Items: cpus(2), Offline: topology.CPUSetOf(5)}), "offline: cpu5 is not a CPU of the machine {0-1}"},
		{"spec/all offline", spec(topology.Spec{Items: cpus(2), Offline: topology.CPURange(0, 1)}), "offline: every CPU is offline"},
		{"spec/id out of range", spec(topology.Spec{Items: cpus(1), IDs: []topology.CPU{1024}}), "ids[0]: cpu1024 out of range (max 1023)"},
		{"spec/capacity negative", spec(topology.Spec{Items: []topology.Item{{CPU: true, Count: 1, Capacity: -1}}}), "items[0]: capacity -1 out of range"},
		// JSON.
		{"json/syntax", jsn(`{"items":[`), "unexpected end of JSON input"},
		{"json/unknown key", jsn(`{"items":[{"cpus":2}],"ofline":"1"}`), `line 1, column 23: unknown key "ofline"`},
		{"json/duplicate key", jsn(`{"items":[{"cpus":2}],"items":[{"cpus":4}]}`), `line 1, column 23: the spec: key "items" given twice`},
		{"json/both kinds", jsn(`{"items":[{"level":"llc","cpus":2}]}`), `has both "level" and "cpus"`},
		{"json/neither kind", jsn(`{"items":[{"count":2}]}`), `want "level" or "cpus"`},
		{"json/bad level", jsn(`{"items":[{"level":"die","count":1,"items":[{"cpus":2}]}]}`), `unknown level "die"`},
		{"json/cpu count field", jsn(`{"items":[{"cpus":2,"count":3}]}`), `CPUs have no "count" or "items"`},
		{"json/group capacity", jsn(`{"items":[{"level":"llc","count":1,"capacity":5,"items":[{"cpus":2}]}]}`), `a group has no "capacity"`},
		{"json/zero group count", jsn(`{"items":[{"level":"llc","items":[{"cpus":2}]}]}`), "line 1, column 11: items[0]: count 0"},
		{"json/bad offline", jsn(`{"items":[{"cpus":2}],"offline":"x"}`), `line 1, column 33: offline: cpulist "x": offset 0`},
		{"json/asymmetric", jsn(`{"items":[{"level":"node","count":2,"items":[{"cpus":1}]}],"distance":[[10,20],[21,10]]}`), "line 1, column 60: distance: distance table is not symmetric"},
		// Sysfs.
		{"sysfs/no online", sysfs(map[string]*string{"devices/system/cpu/online": nil}), "devices/system/cpu/online: missing required file"},
		{"sysfs/bad online", sysfs(map[string]*string{"devices/system/cpu/online": str("0-x\n")}), `devices/system/cpu/online: cpulist "0-x\n": offset 2`},
		{"sysfs/online out of range", sysfs(map[string]*string{"devices/system/cpu/online": str("0-2000\n")}), "cpu id 2000 out of range"},
		{"sysfs/no core list", sysfs(map[string]*string{"devices/system/cpu/cpu2/topology/core_cpus_list": nil}), "devices/system/cpu/cpu2/topology/core_cpus_list: missing required file"},
		{"sysfs/no package list", sysfs(map[string]*string{"devices/system/cpu/cpu3/topology/package_cpus_list": nil}), "devices/system/cpu/cpu3/topology/package_cpus_list: missing required file"},
		{"sysfs/core without itself", sysfs(map[string]*string{"devices/system/cpu/cpu1/topology/core_cpus_list": str("0\n")}), "cpu1/topology/core_cpus_list: {0} does not hold cpu1 itself"},
		{"sysfs/overlapping cores", sysfs(map[string]*string{"devices/system/cpu/cpu1/topology/core_cpus_list": str("1-2\n")}), "cpu1/topology/core_cpus_list: smt group {1-2} overlaps smt group {0-1} of devices/system/cpu/cpu0/topology/core_cpus_list at cpu1"},
		{"sysfs/core across packages", sysfs(map[string]*string{
			"devices/system/cpu/cpu0/topology/package_cpus_list": str("0\n"),
			"devices/system/cpu/cpu1/topology/package_cpus_list": str("1-3\n"),
			"devices/system/cpu/cpu2/topology/package_cpus_list": str("1-3\n"),
			"devices/system/cpu/cpu3/topology/package_cpus_list": str("1-3\n"),
			"devices/system/node/node0/cpulist":                  nil,
			"devices/system/node/node0/distance":                 nil,
		}), "devices/system/cpu/cpu0/cache/index3/shared_cpu_list: llc group {0-3} is not nested in package group {0} of devices/system/cpu/cpu0/topology/package_cpus_list: cpu1 is outside it"},
		{"sysfs/cache level missing", sysfs(map[string]*string{"devices/system/cpu/cpu0/cache/index3/level": nil}), "devices/system/cpu/cpu0/cache/index3/level: missing required file"},
		{"sysfs/cache level junk", sysfs(map[string]*string{"devices/system/cpu/cpu0/cache/index3/level": str("three\n")}), `cache/index3/level: bad cache level "three"`},
		{"sysfs/cache without itself", sysfs(map[string]*string{"devices/system/cpu/cpu0/cache/index3/shared_cpu_list": str("1-3\n")}), "cpu0/cache/index3/shared_cpu_list: {1-3} does not hold cpu0 itself"},
		{"sysfs/node distance missing", sysfs(map[string]*string{"devices/system/node/node0/distance": nil}), "devices/system/node/node0/distance: missing required file"},
		{"sysfs/node distance short", sysfs(map[string]*string{"devices/system/node/node0/distance": str("10 20\n")}), "node0/distance: 2 entries, want one per node (1)"},
		{"sysfs/node distance junk", sysfs(map[string]*string{"devices/system/node/node0/distance": str("ten\n")}), `node0/distance: entry 0: bad distance "ten"`},
		{"sysfs/node distance local", sysfs(map[string]*string{"devices/system/node/node0/distance": str("12\n")}), "distance[0][0] = 12, want 10"},
		{"sysfs/node cpulist missing", sysfs(map[string]*string{"devices/system/node/node0/cpulist": nil}), "devices/system/node/node0/cpulist: missing required file"},
		{"sysfs/cpu in no node", sysfs(map[string]*string{"devices/system/node/node0/cpulist": str("0-2\n")}), "cpu3 is in no NUMA node (devices/system/node/node*/cpulist)"},
		{"sysfs/capacity junk", sysfs(map[string]*string{"devices/system/cpu/cpu1/cpu_capacity": str("big\n")}), `cpu1/cpu_capacity: bad capacity "big"`},
		{"sysfs/capacity range", sysfs(map[string]*string{"devices/system/cpu/cpu1/cpu_capacity": str("4096\n")}), "cpu1/cpu_capacity: capacity 4096 out of range 1-1024"},
		{"sysfs/cluster overlap", sysfs(map[string]*string{
			"devices/system/cpu/cpu0/topology/cluster_cpus_list": str("0-2\n"),
			"devices/system/cpu/cpu3/topology/cluster_cpus_list": str("2-3\n"),
		}), "cluster group {2-3} overlaps cluster group {0-2}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

// FuzzParse checks that Parse never panics and that every text it accepts
// is a valid topology that prints back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"cpu:2", "package:1 node:1 cpu:2", "package:2 node:2 llc:2 core:4 cpu:2",
		"llc:1 (cluster:2 core:1 cpu:2 + cluster:1 cpu:4@600)",
		"package:2 node:1 llc:1 core:4 cpu:2 cpus=0,8,1,9,2,10,3,11,4,12,5,13,6,14,7,15 distance=10,21/21,10",
		"node:3 cpu:1 distance=10,20,30/20,10,20/30,20,10", "core:4 cpu:1", "llc:2 (cpu:1 + core:1 cpu:2)",
		"cpu:3 cpus=0,2-3", "cpu:2 offline=1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		tp, err := topology.Parse(text)
		if err != nil {
			if tp != nil {
				t.Fatalf("Parse(%q) returned a topology and the error %v", text, err)
			}
			if !strings.HasPrefix(err.Error(), "topology: ") {
				t.Fatalf("Parse(%q) error %q lacks the package prefix", text, err)
			}
			return
		}
		if got := tp.String(); got != text {
			t.Fatalf("Parse(%q).String() = %q", text, got)
		}
		checkTopology(t, tp)
	})
}
