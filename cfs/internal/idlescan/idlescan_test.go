package idlescan

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// naiveScan is the model: select_idle_cpu's loop, a CPU at a time.
func naiveScan(m *Mask, span, allowed *topology.CPUSet, from topology.CPU, nr int) (topology.CPU, bool, int) {
	scanned := 0
	visit := func(c topology.CPU) (topology.CPU, bool, bool) {
		if !span.Has(c) || !allowed.Has(c) {
			return 0, false, false
		}
		scanned++
		nr--
		if nr == 0 {
			return 0, false, true
		}
		if m.Has(c) {
			return c, true, true
		}
		return 0, false, false
	}
	for c := from; int(c) < topology.MaxCPUs; c++ {
		if got, ok, stop := visit(c); stop {
			return got, ok, scanned
		}
	}
	for c := topology.CPU(0); c < from && int(c) < topology.MaxCPUs; c++ {
		if got, ok, stop := visit(c); stop {
			return got, ok, scanned
		}
	}
	return 0, false, scanned
}

// randomSet returns a set of CPUs below n, each in it with probability p.
func randomSet(r *rand.Rand, n int, p float64) topology.CPUSet {
	var s topology.CPUSet
	for c := range n {
		if r.Float64() < p {
			s.Add(topology.CPU(c))
		}
	}
	return s
}

// TestScanMatchesNaive compares Scan with the CPU-at-a-time loop over random spans, affinities,
// idle sets, starting CPUs (every word boundary among them) and budgets.
func TestScanMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		n := []int{2, 63, 64, 65, 150, topology.MaxCPUs}[i%6]
		span := randomSet(r, n, []float64{1, 0.5, 0.1}[r.IntN(3)])
		allowed := randomSet(r, n, []float64{1, 1, 0.7, 0.05}[r.IntN(4)])
		var m Mask
		idle := randomSet(r, n, []float64{0.01, 0.1, 0.5}[r.IntN(3)])
		for c := range idle.All() {
			m.Set(c, true)
		}
		from := topology.CPU(r.IntN(n + 1))
		if r.IntN(4) == 0 {
			from = topology.CPU(64 * r.IntN(n/64+1))
		}
		nr := []int{1, 2, 5, 33, 1 << 30}[r.IntN(5)]
		gc, gok, gs := m.Scan(&Span{span, wordsOf(r, &span)}, &allowed, from, nr)
		wc, wok, ws := naiveScan(&m, &span, &allowed, from, nr)
		if gc != wc || gok != wok || gs != ws {
			t.Fatalf("case %d (n %d, from %d, nr %d): Scan %d %t %d, loop %d %t %d", i, n, from, nr, gc, gok, gs, wc, wok, ws)
		}
	}
}

// TestScanOneWordMatchesNaive compares Scan with the CPU-at-a-time loop where the span lies in
// one word of the bitmap (the rotated fast path), from anywhere: below, inside or above that word.
func TestScanOneWordMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 20000 {
		w := r.IntN(topology.SetWords)
		var span, allowed, idle topology.CPUSet
		ps, pa, pi := []float64{1, 0.5, 0.1}[r.IntN(3)], []float64{1, 1, 0.7, 0.05}[r.IntN(4)], []float64{0, 0.01, 0.1, 0.5}[r.IntN(4)]
		for b := range 64 {
			c := topology.CPU(64*w + b)
			if r.Float64() < ps {
				span.Add(c)
			}
			if r.Float64() < pa {
				allowed.Add(c)
			}
			if r.Float64() < pi {
				idle.Add(c)
			}
		}
		var m Mask
		for c := range idle.All() {
			m.Set(c, true)
		}
		from := topology.CPU(64*w + r.IntN(64))
		switch r.IntN(4) {
		case 0:
			from = topology.CPU(r.IntN(topology.MaxCPUs))
		case 1:
			from = topology.CPU(64 * w)
		}
		nr := []int{1, 2, 5, 33, 1 << 30}[r.IntN(5)]
		gc, gok, gs := m.Scan(&Span{span, []uint16{uint16(w)}}, &allowed, from, nr)
		wc, wok, ws := naiveScan(&m, &span, &allowed, from, nr)
		if gc != wc || gok != wok || gs != ws {
			t.Fatalf("case %d (word %d, from %d, nr %d): Scan %d %t %d, loop %d %t %d", i, w, from, nr, gc, gok, gs, wc, wok, ws)
		}
	}
}

// TestMaskSet: Set adds and removes, Has reads.
func TestMaskSet(t *testing.T) {
	var m Mask
	m.Set(70, true)
	m.Set(3, true)
	m.Set(3, false)
	if !m.Has(70) || m.Has(3) || m.Has(71) {
		t.Errorf("Has(70, 3, 71) = %t %t %t", m.Has(70), m.Has(3), m.Has(71))
	}
}

// FuzzScan checks Scan against the loop on sets decoded from the input.
func FuzzScan(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint16(5), uint16(3))
	f.Add(uint64(7), uint64(9), uint16(1023), uint16(1))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, from, nr uint16) {
		r := rand.New(rand.NewPCG(s1, s2))
		span := randomSet(r, topology.MaxCPUs, r.Float64())
		allowed := randomSet(r, topology.MaxCPUs, r.Float64())
		var m Mask
		for c := range randomSet(r, topology.MaxCPUs, r.Float64()/4).All() {
			m.Set(c, true)
		}
		f := topology.CPU(int(from) % (topology.MaxCPUs + 1))
		budget := 1 + int(nr)
		gc, gok, gs := m.Scan(&Span{span, wordsOf(r, &span)}, &allowed, f, budget)
		wc, wok, ws := naiveScan(&m, &span, &allowed, f, budget)
		if gc != wc || gok != wok || gs != ws {
			t.Fatalf("from %d, nr %d: Scan %d %t %d, loop %d %t %d", f, budget, gc, gok, gs, wc, wok, ws)
		}
	})
}

// wordsOf returns the words that hold s's CPUs, ascending, and at times a few empty words
// more, which must not change the answer.
func wordsOf(r *rand.Rand, s *topology.CPUSet) []uint16 {
	var w []uint16
	for i := range topology.SetWords {
		if s.Word(i) != 0 || r.IntN(8) == 0 {
			w = append(w, uint16(i))
		}
	}
	return w
}

// naiveSibling is the model of Sibling: select_idle_smt's loop over the siblings, a CPU at a
// time in ascending order, skipping core itself.
func naiveSibling(m *Mask, core topology.CPU, sib, allowed *topology.CPUSet) (topology.CPU, bool) {
	for c := range sib.All() {
		if c != core && allowed.Has(c) && m.Has(c) {
			return c, true
		}
	}
	return 0, false
}

// TestSiblingMatchesNaive compares Sibling with the CPU-at-a-time loop over random cores, sets
// of siblings in the core's word (with or without the core), affinities and idle sets.
func TestSiblingMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 20000 {
		core := topology.CPU(r.IntN(topology.MaxCPUs))
		var sib topology.CPUSet
		ps := []float64{0.03, 0.1, 0.5, 1}[r.IntN(4)]
		for b := range 64 {
			if r.Float64() < ps {
				sib.Add(core&^63 + topology.CPU(b))
			}
		}
		if r.IntN(2) == 0 {
			sib.Add(core)
		}
		others := sib.Word(int(core>>6)) &^ (1 << (core & 63))
		allowed := randomSet(r, topology.MaxCPUs, []float64{1, 0.7, 0.05}[r.IntN(3)])
		var m Mask
		for c := range randomSet(r, topology.MaxCPUs, []float64{0.01, 0.1, 0.5, 1}[r.IntN(4)]).All() {
			m.Set(c, true)
		}
		gc, gok := m.Sibling(core, others, &allowed)
		wc, wok := naiveSibling(&m, core, &sib, &allowed)
		if gc != wc || gok != wok {
			t.Fatalf("case %d (core %d): Sibling %d %t, loop %d %t", i, core, gc, gok, wc, wok)
		}
	}
}

// TestNewSpan: NewSpan lists exactly the words that hold the set's CPUs, in ascending order.
func TestNewSpan(t *testing.T) {
	s := topology.CPUSetOf(3, 64, 700, 1023)
	sp := NewSpan(s)
	if sp.Set != s || !slices.Equal(sp.Words, []uint16{0, 1, 10, 15}) {
		t.Errorf("NewSpan(%v) = %v %v, want the set and words 0 1 10 15", s, sp.Set, sp.Words)
	}
	if sp := NewSpan(topology.CPUSet{}); len(sp.Words) != 0 {
		t.Errorf("NewSpan(empty) lists words %v", sp.Words)
	}
}
