package ule

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// refLowest is cpu_search_lowest as the kernel writes it, a plain recursion over the groups:
// refLowestLeaf for a leaf and the child loop of lowest everywhere else, without the fused
// walk over t.flat that lowest takes for a group whose children are all leaves, nor the split
// walks of lowestLeaf.
func (t *searchTree) refLowest(n int32, s *lowestArgs) (total, cpu, cpuLoad int32) {
	nd := &t.nodes[n]
	if nd.kidHi == nd.kidLo {
		return t.refLowestLeaf(nd, s)
	}
	bload := int32(math.MaxInt32)
	cpu = -1
	for k := nd.kidHi - 1; k >= nd.kidLo; k-- {
		kn := &t.nodes[t.kids[k]]
		load, lcpu, lload := t.refLowest(t.kids[k], s)
		total += load
		if s.running && kn.thread && load >= 128 && load&128 != 0 {
			load += 128
		}
		if lcpu >= 0 && (load < bload || (load == bload && lload < cpuLoad)) {
			bload, cpu, cpuLoad = load, lcpu, lload
		}
	}
	return total, cpu, cpuLoad
}

// refLowestLeaf is cpu_search_lowest on a leaf as the kernel writes it: its CPUs from the
// highest to the lowest, in one loop.
func (t *searchTree) refLowestLeaf(nd *searchNode, s *lowestArgs) (total, cpu, cpuLoad int32) {
	bload := int32(math.MaxInt32)
	cpu = -1
	loads, mask := s.loads, s.mask
	x := s.rnd.x // sched_random's state, kept in a register for the loop
	for _, c := range t.cpus[nd.cpuLo:nd.cpuHi] {
		ld := &loads[c]
		l := ld.Load
		var p int32
		if int32(c) == s.prefer {
			if s.running {
				l--
			}
			p = 128
		}
		load := l * 256
		total += load - p
		if l > s.maxLoad || (int32(ld.LowPri) <= s.pri && (!s.running || int32(c) != s.prefer)) || !mask.has(c) {
			continue
		}
		if s.running && l > 0 {
			p = 0
		}
		x = x*69069 + 5
		load -= int32((x >> 16) % 128)
		if bload > load-p {
			bload, cpu, cpuLoad = load-p, int32(c), load
		}
	}
	s.rnd.x = x
	return total, cpu, cpuLoad
}

func mustParse(t *testing.T, text string) *topology.Topology {
	t.Helper()
	top, err := topology.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return top
}

// The fused search (lowestLeaves) returns what the plain recursion returns and leaves the
// generator in the same state, on random loads, masks (half of them holding every CPU, which
// takes the loop that tests no mask), priorities, preferred CPUs and both values of running,
// over every group of several topologies, among them machines whose SMT siblings are numbered
// apart and one whose leaves differ in size.
func TestLowestMatchesRecursion(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 4, 1),
		topology.Uniform(2, 1, 2, 8, 2),
		topology.Uniform(2, 1, 3, 3, 2),
		topology.Uniform(4, 1, 4, 32, 2),
		topology.TwoSocketSMT(),
		topology.FourLLC(),
		topology.BigLittle(),
		topology.FourNode(),
		topology.Uniform(1, 1, 1, 64, 1), // one leaf of 64 CPUs, over two mask words
		// A leaf (the last cluster) whose parent also has children that are not leaves: its
		// CPUs lie in no fused walk, and a search preferring one of them walks the others'.
		mustParse(t, "package:1 node:1 llc:1 (cluster:2 core:2 cpu:2 + cluster:1 cpu:4)"),
	}
	r := rand.New(rand.NewPCG(11, 5))
	for i := range 400 {
		top := tops[i%len(tops)]
		s, err := NewSystem(DefaultParams(), top)
		if err != nil {
			t.Fatal(err)
		}
		var mask cpuBits
		holes := 1 + r.IntN(2)*7 // 1: every CPU in the mask; 8: about one in eight missing
		for c := range top.CPUs().All() {
			s.Loads[c] = CPULoad{Load: int32(r.IntN(4)), LowPri: uint8(56 + r.IntN(200))}
			if holes == 1 || r.IntN(holes) != 0 {
				mask[c>>6] |= 1 << (c & 63)
			}
		}
		pri := int32(r.IntN(256)) - 1
		maxLoad := int32(r.IntN(5))
		if r.IntN(2) == 0 {
			maxLoad = math.MaxInt32
		}
		prefer := int32(r.IntN(top.NumIDs()))
		running := r.IntN(2) == 0
		for _, g := range top.AllGroups() {
			seed := r.Uint64()
			a, b := NewRand(0, seed), NewRand(0, seed)
			ga := lowestArgs{loads: s.loads, mask: &mask, pri: pri, maxLoad: maxLoad, prefer: prefer, running: running, rnd: &a}
			wa := ga
			wa.rnd = &b
			gt, gc, gl := s.tree.lowest(int32(g.ID()), &ga)
			wt, wc, wl := s.tree.refLowest(int32(g.ID()), &wa)
			if gt != wt || gc != wc || gl != wl || a.State() != b.State() {
				t.Fatalf("%v %v pri %d maxLoad %d prefer %d running %t: lowest = %d %d %d rnd %d, recursion %d %d %d rnd %d",
					top, g, pri, maxLoad, prefer, running, gt, gc, gl, a.State(), wt, wc, wl, b.State())
			}
		}
	}
}

// A search through System.lowest, which takes lowestIDRun for a search that starts at a leaf of
// consecutive CPU ids with the whole leaf in the mask and no load limit, chooses the CPU the
// plain recursion chooses and leaves the generator in the same state: on every group of
// machines whose root is such a leaf and of machines where it is not, with the machine's own
// mask (&System.all), a copy of it, and masks lacking CPUs, priorities from -1 up, and the
// preferred CPU inside and outside the group.
func TestLowestFromLeafMatchesRecursion(t *testing.T) {
	tops := []*topology.Topology{
		topology.Uniform(1, 1, 1, 1, 1),
		topology.Uniform(1, 1, 1, 4, 1),
		topology.Uniform(1, 1, 1, 64, 1),
		topology.Uniform(1, 1, 1, 100, 1), // over two mask words
		topology.Uniform(2, 1, 2, 8, 2),
		topology.Uniform(1, 1, 4, 8, 1),
		topology.TwoSocketSMT(),
		mustParse(t, "package:1 node:1 llc:1 (cluster:2 core:2 cpu:2 + cluster:1 cpu:4)"),
	}
	r := rand.New(rand.NewPCG(19, 7))
	for i := range 2000 {
		top := tops[i%len(tops)]
		s, err := NewSystem(DefaultParams(), top)
		if err != nil {
			t.Fatal(err)
		}
		for c := range top.CPUs().All() {
			s.Loads[c] = CPULoad{Load: int32(r.IntN(4)), LowPri: uint8(56 + r.IntN(200))}
		}
		mask := &s.all
		switch r.IntN(3) {
		case 1:
			m := s.all
			mask = &m
		case 2:
			m := s.all
			for range 1 + r.IntN(3) {
				m.remove(topology.CPU(r.IntN(top.NumIDs())))
			}
			mask = &m
		}
		pri := r.IntN(256) - 1
		if r.IntN(4) == 0 {
			pri = -1
		}
		maxLoad := math.MaxInt32
		if r.IntN(4) == 0 {
			maxLoad = r.IntN(5)
		}
		prefer := topology.CPU(r.IntN(top.NumIDs()))
		running := r.IntN(2) == 0
		for _, g := range top.AllGroups() {
			seed := r.Uint64()
			a, b := NewRand(0, seed), NewRand(0, seed)
			gc, gok := s.lowest(g, mask, pri, maxLoad, prefer, running, &a, nil)
			wa := lowestArgs{loads: s.loads, mask: mask, pri: int32(pri), maxLoad: int32(maxLoad), prefer: int32(prefer), running: running, rnd: &b}
			_, wc, _ := s.tree.refLowest(int32(g.ID()), &wa)
			if gok != (wc >= 0) || (gok && int32(gc) != wc) || a.State() != b.State() {
				t.Fatalf("%v %v pri %d maxLoad %d prefer %d running %t: lowest = %d %t rnd %d, recursion %d rnd %d",
					top, g, pri, maxLoad, prefer, running, gc, gok, a.State(), wc, b.State())
			}
		}
	}
}
