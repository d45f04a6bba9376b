package cfs

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// naiveSDLBStats is the model of updateSDLBStats: update_sd_lb_stats as the kernel writes it,
// [updateSGLBStats] and update_sd_pick_busiest on every group of the domain.
func naiveSDLBStats(env *LBEnv, p *smp.Params) (d BusiestGroup, totalLoad, totalCap uint64) {
	d = BusiestGroup{domain: env.SD, dst: env.DstCPU}
	d.busiestStats = groupStats{IdleCPUs: math.MaxUint32, Type: groupHasSpare}
	var busiest *BalanceGroup
	for _, g := range env.SD.groups {
		local := g.cpus.Has(env.DstCPU)
		s, ov := updateSGLBStats(env, g, local, p)
		d.overload = d.overload || ov
		if local {
			d.local, d.localStats = g, s
		} else if pickBusiest(env, &d, busiest, g, &s) {
			busiest, d.busiestStats = g, s
		}
		totalLoad += s.GroupLoad
		totalCap += s.GroupCapacity
		d.sumUtil += s.GroupUtil
	}
	d.candidate = busiest
	return d, totalLoad, totalCap
}

// sdStatsTopos are the machines the differential test balances: the fuzz machines (SMT,
// several caches and nodes, asymmetric capacities) and machines of single-CPU groups, the
// shape updateSDLBStats has a shortcut for, one of them with unequal capacities in one
// cache (SD_ASYM_CPUCAPACITY on a level of single CPUs, as on DynamIQ parts).
var sdStatsTopos = append([]func() *topology.Topology{
	func() *topology.Topology { return topology.Uniform(1, 1, 1, 16, 1) },
	func() *topology.Topology { return topology.Uniform(2, 2, 1, 4, 1) },
	func() *topology.Topology {
		t, err := topology.Parse("package:1 node:1 llc:1 (cpu:2 + cpu:4@600)")
		if err != nil {
			panic(err)
		}
		return t
	},
}, fuzzTopos...)

// randomLBEnv returns a balance at a random level of a random CPU of topo, in a random state,
// over random CPU statistics: queue lengths of 0 to 3 with fewer fair tasks at times, loads,
// utilisations and runnable sums on either side of capacity, capacities lost to other classes,
// misfit loads, CPUs left out of env.CPUs and set group imbalance flags.
func randomLBEnv(r *rand.Rand, topo *topology.Topology, ds *Domains) (LBEnv, bool) {
	n := topo.NumCPUs()
	dst := topology.CPU(r.IntN(n))
	ch := ds.Chain(dst)
	if len(ch) == 0 {
		return LBEnv{}, false
	}
	st := make([]smp.CPUStat, topo.NumIDs())
	for c := range topo.CPUs().All() {
		orig := uint64(topo.Capacity(c))
		nr := uint32(r.IntN(4))
		h := nr
		if nr > 0 && r.IntN(4) == 0 {
			h = uint32(r.IntN(int(nr)))
		}
		capa := orig
		if r.IntN(5) == 0 {
			capa = orig * uint64(50+r.IntN(50)) / 100
		}
		s := smp.CPUStat{NrRunning: nr, HNrRunning: h, Capacity: capa, CapacityOrig: orig}
		if nr > 0 {
			s.Load = uint64(r.IntN(3000))
			s.Util = min(uint64(r.IntN(1400)), capa)
			s.Runnable = uint64(r.IntN(1400)) * uint64(nr)
			if r.IntN(4) == 0 {
				s.MisfitLoad = uint64(r.IntN(2000))
			}
		}
		st[c] = s
	}
	idle := smp.IdleType(r.IntN(3))
	if idle != smp.CPUNotIdle && r.IntN(4) != 0 {
		st[dst] = smp.CPUStat{Capacity: st[dst].Capacity, CapacityOrig: st[dst].CapacityOrig}
	}
	sd := &ch[r.IntN(len(ch))]
	cpus := sd.Span()
	for c := range sd.Span().All() {
		if c != dst && r.IntN(8) == 0 {
			cpus.Remove(c)
		}
	}
	var imb []bool
	if r.IntN(2) == 0 {
		imb = make([]bool, len(ds.groups))
		for i := range imb {
			imb[i] = r.IntN(6) == 0
		}
	}
	return LBEnv{SD: sd, DstCPU: dst, Idle: idle, CPUs: cpus, Stats: st, GroupImbalance: imb,
		NrBalanceFailed: r.IntN(4), MaxCapacity: topology.CapacityScale}, true
}

// checkSDLBStats checks updateSDLBStats against its model on env.
func checkSDLBStats(t *testing.T, env *LBEnv, p *smp.Params) {
	t.Helper()
	want, wantLoad, wantCap := naiveSDLBStats(env, p)
	got := BusiestGroup{domain: env.SD, dst: env.DstCPU}
	gotLoad, gotCap := updateSDLBStats(env, &got)
	if got != want || gotLoad != wantLoad || gotCap != wantCap {
		t.Fatalf("update_sd_lb_stats at %v from %v (%v, cpus %v):\n got %+v load %d cap %d\nwant %+v load %d cap %d",
			env.SD.Name(), env.DstCPU, env.Idle, env.CPUs, got, gotLoad, gotCap, want, wantLoad, wantCap)
	}
}

// TestSDLBStatsModel checks updateSDLBStats, with its shortcuts over single-CPU groups, against
// update_sd_lb_stats done group by group, on many random balances of every machine.
func TestSDLBStatsModel(t *testing.T) {
	p := defaultSMPParams(V65)
	for ti, mk := range sdStatsTopos {
		topo := mk()
		for gc := range 2 {
			ds := NewDomains(topo, smp.GroupConstruction(gc))
			r := rand.New(rand.NewPCG(uint64(ti), uint64(gc)))
			for range 2000 {
				if env, ok := randomLBEnv(r, topo, ds); ok {
					checkSDLBStats(t, &env, &p)
				}
			}
		}
	}
}

// FuzzSDLBStats is TestSDLBStatsModel driven by the fuzzer's seeds.
func FuzzSDLBStats(f *testing.F) {
	f.Add(uint8(0), uint64(1), uint8(0))
	f.Add(uint8(6), uint64(7), uint8(1))
	f.Add(uint8(2), uint64(3), uint8(0))
	f.Fuzz(func(t *testing.T, topoIdx uint8, seed uint64, gc uint8) {
		topo := sdStatsTopos[int(topoIdx)%len(sdStatsTopos)]()
		ds := NewDomains(topo, smp.GroupConstruction(gc%2))
		r := rand.New(rand.NewPCG(seed, 5))
		p := defaultSMPParams(V65)
		for range 20 {
			if env, ok := randomLBEnv(r, topo, ds); ok {
				checkSDLBStats(t, &env, &p)
			}
		}
	})
}

// BenchmarkSDLBStats measures one update_sd_lb_stats of a newly idle CPU over 64 single-CPU
// groups (one cache, no SMT: the periodic sets' machine) with 0 to 3 tasks a CPU, against the
// group-by-group model as the baseline.
func BenchmarkSDLBStats(b *testing.B) {
	topo := topology.Uniform(1, 1, 1, 64, 1)
	ds := NewDomains(topo, smp.GroupsPerCPU)
	p := defaultSMPParams(V65)
	r := rand.New(rand.NewPCG(1, 2))
	env, _ := randomLBEnv(r, topo, ds)
	env.SD = &ds.Chain(env.DstCPU)[0]
	env.Idle, env.CPUs, env.GroupImbalance = smp.CPUNewlyIdle, env.SD.Span(), nil
	env.Stats[env.DstCPU] = smp.CPUStat{Capacity: topology.CapacityScale, CapacityOrig: topology.CapacityScale}
	var sink uint64
	b.Run("cpus=64/impl=kernel", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d := BusiestGroup{domain: env.SD, dst: env.DstCPU}
			l, _ := updateSDLBStats(&env, &d)
			sink += l
		}
	})
	b.Run("cpus=64/impl=naive", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, l, _ := naiveSDLBStats(&env, &p)
			sink += l
		}
	})
	_ = sink
}
