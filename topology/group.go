// This file implements Group, one node of the topology tree.

package topology

// A Group is a set of CPUs that share something: the threads of a core, the
// cores of a cache, the CPUs of a NUMA node or package, or the whole machine.
// Groups form a tree (FreeBSD's cpu_group tree): the children of a group
// partition its CPUs, and a group never has exactly one child, because a
// child with all its parent's CPUs is the same group. A group that stands
// for several levels at once (one package that is also one NUMA node)
// appears once, carrying all of them in [Group.Levels].
//
// Groups belong to a [Topology] and are immutable; all methods are safe for
// concurrent use and cost O(1) without allocating.
type Group struct {
	cpus        CPUSet
	levels      LevelSet
	level       Level
	share       ShareLevel
	flags       GroupFlags
	depth       int32
	id          int32
	count       int32
	first, last CPU
	parent      *Group
	children    []*Group
}

// CPUs returns the CPUs of g (FreeBSD cg_mask).
func (g *Group) CPUs() CPUSet { return g.cpus }

// Has reports whether c is a CPU of g (FreeBSD CPU_ISSET(c, &cg->cg_mask)).
func (g *Group) Has(c CPU) bool { return g.cpus.Has(c) }

// Count returns the number of CPUs in g (FreeBSD cg_count).
func (g *Group) Count() int { return int(g.count) }

// First returns the lowest CPU of g (FreeBSD cg_first).
func (g *Group) First() CPU { return g.first }

// Last returns the highest CPU of g (FreeBSD cg_last). ULE's searches visit
// a leaf's CPUs from Last down to First.
func (g *Group) Last() CPU { return g.last }

// Level returns the lowest level g stands for: SMT for a core, LLC for a
// cache that is also a package, Machine only for a root that stands for
// nothing else.
func (g *Group) Level() Level { return g.level }

// Levels returns every level g stands for. The root always includes Machine.
func (g *Group) Levels() LevelSet { return g.levels }

// Is reports whether g stands for level l, that is whether g is the group of
// its CPUs at level l.
func (g *Group) Is(l Level) bool { return g.levels.Has(l) }

// Parent returns the group just above g (FreeBSD cg_parent), or nil for the
// root.
func (g *Group) Parent() *Group { return g.parent }

// Children returns the groups just below g in ascending order of their first
// CPU (FreeBSD cg_child[0 … cg_children-1]); it is empty for a leaf. The
// slice belongs to the topology and must not be modified. ULE's searches
// visit it from the last child to the first.
func (g *Group) Children() []*Group { return g.children }

// IsLeaf reports whether g has no children: it is the group FreeBSD calls a
// CPU's tdq_cg and finds with smp_topo_find.
func (g *Group) IsLeaf() bool { return len(g.children) == 0 }

// Depth returns the number of edges between g and the root (0 for the root).
func (g *Group) Depth() int { return int(g.depth) }

// ID returns the index of g in [Topology.AllGroups], a dense number from 0
// (the root) in depth-first order that callers can use to index per-group
// state.
func (g *Group) ID() int { return int(g.id) }

// Share returns FreeBSD's cg_level for g: ShareL1 for an SMT group, ShareL2
// for a cluster, ShareL3 for a last-level cache (the highest that applies),
// and ShareNone for node, package and machine groups. FreeBSD's x86 code
// reads the real cache level instead, so it reports CG_SHARE_L2 for an SMT
// group whose core has a private L2, and CG_SHARE_L2 for a last-level cache
// that is an L2; see the package documentation.
func (g *Group) Share() ShareLevel { return g.share }

// Flags returns FreeBSD's cg_flags for g: FlagSMT for a core of two or more
// threads (as x86 cpu_topo sets it) and FlagNode for a NUMA node.
func (g *Group) Flags() GroupFlags { return g.flags }

// String returns the levels and CPUs of g, such as "llc{0-7}".
func (g *Group) String() string {
	return g.levels.String() + "{" + g.cpus.String() + "}"
}
