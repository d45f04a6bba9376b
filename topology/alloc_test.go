package topology_test

import (
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// TestZeroAllocs enforces the zero-allocation claim of every hot query and
// walk, iterators included.
func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes code allocate")
	}
	tp := topology.Uniform(4, 2, 4, 16, 2)
	set := topology.CPUSetOf(3, 64, 700)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"GroupOf", func() { sinkGroup, sinkBool = tp.GroupOf(77, topology.LLC) }},
		{"Leaf", func() { sinkGroup = tp.Leaf(1000) }},
		{"SharedLevel", func() { sinkLevel = tp.SharedLevel(3, 900) }},
		{"SharedGroup", func() { sinkGroup = tp.SharedGroup(3, 4) }},
		{"Siblings", func() { sinkSet = tp.Siblings(5) }},
		{"Distance", func() { sinkInt = tp.Distance(0, 1023) }},
		{"Capacity", func() { sinkInt = tp.Capacity(9) }},
		{"Node", func() { sinkInt = tp.Node(9) }},
		{"ParentWalk", func() {
			for g := tp.Leaf(500); g != nil; g = g.Parent() {
				sinkInt += g.Count()
			}
		}},
		{"Ancestors", func() {
			for g := range tp.Ancestors(500) {
				sinkInt += g.Count()
			}
		}},
		{"ChildrenBackward", func() {
			kids := tp.Root().Children()
			for i := len(kids) - 1; i >= 0; i-- {
				sinkInt += int(kids[i].Last())
			}
		}},
		{"Groups", func() { sinkInt = len(tp.Groups(topology.SMT)) }},
		{"DomainWalk", func() {
			for d := tp.Domain(17); d != nil; d = d.Parent() {
				for j := range d.NumGroups() {
					sinkInt += d.Group(j).Capacity()
				}
			}
		}},
		{"Domains", func() {
			for d := range tp.Domains(17) {
				for g := range d.Groups() {
					sinkInt += g.Weight()
				}
			}
		}},
		{"HighestFlagDomain", func() { sinkInt = tp.HighestFlagDomain(17, topology.SDShareLLC).Weight() }},
		{"CPUSet.First", func() { sinkCPU, sinkBool = set.First() }},
		{"CPUSet.After", func() { sinkCPU, sinkBool = set.After(64) }},
		{"CPUSet.Before", func() { sinkCPU, sinkBool = set.Before(700) }},
		{"CPUSet.Count", func() { sinkInt = set.Count() }},
		{"CPUSet.All", func() {
			for c := range set.All() {
				sinkCPU = c
			}
		}},
		{"CPUSet.Backward", func() {
			for c := range set.Backward() {
				sinkCPU = c
			}
		}},
		{"CPUSet.Union", func() { sinkSet = set.Union(tp.CPUs()).Intersect(set).Difference(set) }},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s allocates %v times per call, want 0", tc.name, n)
		}
	}
}
