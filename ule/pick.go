// This file implements Pick, the choice of the next thread of a CPU (tdq_choose).

package ule

import (
	"github.com/schedkit/schedkit/runq"
)

// A PickRule says which part of the run queue Pick took its thread from.
type PickRule uint8

const (
	PickIdle      PickRule = iota // nothing queued: the idle thread runs
	PickRealtime                  // the real-time range (interrupt, real-time, kernel and interactive priorities)
	PickCalendar                  // the timeshare calendar, scanned circularly from the dequeue offset
	PickIdleClass                 // the idle range (idprio threads)
)

// A PickReason explains a Pick: the rule that fired, the queue the thread came from, and the
// calendar's dequeue offset (DeqOff in main, Ridx in legacy) the scan started at.
type PickReason struct {
	Rule  PickRule
	Queue runq.Index
	Start uint8
}

var pickReasons = []string{PickIdle: "nothing queued: idle", PickRealtime: "real-time range, queue %[1]d",
	PickCalendar: "calendar queue %[1]d (scan from dequeue offset %[2]d)", PickIdleClass: "idle range, queue %[1]d"}

// String formats the reason, such as "calendar queue 140 (scan from dequeue offset 20)".
func (r PickReason) String() string {
	return explain(pickReasons, r.Rule, "PickReason", r.Queue, r.Start)
}

// Pick returns the thread c would run next, without removing it: tdq_choose. The order is
//
//  1. the first thread of the real-time range (main: queues 0..114; legacy: tdq_realtime),
//     strictly by priority;
//  2. the calendar, scanned circularly from the dequeue offset: in main the queues
//     115+DeqOff..223 then 115..115+DeqOff-1, two disjoint runq_findq calls; in legacy
//     tdq_timeshare from Ridx around to Ridx-1 (runq_choose_from);
//  3. the first thread of the idle range (main: 224..255; legacy: tdq_idle).
//
// It returns nil and PickIdle when nothing is queued. Pick reads c and changes nothing; it
// follows the Params c was built with, which fixed the shape of c's run queues (see the package
// documentation). The complexity is O(1).
func Pick(c *CPUState) (*Thread, PickReason) {
	if c.p.Version.split() {
		var x *Thread
		head := func(_ runq.Index, q *runq.Queue[Thread]) bool {
			x = q.Front()
			return true
		}
		if x, ok := c.rq[rqRealtime].Choose(); ok {
			i, _ := x.Link.Index()
			return x, PickReason{Rule: PickRealtime, Queue: i}
		}
		if !c.rq[rqTimeshare].Empty() {
			if i, ok := c.rq[rqTimeshare].FindCircular(legacyRange, runq.Index(c.Ridx), head); ok {
				return x, PickReason{Rule: PickCalendar, Queue: i, Start: c.Ridx}
			}
		}
		if x, ok := c.rq[rqIdle].Choose(); ok {
			i, _ := x.Link.Index()
			return x, PickReason{Rule: PickIdleClass, Queue: i}
		}
		return nil, PickReason{Rule: PickIdle, Start: c.Ridx}
	}
	// In main, the first thread of the whole run queue (runq_choose, one scan of the status
	// words) decides most picks: it is the first of the real-time range if that range has one,
	// and the first of the idle range if nothing else is queued; only when it lies in the
	// calendar does the circular scan from the dequeue offset have to run.
	rq := &c.rq0
	first, ok := rq.Choose()
	if !ok {
		return nil, PickReason{Rule: PickIdle, Start: c.DeqOff}
	}
	i, _ := first.Link.Index()
	switch {
	case i <= RealtimeRange.Hi:
		return first, PickReason{Rule: PickRealtime, Queue: i}
	case i >= IdleRange.Lo:
		return first, PickReason{Rule: PickIdleClass, Queue: i}
	}
	// The circular scan, runq_findq from the dequeue offset to the end of the calendar and
	// then from its start, with a predicate that takes the head of the first queue it is
	// offered: the first non-empty queue at or after the offset, or else the first of the
	// calendar. first lies in the calendar and no queue below it holds a thread, so first is
	// the answer when it lies at or after the offset, and the answer of the second call when
	// the first call finds nothing; only the first call's search is left.
	why := PickReason{Rule: PickCalendar, Queue: i, Start: c.DeqOff}
	if start := TimeshareRange.Lo + runq.Index(c.DeqOff); i < start {
		st := rq.Status()
		if j, ok := st.FirstIn(runq.Range{Lo: start, Hi: TimeshareRange.Hi}); ok {
			why.Queue = j
			return rq.Queue(j).Front(), why
		}
	}
	return first, why
}
