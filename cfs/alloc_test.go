package cfs

import "testing"

// TestZeroAllocs enforces the zero-allocation claims of the CPU's hot operations (tick,
// schedule, sleep, wakeup and the decisions they make).
func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	c := NewRunQueue(0, DefaultParams())
	g := NewGroup("g", nil, 1)
	tasks := []*Entity{NewTask("a", Normal, 0), NewTask("b", Normal, 3), NewTask("c", Idle, 0), NewTask("d", Batch, -2)}
	tasks[1].SetGroup(g)
	tasks[2].SetGroup(g)
	for _, tk := range tasks {
		c.Fork(nil, tk, 0)
	}
	c.Schedule(0)
	now := uint64(0)
	if a := testing.AllocsPerRun(1000, func() {
		now += 1_000_000
		c.Tick(now)
		if c.NeedResched() {
			c.Schedule(now)
		}
		s := tasks[now/1_000_000%4]
		if s.OnRQ() {
			c.Sleep(s, now)
			if c.NeedResched() {
				c.Schedule(now)
			}
			c.Wakeup(s, now+1)
		}
		Pick(c.Root(), nil, &c.params)
	}); a != 0 {
		t.Errorf("CPU Tick/Schedule/Sleep/Wakeup/Pick: %v allocs per run, want 0", a)
	}
	checkCPU(t, c, nil)
}

// TestZeroAllocsEEVDF enforces the zero-allocation claims of EEVDF: the pick, the pure
// arithmetic and the CPU's hot operations on v6.6 and v7.1, with groups, custom slices and
// delayed dequeues.
func TestZeroAllocsEEVDF(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, v := range []Version{V66, V618, V71} {
		p := preset(v, 1)
		c := NewRunQueue(0, p)
		g := NewGroup("g", nil, 1)
		tasks := []*Entity{NewTask("a", Normal, 0), NewTask("b", Normal, 3), NewTask("c", Idle, 0), NewTask("d", Batch, -2), NewTask("e", Normal, -5)}
		tasks[1].SetGroup(g)
		tasks[2].SetGroup(g)
		tasks[4].SetSlice(200_000)
		for _, tk := range tasks {
			c.Fork(nil, tk, 0)
		}
		c.Schedule(0)
		q := c.Root()
		now := uint64(0)
		if a := testing.AllocsPerRun(1000, func() {
			now += 1_000_000
			c.Tick(now)
			if c.NeedResched() {
				c.Schedule(now)
			}
			s := tasks[now/1_000_000%5]
			if s.OnRQ() && !s.Delayed() {
				c.Sleep(s, now)
				if c.NeedResched() {
					c.Schedule(now)
				}
			}
			c.Wakeup(s, now+1)
			c.DequeueDelayed(tasks[(now/1_000_000+2)%5], now+1)
			pickEEVDF(q, true, &p)
			AvgVruntime(q.Sums())
			entityEligible(q, tasks[0])
			placeEEVDF(q, tasks[3], false, &p)
			if c.Curr() != nil {
				protectPoint(q, c.Curr(), &p)
			}
		}); a != 0 {
			t.Errorf("%v: Tick/Schedule/Sleep/Wakeup/PickEEVDF/arithmetic: %v allocs per run, want 0", v, a)
		}
		checkCPU(t, c, nil)
	}
}
