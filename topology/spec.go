// This file implements Spec, a machine described by per-level fan-out, and
// the Uniform builder.

package topology

import (
	"fmt"
	"strconv"
	"strings"
)

// A Spec describes a machine as a tree of fan-outs: the machine holds Items,
// each item is Count groups of one level (each holding its own Items) or
// Count CPUs. Identical siblings are written once with a count; different
// ones are listed side by side, which is how a hybrid part with two kinds of
// core is described. [New] checks a Spec and builds its [Topology];
// [Topology.Spec] returns the Spec of a topology, and the text form
// ([Parse], [Topology.String]) and JSON are this structure written out.
//
// CPUs are numbered 0, 1, 2, … in depth-first order unless IDs gives the
// numbering; Offline CPUs are then removed, and groups left without CPUs
// disappear.
type Spec struct {
	// Items are the contents of the machine, in CPU order.
	Items []Item
	// IDs, if not nil, gives the id of every CPU in depth-first order: the
	// i-th CPU of the tree is IDs[i]. Nil numbers them 0, 1, 2, ….
	IDs []CPU
	// Distance[i][j] is the NUMA distance from the i-th node group to the
	// j-th, counted in depth-first order. Nil means LocalDistance on the
	// diagonal and RemoteDistance elsewhere.
	Distance [][]int
	// Offline CPUs are removed from the machine after numbering.
	Offline CPUSet
}

// An Item of a [Spec] is Count CPUs, or Count groups of one level that each
// hold Items.
type Item struct {
	// CPU makes the item Count CPUs instead of Count groups.
	CPU bool
	// Count is the number of groups or CPUs; it must be at least 1.
	Count int
	// Level is the level of the groups; it must be below the level of the
	// enclosing group. It is ignored for CPUs.
	Level Level
	// Items are the contents of each group. They are ignored for CPUs.
	Items []Item
	// Capacity is the capacity of each CPU, 1 to CapacityScale; 0 means
	// CapacityScale. It is ignored for groups.
	Capacity int
}

// New checks s and builds the topology it describes. It returns an error
// naming the problem and where it is (an item path like items[0].items[1],
// ids, ids[3], offline or distance) for a
// count below 1, a group with no contents, a level that is not below its
// enclosing group's, more than MaxCPUs CPUs, IDs that repeat, are out of
// range or do not match the number of CPUs, a bad capacity, an Offline CPU
// that is not in the machine, or a distance table that is not square with one
// row per node, has a diagonal other than LocalDistance, an entry outside
// (LocalDistance, 255], or is not symmetric.
func New(s Spec) (*Topology, error) {
	return newSpec(s, func(place string) string { return place })
}

// newSpec is New with errors that name a place in s (an item path such as
// "items[0].items[1]", "ids", "ids[3]", "offline" or "distance") as
// where(place), so that the text form and JSON can add their positions.
func newSpec(s Spec, where func(place string) string) (*Topology, error) {
	d, err := s.decl(where)
	if err != nil {
		return nil, err
	}
	return build(d)
}

// specCPU is one CPU of a Spec during expansion.
type specCPU struct {
	capacity int
	where    string
}

// specGroup is one group of a Spec during expansion: CPUs lo to hi-1 in
// depth-first order.
type specGroup struct {
	level  Level
	lo, hi int
	where  string
}

// decl expands s into explicit sets.
func (s Spec) decl(where func(place string) string) (*decl, error) {
	total, err := countItems(s.Items, Machine, "items", where)
	if err != nil {
		return nil, err
	}
	if total == 0 {
		if w := where(""); w != "" {
			return nil, fmt.Errorf("topology: %s: the machine has no CPUs", w)
		}
		return nil, fmt.Errorf("topology: the machine has no CPUs")
	}
	cpus := make([]specCPU, 0, total)
	var groups []specGroup
	expand(s.Items, itemPaths(s.Items, "items"), &cpus, &groups)

	ids, err := s.cpuIDs(len(cpus), where)
	if err != nil {
		return nil, err
	}
	d := &decl{}
	if d.cpus, err = s.online(ids, where); err != nil {
		return nil, err
	}
	if err := d.setCapacities(cpus, ids, where); err != nil {
		return nil, err
	}

	// Node groups that lose every CPU lose their row and column too.
	var perLevel [NumLevels - 1]int
	for _, g := range groups {
		perLevel[g.level]++
	}
	for l, n := range perLevel {
		d.levels[l] = make([]declGroup, 0, n)
	}
	var keepNode []int
	nodes := 0
	for _, g := range groups {
		var set CPUSet
		for i := g.lo; i < g.hi; i++ {
			set.Add(ids[i])
		}
		set = set.Intersect(d.cpus)
		if g.level == Node {
			if !set.IsEmpty() {
				keepNode = append(keepNode, nodes)
			}
			nodes++
		}
		if set.IsEmpty() {
			continue
		}
		d.levels[g.level] = append(d.levels[g.level], declGroup{cpus: set, where: g.where})
	}
	if s.Distance != nil {
		d.distWhere = where("distance")
		d.dist = s.Distance
		if nodes != len(keepNode) && len(s.Distance) == nodes {
			d.dist = subMatrix(s.Distance, keepNode)
		}
	}
	return d, nil
}

// cpuIDs returns the ids of the spec's n CPUs in declaration order: Spec.IDs, checked, or
// 0..n-1 without them.
func (s Spec) cpuIDs(n int, where func(place string) string) ([]CPU, error) {
	ids := s.IDs
	if ids == nil {
		ids = make([]CPU, n)
		for i := range ids {
			ids[i] = CPU(i)
		}
	} else if len(ids) != n {
		return nil, fmt.Errorf("topology: %s: %d ids for %d CPUs", where("ids"), len(ids), n)
	}
	var seen CPUSet
	for i, c := range ids {
		if c >= MaxCPUs {
			return nil, fmt.Errorf("topology: %s: %v out of range (max %d)", where("ids["+strconv.Itoa(i)+"]"), c, MaxCPUs-1)
		}
		if seen.Has(c) {
			return nil, fmt.Errorf("topology: %s: %v appears twice", where("ids["+strconv.Itoa(i)+"]"), c)
		}
		seen.Add(c)
	}
	return ids, nil
}

// online returns the CPUs of ids that Spec.Offline leaves online, or an error if it names a CPU
// the machine lacks or leaves none.
func (s Spec) online(ids []CPU, where func(place string) string) (CPUSet, error) {
	var all CPUSet
	for _, c := range ids {
		all.Add(c)
	}
	if extra := s.Offline.Difference(all); !extra.IsEmpty() {
		c, _ := extra.First()
		return CPUSet{}, fmt.Errorf("topology: %s: %v is not a CPU of the machine {%s}", where("offline"), c, all)
	}
	on := all.Difference(s.Offline)
	if on.IsEmpty() {
		return CPUSet{}, fmt.Errorf("topology: %s: every CPU is offline", where("offline"))
	}
	return on, nil
}

// setCapacities records the capacities the online CPUs declare (cpus[i] is CPU ids[i]), each
// checked, and where each CPU was declared, for later errors.
func (d *decl) setCapacities(cpus []specCPU, ids []CPU, where func(place string) string) error {
	last, _ := d.cpus.Last()
	cpuWhere := make([]string, int(last)+1)
	for i, c := range cpus {
		id := ids[i]
		if !d.cpus.Has(id) {
			continue
		}
		if c.capacity != 0 {
			if c.capacity < 1 || c.capacity > CapacityScale {
				return fmt.Errorf("topology: %s: capacity %d out of range 1-%d", where(c.where), c.capacity, CapacityScale)
			}
			if d.capacity == nil {
				d.capacity = make([]int, int(last)+1)
			}
			d.capacity[id] = c.capacity
		}
		cpuWhere[id] = c.where
	}
	d.capWhere = func(c CPU) string { return where(cpuWhere[c]) }
	return nil
}

// subMatrix returns the rows and columns keep of m, or m itself when a row
// is too short to hold them (build then reports its shape).
func subMatrix(m [][]int, keep []int) [][]int {
	out := make([][]int, len(keep))
	for i, a := range keep {
		if a >= len(m) {
			return m
		}
		out[i] = make([]int, len(keep))
		for j, b := range keep {
			if b >= len(m[a]) {
				return m
			}
			out[i][j] = m[a][b]
		}
	}
	return out
}

// countItems checks items below a group of level parent and returns how many
// CPUs they hold, saturating above MaxCPUs.
func countItems(items []Item, parent Level, path string, where func(string) string) (int, error) {
	total := 0
	for i, it := range items {
		place := path + "[" + strconv.Itoa(i) + "]"
		at := where(place)
		if it.Count < 1 {
			return 0, fmt.Errorf("topology: %s: count %d, want at least 1", at, it.Count)
		}
		n := 1
		if !it.CPU {
			if it.Level >= parent {
				return 0, fmt.Errorf("topology: %s: %s group inside a %s group, want a lower level", at, it.Level, parent)
			}
			if len(it.Items) == 0 {
				return 0, fmt.Errorf("topology: %s: %s group with no contents", at, it.Level)
			}
			var err error
			if n, err = countItems(it.Items, it.Level, place+".items", where); err != nil {
				return 0, err
			}
		}
		if it.Count > MaxCPUs || n*it.Count > MaxCPUs {
			return 0, fmt.Errorf("topology: %s: more than %d CPUs", at, MaxCPUs)
		}
		total += n * it.Count
		if total > MaxCPUs {
			return 0, fmt.Errorf("topology: %s: more than %d CPUs", at, MaxCPUs)
		}
	}
	return total, nil
}

// itemPath is where an item sits in a Spec, such as items[0].items[2],
// with the paths of its own items.
type itemPath struct {
	at    string
	items []itemPath
}

// itemPaths names every item once, however many copies its count makes.
func itemPaths(items []Item, prefix string) []itemPath {
	out := make([]itemPath, len(items))
	for i, it := range items {
		out[i].at = prefix + "[" + strconv.Itoa(i) + "]"
		if !it.CPU {
			out[i].items = itemPaths(it.Items, out[i].at+".items")
		}
	}
	return out
}

// expand appends the CPUs and groups of items in depth-first order.
func expand(items []Item, paths []itemPath, cpus *[]specCPU, groups *[]specGroup) {
	for i, it := range items {
		at := paths[i].at
		if it.CPU {
			for range it.Count {
				*cpus = append(*cpus, specCPU{capacity: it.Capacity, where: at})
			}
			continue
		}
		for range it.Count {
			gi := len(*groups)
			*groups = append(*groups, specGroup{level: it.Level, lo: len(*cpus), where: at})
			expand(it.Items, paths[i].items, cpus, groups)
			(*groups)[gi].hi = len(*cpus)
		}
	}
}

// Uniform returns a machine of packages sockets, each of nodes NUMA nodes,
// each of llcs last-level caches, each of cores cores, each of threads
// hardware threads, numbered in that order (CPU 0 and 1 are the threads of
// the first core when threads is 2). NUMA distances are LocalDistance and
// RemoteDistance and every CPU has capacity CapacityScale. Uniform(1, 1, 1,
// n, 1) is n independent CPUs sharing one cache.
//
// Uniform panics if an argument is below 1 or the machine would have more
// than MaxCPUs CPUs; use [New] to get an error instead.
func Uniform(packages, nodes, llcs, cores, threads int) *Topology {
	t, err := New(UniformSpec(packages, nodes, llcs, cores, threads))
	if err != nil {
		panic(strings.Replace(err.Error(), "topology:", "topology: Uniform:", 1))
	}
	return t
}

// UniformSpec returns the Spec that [Uniform] builds, to change before
// calling [New] (to add a distance table or take CPUs offline).
func UniformSpec(packages, nodes, llcs, cores, threads int) Spec {
	inner := []Item{{CPU: true, Count: threads}}
	inner = []Item{{Level: SMT, Count: cores, Items: inner}}
	inner = []Item{{Level: LLC, Count: llcs, Items: inner}}
	inner = []Item{{Level: Node, Count: nodes, Items: inner}}
	return Spec{Items: []Item{{Level: Package, Count: packages, Items: inner}}}
}
