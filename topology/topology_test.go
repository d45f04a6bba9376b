package topology_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/topology"
)

// machines are the ready-made machines with their names for sub-tests.
var machines = []struct {
	name  string
	build func() *topology.Topology
}{
	{"TwoCPU", topology.TwoCPU},
	{"TwoSocketSMT", topology.TwoSocketSMT},
	{"FourLLC", topology.FourLLC},
	{"FourNode", topology.FourNode},
	{"BigLittle", topology.BigLittle},
}

func TestUniformShapes(t *testing.T) {
	// Every small shape: the tree has the expected CPUs, groups and depth.
	for p := 1; p <= 3; p++ {
		for n := 1; n <= 2; n++ {
			for l := 1; l <= 3; l++ {
				for c := 1; c <= 3; c++ {
					for th := 1; th <= 2; th++ {
						tp := topology.Uniform(p, n, l, c, th)
						checkTopology(t, tp)
						ncpu := p * n * l * c * th
						if tp.NumCPUs() != ncpu || tp.CPUs() != topology.CPURange(0, topology.CPU(ncpu-1)) {
							t.Fatalf("Uniform(%d,%d,%d,%d,%d) has CPUs {%s}, want 0-%d", p, n, l, c, th, tp.CPUs(), ncpu-1)
						}
						if got, want := len(tp.Groups(topology.Node)), p*n; got != want {
							t.Fatalf("Uniform(%d,%d,%d,%d,%d): %d node groups, want %d", p, n, l, c, th, got, want)
						}
						// One-CPU caches are dropped unless they are
						// also a NUMA node (a one-CPU LLC per node).
						wantLLC := p * n * l
						if c*th == 1 && l > 1 {
							wantLLC = 0
						}
						if got, want := len(tp.Groups(topology.LLC)), wantLLC; got != want {
							t.Fatalf("Uniform(%d,%d,%d,%d,%d): %d LLC groups, want %d", p, n, l, c, th, got, want)
						}
						wantSMT := 0
						if th > 1 {
							wantSMT = p * n * l * c
						}
						if th == 1 && c == 1 && l == 1 {
							wantSMT = p * n // each core is its node
						}
						if got := len(tp.Groups(topology.SMT)); got != wantSMT {
							t.Fatalf("Uniform(%d,%d,%d,%d,%d): %d SMT groups, want %d", p, n, l, c, th, got, wantSMT)
						}
						back, err := topology.Parse(tp.String())
						require.NoError(t, err, "Parse(%q)", tp.String())
						require.Equal(t, tp.String(), back.String())
						checkTopology(t, back)
					}
				}
			}
		}
	}
}

func TestUniformPanics(t *testing.T) {
	for _, args := range [][5]int{{0, 1, 1, 1, 1}, {1, 1, 1, 1, -2}, {2, 2, 2, 65, 2}, {1 << 30, 1 << 30, 1, 1, 1}} {
		require.Panics(t, func() { topology.Uniform(args[0], args[1], args[2], args[3], args[4]) }, "Uniform%v", args)
	}
	defer func() {
		msg := fmt.Sprint(recover())
		require.Contains(t, msg, "topology: Uniform: items[0]: count 0, want at least 1")
	}()
	topology.Uniform(0, 1, 1, 1, 1)
}

func TestQueriesTwoSocket(t *testing.T) {
	tp := topology.TwoSocketSMT()
	checkTopology(t, tp)
	for _, tc := range []struct {
		a, b  topology.CPU
		level topology.Level
		dist  int
	}{
		{0, 0, topology.SMT, 10},
		{0, 8, topology.SMT, 10},
		{0, 1, topology.LLC, 10},
		{3, 11, topology.SMT, 10},
		{0, 4, topology.Machine, 21},
		{9, 12, topology.Machine, 21},
		{15, 7, topology.SMT, 10},
	} {
		if got := tp.SharedLevel(tc.a, tc.b); got != tc.level {
			t.Errorf("SharedLevel(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.level)
		}
		if got := tp.Distance(tc.a, tc.b); got != tc.dist {
			t.Errorf("Distance(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.dist)
		}
	}
	require.Equal(t, "0,8", tp.Siblings(8).String())
	g, ok := tp.GroupOf(5, topology.Package)
	require.True(t, ok)
	require.Equal(t, "4-7,12-15", g.CPUs().String())
	require.Same(t, g, tp.Groups(topology.Node)[1])
	_, ok = tp.GroupOf(5, topology.Cluster)
	require.False(t, ok, "GroupOf(cpu5, cluster) on a machine without clusters")
	var path []string
	for a := range tp.Ancestors(13) {
		path = append(path, a.String())
	}
	require.Equal(t, []string{"smt{5,13}", "llc+node+package{4-7,12-15}", "machine{0-15}"}, path)
	require.Equal(t, 2, tp.NumNodes())
	require.Equal(t, 21, tp.NodeDistance(0, 1))
	require.Equal(t, 16, tp.NumIDs())
	require.Equal(t, 2, tp.Depth())
	require.False(t, tp.Asymmetric())
	leaf := tp.Leaf(6)
	require.True(t, leaf.IsLeaf())
	require.Equal(t, []topology.CPU{6, 14}, []topology.CPU{leaf.First(), leaf.Last()})
	require.Equal(t, topology.FlagSMT, leaf.Flags())
	require.NotZero(t, leaf.Flags()&topology.FlagThread, "ULE tests CG_FLAG_THREAD")
}

func TestQueriesBigLittle(t *testing.T) {
	tp := topology.BigLittle()
	checkTopology(t, tp)
	require.True(t, tp.Asymmetric())
	for c := range tp.CPUs().All() {
		want := 1024
		if c >= 4 {
			want = 600
		}
		require.Equal(t, want, tp.Capacity(c), "Capacity(%v)", c)
	}
	// Little cores have no SMT group; their leaf is the cluster.
	_, ok := tp.GroupOf(5, topology.SMT)
	require.False(t, ok)
	require.Equal(t, topology.Cluster, tp.Leaf(5).Level())
	require.Equal(t, topology.ShareL2, tp.Leaf(5).Share())
	require.Equal(t, "5", tp.Siblings(5).String())
	require.Equal(t, topology.SMT, tp.SharedLevel(0, 1))
	require.Equal(t, topology.Cluster, tp.SharedLevel(4, 7))
	require.Equal(t, topology.LLC, tp.SharedLevel(1, 7))
	require.Equal(t, 2, len(tp.Groups(topology.SMT)))
	require.Equal(t, 3, len(tp.Groups(topology.Cluster)))
}

func TestQueriesFourNode(t *testing.T) {
	tp := topology.FourNode()
	checkTopology(t, tp)
	want := [][]int{{10, 12, 20, 22}, {12, 10, 22, 20}, {20, 22, 10, 12}, {22, 20, 12, 10}}
	for a := range tp.CPUs().All() {
		for b := range tp.CPUs().All() {
			if got := tp.Distance(a, b); got != want[a/2][b/2] {
				t.Errorf("Distance(%v, %v) = %d, want %d", a, b, got, want[a/2][b/2])
			}
		}
	}
	require.Equal(t, topology.Package, tp.SharedLevel(0, 3))
	require.Equal(t, topology.LLC, tp.SharedLevel(0, 1))
	require.Equal(t, topology.Machine, tp.SharedLevel(0, 7))
	g := tp.SharedGroup(2, 3)
	require.True(t, g.Is(topology.Node) && g.Is(topology.LLC))
	require.Equal(t, topology.FlagNode, g.Flags())
}

func TestQueriesMisuse(t *testing.T) {
	tp := topology.TwoCPU()
	for _, tc := range []struct {
		name string
		f    func()
		msg  string
	}{
		{"Leaf", func() { tp.Leaf(2) }, "topology: Leaf: cpu2 is not a CPU of the topology"},
		{"GroupOf", func() { tp.GroupOf(7, topology.SMT) }, "topology: GroupOf: cpu7 is not a CPU of the topology"},
		{"Ancestors", func() {
			for range tp.Ancestors(9) {
			}
		}, "topology: Leaf: cpu9 is not a CPU of the topology"},
		{"SharedLevel", func() { tp.SharedLevel(0, 5) }, "topology: Leaf: cpu5 is not a CPU of the topology"},
		{"Distance", func() { tp.Distance(0, 5) }, "topology: Distance: not a CPU of the topology"},
		{"Capacity", func() { tp.Capacity(3) }, "topology: Capacity: cpu3 is not a CPU of the topology"},
		{"Node", func() { tp.Node(3) }, "topology: Node: cpu3 is not a CPU of the topology"},
		{"NodeDistance", func() { tp.NodeDistance(0, 1) }, "topology: NodeDistance: node index out of range"},
		{"Domain", func() { tp.Domain(2) }, "topology: Domain: cpu2 is not a CPU of the topology"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.PanicsWithValue(t, tc.msg, tc.f)
		})
	}
	// A hole in the ids (an offline CPU) is not a CPU either.
	s := topology.UniformSpec(1, 1, 1, 4, 1)
	s.Offline = topology.CPUSetOf(1)
	holey, err := topology.New(s)
	require.NoError(t, err)
	checkTopology(t, holey)
	require.Equal(t, 4, holey.NumIDs())
	require.PanicsWithValue(t, "topology: Leaf: cpu1 is not a CPU of the topology", func() { holey.Leaf(1) })
	require.Equal(t, "package:1 node:1 llc:1 cpu:3 cpus=0,2-3", holey.String())
}

func TestGroupOfAbsentLevel(t *testing.T) {
	tp := topology.TwoCPU()
	checkTopology(t, tp)
	for _, l := range []topology.Level{topology.SMT, topology.Cluster, topology.LLC} {
		if g, ok := tp.GroupOf(0, l); ok {
			t.Errorf("GroupOf(cpu0, %v) = %v, true; want none", l, g)
		}
	}
	for _, l := range []topology.Level{topology.Node, topology.Package, topology.Machine} {
		if g, ok := tp.GroupOf(1, l); !ok || g != tp.Root() {
			t.Errorf("GroupOf(cpu1, %v) = %v, %t; want the root", l, g, ok)
		}
	}
	require.Nil(t, tp.Groups(topology.Level(9)))
	g, ok := tp.GroupOf(0, topology.Level(9))
	require.False(t, ok)
	require.Nil(t, g)
	// Levels shared with the root: the root stands for node and package.
	require.Equal(t, topology.Node, tp.SharedLevel(0, 1))
	require.Equal(t, topology.Node, tp.SharedLevel(1, 1))
}

func TestLevelNames(t *testing.T) {
	for l := range topology.Level(topology.NumLevels) {
		back, err := topology.ParseLevel(l.String())
		require.NoError(t, err)
		require.Equal(t, l, back)
		b, err := l.MarshalText()
		require.NoError(t, err)
		var u topology.Level
		require.NoError(t, u.UnmarshalText(b))
		require.Equal(t, l, u)
	}
	require.Equal(t, "level(9)", topology.Level(9).String())
	_, err := topology.Level(9).MarshalText()
	require.Error(t, err)
	_, err = topology.ParseLevel("die")
	require.ErrorContains(t, err, `unknown level "die"`)
	var u topology.Level
	require.Error(t, u.UnmarshalText([]byte("core")))
	s := topology.LevelSet(1<<topology.Node | 1<<topology.Package)
	require.Equal(t, "node+package", s.String())
	lo, _ := s.Lowest()
	hi, _ := s.Highest()
	require.Equal(t, []topology.Level{topology.Node, topology.Package}, []topology.Level{lo, hi})
	_, ok := topology.LevelSet(0).Lowest()
	require.False(t, ok)
	_, ok = topology.LevelSet(0).Highest()
	require.False(t, ok)
	require.Equal(t, "CG_SHARE_L2", topology.ShareL2.String())
	require.Equal(t, "CG_SHARE_NONE", topology.ShareNone.String())
	require.Equal(t, "ShareLevel(7)", topology.ShareLevel(7).String())
	require.Equal(t, "CG_FLAG_HTT|CG_FLAG_SMT|CG_FLAG_NODE", (topology.FlagThread | topology.FlagNode).String())
	require.Equal(t, "0", topology.GroupFlags(0).String())
	require.Equal(t, "CG_FLAG_SMT|0x10", (topology.FlagSMT | 0x10).String())
}

func TestSpecRoundTrip(t *testing.T) {
	for _, m := range machines {
		t.Run(m.name, func(t *testing.T) {
			tp := m.build()
			checkTopology(t, tp)
			back, err := topology.New(tp.Spec())
			require.NoError(t, err)
			checkTopology(t, back)
			require.Equal(t, tp.String(), back.String())
			require.Equal(t, tp.Tree(), back.Tree())
		})
	}
}

func TestOfflineAndIDs(t *testing.T) {
	// Taking a whole NUMA node offline drops its row and column.
	s := topology.UniformSpec(1, 3, 1, 2, 1)
	s.Distance = [][]int{{10, 15, 25}, {15, 10, 20}, {25, 20, 10}}
	s.Offline = topology.CPURange(2, 3)
	tp, err := topology.New(s)
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, 2, tp.NumNodes())
	require.Equal(t, 25, tp.Distance(0, 4))
	require.Equal(t, "package:1 node:2 llc:1 cpu:2 cpus=0-1,4-5 distance=10,25/25,10", tp.String())

	// Explicit ids, depth-first.
	s = topology.UniformSpec(1, 1, 1, 2, 2)
	s.IDs = []topology.CPU{0, 2, 1, 3}
	tp, err = topology.New(s)
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, "0,2", tp.Siblings(2).String())
	require.Equal(t, topology.LLC, tp.SharedLevel(0, 1))
}

func TestSingletonGroups(t *testing.T) {
	// A core of one thread next to cores of two keeps its own group, so
	// that children partition their parent.
	tp, err := topology.Parse("llc:1 (core:2 cpu:2 + core:2 cpu:1)")
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Len(t, tp.Root().Children(), 4)
	g, ok := tp.GroupOf(5, topology.SMT)
	require.True(t, ok)
	require.Equal(t, 1, g.Count())
	require.Equal(t, topology.GroupFlags(0), g.Flags(), "a one-thread core is not CG_FLAG_SMT")
	// One-CPU NUMA nodes are kept: their distances matter.
	tp, err = topology.Parse("node:3 cpu:1 distance=10,20,30/20,10,20/30,20,10")
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, 3, tp.NumNodes())
	require.Equal(t, 30, tp.Distance(0, 2))
	// Bare CPUs next to groups get groups of their own at level SMT.
	tp, err = topology.New(topology.Spec{Items: []topology.Item{
		{Level: topology.Cluster, Count: 1, Items: []topology.Item{{CPU: true, Count: 4}}},
		{CPU: true, Count: 2},
	}})
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, "cluster:1 cpu:4 + core:2 cpu:1", tp.String())
}

func TestGroupsOrder(t *testing.T) {
	tp := topology.FourLLC()
	checkTopology(t, tp)
	var firsts []topology.CPU
	for _, g := range tp.Groups(topology.LLC) {
		firsts = append(firsts, g.First())
	}
	require.Equal(t, []topology.CPU{0, 3, 6, 9}, firsts)
	require.True(t, slices.IsSortedFunc(tp.Groups(topology.SMT), func(a, b *topology.Group) int { return int(a.First()) - int(b.First()) }))
	require.Equal(t, topology.SMT, tp.SharedLevel(1, 13))
	require.Equal(t, topology.LLC, tp.SharedLevel(0, 14))
	require.Equal(t, topology.Node, tp.SharedLevel(0, 3))
}

// TestZeroTopology checks what the type documents of the zero Topology: the
// counts and sets are empty, NumCPUs tells it apart from every built
// topology, MarshalJSON fails, and the rest panics with the package prefix.
func TestZeroTopology(t *testing.T) {
	var z topology.Topology
	require.Equal(t, 0, z.NumCPUs())
	require.Equal(t, 0, z.NumIDs())
	require.Equal(t, 0, z.NumNodes())
	require.Equal(t, 0, z.Depth())
	require.False(t, z.Asymmetric())
	require.Equal(t, topology.CPUSet{}, z.CPUs())
	require.False(t, z.Has(0))
	require.Empty(t, z.Groups(topology.LLC))
	require.Empty(t, z.AllGroups())
	require.Equal(t, "", z.Tree())
	b, err := json.Marshal(&z)
	require.ErrorContains(t, err, "topology: MarshalJSON of the zero Topology", "json.Marshal(&zero) = %s", b)
	const zero = "topology: the zero Topology describes no machine; build one with New, Parse, Uniform or Discover"
	for _, tc := range []struct {
		name string
		f    func()
		msg  string
	}{
		{"Root", func() { z.Root() }, zero},
		{"Spec", func() { z.Spec() }, zero},
		{"String", func() { _ = z.String() }, zero},
		{"Leaf", func() { z.Leaf(0) }, "topology: Leaf: cpu0 is not a CPU of the topology"},
		{"Domain", func() { z.Domain(0) }, "topology: Domain: cpu0 is not a CPU of the topology"},
		{"DomainsText", func() { z.DomainsText(0) }, "topology: Domain: cpu0 is not a CPU of the topology"},
		{"Capacity", func() { z.Capacity(0) }, "topology: Capacity: cpu0 is not a CPU of the topology"},
		{"NodeDistance", func() { z.NodeDistance(0, 0) }, "topology: NodeDistance: node index out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.PanicsWithValue(t, tc.msg, tc.f)
		})
	}
	// Every built topology has a CPU, so NumCPUs() == 0 is the zero value.
	for _, m := range machines {
		require.Positive(t, m.build().NumCPUs(), m.name)
	}
}
