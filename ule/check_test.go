package ule

import (
	"testing"

	"github.com/schedkit/schedkit/runq"
)

// pickModel is tdq_choose transcribed directly, each range searched in turn with runq_findq:
// the model Pick is checked against (checkCPU compares them after every step).
func pickModel(c *CPUState) (*Thread, PickReason) {
	var x *Thread
	head := func(_ runq.Index, q *runq.Queue[Thread]) bool {
		x = q.Front()
		return true
	}
	if c.p.Version.split() {
		if i, ok := c.rq[rqRealtime].Find(legacyRange, head); ok {
			return x, PickReason{Rule: PickRealtime, Queue: i}
		}
		if i, ok := c.rq[rqTimeshare].FindCircular(legacyRange, runq.Index(c.Ridx), head); ok {
			return x, PickReason{Rule: PickCalendar, Queue: i, Start: c.Ridx}
		}
		if i, ok := c.rq[rqIdle].Find(legacyRange, head); ok {
			return x, PickReason{Rule: PickIdleClass, Queue: i}
		}
		return nil, PickReason{Rule: PickIdle, Start: c.Ridx}
	}
	rq := &c.rq0
	if i, ok := rq.Find(RealtimeRange, head); ok {
		return x, PickReason{Rule: PickRealtime, Queue: i}
	}
	if i, ok := rq.FindCircular(TimeshareRange, TimeshareRange.Lo+runq.Index(c.DeqOff), head); ok {
		return x, PickReason{Rule: PickCalendar, Queue: i, Start: c.DeqOff}
	}
	if i, ok := rq.Find(IdleRange, head); ok {
		return x, PickReason{Rule: PickIdleClass, Queue: i}
	}
	return nil, PickReason{Rule: PickIdle, Start: c.DeqOff}
}

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
	mt, mwhy := pickModel(c)
	if th, why := Pick(c); th != mt || why != mwhy {
		t.Fatalf("cpu%d: Pick %v (%v), the model %v (%v)", c.ID, th, why, mt, mwhy)
	}
	if c.pick.ok && c.pick.off == c.calOff() {
		if th, why := Pick(c); th != c.pick.t || why != c.pick.why {
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

// checkSystem verifies every CPU of s, that each thread is on at most one CPU, that each
// CPUState's loads are its entry of the System's, and that the load index, if kept, records
// them.
func checkSystem(t testing.TB, s *System) {
	t.Helper()
	if s.ix != nil {
		if err := s.ix.Check(); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[*Thread]bool{}
	for c := range s.top.CPUs().All() {
		cs := &s.cpus[c]
		if cs.sum.CPULoad != &s.loads[c] || cs.sum.Index() != s.ix {
			t.Fatalf("cpu%d: its loads or index are not the System's", c)
		}
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
