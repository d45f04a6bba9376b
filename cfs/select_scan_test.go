package cfs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
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

// TestSelectIdleSiblingMask checks that SelectIdleSibling chooses the same CPU, for the same
// reason, with the same scan count and hints, whether it reads a System's mask of the idle CPUs
// (select_idle_smt's and select_idle_cpu's fast forms, package idlescan) or walks the CPUs, on
// random states of machines whose SMT siblings lie in one word of the bitmap or 64 apart (the
// walk then runs), for every previous CPU and a random target, with the LLC's idle
// core hint set or not. It fails if the SMT sibling was never the answer on either kind of
// machine, so that the fast form is known to have been compared.
func TestSelectIdleSiblingMask(t *testing.T) {
	// 40 cores whose two siblings are numbered 64 apart, in different words of the bitmap.
	spec := "package:1 node:1 llc:1 core:40 cpu:2 cpus="
	for c := range 40 {
		spec += fmt.Sprintf("%d,%d,", c, c+64)
	}
	apart, err := topology.Parse(strings.TrimSuffix(spec, ","))
	if err != nil {
		t.Fatal(err)
	}
	topos := []*topology.Topology{
		topology.Uniform(1, 1, 2, 4, 2), topology.Uniform(2, 1, 1, 40, 2), apart,
		topology.TwoSocketSMT(), topology.FourLLC(), topology.Uniform(1, 1, 1, 64, 1),
	}
	p := smp65()
	for ti, topo := range topos {
		ds := NewDomains(topo, smp.GroupsPerCPU)
		if (ds.smtOthers == nil) != (topo == apart) {
			t.Fatalf("%v: smtOthers nil %t", topo, ds.smtOthers == nil)
		}
		var list []topology.CPU
		for c := range topo.CPUs().All() {
			list = append(list, c)
		}
		r := rand.New(rand.NewPCG(uint64(ti), 31))
		smtHits := 0
		for range 300 {
			n := topo.NumIDs()
			st := make([]smp.CPUStat, n)
			for _, c := range list {
				nr := uint32(0)
				if r.IntN(4) != 0 {
					nr = 1 + uint32(r.IntN(2))
				}
				st[c] = smp.CPUStat{NrRunning: nr, HNrRunning: nr, Capacity: 1024, CapacityOrig: 1024}
				if nr > 0 && r.IntN(8) == 0 {
					st[c].IdleHNrRunning = nr
				}
			}
			env := &WakeEnv{Domains: ds, Stats: st, NrIdleScan: make([]int, n), HasIdleCores: make([]bool, n)}
			for i := range n {
				env.NrIdleScan[i] = r.IntN(12)
				env.HasIdleCores[i] = r.IntN(3) == 0
			}
			allowed := topo.CPUs()
			if r.IntN(3) == 0 {
				allowed = topology.CPUSet{}
				for range 1 + r.IntN(len(list)) {
					allowed.Add(list[r.IntN(len(list))])
				}
			}
			env.Task = NewSMPTask(NewTask("p", Normal, 0), allowed, list[0])
			mask := *env
			mask.idle = idleMaskOf(st)
			for _, prev := range list {
				target := list[r.IntN(len(list))]
				if r.IntN(2) == 0 {
					target = prev
				}
				env.Task.recentUsedCPU = list[r.IntN(len(list))]
				want, wwhy := SelectIdleSibling(env, prev, target, p)
				got, gwhy := SelectIdleSibling(&mask, prev, target, p)
				if got != want || gwhy != wwhy {
					t.Fatalf("%v: prev %v target %v: with the mask %+v (%v), walking %+v (%v)", topo, prev, target, got, gwhy, want, wwhy)
				}
				if wwhy == placeIdleSMT {
					smtHits++
				}
			}
		}
		if ds.smtActive() && smtHits == 0 {
			t.Errorf("%v: no placement on an idle SMT sibling among the random states", topo)
		}
	}
}
