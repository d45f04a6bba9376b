package ule

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// wantIndex returns the loadIndex that s.Loads call for, built from nothing with the setters.
func wantIndex(s *System) *loadIndex {
	ix := new(loadIndex)
	ix.pairOn, ix.home = s.ix.pairOn, s.ix.home
	for c := range s.Topology.CPUs().All() {
		ld := &s.Loads[c]
		if s.ix.priOn {
			ix.setLowPri(c, 0, ld.LowPri)
		}
		for l := range ld.Load {
			ix.loadUp(&CPUState{ID: c, sum: &CPULoad{Load: l}})
		}
		ix.setXfer(c, ld.Transferable != 0)
	}
	return ix
}

// checkIndex verifies loadIndex's invariant: s.ix records s.Loads, if it is kept (the pair
// totals too, if they are kept).
func checkIndex(t testing.TB, s *System) {
	t.Helper()
	if !s.ix.stealOn {
		return
	}
	want := wantIndex(s)
	got := &s.ix
	if got.pri != want.pri || got.loaded != want.loaded || got.top < want.top || got.xfer != want.xfer || got.big != want.big ||
		got.pairLevel != want.pairLevel || got.pairSum != want.pairSum || got.nodeSum != want.nodeSum {
		for c := range s.Topology.CPUs().All() {
			t.Logf("cpu%d: %+v", c, s.Loads[c])
		}
		t.Fatalf("the load index does not record Loads: top %d big %d xfer %x, want %d (at least) %d %x",
			got.top, got.big, got.xfer, want.top, want.big, want.xfer)
	}
}

// resyncIndex makes s.ix record s.Loads after a test wrote them directly.
func resyncIndex(s *System) {
	w := wantIndex(s)
	s.ix.pri, s.ix.loaded, s.ix.top, s.ix.xfer, s.ix.big = w.pri, w.loaded, w.top, w.xfer, w.big
	s.ix.pairLevel, s.ix.pairSum, s.ix.nodeSum = w.pairLevel, w.pairSum, w.nodeSum
	s.xferCPUs = wantXferCPUs(s)
}

// wantXferCPUs returns the count System.xferCPUs must hold: the CPUs whose Transferable is not
// zero.
func wantXferCPUs(s *System) int32 {
	n := int32(0)
	for c := range s.Topology.CPUs().All() {
		if s.Loads[c].Transferable != 0 {
			n++
		}
	}
	return n
}

// The bit-plane comparator worse agrees with the byte comparison on every priority, for words of
// CPUs with every LowPri value.
func TestIndexWorse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for round := range 64 {
		var ix loadIndex
		var lp [64]uint8
		for c := range lp {
			lp[c] = uint8(r.IntN(256))
			if round == 0 {
				lp[c] = uint8(c * 4) // every fourth value, 0 and 252 among them
			}
			ix.setLowPri(topology.CPU(c), 0, lp[c])
		}
		for pri := int32(-1); pri <= 256; pri++ {
			var want uint64
			for c := range lp {
				if int32(lp[c]) > pri {
					want |= 1 << c
				}
			}
			if got := ix.worse(0, pri); got != want {
				t.Fatalf("worse(0, %d) = %#x, want %#x (LowPri %v)", pri, got, want, lp)
			}
		}
	}
}

// lowestIDRunIx chooses the CPU the kernel's recursion (refLowest) chooses and leaves the
// generator in the same state, on leaves of consecutive ids from 1 to 1024 CPUs (one word, a
// word and a bit, several words, leaves not starting at a word's first bit), with random loads
// (most of them small, so that many CPUs tie; some up to bigLoad-1; some leaves with no idle
// CPU), random LowPri (idle CPUs at PriMaxIdle, as in a consistent state, or anything), every
// priority from -1 to 255, the preferred CPU inside and outside the leaf, running or not.
func TestLowestIDRunIxMatchesRecursion(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 1, 1),
		topology.Uniform(1, 1, 1, 4, 1),
		topology.Uniform(1, 1, 1, 63, 1),
		topology.Uniform(1, 1, 1, 64, 1),
		topology.Uniform(1, 1, 1, 65, 1),
		topology.Uniform(1, 1, 1, 100, 1),
		topology.Uniform(1, 1, 1, 1024, 1),
		topology.Uniform(1, 1, 4, 24, 1), // leaves of 24 CPUs across word boundaries
		topology.Uniform(2, 1, 2, 40, 1),
	}
	r := rand.New(rand.NewPCG(23, 4))
	wins := map[string]int{}
	for i := range 3000 {
		top := tops[i%len(tops)]
		s, err := newSystem(DefaultParams(), top, 1)
		if err != nil {
			t.Fatal(err)
		}
		maxLoad := []int{1, 2, 4, 50, bigLoad}[r.IntN(5)]
		noIdle := r.IntN(3) == 0
		anyPri := r.IntN(4) == 0
		for c := range top.CPUs().All() {
			l := int32(r.IntN(maxLoad))
			if noIdle && l == 0 {
				l = 1 + int32(r.IntN(3))
			}
			lp := uint8(56 + r.IntN(200))
			if l == 0 || r.IntN(8) == 0 {
				lp = PriMaxIdle
			}
			if anyPri {
				lp = uint8(r.IntN(256))
			}
			s.Loads[c] = CPULoad{Load: l, LowPri: lp}
		}
		s.ix.priOn = true // a machine of one CPU has no group lowest would search with the index
		resyncIndex(s)
		for range 4 {
			pri := int32(r.IntN(257)) - 1
			if r.IntN(3) == 0 {
				pri = int32(s.Loads[r.IntN(top.NumCPUs())].LowPri) - int32(r.IntN(2)) // ties with some CPU's LowPri
			}
			prefer := int32(r.IntN(top.NumIDs()+2)) - 1
			running := r.IntN(2) == 0
			for _, g := range top.AllGroups() {
				nd := &s.tree.nodes[g.ID()]
				if !(nd.idLo < nd.idHi) {
					continue
				}
				seed := r.Uint64()
				a, b := NewRand(0, seed), NewRand(0, seed)
				ga := lowestArgs{loads: s.loads, mask: &s.all, pri: pri, maxLoad: math.MaxInt32, prefer: prefer, running: running, rnd: &a, full: true}
				wa := ga
				wa.rnd = &b
				gc := s.tree.lowestIDRunIx(nd, &ga, &s.ix)
				_, wc, _ := s.tree.refLowest(int32(g.ID()), &wa)
				if gc != wc || a.State() != b.State() {
					t.Fatalf("%v %v pri %d prefer %d running %t: lowestIDRunIx = %d rnd %#x, recursion %d rnd %#x",
						top, g, pri, prefer, running, gc, a.State(), wc, b.State())
				}
				switch {
				case wc < 0:
					wins["none"]++
				case wc == prefer:
					wins["prefer"]++
				case s.Loads[wc].Load == 0:
					wins["idle"]++
				default:
					wins["busy"]++
				}
			}
		}
	}
	// Every way of winning was exercised.
	for _, k := range []string{"none", "prefer", "idle", "busy"} {
		if wins[k] < 50 {
			t.Errorf("only %d searches won by %s: %v", wins[k], k, wins)
		}
	}
}

// The searches of Add and Switch (which read the index) and of PickCPU (which reads Loads)
// agree while the index records Loads: the same CPU, reason and draws for random threads on
// random states of machines whose cache group is one leaf of consecutive ids.
func TestPickCPUWithIndexMatchesLoads(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 64, 1),
		topology.Uniform(1, 1, 1, 200, 1),
		topology.Uniform(1, 1, 4, 16, 1),
	}
	r := rand.New(rand.NewPCG(5, 77))
	for i := range 600 {
		top := tops[i%len(tops)]
		s, err := newSystem(DefaultParams(), top, 1)
		if err != nil {
			t.Fatal(err)
		}
		for c := range top.CPUs().All() {
			l := int32(r.IntN(4))
			lp := uint8(PriMaxIdle)
			if l > 0 {
				lp = uint8(56 + r.IntN(190))
			}
			s.Loads[c] = CPULoad{Load: l, LowPri: lp}
		}
		resyncIndex(s)
		all := top.CPUs()
		for range 8 {
			pri := uint8(56 + r.IntN(190))
			th := InitThread(&Thread{Priority: pri, UserPri: pri, Affinity: all, CPU: topology.CPU(r.IntN(top.NumCPUs()))})
			th.RLTick = uint32(1000 - r.IntN(400))
			if r.IntN(2) == 0 {
				th.State = Running
			}
			self := topology.CPU(r.IntN(top.NumCPUs()))
			seed := r.Uint64()
			a, b := NewRand(0, seed), NewRand(0, seed)
			gc, gwhy := s.pickCPU(th, self, 1000, 0, false, &a, &s.ix)
			wc, wwhy := s.PickCPU(th, self, 1000, 0, false, &b)
			if gc != wc || gwhy != wwhy || a.State() != b.State() {
				t.Fatalf("%v: pickCPU with the index = %d (%v) rnd %#x, PickCPU %d (%v) rnd %#x", top, gc, gwhy, a.State(), wc, wwhy, b.State())
			}
		}
	}
}

// Steal reading the load index (stealIx: its candidates from the masks, stealFew's climb for a few,
// stealMany with highestLeafIx or a full search for more) agrees with the kernel's tdq_idled and
// tdq_trysteal (refSteal) exactly: the same victim, thread and reason and the same draws, on
// states built by queueing threads (so that the index is kept by the CPUStates), dense and
// sparse or only in the upper half of the machine (so that thieves climb), with pinned threads
// that make victims refuse, on flat machines of up to 1024 CPUs and
// machines of several cache groups and SMT cores, for every thief and trysteal limit.
func TestStealIxMatchesReference(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 2, 1),
		topology.Uniform(1, 1, 1, 64, 1),
		topology.Uniform(1, 1, 1, 100, 1),
		topology.Uniform(1, 1, 1, 1024, 1),
		topology.Uniform(1, 1, 4, 16, 1),
		topology.Uniform(2, 1, 2, 8, 2),
		topology.Uniform(2, 1, 3, 3, 2),
		topology.TwoSocketSMT(),
		topology.FourLLC(),
	}
	ways := map[string]int{}
	for seed := range uint64(90) {
		r := rand.New(rand.NewPCG(seed, 41))
		top := tops[int(seed)%len(tops)]
		s, err := newSystem(DefaultParams(), top, 1) // the index on small machines too
		if err != nil {
			t.Fatal(err)
		}
		all := top.CPUs()
		id := 0
		dense := r.IntN(4) // 0: sparse, 1: mixed, 2: dense, 3: dense in the upper half only
		for c := range all.All() {
			if (r.IntN(4) == 0 && dense < 2) || (dense == 3 && int(c) < top.NumCPUs()/2) {
				continue
			}
			n := r.IntN(4)
			if dense == 0 && r.IntN(8) != 0 {
				n = r.IntN(2)
			}
			loadedCPU(&s.CPUs[c], n, r, all, &id)
			for th := range s.CPUs[c].Queued() {
				if r.IntN(4) == 0 {
					th.Affinity = topology.CPUSetOf(c)
				}
			}
		}
		checkIndex(t, s)
		thieves := 0
		for thief := range all.All() {
			if s.Loads[thief].Load != 0 && r.IntN(4) != 0 {
				continue
			}
			if thieves++; thieves > 40 {
				break
			}
			for _, limit := range []int{0, 1, 2} {
				a, b := NewRand(thief, seed), NewRand(thief, seed)
				var gr StealReason
				gv, gt := s.steal(thief, limit, &a, &s.ix, &gr)
				wv, wt, wr := refSteal(s, thief, limit, &b)
				if gv != wv || gt != wt || gr != wr || a.State() != b.State() {
					t.Fatalf("seed %d %v thief cpu%d limit %d: steal with the index = cpu%d %v %+v rnd %d, reference cpu%d %v %+v rnd %d",
						seed, top, thief, limit, gv, gt, gr, a.State(), wv, wt, wr, b.State())
				}
				switch {
				case gr.Rule == StealHasWork:
					ways["has work"]++
				case gt != nil && gr.Refused > 0:
					ways["found after a refusal"]++
				case gt != nil:
					ways["found"]++
				default:
					ways["none"]++
				}
			}
		}
	}
	for _, k := range []string{"has work", "found after a refusal", "found", "none"} {
		if ways[k] < 20 {
			t.Errorf("only %d searches ended %s: %v", ways[k], k, ways)
		}
	}
}

// highestLeafIx chooses the CPU highestLeaf chooses and draws the same, for random candidate
// masks over leaves of every shape (consecutive ids, SMT siblings numbered apart, 1024 CPUs, in
// one mask word or several), with the index's top exact or far above every load.
func TestHighestLeafIxMatchesLeaf(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 64, 1),
		topology.Uniform(1, 1, 1, 1024, 1),
		topology.Uniform(1, 1, 4, 24, 1),
		topology.Uniform(2, 1, 2, 8, 2),
		topology.TwoSocketSMT(),
		topology.FourLLC(),
	}
	r := rand.New(rand.NewPCG(8, 13))
	for i := range 1500 {
		top := tops[i%len(tops)]
		s, err := newSystem(DefaultParams(), top, 1)
		if err != nil {
			t.Fatal(err)
		}
		maxLoad := []int{2, 4, 30, bigLoad}[r.IntN(4)]
		minLoad := int32(r.IntN(4))
		var cand cpuBits
		for c := range top.CPUs().All() {
			l := int32(r.IntN(maxLoad))
			xf := int32(r.IntN(2))
			s.Loads[c] = CPULoad{Load: l, Transferable: xf, LowPri: PriMaxIdle}
			if l >= minLoad && xf >= 1 && r.IntN(6) != 0 {
				cand[c>>6] |= 1 << (c & 63)
			}
		}
		resyncIndex(s)
		if r.IntN(3) == 0 {
			s.ix.top = bigLoad - 1 // a high-water mark far above every load
		}
		for _, g := range top.AllGroups() {
			nd := &s.tree.nodes[g.ID()]
			if nd.kidHi != nd.kidLo || s.tree.candLeaf(int32(g.ID()), &cand) < 0 {
				continue
			}
			seed := r.Uint64()
			a, b := NewRand(0, seed), NewRand(0, seed)
			gc := s.tree.highestLeafIx(nd, &a, &s.ix, &cand)
			wa := highestArgs{loads: s.loads, mask: &cand, minLoad: minLoad, minTrans: 1, rnd: &b}
			_, wc, _ := s.tree.highestLeaf(nd, &wa)
			if gc != wc || a.State() != b.State() {
				t.Fatalf("%v %v: highestLeafIx = %d rnd %#x, highestLeaf %d rnd %#x", top, g, gc, a.State(), wc, b.State())
			}
		}
	}
}

// drawJumps chooses what the kernel's loops choose when only the CPUs of cand can
// win: the loop draws once for each bit of acc from the highest down, and the first bit of cand
// with the greatest draw (cpu_search_lowest) or the least (cpu_search_highest) wins. On random
// words (dense, sparse, empty, full) and random generator states.
func TestDrawJumps(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 8))
	stops := 0
	for i := range 20000 {
		var acc uint64
		switch i % 4 {
		case 0:
			acc = r.Uint64()
		case 1:
			acc = r.Uint64() & r.Uint64() & r.Uint64()
		case 2:
			acc = ^uint64(0)
		case 3:
			acc = uint64(r.IntN(2))
		}
		cand := acc & (r.Uint64() | r.Uint64())
		if i%7 == 0 {
			cand = acc
		}
		x0 := r.Uint32()
		// The kernel's loops: a draw for every bit of acc, from the highest down;
		// cpu_search_lowest keeps the first greatest (x>>16)%128, cpu_search_highest the
		// first least (x>>16)%256.
		wantLow, wantHigh, bestLow, bestHigh := int32(-1), int32(-1), int32(-1), int32(256)
		x := x0
		for b := int32(63); b >= 0; b-- {
			if acc>>b&1 == 0 {
				continue
			}
			x = x*69069 + 5
			if r := int32(x>>16) % 128; cand>>b&1 != 0 && r > bestLow {
				wantLow, bestLow = b, r
			}
			if r := int32(x>>16) % 256; cand>>b&1 != 0 && r < bestHigh {
				wantHigh, bestHigh = b, r
			}
		}
		if bestLow == 127 {
			stops++
		}
		for _, tc := range []struct{ flip, rmask, want int32 }{{0, 127, wantLow}, {-1, 255, wantHigh}} {
			if got := drawJumps(acc, cand, x0, tc.flip, tc.rmask); got != tc.want {
				t.Fatalf("drawJumps(%#x, %#x, %#x, %d, %d) = %d, want %d", acc, cand, x0, tc.flip, tc.rmask, got, tc.want)
			}
		}
	}
	if stops < 100 {
		t.Errorf("only %d searches stopped at the largest draw", stops)
	}
}

// The searches of groups of SMT pairs with the index (lowestPairsIx, under lowest's recursion
// and from System.lowest) return what the kernel's recursion (refLowest) returns — the total,
// the CPU and its randomised load — and leave the generator in the same state: on machines of
// SMT pairs numbered side by side (one or several packages and caches, up to 1024 CPUs) and of
// siblings numbered apart (which the index leaves to the loops), with random loads (light, heavy,
// some up to bigLoad-1), LowPri (idle CPUs at PriMaxIdle, or anything), every priority from -1,
// masks holding every CPU or not, no load limit or one, the preferred CPU anywhere or outside
// the machine, running or not.
func TestLowestPairsIxMatchesRecursion(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 2, 2),
		topology.Uniform(2, 1, 1, 16, 2), // bench/sim's mixed machine
		topology.Uniform(1, 1, 1, 32, 2), // a group of 64 CPUs: one whole word
		topology.Uniform(2, 1, 3, 5, 2),
		topology.Uniform(1, 1, 3, 11, 2), // the last cache's pairs cross a word boundary
		topology.Uniform(2, 2, 2, 4, 2),
		topology.Uniform(16, 1, 1, 32, 2), // 1024 CPUs
		topology.Uniform(1, 1, 1, 48, 2),  // a group of 96 CPUs: more than a word
		topology.TwoSocketSMT(),
		topology.FourLLC(),
	}
	r := rand.New(rand.NewPCG(29, 3))
	wins := map[string]int{}
	for i := range 1500 {
		top := tops[i%len(tops)]
		s, err := newSystem(DefaultParams(), top, 1)
		if err != nil {
			t.Fatal(err)
		}
		maxLoad := []int{1, 2, 4, 20, bigLoad}[r.IntN(5)]
		anyPri := r.IntN(4) == 0
		for c := range top.CPUs().All() {
			l := int32(r.IntN(maxLoad))
			lp := uint8(56 + r.IntN(200))
			if l == 0 || r.IntN(8) == 0 {
				lp = PriMaxIdle
			}
			if anyPri {
				lp = uint8(r.IntN(256))
			}
			s.Loads[c] = CPULoad{Load: l, LowPri: lp}
		}
		resyncIndex(s)
		for range 4 {
			pri := int32(r.IntN(257)) - 1
			if r.IntN(3) == 0 {
				pri = int32(s.Loads[r.IntN(top.NumCPUs())].LowPri) - int32(r.IntN(2))
			}
			prefer := int32(r.IntN(top.NumIDs()+2)) - 1
			running := r.IntN(2) == 0
			lim := int32(math.MaxInt32)
			if r.IntN(5) == 0 {
				lim = int32(r.IntN(4))
			}
			mask := &s.all
			if r.IntN(4) == 0 {
				m := s.all
				m.remove(topology.CPU(r.IntN(top.NumIDs())))
				mask = &m
			}
			for _, g := range top.AllGroups() {
				if g.IsLeaf() {
					continue
				}
				seed := r.Uint64()
				a, b := NewRand(0, seed), NewRand(0, seed)
				ga := lowestArgs{loads: s.loads, mask: mask, pri: pri, maxLoad: lim, prefer: prefer, running: running, rnd: &a, full: mask == &s.all, ix: &s.ix}
				wa := ga
				wa.rnd, wa.ix = &b, nil
				gt, gc, gl := s.tree.lowest(int32(g.ID()), &ga)
				wt, wc, wl := s.tree.refLowest(int32(g.ID()), &wa)
				if gt != wt || gc != wc || (gc >= 0 && gl != wl) || a.State() != b.State() {
					t.Fatalf("%v %v pri %d lim %d prefer %d running %t: lowest with the index = %d %d %d rnd %#x, recursion %d %d %d rnd %#x",
						top, g, pri, lim, prefer, running, gt, gc, gl, a.State(), wt, wc, wl, b.State())
				}
				// The same search from System.lowest, as PickCPU makes it.
				c, d := NewRand(0, seed), NewRand(0, seed)
				sc, sok := s.lowest(g, mask, int(pri), int(lim), topology.CPU(max(prefer, 0)), running, &c, s.ixLow)
				wa.prefer, wa.rnd = max(prefer, 0), &d
				_, wc, _ = s.tree.refLowest(int32(g.ID()), &wa)
				if sok != (wc >= 0) || (sok && int32(sc) != wc) || c.State() != d.State() {
					t.Fatalf("%v %v pri %d lim %d prefer %d running %t: System.lowest = %d %t rnd %#x, recursion %d rnd %#x",
						top, g, pri, lim, prefer, running, sc, sok, c.State(), wc, d.State())
				}
				nd := &s.tree.nodes[g.ID()]
				switch {
				case nd.pairBits == 0 || lim != math.MaxInt32 || mask != &s.all:
				case gc < 0:
					wins["none"]++
				case gc&^1 == prefer&^1:
					wins["preferred pair"]++
				case s.Loads[gc].Load == 0:
					wins["idle"]++
				default:
					wins["busy"]++
				}
			}
		}
	}
	for _, k := range []string{"none", "preferred pair", "idle", "busy"} {
		if wins[k] < 50 {
			t.Errorf("only %d searches of groups of pairs won by %s: %v", wins[k], k, wins)
		}
	}
}
