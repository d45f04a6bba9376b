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

// chunks is how many pieces a run is cut into so that ^C stops it within a fraction of its
// length.
const chunks = 64

// span is the most simulated time runCell runs without looking at its context.
const span = time.Second

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

// runMachine runs m until until, in chunks of simulated time, looking at ctx between two: it
// returns errInterrupted once ctx is cancelled.
func runMachine(ctx context.Context, m *sim.Machine, until time.Duration) error {
	for k := 1; k <= chunks && !m.Done(); k++ {
		end := until * time.Duration(k) / chunks
		for !m.Done() {
			// At most span of simulated time between two looks at ctx: a sixty-fourth of a
			// long -until is hours of it, which took the race detector on a busy machine
			// more than the 20 s TestSIGINT gives a ^C to stop a run of -until 1000000s.
			next := min(end, time.Duration(m.Now())+span)
			if ctx.Err() != nil {
				return errInterrupted
			}
			if err := m.Run(next); err != nil {
				return err
			}
			if next == end {
				break
			}
		}
	}
	return nil
}
