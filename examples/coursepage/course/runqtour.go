package course

// This file is the run-queue tour the page draws as a picture: the 256 status bits, each
// non-empty queue under its bit, and the queues a findq search looked at.

import (
	"fmt"

	"github.com/schedkit/schedkit/runq"
)

// A RunqStep is one step of the run-queue tour: what was done, the state of the Runq after it
// (runq.Runq.Snapshot) and, when the step searched, the search (runq.Trace) whose visited
// queues the page highlights.
type RunqStep struct {
	Title  string       `json:"title"`
	State  runq.State   `json:"state"`
	Search *runq.Search `json:"search,omitempty"`
}

// tourThread is the tour's element type: a runq.Link embedded in a named thread.
type tourThread struct {
	runq.Link[tourThread]
	name   string
	pinned bool
}

// RunqTour runs the tour of examples/runqtour on a real runq.Runq and returns every step's
// state. The same calls run in the page and in the tests, so the picture is the library's.
func RunqTour() []RunqStep {
	var q runq.Runq[tourThread]
	var steps []RunqStep
	name := func(t *tourThread) string { return t.name }
	show := func(title string, s *runq.Search) {
		steps = append(steps, RunqStep{Title: title, State: q.Snapshot(name), Search: s})
	}
	threads := map[string]*tourThread{}
	add := func(n string, i runq.Index) {
		t := &tourThread{name: n}
		t.Init(t)
		threads[n] = t
		q.Add(i, &t.Link)
	}
	// find runs a traced Find (runq_findq) over r with pred and records it as a step.
	find := func(title string, r runq.Range, pred runq.Pred[tourThread]) (runq.Index, bool) {
		s := new(runq.Search)
		i, ok := q.Find(r, runq.Trace(r, pred, s))
		s.Finish(i, ok)
		show(title, s)
		return i, ok
	}
	anyQueue := func(runq.Index, *runq.Queue[tourThread]) bool { return true }

	show("The zero value is an empty run queue: all 256 bits are clear.", nil)
	add("editor", 90)
	add("make", 150)
	add("cc", 150)
	show("Three user threads: bits 90 and 150 are set; cc waits behind make in queue 150 (FIFO).", nil)
	add("intr", 4)
	add("audio", 8)
	add("idle-job", 240)
	show("An interrupt thread (queue 4), a SCHED_FIFO priority-31 thread (8) and an idle-class job (240).", nil)
	i, _ := find("runq_choose is findq over all 256 queues with a predicate that takes any queue: the first set bit, 4.",
		runq.FullRange(), anyQueue)
	x := q.Queue(i).Front()
	emptied := q.Remove(&x.Link)
	show(fmt.Sprintf("%s leaves queue %d; Remove reports the queue emptied = %t, so bit %d clears.", x.name, i, emptied, i), nil)
	mk := threads["make"]
	q.Remove(&mk.Link)
	add("ld", 150)
	q.AddHead(150, &mk.Link)
	show("make ran, ld arrived behind cc, then make was preempted: AddHead puts it back in front of cc and ld.", nil)
	find("FirstIn(timeshare 56-223) searches only the timeshare band: queue 8 (audio) is not looked at.",
		runq.Range{Lo: 56, Hi: 223}, anyQueue)
	mk.pinned = true
	var thief *tourThread
	band := runq.Range{Lo: 100, Hi: 223}
	find("A thief searches 100-223 for a thread not pinned: make, at the head of 150, is pinned, so the predicate looks past it to cc.",
		band, func(_ runq.Index, qq *runq.Queue[tourThread]) bool {
			t, ok := qq.FirstMatch(func(t *tourThread) bool { return !t.pinned })
			thief = t
			return ok
		})
	q.Remove(&thief.Link)
	show("The thief removed "+thief.name+"; queue 150 keeps make and ld, so its bit stays set.", nil)
	find("A search of the realtime band 0-55 for a queue holding two or more threads declines every queue it is offered.",
		runq.Range{Lo: 0, Hi: 55}, func(_ runq.Index, qq *runq.Queue[tourThread]) bool { return qq.Len() >= 2 })
	return steps
}
