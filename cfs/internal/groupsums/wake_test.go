package groupsums

import (
	"math/rand/v2"
	"testing"
)

// naiveStats is the model of the part of struct sg_lb_stats a placement compares, filled as
// update_sg_wakeup_stats fills it.
type naiveStats struct {
	avgLoad, util uint64
	idle          uint32
	typ           Type
}

// naiveWake is update_sg_wakeup_stats' end written as the kernel's functions: group_classify
// (group_is_overloaded, group_has_capacity) and avg_load for a fully busy or overloaded group.
func naiveWake(s Sum, c uint64, w uint32, pct uint64) naiveStats {
	overloaded := func() bool {
		if s.NrRunning <= w {
			return false
		}
		if c*100 < s.Util*pct {
			return true
		}
		return c*pct < s.Runnable*100
	}
	hasCapacity := func() bool {
		if s.NrRunning < w {
			return true
		}
		if c*pct < s.Runnable*100 {
			return false
		}
		return c*100 > s.Util*pct
	}
	st := naiveStats{util: s.Util, idle: s.Idle, typ: HasSpare}
	switch {
	case overloaded():
		st.typ = Overloaded
	case !hasCapacity():
		st.typ = FullyBusy
	}
	if st.typ == FullyBusy || st.typ == Overloaded {
		st.avgLoad = s.Load * 1024 / c
	}
	return st
}

// naivePick is update_pick_idlest: whether a group of statistics s replaces the idlest so far,
// of statistics is.
func naivePick(is, s naiveStats) bool {
	if s.typ < is.typ {
		return true
	}
	if s.typ > is.typ {
		return false
	}
	switch s.typ {
	case Overloaded, FullyBusy:
		if is.avgLoad <= s.avgLoad {
			return false
		}
	case HasSpare:
		if is.idle > s.idle {
			return false
		}
		if is.idle == s.idle && is.util <= s.util {
			return false
		}
	}
	return true
}

// randomWakeGroup returns a group's sums, capacity and weight in a domain of imbalance_pct pct,
// near the boundaries of the classification: as many tasks as CPUs or one more or fewer, and a
// capacity of 100*pct*j, whose utilisation and runnable time at the boundaries are whole
// (10000*j and pct*pct*j), so that utilisation and runnable time fall on them, one above or
// below, or anywhere; loads up to 2^44, so that avg_load passes UINT_MAX at times; few idle
// counts and utilisations, so that they tie.
func randomWakeGroup(r *rand.Rand, pct uint64) (Sum, uint64, uint32) {
	w := uint32(1 + r.IntN(16))
	j := uint64(1 + r.IntN(int(w)))
	c := 100 * pct * j
	near := func(at uint64) uint64 {
		switch r.IntN(4) {
		case 0:
			return at - 1
		case 1:
			return at
		case 2:
			return at + 1
		}
		return r.Uint64N(2 * at)
	}
	s := Sum{Util: near(10000 * j), Runnable: near(pct * pct * j), Idle: uint32(r.IntN(3))}
	s.NrRunning = max(w+uint32(r.IntN(3)), 1) - 1
	if r.IntN(2) == 0 {
		s.Util = uint64(r.IntN(3)) * 5000 * j
	}
	switch r.IntN(3) {
	case 0:
		s.Load = uint64(r.IntN(4)) * c
	case 1:
		s.Load = r.Uint64N(1 << 44)
	default:
		s.Load = (1<<32 - 1 + uint64(r.IntN(3))) * c / 1024
	}
	return s, c, w
}

// TestWakeMatchesNaive checks Sum.Wake's key against the model of update_sg_wakeup_stats: its
// type, and avg_load or idle_cpus where find_idlest_group reads them; and update_pick_idlest
// over random runs of groups, from idlest_sgs as find_idlest_group sets it, against the keys'
// Less from Root. It fails unless every type and both outcomes of the pick were seen.
func TestWakeMatchesNaive(t *testing.T) {
	var types [Overloaded + 1]int
	var picks [2]int
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		pct := []uint64{110, 117, 125}[r.IntN(3)]
		for range 500 {
			is := naiveStats{avgLoad: 1<<32 - 1, typ: Overloaded}
			ik, naive, fast := Root, -1, -1
			for i := range 1 + r.IntN(16) {
				s, c, w := randomWakeGroup(r, pct)
				want, k := naiveWake(s, c, w, pct), s.Wake(c, w, pct)
				types[want.typ]++
				if k.Type() != want.typ {
					t.Fatalf("%+v capacity %d weight %d pct %d: type %d, want %d", s, c, w, pct, k.Type(), want.typ)
				}
				if k.AvgLoad() != want.avgLoad || want.typ == HasSpare && k.Idle() != want.idle {
					t.Fatalf("%+v capacity %d weight %d pct %d: avg_load %d idle %d, want %+v", s, c, w, pct, k.AvgLoad(), k.Idle(), want)
				}
				pick := naivePick(is, want)
				picks[b2u(pick)]++
				if pick {
					is, naive = want, i
				}
				if k.Less(ik) {
					ik, fast = k, i
				}
				if fast != naive {
					t.Fatalf("seed %d: group %d (%+v, capacity %d, weight %d): the keys chose %d, update_pick_idlest %d", seed, i, s, c, w, fast, naive)
				}
			}
		}
	}
	for ty, n := range types {
		if Type(ty) != HasSpare && Type(ty) != FullyBusy && Type(ty) != Overloaded {
			continue
		}
		if n < 1000 {
			t.Errorf("type %d seen %d times only", ty, n)
		}
	}
	if picks[0] < 1000 || picks[1] < 1000 {
		t.Errorf("picks taken and refused: %v", picks)
	}
}

// TestOneCPU checks that the sums of a group of one CPU are the Index's sums of that CPU alone.
func TestOneCPU(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for range 1000 {
		var x Index
		x.Init(1, [][]int32{{0}})
		st := randomStat(r)
		x.Update(0, Stat{}, st)
		if got, want := OneCPU(st), *x.Sum(0); got != want {
			t.Fatalf("%+v: OneCPU %+v, the Index's %+v", st, got, want)
		}
	}
}

// TestKeyFollowsSums reads random groups' Keys between random changes of random CPUs, for
// imbalance_pcts that change now and then, and checks each against Sum.Wake of the group's
// sums as they are. It fails unless the Keys kept from an earlier read were returned and
// made anew about as often as each other.
func TestKeyFollowsSums(t *testing.T) {
	var kept, made int
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 9))
		n, ngroups := 1+r.IntN(40), 1+r.IntN(10)
		_, groupsOf := randomGroups(r, n, ngroups)
		var x Index
		x.Init(ngroups, groupsOf)
		stats := make([]Stat, n)
		caps := make([]uint64, ngroups)
		weights := make([]uint32, ngroups)
		for g := range caps {
			caps[g], weights[g] = uint64(1+r.IntN(8))*1024, uint32(1+r.IntN(8))
		}
		pct := uint64(117)
		for range 3000 {
			switch r.IntN(4) {
			case 0:
				c := r.IntN(n)
				now := randomStat(r)
				x.Update(c, stats[c], now)
				stats[c] = now
			case 1:
				if r.IntN(20) == 0 {
					pct = []uint64{110, 117, 125}[r.IntN(3)]
				}
			default:
				g := r.IntN(ngroups)
				fresh := x.sums[g].pct != pct
				want := x.Sum(g).Wake(caps[g], weights[g], pct)
				if got := x.Key(g, caps[g], weights[g], pct); got != want {
					t.Fatalf("seed %d: group %d pct %d: Key %+v, its sums' %+v", seed, g, pct, got, want)
				}
				if fresh {
					made++
				} else {
					kept++
				}
			}
		}
	}
	if kept < 5000 || made < 5000 {
		t.Errorf("Keys kept %d, made anew %d", kept, made)
	}
}
