package loadindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// randomLoads fills loads for top: loads below maxLoad, LowPri PriMaxIdle (255) for most idle
// CPUs as in a consistent state or anything (anyPri), transferable threads up to the load.
func randomLoads(r *rand.Rand, top *topology.Topology, loads *[topology.MaxCPUs]CPULoad, maxLoad int, anyPri bool) {
	for c := range top.CPUs().All() {
		l := int32(r.IntN(maxLoad))
		lp := uint8(56 + r.IntN(200))
		if l == 0 || r.IntN(8) == 0 {
			lp = 255
		}
		if anyPri {
			lp = uint8(r.IntN(256))
		}
		loads[c] = CPULoad{Load: l, Transferable: int32(r.IntN(int(l) + 1)), LowPri: lp}
	}
}

// randomMask returns the machine's set, or it less a few CPUs.
func randomMask(r *rand.Rand, top *topology.Topology) (*topology.CPUSet, bool) {
	m := top.CPUs()
	if r.IntN(3) != 0 {
		return &m, true
	}
	for range 1 + r.IntN(3) {
		m.Remove(topology.CPU(r.IntN(top.NumIDs())))
	}
	return &m, false
}

var searchTops = []*topology.Topology{
	topology.Uniform(1, 1, 1, 4, 1),
	topology.Uniform(1, 1, 1, 64, 1),
	topology.Uniform(1, 1, 1, 100, 1), // a leaf over two mask words
	topology.Uniform(1, 1, 4, 24, 1),  // leaves across word boundaries
	topology.Uniform(2, 1, 2, 8, 2),
	topology.Uniform(2, 1, 1, 16, 2), // bench/sim's mixed machine: a group of pairs
	topology.Uniform(1, 1, 1, 32, 2), // a group of 64 CPUs: one whole word
	topology.Uniform(1, 1, 3, 11, 2), // the last cache's pairs cross a word boundary
	topology.Uniform(2, 1, 3, 3, 2),
	topology.Uniform(4, 1, 4, 32, 2), // 1024 CPUs
	topology.Uniform(4, 1, 16, 8, 2), // 1024 CPUs: bench/sim's BenchmarkHuge
	topology.Uniform(1, 1, 1, 48, 2), // a group of 96 CPUs: more than a word
	topology.Uniform(2, 1, 65, 2, 2), // packages of 65 caches of pairs: no least kept for them
	topology.TwoSocketSMT(),          // SMT siblings numbered apart
	topology.FourLLC(),
	topology.BigLittle(),
	topology.FourNode(),
}

// busy adds 90 threads to every CPU with a load, as on a machine of about a hundred threads per
// CPU: the least loads then lie far above zero, close together and tied.
func busy(top *topology.Topology, loads *[topology.MaxCPUs]CPULoad) {
	for c := range top.CPUs().All() {
		if loads[c].Load > 0 {
			loads[c].Load += 90
		}
	}
}

// Lowest, LowestFused and LowestRun return what the kernel's recursion (refLowest) returns — the
// total, the CPU and its randomised load — and leave the generator in the same state: on every
// group they search of machines of every shape (consecutive leaves, SMT pairs numbered side by
// side or apart, leaves of different sizes, up to 1024 CPUs), with random loads (light, heavy,
// some up to and beyond bigLoad), LowPri (idle CPUs at 255, or anything), every priority from
// -1, masks holding every CPU or not, no load limit or one, the preferred CPU anywhere or
// outside the machine, running or not.
func TestLowestMatchesKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 3))
	ways := map[string]int{}
	for i := range 1500 {
		top := searchTops[i%len(searchTops)]
		var loads [topology.MaxCPUs]CPULoad
		randomLoads(r, top, &loads, []int{1, 2, 4, 20, 100, bigLoad, bigLoad + 6}[r.IntN(7)], r.IntN(4) == 0)
		if r.IntN(4) == 0 {
			busy(top, &loads)
		}
		ix := recorded(top, &loads, 1)
		for range 4 {
			mask, full := randomMask(r, top)
			s := search{loads: &loads, mask: mask, pri: int32(r.IntN(257)) - 1, load: math.MaxInt32,
				prefer: int32(r.IntN(top.NumIDs()+2)) - 1, running: r.IntN(2) == 0}
			if r.IntN(3) == 0 {
				s.pri = int32(loads[r.IntN(top.NumCPUs())].LowPri) - int32(r.IntN(2)) // ties with a CPU's LowPri
			}
			if r.IntN(6) == 0 { // about the machine's worst LowPri: often no CPU runs worse
				s.pri = -1
				for c := range top.CPUs().All() {
					s.pri = max(s.pri, int32(loads[c].LowPri))
				}
				s.pri -= int32(r.IntN(2))
			}
			if r.IntN(5) == 0 {
				s.load = int32(r.IntN(4))
			}
			if r.IntN(6) == 0 { // every CPU acceptable, as sched_pickcpu's last search
				s.pri = -1
			}
			for _, g := range top.AllGroups() {
				x := r.Uint32()
				w := s
				w.x = x
				wt, wc, wl := refLowest(g, &w)
				gx := x
				if ix.Fused(g.ID()) {
					gt, gc, gl := ix.LowestFused(g.ID(), s.mask, full, s.pri, s.load, s.prefer, s.running, math.MaxInt32, &gx)
					if gt != wt || gc != wc || (gc >= 0 && gl != wl) || gx != w.x {
						t.Fatalf("%s: LowestFused = %d %d %d rnd %#x, kernel %d %d %d rnd %#x", where(top, g, &s), gt, gc, gl, gx, wt, wc, wl, w.x)
					}
					ways["fused"]++
					// With a bound, as from the caller's loop: the total and the generator stay
					// exact, and the CPU too unless the total exceeds the bound.
					bound := wt + int32(r.IntN(1024)) - 512
					gx = x
					gt, gc, gl = ix.LowestFused(g.ID(), s.mask, full, s.pri, s.load, s.prefer, s.running, bound, &gx)
					if gt != wt || gx != w.x || (gc != wc && !(wt > bound && gc < 0)) || (gc >= 0 && gl != wl) {
						t.Fatalf("%s: LowestFused bound %d = %d %d %d rnd %#x, kernel %d %d %d rnd %#x", where(top, g, &s), bound, gt, gc, gl, gx, wt, wc, wl, w.x)
					}
					if gc < 0 && wc >= 0 {
						ways["fused, beyond the bound"]++
					}
				}
				gx = x
				if gc, ok := ix.LowestRun(g.ID(), s.mask, full, s.pri, s.load, s.prefer, s.running, &gx); ok {
					if gc != wc || gx != w.x {
						t.Fatalf("%s: LowestRun = %d rnd %#x, kernel %d rnd %#x", where(top, g, &s), gc, gx, wc, w.x)
					}
					ways["run"]++
					if wc >= 0 && loads[wc].Load >= 64 {
						ways["run, least load 64 or more"]++
					}
				} else if gx != x {
					t.Fatalf("%s: LowestRun declined and moved the generator", where(top, g, &s))
				}
				gx = x
				if gt, gc, gl, ok := ix.LowestPairGroups(g.ID(), s.mask, full, s.pri, s.load, s.prefer, s.running, &gx); ok {
					if gt != wt || gc != wc || (gc >= 0 && gl != wl) || gx != w.x {
						t.Fatalf("%s: LowestPairGroups = %d %d %d rnd %#x, kernel %d %d %d rnd %#x", where(top, g, &s), gt, gc, gl, gx, wt, wc, wl, w.x)
					}
					ways["pair groups"]++
					if ix.tree.nodes[g.ID()].pairGrand {
						ways["pair groups of groups"]++
						if s.pri < 0 && s.load == math.MaxInt32 {
							ways["pair groups of groups, every CPU acceptable"]++
						}
					}
				} else if gx != x {
					t.Fatalf("%s: LowestPairGroups declined and moved the generator", where(top, g, &s))
				}
				gx = x
				if gc, ok := ix.Lowest(g.ID(), s.mask, full, s.pri, s.load, s.prefer, s.running, &gx); !ok || gc != wc || gx != w.x {
					t.Fatalf("%s: Lowest = %d (%t) rnd %#x, kernel %d rnd %#x", where(top, g, &s), gc, ok, gx, wc, w.x)
				}
				if ix.countOn && !(s.running && s.prefer >= 0) && ix.noneWorse(s.pri) {
					ways["none worse"]++
				}
			}
		}
	}
	for _, k := range []string{"fused", "fused, beyond the bound", "run", "run, least load 64 or more", "pair groups", "pair groups of groups", "none worse"} {
		if ways[k] < 500 {
			t.Errorf("only %d searches took %s: %v", ways[k], k, ways)
		}
	}
	if k := "pair groups of groups, every CPU acceptable"; ways[k] < 50 {
		t.Errorf("only %d searches took %s: %v", ways[k], k, ways)
	}
}

// Highest, highestPruned and HighestFused choose what the kernel's recursion (refHighest) chooses
// and leave the generator in the same state: highestPruned either answers (a CPU or none, with
// the draws) or names the group from which the kernel's search chooses the same CPU with the same
// draws. On random states (few candidates and many; no transferable thread anywhere; loads beyond
// bigLoad), every group, masks with and without every CPU, the steal search's thresholds and the
// balancer's.
func TestHighestMatchesKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 13))
	ways := map[string]int{}
	for i := range 1500 {
		top := searchTops[i%len(searchTops)]
		var loads [topology.MaxCPUs]CPULoad
		randomLoads(r, top, &loads, []int{2, 4, 30, 100, bigLoad + 6}[r.IntN(5)], false)
		if r.IntN(5) == 0 {
			busy(top, &loads)
		}
		switch r.IntN(4) {
		case 0: // sparse: few candidates, as an idle CPU's steal search mostly finds
			for c := range top.CPUs().All() {
				if r.IntN(24) != 0 {
					loads[c].Load = min(loads[c].Load, 1)
					loads[c].Transferable = 0
				}
			}
		case 1: // nothing to steal anywhere
			for c := range top.CPUs().All() {
				loads[c].Transferable = 0
			}
		}
		ix := recorded(top, &loads, 1)
		for range 4 {
			mask, _ := randomMask(r, top)
			s := search{loads: &loads, mask: mask, load: int32(r.IntN(4)), trans: int32(r.IntN(3))}
			for _, g := range top.AllGroups() {
				x := r.Uint32()
				w := s
				w.x = x
				_, wc, _ := refHighest(g, &w)
				gx := x
				c, from, done := ix.highestPruned(g.ID(), s.mask, s.load, s.trans, &gx)
				if !done {
					if gx != x {
						t.Fatalf("%s: Highest not done but moved the generator", where(top, g, &s))
					}
					f := s
					f.x = x
					_, c, _ = refHighest(top.AllGroups()[from], &f)
					gx = f.x
					ways["from"]++
					if from != g.ID() {
						ways["descended"]++
					}
				} else {
					ways["done"]++
				}
				if c != wc || gx != w.x {
					t.Fatalf("%s: highestPruned = %d (from %v, done %t) rnd %#x, kernel %d rnd %#x", where(top, g, &s), c, top.AllGroups()[from], done, gx, wc, w.x)
				}
				gx = x
				if c, done := ix.Highest(g.ID(), s.mask, s.load, s.trans, &gx); done && (c != wc || gx != w.x) {
					t.Fatalf("%s: Highest = %d rnd %#x, kernel %d rnd %#x", where(top, g, &s), c, gx, wc, w.x)
				} else if !done && gx != x {
					t.Fatalf("%s: Highest declined and moved the generator", where(top, g, &s))
				}
				if ix.Fused(g.ID()) {
					w := s
					w.x = x
					wt, wc, wl := refHighest(g, &w)
					gx := x
					gt, gc, gl := ix.HighestFused(g.ID(), s.mask, s.load, s.trans, &gx)
					if gt != wt || gc != wc || (gc >= 0 && gl != wl) || gx != w.x {
						t.Fatalf("%s: HighestFused = %d %d %d rnd %#x, kernel %d %d %d rnd %#x", where(top, g, &s), gt, gc, gl, gx, wt, wc, wl, w.x)
					}
				}
			}
		}
	}
	for k, n := range map[string]int{"done": 1000, "from": 1000, "descended": 20} {
		if ways[k] < n {
			t.Errorf("only %d searches ended %s: %v", ways[k], k, ways)
		}
	}
}

// lowestPrefPair returns what lowestMixed returns on the preferred CPU's pair, on SMT pairs and
// on pairs that are not SMT groups: with loads of 0 to 2, priorities about the one searched for,
// the preferred CPU either of the pair, running or not, and draws that tie within the pair.
func TestLowestPrefPair(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 9))
	ties := 0
	for _, top := range []*topology.Topology{topology.Uniform(1, 1, 1, 32, 2), topology.Uniform(1, 1, 32, 2, 1)} {
		var loads [topology.MaxCPUs]CPULoad
		ix := recorded(top, &loads, 1)
		all := top.CPUs()
		for range 200000 {
			q := int32(r.IntN(top.NumCPUs()/2)) * 2
			pri := int32(100)
			s := lowestArgs{loads: &loads, mask: &all, pri: pri, maxLoad: math.MaxInt32, prefer: q + int32(r.IntN(2)), running: r.IntN(2) == 0, all: true}
			acc2 := uint64(0)
			for i := range int32(2) {
				loads[q+i] = CPULoad{Load: int32(r.IntN(3)), LowPri: uint8(pri - 1 + int32(r.IntN(3)))}
				if int32(loads[q+i].LowPri) > pri || (s.running && q+i == s.prefer) {
					acc2 |= 1 << i
				}
			}
			x := r.Uint32()
			fr := ix.tree.flatLeaf[q+1]
			want := lowBest{load: math.MaxInt32, cpu: -1}
			lowestMixed(ix.tree.flat[fr.lo:fr.hi], &s, x, &want)
			thread := ix.tree.flat[fr.lo+1]&flatThread != 0
			if got := ix.lowestPrefPair(q, acc2, thread, &s, x); got.cpu != want.cpu || (got.cpu >= 0 && (got.load != want.load || got.cpuLoad != want.cpuLoad)) {
				t.Fatalf("%v pair %d prefer %d running %t loads %v %v x %#x: %+v, lowestMixed %+v", top, q, s.prefer, s.running, loads[q], loads[q+1], x, got, want)
			}
			if x1, x2 := x*69069+5, (x*69069+5)*69069+5; acc2 == 3 && s.running && loads[q].Load == loads[q+1].Load && (x1>>16)&127 == (x2>>16)&127 {
				ties++
			}
		}
	}
	if ties == 0 {
		t.Error("no draws tied within a pair")
	}
}

// On machines of packages of caches of SMT pairs whose loads are all equal, or equal but for a
// few CPUs one thread more (as ULE's placements keep a busy machine), every cache ties and the
// winner is decided by the draws of many candidates: LowestPairGroups returns what the kernel's
// recursion returns and leaves the generator where it does, from many generator states. A cache
// that cannot beat the best randomised load so far is passed over without a search; one that can,
// by a draw of 127 after a best of 126 at the same load, must not be.
func TestLowestPairGroupsEven(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	ways := map[string]int{}
	for i := range 120 {
		top := []*topology.Topology{topology.Uniform(4, 1, 16, 8, 2), topology.Uniform(4, 1, 4, 32, 2)}[i%2]
		var loads [topology.MaxCPUs]CPULoad
		l := int32(1 + r.IntN(120))
		for c := range top.CPUs().All() {
			loads[c] = CPULoad{Load: l, LowPri: uint8(100 + r.IntN(50))}
			if r.IntN(8) == 0 && i%3 != 0 {
				loads[c].Load++
			}
		}
		ix := recorded(top, &loads, 1)
		full := top.CPUs()
		for range 40 {
			s := search{loads: &loads, mask: &full, pri: -1, load: math.MaxInt32, prefer: int32(r.IntN(top.NumCPUs()+1)) - 1, running: r.IntN(2) == 0}
			if r.IntN(4) == 0 { // priorities compared: the planes' form
				s.pri = int32(r.IntN(150))
			}
			x := r.Uint32()
			w := s
			w.x = x
			wt, wc, wl := refLowest(top.Root(), &w)
			gx := x
			gt, gc, gl, ok := ix.LowestPairGroups(top.Root().ID(), s.mask, true, s.pri, s.load, s.prefer, s.running, &gx)
			if !ok || gt != wt || gc != wc || gl != wl || gx != w.x {
				t.Fatalf("%s: LowestPairGroups = %d %d %d (%t) rnd %#x, kernel %d %d %d rnd %#x", where(top, top.Root(), &s), gt, gc, gl, ok, gx, wt, wc, wl, w.x)
			}
			ways[fmt.Sprint(wl&255)]++
			if s.prefer >= 0 && wc == s.prefer {
				ways["preferred"]++
			}
		}
	}
	if ways["129"] == 0 || ways["130"] == 0 || ways["preferred"] == 0 { // won by a draw of 127, of 126, by the preferred CPU
		t.Errorf("no search was won by a draw of 127, of 126, or by the preferred CPU: %v", ways)
	}
}
