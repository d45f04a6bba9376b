// This file implements the System's record of what its SMP decisions compared (the record
// types, comparelog.Comparison and its parts, are package internal/comparelog's).

package cfs

import (
	"github.com/schedkit/schedkit/internal/comparelog"
	"github.com/schedkit/schedkit/topology"
)

// RecordComparisons turns the record of comparisons on or off. While it is on, every
// placement [System.SelectTaskRQ] makes (a wake-up's or a fork's) and every find_busiest_group
// of [System.LoadBalance] (the System's periodic, idle and newly idle balances) is appended
// to a log that [System.TakeComparisons] returns. The record is written after the decision
// from the statistics it read, with the decision functions themselves ([updateSGLBStats] for the
// groups), so recording changes no decision; it allocates.
func (s *System) RecordComparisons(on bool) {
	switch {
	case on && s.cmpLog == nil:
		s.cmpLog = new([]comparelog.Comparison)
	case !on:
		s.cmpLog = nil
	}
}

// TakeComparisons returns the comparisons recorded since the last call, oldest first, and
// empties the log. It returns nil while RecordComparisons is off or when nothing was recorded.
// The records' type is declared in the module's internal package comparelog, beside the
// programs that print them; their fields and their JSON form are readable from any program.
func (s *System) TakeComparisons() []comparelog.Comparison {
	if s.cmpLog == nil {
		return nil
	}
	l := *s.cmpLog
	*s.cmpLog = nil
	return l
}

// cpuFigures returns CPU c's figures.
func (s *System) cpuFigures(c topology.CPU) comparelog.CPUFigures {
	st := &s.stats[c]
	return comparelog.CPUFigures{CPU: int(c), CPUStat: *st, Idle: st.Idle(), IdleOnly: st.IdleOnly()}
}

// logPlacement appends the placement env made, pl for reason why, to the log.
func (s *System) logPlacement(env *WakeEnv, pl *CPUSelection, why PlaceReason) {
	f := &comparelog.PlacementFigures{Task: env.Task.E.Name, From: int(env.This), Prev: int(env.Prev), Target: int(pl.target),
		CPU: int(pl.CPU), Reason: pl.Explain(why), Scope: "llc"}
	cpus := *env.Task.allowed
	if why == placeIdlest || why == placePrev || why == placeFallback {
		f.Scope = "allowed"
	} else if sd := s.ds.llc[pl.target]; sd != nil {
		cpus = sd.Span()
	} else {
		cpus = topology.CPUSet{}
		cpus.Add(pl.target)
	}
	for c := range cpus.All() {
		f.CPUs = append(f.CPUs, s.cpuFigures(c))
	}
	*s.cmpLog = append(*s.cmpLog, comparelog.Comparison{Placement: f})
}

// logBalance appends the balance env made, found as d for reason why, to the log; each group's
// statistics are computed again by updateSGLBStats from the same env.
func (s *System) logBalance(env *LBEnv, d *BusiestGroup, why BalanceReason) {
	sd := env.SD
	f := &comparelog.BalanceFigures{Domain: sd.Name(), Span: sd.Span().String(), Dst: int(env.DstCPU), Idle: env.Idle.String(),
		Reason: why.String(), Imbalance: d.Imbalance}
	if d.Group != nil {
		f.Migration = d.Migration.String()
	}
	for i := range sd.NumGroups() {
		g := sd.Group(i)
		span := g.CPUs()
		local := span.Has(env.DstCPU)
		var cpus []int
		for _, c := range g.list {
			cpus = append(cpus, int(c))
		}
		st, _ := updateSGLBStats(env, g, local, &s.smp)
		f.Groups = append(f.Groups, comparelog.GroupFigures{CPUs: cpus, Local: local, Busiest: g == d.Group, Type: st.Type.String(),
			SumNrRunning: st.SumNrRunning, SumHNrRunning: st.SumHNrRunning, IdleCPUs: st.IdleCPUs, GroupWeight: st.GroupWeight,
			GroupLoad: st.GroupLoad, GroupCapacity: st.GroupCapacity, GroupUtil: st.GroupUtil, AvgLoad: st.AvgLoad})
	}
	*s.cmpLog = append(*s.cmpLog, comparelog.Comparison{Balance: f})
}
