package loadindex

import (
	"fmt"
	"math"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// This file holds the model the fast forms are checked against: cpu_search_lowest and
// cpu_search_highest as sched_ule.c (main @3521c70f) writes them, a plain recursion over the
// topology with the generator stepped once per acceptable CPU — the shape of package ule's
// cpuSearchLowest and cpuSearchHighest, which run on machines without an index (package ule's
// tests compare the two on whole Systems) — and a helper that builds an index from a state.

// search is struct cpu_search with sched_random's state.
type search struct {
	loads   *[topology.MaxCPUs]CPULoad
	mask    *topology.CPUSet
	prefer  int32
	running bool
	pri     int32
	load    int32 // cs_load: a maximum for lowest, a minimum for highest
	trans   int32
	x       uint32
}

func (s *search) draw() uint32 {
	s.x = s.x*69069 + 5
	return s.x >> 16
}

// refLowest is cpu_search_lowest: cg's total, and the CPU chosen with its randomised load.
func refLowest(cg *topology.Group, s *search) (total, cpu, cpuLoad int32) {
	bload := int32(math.MaxInt32)
	cpu = -1
	if kids := cg.Children(); len(kids) > 0 {
		for c := len(kids) - 1; c >= 0; c-- {
			load, lcpu, lload := refLowest(kids[c], s)
			total += load
			if s.running && kids[c].Flags()&topology.FlagThread != 0 && load >= 128 && load&128 != 0 {
				load += 128
			}
			if lcpu >= 0 && (load < bload || (load == bload && lload < cpuLoad)) {
				bload, cpu, cpuLoad = load, lcpu, lload
			}
		}
		return total, cpu, cpuLoad
	}
	for c := int32(cg.Last()); c >= int32(cg.First()); c-- {
		if !cg.Has(topology.CPU(c)) {
			continue
		}
		l := s.loads[c].Load
		p := int32(0)
		if c == s.prefer {
			if s.running {
				l--
			}
			p = 128
		}
		load := l * 256
		total += load - p
		if l > s.load || (int32(s.loads[c].LowPri) <= s.pri && (!s.running || c != s.prefer)) || !s.mask.Has(topology.CPU(c)) {
			continue
		}
		if s.running && l > 0 {
			p = 0
		}
		load -= int32(s.draw() % 128)
		if bload > load-p {
			bload, cpu, cpuLoad = load-p, c, load
		}
	}
	return total, cpu, cpuLoad
}

// refHighest is cpu_search_highest: cg's total, and the CPU chosen with its randomised load.
func refHighest(cg *topology.Group, s *search) (total, cpu, cpuLoad int32) {
	bload := int32(math.MinInt32)
	cpu = -1
	if kids := cg.Children(); len(kids) > 0 {
		for c := len(kids) - 1; c >= 0; c-- {
			load, lcpu, lload := refHighest(kids[c], s)
			total += load
			if lcpu >= 0 && (load > bload || (load == bload && lload > cpuLoad)) {
				bload, cpu, cpuLoad = load, lcpu, lload
			}
		}
		return total, cpu, cpuLoad
	}
	for c := int32(cg.Last()); c >= int32(cg.First()); c-- {
		if !cg.Has(topology.CPU(c)) {
			continue
		}
		l := s.loads[c].Load
		load := l * 256
		total += load
		if l < s.load || s.loads[c].Transferable < s.trans || !s.mask.Has(topology.CPU(c)) {
			continue
		}
		load -= int32(s.draw() % 256)
		if load > bload {
			bload, cpu = load, c
		}
	}
	return total, cpu, bload
}

// recorded returns the index of top over loads with minCPUs, recording the loads as their
// owner would have, change by change from zero.
func recorded(top *topology.Topology, loads *[topology.MaxCPUs]CPULoad, minCPUs int) *Index {
	ix := New(top, loads, minCPUs)
	ix.record()
	return ix
}

// checkIndex fails t if ix does not record its loads (Index.Check).
func checkIndex(t testing.TB, ix *Index) {
	t.Helper()
	if err := ix.Check(); err != nil {
		t.Fatal(err)
	}
}

// where names a search for failure messages.
func where(top *topology.Topology, g *topology.Group, s *search) string {
	return fmt.Sprintf("%v %v pri %d load %d trans %d prefer %d running %t", top, g, s.pri, s.load, s.trans, s.prefer, s.running)
}
