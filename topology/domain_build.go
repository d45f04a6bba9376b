package topology

// This file implements the building of the scheduling domains: each CPU's chain from its
// sched_domain_topology levels, the degenerate domains removed (sd_degenerate,
// sd_parent_degenerate) and each domain's groups, in a ring or overlapping across NUMA
// distances, as kernel/sched/topology.c builds them.

// tlevel is one entry of the kernel's sched_domain_topology_level table.
type tlevel struct {
	name    string
	flags   DomainFlags // tl->sd_flags()
	overlap bool        // SDTL_OVERLAP
	tree    Level       // for tree levels: the level whose span it takes
	numa    int         // -1, or the index into the distance list
}

// buildDomains builds every CPU's chain as build_sched_domains and
// cpu_attach_domain do. The levels are x86's: SMT, CLS, MC, then PKG
// (cpu_cpu_mask, the CPU's node) unless a package holds several nodes, then
// NODE and one NUMA level per further distinct node distance
// (sched_init_numa).
func (t *Topology) buildDomains(lv *linuxView) {
	nids := len(t.leaf)
	distances := t.distinctDistances()
	tls := []tlevel{
		{name: "SMT", flags: SDShareCPUCapacity | SDShareLLC, tree: SMT, numa: -1},
		{name: "CLS", flags: SDCluster | SDShareLLC, tree: Cluster, numa: -1},
		{name: "MC", flags: SDShareLLC, tree: LLC, numa: -1},
	}
	if !t.numaInPackage() {
		tls = append(tls, tlevel{name: "PKG", tree: Node, numa: 0})
	}
	tls = append(tls, tlevel{name: "NODE", tree: Node, numa: 0})
	for j := 1; j < len(distances); j++ {
		tls = append(tls, tlevel{name: "NUMA", flags: SDNUMA, overlap: true, tree: Machine, numa: j})
	}

	capValues := t.capacityValues()

	shapes := make([]map[int]*domainShape, len(tls))
	for i := range shapes {
		shapes[i] = map[int]*domainShape{}
	}
	// Every chain gets room for every level in one backing array.
	chains := make([][]Domain, nids)
	lv.domains = make([]Domain, 0, t.ncpu*len(tls))
	for c := range t.cpus.All() {
		start := len(lv.domains)
		for k, tl := range tls {
			sh := t.domainShapeOf(c, tl, k, distances, shapes)
			d := Domain{shape: sh, tl: int32(k), level: int32(k), imbalancePct: 117}
			d.flags = SDBalanceNewIdle | SDBalanceExec | SDBalanceFork | SDWakeAffine | SDPreferSibling | tl.flags
			d.flags |= t.asymClassify(sh.span, capValues)
			if d.flags&SDAsymCPUCapacity != 0 && k > 0 {
				lv.domains[len(lv.domains)-1].flags &^= SDPreferSibling
			}
			switch {
			case d.flags&SDShareCPUCapacity != 0:
				d.imbalancePct = 110
			case d.flags&SDShareLLC != 0:
				d.imbalancePct = 117
				d.cacheNiceTries = 1
			case d.flags&SDNUMA != 0:
				d.cacheNiceTries = 2
				d.flags &^= SDPreferSibling
				d.flags |= SDSerialize
				if distances[tl.numa] > reclaimDistance {
					d.flags &^= SDBalanceExec | SDBalanceFork | SDWakeAffine
				}
			default:
				d.cacheNiceTries = 1
			}
			if tl.overlap {
				d.flags |= SDOverlap
			}
			lv.domains = append(lv.domains, d)
			if sh.span == t.cpus {
				break
			}
		}
		chains[c] = lv.domains[start:len(lv.domains):len(lv.domains)]
		for k := 1; k < len(chains[c]); k++ {
			chains[c][k].built = &chains[c][k-1]
		}
	}

	t.buildGroups(chains, tls)
	lv.base = t.attachDomains(chains)
	lv.built = chains
}

// buildGroups builds every domain's ring of groups (build_sched_groups,
// build_overlap_sched_groups) and finds the group holding the domain's own CPU.
func (t *Topology) buildGroups(chains [][]Domain, tls []tlevel) {
	var scratch []SchedGroup
	for c := range t.cpus.All() {
		for k := range chains[c] {
			d := &chains[c][k]
			if tls[d.tl].overlap {
				t.overlapGroups(d, c, chains, &scratch)
			} else {
				t.ringGroups(d, k, chains)
			}
			for i := range d.ring {
				if d.ring[i].cpus.Has(c) {
					d.local = int32(i)
					break
				}
			}
		}
	}

}

// attachDomains links each CPU's chain of domains and removes the degenerate ones as
// cpu_attach_domain does (sd_parent_degenerate, sd_degenerate), returning each CPU's base
// domain.
func (t *Topology) attachDomains(chains [][]Domain) []*Domain {
	base := make([]*Domain, len(t.leaf))
	for c := range t.cpus.All() {
		chain := chains[c]
		for k := range chain {
			if k+1 < len(chain) {
				chain[k].parent = &chain[k+1]
			}
			if k > 0 {
				chain[k].child = &chain[k-1]
			}
		}
		sd := &chain[0]
		for tmp := sd; tmp != nil; {
			parent := tmp.parent
			if parent == nil {
				break
			}
			if sdParentDegenerate(tmp, parent) {
				tmp.parent = parent.parent
				if parent.parent != nil {
					parent.parent.child = tmp
				}
				if parent.flags&SDPreferSibling != 0 {
					tmp.flags |= SDPreferSibling
				}
			} else {
				tmp = tmp.parent
			}
		}
		if sdDegenerate(sd) {
			sd = sd.parent
			if sd != nil {
				sd.child = nil
			}
		}
		base[c] = sd
	}
	return base
}

// capacityValues returns the CPU capacities present on the machine, in order of first CPU
// (asym_cap_list).
func (t *Topology) capacityValues() []int {
	var capValues []int
	for c := range t.cpus.All() {
		v := int(t.cap[c])
		found := false
		for _, w := range capValues {
			if w == v {
				found = true
				break
			}
		}
		if !found {
			capValues = append(capValues, v)
		}
	}
	return capValues
}

// sdDegenerate is sd_degenerate: a domain of one CPU, or one whose flags
// need several groups but that has one, and that is not wake-affine, does
// nothing.
func sdDegenerate(d *Domain) bool {
	if d.shape.weight == 1 {
		return true
	}
	if d.flags&sdDegenerateGroupsMask != 0 && len(d.ring) > 1 {
		return false
	}
	return d.flags&SDWakeAffine == 0
}

// sdParentDegenerate is sd_parent_degenerate: the parent adds nothing when
// it degenerates on its own, or spans the same CPUs and has no flag the
// child lacks (flags needing groups do not count if it has one group).
func sdParentDegenerate(d, parent *Domain) bool {
	if sdDegenerate(parent) {
		return true
	}
	if d.shape.span != parent.shape.span {
		return false
	}
	pflags := parent.flags
	if len(parent.ring) == 1 {
		pflags &^= sdDegenerateGroupsMask
	}
	return ^d.flags&pflags == 0
}

// numaInPackage reports whether some package holds more than one NUMA node
// (x86_has_numa_in_package): x86 then drops the PKG level.
func (t *Topology) numaInPackage() bool {
	for _, g := range t.byLevel[Package] {
		n := 0
		for _, ng := range t.byLevel[Node] {
			if ng.cpus.SubsetOf(g.cpus) {
				n++
			}
		}
		if n > 1 {
			return true
		}
	}
	return false
}

// distinctDistances returns the distinct node distances in ascending order
// (sched_domains_numa_distance); the first is LocalDistance.
func (t *Topology) distinctDistances() []int {
	var seen [256]bool
	for _, v := range t.dist {
		seen[v] = true
	}
	var out []int
	for v, ok := range seen {
		if ok {
			out = append(out, v)
		}
	}
	return out
}

// domainShapeOf returns the shared shape of c's domain at level tl (index
// k), creating it on first use.
func (t *Topology) domainShapeOf(c CPU, tl tlevel, k int, distances []int, shapes []map[int]*domainShape) *domainShape {
	var key int
	var span CPUSet
	switch {
	case tl.numa >= 0:
		// sd_numa_mask / cpu_cpu_mask: the nodes within the distance.
		n := int(t.node[c])
		key = n
		if sh, ok := shapes[k][key]; ok {
			return sh
		}
		for j := range t.nnodes {
			if int(t.dist[n*t.nnodes+j]) <= distances[tl.numa] {
				span = span.Union(t.nodeCPUs(j))
			}
		}
	default:
		// The largest group of c whose lowest level is at most tl.tree.
		var best *Group
		for g := t.leaf[c]; g != nil && g.level <= tl.tree; g = g.parent {
			best = g
		}
		if best == nil {
			key = -1 - int(c)
			if sh, ok := shapes[k][key]; ok {
				return sh
			}
			span.Add(c)
		} else {
			key = int(best.id)
			if sh, ok := shapes[k][key]; ok {
				return sh
			}
			span = best.cpus
		}
	}
	sh := &domainShape{span: span, weight: span.Count(), name: tl.name}
	shapes[k][key] = sh
	return sh
}

// nodeCPUs returns the CPUs of node j (cpumask_of_node).
func (t *Topology) nodeCPUs(j int) CPUSet {
	if len(t.byLevel[Node]) == 0 {
		return t.cpus
	}
	return t.byLevel[Node][j].cpus
}

// asymClassify is asym_cpu_capacity_classify: SDAsymCPUCapacity when span
// holds two or more of the machine's capacity values, with
// SDAsymCPUCapacityFull when it holds all of them.
func (t *Topology) asymClassify(span CPUSet, values []int) DomainFlags {
	if len(values) < 2 {
		return 0
	}
	count := 0
	for _, v := range values {
		for c := range span.All() {
			if int(t.cap[c]) == v {
				count++
				break
			}
		}
	}
	if count < 2 {
		return 0
	}
	if count < len(values) {
		return SDAsymCPUCapacity
	}
	return SDAsymCPUCapacity | SDAsymCPUCapacityFull
}

// group returns the sched group of the given span.
func (t *Topology) group(span CPUSet) SchedGroup {
	g := SchedGroup{cpus: span, weight: span.Count()}
	for c := range span.All() {
		g.capacity += int(t.cap[c])
	}
	return g
}

// ringGroups gives a non-overlapping domain its groups (build_sched_groups):
// the child domains of the span's CPUs, or single CPUs for the lowest
// level. The kernel shares the groups between the CPUs of the span, and each
// CPU's pass rewrites the ring links in for_each_cpu_wrap order from itself;
// the last CPU of the span builds last, so its order is the ring every CPU
// ends up with, entered at its own group.
func (t *Topology) ringGroups(d *Domain, k int, chains [][]Domain) {
	sh := d.shape
	if sh.ring == nil {
		rest := sh.span
		i, ok := rest.Last()
		for ok {
			var span CPUSet
			if k == 0 {
				span.Add(i)
			} else {
				span = chains[i][k-1].shape.span
			}
			sh.ring = append(sh.ring, t.group(span))
			rest = rest.Difference(span)
			i, ok = rest.First()
		}
	}
	d.ring = sh.ring
}

// overlapGroups gives a NUMA domain of c its groups
// (build_overlap_sched_groups): walking the span from c in
// for_each_cpu_wrap order, each CPU not yet covered contributes the child
// span of its own domain at this level (or of a descendant whose child
// fits, find_descended_sibling). The kernel builds these per CPU; equal
// rings are shared here. scratch is reused between calls.
func (t *Topology) overlapGroups(d *Domain, c CPU, chains [][]Domain, scratch *[]SchedGroup) {
	span := d.shape.span
	ring := (*scratch)[:0]
	rem := span // CPUs neither covered nor visited
	for i, ok := c, true; ok; {
		rem.Remove(i)
		if int(d.tl) < len(chains[i]) {
			sib := &chains[i][d.tl]
			if sib.built != nil && !sib.built.shape.span.SubsetOf(span) {
				for sib.built != nil && !sib.built.shape.span.SubsetOf(span) {
					sib = sib.built
				}
				for sib.built != nil && sib.built.shape.span == sib.shape.span {
					sib = sib.built
				}
			}
			gs := &sib.shape.span
			if sib.built != nil {
				gs = &sib.built.shape.span
			}
			ring = append(ring, SchedGroup{cpus: *gs})
			rem = rem.Difference(*gs)
		}
		// Next uncovered CPU after i, wrapping to the lowest.
		if i, ok = rem.After(i); !ok {
			i, ok = rem.First()
		}
	}
	*scratch = ring
	for _, r := range d.shape.rings {
		if sameRing(r, ring) {
			d.ring = r
			return
		}
	}
	kept := make([]SchedGroup, len(ring))
	for k := range ring {
		kept[k] = t.group(ring[k].cpus)
	}
	d.shape.rings = append(d.shape.rings, kept)
	d.ring = kept
}

func sameRing(a, b []SchedGroup) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].cpus != b[i].cpus {
			return false
		}
	}
	return true
}
