// Command jobqueue is a priority job queue for ordinary Go programs, built on schedkit's run
// queue: FreeBSD's 256 FIFO levels with a 256-bit map of the non-empty ones, so that taking the
// most urgent job is a count-trailing-zeros and two pointer updates whatever the number of jobs
// queued, and cancelling a queued job is O(1).
//
// Run it with
//
//	go run ./examples/jobqueue
//
// It submits a batch of jobs at mixed priorities, cancels two, lets one worker drain the queue
// so the order can be read (most urgent first, FIFO within a priority), and then runs many
// producers and consumers at once and checks that every job was taken exactly once.
//
// What it reuses and why it beats the obvious version: a container/heap orders jobs too, but a
// binary heap is not stable (equal priorities come out in no particular order unless a sequence
// number is added to every comparison), costs O(log n) per operation and needs index
// bookkeeping to cancel; a channel per priority level is stable, but taking the most urgent job
// means polling up to 256 channels, and a queued job cannot be cancelled at all. The benchmarks
// in main_test.go compare the three in one binary.
package main

import (
	"fmt"
	"io"
	"os"
	"sync"
)

func main() {
	run(os.Stdout)
}

// run prints the lesson to w; its output is deterministic (see the golden test).
func run(w io.Writer) {
	q := NewQueue()
	fmt.Fprintln(w, "submitted (name:priority, in order):")
	specs := []struct {
		name string
		pri  uint8
	}{
		{"backup", 200}, {"email-1", 50}, {"page-alert", 0}, {"report", 120},
		{"email-2", 50}, {"thumbnail", 120}, {"email-3", 50}, {"gc", 255}, {"page-ack", 0},
	}
	jobs := map[string]*Job{}
	for _, s := range specs {
		j := NewJob(s.name, s.pri, nil)
		jobs[s.name] = j
		q.Submit(j)
		fmt.Fprintf(w, " %s:%d", s.name, s.pri)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "cancel email-2: %t; cancel email-2 again: %t\n", q.Cancel(jobs["email-2"]), q.Cancel(jobs["email-2"]))
	fmt.Fprintf(w, "queued: %d\n", q.Len())
	fmt.Fprintln(w, "one worker takes them:")
	for {
		j, ok := q.TryTake()
		if !ok {
			break
		}
		fmt.Fprintf(w, "  %3d %s\n", j.Pri, j.Name)
	}

	const producers, consumers, perProducer = 8, 8, 2000
	done := make([]int, producers*perProducer)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for c := 0; c < consumers; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, ok := q.Take()
				if !ok {
					return
				}
				j.Run()
			}
		}()
	}
	var pw sync.WaitGroup
	for p := 0; p < producers; p++ {
		pw.Add(1)
		go func() {
			defer pw.Done()
			for i := 0; i < perProducer; i++ {
				id := p*perProducer + i
				q.Submit(NewJob("", uint8(id*37), func() { mu.Lock(); done[id]++; mu.Unlock() }))
			}
		}()
	}
	pw.Wait()
	q.Close()
	wg.Wait()
	once := 0
	for _, n := range done {
		if n == 1 {
			once++
		}
	}
	fmt.Fprintf(w, "%d producers, %d consumers: %d of %d jobs run exactly once\n", producers, consumers, once, len(done))
}
