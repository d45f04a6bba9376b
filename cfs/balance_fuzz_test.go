package cfs

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/topology"
)

var fuzzTopos = []func() *topology.Topology{
	topology.TwoCPU, topology.TwoSocketSMT, topology.FourLLC, topology.FourNode, topology.BigLittle,
}

// FuzzBalance drives one load_balance decision over random per-CPU loads and a random source
// queue (affinities, cache hotness, weights) and checks that the decisions never choose a
// pinned or running task, never take more than the imbalance allows, leave an idle
// destination's source with a task, and never make the imbalance worse: at a level of two
// single-CPU groups, with migrate_load and no past failures, the destination does not end up
// heavier than the source was. (With more groups the kernel's arithmetic can over-pull: when a
// fully busy group's heavy load lifts the domain average above the busiest group's avg_load,
// busiest.avg_load - sds.avg_load wraps and min() takes the local side's gap alone.)
func FuzzBalance(f *testing.F) {
	f.Add(uint8(0), uint64(1), uint8(0), uint8(0))
	f.Add(uint8(2), uint64(7), uint8(1), uint8(2))
	f.Add(uint8(3), uint64(42), uint8(2), uint8(3))
	f.Add(uint8(4), uint64(99), uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, topoIdx uint8, seed uint64, idleIdx uint8, failed uint8) {
		topo := fuzzTopos[int(topoIdx)%len(fuzzTopos)]()
		ds := NewDomains(topo, smp.GroupConstruction(seed%2))
		r := rand.New(rand.NewPCG(seed, 3))
		n := topo.NumCPUs()
		dst := topology.CPU(r.IntN(n))
		idle := smp.IdleType(idleIdx % 3)
		nr := map[topology.CPU]uint32{}
		for c := range topo.CPUs().All() {
			nr[c] = uint32(r.IntN(5))
		}
		if idle != smp.CPUNotIdle {
			nr[dst] = 0
		} else if nr[dst] == 0 {
			nr[dst] = 1
		}
		st := statsFor(topo, nr)
		for c := range topo.CPUs().All() {
			st[c].Load = 0
		}
		ch := ds.Chain(dst)
		if len(ch) == 0 {
			return
		}
		sd := &ch[r.IntN(len(ch))]
		env := LBEnv{SD: sd, DstCPU: dst, Idle: idle, CPUs: sd.Span(), Stats: st, NrBalanceFailed: int(failed % 6)}
		sp := defaultSMPParams(V65)
		// The source queues: real tasks with random weights, affinities and run times.
		cpus := make([]*RunQueue, topo.NumIDs())
		lists := make([]TaskList, topo.NumIDs())
		for c := range topo.CPUs().All() {
			cpus[c] = NewRunQueue(int(c), DefaultParams())
			for i := range nr[c] {
				e := NewTask(fmt.Sprintf("c%dt%d", c, i), Normal, r.IntN(40)-20)
				cpus[c].Wakeup(e, 1)
				allowed := topo.CPUs()
				if r.IntN(3) == 0 {
					allowed = topology.CPUSetOf(c)
					if r.IntN(2) == 0 {
						allowed.Add(topology.CPU(r.IntN(n)))
					}
				}
				lists[c].PushFront(NewSMPTask(e, allowed, c))
			}
			if nr[c] > 0 {
				cpus[c].Schedule(1)
			}
			for tk := lists[c].Front(); tk != nil; tk = tk.Next() {
				tk.E.ExecStart = uint64(r.IntN(2_000_000))
			}
			st[c].Load = ScaleLoadDown(cpus[c].Root().Load().Weight)
		}
		d, _ := FindBusiestGroup(&env, &sp)
		if d.Group == nil {
			return
		}
		if grp := d.Group.CPUs(); grp.Has(dst) {
			t.Fatalf("busiest group %v holds the destination %v", d.Group, dst)
		}
		if d.Imbalance <= 0 {
			t.Fatalf("busiest group %v with imbalance %d", d.Group, d.Imbalance)
		}
		src, ok := FindBusiestQueue(&env, &d, &sp)
		if !ok {
			return
		}
		if grp := d.Group.CPUs(); !grp.Has(src) || st[src].HNrRunning == 0 {
			t.Fatalf("busiest queue %v not in %v or empty", src, d.Group)
		}
		me := MigrateEnv{LBEnv: &env, Src: src, SrcRQ: cpus[src], Now: 1_000_000, Migration: d.Migration,
			Imbalance: d.Imbalance, Flags: LBFAllPinned, DstGroupMask: sd.Group(0).balanceMask()}
		chosen, det := DetachTasks(&me, &lists[src], nil, &sp)
		var moved uint64
		for _, tk := range chosen {
			if !tk.allowedOn(dst) {
				t.Fatalf("chose %v, not allowed on %v (%v)", tk, dst, tk.Allowed())
			}
			if cpus[src].Curr() == tk.E {
				t.Fatalf("chose the running task %v", tk)
			}
			moved += max(TaskHLoad(tk.E), 1)
		}
		if det.detached != len(chosen) || det.detached > det.examined || det.examined > max(sp.NrMigrate, 1) {
			t.Fatalf("detached %d (chosen %d) of %d examined", det.detached, len(chosen), det.examined)
		}
		if idle != smp.CPUNotIdle && det.detached > 0 && int(st[src].NrRunning)-det.detached < 1 {
			t.Fatalf("idle %v emptied the source: %d of %d tasks", dst, det.detached, st[src].NrRunning)
		}
		switch d.Migration {
		case smp.MigrateTask:
			if int64(det.detached) > d.Imbalance {
				t.Fatalf("migrate_task %d moved %d tasks", d.Imbalance, det.detached)
			}
		case smp.MigrateLoad:
			if env.NrBalanceFailed == 0 && int64(moved) > d.Imbalance {
				t.Fatalf("migrate_load %d moved load %d", d.Imbalance, moved)
			}
			if env.NrBalanceFailed == 0 && sd.NumGroups() == 2 && d.Group.weight() == 1 && sd.Group(0).weight() == 1 &&
				st[dst].Load+moved > st[src].Load {
				t.Fatalf("%v\n%v\nmoving load %d from %v (%d) to %v (%d) makes the destination heavier than the source was", d, det,
					moved, src, st[src].Load, dst, st[dst].Load)
			}
		}
	})
}
