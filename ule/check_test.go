package ule

import "testing"

// checkCPU verifies the invariants of CPUState c.
func checkCPU(t testing.TB, c *CPUState) {
	t.Helper()
	var load, sysload, xfer int32
	for th := range c.Queued() {
		load++
		if !th.NoLoad {
			sysload++
		}
		if th.xferable {
			xfer++
		}
		if th.State != OnRunq {
			t.Fatalf("cpu%d: queued %v has state %v", c.ID, th, th.State)
		}
		if th.CPU != c.ID {
			t.Fatalf("cpu%d: queued %v names cpu%d", c.ID, th, th.CPU)
		}
		i, ok := th.Link.Index()
		if !ok {
			t.Fatalf("cpu%d: queued %v has no queue index", c.ID, th)
		}
		if c.p.Version.split() && i >= legacyNQS {
			t.Fatalf("cpu%d: legacy thread %v in queue %d >= 64", c.ID, th, i)
		}
		if l := c.p.Layout(); c.p.Version == Main && TimeshareRange.Contains(i) && !l.IsBatch(th.BasePri) && !l.IsBatch(th.Priority) {
			t.Fatalf("cpu%d: %v of non-batch priority in the calendar queue %d", c.ID, th, i)
		}
	}
	if c.Cur != nil {
		load++
		if !c.Cur.NoLoad {
			sysload++
		}
		if c.Cur.State != Running || c.Cur.CPU != c.ID {
			t.Fatalf("cpu%d: current %v is not running here", c.ID, c.Cur)
		}
		if c.Cur.Link.Queued() {
			t.Fatalf("cpu%d: current %v is queued", c.ID, c.Cur)
		}
	}
	if int32(c.Load()) != load || c.SysLoad != sysload || int32(c.Transferable()) != xfer {
		t.Fatalf("cpu%d: load %d sysload %d transferable %d, counted %d %d %d", c.ID, c.Load(), c.SysLoad, c.Transferable(), load, sysload, xfer)
	}
	if c.pick.ok && c.pick.off == c.calOff() {
		if th, why := Pick(c, c.p); th != c.pick.t || why != c.pick.why {
			t.Fatalf("cpu%d: cached pick %v (%v), Pick now %v (%v)", c.ID, c.pick.t, c.pick.why, th, why)
		}
	}
	if c.Cur == nil && load == 0 && c.LowPri() != PriMaxIdle {
		t.Fatalf("cpu%d: idle and empty with LowPri %d", c.ID, c.LowPri())
	}
	switch c.p.Version {
	case Main:
		if c.TSOff >= TSModulo || c.DeqOff >= TSModulo || c.TSTicks >= 4 {
			t.Fatalf("cpu%d: calendar offsets ts=%d deq=%d ticks=%d", c.ID, c.TSOff, c.DeqOff, c.TSTicks)
		}
	case Legacy, FreeBSD9:
		if c.Idx >= legacyNQS || c.Ridx >= legacyNQS {
			t.Fatalf("cpu%d: calendar indices idx=%d ridx=%d", c.ID, c.Idx, c.Ridx)
		}
		for _, rq := range c.rq {
			for i := range rq.All() {
				if i >= legacyNQS {
					t.Fatalf("cpu%d: legacy queue %d in use", c.ID, i)
				}
			}
		}
	}
}

// checkSystem verifies every CPU of s and that each thread is on at most one CPU.
func checkSystem(t testing.TB, s *System) {
	t.Helper()
	seen := map[*Thread]bool{}
	for c := range s.Topology.CPUs().All() {
		cs := &s.CPUs[c]
		checkCPU(t, cs)
		for th := range cs.Queued() {
			if seen[th] {
				t.Fatalf("%v queued twice", th)
			}
			seen[th] = true
		}
		if cs.Cur != nil {
			if seen[cs.Cur] {
				t.Fatalf("%v running and queued", cs.Cur)
			}
			seen[cs.Cur] = true
		}
	}
}
