// This file implements the periodic load balancer (sched_balance, sched_balance_group,
// sched_balance_pair).

package ule

import "github.com/schedkit/schedkit/topology"

// A Move is one action of the balancer or of a migration: Thread moved from From to To, and what
// To must do about it (Kick, decided by Notify or SetPreempt, explained by Why). With PickCPU
// set nothing moved: From had only its running thread, which the balancer asked to choose a CPU
// again at its next switch (TDF_PICKCPU and an AST on From, Kick KickAST).
type Move struct {
	From, To topology.CPU
	Thread   *Thread
	Kick     Kick
	Why      PreemptReason
	PickCPU  bool
}

// Move moves the thread StealFrom chooses from CPU from to CPU to (MoveThread): tdq_move. It
// returns the thread and to's LowPri from before, or nil if from has no thread to may take.
func (s *System) Move(from, to topology.CPU) (*Thread, uint8) {
	t, _ := StealFrom(&s.cpus[from], to)
	if t == nil {
		return nil, 0
	}
	return t, s.MoveThread(t, to)
}

// MoveThread is the rest of tdq_move once tdq_steal has chosen t, queued on its CPU: t leaves
// that CPU's queue and load (sched_rem), takes to as its CPU and is added there with SRQYielding
// (tdq_add). It returns to's LowPri from before. Steal has run tdq_steal (StealFrom) on its
// victim already, to know whether it yields a thread; its caller moves that thread with
// MoveThread rather than have Move choose it a second time from the same, unchanged queues.
func (s *System) MoveThread(t *Thread, to topology.CPU) uint8 {
	s.cpus[t.CPU].Remove(t)
	t.CPU = to
	return s.cpus[to].Add(t, SRQYielding)
}

// Balance runs the periodic balancer over the whole machine from CPU self: sched_balance_group
// on cpu_top. Repeatedly, the most loaded CPU with any load (Highest, minimum load 1) gives
// threads to the least loaded CPUs that have less load than it minus one (Lowest with
// running set and the donor preferred), one thread per pair (sched_balance_pair, which moves only
// if the donor has a transferable thread and more load than the receiver); a receiver cannot
// donate afterwards; a receiver that cannot take any of the donor's threads is dropped and the
// next tried. A donor whose only load is its running thread cannot give it away: the balancer
// asks it to choose a CPU again (TDF_PICKCPU) and stops.
//
// Balance moves the threads and appends one Move per action to moves, which it returns; the
// caller delivers the kicks. rnd is self's generator. The complexity is O(CPUs) searches of
// O(CPUs) each at worst.
//
// With Params.SMP = SMP2008 it is the 2008 balancer instead (balance2008 in smp2008.go).
func (s *System) Balance(self topology.CPU, rnd *Rand, moves []Move) []Move {
	if s.params.SMP == SMP2008 {
		return s.balance2008(s.top.Root(), moves)
	}
	root := s.top.Root()
	hmask := s.all
	for {
		high, ok := s.highest(root, &hmask, 1, 0, rnd)
		if !ok {
			break
		}
		hmask.Remove(high)
		lmask := hmask
		// The kernel starts from CPU_FILL, every id of a cpuset_t (MAXCPU, 1024 here), so on
		// a machine with fewer CPUs the low mask keeps ids of CPUs that do not exist and is
		// never empty: the test below stops the loop only on a machine with every id present.
		// A last donor whose load is its running thread is then still asked to re-pick.
		if lmask.IsEmpty() && s.top.NumCPUs() == topology.MaxCPUs {
			break
		}
		hc := &s.cpus[high]
		if hc.Load() == 1 {
			if t := hc.Cur; t != nil && t.CanMigrate() {
				t.PickCPU = true
				moves = append(moves, Move{From: high, To: high, Thread: t, Kick: KickAST, PickCPU: true})
			}
			break
		}
		anyLow, stop := true, false
		for hc.Transferable() != 0 {
			low, ok := s.lowest(root, &lmask, -1, int32(hc.Load()-1), high, true, rnd)
			if !ok {
				stop = anyLow
				break
			}
			if m, moved := s.balancePair(high, low, self); moved {
				moves = append(moves, m)
				hmask.Remove(low)
				break
			}
			lmask.Remove(low)
			anyLow = false
		}
		if stop {
			break
		}
	}
	return moves
}

// balancePair is sched_balance_pair: move one thread from high to low if high has a
// transferable thread and more load, and decide how low learns of it.
func (s *System) balancePair(high, low, self topology.CPU) (Move, bool) {
	hc, lc := &s.cpus[high], &s.cpus[low]
	if hc.Transferable() == 0 || hc.Load() <= lc.Load() {
		return Move{}, false
	}
	t, oldLowPri := s.Move(high, low)
	if t == nil {
		return Move{}, false
	}
	m := Move{From: high, To: low, Thread: t}
	if low != self {
		if m.Kick = notify(lc, nil, oldLowPri, &m.Why); m.Kick == KickPreempt {
			lc.OwePreempt = true
		}
	} else {
		m.Kick = s.setPreempt(lc, int(lc.LowPri()), &m.Why)
	}
	return m, true
}
