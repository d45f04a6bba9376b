package host

// This file implements Options, the bounds of a host run, and the errors a run reports before it
// starts.

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Bounds every run respects, whatever its Options say.
const (
	// MaxLimit is the longest a run may last.
	MaxLimit = 5 * time.Minute
	// MaxRTLimit is the longest a run with SCHED_FIFO or SCHED_RR threads may last: the runner
	// demotes every real-time thread to SCHED_OTHER at its limit, and refuses longer runs.
	MaxRTLimit = 10 * time.Second
	// MaxThreads bounds the threads a run creates, forks included.
	MaxThreads = 256
	// Grace is how long the runner waits, after the limit, for threads to notice the stop before
	// it demotes real-time threads and reports an error.
	Grace = 2 * time.Second
)

// Options bound and shape a host run. The zero value is a run of at most one second that fails
// before it starts on anything the host cannot do.
type Options struct {
	// Limit is the run's total time limit: threads still running then (a hog that runs
	// forever) are stopped and measured. 0 means one second; more than MaxLimit (MaxRTLimit with
	// real-time threads) is an error.
	Limit time.Duration
	// Seed seeds the threads' random durations.
	Seed uint64
	// SkipUnsupported runs a workload whose requests the host cannot honour with those requests
	// left out, listing them in Result.Skipped, instead of failing before the start.
	SkipUnsupported bool
	// KeepSignals leaves SIGINT, SIGTERM and SIGHUP alone. By default a run catches them, stops, cleans
	// up, and then raises the signal again with its default action, so that an interrupted
	// program leaves no thread, child process or control group behind and still dies of the
	// signal. A signal the process ignores (a background job's SIGINT) stays ignored.
	KeepSignals bool
	// Peers are real programs to run beside the workload's threads, each in its own process
	// group, killed at the end of the run.
	Peers []Peer
	// Weight is the cpu.weight (cgroup v1: cpu.shares = Weight × 1024 / 100) of the run's
	// parent group, the workload's root group, which competes with the rest of the machine: 0
	// means 100, the default weight a process of the machine has; up to sched.MaxWeight (10000)
	// shields a workload with groups from the other programs of a busy machine, at their
	// expense, for as long as it runs. A workload without groups gets no parent group.
	Weight uint64
}

func (o *Options) limit() time.Duration {
	if o.Limit == 0 {
		return time.Second
	}
	return o.Limit
}

// ErrNotSupported is the error of a run on a system other than Linux.
var ErrNotSupported = errors.New("host: runs real threads on Linux only")

// A MissingError says what the host cannot do that a workload asks for. It is returned before
// anything starts.
type MissingError struct {
	// Missing lists each request and why the host cannot honour it, such as
	// `thread hog: class idle: sched_setattr: operation not permitted`.
	Missing []string
}

func (e *MissingError) Error() string {
	return "host: the host cannot run this workload: " + strings.Join(e.Missing, "; ")
}

// A LimitError says that a workload or its Options exceed a bound of this package.
type LimitError struct {
	What string
}

func (e *LimitError) Error() string { return "host: " + e.What }

func limitErr(format string, args ...any) error {
	return &LimitError{What: fmt.Sprintf(format, args...)}
}
