package cfs

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/cfs/internal/idlescan"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

// refSelectIdleCPU is select_idle_cpu with select_idle_core written as the kernel loops: from
// the span's first CPU above target round to target (for_each_cpu_wrap), skipping CPUs the
// task may not use and cores already examined; looking for a wholly idle core while the hint
// says one exists (remembering the first idle CPU on the way), otherwise for an idle CPU,
// counting the SIS_UTIL budget down at each CPU. It is the model of WakeEnv.selectIdleCPU.
func refSelectIdleCPU(env *WakeEnv, sd *SchedDomain, hasIdleCore bool, target, llc topology.CPU, p *smp.Params) (cpu topology.CPU, ok, core bool, scanned int) {
	st := env.Stats
	t := env.Task
	nr := math.MaxInt
	if p.SISUtil && env.NrIdleScan != nil {
		nr = env.NrIdleScan[llc] + 1
		if nr == 1 {
			return 0, false, false, 0
		}
	}
	var order []topology.CPU
	for c := range sd.span.All() {
		if c > target {
			order = append(order, c)
		}
	}
	for c := range sd.span.All() {
		if c <= target {
			order = append(order, c)
		}
	}
	var skip topology.CPUSet
	idleCPU, found := topology.CPU(0), false
	for _, c := range order {
		if !t.allowed.Has(c) || skip.Has(c) {
			continue
		}
		scanned++
		if hasIdleCore {
			idle := true
			for _, s := range env.Domains.smt[c] {
				if !st[s].Idle() {
					idle = false
					if !found {
						if st[s].IdleOnly() && t.allowed.Has(s) {
							idleCPU, found = s, true
							break
						}
						continue
					}
					break
				}
				if !found && t.allowed.Has(s) {
					idleCPU, found = s, true
				}
			}
			if idle {
				return c, true, true, scanned
			}
			for _, s := range env.Domains.smt[c] {
				skip.Add(s)
			}
			continue
		}
		nr--
		if nr == 0 {
			return 0, false, false, scanned
		}
		if idleish(st, c) {
			return c, true, false, scanned
		}
	}
	return idleCPU, found, false, scanned
}

// TestSelectIdleCPUModel checks selectIdleCPU against refSelectIdleCPU on random states of
// machines whose LLC is a run of consecutive CPUs (one word of them, more than two words) or
// not (TwoSocketSMT's LLCs), with and without SMT: random queue lengths (some CPUs running only
// SCHED_IDLE tasks), scan budgets from none to more than the LLC, with and without an idle
// core sought, affinities of every CPU or a random few, every target.
func TestSelectIdleCPUModel(t *testing.T) {
	topos := []func() *topology.Topology{
		func() *topology.Topology { return topology.Uniform(1, 1, 1, 64, 1) },
		func() *topology.Topology { return topology.Uniform(1, 1, 1, 130, 1) },
		func() *topology.Topology { return topology.Uniform(2, 1, 2, 5, 1) },
		func() *topology.Topology { return topology.Uniform(1, 1, 2, 4, 2) },
		topology.TwoSocketSMT, topology.FourLLC, topology.TwoCPU,
		// LLCs of 32 CPUs whose SMT siblings are numbered 32 apart: spans of two runs.
		func() *topology.Topology { return topology.Uniform(2, 1, 1, 16, 2) },
	}
	p := smp65()
	for ti, mk := range topos {
		topo := mk()
		ds := NewDomains(topo, smp.GroupsPerCPU)
		cpus := topo.CPUs()
		var list []topology.CPU
		for c := range cpus.All() {
			list = append(list, c)
		}
		r := rand.New(rand.NewPCG(uint64(ti), 17))
		for range 2000 {
			n := topo.NumIDs()
			busy := r.IntN(5)
			st := make([]smp.CPUStat, n)
			for _, c := range list {
				nr := uint32(0)
				if r.IntN(4) < busy {
					nr = 1 + uint32(r.IntN(2))
				}
				st[c] = smp.CPUStat{NrRunning: nr, HNrRunning: nr, Capacity: 1024, CapacityOrig: 1024}
				if nr > 0 && r.IntN(8) == 0 {
					st[c].IdleHNrRunning = nr
				}
			}
			env := &WakeEnv{Domains: ds, Stats: st, NrIdleScan: make([]int, n)}
			allowed := cpus
			if r.IntN(4) == 0 {
				allowed = topology.CPUSet{}
				for range 1 + r.IntN(len(list)) {
					allowed.Add(list[r.IntN(len(list))])
				}
			}
			env.Task = NewSMPTask(NewTask("p", Normal, 0), allowed, list[0])
			for _, target := range list {
				sd := ds.llc[target]
				if sd == nil {
					continue
				}
				llc := ds.llcid(target)
				env.NrIdleScan[llc] = r.IntN(sd.weight + 3)
				core := ds.smtActive() && r.IntN(2) == 0
				c, ok, isCore, scanned := env.selectIdleCPU(sd, core, target, llc, p)
				wc, wok, wcore, wscanned := refSelectIdleCPU(env, sd, core, target, llc, p)
				if c != wc || ok != wok || isCore != wcore || scanned != wscanned {
					t.Fatalf("%v: target %v core %t budget %d allowed %v stats %v:\n got %v %t %t %d\nwant %v %t %t %d",
						topo, target, core, env.NrIdleScan[llc], allowed, st, c, ok, isCore, scanned, wc, wok, wcore, wscanned)
				}
				// With a System's mask of the idle CPUs (package idlescan), the same answer.
				env.idle = idleMaskOf(st)
				c, ok, isCore, scanned = env.selectIdleCPU(sd, core, target, llc, p)
				env.idle = nil
				if c != wc || ok != wok || isCore != wcore || scanned != wscanned {
					t.Fatalf("%v, idle mask: target %v core %t budget %d allowed %v stats %v:\n got %v %t %t %d\nwant %v %t %t %d",
						topo, target, core, env.NrIdleScan[llc], allowed, st, c, ok, isCore, scanned, wc, wok, wcore, wscanned)
				}
			}
		}
	}
}

// idleMaskOf returns the mask of the idle (or SCHED_IDLE-only) CPUs of st, as a System keeps it.
func idleMaskOf(st []smp.CPUStat) *idlescan.Mask {
	var m idlescan.Mask
	for c := range st {
		m.Set(topology.CPU(c), idleish(st, topology.CPU(c)))
	}
	return &m
}
