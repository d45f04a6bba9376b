package topology_test

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// TestPartition checks Partition's sets on machines with and without each level: the table
// cases by hand, and on every ready-made machine and level the properties (a partition of the
// CPUs, ascending first CPUs, each set inside one group of every level from l up, each group of
// level l one set).
func TestPartition(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		level topology.Level
		want  string
	}{
		{"package:2 core:2 cpu:2", topology.SMT, "[0-1 2-3 4-5 6-7]"},
		{"package:2 core:2 cpu:2", topology.LLC, "[0-3 4-7]"},             // no caches described: the packages
		{"package:2 core:2 cpu:2", topology.Node, "[0-3 4-7]"},            // one node per package
		{"package:1 llc:2 cpu:3", topology.SMT, "[0 1 2 3 4 5]"},          // no SMT: each CPU alone
		{"package:2 core:2 cpu:2", topology.Cluster, "[0-1 2-3 4-5 6-7]"}, // no clusters: each core
		{"package:1 llc:2 cpu:3", topology.LLC, "[0-2 3-5]"},
		{"package:1 llc:2 cpu:3", topology.Machine, "[0-5]"},
	} {
		top, err := topology.Parse(tc.spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.spec, err)
		}
		if got := fmt.Sprint(top.Partition(tc.level)); got != tc.want {
			t.Errorf("Parse(%q).Partition(%v) = %s, want %s", tc.spec, tc.level, got, tc.want)
		}
	}
	for _, m := range machines {
		top := m.build()
		for l := range topology.Level(topology.NumLevels) {
			sets := top.Partition(l)
			var union topology.CPUSet
			prev := -1
			for _, s := range sets {
				first, ok := s.First()
				if !ok || int(first) <= prev {
					t.Fatalf("%s level %v: set %v empty or out of order", m.name, l, s)
				}
				prev = int(first)
				if union.Overlaps(s) {
					t.Fatalf("%s level %v: set %v overlaps an earlier one", m.name, l, s)
				}
				union = union.Union(s)
				for up := l; int(up) < topology.NumLevels; up++ {
					if g, ok := top.GroupOf(first, up); ok && !s.SubsetOf(g.CPUs()) {
						t.Fatalf("%s level %v: set %v not inside %v group %v", m.name, l, s, up, g.CPUs())
					}
				}
				if g, ok := top.GroupOf(first, l); ok && g.CPUs() != s {
					t.Fatalf("%s level %v: set %v is not its group %v", m.name, l, s, g.CPUs())
				}
			}
			if union != top.CPUs() {
				t.Fatalf("%s level %v: union %v, want every CPU %v", m.name, l, union, top.CPUs())
			}
		}
	}
}

func TestPartitionPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "topology: Partition of an invalid level" {
			t.Errorf("Partition(99) panicked with %v", r)
		}
	}()
	topology.TwoCPU().Partition(99)
}

// One worker per last-level cache: the CPUs each worker is pinned to.
func ExampleTopology_Partition() {
	t := topology.Uniform(1, 1, 2, 2, 2) // 2 LLCs × 2 cores × 2 threads
	fmt.Println(t.Partition(topology.LLC))
	fmt.Println(t.Partition(topology.SMT))
	// Output:
	// [0-3 4-7]
	// [0-1 2-3 4-5 6-7]
}
