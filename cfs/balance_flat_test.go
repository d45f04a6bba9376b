package cfs

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// flatTopos are machines with flat domains (one group per CPU): one cache of 16, 64 (the
// periodic sets' machine) or 150 CPUs (three words of a bitmap), two packages of two caches of
// four CPUs, SMT pairs (whose SMT level is flat), and the fuzz machines, whose flat levels the
// test finds.
var flatTopos = append([]func() *topology.Topology{
	func() *topology.Topology { return topology.Uniform(1, 1, 1, 16, 1) },
	func() *topology.Topology { return topology.Uniform(1, 1, 1, 64, 1) },
	func() *topology.Topology { return topology.Uniform(1, 1, 1, 150, 1) },
	func() *topology.Topology { return topology.Uniform(2, 1, 2, 4, 1) },
	func() *topology.Topology { return topology.Uniform(1, 1, 2, 4, 2) },
}, fuzzTopos...)

// multiOf returns the bitmap of the CPUs of st with two tasks or more, as the System keeps it.
func multiOf(st []CPUStat) []uint64 {
	m := make([]uint64, (len(st)+63)/64)
	for c := range st {
		if st[c].NrRunning > 1 {
			m[c>>6] |= 1 << (c & 63)
		}
	}
	return m
}

// randomFlatEnv returns a balance of a flat domain as the System makes one (every CPU at its
// full capacity, no group imbalance flag on a flat domain's groups), over random statistics
// (randomLBEnv's), or false if the chosen domain is not flat. When crowd is set, most CPUs run
// one task or none and a few run two or three, with loads spread so that avg_loads tie at
// times, as on the periodic machine.
func randomFlatEnv(r *rand.Rand, topo *topology.Topology, ds *Domains, crowd bool) (LBEnv, bool) {
	env, ok := randomLBEnv(r, topo, ds)
	if !ok || !env.SD.flat {
		return env, false
	}
	for c := range topo.CPUs().All() {
		st := &env.Stats[c]
		st.Capacity = st.CapacityOrig
		st.Util = min(st.Util, st.Capacity)
		if crowd {
			nr := uint32(0)
			switch x := r.IntN(10); {
			case x >= 9:
				nr = 2 + uint32(r.IntN(2))
			case x >= 4:
				nr = 1
			}
			if c == env.DstCPU && env.Idle != CPUNotIdle {
				nr = 0
			}
			h := nr
			if nr > 0 && r.IntN(6) == 0 {
				h = uint32(r.IntN(int(nr)))
			}
			*st = CPUStat{NrRunning: nr, HNrRunning: h, Capacity: st.Capacity, CapacityOrig: st.CapacityOrig}
			if nr > 0 {
				st.Load = 1024 * uint64(1+r.IntN(int(nr)))
				st.Util = min(uint64(r.IntN(1200)), st.Capacity)
				st.Runnable = uint64(h) * topology.CapacityScale
			}
		}
	}
	if env.GroupImbalance != nil {
		for _, g := range env.SD.groups {
			env.GroupImbalance[g.id] = false
		}
	}
	return env, true
}

// TestFindBusiestFlatModel checks findBusiestFlat against FindBusiestGroup, the visit of every
// group, on random balances of every flat domain of several machines, in every idle state and
// with CPUs left out of env.CPUs: when it answers, the group to pull from, the migration type
// and imbalance, the overload flag and (when asked for) the summed utilisation are the
// visit's; when it found an overloaded busiest group, so is every other field. It also checks
// that each of its three outcomes occurs.
func TestFindBusiestFlatModel(t *testing.T) {
	p := DefaultSMPParams(V65)
	var picked, balanced, declined int
	for ti, mk := range flatTopos {
		topo := mk()
		for gc := range 2 {
			ds := NewDomains(topo, GroupConstruction(gc))
			r := rand.New(rand.NewPCG(uint64(ti), 11+uint64(gc)))
			for i := range 3000 {
				env, ok := randomFlatEnv(r, topo, ds, i%2 == 0)
				if !ok {
					continue
				}
				needUtil := r.IntN(2) == 0
				var got BusiestGroup
				if !findBusiestFlat(&env, multiOf(env.Stats), needUtil, &got) {
					declined++
					continue
				}
				want, _ := FindBusiestGroup(&env, &p)
				if !needUtil {
					want.SumUtil, got.SumUtil = 0, 0
				}
				if got.Candidate != nil {
					picked++
					if got != want {
						t.Fatalf("%v from %v (%v, cpus %v): overloaded busiest\n got %+v\nwant %+v",
							env.SD, env.DstCPU, env.Idle, env.CPUs, got, want)
					}
					continue
				}
				balanced++
				if got.Group != want.Group || got.Migration != want.Migration || got.Imbalance != want.Imbalance ||
					got.Overload != want.Overload || got.SumUtil != want.SumUtil || want.Group != nil {
					t.Fatalf("%v from %v (%v, cpus %v): balanced\n got %+v\nwant %+v",
						env.SD, env.DstCPU, env.Idle, env.CPUs, got, want)
				}
			}
		}
	}
	t.Logf("overloaded busiest %d, balanced %d, declined %d", picked, balanced, declined)
	if picked < 1000 || balanced < 1000 || declined < 100 {
		t.Errorf("outcomes too rare: overloaded busiest %d, balanced %d, declined %d", picked, balanced, declined)
	}
}

// TestFlatDomains checks which domains are flat: every level of one cache of independent
// CPUs, the cache level (not the NUMA level) of a machine of two packages, the SMT level
// (not the cache level) of SMT pairs, and that a flat domain's cpuGroup gives each CPU its own
// group.
func TestFlatDomains(t *testing.T) {
	for _, c := range []struct {
		topo *topology.Topology
		flat map[string]bool
	}{
		{topology.Uniform(1, 1, 1, 8, 1), map[string]bool{"MC": true}},
		{topology.Uniform(2, 1, 1, 4, 1), map[string]bool{"MC": true, "NUMA": false}},
		{topology.Uniform(1, 1, 1, 4, 2), map[string]bool{"SMT": true, "MC": false}},
	} {
		ds := NewDomains(c.topo, GroupsPerCPU)
		seen := map[string]bool{}
		for cpu := range c.topo.CPUs().All() {
			for k := range ds.Chain(cpu) {
				sd := &ds.Chain(cpu)[k]
				seen[sd.Name()] = true
				want, ok := c.flat[sd.Name()]
				if !ok {
					t.Fatalf("%v: unexpected domain %v", c.topo, sd)
				}
				if sd.flat != want {
					t.Errorf("%v: %v of %v: flat %v, want %v", c.topo, sd, cpu, sd.flat, want)
				}
				if !sd.flat {
					continue
				}
				for x := range sd.span.All() {
					if g := sd.cpuGroup[x]; g == nil || len(g.list) != 1 || g.list[0] != x {
						t.Errorf("%v: %v of %v: group of %v is %v", c.topo, sd, cpu, x, g)
					}
				}
			}
		}
		if len(seen) != len(c.flat) {
			t.Errorf("%v: domains %v, want %v", c.topo, seen, c.flat)
		}
	}
}

// flatBench returns a newly idle balance of CPU 0 over 64 single-CPU groups (one cache, no
// SMT: the 64-CPU periodic set's machine) in a state like that set's under v6.5, where such a
// balance meets three or four CPUs with two tasks or more on average: one CPU in sixteen holds
// two or three nice-0 tasks, most others one, some none.
func flatBench() (LBEnv, []uint64) {
	topo := topology.Uniform(1, 1, 1, 64, 1)
	ds := NewDomains(topo, GroupsPerCPU)
	r := rand.New(rand.NewPCG(3, 4))
	st := make([]CPUStat, topo.NumIDs())
	for c := range st {
		nr := uint32(1)
		switch x := r.IntN(16); {
		case c == 0 || x < 4:
			nr = 0
		case x == 15:
			nr = 2 + uint32(r.IntN(2))
		}
		st[c] = CPUStat{NrRunning: nr, HNrRunning: nr, Load: 1024 * uint64(nr), Runnable: 1024 * uint64(nr),
			Util: min(uint64(300+r.IntN(800)), 1024), Capacity: 1024, CapacityOrig: 1024}
	}
	sd := &ds.Chain(0)[0]
	return LBEnv{SD: sd, DstCPU: 0, Idle: CPUNewlyIdle, CPUs: sd.Span(), Stats: st}, multiOf(st)
}

//go:noinline
func icountBusiestVisit(env *LBEnv, d *BusiestGroup, n int) {
	for range n {
		findBusiestGroup(env, d)
	}
}

//go:noinline
func icountBusiestFlat(env *LBEnv, multi []uint64, d *BusiestGroup, n int) {
	for range n {
		findBusiestFlat(env, multi, false, d)
	}
}

// BenchmarkBusiestFlat measures find_busiest_group for a newly idle CPU of the 64-CPU periodic
// machine (flatBench), by the visit of every group (impl=visit, [FindBusiestGroup]) and from
// the CPUs with two tasks or more (impl=flat, findBusiestFlat); under callgrind,
//
//	GOGC=off GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=callgrind \
//	  --toggle-collect='*icountBusiest*' ./cfs.test -test.run '^$' \
//	  -test.bench 'BusiestFlat/cpus=64/impl=flat$' -test.benchtime 100000x -test.cpu 1
//
// at 100000x and 200000x gives the instructions of one by difference.
func BenchmarkBusiestFlat(b *testing.B) {
	env, multi := flatBench()
	var d BusiestGroup
	b.Run("cpus=64/impl=visit", func(b *testing.B) {
		b.ReportAllocs()
		icountBusiestVisit(&env, &d, b.N)
	})
	b.Run("cpus=64/impl=flat", func(b *testing.B) {
		b.ReportAllocs()
		icountBusiestFlat(&env, multi, &d, b.N)
	})
}

// TestBusiestFlatBench checks that the benchmark's balance takes the fast path to the
// decision of the full visit, and allocates nothing.
func TestBusiestFlatBench(t *testing.T) {
	env, multi := flatBench()
	var got BusiestGroup
	if !findBusiestFlat(&env, multi, true, &got) || got.Group == nil {
		t.Fatalf("flat: %+v", got)
	}
	want, _ := FindBusiestGroup(&env, nil)
	if got != want {
		t.Fatalf("flat %+v\nwant %+v", got, want)
	}
	if !raceEnabled && testing.AllocsPerRun(100, func() { findBusiestFlat(&env, multi, false, &got) }) != 0 {
		t.Error("findBusiestFlat allocates")
	}
}

// flatScanRef is flatScan as it was written first, branch by branch: the CPUs of multi in span
// one at a time, tested for membership of cpus, group_is_overloaded with the utilisation first,
// and update_sd_pick_busiest's comparison as the kernel writes it. TestFlatScanRef compares
// flatScan with it.
func flatScanRef(multi, span []uint64, cpus *topology.CPUSet, stats []CPUStat, dst topology.CPU, gc, pct uint64) (best int, over, unsure bool) {
	const ring = topology.MaxCPUs - 1
	utilOver, runOver := gc*100, gc*pct
	bestAvg, bestPos := uint64(0), uint(topology.MaxCPUs)
	for i, m := range span {
		for w := multi[i] & m; w != 0; w &= w - 1 {
			c := topology.CPU(i<<6 + bits.TrailingZeros64(w))
			if !cpus.Has(c) {
				continue
			}
			over = true
			rq := &stats[c]
			if c == dst || rq.HNrRunning == 0 {
				continue
			}
			if !(utilOver < rq.Util*pct || runOver < rq.Runnable*100) {
				unsure = unsure || rq.HNrRunning > 1
				continue
			}
			avg := rq.Load
			if gc != topology.CapacityScale {
				avg = avg * topology.CapacityScale / gc
			}
			pos := uint(c-dst) & ring
			if avg > bestAvg || avg == bestAvg && pos < bestPos {
				bestAvg, bestPos = avg, pos
			}
		}
	}
	if bestPos == topology.MaxCPUs {
		return -1, over, unsure
	}
	return int((uint(dst) + bestPos) & ring), over, unsure
}

// TestFlatScanRef checks flatScan against flatScanRef on random scans: machines of 1 to
// MaxCPUs CPU ids, spans, sets of CPUs with two tasks or more and allowed CPUs that are
// empty, full or random, the destination anywhere (in multi or not), full and reduced group
// capacities, and statistics drawn from few values (so that avg_loads tie and both
// group_is_overloaded thresholds are met exactly) or from the whole range (so that the
// products wrap).
func TestFlatScanRef(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 3))
	word := func(p int) uint64 { // each bit set with probability p/8; 0 and 8 give 0 and all ones
		var w uint64
		for range p {
			w |= r.Uint64()
		}
		if p == 8 {
			return ^uint64(0)
		}
		if p < 4 {
			w &= r.Uint64() & r.Uint64()
		}
		return w
	}
	pick := func(small []uint64) uint64 {
		if r.IntN(8) == 0 {
			return r.Uint64()
		}
		return small[r.IntN(len(small))]
	}
	var found, none, unsure int
	for i := range 50000 {
		n := 1 + r.IntN(200)
		if i%8 == 0 {
			n = 1 + r.IntN(topology.MaxCPUs)
		}
		nw := (n + 63) / 64
		multi, span := make([]uint64, nw), make([]uint64, nw)
		var cpus topology.CPUSet
		pm, ps, pc := r.IntN(9), r.IntN(9), r.IntN(9)
		for k := range nw {
			multi[k], span[k] = word(pm), word(ps)
			for b, w := 0, word(pc); w != 0; w &= w - 1 {
				b = bits.TrailingZeros64(w)
				if c := k<<6 + b; c < n {
					cpus.Add(topology.CPU(c))
				}
			}
			if (k+1)*64 > n { // no bits beyond the machine's last CPU
				multi[k] &= 1<<(n-k*64) - 1
				span[k] &= 1<<(n-k*64) - 1
			}
		}
		gc := uint64(topology.CapacityScale)
		if r.IntN(4) == 0 {
			gc = 1 + r.Uint64N(topology.CapacityScale)
		}
		pct := []uint64{100, 110, 117, 125, 1 + r.Uint64N(300)}[r.IntN(5)]
		stats := make([]CPUStat, n)
		for c := range stats {
			h := uint32(r.IntN(4))
			stats[c] = CPUStat{
				HNrRunning: h,
				Load:       pick([]uint64{0, 1024, 2048, 3072, 2*1024 + 15}),
				Util:       pick([]uint64{0, 512, gc * 100 / pct, gc*100/pct + 1, gc}),
				Runnable:   pick([]uint64{0, uint64(h) * 1024, gc * pct / 100, gc*pct/100 + 1}),
			}
		}
		dst := topology.CPU(r.IntN(n))
		if r.IntN(4) == 0 {
			dst = topology.CPU(n - 1)
		}
		gb, go_, gu := flatScan(multi, span, &cpus, stats, dst, gc, pct)
		wb, wo, wu := flatScanRef(multi, span, &cpus, stats, dst, gc, pct)
		if gb != wb || go_ != wo || gu != wu {
			t.Fatalf("n %d dst %v gc %d pct %d multi %x span %x cpus %v:\n got %d %v %v\nwant %d %v %v",
				n, dst, gc, pct, multi, span, cpus, gb, go_, gu, wb, wo, wu)
		}
		if wb >= 0 {
			found++
		} else {
			none++
		}
		if wu {
			unsure++
		}
	}
	if found < 5000 || none < 5000 || unsure < 500 {
		t.Errorf("outcomes too rare: busiest %d, none %d, unsure %d", found, none, unsure)
	}
}
