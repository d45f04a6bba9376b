package ule

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// TestZeroAllocs enforces that the decisions and the scheduler's hot paths do not allocate.
func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	r := rand.New(rand.NewPCG(9, 9))
	s := benchSystem(64, r)
	all := s.top.CPUs()
	th := InitThread(&Thread{ID: 1000, Class: ClassTimeshare, Priority: 140, UserPri: 140, Affinity: all, CPU: 3, RLTick: 999})
	rnd := NewRand(0, 1)
	p := DefaultParams()
	c := NewCPUState(0, &p)
	id := 0
	loadedCPU(c, 17, r, topology.CPUSetOf(0), &id)
	moves := make([]Move, 0, 64)
	// A Scheduler on the 2-socket SMT fixture running a sleep/wake/tick cycle.
	env := &fakeEnv{}
	sc := mustNew(t, LegacyParams())
	top := topology.Uniform(2, 1, 1, 2, 2)
	if err := sc.Start(sched.Config{Topology: top, Hz: 1000, StatHz: 127}, env); err != nil {
		t.Fatal(err)
	}
	for i := range sched.ID(6) {
		sc.Fork(0, i, -1, topology.CPU(i%8), sched.Attr{})
		sc.Wakeup(0, i, topology.CPU(i%8), sched.WakeFork)
	}
	for cpu := range top.CPUs().All() {
		sc.Pick(0, cpu)
	}
	now := int64(0)
	cases := []struct {
		name string
		f    func()
	}{
		{"Pick", func() { Pick(c) }},
		{"RunqAdd+Choose", func() {
			cur := c.Cur
			c.Cur = nil
			c.RunqAdd(cur, SRQOurself|SRQYielding)
			c.Choose()
			c.ClockQueue(1)
		}},
		{"PickCPU", func() { s.PickCPU(th, 5, 1000, 0, false, &rnd) }},
		{"PickCPU SMT affinity", func() { th.CPU = topology.CPU(r.IntN(64)); s.PickCPU(th, 5, 1000, 0, false, &rnd) }},
		{"Steal", func() { s.Steal(topology.CPU(r.IntN(64)), 0, &rnd) }},
		{"Lowest", func() { s.Lowest(s.top.Root(), &all, 140, math.MaxInt32, 0, true, &rnd) }},
		{"Highest", func() { s.Highest(s.top.Root(), &all, 2, 1, &rnd) }},
		{"Balance", func() {
			moves = s.Balance(0, &rnd, moves[:0])
			for _, m := range moves {
				if !m.PickCPU {
					s.cpus[m.To].Remove(m.Thread)
					m.Thread.CPU = m.From
					s.cpus[m.From].Add(m.Thread, 0)
				}
			}
		}},
		{"Scheduler cycle", func() {
			now += 7_874_015
			for cpu := range top.CPUs().All() {
				sc.Tick(now, cpu)
			}
			cpu := topology.CPU(r.IntN(8))
			if cur := sc.sys.cpus[cpu].Cur; cur != nil {
				sc.Stop(now, cpu, cur.ID, sched.Sleep)
				sc.Pick(now, cpu)
				sc.Wakeup(now, cur.ID, topology.CPU(r.IntN(8)), 0)
			}
			for _, k := range env.resched {
				if cur := sc.sys.cpus[k].Cur; cur != nil {
					sc.Stop(now, k, cur.ID, sched.Preempt)
				}
				sc.Pick(now, k)
			}
			env.resched = env.resched[:0]
		}},
	}
	for _, tc := range cases {
		if n := testing.AllocsPerRun(200, tc.f); n != 0 {
			t.Errorf("%s: %v allocations per run, want 0", tc.name, n)
		}
	}
}
