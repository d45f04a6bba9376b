// This file implements Partition: the CPUs divided by a level, for placing one worker per
// core, cache or node.

package topology

// Partition returns the CPUs of t divided by level l, in ascending order of each set's first
// CPU: the CPUs of each group of level l, and for the CPUs that no group of level l holds, what
// the missing level means there:
//   - SMT and Cluster describe sharing inside a core or a cluster of cores, so a CPU without
//     an SMT group is a core by itself, and a CPU without a Cluster group is its own cluster
//     with its SMT siblings (its SMT group, or the CPU alone);
//   - LLC and the levels above describe what larger groups share, so a CPU without an LLC group
//     (a machine described without caches) shares with the CPUs of its nearest enclosing
//     higher-level group that have no LLC group either, as Linux's MC domain falls back to
//     the package's core siblings.
//
// Every CPU of t is in exactly one set, and every set lies inside one group of each level from
// l up.
//
// It is the list a program needs to start one worker per core (SMT), per last-level cache
// (LLC) or per NUMA node and pin each to its CPUs; on a topology from Discover the CPUs are
// those of the process's affinity mask. It panics if l is not a valid Level. The complexity is
// O(NumCPUs × NumLevels); it allocates the result.
func (t *Topology) Partition(l Level) []CPUSet {
	if int(l) >= NumLevels {
		panic("topology: Partition of an invalid level")
	}
	var sets []CPUSet
	var done CPUSet
	cpus := t.CPUs()
	for c := range cpus.All() {
		if done.Has(c) {
			continue
		}
		var set CPUSet
		if g, ok := t.GroupOf(c, l); ok {
			set = g.CPUs()
		} else if l <= Cluster {
			set.Add(c)
			if g, ok := t.GroupOf(c, SMT); ok && l == Cluster {
				set = g.CPUs()
			}
		} else {
			// The nearest higher level with a group holding c; Machine always has one.
			for up := l + 1; int(up) < NumLevels; up++ {
				g, ok := t.GroupOf(c, up)
				if !ok {
					continue
				}
				for d := range g.CPUs().All() {
					if _, has := t.GroupOf(d, l); !has {
						set.Add(d)
					}
				}
				break
			}
		}
		done = done.Union(set)
		sets = append(sets, set)
	}
	return sets
}
