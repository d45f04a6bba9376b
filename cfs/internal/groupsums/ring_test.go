package groupsums

import (
	"math/rand/v2"
	"testing"
)

// naiveRing is find_idlest_group's walk of a ring's groups from position local+1 round to
// local-1, each group's statistics made by the model from its CPUs (naiveSum, naiveWake) and
// update_pick_idlest (naivePick) keeping the first strictly idler, from idlest_sgs' start:
// overloaded at avg_load UINT_MAX. It returns the position of the idlest, -1 for none, and
// how many groups share its statistics.
func naiveRing(stats []Stat, members [][]int, ring []int, caps []uint64, ws []uint32, pct uint64, local int) (int, int) {
	is := naiveStats{typ: Overloaded, avgLoad: 1<<32 - 1}
	idlest := -1
	n := len(ring)
	all := make([]naiveStats, n)
	for i := range n {
		all[i] = naiveWake(naiveSum(stats, members[ring[i]]), caps[i], ws[i], pct)
	}
	for j := 1; j < n; j++ {
		i := (local + j) % n
		if naivePick(is, all[i]) {
			idlest, is = i, all[i]
		}
	}
	ties := 0
	for i := range n {
		if idlest >= 0 && i != local && !naivePick(all[idlest], all[i]) && !naivePick(all[i], all[idlest]) {
			ties++
		}
	}
	return idlest, ties
}

// tieStat returns a CPU's statistics from few values, so that groups tie, with now and then a
// load that takes a group's avg_load to UINT_MAX or past it.
func tieStat(r *rand.Rand) Stat {
	nr := uint32(r.IntN(4))
	st := Stat{NrRunning: nr, HNrRunning: nr, Runnable: uint64(nr) * 1024,
		Util: uint64(r.IntN(3)) * 512, Load: uint64(r.IntN(3)) * 1024}
	if r.IntN(40) == 0 {
		st.Load = (1<<32 - 2 + uint64(r.IntN(3))) * 4096 / 1024
	}
	return st
}

// TestRingMatchesWalk keeps rings of disjoint groups (and groups in no ring that overlap
// them) through random changes of random CPUs, and checks RingLeast from every local
// position against the model's walk of the ring in the kernel's order. It fails unless
// answers of ties after a wrap past the ring's end, and none at all, were seen.
func TestRingMatchesWalk(t *testing.T) {
	var wrapped, nothing, checks int
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 31))
		nring := 2 + r.IntN(20)
		if seed%10 == 0 {
			nring = RingMax
		}
		var members [][]int
		n := 0
		for range nring {
			size := 2 + r.IntN(3)
			var m []int
			for range size {
				m = append(m, n)
				n++
			}
			members = append(members, m)
		}
		for range 3 { // groups in no ring, overlapping the others
			var m []int
			for c := range n {
				if r.IntN(3) == 0 {
					m = append(m, c)
				}
			}
			members = append(members, m)
		}
		groupsOf := make([][]int32, n)
		for g, m := range members {
			for _, c := range m {
				groupsOf[c] = append(groupsOf[c], int32(g))
			}
		}
		var x Index
		x.Init(len(members), groupsOf)
		// Two rings, each of a random order of its groups.
		perm := r.Perm(nring)
		cut := 1 + r.IntN(nring-1)
		if cut < 2 || nring-cut < 2 {
			cut = nring
		}
		type ringCase struct {
			id   int
			ring []int
			caps []uint64
			ws   []uint32
			pct  uint64
		}
		var rings []ringCase
		for _, part := range [][]int{perm[:cut], perm[cut:]} {
			if len(part) < 2 {
				continue
			}
			rc := ringCase{ring: part, pct: []uint64{110, 117}[r.IntN(2)]}
			ids := make([]int32, len(part))
			for i, g := range part {
				ids[i] = int32(g)
				rc.caps = append(rc.caps, uint64(len(members[g]))*1024-uint64(r.IntN(3))*100)
				rc.ws = append(rc.ws, uint32(len(members[g])))
			}
			rc.id = x.AddRing(ids, rc.caps, rc.ws, rc.pct)
			rings = append(rings, rc)
		}
		stats := make([]Stat, n)
		for range 400 {
			for range 1 + r.IntN(4) {
				c := r.IntN(n)
				now := tieStat(r)
				x.Update(c, stats[c], now)
				stats[c] = now
			}
			rc := rings[r.IntN(len(rings))]
			for local := range rc.ring {
				want, ties := naiveRing(stats, members, rc.ring, rc.caps, rc.ws, rc.pct, local)
				got, k, lk := x.RingLeast(rc.id, local)
				if wk := x.Sum(rc.ring[local]).Wake(rc.caps[local], rc.ws[local], rc.pct); lk != wk {
					t.Fatalf("seed %d: RingLeast's Key of local %+v, the group's %+v", seed, lk, wk)
				}
				if got != want {
					t.Fatalf("seed %d ring %v local %d: RingLeast %d, the walk %d", seed, rc.ring, local, got, want)
				}
				checks++
				if got < 0 {
					nothing++
					continue
				}
				if wk := x.Sum(rc.ring[got]).Wake(rc.caps[got], rc.ws[got], rc.pct); k != wk {
					t.Fatalf("seed %d: RingLeast's Key %+v, the group's %+v", seed, k, wk)
				}
				if ties > 1 && got < local {
					wrapped++
				}
			}
		}
	}
	t.Logf("%d checks: %d wrapped ties, %d none", checks, wrapped, nothing)
	if wrapped < 100 || nothing < 10 {
		t.Errorf("%d checks: %d ties answered after a wrap, %d with no group", checks, wrapped, nothing)
	}
}

// TestAddRingPanics checks AddRing's refusals.
func TestAddRingPanics(t *testing.T) {
	var x Index
	x.Init(3, [][]int32{{0, 1, 2}, {0, 1, 2}})
	x.AddRing([]int32{0, 1}, []uint64{2048, 2048}, []uint32{2, 2}, 117)
	for name, f := range map[string]func(){
		"one group":    func() { x.AddRing([]int32{2}, []uint64{2048}, []uint32{2}, 117) },
		"lengths":      func() { x.AddRing([]int32{2, 2}, []uint64{2048}, []uint32{2, 2}, 117) },
		"in two rings": func() { x.AddRing([]int32{2, 1}, []uint64{2048, 2048}, []uint32{2, 2}, 117) },
		"too many":     func() { x.AddRing(make([]int32, RingMax+1), make([]uint64, RingMax+1), make([]uint32, RingMax+1), 117) },
	} {
		func() {
			defer func() {
				if v, ok := recover().(string); !ok || len(v) < 10 || v[:10] != "groupsums:" {
					t.Errorf("%s: recovered %v", name, v)
				}
			}()
			f()
		}()
	}
}
