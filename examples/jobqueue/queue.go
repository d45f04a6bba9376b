// This file implements Queue, a priority job queue safe for concurrent use, on runq.Runq.

package main

import (
	"sync"

	"github.com/schedkit/schedkit/runq"
)

// A Job is a unit of work with a priority: 0 is the most urgent, 255 the least. A Job embeds
// the run queue's intrusive link, so queueing it allocates nothing, and the link records the
// queue that holds it, so cancelling it is O(1): no search, no tombstone.
type Job struct {
	runq.Link[Job]
	// Pri is the job's priority, 0 (most urgent) through 255.
	Pri uint8
	// Name identifies the job in output.
	Name string
	// Run is the work; Queue never calls it, the worker that takes the job does.
	Run func()

	taken uint64 // position in the queue's order of Takes, 1-based; set under the lock
}

// NewJob returns a job ready to be submitted.
func NewJob(name string, pri uint8, run func()) *Job {
	j := &Job{Pri: pri, Name: name, Run: run}
	j.Init(j)
	return j
}

// A Queue hands out jobs most urgent first and, within one priority, in the order they were
// submitted, to any number of producers and consumers at once.
//
// It is a runq.Runq behind one mutex. The run queue's invariant ties several words together
// (a job's links, its level's head and tail, and the bit of the 256-bit status map that says
// the level is non-empty); a lock-free version would have to publish all of them in one atomic
// step, which means either a much more complicated structure or a queue per level and a scan,
// and the benchmarks show the mutex is not the bottleneck at the sizes measured: the time is in
// the hand-off between goroutines, which a lock-free queue pays too.
//
// The zero Queue is not ready: use NewQueue. A Queue must not be copied.
type Queue struct {
	mu       sync.Mutex
	nonEmpty sync.Cond // signalled when a job is submitted or the queue closes
	q        runq.Runq[Job]
	takes    uint64
	closed   bool
}

// NewQueue returns an empty, open queue.
func NewQueue() *Queue {
	q := &Queue{}
	q.nonEmpty.L = &q.mu
	return q
}

// Submit queues j behind the jobs of its priority. It panics if j is already queued (here or on
// another Queue) or if the queue is closed. The complexity is O(1).
func (q *Queue) Submit(j *Job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		panic("jobqueue: Submit on a closed Queue")
	}
	q.q.Add(runq.Index(j.Pri), &j.Link)
	q.nonEmpty.Signal()
}

// Take removes and returns the most urgent job, waiting while the queue is empty. It reports
// false once the queue is closed and empty. The complexity is O(1) plus the wait.
func (q *Queue) Take() (*Job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.q.Empty() {
		if q.closed {
			return nil, false
		}
		q.nonEmpty.Wait()
	}
	return q.takeLocked(), true
}

// TryTake is Take without the wait: it reports false at once if the queue is empty.
func (q *Queue) TryTake() (*Job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.q.Empty() {
		return nil, false
	}
	return q.takeLocked(), true
}

// takeLocked removes the head of the most urgent non-empty level. Preconditions: q.mu is held
// and q is not empty.
func (q *Queue) takeLocked() *Job {
	j, _ := q.q.Choose()
	q.q.Remove(&j.Link)
	q.takes++
	j.taken = q.takes
	return j
}

// Cancel removes j if it is still queued here and reports whether it did; a job already taken
// (or never submitted) is left alone. It panics if j is queued on another Queue. The complexity
// is O(1).
func (q *Queue) Cancel(j *Job) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !j.Queued() {
		return false
	}
	q.q.Remove(&j.Link)
	return true
}

// Close wakes every waiting consumer; Take then drains what is queued and reports false when
// nothing is left. Submit after Close panics.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.nonEmpty.Broadcast()
}

// Len returns the number of queued jobs.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.q.Len()
}
