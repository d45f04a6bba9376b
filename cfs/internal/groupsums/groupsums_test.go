package groupsums

import (
	"math/rand/v2"
	"testing"
)

// naiveSum is the model: group g's sums added up CPU by CPU, as update_sg_lb_stats does.
func naiveSum(stats []Stat, members []int) Sum {
	var s Sum
	for _, c := range members {
		st := stats[c]
		s.Load += st.Load
		s.Util += st.Util
		s.Runnable += st.Runnable
		s.NrRunning += st.NrRunning
		s.HNrRunning += st.HNrRunning
		if st.NrRunning == 0 {
			s.Idle++
		}
		if st.NrRunning > 1 {
			s.Multi++
		}
	}
	return s
}

// randomGroups returns ngroups random groups of several CPUs of n, overlapping at will, as
// member lists and as the Index's groupsOf.
func randomGroups(r *rand.Rand, n, ngroups int) ([][]int, [][]int32) {
	members := make([][]int, ngroups)
	groupsOf := make([][]int32, n)
	for g := range members {
		for c := range n {
			if r.IntN(3) == 0 {
				members[g] = append(members[g], c)
				groupsOf[c] = append(groupsOf[c], int32(g))
			}
		}
	}
	return members, groupsOf
}

// randomStat returns a CPU's statistics, idle a third of the time, with counters large enough
// that a careless sum would overflow 32 bits.
func randomStat(r *rand.Rand) Stat {
	if r.IntN(3) == 0 {
		return Stat{Util: uint64(r.IntN(300))} // blocked utilisation decays on an idle CPU
	}
	nr := uint32(1 + r.IntN(4))
	return Stat{Load: r.Uint64N(1 << 40), Util: uint64(r.IntN(1025)), Runnable: uint64(nr) * 1024,
		NrRunning: nr, HNrRunning: uint32(r.IntN(int(nr) + 1))}
}

// TestIndexMatchesNaive applies random changes of random CPUs and checks every group's sums
// against the CPU-by-CPU model after each one.
func TestIndexMatchesNaive(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		n, ngroups := 1+r.IntN(70), 1+r.IntN(12)
		members, groupsOf := randomGroups(r, n, ngroups)
		var x Index
		x.Init(ngroups, groupsOf)
		stats := make([]Stat, n)
		for step := range 500 {
			c := r.IntN(n)
			now := randomStat(r)
			x.Update(c, stats[c], now)
			stats[c] = now
			for g := range ngroups {
				if got, want := *x.Sum(g), naiveSum(stats, members[g]); got != want {
					t.Fatalf("seed %d step %d: group %d sums %+v, want %+v", seed, step, g, got, want)
				}
			}
		}
	}
}

// TestInitIdle: a new Index counts every member CPU idle and nothing else.
func TestInitIdle(t *testing.T) {
	var x Index
	x.Init(3, [][]int32{{0, 1}, {0}, {}, {1, 2}})
	for g, want := range []Sum{{Idle: 2}, {Idle: 2}, {Idle: 1}} {
		if got := *x.Sum(g); got != want {
			t.Errorf("group %d: %+v, want %+v", g, got, want)
		}
	}
	// A CPU of no group of several CPUs changes nothing.
	x.Update(2, Stat{}, Stat{Load: 5, NrRunning: 2})
	if got := *x.Sum(0); got != (Sum{Idle: 2}) {
		t.Errorf("after a change of CPU 2: group 0 %+v", got)
	}
}

func TestInitPanics(t *testing.T) {
	for _, gs := range [][][]int32{{{3}}, {{-1}}} {
		func() {
			defer func() {
				if r := recover(); r == nil || r.(string)[:10] != "groupsums:" {
					t.Errorf("Init(3, %v): recovered %v, want a groupsums panic", gs, r)
				}
			}()
			var x Index
			x.Init(3, gs)
		}()
	}
}

// FuzzIndex drives an Index with changes decoded from the input and checks it against the
// model at the end.
func FuzzIndex(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 0, 0, 255, 255, 255, 17})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		r := rand.New(rand.NewPCG(uint64(in[0]), uint64(in[1])))
		n, ngroups := 1+int(in[0]%40), 1+int(in[1]%8)
		members, groupsOf := randomGroups(r, n, ngroups)
		var x Index
		x.Init(ngroups, groupsOf)
		stats := make([]Stat, n)
		for i := 2; i+1 < len(in); i += 2 {
			c := int(in[i]) % n
			v := uint64(in[i+1])
			now := Stat{Load: v << 30, Util: v, Runnable: v * 7, NrRunning: uint32(v % 4), HNrRunning: uint32(v % 3)}
			x.Update(c, stats[c], now)
			stats[c] = now
		}
		for g := range ngroups {
			if got, want := *x.Sum(g), naiveSum(stats, members[g]); got != want {
				t.Fatalf("group %d sums %+v, want %+v", g, got, want)
			}
		}
	})
}
