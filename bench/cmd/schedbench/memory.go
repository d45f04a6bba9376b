package main

// This file implements the memory budget, -max-memory, of every command that reads inputs or
// runs workloads: the same flag, the same default and the same size syntax as replay's (which
// also bounds its trace import with it).
//
// The budget acts three ways. Before any work, what can be foreseen is checked against it: an
// input file may take at most 1/64 of it (a workload) or 1/16 (ministat's numbers,
// merge's results), read through a limit, so that /dev/zero or an endless pipe is an error and
// not a heap that grows until the kernel kills the process; and a run's threads × runs must fit
// (checkWork). While the command works, the garbage collector keeps the heap within the budget
// (runtime/debug.SetMemoryLimit), and a watchdog that finds the process's memory above it
// twice in a row, a tenth of a second apart, cancels the command's context: the command stops
// as a signal stops it and exits with status 1 and a line naming -max-memory. No input reaches
// Go's "fatal error: out of memory" unless the machine has less memory than the budget.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// registerMaxMemory defines -max-memory on fs.
func registerMaxMemory(fs *flag.FlagSet) {
	fs.String("max-memory", defaultMaxMemory, "the memory the command may use (`SIZE`, such as 512MiB or 4GiB; 0: no limit): work that needs more is refused before it starts where that can be foreseen, and stopped where it cannot")
}

// A memoryError is the cause of a command's context cancelled by the watchdog.
type memoryError struct {
	limit, used int64
}

func (e *memoryError) Error() string {
	return fmt.Sprintf("stopped: the process used %s of memory, more than -max-memory %s (a smaller input or fewer runs, or a larger -max-memory)",
		formatSize(e.used), formatSize(e.limit))
}

// minMaxMemory is the least -max-memory other than 0.
const minMaxMemory = 32 << 20

// watchInterval is how often the watchdog reads the process's memory.
const watchInterval = 50 * time.Millisecond

// startMemoryBudget reads -max-memory of fs, if fs has it, into e.maxMemory, and holds the
// command to it until e.release runs: the collector's limit and the watchdog.
func (e *env) startMemoryBudget(fs *flag.FlagSet) error {
	f := fs.Lookup("max-memory")
	if f == nil {
		return nil
	}
	limit, err := parseSize(f.Value.String())
	if err != nil {
		return usagef("-max-memory %q: %v", f.Value.String(), err)
	}
	if limit > 0 && limit < minMaxMemory {
		return usagef("-max-memory %s: want 0 (no limit) or at least %s (the runtime itself takes some)", f.Value.String(), formatSize(minMaxMemory))
	}
	e.maxMemory = limit
	if limit == 0 {
		return nil
	}
	ctx, cancel := context.WithCancelCause(e.ctx)
	e.ctx = ctx
	old := debug.SetMemoryLimit(limit)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(watchInterval)
		defer t.Stop()
		over := 0
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			used := memoryInUse()
			if used <= limit {
				over = 0
				continue
			}
			if over++; over == 2 {
				cancel(&memoryError{limit: limit, used: used})
				return
			}
		}
	}()
	e.release = append(e.release, func() {
		close(stop)
		<-done
		debug.SetMemoryLimit(old)
		cancel(nil)
	})
	return nil
}

// memoryInUse returns the memory the Go runtime has mapped and not returned to the system: what
// runtime/debug.SetMemoryLimit limits.
func memoryInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// memoryCause returns the watchdog's error if it stopped e's command.
func memoryCause(ctx context.Context) (*memoryError, bool) {
	var me *memoryError
	ok := errors.As(context.Cause(ctx), &me)
	return me, ok
}

// errTooLarge is the error of an input beyond its share of the budget.
type errTooLarge struct {
	name        string
	limit, part int64
}

func (e *errTooLarge) Error() string {
	return fmt.Sprintf("%s: more than %s, the share of -max-memory an input file may take (1/%d of %s)",
		e.name, formatSize(e.limit/e.part), e.part, formatSize(e.limit))
}

// readLimited reads the whole file name ("-": standard input), a regular file or not (a FIFO,
// a device), refusing one longer than a 1/part share of -max-memory.
func (e *env) readLimited(name string, part int64) ([]byte, error) {
	f, err := e.openInput(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(e.limitInput(f, inputName(name), part))
}

// The shares of -max-memory an input file may take: a workload's text or JSON (whose parsed
// form is several times its size), and the numbers of stat and the results of merge.
const (
	workloadShare = 64
	dataShare     = 16
)

// limitInput returns r limited to a 1/part share of -max-memory (reading more is an
// *errTooLarge), and stopped by the command's context (errInterrupted), so that reading
// /dev/zero or a pipe without end neither fills the memory nor outlasts a signal.
func (e *env) limitInput(r io.Reader, name string, part int64) io.Reader {
	left := int64(math.MaxInt64 - 1)
	if e.maxMemory > 0 {
		left = e.maxMemory / part
	}
	return &limitedInput{ctx: e.ctx, r: r, left: left, err: &errTooLarge{name: name, limit: e.maxMemory, part: part}}
}

// limitInput is env.limitInput for a budget alone, without a context.
func limitInput(r io.Reader, name string, budget, part int64) io.Reader {
	return (&env{ctx: context.Background(), maxMemory: budget}).limitInput(r, name, part)
}

type limitedInput struct {
	ctx  context.Context
	r    io.Reader
	left int64
	err  error
}

func (l *limitedInput) Read(p []byte) (int, error) {
	if l.ctx.Err() != nil {
		return 0, errInterrupted
	}
	if l.left < 0 {
		return 0, l.err
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, l.err
	}
	return n, err
}
