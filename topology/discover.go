// This file implements host discovery from a Linux sysfs tree.

package topology

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// ErrNotSupported is returned by [Discover] on systems other than Linux.
var ErrNotSupported = errors.New("topology: host discovery is only supported on Linux (use DiscoverFS with a sysfs tree, or Parse)")

// DiscoverFS reads a machine's topology from a Linux sysfs tree: fsys is the
// directory that holds devices/ (os.DirFS("/sys") on a live system, or a
// copy under testdata). Only CPUs that are online and in allowed are kept,
// as [Discover] keeps those of the process's affinity mask; pass
// CPURange(0, MaxCPUs-1) to keep every online CPU.
//
// It reads devices/system/cpu/online and, for each CPU N kept,
// cpuN/topology/core_cpus_list (or thread_siblings_list on kernels before
// 5.7) and cpuN/topology/package_cpus_list (or core_siblings_list), which
// are required; and cpuN/topology/cluster_cpus_list, cpuN/cpu_capacity,
// the level and shared_cpu_list of every cpuN/cache/index* directory (the
// highest level is the last-level cache), and
// devices/system/node/node*/{cpulist,distance}, which are optional: a
// machine without them has no cluster level, equal capacities, no LLC level
// or a single NUMA node. As Linux does, a cache or core reported across two
// NUMA nodes is split at the node boundary, and when a NUMA node holds CPUs
// of two packages (a virtual machine with one node and two sockets) the
// package level is left out. Nodes without CPUs (memory-only nodes) are
// skipped with their distances.
//
// A missing required file, an unreadable list, a CPU id out of range, a
// group that overlaps another or is not nested in its parent, a CPU missing
// from its own sibling list or a malformed distance table is an error that
// names the file.
func DiscoverFS(fsys fs.FS, allowed CPUSet) (*Topology, error) {
	r := sysfsReader{fsys: fsys}
	online, err := r.list("devices/system/cpu/online", true)
	if err != nil {
		return nil, err
	}
	cpus := online.Intersect(allowed)
	if cpus.IsEmpty() {
		return nil, fmt.Errorf("topology: no online CPU {%s} is in the allowed set {%s}", online, allowed)
	}

	d := &decl{cpus: cpus}
	if err := r.nodes(d); err != nil {
		return nil, err
	}
	var inNode CPUSet
	for _, g := range d.levels[Node] {
		inNode = inNode.Union(g.cpus)
	}
	if len(d.levels[Node]) > 0 && inNode != cpus {
		missing := cpus.Difference(inNode)
		c, _ := missing.First()
		return nil, fmt.Errorf("topology: %v is in no NUMA node (devices/system/node/node*/cpulist)", c)
	}
	nodeOf := func(c CPU) CPUSet {
		for _, g := range d.levels[Node] {
			if g.cpus.Has(c) {
				return g.cpus
			}
		}
		return cpus
	}

	var pkg []declGroup
	for c := range cpus.All() {
		if err := r.cpu(d, c, nodeOf(c), &pkg); err != nil {
			return nil, err
		}
	}
	// Leave packages out when a node is not inside one of them.
	spans := false
	for _, n := range d.levels[Node] {
		inside := false
		for _, p := range pkg {
			if n.cpus.SubsetOf(p.cpus) {
				inside = true
				break
			}
		}
		spans = spans || !inside
	}
	if !spans {
		d.levels[Package] = pkg
	}
	return build(d)
}

// cpu reads CPU c's groups into d (its core, cluster and last-level cache, within node, the
// CPUs of its NUMA node) and pkg (its package), and its capacity.
func (r *sysfsReader) cpu(d *decl, c CPU, node CPUSet, pkg *[]declGroup) error {
	cpus := d.cpus
	dir := fmt.Sprintf("devices/system/cpu/cpu%d/", c)
	core, where, err := r.firstList(c, dir+"topology/core_cpus_list", dir+"topology/thread_siblings_list")
	if err != nil {
		return err
	}
	addGroup(&d.levels[SMT], core.Intersect(node), where)
	p, where, err := r.firstList(c, dir+"topology/package_cpus_list", dir+"topology/core_siblings_list")
	if err != nil {
		return err
	}
	addGroup(pkg, p.Intersect(cpus), where)
	cl, ok, err := r.optList(dir + "topology/cluster_cpus_list")
	if err != nil {
		return err
	}
	if ok {
		addGroup(&d.levels[Cluster], cl.Intersect(cpus).Intersect(node), dir+"topology/cluster_cpus_list")
	}
	llc, where, err := r.llc(c, dir+"cache")
	if err != nil {
		return err
	}
	if where != "" {
		addGroup(&d.levels[LLC], llc.Intersect(cpus).Intersect(node), where)
	}
	return r.capacity(d, c, dir+"cpu_capacity")
}

// addGroup adds set to groups unless an equal group is there already.
func addGroup(groups *[]declGroup, set CPUSet, where string) {
	for _, g := range *groups {
		if g.cpus == set {
			return
		}
	}
	*groups = append(*groups, declGroup{cpus: set, where: where})
}

// sysfsReader reads sysfs files from fsys.
type sysfsReader struct {
	fsys fs.FS
}

// read returns the content of name, or false if it does not exist.
func (r *sysfsReader) read(name string, required bool) (string, bool, error) {
	b, err := fs.ReadFile(r.fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !required {
			return "", false, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, fmt.Errorf("topology: %s: missing required file", name)
		}
		return "", false, fmt.Errorf("topology: %s: %w", name, err)
	}
	return string(b), true, nil
}

func (r *sysfsReader) list(name string, required bool) (CPUSet, error) {
	s, _, err := r.read(name, required)
	if err != nil {
		return CPUSet{}, err
	}
	set, err := ParseCPUList(s)
	if err != nil {
		return CPUSet{}, fmt.Errorf("topology: %s: %s", name, strings.TrimPrefix(err.Error(), "topology: "))
	}
	return set, nil
}

func (r *sysfsReader) optList(name string) (CPUSet, bool, error) {
	s, ok, err := r.read(name, false)
	if !ok || err != nil {
		return CPUSet{}, false, err
	}
	set, err := ParseCPUList(s)
	if err != nil {
		return CPUSet{}, false, fmt.Errorf("topology: %s: %s", name, strings.TrimPrefix(err.Error(), "topology: "))
	}
	return set, true, nil
}

// firstList reads the first of names that exists; it must hold c.
func (r *sysfsReader) firstList(c CPU, names ...string) (CPUSet, string, error) {
	for _, name := range names {
		set, ok, err := r.optList(name)
		if err != nil {
			return CPUSet{}, "", err
		}
		if !ok {
			continue
		}
		if !set.Has(c) {
			return CPUSet{}, "", fmt.Errorf("topology: %s: {%s} does not hold %v itself", name, set, c)
		}
		return set, name, nil
	}
	return CPUSet{}, "", fmt.Errorf("topology: %s: missing required file", names[0])
}

// llc returns the shared_cpu_list of c's highest-level cache, or "" as the
// file when c has no cache directory.
func (r *sysfsReader) llc(c CPU, dir string) (CPUSet, string, error) {
	entries, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return CPUSet{}, "", nil
		}
		return CPUSet{}, "", fmt.Errorf("topology: %s: %w", dir, err)
	}
	best, bestLevel, bestName := CPUSet{}, -1, ""
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		base := dir + "/" + e.Name() + "/"
		s, _, err := r.read(base+"level", true)
		if err != nil {
			return CPUSet{}, "", err
		}
		level, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || level < 1 {
			return CPUSet{}, "", fmt.Errorf("topology: %slevel: bad cache level %q", base, strings.TrimSpace(s))
		}
		shared, err := r.list(base+"shared_cpu_list", true)
		if err != nil {
			return CPUSet{}, "", err
		}
		if !shared.Has(c) {
			return CPUSet{}, "", fmt.Errorf("topology: %sshared_cpu_list: {%s} does not hold %v itself", base, shared, c)
		}
		if level > bestLevel {
			best, bestLevel, bestName = shared, level, base+"shared_cpu_list"
		}
	}
	return best, bestName, nil
}

// capacity reads c's optional cpu_capacity.
func (r *sysfsReader) capacity(d *decl, c CPU, name string) error {
	s, ok, err := r.read(name, false)
	if !ok || err != nil {
		return err
	}
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("topology: %s: bad capacity %q", name, strings.TrimSpace(s))
	}
	if v < 1 || v > CapacityScale {
		return fmt.Errorf("topology: %s: capacity %d out of range 1-%d", name, v, CapacityScale)
	}
	if d.capacity == nil {
		last, _ := d.cpus.Last()
		d.capacity = make([]int, int(last)+1)
	}
	d.capacity[c] = v
	return nil
}

// nodes reads the NUMA nodes and their distances.
func (r *sysfsReader) nodes(d *decl) error {
	const dir = "devices/system/node"
	entries, err := fs.ReadDir(r.fsys, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("topology: %s: %w", dir, err)
	}
	var ids []int
	for _, e := range entries {
		n, ok := strings.CutPrefix(e.Name(), "node")
		if !ok || !e.IsDir() {
			continue
		}
		id, err := strconv.Atoi(n)
		if err != nil || id < 0 {
			continue
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var rows [][]int
	var keep []int
	for i, id := range ids {
		base := fmt.Sprintf("%s/node%d/", dir, id)
		set, err := r.list(base+"cpulist", true)
		if err != nil {
			return err
		}
		s, _, err := r.read(base+"distance", true)
		if err != nil {
			return err
		}
		fields := strings.Fields(s)
		if len(fields) != len(ids) {
			return fmt.Errorf("topology: %sdistance: %d entries, want one per node (%d)", base, len(fields), len(ids))
		}
		row := make([]int, len(fields))
		for j, f := range fields {
			if row[j], err = strconv.Atoi(f); err != nil {
				return fmt.Errorf("topology: %sdistance: entry %d: bad distance %q", base, j, f)
			}
		}
		rows = append(rows, row)
		set = set.Intersect(d.cpus)
		if set.IsEmpty() {
			continue
		}
		keep = append(keep, i)
		d.levels[Node] = append(d.levels[Node], declGroup{cpus: set, where: base + "cpulist"})
	}
	if len(keep) > 0 {
		d.dist = make([][]int, len(keep))
		for i, a := range keep {
			d.dist[i] = make([]int, len(keep))
			for j, b := range keep {
				d.dist[i][j] = rows[a][b]
			}
		}
		d.distWhere = dir + "/node*/distance"
	}
	return nil
}
