package ule

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// TestSearchLogChangesNothing checks RecordSearches on every topology of the index tests: a
// search decides and draws the same with the log on as off, and the log holds the search with
// each CPU qualified exactly when a naive reading of sched_lowest's and sched_highest's
// criteria accepts it, the CPU found among the qualified, and none found only when none
// qualified.
func TestSearchLogChangesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 31))
	for _, top := range indexTops {
		for range 40 {
			s := indexState(t, top, r)
			mask := top.CPUs()
			if r.IntN(3) == 0 {
				mask = topology.CPUSet{}
				for c := range top.CPUs().All() {
					if r.IntN(2) == 0 {
						mask.Add(c)
					}
				}
			}
			groups := top.AllGroups()
			g := groups[r.IntN(len(groups))]
			pri, maxLoad := int32(r.IntN(300)-1), int32(math.MaxInt32)
			if r.IntN(2) == 0 {
				maxLoad = int32(r.IntN(4))
			}
			prefer, running := topology.CPU(r.IntN(top.NumIDs())), r.IntN(2) == 0
			minLoad, minTrans := int32(r.IntN(4)), int32(r.IntN(3))
			seed := r.Uint64()

			var off, on [2]topology.CPU
			var okOff, okOn [2]bool
			var drawsOff, drawsOn [2]uint32
			rnd := NewRand(0, seed)
			off[0], okOff[0] = s.lowest(g, &mask, pri, maxLoad, prefer, running, &rnd)
			off[1], okOff[1] = s.highest(g, &mask, minLoad, minTrans, &rnd)
			drawsOff[0] = rnd.State()
			s.RecordSearches(true)
			rnd = NewRand(0, seed)
			on[0], okOn[0] = s.lowest(g, &mask, pri, maxLoad, prefer, running, &rnd)
			on[1], okOn[1] = s.highest(g, &mask, minLoad, minTrans, &rnd)
			drawsOn[0] = rnd.State()
			log := s.TakeSearches()
			s.RecordSearches(false)
			if off != on || okOff != okOn || drawsOff != drawsOn {
				t.Fatalf("%v in %v: with the log %v %v (draws %v), without %v %v (draws %v)", top, g, on, okOn, drawsOn, off, okOff, drawsOff)
			}
			if len(log) != 2 || log[0].Kind != "lowest" || log[1].Kind != "highest" || s.TakeSearches() != nil {
				t.Fatalf("log %+v: want one lowest and one highest search, then nothing", log)
			}
			for i, e := range log {
				if e.Group != g.String() || len(e.CPUs) != g.Count() {
					t.Fatalf("search %d: group %s with %d CPUs, want %v with %d", i, e.Group, len(e.CPUs), g, g.Count())
				}
				any, found := false, false
				for _, c := range e.CPUs {
					l := s.loads[c.CPU]
					load := l.Load
					if i == 0 && running && c.CPU == int(prefer) {
						load--
					}
					want := load <= maxLoad && (int32(l.LowPri) > pri || (running && c.CPU == int(prefer))) && mask.Has(topology.CPU(c.CPU))
					if i == 1 {
						want = l.Load >= minLoad && l.Transferable >= minTrans && mask.Has(topology.CPU(c.CPU))
					}
					if c.Qualified != want || c.Load != int(load) || c.LowPri != l.LowPri {
						t.Fatalf("search %d (%+v) cpu%d: logged %+v, want qualified %v load %d lowpri %d", i, e, c.CPU, c, want, load, l.LowPri)
					}
					any = any || want
					found = found || (c.CPU == e.Found && want)
				}
				if (e.Found >= 0) != okOn[i] || (okOn[i] && (e.Found != int(on[i]) || !found)) || (!okOn[i] && any) {
					t.Fatalf("search %d: logged found cpu%d among %+v; the search found %v %v", i, e.Found, e.CPUs, on[i], okOn[i])
				}
			}
		}
	}
}

// TestSearchLogPickCPU checks that PickCPU's log ends with the search that chose its CPU
// whenever a search rule fired, and is empty when a rule before the searches did.
func TestSearchLogPickCPU(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, top := range indexTops {
		for range 40 {
			s := indexState(t, top, r)
			s.RecordSearches(true)
			th := InitThread(&Thread{ID: 999, Priority: uint8(100 + r.IntN(120)), Affinity: top.CPUs(),
				CPU: topology.CPU(r.IntN(top.NumIDs())), RLTick: uint32(r.IntN(20))})
			rnd := NewRand(0, r.Uint64())
			cpu, why := s.PickCPU(th, topology.CPU(r.IntN(top.NumIDs())), 10, SRQBoring, false, &rnd)
			log := s.TakeSearches()
			s.RecordSearches(false)
			switch why.Rule {
			case PickCPUStay, PickCPUIntrIdle, PickCPUAffinity:
				if len(log) != 0 {
					t.Fatalf("%v: rule %v searched nothing, log %+v", top, why.Rule, log)
				}
			case PickCPULLCIdle, PickCPULowerPri, PickCPULeastLoaded:
				if len(log) == 0 || len(log) > 3 || log[len(log)-1].Found != int(cpu) {
					t.Fatalf("%v: %v chose cpu%d, log %+v", top, why, cpu, log)
				}
			case PickCPULocal:
				if len(log) == 0 || log[len(log)-1].Found < 0 {
					t.Fatalf("%v: %v, log %+v", top, why, log)
				}
			}
		}
	}
}

// TestSearchLogOff checks that TakeSearches returns nil while the record is off.
func TestSearchLogOff(t *testing.T) {
	s := indexState(t, indexTops[0], rand.New(rand.NewPCG(1, 1)))
	rnd := NewRand(0, 1)
	all := s.top.CPUs()
	s.lowest(s.top.Root(), &all, -1, math.MaxInt32, 0, false, &rnd)
	if got := s.TakeSearches(); got != nil {
		t.Fatalf("record off: TakeSearches = %+v, want nil", got)
	}
	s.RecordSearches(true)
	s.RecordSearches(true) // a second call keeps the log
	s.lowest(s.top.Root(), &all, -1, math.MaxInt32, 0, false, &rnd)
	if got := s.TakeSearches(); len(got) != 1 || !reflect.DeepEqual(got[0].Group, s.top.Root().String()) {
		t.Fatalf("record on: TakeSearches = %+v, want the one search of the root", got)
	}
}
