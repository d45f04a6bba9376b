// This file implements the System's scheduler tick (scheduler_tick): the utilisation signals,
// task_tick_fair, the refresh of the CPU's statistics and, when due, rebalance_domains.

package cfs

import (
	"github.com/schedkit/schedkit/cfs/internal/groupsums"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// Tick is the scheduler tick on cpu (scheduler_tick): on a busy CPU the CPU's utilisation
// signal and the running task's estimate gain capacity/2^k (everything decays lazily, by the
// ticks that passed, when it is next read or changes state), task_tick_fair charges the
// running task and may ask for a resched, the misfit status is updated, and when the CPU's
// next_balance is due, rebalance_domains balances every domain whose interval has elapsed.
// Apart from the balancing, its cost does not depend on the number of tasks on the CPU.
// Tick panics if cpu is not a CPU of the machine.
func (s *System) Tick(now int64, cpu topology.CPU) {
	if s.notCPU(cpu) {
		s.badCPU("Tick", cpu)
	}
	s.tickCPU(now, &s.rqs[cpu])
}

// tickCPU is [System.Tick] on CPU rq for a caller that checked the CPU.
func (s *System) tickCPU(now int64, rq *cpuRQ) {
	s.at(now)
	j := s.j
	busy := rq.curr != nil
	if busy {
		s.tickUtil(rq, rq.st.Capacity, j)
		r := rq.c.tick(rq.c.curr, uint64(now), &s.td)
		if rq.c.needResched {
			s.explainTick(rq.id, r)
			s.resched(rq.id)
		}
		s.updateMisfit(rq.id)
	} else if rq.utilTick == j-1 {
		// An idle CPU's signal decays lazily; ticked at the last tick, it decays by one here, as
		// tickUtil's usual case and decayUtil's first line do, without the call.
		rq.util, rq.utilTick = rq.util-rq.util>>(s.utilShift&63), j
	} else {
		s.catchUpCPU(rq, j) // bring it to this tick
	}
	// The tick's refresh: a tick charges the running entities and may reweight group entities,
	// which changes the root queue's load, but enqueues and dequeues nothing, so the counts
	// refresh last wrote stand (every change of a CPU's queues outside a tick ends with a
	// refresh). The utilisation decays, or grows at a busy tick (brought to this tick above),
	// and two tasks or more raise the overload flag again, as refresh does; so do the groups'
	// sums. Written here rather than as a function of its own, which would be over Go's
	// inlining budget and cost every tick a call.
	if s.lb.sums != nil {
		s.refreshTickSummed(rq)
	} else {
		s.refreshTickStats(rq)
	}
	if s.j >= rq.nextBalance {
		idle := smp.CPUIdle
		if busy {
			idle = smp.CPUNotIdle
		}
		s.rebalanceDomains(now, rq.id, idle)
	}
}

// explainTick explains the tick's decision on cpu, which asked for a reschedule, when the
// machine is explaining. It is out of line, so that the tick does not carry the explanation's
// frame.
//
//go:noinline
func (s *System) explainTick(cpu topology.CPU, r TickReason) {
	if s.explaining() {
		s.explain(cpu, tidOf(s.rqs[cpu].curr), explainf{"%s", []any{s.td.Explain(r)}})
	}
}

// refreshTickStats is the tick's refresh of CPU rq's statistics (see tickCPU). The tick brought
// the CPU's utilisation signal to this tick: a busy tick's tickUtil does, and an idle tick
// catches it up.
func (s *System) refreshTickStats(rq *cpuRQ) {
	st := rq.st
	st.Load = ScaleLoadDown(rq.c.root.load.Weight)
	st.Util = min(rq.util, st.Capacity)
	if st.NrRunning >= 2 {
		s.overload = true
	}
	if rq.fresh != 0 { // the counts refresh wrote stand, the rest is written now
		rq.fresh = s.j + 1
	}
}

// refreshTickSummed is the tick's refresh (see tickCPU) on a machine whose groups' sums follow
// the CPUs' statistics: the sums trade the CPU's old figures for its new ones.
func (s *System) refreshTickSummed(rq *cpuRQ) {
	st := rq.st
	old := sumStat(st)
	s.refreshTickStats(rq)
	s.lb.sums.Update(int(rq.id), old, sumStat(st))
	if s.we.least != nil {
		s.least.Set(int(rq.id), leastKey(st))
	}
}

// sumStat is the part of st the groups' sums read.
func sumStat(st *smp.CPUStat) groupsums.Stat {
	return groupsums.Stat{Load: st.Load, Util: st.Util, Runnable: st.Runnable, NrRunning: st.NrRunning, HNrRunning: st.HNrRunning}
}
