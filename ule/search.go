// This file implements ULE's two searches of the CPU topology, cpu_search_lowest and
// cpu_search_highest, and their entry points sched_lowest and sched_highest.

package ule

import (
	"math"
	"slices"

	"github.com/schedkit/schedkit/topology"
)

// A cpuSearch is struct cpu_search: what a search looks for, and the searching CPU's
// sched_random. cpu_search_lowest reads cs_mask, cs_prefer, cs_running, cs_pri and cs_load (a
// maximum); cpu_search_highest reads cs_mask, cs_load (a minimum) and cs_trans.
type cpuSearch struct {
	mask    *topology.CPUSet // cs_mask: the CPUs that may be chosen
	prefer  int32            // cs_prefer: the CPU favoured by 128, the thread's own
	running bool             // cs_running: the thread runs on cs_prefer (balancing)
	pri     int32            // cs_pri: choose only CPUs whose tdq_lowpri is worse (greater)
	load    int32            // cs_load: the greatest (lowest) or least (highest) load to choose
	trans   int32            // cs_trans: the fewest transferable threads to choose (highest)
	rnd     *Rand
}

// A cpuSearchRes is struct cpu_search_res: the CPU found (-1 for none) and its load as compared
// (256 per thread, less its random draw).
type cpuSearchRes struct {
	cpu  int32 // csr_cpu
	load int32 // csr_load
}

// cpuSearchLowest is cpu_search_lowest: it searches group cg for the least loaded CPU cs
// accepts, into r, and returns cg's total load, by the rules Lowest states.
func (s *System) cpuSearchLowest(cg *topology.Group, cs *cpuSearch, r *cpuSearchRes) int32 {
	var lr cpuSearchRes
	total, bload := int32(0), int32(math.MaxInt32)
	r.cpu = -1

	// Loop through the children groups if there are any.
	if kids := cg.Children(); len(kids) > 0 {
		for c := len(kids) - 1; c >= 0; c-- {
			load := s.cpuSearchLowest(kids[c], cs, &lr)
			total += load
			// When balancing do not prefer SMT groups with load > 1: equally loaded SMT groups
			// then take turns.
			if cs.running && kids[c].Flags()&topology.FlagThread != 0 && load >= 128 && load&128 != 0 {
				load += 128
			}
			if lr.cpu >= 0 && (load < bload || (load == bload && lr.load < r.load)) {
				bload = load
				r.cpu, r.load = lr.cpu, lr.load
			}
		}
		return total
	}

	// Loop through the CPUs otherwise.
	for c, first := int32(cg.Last()), int32(cg.First()); c >= first; c-- {
		if !cg.Has(topology.CPU(c)) {
			continue
		}
		tdq := &s.loads[c]
		l := tdq.Load
		p := int32(0)
		if c == cs.prefer {
			if cs.running {
				l--
			}
			p = 128
		}
		load := l * 256
		total += load - p
		if !cs.lowestAccepts(c, l, tdq.LowPri) {
			continue
		}
		// When balancing do not prefer CPUs with load > 1: equally loaded CPUs then take turns.
		if cs.running && l > 0 {
			p = 0
		}
		load -= int32(cs.rnd.Next() % 128)
		if bload > load-p {
			bload = load - p
			r.cpu, r.load = c, load
		}
	}
	return total
}

// lowestAccepts is cpu_search_lowest's test of CPU c with load l (threads, less the thread
// being placed when it runs on c) and tdq_lowpri lowPri: whether the search may choose it. If
// the thread already runs on c, c's priority is not compared: it can be the thread's own.
func (cs *cpuSearch) lowestAccepts(c, l int32, lowPri uint8) bool {
	return l <= cs.load && (int32(lowPri) > cs.pri || (cs.running && c == cs.prefer)) && cs.mask.Has(topology.CPU(c))
}

// highestAccepts is cpu_search_highest's test of CPU c with load l and trans transferable
// threads: whether the search may choose it.
func (cs *cpuSearch) highestAccepts(c, l, trans int32) bool {
	return l >= cs.load && trans >= cs.trans && cs.mask.Has(topology.CPU(c))
}

// cpuSearchHighest is cpu_search_highest: it searches group cg for the most loaded CPU cs
// accepts (load at least cs_load, at least cs_trans transferable threads), into r, and returns
// cg's total load, by the rules Highest states.
func (s *System) cpuSearchHighest(cg *topology.Group, cs *cpuSearch, r *cpuSearchRes) int32 {
	var lr cpuSearchRes
	total, bload := int32(0), int32(math.MinInt32)
	r.cpu = -1

	// Loop through the children groups if there are any.
	if kids := cg.Children(); len(kids) > 0 {
		for _, kid := range slices.Backward(kids) {
			load := s.cpuSearchHighest(kid, cs, &lr)
			total += load
			if lr.cpu >= 0 && (load > bload || (load == bload && lr.load > r.load)) {
				bload, r.cpu, r.load = load, lr.cpu, lr.load
			}
		}
		return total
	}

	// Loop through the CPUs otherwise.
	for c, first := int32(cg.Last()), int32(cg.First()); c >= first; c-- {
		tdq := &s.loads[c]
		if !cg.Has(topology.CPU(c)) {
			continue
		}
		l := tdq.Load
		load := l * 256
		total += load
		if !cs.highestAccepts(c, l, tdq.Transferable) {
			continue
		}
		load -= int32(cs.rnd.Next() % 256)
		if load > bload {
			bload = load
			r.cpu = c
		}
	}
	r.load = bload
	return total
}

// lowest is sched_lowest(cg, mask, pri, maxload, prefer, running): the CPU cpu_search_lowest
// finds under cg, or false. rnd is the searching CPU's sched_random. On machines of IndexCPUs
// CPUs or more the load index answers (loadindex.Index.Lowest) with the kernel's result and
// draws; on smaller ones cpuSearchLowest searches.
func (s *System) lowest(cg *topology.Group, mask *topology.CPUSet, pri, maxLoad int32, prefer topology.CPU, running bool, rnd *Rand) (topology.CPU, bool) {
	c, done := s.ix.Lowest(cg.ID(), mask, mask == &s.all, pri, maxLoad, int32(prefer), running, &rnd.x)
	if done && s.searchLog == nil {
		return topology.CPU(c), c >= 0 // without gathering the search's arguments
	}
	cs, r := cpuSearch{mask: mask, prefer: int32(prefer), running: running, pri: pri, load: maxLoad, rnd: rnd}, cpuSearchRes{cpu: c}
	if !done {
		s.cpuSearchLowest(cg, &cs, &r)
	}
	if s.searchLog != nil {
		s.logSearch(cg, &cs, false, topology.CPU(r.cpu), r.cpu >= 0)
	}
	return topology.CPU(r.cpu), r.cpu >= 0
}

// highest is sched_highest(cg, mask, minload, mintrans): the CPU cpu_search_highest finds under
// cg, or false. The load index answers (loadindex.Index.Highest) on machines of IndexCPUs CPUs
// or more, and on every machine when no CPU has the transferable thread the search needs;
// otherwise cpuSearchHighest searches.
func (s *System) highest(cg *topology.Group, mask *topology.CPUSet, minLoad, minTrans int32, rnd *Rand) (topology.CPU, bool) {
	c, done := s.ix.Highest(cg.ID(), mask, minLoad, minTrans, &rnd.x)
	if done && s.searchLog == nil {
		return topology.CPU(c), c >= 0
	}
	cs, r := cpuSearch{mask: mask, load: minLoad, trans: minTrans, rnd: rnd}, cpuSearchRes{cpu: c}
	if !done {
		s.cpuSearchHighest(cg, &cs, &r)
	}
	if s.searchLog != nil {
		s.logSearch(cg, &cs, true, topology.CPU(r.cpu), r.cpu >= 0)
	}
	return topology.CPU(r.cpu), r.cpu >= 0
}

// Lowest returns the least loaded CPU on the least loaded path below g whose LowPri is worse
// than pri (pri -1 accepts any) and whose load is at most maxLoad, among the CPUs of mask:
// sched_lowest, that is cpu_search_lowest. It reports false if no CPU qualifies.
//
// The search visits children from the last to the first and a leaf's CPUs from the highest to
// the lowest, as the kernel does. Load counts 256 per thread; the preferred CPU counts 128 less
// (it is favoured on ties), and with running set the thread being placed already runs on
// prefer, so prefer's load excludes it and its LowPri is not compared. Each acceptable CPU's
// load is lowered by rnd.Next()%128, which breaks ties at random; rnd is the searching CPU's
// generator; groups compare by total load, ties going to the lesser load of the CPU found.
// When running is set (balancing), a child SMT group whose load has the 128 bit set counts 128
// more and a preferred CPU with a thread left loses its 128, so that equally loaded groups and
// CPUs take turns. The complexity is O(CPUs and groups below
// g) with no allocation (with a load index, O(CPUs/64) word operations for most searches).
func (s *System) Lowest(g *topology.Group, mask *topology.CPUSet, pri, maxLoad int, prefer topology.CPU, running bool, rnd *Rand) (topology.CPU, bool) {
	return s.lowest(g, mask, clampInt32(pri), clampInt32(maxLoad), prefer, running, rnd)
}

// Highest returns the most loaded CPU on the most loaded path below g with load at least
// minLoad and at least minTrans transferable threads, among the CPUs of mask: sched_highest,
// that is cpu_search_highest. It reports false if no CPU qualifies. Each acceptable CPU's load
// (256 per thread) is lowered by rnd.Next()%256 before the comparison. The order and cost are
// those of Lowest.
func (s *System) Highest(g *topology.Group, mask *topology.CPUSet, minLoad, minTrans int, rnd *Rand) (topology.CPU, bool) {
	return s.highest(g, mask, clampInt32(minLoad), clampInt32(minTrans), rnd)
}

func clampInt32(x int) int32 { return int32(min(max(x, math.MinInt32), math.MaxInt32)) }
