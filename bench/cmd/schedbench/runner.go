package main

// This file implements the runner: every policy × repetition, on a bounded pool of workers,
// stoppable by ^C, results in a fixed order whatever the scheduling.

import (
	"context"
	"sync"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
)

// A cell is one run: a policy and a repetition.
type cell struct {
	policy, rep int
	result      *sim.Result // nil until it finished
	err         error
}

// runCells runs every cell of s (policy-major: policy 0's repetitions first) on parallel
// workers, keeping the full trace of repetition 0 of each policy if keepTrace. done is called
// after each cell, from one goroutine at a time. When ctx is cancelled the running cells stop
// at their next chunk and are left unfinished; runCells returns the cells in order, finished
// or not.
func runCells(ctx context.Context, s *setup, reps, parallel int, keepTrace bool, done func(finished, total int)) []*cell {
	cells := make([]*cell, 0, len(s.policies)*reps)
	for p := range s.policies {
		for r := range reps {
			cells = append(cells, &cell{policy: p, rep: r})
		}
	}
	jobs := make(chan *cell)
	var mu sync.Mutex
	finished := 0
	var wg sync.WaitGroup
	for range max(1, min(parallel, len(cells))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				runCell(ctx, s, c, keepTrace && c.rep == 0)
				mu.Lock()
				if c.result != nil {
					finished++
					if done != nil {
						done(finished, len(cells))
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, c := range cells {
		if ctx.Err() != nil {
			break
		}
		select {
		case jobs <- c:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	return cells
}

// runCell runs one cell, in chunks of simulated time so that a cancelled ctx stops it.
func runCell(ctx context.Context, s *setup, c *cell, trace bool) {
	mode := sim.TraceOff
	if trace {
		mode = sim.TraceFull
	}
	m, err := sim.New(s.config(c.policy, c.rep, mode, false), s.policies[c.policy].new(), s.w)
	if err != nil {
		c.err = err
		return
	}
	if err := runMachine(ctx, m, s.flags.until); err != nil {
		if err != errInterrupted {
			c.err = err
		}
		return
	}
	c.result = m.Result()
}

// runMachine runs m until until, looking at ctx between two pieces of simulated time: it
// returns errInterrupted once ctx is cancelled. The pieces start at a microsecond and double
// while one takes less than pieceFast of real time, and halve while one takes more than
// pieceSlow, so that ctx is looked at every tenth of a second or so whatever the workload: a
// simulated second of a hog alone takes microseconds, one of a million threads forking
// seconds. The pieces do not change the run: Run resumes where it stopped.
func runMachine(ctx context.Context, m *sim.Machine, until time.Duration) error {
	piece := time.Microsecond
	for !m.Done() && time.Duration(m.Now()) < until {
		if ctx.Err() != nil {
			return errInterrupted
		}
		next := min(until, time.Duration(m.Now())+piece)
		start := time.Now()
		if err := m.Run(next); err != nil {
			return err
		}
		switch d := time.Since(start); {
		case d < pieceFast && piece < until:
			piece *= 2
		case d > pieceSlow && piece > 1:
			piece /= 2
		}
	}
	return nil
}

// pieceFast and pieceSlow bound the real time runMachine lets a piece of simulated time take.
const (
	pieceFast = 20 * time.Millisecond
	pieceSlow = 100 * time.Millisecond
)
