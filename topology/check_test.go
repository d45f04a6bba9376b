package topology_test

import (
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// checkTopology checks every invariant of a topology: the tree (children
// partition their parent, levels strictly nested, no single child, every CPU
// in exactly one leaf, ids in depth-first order), the per-CPU tables behind
// the queries, and the Linux domain chains. Every test calls it after every
// construction.
func checkTopology(t testing.TB, tp *topology.Topology) {
	t.Helper()
	root := tp.Root()
	if root.Parent() != nil || root.Depth() != 0 || !root.Is(topology.Machine) {
		t.Fatalf("root %v: parent %v, depth %d, want nil, 0 and level machine", root, root.Parent(), root.Depth())
	}
	if all := tp.CPUs(); root.CPUs() != all || root.Count() != tp.NumCPUs() || all.Count() != tp.NumCPUs() {
		t.Fatalf("root {%s} (%d) and CPUs {%s} (%d) disagree", root.CPUs(), root.Count(), tp.CPUs(), tp.NumCPUs())
	}
	cpus := tp.CPUs()
	last, _ := cpus.Last()
	if tp.NumIDs() != int(last)+1 {
		t.Fatalf("NumIDs() = %d, want %d", tp.NumIDs(), last+1)
	}
	all := tp.AllGroups()
	// Depth-first preorder: each group's id is one more than the id of the
	// group visited before it.
	next := 0
	var walk func(g *topology.Group)
	maxDepth := 0
	leafOf := map[topology.CPU]*topology.Group{}
	walk = func(g *topology.Group) {
		if g.ID() != next || all[next] != g {
			t.Fatalf("group %v has id %d, want %d in depth-first order", g, g.ID(), next)
		}
		next++
		gcpus := g.CPUs()
		if g.Count() != gcpus.Count() || g.Count() == 0 {
			t.Fatalf("group %v: Count() = %d, want %d > 0", g, g.Count(), gcpus.Count())
		}
		first, _ := gcpus.First()
		lastc, _ := gcpus.Last()
		if g.First() != first || g.Last() != lastc {
			t.Fatalf("group %v: First, Last = %v, %v; want %v, %v", g, g.First(), g.Last(), first, lastc)
		}
		lo, ok := g.Levels().Lowest()
		if !ok || lo != g.Level() {
			t.Fatalf("group %v: Level() = %v, want lowest of %v", g, g.Level(), g.Levels())
		}
		checkFreeBSDFields(t, g)
		kids := g.Children()
		if len(kids) == 1 {
			t.Fatalf("group %v has exactly one child %v", g, kids[0])
		}
		if len(kids) == 0 {
			if g.Depth() > maxDepth {
				maxDepth = g.Depth()
			}
			for c := range g.CPUs().All() {
				if o, dup := leafOf[c]; dup {
					t.Fatalf("%v is in leaves %v and %v", c, o, g)
				}
				leafOf[c] = g
				if tp.Leaf(c) != g {
					t.Fatalf("Leaf(%v) = %v, want %v", c, tp.Leaf(c), g)
				}
			}
		}
		var union topology.CPUSet
		for i, k := range kids {
			if k.Parent() != g || k.Depth() != g.Depth()+1 {
				t.Fatalf("child %v of %v: parent %v, depth %d", k, g, k.Parent(), k.Depth())
			}
			if union.Overlaps(k.CPUs()) {
				t.Fatalf("children of %v overlap at %v", g, k)
			}
			if !k.CPUs().SubsetOf(g.CPUs()) || k.CPUs() == g.CPUs() {
				t.Fatalf("child %v is not a proper subset of %v", k, g)
			}
			if i > 0 && kids[i-1].First() >= k.First() {
				t.Fatalf("children of %v out of order: %v before %v", g, kids[i-1], k)
			}
			hi, _ := k.Levels().Highest()
			if hi >= g.Level() {
				t.Fatalf("child %v (levels %v) not strictly below %v (levels %v)", k, k.Levels(), g, g.Levels())
			}
			union = union.Union(k.CPUs())
			walk(k)
		}
		if len(kids) > 0 && union != g.CPUs() {
			t.Fatalf("children of %v cover {%s}, not all its CPUs", g, union)
		}
	}
	walk(root)
	if next != len(all) {
		t.Fatalf("tree has %d groups, AllGroups has %d", next, len(all))
	}
	if len(leafOf) != tp.NumCPUs() || maxDepth != tp.Depth() {
		t.Fatalf("%d CPUs in leaves and depth %d; want %d and %d", len(leafOf), maxDepth, tp.NumCPUs(), tp.Depth())
	}

	// Per-level tables agree with the tree.
	for l := range topology.Level(topology.NumLevels) {
		var covered topology.CPUSet
		prev := -1
		for _, g := range tp.Groups(l) {
			if !g.Is(l) || g.ID() <= prev || covered.Overlaps(g.CPUs()) {
				t.Fatalf("Groups(%v) holds %v out of order, overlapping or not of that level", l, g)
			}
			prev = g.ID()
			covered = covered.Union(g.CPUs())
		}
		for c := range tp.CPUs().All() {
			g, ok := tp.GroupOf(c, l)
			want := (*topology.Group)(nil)
			for a := range tp.Ancestors(c) {
				if a.Is(l) {
					want = a
				}
			}
			if ok != (want != nil) || g != want {
				t.Fatalf("GroupOf(%v, %v) = %v, %t; want %v", c, l, g, ok, want)
			}
		}
	}
	for c := range tp.CPUs().All() {
		n := tp.Node(c)
		if n < 0 || n >= tp.NumNodes() || tp.Distance(c, c) != topology.LocalDistance {
			t.Fatalf("Node(%v) = %d of %d, Distance to itself %d", c, n, tp.NumNodes(), tp.Distance(c, c))
		}
		if ng, ok := tp.GroupOf(c, topology.Node); ok && tp.Groups(topology.Node)[n] != ng {
			t.Fatalf("Node(%v) = %d but its node group is %v", c, n, ng)
		}
		if cp := tp.Capacity(c); cp < 1 || cp > topology.CapacityScale {
			t.Fatalf("Capacity(%v) = %d", c, cp)
		}
		sib := tp.Siblings(c)
		if !sib.Has(c) {
			t.Fatalf("Siblings(%v) = {%s} lacks the CPU itself", c, sib)
		}
	}
	for i := range tp.NumNodes() {
		for j := range tp.NumNodes() {
			if tp.NodeDistance(i, j) != tp.NodeDistance(j, i) {
				t.Fatalf("NodeDistance(%d, %d) != NodeDistance(%d, %d)", i, j, j, i)
			}
		}
	}
	checkDomains(t, tp)
}

// checkFreeBSDFields checks the cg_level and cg_flags a group derives from
// its levels.
func checkFreeBSDFields(t testing.TB, g *topology.Group) {
	t.Helper()
	want := topology.ShareNone
	switch {
	case g.Is(topology.LLC):
		want = topology.ShareL3
	case g.Is(topology.Cluster):
		want = topology.ShareL2
	case g.Is(topology.SMT):
		want = topology.ShareL1
	}
	var flags topology.GroupFlags
	if g.Is(topology.SMT) && g.Count() > 1 {
		flags |= topology.FlagSMT
	}
	if g.Is(topology.Node) {
		flags |= topology.FlagNode
	}
	if g.Share() != want || g.Flags() != flags {
		t.Fatalf("group %v: Share, Flags = %v, %v; want %v, %v", g, g.Share(), g.Flags(), want, flags)
	}
}

// checkDomains checks the Linux chains the way the kernel's
// sched_domain_debug_one does, plus the links.
func checkDomains(t testing.TB, tp *topology.Topology) {
	t.Helper()
	for c := range tp.CPUs().All() {
		var prev *topology.Domain
		for d := range tp.Domains(c) {
			span := d.Span()
			if !span.Has(c) || d.Weight() != span.Count() || d.Weight() < 2 {
				t.Fatalf("%v %s: span {%s} weight %d", c, d.Name(), span, d.Weight())
			}
			if d.Child() != prev || (prev != nil && prev.Parent() != d) {
				t.Fatalf("%v %s: broken parent/child links", c, d.Name())
			}
			if prev != nil && (!prev.Span().SubsetOf(span) || prev.Level() >= d.Level()) {
				t.Fatalf("%v %s: span {%s} level %d does not contain child {%s} level %d", c, d.Name(), span, d.Level(), prev.Span(), prev.Level())
			}
			if local := d.Group(0).CPUs(); d.NumGroups() < 1 || !local.Has(c) {
				t.Fatalf("%v %s: local group does not hold the CPU", c, d.Name())
			}
			var covered topology.CPUSet
			for g := range d.Groups() {
				if gc := g.CPUs(); gc.IsEmpty() || !gc.SubsetOf(span) || g.Weight() != gc.Count() {
					t.Fatalf("%v %s: bad group {%s}", c, d.Name(), g.CPUs())
				}
				if d.Flags()&topology.SDOverlap == 0 && covered.Overlaps(g.CPUs()) {
					t.Fatalf("%v %s: repeated CPUs in group {%s}", c, d.Name(), g.CPUs())
				}
				capacity := 0
				for x := range g.CPUs().All() {
					capacity += tp.Capacity(x)
				}
				if g.Capacity() != capacity {
					t.Fatalf("%v %s: group {%s} capacity %d, want %d", c, d.Name(), g.CPUs(), g.Capacity(), capacity)
				}
				covered = covered.Union(g.CPUs())
			}
			if covered != span {
				t.Fatalf("%v %s: groups cover {%s}, not the span {%s}", c, d.Name(), covered, span)
			}
			if ch := d.Child(); ch != nil && ch.Span() != d.Group(0).CPUs() {
				t.Fatalf("%v %s: domain->groups {%s} does not match domain->child {%s}", c, d.Name(), d.Group(0).CPUs(), ch.Span())
			}
			prev = d
		}
		if prev != nil && prev.Parent() != nil {
			t.Fatalf("%v: top domain has a parent", c)
		}
		if prev != nil && prev.Span() != tp.CPUs() {
			t.Fatalf("%v: top domain spans {%s}, not the machine", c, prev.Span())
		}
	}
}
