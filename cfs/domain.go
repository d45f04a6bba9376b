// This file implements Domains, the load balancer's view of a topology: every CPU's chain of
// sched domains with their groups, balance masks, intervals and imb_numa_nr, the LLC of each
// CPU (sd_llc, sd_llc_size, sd_llc_id), and the group-construction switch of the Wasted Cores
// bug.

package cfs

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/cfs/internal/idlescan"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// A BalanceGroup is one sched group as load balancing uses it: struct sched_group with its
// shared struct sched_group_capacity. Groups are shared between the domains of the CPUs that
// see the same group, as the kernel shares them, and each has a dense ID so that callers can
// keep per-group state (sgc->imbalance) in a slice.
type BalanceGroup struct {
	// id is the group's index in Domains.groups ([BalanceGroup.ID]).
	id   int
	cpus topology.CPUSet
	// list is the group's CPUs in ascending order.
	list []topology.CPU
	// capacity is the sum of the capacities of the group's CPUs (sgc->capacity).
	capacity uint64
	minCap   uint64
	maxCap   uint64
	// flags are the flags of the child domain the group stands for (sg->flags), 0 for a group of one
	// CPU.
	flags   topology.DomainFlags
	balance topology.CPUSet
	first   topology.CPU

	balanceList []topology.CPU
}

// ID returns the group's index in [Domains.Groups].
func (g *BalanceGroup) ID() int { return g.id }

// CPUs returns the group's CPUs (sched_group_span).
func (g *BalanceGroup) CPUs() topology.CPUSet { return g.cpus }

// weight returns the number of CPUs of the group (group_weight).
func (g *BalanceGroup) weight() int { return len(g.list) }

// balanceMask returns the CPUs that may balance on behalf of the group (group_balance_mask):
// the group's CPUs, or for an overlapping NUMA group those whose own domain at this level has
// the group as its local group.
func (g *BalanceGroup) balanceMask() topology.CPUSet { return g.balance }

// String returns the group's CPUs in cpulist form in braces, such as "{0-3}".
func (g *BalanceGroup) String() string {
	if g == nil {
		return "{}"
	}
	return "{" + g.cpus.String() + "}"
}

// A SchedDomain is one level of one CPU's chain of sched domains as the balancer uses it
// (struct sched_domain): the domain of package topology with the groups actually used for
// balancing (which differ from topology's with [smp.GroupsFirstCPU]), imb_numa_nr and an index for
// per-domain state.
type SchedDomain struct {
	td *topology.Domain
	// cpu is the CPU whose chain the domain belongs to.
	cpu  topology.CPU
	span topology.CPUSet
	// weight is the number of CPUs of the domain (span_weight).
	weight int
	flags  topology.DomainFlags
	groups []*BalanceGroup
	// imbNumaNr is sd->imb_numa_nr, the number of tasks a lightly loaded NUMA domain may be out of
	// balance by (adjust_numa_imbalance).
	imbNumaNr int
	idx       int
	level     int
	list      []topology.CPU // the span in ascending order, for LLC domains only
	scan      *idlescan.Span // the span as the idle scan reads it, for LLC domains only
	spanBits  []uint64       // the span as a bitmap by CPU id, for flat domains only
	parent    *SchedDomain
	child     *SchedDomain
	// flat marks a domain whose groups are single CPUs in the ring order of the span's CPUs
	// ascending from the domain's CPU, all of one capacity (a level without
	// SD_ASYM_CPUCAPACITY), none of them with SD_PREFER_SIBLING, and none the local group of
	// some domain's parent (so that load_balance never sets its sgc->imbalance): the shape the
	// System balances without visiting every group ([System.findBusiestGroup]). cpuGroup then
	// holds the group of each CPU of the span, indexed by CPU id, and spanBits the span.
	flat     bool
	cpuGroup []*BalanceGroup
	llc      bool // the domain is its CPU's sd_llc
	// ring is the number of a System's ring of the domain's groups' Keys (package groupsums),
	// 0 for none, and ringPos the local group's position in it (select_ring.go).
	ring, ringPos int32
}

// Name returns the level name: "SMT", "CLS", "MC", "PKG", "NODE" or "NUMA".
func (d *SchedDomain) Name() string { return d.td.Name() }

// Span returns the domain's CPUs (sched_domain_span).
func (d *SchedDomain) Span() topology.CPUSet { return d.span }

// Flags returns the domain's SD_* flags.
func (d *SchedDomain) Flags() topology.DomainFlags { return d.flags }

// NumGroups returns the number of groups of the domain.
func (d *SchedDomain) NumGroups() int { return len(d.groups) }

// Group returns the i-th group in ring order; Group(0) is sd->groups, the local group. It panics
// unless 0 <= i < NumGroups().
func (d *SchedDomain) Group(i int) *BalanceGroup { return d.groups[i] }

// imbalancePct returns sd->imbalance_pct: 110 at SMT levels, 117 elsewhere.
func (d *SchedDomain) imbalancePct() uint64 { return uint64(d.td.ImbalancePct()) }

// cacheNiceTries returns sd->cache_nice_tries.
func (d *SchedDomain) cacheNiceTries() int { return d.td.CacheNiceTries() }

// busyFactor returns sd->busy_factor, 16.
func (d *SchedDomain) busyFactor() int { return d.td.BusyFactor() }

// minInterval returns sd->min_interval in milliseconds (the span weight), also the initial
// balance_interval.
func (d *SchedDomain) minInterval() int { return d.td.MinInterval() }

// maxInterval returns sd->max_interval in milliseconds (twice the span weight).
func (d *SchedDomain) maxInterval() int { return d.td.MaxInterval() }

// Parent returns the next domain up, or nil at the top.
func (d *SchedDomain) Parent() *SchedDomain { return d.parent }

// String returns the domain's name, span and groups, such as "MC{0-5} groups {0-1} {2-3} {4-5}".
func (d *SchedDomain) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s{%s} groups", d.Name(), d.span)
	for _, g := range d.groups {
		b.WriteString(" ")
		b.WriteString(g.String())
	}
	return b.String()
}

// Domains is the load balancer's view of a topology: for every CPU its chain of [SchedDomain]s
// (rq->sd and its parents, after the degenerate levels are removed as package topology removes
// them) with their [BalanceGroup]s, and each CPU's last-level-cache domain (sd_llc). Domains is
// immutable after [NewDomains] and safe for concurrent use; its queries cost O(1) and do not
// allocate.
type Domains struct {
	topo   *topology.Topology
	mode   smp.GroupConstruction
	chains [][]SchedDomain
	// groups is every distinct group, indexed by BalanceGroup.id.
	groups []*BalanceGroup
	// llc is each CPU's last-level-cache domain (sd_llc), or nil.
	llc []*SchedDomain
	// llcID is the first CPU of each CPU's last-level cache (sd_llc_id), or the CPU itself without
	// one.
	llcID []topology.CPU
	// smt is the SMT siblings of each CPU including itself (cpu_smt_mask) in ascending order.
	smt [][]topology.CPU
	// smtOthers is, for each CPU, its SMT siblings other than itself as bits of its own word of
	// the bitmap (for select_idle_smt's fast form), or nil when some CPU has a sibling in
	// another word.
	smtOthers []uint64
	asymCap   []*SchedDomain
	maxCap    uint64
	smtOn     bool
	ndom      int
}

// NewDomains builds the balancer's view of t with the given group construction. With
// [smp.GroupsPerCPU] the groups are topology's (each CPU's own perspective); with [smp.GroupsFirstCPU]
// every NUMA domain whose span equals that of the same level of the first CPU of the span uses
// that CPU's groups, as kernels before v4.13 did for the machine-wide NUMA level. NewDomains
// panics if mode is unknown. The cost is O(CPUs × levels × groups) time and memory.
func NewDomains(t *topology.Topology, mode smp.GroupConstruction) *Domains {
	if mode > smp.GroupsFirstCPU {
		panic(fmt.Sprintf("cfs: NewDomains: unknown group construction %d", mode))
	}
	n := t.NumIDs()
	ds := &Domains{
		topo:    t,
		mode:    mode,
		chains:  make([][]SchedDomain, n),
		llc:     make([]*SchedDomain, n),
		llcID:   make([]topology.CPU, n),
		smt:     make([][]topology.CPU, n),
		asymCap: make([]*SchedDomain, n),
	}
	type gkey struct {
		level int
		span  topology.CPUSet
	}
	byKey := map[gkey]*BalanceGroup{}
	groupOf := func(td *topology.Domain, span topology.CPUSet) *BalanceGroup {
		k := gkey{td.Level(), span}
		if g, ok := byKey[k]; ok {
			return g
		}
		g := ds.newGroup(td, span)
		byKey[k] = g
		return g
	}
	for c := range t.CPUs().All() {
		ds.maxCap = max(ds.maxCap, uint64(t.Capacity(c)))
		sib := t.Siblings(c)
		for s := range sib.All() {
			ds.smt[c] = append(ds.smt[c], s)
		}
		if len(ds.smt[c]) > 1 {
			ds.smtOn = true
		}
		var chain []SchedDomain
		for td := range t.Domains(c) {
			chain = append(chain, SchedDomain{td: td, cpu: c, span: td.Span(), weight: td.Weight(), flags: td.Flags(), level: len(chain)})
		}
		for k := range chain {
			d := &chain[k]
			d.idx = ds.ndom
			ds.ndom++
			if k > 0 {
				d.child = &chain[k-1]
			}
			if k+1 < len(chain) {
				d.parent = &chain[k+1]
			}
			d.groups = make([]*BalanceGroup, 0, d.td.NumGroups())
			for g := range d.td.Groups() {
				d.groups = append(d.groups, groupOf(d.td, g.CPUs()))
			}
		}
		setImbNumaNr(t, c, chain)
		ds.chains[c] = chain
	}
	if mode == smp.GroupsFirstCPU {
		ds.shareFirstCPUGroups()
	}
	ds.markFlat()
	ds.setLLCs()
	ds.setSMTWords()
	return ds
}

// newGroup adds and returns the sched group of domain level td spanning span: its CPUs, their
// capacities, its flags and its balance mask.
func (ds *Domains) newGroup(td *topology.Domain, span topology.CPUSet) *BalanceGroup {
	t := ds.topo
	g := &BalanceGroup{id: len(ds.groups), cpus: span}
	for c := range span.All() {
		g.list = append(g.list, c)
		cp := uint64(t.Capacity(c))
		g.capacity += cp
		if g.minCap == 0 || cp < g.minCap {
			g.minCap = cp
		}
		g.maxCap = max(g.maxCap, cp)
	}
	g.first = g.list[0]
	g.flags = childFlags(t, g.first, span)
	g.balance = balanceMask(t, td, span)
	for c := range g.balance.All() {
		g.balanceList = append(g.balanceList, c)
	}
	ds.groups = append(ds.groups, g)
	return g
}

// shareFirstCPUGroups gives every NUMA domain the groups its span's first CPU built
// ([smp.GroupsFirstCPU]).
func (ds *Domains) shareFirstCPUGroups() {
	for c := range ds.topo.CPUs().All() {
		for k := range ds.chains[c] {
			d := &ds.chains[c][k]
			if d.flags&topology.SDNUMA == 0 {
				continue
			}
			f, _ := d.span.First()
			if f == c {
				continue
			}
			for j := range ds.chains[f] {
				if fd := &ds.chains[f][j]; fd.td.Level() == d.td.Level() && fd.span == d.span {
					d.groups = fd.groups
				}
			}
		}
	}
}

// setLLCs is update_top_cache_domain's part of the model: each CPU's sd_llc (the highest domain
// sharing its last-level cache, with its CPUs as a list and as mask words for the idle scan),
// sd_llc_id (the first CPU of that domain's span) and sd_asym_cpucapacity.
func (ds *Domains) setLLCs() {
	t := ds.topo
	llcLists := map[topology.CPUSet][]topology.CPU{}
	llcScans := map[topology.CPUSet]*idlescan.Span{}
	for c := range t.CPUs().All() {
		ds.llcID[c] = c
		if hi := t.HighestFlagDomain(c, topology.SDShareLLC); hi != nil {
			d := ds.find(c, hi)
			ds.llc[c] = d
			d.llc = true
			span := hi.Span()
			ds.llcID[c], _ = span.First()
			l, ok := llcLists[d.span]
			if !ok {
				for x := range d.span.All() {
					l = append(l, x)
				}
				llcLists[d.span] = l
				llcScans[d.span] = idlescan.NewSpan(d.span)
			}
			d.list, d.scan = l, llcScans[d.span]
		}
		if lo := t.LowestFlagDomain(c, topology.SDAsymCPUCapacityFull); lo != nil {
			ds.asymCap[c] = ds.find(c, lo)
		}
	}
}

// setSMTWords sets smtOthers when every CPU's SMT siblings lie in its own word of the bitmap,
// as they do on machines that number siblings consecutively.
func (ds *Domains) setSMTWords() {
	others := make([]uint64, len(ds.smt))
	for c, sib := range ds.smt {
		for _, x := range sib {
			if x>>6 != topology.CPU(c>>6) {
				return
			}
			if int(x) != c {
				others[c] |= 1 << (x & 63)
			}
		}
	}
	ds.smtOthers = others
}

// markFlat sets flat and cpuGroup on every domain of the flat shape (see [SchedDomain]): its
// groups are single CPUs, met in the ring in ascending order of CPU from the domain's own,
// wrapping round, with no SD_PREFER_SIBLING, on a level without SD_ASYM_CPUCAPACITY (so all
// of one capacity, which it checks), and
// none of them is the local group of a domain's parent, the only group whose sgc->imbalance
// load_balance sets or clears.
func (ds *Domains) markFlat() {
	flagged := make([]bool, len(ds.groups))
	for c := range ds.chains {
		for k := range ds.chains[c] {
			if p := ds.chains[c][k].parent; p != nil {
				flagged[p.groups[0].id] = true
			}
		}
	}
	byLevel := map[int][]*BalanceGroup{}
	bySpan := map[topology.CPUSet][]uint64{}
	for c := range ds.chains {
		for k := range ds.chains[c] {
			d := &ds.chains[c][k]
			if d.flags&topology.SDAsymCPUCapacity != 0 || len(d.groups) != d.weight {
				continue
			}
			ring := make([]topology.CPU, 0, d.weight)
			for x := range d.span.All() {
				if x >= d.cpu {
					ring = append(ring, x)
				}
			}
			for x := range d.span.All() {
				if x < d.cpu {
					ring = append(ring, x)
				}
			}
			flat := true
			for i, g := range d.groups {
				if len(g.list) != 1 || g.list[0] != ring[i] || flagged[g.id] || g.flags&topology.SDPreferSibling != 0 ||
					g.capacity != d.groups[0].capacity {
					flat = false
					break
				}
			}
			if !flat {
				continue
			}
			lv := d.td.Level()
			byCPU, ok := byLevel[lv]
			if !ok {
				byCPU = make([]*BalanceGroup, len(ds.chains))
				byLevel[lv] = byCPU
			}
			for _, g := range d.groups {
				byCPU[g.first] = g // groups are shared by level and span: one per CPU here
			}
			bits, ok := bySpan[d.span]
			if !ok {
				bits = make([]uint64, (len(ds.chains)+63)/64)
				for _, g := range d.groups {
					bits[g.first>>6] |= 1 << (g.first & 63)
				}
				bySpan[d.span] = bits
			}
			d.flat, d.cpuGroup, d.spanBits = true, byCPU, bits
		}
	}
}

// find returns c's SchedDomain standing for td.
func (ds *Domains) find(c topology.CPU, td *topology.Domain) *SchedDomain {
	for k := range ds.chains[c] {
		if ds.chains[c][k].td == td {
			return &ds.chains[c][k]
		}
	}
	return nil
}

// childFlags returns the flags of the domain of CPU first whose span is span (sg->flags, the
// child domain's flags), or 0 if that domain was removed as degenerate, as cpu_attach_domain
// clears the flags of the groups whose child it destroys.
func childFlags(t *topology.Topology, first topology.CPU, span topology.CPUSet) topology.DomainFlags {
	for d := range t.Domains(first) {
		if d.Span() == span {
			return d.Flags()
		}
	}
	return 0
}

// balanceMask is build_balance_mask: for a group of a non-overlapping domain its span; for an
// overlapping (NUMA) one the CPUs of the span whose own domain at the same level has a child
// spanning exactly the group, or the span if there is none.
func balanceMask(t *topology.Topology, td *topology.Domain, span topology.CPUSet) topology.CPUSet {
	if td.Flags()&topology.SDOverlap == 0 {
		return span
	}
	var mask topology.CPUSet
	for i := range span.All() {
		for sib := range t.Domains(i) {
			if sib.Level() != td.Level() {
				continue
			}
			if ch := sib.Child(); ch != nil && ch.Span() == span {
				mask.Add(i)
			}
			break
		}
	}
	if mask.IsEmpty() {
		return span
	}
	return mask
}

// setImbNumaNr sets imb_numa_nr along CPU c's chain as build_sched_domains does, on the chain
// as built, before degenerate domains are removed (cpu_attach_domain comes later): at the
// first level above the LLC, the number of LLCs it holds (or 1/8 of its CPUs when it holds
// one), and at the levels above, that number times how many times their span exceeds the first
// NUMA domain's. On a machine with one LLC per node, the first level above the LLC is the
// package or node level, which then degenerates: its span is the LLC's, so imb is 1/8 of it.
func setImbNumaNr(t *topology.Topology, c topology.CPU, chain []SchedDomain) {
	var built []*topology.Domain
	for d := range t.BuiltDomains(c) {
		built = append(built, d)
	}
	imbOf := make(map[*topology.Domain]int, len(built))
	imb, imbSpan := 0, 1
	for k, d := range built {
		if k > 0 && d.Flags()&topology.SDShareLLC == 0 && built[k-1].Flags()&topology.SDShareLLC != 0 {
			if nrLLCs := d.Weight() / built[k-1].Weight(); nrLLCs == 1 {
				imb = d.Weight() >> 3
			} else {
				imb = nrLLCs
			}
			imb = max(1, imb)
			imbOf[d] = imb
			imbSpan = d.Weight()
			for _, top := range built[k+1:] {
				if top.Flags()&topology.SDNUMA != 0 {
					imbSpan = top.Weight()
					break
				}
			}
		} else {
			imbOf[d] = imb * max(1, d.Weight()/imbSpan)
		}
	}
	for k := range chain {
		chain[k].imbNumaNr = imbOf[chain[k].td]
	}
}

// Groups returns every distinct group, indexed by [BalanceGroup.ID]. The slice belongs to ds.
func (ds *Domains) Groups() []*BalanceGroup { return ds.groups }

// Base returns the lowest domain of CPU c (rq->sd), or nil if c has none (a machine of one CPU).
// It panics if c is not a CPU of the topology.
func (ds *Domains) Base(c topology.CPU) *SchedDomain {
	ch := ds.chains[c]
	if len(ch) == 0 {
		if !ds.topo.Has(c) {
			panic(fmt.Sprintf("cfs: Domains.Base: %v is not a CPU of the topology", c))
		}
		return nil
	}
	return &ch[0]
}

// Chain returns CPU c's domains from the lowest up. The slice belongs to ds and must not be
// modified.
func (ds *Domains) Chain(c topology.CPU) []SchedDomain { return ds.chains[c] }

// groupsOf returns, by CPU id, the ids of the groups of several CPUs that hold the CPU: the
// groups whose sums package groupsums keeps.
func (ds *Domains) groupsOf() [][]int32 {
	of := make([][]int32, ds.topo.NumIDs())
	for _, g := range ds.groups {
		if len(g.list) > 1 {
			for _, c := range g.list {
				of[c] = append(of[c], int32(g.id))
			}
		}
	}
	return of
}

// numDomains returns the number of domains of all CPUs, the bound of [SchedDomain.index].
func (ds *Domains) numDomains() int { return ds.ndom }

// llcSize returns the number of CPUs sharing c's last-level cache (sd_llc_size), 1 without one.
func (ds *Domains) llcSize(c topology.CPU) int {
	if d := ds.llc[c]; d != nil {
		return d.weight
	}
	return 1
}

// llcid returns the first CPU of c's last-level cache (sd_llc_id), or c itself without one.
func (ds *Domains) llcid(c topology.CPU) topology.CPU { return ds.llcID[c] }

// shareCache reports whether a and b share a last-level cache (cpus_share_cache).
func (ds *Domains) shareCache(a, b topology.CPU) bool { return ds.llcID[a] == ds.llcID[b] }

// smtActive reports whether some core has more than one thread (sched_smt_active).
func (ds *Domains) smtActive() bool { return ds.smtOn }

// asymCapacity returns c's lowest domain holding every capacity of the machine
// (sd_asym_cpucapacity), or nil on a machine whose CPUs are all alike.
func (ds *Domains) asymCapacity(c topology.CPU) *SchedDomain { return ds.asymCap[c] }

// maxCapacity returns the largest CPU capacity of the machine (rd->max_cpu_capacity).
func (ds *Domains) maxCapacity() uint64 { return ds.maxCap }
