package ule_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// The cases below are worked out from sys/kern/sched_ule.c 1.290 of 2011-01-14, 9-CURRENT
// (rodrigc/bz-vimage @191fe5570364da41649df401cb58beb5c92393c6): cpu_compare, cpu_search,
// sched_lowest, sched_highest, sched_both, sched_balance_group, sched_balance_pair, tdq_idled,
// runq_steal_from, sched_pickcpu and sched_initticks's steal_thresh. These functions are the
// same in FreeBSD 8.0-RELEASE (oza/FreeBSD-8.0-dyntick @cff798ab) apart from ipi_selected
// becoming ipi_cpu. All run threads of priority 180 unless said otherwise — a batch priority of
// the 2011 layout (152-223), so they go through the calendar — added with tdq_idx = tdq_ridx =
// 0, so threads of one priority share one calendar queue (180-152 = 28).
var (
	flat4  = topology.Uniform(1, 1, 1, 4, 1) // one leaf group of 4 CPUs (CG_SHARE_L3)
	twoPkg = topology.Uniform(2, 1, 1, 2, 1) // machine (CG_SHARE_NONE) over two leaves {0,1} {2,3}
	smt4   = topology.Uniform(1, 1, 1, 2, 2) // L3 root over two SMT leaves {0,1} {2,3}
)

func system9(t *testing.T, top *topology.Topology) *ule.System {
	t.Helper()
	return mustSystem(t, ule.FreeBSD9Params(), top)
}

// cpu_compare keeps the first CPU, in ascending order, with strictly less load than the best so
// far and tdq_lowpri > cs_limit.
func TestLowest2008(t *testing.T) {
	s := system9(t, flat4)
	id := 0
	load(s, 0, 2, 180, &id, nil)
	load(s, 1, 1, 180, &id, nil)
	load(s, 2, 1, 180, &id, nil)
	all := flat4.CPUs()
	if c, ok := s.Lowest2008(flat4.Root(), &all, -1); !ok || c != 3 {
		t.Errorf("Lowest2008(any) = %d, %t; want cpu3, the idle one", c, ok)
	}
	load(s, 3, 1, 180, &id, nil)
	if c, ok := s.Lowest2008(flat4.Root(), &all, -1); !ok || c != 1 {
		t.Errorf("Lowest2008(any), loads 2 1 1 1 = %d, %t; want cpu1, the first of the least loaded", c, ok)
	}
	// cs_limit 180: tdq_lowpri must be > 180; every CPU runs 180.
	if c, ok := s.Lowest2008(flat4.Root(), &all, 180); ok {
		t.Errorf("Lowest2008(pri 180) = %d, want none", c)
	}
}

// hgroup = *high copies the best load so far into the next child's search ("lgroup.cs_load = 0"
// resets the wrong copy), so a later child's CPU must beat the earlier children's best.
func TestHighest2008KeepsEarlierBest(t *testing.T) {
	all := twoPkg.CPUs()
	t.Run("the more loaded group loses", func(t *testing.T) {
		s := system9(t, twoPkg)
		id := 0
		load(s, 0, 3, 180, &id, nil) // leaf {0,1}: total 3
		load(s, 2, 2, 180, &id, nil) // leaf {2,3}: total 4
		load(s, 3, 2, 180, &id, nil)
		// Child {0,1}: cpu0 (3 > 0) is high, hload = 3. Child {2,3}: starts from cs_load 3;
		// neither cpu2 nor cpu3 has more than 3. Its total 4 > 3 copies hgroup back: still cpu0.
		if c, ok := s.Highest2008(twoPkg.Root(), &all, 1); !ok || c != 0 {
			t.Errorf("Highest2008 = %d, %t; want cpu0", c, ok)
		}
	})
	t.Run("a later CPU above the best", func(t *testing.T) {
		s := system9(t, twoPkg)
		id := 0
		load(s, 0, 2, 180, &id, nil)
		load(s, 2, 3, 180, &id, nil)
		if c, ok := s.Highest2008(twoPkg.Root(), &all, 1); !ok || c != 2 {
			t.Errorf("Highest2008 = %d, %t; want cpu2", c, ok)
		}
	})
}

// sched_both below a group with children finds no low CPU (its lgroup.cs_load is 0, and no
// load is < 0); on a leaf it works.
func TestBoth2008(t *testing.T) {
	s := system9(t, twoPkg)
	id := 0
	load(s, 0, 3, 180, &id, nil)
	all := twoPkg.CPUs()
	if _, high, lowOK, highOK := s.Both2008(twoPkg.Root(), &all); lowOK || !highOK || high != 0 {
		t.Errorf("Both2008(root) = low found %t, high %d %t; want no low, high cpu0", lowOK, high, highOK)
	}
	leaf := twoPkg.Leaf(0)
	if low, high, lowOK, highOK := s.Both2008(leaf, &all); !lowOK || !highOK || low != 1 || high != 0 {
		t.Errorf("Both2008(leaf) = %d %t, %d %t; want low cpu1, high cpu0", low, lowOK, high, highOK)
	}
}

func TestBalance2008(t *testing.T) {
	t.Run("only inside leaf groups", func(t *testing.T) {
		// cpu0 runs A with B, C queued. At the root sched_both finds no low: nothing. In leaf
		// {0,1}: low cpu1, high cpu0, diff 3, move = 3/2 + 1 = 2 (transferable 2). The first
		// tdq_move takes C (B is the first thread visited); the second finds B alone in the
		// only queue a pass looks at and takes nothing. One move, and sched_balance_group stops
		// after it. Leaf {2,3} has no donor. cpu2 and cpu3 stay idle.
		s := system9(t, twoPkg)
		id := 0
		load(s, 0, 3, 180, &id, nil)
		r := ule.NewRand(0, 0)
		moves := s.Balance(0, &r, nil)
		if len(moves) != 1 || moves[0].From != 0 || moves[0].To != 1 || moves[0].Thread.ID != 3 || moves[0].Kick != ule.KickIdle {
			t.Fatalf("Balance = %+v, want t3 from cpu0 to cpu1, waking it", moves)
		}
		if l := []int{s.CPU(0).Load(), s.CPU(1).Load(), s.CPU(2).Load(), s.CPU(3).Load()}; l[0] != 2 || l[1] != 1 || l[2] != 0 || l[3] != 0 {
			t.Errorf("loads after = %v, want [2 1 0 0]", l)
		}
	})
	t.Run("a lone queued thread at ridx 0 cannot move", func(t *testing.T) {
		// Loads 2 1 1 1 on one leaf: low cpu1, high cpu0, diff 1, move 1; cpu0's queued B is
		// the first thread visited and ridx is 0: nothing moves, cpu1 leaves the mask, then
		// cpu2, cpu3; then low = high = cpu0 and the loop ends.
		s := system9(t, flat4)
		id := 0
		load(s, 0, 2, 180, &id, nil)
		for c := topology.CPU(1); c < 4; c++ {
			load(s, c, 1, 180, &id, nil)
		}
		r := ule.NewRand(0, 0)
		if moves := s.Balance(0, &r, nil); len(moves) != 0 {
			t.Errorf("Balance = %+v, want no move", moves)
		}
	})
	t.Run("2 vs 1 becomes 1 vs 2", func(t *testing.T) {
		// As above with cpu0's tdq_idx = tdq_ridx = 5: B goes to queue (180-152)/1 + 5 = 33
		// >= ridx, so the second pass (from queue 0) visits it again and takes it: the
		// imbalance moves to cpu1 instead of going away.
		s := system9(t, flat4)
		c0 := s.CPU(0)
		c0.Idx, c0.Ridx = 5, 5
		id := 0
		load(s, 0, 2, 180, &id, nil)
		for c := topology.CPU(1); c < 4; c++ {
			load(s, c, 1, 180, &id, nil)
		}
		r := ule.NewRand(0, 0)
		moves := s.Balance(0, &r, nil)
		if len(moves) != 1 || moves[0].Thread.ID != 2 || moves[0].To != 1 {
			t.Fatalf("Balance = %+v, want t2 to cpu1", moves)
		}
		if s.CPU(0).Load() != 1 || s.CPU(1).Load() != 2 {
			t.Errorf("loads cpu0 %d cpu1 %d, want 1 and 2", s.CPU(0).Load(), s.CPU(1).Load())
		}
	})
}

// tdq_idled of 2008: threshold 1 in an SMT group, steal_thresh (2 on 4 CPUs) above; each
// candidate leaves the mask; climbing is to the parent.
func TestSteal2008(t *testing.T) {
	s := system9(t, smt4)
	id := 0
	load(s, 1, 2, 180, &id, nil) // sibling of the thief: load 2, B alone in the calendar
	load(s, 2, 3, 180, &id, nil) // other core: D running, E and F queued
	r := ule.NewRand(0, 0)
	// smt{0,1}: threshold 1, cpu1 qualifies; StealFrom finds B first in the only queue looked at
	// (ridx 0) and takes nothing; cpu1 leaves the mask. smt{0,1} again: none; climb to the root
	// with threshold 2: child smt{0,1} (total 2) has no candidate left, child smt{2,3} (total 3)
	// gives cpu2; StealFrom skips E and takes F.
	victim, th, why := s.Steal(0, 0, &r)
	if th == nil || victim != 2 || th.ID != 5 || why.Searches != 3 || why.Refused != 1 {
		t.Errorf("Steal = cpu%d %v (%v), want t5 from cpu2 after 3 searches, 1 refused", victim, th, why)
	}
	if _, th, why := s.Steal(0, 2, &r); th != nil || why.Rule != ule.StealDisabled {
		t.Errorf("tdq_trysteal in 2008 = %v (%v), want disabled: it did not exist", th, why)
	}
}

// sched_initticks (2008): steal_thresh = min(fls(mp_ncpus) - 1, 3).
func TestStealThreshold2008(t *testing.T) {
	for _, tc := range []struct{ cpus, want int }{{1, 0}, {2, 1}, {3, 1}, {4, 2}, {7, 2}, {8, 3}, {64, 3}} {
		s := mustSystem(t, ule.FreeBSD9Params(), topology.Uniform(1, 1, 1, tc.cpus, 1))
		if got := s.StealThreshold(); got != tc.want {
			t.Errorf("StealThreshold on %d CPUs = %d, want %d", tc.cpus, got, tc.want)
		}
	}
	p := ule.FreeBSD9Params()
	p.StealThresh = 5
	if got := mustSystem(t, p, flat4).StealThreshold(); got != 5 {
		t.Errorf("StealThreshold with StealThresh 5 = %d", got)
	}
}

func TestPickCPU2008(t *testing.T) {
	const ticks = 10_000
	th := func(prev topology.CPU, pri uint8, rltick uint32) *ule.Thread {
		x := newThread(99, pri, flat4)
		x.CPU, x.RLTick = prev, rltick
		return x
	}
	r := ule.NewRand(0, 0)
	t.Run("previous CPU idle", func(t *testing.T) {
		s := system9(t, flat4)
		// tdq_lowpri 255 > PRI_MIN_IDLE: stay, however cold the cache.
		if c, why := s.PickCPU(th(2, 200, 0), 0, ticks, 0, false, &r); c != 2 || why.Rule != ule.PickCPUIdle2008 {
			t.Errorf("PickCPU = %d (%v), want cpu2", c, why)
		}
	})
	t.Run("previous CPU warm and running worse", func(t *testing.T) {
		s := system9(t, flat4)
		id := 0
		load(s, 2, 1, 210, &id, nil)
		// SCHED_AFFINITY(ts, CG_SHARE_L2): ts_rltick 9999 > ticks - 2*1; lowpri 210 > 200.
		if c, why := s.PickCPU(th(2, 200, ticks-1), 0, ticks, 0, false, &r); c != 2 || why.Rule != ule.PickCPUAffine2008 {
			t.Errorf("PickCPU = %d (%v), want cpu2", c, why)
		}
	})
	t.Run("lowest in the affine group", func(t *testing.T) {
		s := system9(t, flat4)
		id := 0
		load(s, 2, 1, 180, &id, nil)
		load(s, 0, 1, 180, &id, nil)
		// cpu2 runs better (180 < 200); the leaf (CG_SHARE_L3) is still affine (9999 >
		// ticks - 3): sched_lowest(leaf, pri 200) takes the first idle CPU, cpu1.
		if c, why := s.PickCPU(th(2, 200, ticks-1), 0, ticks, 0, false, &r); c != 1 || why.Rule != ule.PickCPULowerPri {
			t.Errorf("PickCPU = %d (%v), want cpu1", c, why)
		}
	})
	t.Run("waking CPU runs worse, whatever its load", func(t *testing.T) {
		s := system9(t, flat4)
		id := 0
		for c := topology.CPU(0); c < 3; c++ {
			load(s, c, 1, 180, &id, nil)
		}
		load(s, 3, 3, 210, &id, nil)
		// Cold cache: no affine group; sched_lowest(cpu_top, -1) gives cpu0 (load 1, first).
		// cpu3 runs 210 > 200 and cpu0 is busy: cpu3, although it carries 3 threads (the 2012
		// code would also require load(cpu3) <= load(cpu0) + 1).
		if c, why := s.PickCPU(th(2, 200, 0), 3, ticks, 0, false, &r); c != 3 || why.Rule != ule.PickCPULocal2008 {
			t.Errorf("PickCPU = %d (%v), want cpu3", c, why)
		}
	})
}

// FreeBSD9Params: the whole slice whatever the load, and a forked child one tick before its
// first reschedule (sched_fork_thread: ts_slice = 1).
func TestFreeBSD9Slice(t *testing.T) {
	s := system9(t, flat4)
	id := 0
	load(s, 0, 6, 180, &id, nil)
	c := s.CPU(0)
	if got := c.ThreadSlice(c.Cur); got != 12 {
		t.Errorf("slice at load 6 = %d, want sched_slice 12", got)
	}
	p := ule.FreeBSD9Params()
	child := newThread(50, 180, flat4)
	c.Cur.Fork(&p, child, 100, c.Slice())
	if child.Slice != 11 {
		t.Errorf("child's slice used = %d, want 11 (one tick left)", child.Slice)
	}
}

// The 2008 balancer never raises the largest load of a CPU: sched_balance_group pairs the least
// loaded CPU of its mask with the most loaded one that has a transferable thread (so diff >= 0),
// and sched_balance_pair moves at most ceil(diff/2) threads, so the receiver ends with at most
// the donor's load before the move. With threads that never sleep (seed 001's polling ranks)
// no other path places a thread, so this bounds how many share a CPU after the launch. Checked
// against the naive bound on random loads, priorities and calendar indexes, one and two
// packages.
func TestBalance2008NeverRaisesTheMax(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2011))
	for trial := range 3000 {
		top, name := flat4, "one package"
		if trial%2 == 1 {
			top, name = twoPkg, "two packages"
		}
		s := system9(t, top)
		id := 0
		var before [4]int
		for c := range topology.CPU(4) {
			cpu := s.CPU(c)
			cpu.Idx = uint8(r.IntN(64))
			cpu.Ridx = cpu.Idx
			before[c] = r.IntN(6)
			load(s, c, before[c], 0, &id, func(th *ule.Thread) {
				p := uint8(172 + r.IntN(33)) // 172..204: the batch priorities of 2011's polling ranks
				th.Priority, th.BasePri, th.UserPri = p, p, p
			})
		}
		rnd := ule.NewRand(0, uint64(trial)+1)
		moves := s.Balance(0, &rnd, nil)
		bmax, amax, btot, atot := 0, 0, 0, 0
		for c := range topology.CPU(4) {
			bmax, btot = max(bmax, before[c]), btot+before[c]
			amax, atot = max(amax, s.CPU(c).Load()), atot+s.CPU(c).Load()
		}
		if amax > bmax || atot != btot {
			t.Fatalf("trial %d (%s): loads %v, moves %+v: largest load %d -> %d, total %d -> %d; want no larger, same total",
				trial, name, before, moves, bmax, amax, btot, atot)
		}
		for _, m := range moves {
			if got := s.CPU(m.To).Load(); got > before[m.From] {
				t.Fatalf("trial %d: loads %v: cpu%d received from cpu%d and holds %d, more than the donor's %d",
					trial, before, m.To, m.From, got, before[m.From])
			}
		}
	}
}
