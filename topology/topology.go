// This file implements Topology and the queries policies make of it.

package topology

import (
	"iter"
	"sync"
	"sync/atomic"
)

// LocalDistance is the NUMA distance of a node to itself (Linux
// LOCAL_DISTANCE, the ACPI SLIT convention); RemoteDistance is the distance
// Linux assumes between two nodes when firmware gives no table
// (REMOTE_DISTANCE).
const (
	LocalDistance  = 10
	RemoteDistance = 20
)

// CapacityScale is the capacity of the fastest CPU at full speed (Linux
// SCHED_CAPACITY_SCALE, 1 << SCHED_CAPACITY_SHIFT).
const CapacityScale = 1024

// A Topology is an immutable description of a machine's CPUs: the tree of
// groups that share something (see [Group]), each CPU's NUMA node and the
// distances between nodes, each CPU's capacity, and the Linux view of the
// same tree as per-CPU chains of scheduling domains (see [Domain]).
//
// The Linux view is built on the first call that needs it ([Topology.Domain]
// and the methods around it), which costs several times as much as building
// the tree (milliseconds at 1024 CPUs); later calls find it ready.
//
// Build one with [Uniform], [New], [Parse], [Topology.UnmarshalJSON],
// [Discover] or one of the ready-made machines such as [TwoSocketSMT]. The
// zero Topology is not valid: it describes no machine. Every built topology
// has at least one CPU, so NumCPUs() == 0 reports exactly the zero value. On
// it NumCPUs, NumIDs, NumNodes, Depth, Asymmetric, CPUs, Has, Groups and
// AllGroups return zero or empty results, MarshalJSON returns an error,
// Tree returns "", the CPU queries panic as for any CPU the topology does
// not have, and Root and the methods built on it (Spec, String) panic.
//
// A built Topology is never modified, so it is safe for concurrent use; the
// one method that writes, UnmarshalJSON, fills in a zero Topology before it
// is shared. The queries below cost O(1) or O(depth) and never allocate.
type Topology struct {
	cpus    CPUSet
	ncpu    int
	groups  []Group
	all     []*Group
	byLevel [NumLevels][]*Group
	groupOf [NumLevels][]*Group // indexed by CPU; nil when the level is absent
	leaf    []*Group            // indexed by CPU
	node    []uint16            // NUMA node index by CPU
	nnodes  int
	dist    []uint8 // nnodes × nnodes
	cap     []uint16
	depth   int
	asym    bool

	linux *linuxView // the sched domains, built on first use; see domain.go
}

// NumCPUs returns the number of CPUs (FreeBSD mp_ncpus, Linux
// num_online_cpus): at least 1, except 0 for the zero Topology.
func (t *Topology) NumCPUs() int { return t.ncpu }

// NumIDs returns one more than the highest CPU id (FreeBSD mp_maxid+1, Linux
// nr_cpu_ids): the length of an array indexed by CPU. It exceeds NumCPUs when
// ids have holes, for example offline CPUs.
func (t *Topology) NumIDs() int { return len(t.leaf) }

// CPUs returns the set of CPUs (FreeBSD all_cpus, Linux cpu_online_mask).
func (t *Topology) CPUs() CPUSet { return t.cpus }

// Has reports whether c is a CPU of t.
func (t *Topology) Has(c CPU) bool { return t.cpus.Has(c) }

// Root returns the group of all CPUs (FreeBSD cpu_top). It panics on the
// zero Topology.
func (t *Topology) Root() *Group {
	if len(t.groups) == 0 {
		panic(zeroTopology)
	}
	return &t.groups[0]
}

// zeroTopology is the panic message of the methods the zero Topology has no
// answer for.
const zeroTopology = "topology: the zero Topology describes no machine; build one with New, Parse, Uniform or Discover"

// Depth returns the largest depth of a leaf: 0 when the root is the only
// group.
func (t *Topology) Depth() int { return t.depth }

// Leaf returns the leaf group of c, the lowest group holding it (FreeBSD
// smp_topo_find, ULE's tdq_cg). It panics if c is not a CPU of t.
// The complexity is O(1).
func (t *Topology) Leaf(c CPU) *Group {
	if int(c) < len(t.leaf) {
		if g := t.leaf[c]; g != nil {
			return g
		}
	}
	panic(notCPU("Leaf", c))
}

// notCPU returns the panic message for a CPU that is not in the topology;
// keeping it out of line keeps the queries small enough to inline.
//
//go:noinline
func notCPU(method string, c CPU) string {
	return "topology: " + method + ": " + c.String() + " is not a CPU of the topology"
}

// GroupOf returns the group of c at level l, or false if t has no group of
// that level holding c (no SMT groups on a machine without SMT, no cluster
// level unless one was described). It panics if c is not a CPU of t.
// The complexity is O(1).
func (t *Topology) GroupOf(c CPU, l Level) (*Group, bool) {
	if !t.cpus.Has(c) {
		panic(notCPU("GroupOf", c))
	}
	if int(l) >= NumLevels {
		return nil, false
	}
	s := t.groupOf[l]
	if s == nil {
		return nil, false
	}
	g := s[c]
	return g, g != nil
}

// Ancestors returns an iterator over the groups holding c from its leaf up
// to the root, the walk ULE's pickcpu and tdq_idled make through cg_parent.
// The loop panics if c is not a CPU of t. Hot paths can write the same loop
// without an iterator:
//
//	for g := t.Leaf(c); g != nil; g = g.Parent() { … }
func (t *Topology) Ancestors(c CPU) iter.Seq[*Group] {
	return func(yield func(*Group) bool) {
		for g := t.Leaf(c); g != nil; g = g.parent {
			if !yield(g) {
				return
			}
		}
	}
}

// SharedGroup returns the lowest group holding both a and b. It panics if a
// or b is not a CPU of t. The complexity is O(depth).
func (t *Topology) SharedGroup(a, b CPU) *Group {
	ga, gb := t.Leaf(a), t.Leaf(b)
	for ga.depth > gb.depth {
		ga = ga.parent
	}
	for gb.depth > ga.depth {
		gb = gb.parent
	}
	for ga != gb {
		ga, gb = ga.parent, gb.parent
	}
	return ga
}

// SharedLevel returns the lowest level at which a and b are in the same
// group: SMT for two threads of one core, LLC for two cores of one cache,
// Machine when they share nothing but the machine. For a == b it is the
// level of the CPU's leaf. It panics if a or b is not a CPU of t.
// The complexity is O(depth).
func (t *Topology) SharedLevel(a, b CPU) Level {
	return t.SharedGroup(a, b).level
}

// Siblings returns the SMT siblings of c including c itself (Linux
// topology_sibling_cpumask, sysfs core_cpus_list): the CPUs of its SMT
// group, or just c on a core with one thread. It panics if c is not a CPU of
// t. The complexity is O(MaxCPUs/64).
func (t *Topology) Siblings(c CPU) CPUSet {
	if g, ok := t.GroupOf(c, SMT); ok {
		return g.cpus
	}
	var s CPUSet
	s.Add(c)
	return s
}

// Groups returns the groups that stand for level l in depth-first order, the
// same order as ascending first CPU; it is empty when t has no group of that
// level. The slice belongs to the topology and must not be modified.
func (t *Topology) Groups(l Level) []*Group {
	if int(l) >= NumLevels {
		return nil
	}
	return t.byLevel[l]
}

// AllGroups returns every group in depth-first order, root first, so that
// AllGroups()[g.ID()] == g. The slice belongs to the topology and must not
// be modified.
func (t *Topology) AllGroups() []*Group { return t.all }

// NumNodes returns the number of NUMA nodes; a machine described without
// nodes has one.
func (t *Topology) NumNodes() int { return t.nnodes }

// Node returns the index of the NUMA node of c (Linux cpu_to_node), counting
// node groups in depth-first order from 0. It panics if c is not a CPU of t.
func (t *Topology) Node(c CPU) int {
	if !t.cpus.Has(c) {
		panic(notCPU("Node", c))
	}
	return int(t.node[c])
}

// NodeDistance returns the NUMA distance from node i to node j (Linux
// node_distance): LocalDistance when i == j. It panics if i or j is not a
// node index.
func (t *Topology) NodeDistance(i, j int) int {
	if uint(i) >= uint(t.nnodes) || uint(j) >= uint(t.nnodes) {
		panic("topology: NodeDistance: node index out of range")
	}
	return int(t.dist[i*t.nnodes+j])
}

// Distance returns the NUMA distance between the nodes of a and b. It panics
// if a or b is not a CPU of t. The complexity is O(1).
func (t *Topology) Distance(a, b CPU) int {
	if !t.cpus.Has(a) || !t.cpus.Has(b) {
		panic("topology: Distance: not a CPU of the topology")
	}
	return int(t.dist[int(t.node[a])*t.nnodes+int(t.node[b])])
}

// Capacity returns the capacity of c in units where the fastest CPU is
// [CapacityScale] (Linux arch_scale_cpu_capacity, sysfs cpu_capacity). It
// panics if c is not a CPU of t. The complexity is O(1).
func (t *Topology) Capacity(c CPU) int {
	if !t.cpus.Has(c) {
		panic(notCPU("Capacity", c))
	}
	return int(t.cap[c])
}

// Asymmetric reports whether CPUs differ in capacity (Linux
// sched_asym_cpucapacity).
func (t *Topology) Asymmetric() bool { return t.asym }

// linuxView holds every CPU's chain of scheduling domains.
type linuxView struct {
	ready   atomic.Bool // set once domains and base are built
	mu      sync.Mutex  // held while building
	domains []Domain    // every CPU's chain, one backing array
	base    []*Domain   // indexed by CPU; nil when every domain degenerated
	built   [][]Domain  // indexed by CPU: the chain as built, before degenerate removal
}
