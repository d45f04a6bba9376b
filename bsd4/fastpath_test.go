package bsd4

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// This file tests the Scheduler's fast paths against the decisions they stand for: each
// computes what the exported decision computes, without building its explanation.

// TestChooseMatchesPick checks choose against Pick on random global and per-CPU queues: random
// priorities (a few, so that ties between the queues are common), random last CPUs, random
// fuzz, queues often empty, and threads added and removed between comparisons.
func TestChooseMatchesPick(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 1))
	var global, local runq.Runq[Thread]
	var onGlobal, onLocal []*Thread
	pris := []uint8{0, 47, 48, 80, 81, 120, 223, 255}
	next := sched.ID(0)
	remove := func(q *runq.Runq[Thread], ts *[]*Thread) {
		if len(*ts) == 0 {
			return
		}
		i := rng.IntN(len(*ts))
		q.Remove(&(*ts)[i].Link)
		*ts = append((*ts)[:i], (*ts)[i+1:]...)
	}
	for i := range 20000 {
		switch r := rng.IntN(10); {
		case r < 3:
			x := NewThread(next, pris[rng.IntN(len(pris))])
			next++
			if rng.IntN(3) > 0 {
				x.SetLastCPU(topology.CPU(rng.IntN(3)))
			}
			if rng.IntN(2) == 0 {
				global.Add(runq.Index(x.Pri), &x.Link)
				onGlobal = append(onGlobal, x)
			} else {
				local.Add(runq.Index(x.Pri), &x.Link)
				onLocal = append(onLocal, x)
			}
		case r < 5:
			remove(&global, &onGlobal)
		case r < 7:
			remove(&local, &onLocal)
		}
		p := DefaultParams()
		p.RunqFuzz = []int{0, 1, 2, 4}[rng.IntN(4)]
		cpu := topology.CPU(rng.IntN(3))
		want, ch := Pick(&global, &local, cpu, &p)
		if got := choose(&global, &local, cpu, p.RunqFuzz); got != want {
			t.Fatalf("step %d: choose(cpu%d, fuzz %d) = %v, want Pick's %v (%v)", i, cpu, p.RunqFuzz, got, want, ch)
		}
	}
}

// TestWakeTargetMatchesWakeCPU checks wakeTarget against WakeCPU on random inputs: machines of
// up to 1024 CPUs with random idle sets (often empty, often holding the waker or the queue's
// CPU), priorities at and around the layout's boundaries, and every combination of the
// notification tunables.
func TestWakeTargetMatchesWakeCPU(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 2))
	base := []Params{DefaultParams(), FreeBSD14Params(), FreeBSD9Params()}
	for i := range 200000 {
		p := base[rng.IntN(len(base))]
		p.IPIWakeup = rng.IntN(4) > 0
		p.Preemption = rng.IntN(4) > 0
		p.IPIPreemption = rng.IntN(2) == 0
		p.FullPreemption = rng.IntN(2) == 0
		l := p.Layout
		pris := []uint8{0, l.MaxITHD - 1, l.MaxITHD, l.MaxITHD + 1, l.MinTimeshare, l.MinTimeshare + 20,
			l.MinIdle - 1, l.MinIdle, l.MinIdle + 1, MaxIdle}
		pri := func() uint8 {
			if rng.IntN(4) == 0 {
				return uint8(rng.IntN(256))
			}
			return pris[rng.IntN(len(pris))]
		}
		ncpu := []int{1, 2, 3, 4, 64, 65, 1024}[rng.IntN(7)]
		cpu := func() topology.CPU { return topology.CPU(rng.IntN(ncpu)) }
		in := WakeInput{Pri: pri(), PerCPU: rng.IntN(3) == 0, Queue: cpu(), QueuePri: pri(), Self: cpu(), SelfPri: pri()}
		if rng.IntN(4) == 0 {
			in.Queue = in.Self
		}
		switch rng.IntN(4) {
		case 0: // no idle CPU
		case 1: // a few
			for range 1 + rng.IntN(3) {
				in.Idle.Add(cpu())
			}
		case 2: // the waker and others
			in.Idle.Add(in.Self)
			in.Idle.Add(cpu())
		default: // about half of them
			for c := range ncpu {
				if rng.IntN(2) == 0 {
					in.Idle.Add(topology.CPU(c))
				}
			}
		}
		if !in.PerCPU {
			in.QueuePri = 0 // as the Scheduler passes it
		}
		_, w := WakeCPU(in, &p)
		var idle cpuMask
		for c := range in.Idle.All() {
			idle.add(c)
		}
		n, c, preempt := wakeTarget(in.Pri, in.PerCPU, in.Queue, in.QueuePri, in.Self, in.SelfPri, &idle, (ncpu+63)/64, &p)
		var got topology.CPUSet
		switch n {
		case noticeOne:
			got.Add(c)
		case noticeIdle:
			got = in.Idle
		}
		if got != w.CPUs || preempt != w.Preempt {
			t.Fatalf("case %d: wakeTarget(%+v) = %v preempt %t, want WakeCPU's %v preempt %t (%v)", i, in, got, preempt, w.CPUs, w.Preempt, w)
		}
	}
}

// TestEstCPUTickMatches checks the Scheduler's estCPUTick against EstCPUTick on machines of 1 to
// 1024 CPUs, with both folds, for every estcpu from 0 to two levels past the ceiling.
func TestEstCPUTickMatches(t *testing.T) {
	topo := func(n int) *topology.Topology { return topology.Uniform(1, 1, 1, n, 1) }
	for _, p := range []Params{DefaultParams(), FreeBSD9Params()} {
		for _, n := range []int{1, 2, 3, 4, 7, 8, 16, 63, 64, 100, 1024} {
			s := mustNew(t, p)
			if err := s.Start(sched.Config{Topology: topo(n), Hz: 1000, StatHz: 127}, &fakeEnv{t: t}); err != nil {
				t.Fatal(err)
			}
			lim := ESTCPULim(^uint32(0), s.iew, p.Fold)
			for e := uint32(0); e <= lim+2*s.iew; e++ {
				next, reprio := s.estCPUTick(e)
				wantNext, wantReprio := EstCPUTick(e, s.iew, p.Fold)
				if next != wantNext || reprio != wantReprio {
					t.Fatalf("%s, %d CPUs: estCPUTick(%d) = %d, %t; want %d, %t", p.Name, n, e, next, reprio, wantNext, wantReprio)
				}
			}
		}
	}
}
