package flatbalance

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// figures are one CPU's inputs of the scan, for the tests.
type figures struct {
	load           uint64
	hnr            uint32
	util, runnable uint64
}

// busiestRef is update_sd_pick_busiest over single-CPU groups as the kernel writes it, branch
// by branch: the CPUs of multi in span one at a time, tested for membership of cpus,
// group_is_overloaded with the utilisation first, and the comparison of avg_loads with the
// first in ring order kept on a tie. TestBusiest compares Index.Busiest with it.
func busiestRef(multi, span []uint64, cpus *topology.CPUSet, stats []figures, dst topology.CPU, gc, pct uint64) (best int, over, unsure bool) {
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
			if c == dst || rq.hnr == 0 {
				continue
			}
			if !(utilOver < rq.util*pct || runOver < rq.runnable*100) {
				unsure = unsure || rq.hnr > 1
				continue
			}
			avg := rq.load
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

// TestBusiest checks Index.Busiest against busiestRef on random scans: machines of 1 to MaxCPUs
// CPU ids, spans, sets of CPUs with two tasks or more and allowed CPUs that are empty, full or
// random, the destination anywhere (in the index or not), full and reduced group capacities,
// and figures drawn from few values (so that avg_loads tie and both group_is_overloaded
// thresholds are met exactly) or from the whole range (so that the products wrap). The index
// is built with Update from random task counts. cfs's TestFindBusiestFlatModel checks the
// whole fast form against find_busiest_group's full visit.
func TestBusiest(t *testing.T) {
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
		var x Index
		x.Init(n)
		multi, span := make([]uint64, nw), make([]uint64, nw)
		var cpus topology.CPUSet
		pm, ps, pc := r.IntN(9), r.IntN(9), r.IntN(9)
		for k := range nw {
			multi[k], span[k] = word(pm), word(ps)
			for w := word(pc); w != 0; w &= w - 1 {
				if c := k<<6 + bits.TrailingZeros64(w); c < n {
					cpus.Add(topology.CPU(c))
				}
			}
			if (k+1)*64 > n { // no bits beyond the machine's last CPU
				multi[k] &= 1<<(n-k*64) - 1
				span[k] &= 1<<(n-k*64) - 1
			}
		}
		for c := range n {
			nr := uint32(r.IntN(2)) // 0 or 1 task
			if multi[c>>6]&(1<<(c&63)) != 0 {
				nr = 2 + uint32(r.IntN(3))
			}
			x.Update(topology.CPU(c), 0, nr)
		}
		gc := uint64(topology.CapacityScale)
		if r.IntN(4) == 0 {
			gc = 1 + r.Uint64N(topology.CapacityScale)
		}
		pct := []uint64{100, 110, 117, 125, 1 + r.Uint64N(300)}[r.IntN(5)]
		stats := make([]figures, n)
		for c := range stats {
			h := uint32(r.IntN(4))
			stats[c] = figures{
				hnr:      h,
				load:     pick([]uint64{0, 1024, 2048, 3072, 2*1024 + 15}),
				util:     pick([]uint64{0, 512, gc * 100 / pct, gc*100/pct + 1, gc}),
				runnable: pick([]uint64{0, uint64(h) * 1024, gc * pct / 100, gc*pct/100 + 1}),
			}
		}
		dst := topology.CPU(r.IntN(n))
		if r.IntN(4) == 0 {
			dst = topology.CPU(n - 1)
		}
		cs := make([]smp.CPUStat, n)
		for c, f := range stats {
			cs[c] = smp.CPUStat{HNrRunning: f.hnr, Load: f.load, Util: f.util, Runnable: f.runnable}
		}
		gb, go_, gu := x.Busiest(span, &cpus, dst, gc, pct, cs)
		wb, wo, wu := busiestRef(multi, span, &cpus, stats, dst, gc, pct)
		wu = wu && wb < 0 // unsure only matters, and is only reported, when no CPU is found
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

// TestUpdate checks the index against task counts changed at random: a CPU is in it exactly
// when its last count is two or more.
func TestUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 300
	var x Index
	x.Init(n)
	nr := make([]uint32, n)
	for range 20000 {
		c := topology.CPU(r.IntN(n))
		v := uint32(r.IntN(5))
		x.Update(c, nr[c], v)
		nr[c] = v
		for _, d := range []topology.CPU{c, topology.CPU(r.IntN(n))} {
			if x.Has(d) != (nr[d] >= 2) {
				t.Fatalf("cpu%d with %d tasks: Has = %t", d, nr[d], x.Has(d))
			}
		}
	}
}

// FuzzBusiest checks Index.Busiest against busiestRef on machines the fuzzer builds: four
// bytes a CPU give its fair tasks, whether it holds two tasks or more, is in the span and is
// allowed, and its load, utilisation and runnable figures (mostly loads of four values and
// figures at group_is_overloaded's thresholds, so that the scan's passing over of candidates
// below the busiest so far meets ties; sometimes wide ones, whose products wrap). The seeds
// run with go test; `go test -fuzz FuzzBusiest ./cfs/internal/flatbalance` searches further.
func FuzzBusiest(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 31))
	for i := range 40 {
		n := []int{1, 3, 64, 65, 130, 300}[i%6]
		data := make([]byte, 4*n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		f.Add(data, uint16(r.IntN(n)), uint16(topology.CapacityScale), uint16(117))
		f.Add(data, uint16(n-1), uint16(1+r.IntN(topology.CapacityScale)), uint16(110))
	}
	f.Fuzz(func(t *testing.T, data []byte, d, gc16, pct16 uint16) {
		n := min(len(data)/4, topology.MaxCPUs)
		if n == 0 {
			return
		}
		dst := topology.CPU(int(d) % n)
		gc := 1 + uint64(gc16)%topology.CapacityScale
		pct := 100 + uint64(pct16)%150
		nw := (n + 63) / 64
		var x Index
		x.Init(n)
		multi, span := make([]uint64, nw), make([]uint64, nw)
		var cpus topology.CPUSet
		stats := make([]figures, n)
		cs := make([]smp.CPUStat, n)
		for c := range n {
			b := data[4*c : 4*c+4]
			if b[0]&4 != 0 {
				multi[c>>6] |= 1 << (c & 63)
				x.Update(topology.CPU(c), 0, 2)
			}
			if b[0]&8 == 0 {
				span[c>>6] |= 1 << (c & 63)
			}
			if b[0]&48 != 48 {
				cpus.Add(topology.CPU(c))
			}
			thresholds := []uint64{0, gc * 100 / pct, gc*100/pct + 1, gc * pct / 100, gc*pct/100 + 1, gc}
			stats[c] = figures{
				hnr:      uint32(b[0] & 3),
				load:     uint64(b[1]&3) * 1024,
				util:     thresholds[int(b[2])%len(thresholds)],
				runnable: thresholds[int(b[3])%len(thresholds)],
			}
			if b[0] >= 192 { // wide figures, whose products wrap
				stats[c].load = uint64(b[1]) << (b[3] & 63)
				stats[c].util = uint64(b[2]) << (b[1] & 63)
			}
			cs[c] = smp.CPUStat{HNrRunning: stats[c].hnr, Load: stats[c].load, Util: stats[c].util, Runnable: stats[c].runnable}
		}
		gb, go_, gu := x.Busiest(span, &cpus, dst, gc, pct, cs)
		wb, wo, wu := busiestRef(multi, span, &cpus, stats, dst, gc, pct)
		wu = wu && wb < 0
		if gb != wb || go_ != wo || gu != wu {
			t.Fatalf("n %d dst %v gc %d pct %d: got %d %v %v, want %d %v %v", n, dst, gc, pct, gb, go_, gu, wb, wo, wu)
		}
	})
}

// TestSpanUtil compares SpanUtil with the sum taken a CPU at a time, over random spans, sets of
// CPUs still considered, and utilisations (some near the top of the range, so that the sums
// wrap).
func TestSpanUtil(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	for i := range 20000 {
		n := 1 + r.IntN(topology.MaxCPUs)
		nw := (n + 63) / 64
		span := make([]uint64, nw)
		var cpus topology.CPUSet
		stats := make([]smp.CPUStat, n)
		for c := range n {
			if r.IntN(4) != 0 {
				span[c>>6] |= 1 << (c & 63)
			}
			if r.IntN(5) != 0 {
				cpus.Add(topology.CPU(c))
			}
			stats[c].Util = r.Uint64N(2 * topology.CapacityScale)
			if i%16 == 0 {
				stats[c].Util = r.Uint64()
			}
		}
		var want uint64
		for c := range n {
			if span[c>>6]&(1<<(c&63)) != 0 && cpus.Has(topology.CPU(c)) {
				want += stats[c].Util
			}
		}
		if got := SpanUtil(span, &cpus, stats); got != want {
			t.Fatalf("case %d: %d CPUs: SpanUtil = %d, want %d", i, n, got, want)
		}
	}
}
