// This file implements the one constructor every other reduces to: a tree
// of groups built and checked from explicit CPU sets per level.

package topology

import (
	"cmp"
	"fmt"
	"slices"
)

// decl describes a machine by explicit CPU sets: the CPUs, and for each
// level below Machine a list of disjoint groups that need not cover every
// CPU (a CPU in no group of a level simply has no group there). Spec, the
// text form, JSON and sysfs discovery all reduce to a decl.
type decl struct {
	cpus   CPUSet
	levels [NumLevels - 1][]declGroup
	// dist[i][j] is the distance between levels[Node][i] and
	// levels[Node][j]; nil means LocalDistance/RemoteDistance.
	dist      [][]int
	distWhere string
	// capacity is indexed by CPU; 0, or an index past the end, means
	// CapacityScale.
	capacity []int
	capWhere func(c CPU) string
}

// declGroup is one described group and where it was described, for errors.
type declGroup struct {
	cpus  CPUSet
	where string
}

// bnode is a group under construction.
type bnode struct {
	cpus     *CPUSet // the declared group's set, not a copy
	levels   LevelSet
	parent   int
	children []int
	dropped  bool
	group    *Group
}

// droppable is the set of levels a one-CPU group may stand for and still be
// left out of the tree: a cache shared by one CPU shares nothing.
const droppable = LevelSet(1<<SMT | 1<<Cluster | 1<<LLC)

// build checks d and builds the topology it describes. Groups with the same
// CPUs at several levels become one group; a CPU left out of every child of
// a group that has children gets a group of its own at level SMT, so that
// children always partition their parent; one-CPU children that stand only
// for cache levels are dropped when all of a group's children are such, so
// the group becomes a leaf (FreeBSD builds no cpu_group for an unshared
// cache, Linux degenerates a one-CPU domain).
func build(d *decl) (*Topology, error) {
	last, ok := d.cpus.Last()
	if !ok {
		return nil, fmt.Errorf("topology: the machine has no CPUs")
	}
	nids := int(last) + 1
	lv, err := checkLevels(d, nids)
	if err != nil {
		return nil, err
	}
	nodes, rep, err := declaredNodes(d, lv)
	if err != nil {
		return nil, err
	}
	nodes, nkept := partition(nodes)
	t := layOut(d, nodes, nkept, nids)
	t.index(nids)
	if err := t.setNodes(d, rep[Node], nodes); err != nil {
		return nil, err
	}
	if err := t.setCapacity(d); err != nil {
		return nil, err
	}
	t.linux = &linuxView{}
	return t, nil
}

// levelCover is what checkLevels finds of the declared groups: per level below Machine, the
// CPUs its groups cover and, per CPU, the index of its group there (-1: none; nil: no group
// declared at that level).
type levelCover struct {
	covered [NumLevels - 1]CPUSet
	owner   [NumLevels - 1][]int32
}

// checkLevels checks that each level's declared groups are non-empty, hold only CPUs of the
// machine and do not overlap, and that the NUMA nodes, if declared, cover every CPU.
func checkLevels(d *decl, nids int) (*levelCover, error) {
	lv := &levelCover{}
	for l := range Level(NumLevels - 1) {
		if len(d.levels[l]) == 0 {
			continue
		}
		own := make([]int32, nids)
		for i := range own {
			own[i] = -1
		}
		lv.owner[l] = own
		for i, g := range d.levels[l] {
			if g.cpus.IsEmpty() {
				return nil, fmt.Errorf("topology: %s: empty %s group", g.where, l)
			}
			if extra := g.cpus.Difference(d.cpus); !extra.IsEmpty() {
				c, _ := extra.First()
				return nil, fmt.Errorf("topology: %s: %s group {%s} holds %v, which is not a CPU of the machine {%s}", g.where, l, g.cpus, c, d.cpus)
			}
			if both := g.cpus.Intersect(lv.covered[l]); !both.IsEmpty() {
				c, _ := both.First()
				o := d.levels[l][own[c]]
				return nil, fmt.Errorf("topology: %s: %s group {%s} overlaps %s group {%s} of %s at %v", g.where, l, g.cpus, l, o.cpus, o.where, c)
			}
			lv.covered[l] = lv.covered[l].Union(g.cpus)
			for c := range g.cpus.All() {
				own[c] = int32(i)
			}
		}
	}
	if len(d.levels[Node]) > 0 && lv.covered[Node] != d.cpus {
		missing := d.cpus.Difference(lv.covered[Node])
		c, _ := missing.First()
		return nil, fmt.Errorf("topology: %v is in no NUMA node", c)
	}
	return lv, nil
}

// declaredNodes makes the declared groups nodes, top-down, each under the group of the nearest
// higher level that holds it (a group with its parent's CPUs is the parent, at one more level),
// and returns them with, per level, each declared group's node. A group not nested in the
// group above it is an error.
func declaredNodes(d *decl, lv *levelCover) ([]bnode, [NumLevels - 1][]int, error) {
	ndecl := 1
	for l := range d.levels {
		ndecl += len(d.levels[l])
	}
	nodes := make([]bnode, 1, ndecl)
	nodes[0] = bnode{cpus: &d.cpus, levels: 1 << Machine, parent: -1}
	var rep [NumLevels - 1][]int
	for l := Package; ; l-- {
		rep[l] = make([]int, len(d.levels[l]))
		for i := range d.levels[l] {
			g := &d.levels[l][i]
			first, _ := g.cpus.First()
			p := 0
			for h := l + 1; h < Machine; h++ {
				if lv.owner[h] == nil {
					continue
				}
				if o := lv.owner[h][first]; o >= 0 {
					pg := d.levels[h][o]
					if out := g.cpus.Difference(pg.cpus); !out.IsEmpty() {
						c, _ := out.First()
						return nil, rep, fmt.Errorf("topology: %s: %s group {%s} is not nested in %s group {%s} of %s: %v is outside it", g.where, l, g.cpus, h, pg.cpus, pg.where, c)
					}
					p = rep[h][o]
					break
				}
				if in := g.cpus.Intersect(lv.covered[h]); !in.IsEmpty() {
					c, _ := in.First()
					return nil, rep, fmt.Errorf("topology: %s: %s group {%s} is not nested at level %s: %v has a %s group but %v has none", g.where, l, g.cpus, h, c, h, first)
				}
			}
			if *nodes[p].cpus == g.cpus {
				nodes[p].levels |= 1 << l
				rep[l][i] = p
				continue
			}
			nodes = append(nodes, bnode{cpus: &g.cpus, levels: 1 << l, parent: p})
			rep[l][i] = len(nodes) - 1
			nodes[p].children = append(nodes[p].children, len(nodes)-1)
		}
		if l == SMT {
			break
		}
	}
	return nodes, rep, nil
}

// partition makes children partition their parent: CPUs left out get a group of their own.
// Then it drops one-CPU cache-only children where all children are, sorts each node's children
// by their first CPU, and returns the nodes with the number kept.
func partition(nodes []bnode) ([]bnode, int) {
	for n := 0; n < len(nodes); n++ {
		if len(nodes[n].children) == 0 {
			continue
		}
		var in CPUSet
		for _, ch := range nodes[n].children {
			in = in.Union(*nodes[ch].cpus)
		}
		for c := range nodes[n].cpus.Difference(in).All() {
			s := new(CPUSet)
			s.Add(c)
			nodes = append(nodes, bnode{cpus: s, levels: 1 << SMT, parent: n})
			nodes[n].children = append(nodes[n].children, len(nodes)-1)
		}
	}
	for n := range nodes {
		all := len(nodes[n].children) > 0
		for _, ch := range nodes[n].children {
			if nodes[ch].cpus.Count() != 1 || nodes[ch].levels&^droppable != 0 {
				all = false
				break
			}
		}
		if all {
			for _, ch := range nodes[n].children {
				nodes[ch].dropped = true
			}
			nodes[n].children = nil
		}
	}
	nkept := 0
	for n := range nodes {
		if !nodes[n].dropped {
			nkept++
		}
		slices.SortFunc(nodes[n].children, func(a, b int) int {
			fa, _ := nodes[a].cpus.First()
			fb, _ := nodes[b].cpus.First()
			return cmp.Compare(fa, fb)
		})
	}
	return nodes, nkept
}

// layOut makes the Topology's groups of the nkept kept nodes, in depth-first order (a group's
// descendants follow it), with their levels, cache sharing and flags, and links parents and
// children.
func layOut(d *decl, nodes []bnode, nkept, nids int) *Topology {
	t := &Topology{
		cpus:   d.cpus,
		ncpu:   d.cpus.Count(),
		groups: make([]Group, nkept),
		all:    make([]*Group, nkept),
		leaf:   make([]*Group, nids),
		node:   make([]uint16, nids),
		cap:    make([]uint16, nids),
	}
	kids := make([]*Group, nkept-1)
	stack := []int{0}
	next := 0
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		g := &t.groups[next]
		g.id = int32(next)
		t.all[next] = g
		next++
		b := &nodes[n]
		b.group = g
		g.cpus = *b.cpus
		g.levels = b.levels
		g.level, _ = b.levels.Lowest()
		g.count = int32(b.cpus.Count())
		g.first, _ = b.cpus.First()
		g.last, _ = b.cpus.Last()
		if b.parent >= 0 {
			g.parent = nodes[b.parent].group
			g.depth = g.parent.depth + 1
		}
		switch {
		case b.levels.Has(LLC):
			g.share = ShareL3
		case b.levels.Has(Cluster):
			g.share = ShareL2
		case b.levels.Has(SMT):
			g.share = ShareL1
		}
		if b.levels.Has(SMT) && g.count > 1 {
			g.flags |= FlagSMT
		}
		if b.levels.Has(Node) {
			g.flags |= FlagNode
		}
		if k := len(b.children); k > 0 {
			g.children = kids[:k:k]
			kids = kids[k:]
		}
		for i := len(b.children) - 1; i >= 0; i-- {
			stack = append(stack, b.children[i])
		}
	}
	// Children pointers are known once every group has its place.
	for n := range nodes {
		b := &nodes[n]
		if b.dropped {
			continue
		}
		for i, ch := range b.children {
			b.group.children[i] = nodes[ch].group
		}
	}
	return t
}

// index fills in the Topology's lookups: its depth, the groups of each level, each CPU's group
// at each level and its leaf group.
func (t *Topology) index(nids int) {
	for i := range t.groups {
		g := &t.groups[i]
		if int(g.depth) > t.depth && len(g.children) == 0 {
			t.depth = int(g.depth)
		}
		for l := range Level(NumLevels) {
			if !g.levels.Has(l) {
				continue
			}
			t.byLevel[l] = append(t.byLevel[l], g)
			if t.groupOf[l] == nil {
				t.groupOf[l] = make([]*Group, nids)
			}
			for c := range g.cpus.All() {
				t.groupOf[l][c] = g
			}
		}
		if len(g.children) == 0 {
			for c := range g.cpus.All() {
				t.leaf[c] = g
			}
		}
	}
}

// setNodes numbers the NUMA nodes in depth-first order and fills in the
// distance table, checking it as Linux's numa_set_distance and
// sched_init_numa do: LocalDistance on the diagonal, more than that and
// less than 256 elsewhere, and the same both ways.
func (t *Topology) setNodes(d *decl, rep []int, nodes []bnode) error {
	nodeGroups := t.byLevel[Node]
	index := make(map[*Group]int, len(nodeGroups))
	for i, g := range nodeGroups {
		index[g] = i
		for c := range g.cpus.All() {
			t.node[c] = uint16(i)
		}
	}
	t.nnodes = max(len(nodeGroups), 1)
	n := t.nnodes
	t.dist = make([]uint8, n*n)
	for i := range n {
		for j := range n {
			if i == j {
				t.dist[i*n+j] = LocalDistance
			} else {
				t.dist[i*n+j] = RemoteDistance
			}
		}
	}
	if d.dist == nil {
		return nil
	}
	where := d.distWhere
	nd := len(d.levels[Node])
	if nd == 0 {
		if len(d.dist) == 1 && len(d.dist[0]) == 1 && d.dist[0][0] == LocalDistance {
			return nil
		}
		return fmt.Errorf("topology: %s: a distance table needs NUMA nodes, and the machine has none", where)
	}
	if len(d.dist) != nd {
		return fmt.Errorf("topology: %s: distance table has %d rows, want one per node (%d)", where, len(d.dist), nd)
	}
	for i, row := range d.dist {
		if len(row) != nd {
			return fmt.Errorf("topology: %s: distance row %d has %d entries, want %d", where, i, len(row), nd)
		}
	}
	for i := range nd {
		for j := range nd {
			v := d.dist[i][j]
			switch {
			case i == j && v != LocalDistance:
				return fmt.Errorf("topology: %s: distance[%d][%d] = %d, want %d from a node to itself", where, i, j, v, LocalDistance)
			case i != j && (v <= LocalDistance || v > 255):
				return fmt.Errorf("topology: %s: distance[%d][%d] = %d, want %d < distance < 256 between nodes", where, i, j, v, LocalDistance)
			case d.dist[j][i] != v:
				return fmt.Errorf("topology: %s: distance table is not symmetric: distance[%d][%d] = %d but distance[%d][%d] = %d", where, i, j, v, j, i, d.dist[j][i])
			}
			a := index[nodes[rep[i]].group]
			b := index[nodes[rep[j]].group]
			t.dist[a*n+b] = uint8(v)
		}
	}
	return nil
}

// setCapacity fills in per-CPU capacities, CapacityScale by default.
func (t *Topology) setCapacity(d *decl) error {
	for c := range t.cap {
		t.cap[c] = CapacityScale
	}
	first := -1
	for i, v := range d.capacity {
		if v == 0 {
			continue
		}
		c := CPU(i)
		where := c.String()
		if d.capWhere != nil {
			where = d.capWhere(c)
		}
		if !t.cpus.Has(c) {
			return fmt.Errorf("topology: %s: capacity given for %v, which is not a CPU of the machine", where, c)
		}
		if v < 1 || v > CapacityScale {
			return fmt.Errorf("topology: %s: capacity %d of %v out of range 1-%d", where, v, c, CapacityScale)
		}
		t.cap[c] = uint16(v)
	}
	for c := range t.cpus.All() {
		if first < 0 {
			first = int(t.cap[c])
		} else if int(t.cap[c]) != first {
			t.asym = true
		}
	}
	return nil
}
