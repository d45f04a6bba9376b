package bsd4_test

import (
	"testing"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// TestZeroAllocs enforces that the decisions and the Scheduler's hot paths do not allocate,
// which benchmarks alone cannot (a benchmark never fails).
func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates; allocation counts are checked without -race")
	}
	s := loaded(t, 256, 9)
	// forward_wakeup through ReschedSet on 64 CPUs: thread 1 sleeps and wakes from cpu0 while
	// the 63 other CPUs idle.
	fw := threadStartScheduler(t, 64, nopSetEnv{})
	fw.Fork(0, 1, -1, 0, sched.Attr{})
	fw.Wakeup(0, 1, 0, sched.WakeFork)
	fw.Pick(0, 1)
	var global, own runq.Runq[bsd4.Thread]
	for i := range 64 {
		x := bsd4.NewThread(sched.ID(i), uint8(60+i%7))
		x.SetLastCPU(topology.CPU(i % 3))
		global.Add(runq.Index(x.Pri), &x.Link)
	}
	p := bsd4.DefaultParams()
	fuzz4 := p
	fuzz4.RunqFuzz = 4
	now := int64(1 << 40)
	var sink bsd4.PreemptReason
	idle12 := topology.CPUSetOf(1, 2)
	cases := []struct {
		name string
		f    func()
	}{
		{"Pick", func() { bsd4.Pick(&global, &own, 2, &p) }},
		{"Pick fuzz", func() { bsd4.Pick(&global, &own, 2, &fuzz4) }},
		{"ShouldPreempt", func() { _, sink = bsd4.ShouldPreempt(60, 120, &p) }},
		{"WakeCPU", func() {
			bsd4.WakeCPU(&bsd4.WakeInput{Pri: 80, Self: 0, SelfPri: 90, Idle: &idle12}, &p)
		}},
		{"Scheduler.Tick", func() {
			now += 7_874_015
			s.Tick(now, 0)
			s.Tick(now, 1)
		}},
		{"Scheduler.Stop+Pick", func() {
			cur, _ := s.System().Running(0)
			s.Stop(now, 0, cur.ID, sched.Preempt)
			s.Pick(now, 0)
		}},
		{"Scheduler.Sleep+Wakeup", func() {
			cur, _ := s.System().Running(0)
			s.Stop(now, 0, cur.ID, sched.Sleep)
			s.Pick(now, 0)
			s.Wakeup(now, cur.ID, 0, 0)
		}},
		{"Scheduler.SchedCPU", func() { s.SchedCPU() }},
		{"Scheduler.Wakeup with ReschedSet", func() {
			fw.Stop(now, 1, 1, sched.Sleep)
			fw.Pick(now, 1)
			fw.Wakeup(now, 1, 0, 0)
			fw.Pick(now, 1)
		}},
	}
	_ = sink
	for _, tc := range cases {
		if got := testing.AllocsPerRun(200, tc.f); got != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tc.name, got)
		}
	}
}
