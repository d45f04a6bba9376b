package loadindex

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// The bit-plane comparator worse agrees with comparing each CPU's LowPri with pri: on words of
// CPUs with every LowPri value (set through SetLowPri from the values before), every priority
// from -2 to 257 and the extremes, and every mask word.
func TestIndexWorse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	top := topology.Uniform(1, 1, 1, 1024, 1)
	var loads [topology.MaxCPUs]CPULoad
	ix := New(top, &loads, 1)
	pris := []int32{math.MinInt32, math.MaxInt32, -1000, 1000}
	for pri := int32(-2); pri <= 257; pri++ {
		pris = append(pris, pri)
	}
	for round := range 64 {
		w := r.IntN(topology.SetWords)
		for b := range 64 {
			c := topology.CPU(w<<6 | b)
			lp := uint8(r.IntN(256))
			if round == 0 {
				lp = uint8(b * 4) // every fourth value, 0 and 252 among them
			}
			ix.SetLowPri(c, loads[c].LowPri, lp)
			loads[c].LowPri = lp
		}
		for _, pri := range pris {
			var want uint64
			for b := range 64 {
				if int32(loads[w<<6|b].LowPri) > pri {
					want |= 1 << b
				}
			}
			if got := ix.worse(w, pri); got != want {
				t.Fatalf("worse(%d, %d) = %#x, want %#x", w, pri, got, want)
			}
		}
	}
}

// After random changes of random CPUs' LowPri (every CPU id, in every mask word, the extreme
// priorities often), each from the value the CPU had, the planes hold every CPU's LowPri, and
// noneWorse(pri) holds exactly when pri is at least the worst LowPri.
func TestSetLowPri(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	top := topology.Uniform(1, 1, 1, 1024, 1)
	var loads [topology.MaxCPUs]CPULoad
	ix := New(top, &loads, 1)
	var lp [topology.MaxCPUs]uint8
	for i := range 200000 {
		c := topology.CPU(r.IntN(topology.MaxCPUs))
		if r.IntN(4) == 0 {
			c = []topology.CPU{0, 63, 64, topology.MaxCPUs - 1}[r.IntN(4)]
		}
		pri := uint8(r.IntN(256))
		if r.IntN(4) == 0 {
			pri = []uint8{0, 255, lp[c]}[r.IntN(3)]
		}
		if i/50000%2 == 1 { // a phase of lower values: the worst LowPri falls and rises again
			pri %= 120
		}
		ix.SetLowPri(c, lp[c], pri)
		lp[c] = pri
		if i%1000 != 0 {
			continue
		}
		for c := range topology.MaxCPUs {
			v := uint8(0)
			for k := range 8 {
				v |= uint8(ix.pri[k][c>>6]>>(c&63)&1) << k
			}
			if v != lp[c] {
				t.Fatalf("cpu %d: planes hold LowPri %d, want %d", c, v, lp[c])
			}
		}
		worst := int32(-1)
		for c := range topology.MaxCPUs {
			worst = max(worst, int32(lp[c]))
		}
		for _, pri := range []int32{-1, 0, worst - 64, worst - 1, worst, worst + 1, 255, 256} {
			if got := ix.noneWorse(pri); got != (pri >= worst) {
				t.Fatalf("noneWorse(%d) = %t with the worst LowPri %d", pri, got, worst)
			}
		}
	}
}

// The index records random states changed one step at a time (loads up and down, priorities,
// transferable threads), on machines of every shape the searches know, loads up to and beyond
// bigLoad included.
func TestIndexRecords(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 64, 1),
		topology.Uniform(2, 1, 1, 16, 2),
		topology.Uniform(1, 1, 3, 11, 2),
		topology.TwoSocketSMT(),
		topology.Uniform(2, 1, 3, 3, 2),  // packages of caches of pairs: their least cache totals kept
		topology.Uniform(4, 1, 16, 8, 2), // bench/sim's BenchmarkHuge
		topology.Uniform(2, 1, 65, 2, 2), // packages of 65 caches: none kept
	}
	r := rand.New(rand.NewPCG(6, 1))
	for _, top := range tops {
		var loads [topology.MaxCPUs]CPULoad
		ix := recorded(top, &loads, 1)
		cpus := top.CPUs()
		for i := range 20000 {
			c := topology.CPU(r.IntN(top.NumIDs()))
			if !cpus.Has(c) {
				continue
			}
			ld := &loads[c]
			switch r.IntN(4) {
			case 0:
				ld.Load++
				ix.LoadUp(c)
			case 1:
				if ld.Load > 0 {
					ix.LoadDown(c)
					ld.Load--
				}
			case 2:
				pri := uint8(r.IntN(256))
				ix.SetLowPri(c, ld.LowPri, pri)
				ld.LowPri = pri
			case 3:
				if ld.Transferable == 0 {
					ix.SetXfer(c, true)
				}
				ld.Transferable++
				if r.IntN(2) == 0 {
					ld.Transferable = 0
					ix.SetXfer(c, false)
				}
			}
			if i%500 == 0 {
				checkIndex(t, ix)
			}
		}
		checkIndex(t, ix)
	}
}

// drawJumps chooses what the kernel's loops choose when only the CPUs of cand can win: the loop
// draws once for each bit of acc from the highest down, and the first bit of cand with the
// greatest draw (cpu_search_lowest) or the least (cpu_search_highest) wins. On random words
// (dense, sparse, one bit, empty, full, the top and bottom bits), candidates that are some of
// acc's bits or all of them between two bits, and random generator states; drawSpan too, where
// acc is one run of bits.
func TestDrawJumps(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 8))
	stops, runs := 0, 0
	for i := range 40000 {
		var acc uint64
		switch i % 6 {
		case 0:
			acc = r.Uint64()
		case 1:
			acc = r.Uint64() & r.Uint64() & r.Uint64()
		case 2:
			acc = ^uint64(0)
		case 3:
			acc = 1 << r.IntN(64)
		case 4:
			acc = []uint64{0, 1, 1 << 63, 1<<63 | 1}[r.IntN(4)]
		case 5:
			acc = r.Uint64() >> r.IntN(64)
		}
		if i%11 == 0 { // one run of bits, lo to hi: drawSpan's case
			lo := r.IntN(64)
			hi := lo + r.IntN(64-lo)
			acc = ^uint64(0) >> (63 - hi) &^ (1<<lo - 1)
		}
		cand := acc & (r.Uint64() | r.Uint64())
		if i%7 == 0 {
			cand = acc
		}
		if i%5 == 1 { // every bit of acc between two bits: drawRun's case
			cand = acc & (^uint64(0) >> r.IntN(64)) &^ (1<<r.IntN(64) - 1)
		}
		x0 := r.Uint32()
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
		if low := acc >> bits.TrailingZeros64(acc); acc != 0 && low&(low+1) == 0 { // a run
			b, rr := drawSpan(63-bits.LeadingZeros64(acc), cand, x0)
			if b != wantLow || (b >= 0 && rr != bestLow) {
				t.Fatalf("drawSpan(%#x, %#x, %#x) = %d %d, want %d %d", acc, cand, x0, b, rr, wantLow, bestLow)
			}
			runs++
		}
		if got := jump(x0, 5); got != ((((x0*69069+5)*69069+5)*69069+5)*69069+5)*69069+5 {
			t.Fatalf("jump(%#x, 5) = %#x", x0, got)
		}
	}
	if stops < 100 || runs < 3000 {
		t.Errorf("only %d searches stopped at the largest draw, %d had acc one run", stops, runs)
	}
}

// The tree's membership test agrees with the topology's own sets, and its parents with the
// topology's.
func TestSearchTreeHolds(t *testing.T) {
	for _, top := range []*topology.Topology{
		topology.Uniform(1, 1, 1, 1, 1),
		topology.Uniform(2, 1, 3, 3, 2),
		topology.Uniform(4, 1, 4, 32, 2),
		topology.TwoSocketSMT(),
	} {
		tr := newSearchTree(top)
		if !tr.ranges {
			t.Fatalf("%v: groups not numbered in preorder", top)
		}
		for _, g := range top.AllGroups() {
			if p := g.Parent(); (p == nil) != (tr.parent[g.ID()] < 0) || (p != nil && int32(p.ID()) != tr.parent[g.ID()]) {
				t.Fatalf("%v: parent of %v is %d", top, g, tr.parent[g.ID()])
			}
			cpus := g.CPUs()
			for c := range top.CPUs().All() {
				if got := tr.holds(int32(g.ID()), c); got != cpus.Has(c) {
					t.Fatalf("%v: holds(%v, cpu%d) = %t, want %t", top, g, c, got, !got)
				}
			}
		}
	}
}

// holdsAll, and a node's run of whole words where it has one (WordsFull over fullLo..fullHi,
// LowestPairGroups' test), answer whether a mask holds every CPU of the node, as the node's own
// set says, for the nodes that keep their mask words (the machines of BenchmarkHuge, whose roots
// and packages are runs of whole words, and smaller ones), on masks of every CPU but a few, of
// whole words, and of every CPU.
func TestHoldsAll(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 41))
	runs := 0
	for _, top := range []*topology.Topology{
		topology.Uniform(2, 1, 3, 3, 2),
		topology.Uniform(4, 1, 16, 8, 2),
		topology.Uniform(2, 1, 8, 32, 2),
		topology.TwoSocketSMT(),
	} {
		tr := newSearchTree(top)
		all := top.CPUs()
		for _, g := range top.AllGroups() {
			nd := &tr.nodes[g.ID()]
			if nd.wordLo == nd.wordHi {
				continue
			}
			if nd.fullLo < nd.fullHi {
				runs++
			}
			cpus := g.CPUs()
			for i := range 40 {
				mask := all
				switch i % 4 {
				case 0:
					for range 1 + r.IntN(3) {
						mask.Remove(topology.CPU(r.IntN(all.Count())))
					}
				case 1:
					c, _ := cpus.First()
					mask.Remove(c)
				case 2:
					lo := 64 * r.IntN(all.Count()/64+1)
					mask = topology.CPURange(topology.CPU(min(lo, all.Count()-1)), topology.CPU(all.Count()-1))
				}
				want := cpus.SubsetOf(mask)
				if got := tr.holdsAll(nd, &mask); got != want {
					t.Fatalf("%v: holdsAll(%v, %v) = %t, want %t", top, g, mask, got, want)
				}
				if got := mask.WordsFull(int(nd.fullLo), int(nd.fullHi)); nd.fullLo < nd.fullHi && got != want {
					t.Fatalf("%v: %v's run of whole words %d..%d in %v = %t, want %t", top, g, nd.fullLo, nd.fullHi, mask, got, want)
				}
			}
		}
	}
	if runs == 0 {
		t.Error("no node was a run of whole words")
	}
}

// pairMean divides as the division does: for every number of pairs a node can have, every total
// up to 2^16 (a node of 64 CPUs each below bigLoad totals less than 2^14), and random totals up
// to the 2^26 its comment allows.
func TestPairMean(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 2))
	for n := 1; n <= 32; n++ {
		rec := pairRecip(n)
		for sum := int32(0); sum <= 1<<16; sum++ {
			if got := pairMean(sum, rec); got != sum/int32(n) {
				t.Fatalf("pairMean(%d, pairRecip(%d)) = %d, want %d", sum, n, got, sum/int32(n))
			}
		}
		for range 10000 {
			sum := r.Int32N(1<<26 + 1)
			if got := pairMean(sum, rec); got != sum/int32(n) {
				t.Fatalf("pairMean(%d, pairRecip(%d)) = %d, want %d", sum, n, got, sum/int32(n))
			}
		}
	}
	defer func() {
		if got := recover(); got != "loadindex: pairRecip of a number of pairs outside 1..32" {
			t.Errorf("pairRecip(33) panicked with %v", got)
		}
	}()
	pairRecip(33)
}

// leastLevelNear answers what leastLevel answers, whatever its guess, and levelIs holds exactly
// at that answer: on random loads of a word of 64 CPUs (their levels nested as the index keeps
// them), random sets, bounds at or above the answer, and guesses below, at and above the answer
// and beyond the bound.
func TestLeastLevelNear(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	var levels [bigLoad]cpuBits
	for i := range 3000 {
		levels = [bigLoad]cpuBits{}
		maxLoad := []int{2, 10, 100, bigLoad - 1}[i%4]
		for c := range 64 {
			l := r.IntN(maxLoad + 1)
			for k := 1; k <= l; k++ {
				levels[k][0] |= 1 << c
			}
		}
		set := r.Uint64() | 1<<r.IntN(64)
		want := leastLevel(set, levels[:], 0, bigLoad-1)
		hi := want + int32(r.IntN(bigLoad-int(want)))
		if got := leastLevel(set, levels[:], 0, hi); got != want {
			t.Fatalf("leastLevel with bound %d = %d, with %d %d", hi, got, bigLoad-1, want)
		}
		for _, g := range []int32{-1, 0, want - 1 - int32(r.IntN(4)), want, want + int32(r.IntN(4)), hi, hi + 1, int32(r.IntN(bigLoad))} {
			if got := leastLevelNear(set, levels[:], 0, hi, g); got != want {
				t.Fatalf("leastLevelNear(%#x, bound %d, guess %d) = %d, want %d", set, hi, g, got, want)
			}
			if g >= 1 && g < bigLoad && levelIs(set, levels[:], 0, g) != (g == want) {
				t.Fatalf("levelIs(%#x, %d) = %t, the least level being %d", set, g, !(g == want), want)
			}
		}
	}
}
