// This file implements the Linux view of a topology: per-CPU chains of
// scheduling domains with their flags and groups, built and degenerated the
// way kernel/sched/topology.c does.

package topology

import (
	"iter"
	"strings"
)

// DomainFlags are the SD_* flags of a Linux scheduling domain
// (include/linux/sched/sd_flags.h). The bits are in the kernel's order.
type DomainFlags uint32

// The flags of include/linux/sched/sd_flags.h, in the kernel's bit order.
const (
	SDBalanceNewIdle      DomainFlags = 1 << iota // SD_BALANCE_NEWIDLE: balance when about to go idle
	SDBalanceExec                                 // SD_BALANCE_EXEC: balance on exec
	SDBalanceFork                                 // SD_BALANCE_FORK: balance on fork and clone
	SDBalanceWake                                 // SD_BALANCE_WAKE: balance on wakeup (sd_init leaves it off)
	SDWakeAffine                                  // SD_WAKE_AFFINE: a wakee may move next to its waker
	SDAsymCPUCapacity                             // SD_ASYM_CPUCAPACITY: members differ in capacity
	SDAsymCPUCapacityFull                         // SD_ASYM_CPUCAPACITY_FULL: and every capacity of the machine is present
	SDShareCPUCapacity                            // SD_SHARE_CPUCAPACITY: SMT siblings share a core
	SDCluster                                     // SD_CLUSTER: members share a cluster (L2)
	SDShareLLC                                    // SD_SHARE_LLC (SD_SHARE_PKG_RESOURCES before v6.8): members share the last-level cache
	SDSerialize                                   // SD_SERIALIZE: one balancer at a time
	SDAsymPacking                                 // SD_ASYM_PACKING: pack onto preferred CPUs
	SDPreferSibling                               // SD_PREFER_SIBLING: spread to sibling groups
	SDOverlap                                     // SD_OVERLAP: groups may overlap (NUMA levels)
	SDNUMA                                        // SD_NUMA: the domain crosses NUMA nodes
)

var domainFlagNames = [...]string{
	"SD_BALANCE_NEWIDLE", "SD_BALANCE_EXEC", "SD_BALANCE_FORK", "SD_BALANCE_WAKE",
	"SD_WAKE_AFFINE", "SD_ASYM_CPUCAPACITY", "SD_ASYM_CPUCAPACITY_FULL",
	"SD_SHARE_CPUCAPACITY", "SD_CLUSTER", "SD_SHARE_LLC", "SD_SERIALIZE",
	"SD_ASYM_PACKING", "SD_PREFER_SIBLING", "SD_OVERLAP", "SD_NUMA",
}

// sdDegenerateGroupsMask is SD_DEGENERATE_GROUPS_MASK: the flags with the
// SDF_NEEDS_GROUPS meta-flag, which is every flag but SD_WAKE_AFFINE.
const sdDegenerateGroupsMask = (SDNUMA<<1 - 1) &^ SDWakeAffine

// reclaimDistance is node_reclaim_distance (RECLAIM_DISTANCE): NUMA levels
// farther than this do not balance on exec or fork and are not wake-affine.
const reclaimDistance = 30

// String returns the set flags by their kernel names joined by "|", or "0".
func (f DomainFlags) String() string {
	var names []string
	for i, n := range domainFlagNames {
		if f&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if f>>len(domainFlagNames) != 0 {
		names = append(names, "0x"+strings.ToLower(strings.TrimLeft(uitoa16(uint32(f>>len(domainFlagNames)<<len(domainFlagNames))), "0")))
	}
	if len(names) == 0 {
		return "0"
	}
	return strings.Join(names, "|")
}

func uitoa16(v uint32) string {
	const digits = "0123456789ABCDEF"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// A SchedGroup is one group of a [Domain] (struct sched_group): the span of
// a child domain, or one CPU in the lowest domain. Load balancing at a
// domain compares its groups.
type SchedGroup struct {
	cpus     CPUSet
	weight   int
	capacity int
}

// CPUs returns the CPUs of g (sched_group_span).
func (g *SchedGroup) CPUs() CPUSet { return g.cpus }

// Weight returns the number of CPUs of g (group_weight).
func (g *SchedGroup) Weight() int { return g.weight }

// Capacity returns the sum of the capacities of g's CPUs (sgc->capacity on
// an idle machine, before RT and IRQ pressure are subtracted).
func (g *SchedGroup) Capacity() int { return g.capacity }

// A Domain is one level of one CPU's chain of Linux scheduling domains
// (struct sched_domain): the CPUs load balancing at that level spans, its
// flags and tunables, and its groups. Every CPU has its own chain, from its
// lowest domain ([Topology.Domain], rq->sd) through Parent to the top.
// Domains are immutable and their methods cost O(1) without allocating.
type Domain struct {
	shape  *domainShape
	ring   []SchedGroup
	local  int32
	level  int32
	tl     int32
	flags  DomainFlags
	parent *Domain
	child  *Domain
	// built is the child at build time, before degenerate domains are
	// removed: build_overlap_sched_groups and find_descended_sibling use it.
	built *Domain

	imbalancePct   int32
	cacheNiceTries int32
}

// domainShape is what every CPU's domain at one level with one span shares.
type domainShape struct {
	span   CPUSet
	weight int
	name   string
	ring   []SchedGroup   // non-overlapping levels: the one ring
	rings  [][]SchedGroup // overlapping levels: the distinct per-CPU rings
}

// Name returns the name of the topology level the domain was built from:
// "SMT", "CLS", "MC", "PKG", "NODE" or "NUMA".
func (d *Domain) Name() string { return d.shape.name }

// Level returns sd->level: the position of the domain in its CPU's chain
// when the chain was built, 0 for the lowest, before degenerate domains
// were removed (the kernel does not renumber).
func (d *Domain) Level() int { return int(d.level) }

// Span returns the CPUs of the domain (sched_domain_span).
func (d *Domain) Span() CPUSet { return d.shape.span }

// Weight returns the number of CPUs of the domain (span_weight).
func (d *Domain) Weight() int { return d.shape.weight }

// Flags returns the SD_* flags of the domain.
func (d *Domain) Flags() DomainFlags { return d.flags }

// Parent returns the next domain up the chain, or nil at the top.
func (d *Domain) Parent() *Domain { return d.parent }

// Child returns the next domain down the chain, or nil for the lowest.
func (d *Domain) Child() *Domain { return d.child }

// NumGroups returns the number of groups of the domain.
func (d *Domain) NumGroups() int { return len(d.ring) }

// Group returns the i-th group of the domain in the kernel's ring order
// starting at the local group: Group(0) is sd->groups, the group holding
// the domain's CPU, and Group(i+1) is Group(i)->next. It panics unless
// 0 <= i < NumGroups().
func (d *Domain) Group(i int) *SchedGroup {
	n := len(d.ring)
	if uint(i) >= uint(n) {
		panic("topology: Domain.Group: index out of range")
	}
	j := int(d.local) + i
	if j >= n {
		j -= n
	}
	return &d.ring[j]
}

// Groups returns an iterator over the groups in ring order from the local
// group, the order of the kernel's do { … } while (sg != sd->groups) loops.
// Hot paths can loop over Group(i) for i below NumGroups instead.
func (d *Domain) Groups() iter.Seq[*SchedGroup] {
	ring, local := d.ring, int(d.local)
	return func(yield func(*SchedGroup) bool) {
		for i := range ring {
			j := local + i
			if j >= len(ring) {
				j -= len(ring)
			}
			if !yield(&ring[j]) {
				return
			}
		}
	}
}

// ImbalancePct returns sd->imbalance_pct: 110 for SMT, 117 otherwise.
func (d *Domain) ImbalancePct() int { return int(d.imbalancePct) }

// CacheNiceTries returns sd->cache_nice_tries: 0 for SMT, 1 for cache and
// package levels, 2 for NUMA levels.
func (d *Domain) CacheNiceTries() int { return int(d.cacheNiceTries) }

// BusyFactor returns sd->busy_factor, 16: a busy CPU balances this many
// times less often.
func (d *Domain) BusyFactor() int { return 16 }

// MinInterval returns sd->min_interval in milliseconds: the span weight.
func (d *Domain) MinInterval() int { return d.shape.weight }

// MaxInterval returns sd->max_interval in milliseconds: twice the span
// weight.
func (d *Domain) MaxInterval() int { return 2 * d.shape.weight }

// Domain returns the lowest scheduling domain of c (rq->sd), or nil when
// every domain degenerated, as on a machine of one CPU. It panics if c is
// not a CPU of t. The complexity is O(1).
func (t *Topology) Domain(c CPU) *Domain {
	lv := t.linux
	if lv == nil { // the zero Topology
		panic(notCPU("Domain", c))
	}
	if !lv.ready.Load() {
		t.buildDomainsOnce(lv)
	}
	if int(c) >= len(lv.base) || !t.cpus.Has(c) {
		panic(notCPU("Domain", c))
	}
	return lv.base[c]
}

// buildDomainsOnce builds the Linux view unless another goroutine has.
func (t *Topology) buildDomainsOnce(lv *linuxView) {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	if !lv.ready.Load() {
		t.buildDomains(lv)
		lv.ready.Store(true)
	}
}

// Domains returns an iterator over the domains of c from the lowest up
// (for_each_domain). The loop panics if c is not a CPU of t. Hot paths can
// write it out:
//
//	for d := t.Domain(c); d != nil; d = d.Parent() { … }
func (t *Topology) Domains(c CPU) iter.Seq[*Domain] {
	return func(yield func(*Domain) bool) {
		for d := t.Domain(c); d != nil; d = d.parent {
			if !yield(d) {
				return
			}
		}
	}
}

// BuiltDomains returns an iterator over the domains of c as
// build_sched_domains made them, from the lowest up, before cpu_attach_domain
// removed the degenerate ones: the chain the kernel's build-time
// computations see (imb_numa_nr, for one). Domains that were removed keep
// their span and flags but belong to no chain the balancer walks; use
// [Topology.Domains] for that. The loop panics if c is not a CPU of t.
func (t *Topology) BuiltDomains(c CPU) iter.Seq[*Domain] {
	return func(yield func(*Domain) bool) {
		t.Domain(c) // builds the view, and panics for a CPU that is not t's
		chain := t.linux.built[c]
		for k := range chain {
			if !yield(&chain[k]) {
				return
			}
		}
	}
}

// HighestFlagDomain returns the highest domain of c in the run of domains
// from the lowest up that all have flag (highest_flag_domain), or nil; for
// SDShareLLC it is sd_llc. It panics if c is not a CPU of t.
func (t *Topology) HighestFlagDomain(c CPU, flag DomainFlags) *Domain {
	var hi *Domain
	for d := t.Domain(c); d != nil; d = d.parent {
		if d.flags&flag == 0 {
			break
		}
		hi = d
	}
	return hi
}

// LowestFlagDomain returns the lowest domain of c that has flag
// (lowest_flag_domain), or nil; for SDNUMA it is sd_numa. It panics if c is
// not a CPU of t.
func (t *Topology) LowestFlagDomain(c CPU, flag DomainFlags) *Domain {
	for d := t.Domain(c); d != nil; d = d.parent {
		if d.flags&flag != 0 {
			return d
		}
	}
	return nil
}
