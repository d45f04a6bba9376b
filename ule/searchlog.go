// This file records the searches of the CPU topology a decision made (sched_lowest and
// sched_highest), for a reader who wants to see the loads PickCPU, Steal and Balance compared.

package ule

import "github.com/schedkit/schedkit/topology"

// A Search is one search of the CPU topology, as RecordSearches keeps it: sched_lowest
// (cpu_search_lowest) or sched_highest (cpu_search_highest) over one group, the criteria it
// was given, every CPU of the group with the figures the search read, and the CPU it found.
// PickCPU makes one to three lowest searches (the cache group, then the machine); Steal and
// Balance make highest searches and Balance a lowest one.
type Search struct {
	// Kind is "lowest" or "highest".
	Kind string `json:"kind"`
	// Group is the group searched, such as "llc{0-3}".
	Group string `json:"group"`
	// Pri is a lowest search's cs_pri: only CPUs whose tdq_lowpri is greater qualify (-1: any).
	// MaxLoad is its cs_load: the most threads a qualifying CPU may have. Prefer is cs_prefer,
	// the CPU favoured by 128 (the thread's own), and Running says the thread runs there, so
	// its own thread is not counted and its priority not compared.
	Pri     int  `json:"pri"`
	MaxLoad int  `json:"max_load"`
	Prefer  int  `json:"prefer"`
	Running bool `json:"running"`
	// MinLoad and MinTrans are a highest search's cs_load and cs_trans: the fewest threads and
	// transferable threads a qualifying CPU may have.
	MinLoad  int `json:"min_load"`
	MinTrans int `json:"min_trans"`
	// CPUs are the group's CPUs in id order with what the search read of each.
	CPUs []SearchCPU `json:"cpus"`
	// Found is the CPU the search chose, or -1 if no CPU qualified. Among the qualifying CPUs
	// the search takes the least (lowest) or most (highest) loaded path, ties broken by the
	// searching CPU's random draws, which are not recorded.
	Found int `json:"found"`
}

// A SearchCPU is one CPU of a Search: its tdq_load (less the placed thread when that runs
// there, as the search counts it), tdq_lowpri and tdq_transferable, and whether it
// qualified under the search's criteria and mask.
type SearchCPU struct {
	CPU          int   `json:"cpu"`
	Load         int   `json:"load"`
	LowPri       uint8 `json:"lowpri"`
	Transferable int   `json:"transferable"`
	Qualified    bool  `json:"qualified"`
}

// RecordSearches turns the record of searches on or off. While it is on, every search of the
// topology s makes (sched_lowest and sched_highest, so PickCPU, Steal, Balance, Lowest and
// Highest) is appended to a log that TakeSearches returns. The record reads the loads after
// the search, which the search does not change, so recording changes no decision; it costs an
// allocation per search.
func (s *System) RecordSearches(on bool) {
	switch {
	case on && s.searchLog == nil:
		s.searchLog = new([]Search)
	case !on:
		s.searchLog = nil
	}
}

// TakeSearches returns the searches recorded since the last call, oldest first, and empties
// the log. It returns nil while RecordSearches is off or when no search was made.
func (s *System) TakeSearches() []Search {
	if s.searchLog == nil {
		return nil
	}
	l := *s.searchLog
	*s.searchLog = nil
	return l
}

// logSearch appends the search of cg by cs (a highest search when highest is set), which
// found cpu (ok false: none), to the log.
func (s *System) logSearch(cg *topology.Group, cs *cpuSearch, highest bool, cpu topology.CPU, ok bool) {
	r := Search{Kind: "lowest", Group: cg.String(), Pri: int(cs.pri), MaxLoad: int(cs.load), Prefer: int(cs.prefer),
		Running: cs.running, Found: -1}
	if highest {
		r = Search{Kind: "highest", Group: cg.String(), MinLoad: int(cs.load), MinTrans: int(cs.trans), Prefer: -1, Found: -1}
	}
	if ok {
		r.Found = int(cpu)
	}
	for c := range cg.CPUs().All() {
		l := s.loads[c]
		sc := SearchCPU{CPU: int(c), Load: int(l.Load), LowPri: l.LowPri, Transferable: int(l.Transferable)}
		if highest {
			sc.Qualified = cs.highestAccepts(int32(c), l.Load, l.Transferable)
		} else {
			if cs.running && int32(c) == cs.prefer {
				sc.Load--
			}
			sc.Qualified = cs.lowestAccepts(int32(c), int32(sc.Load), l.LowPri)
		}
		r.CPUs = append(r.CPUs, sc)
	}
	*s.searchLog = append(*s.searchLog, r)
}
