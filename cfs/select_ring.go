// This file sets up the rings of group Keys that find_idlest_group's fast form reads for a
// domain of many groups (package groupsums's Index.AddRing).

package cfs

import (
	"github.com/schedkit/schedkit/cfs/internal/groupsums"
	"github.com/schedkit/schedkit/topology"
)

// ringMinGroups is the fewest groups of a domain whose Keys a System keeps in a ring, read in
// O(log n) by a fork instead of group by group (docs/performance.md, 6.4).
const ringMinGroups = 8

// setRings gives every domain of ds that findIdlestGroupSums may read from a ring its ring in
// x: a domain without SD_NUMA or SD_ASYM_CPUCAPACITY of ringMinGroups to groupsums.RingMax
// groups, each of several CPUs, disjoint, the first holding the domain's CPU, whose circle is
// the one of every other domain of the same level and span, started at another group. The
// ring's order is the circle of the first such domain; a domain's ringPos is the position of
// its local group there.
func setRings(ds *Domains, x *groupsums.Index) {
	type key struct {
		level int
		span  topology.CPUSet
	}
	type ringOf struct {
		n      int32
		groups []*BalanceGroup
	}
	rings := map[key]ringOf{}
	for c := range ds.chains {
		for i := range ds.chains[c] {
			d := &ds.chains[c][i]
			if !ringShaped(d) {
				continue
			}
			k := key{d.level, d.span}
			r, ok := rings[k]
			if !ok {
				n := len(d.groups)
				ids, caps, ws := make([]int32, n), make([]uint64, n), make([]uint32, n)
				for j, g := range d.groups {
					ids[j], caps[j], ws[j] = int32(g.id), g.capacity, uint32(len(g.list))
				}
				r = ringOf{int32(x.AddRing(ids, caps, ws, d.imbalancePct())), d.groups}
				rings[k] = r
			}
			if pos, ok := ringRotation(r.groups, d.groups); ok {
				d.ring, d.ringPos = r.n, int32(pos)
			}
		}
	}
}

// ringShaped reports whether domain d's groups may be read from a ring (setRings).
func ringShaped(d *SchedDomain) bool {
	n := len(d.groups)
	if d.flags&(topology.SDNUMA|topology.SDAsymCPUCapacity) != 0 || n < ringMinGroups || n > groupsums.RingMax {
		return false
	}
	if !d.groups[0].cpus.Has(d.cpu) {
		return false
	}
	w := 0
	var seen topology.CPUSet
	for _, g := range d.groups {
		if len(g.list) < 2 || seen.Overlaps(g.cpus) {
			return false
		}
		seen = seen.Union(g.cpus)
		w += len(g.list)
	}
	return w == d.weight
}

// ringRotation returns the position in ring of groups[0] if groups is ring started there.
func ringRotation(ring, groups []*BalanceGroup) (int, bool) {
	if len(ring) != len(groups) {
		return 0, false
	}
	pos := -1
	for i, g := range ring {
		if g == groups[0] {
			pos = i
		}
	}
	if pos < 0 {
		return 0, false
	}
	for i, g := range groups {
		if ring[(pos+i)%len(ring)] != g {
			return 0, false
		}
	}
	return pos, true
}
