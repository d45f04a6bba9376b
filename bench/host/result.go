package host

// This file implements Result: a host run's measurements in the simulator's Result shape, with
// what the simulator's shape cannot hold yet beside it.

import "github.com/schedkit/schedkit/bench/sim"

// A Result is what a host run measured. Its embedded sim.Result has the simulator's fields, so
// that the tables and statistics written for simulated runs apply to it: Policy names the kernel
// ("linux 6.18.44-fc-v669"), times are nanoseconds since the start of the run, each thread's
// CPUTime, WaitTime (run-queue wait) and Timeslices come from its schedstat, Voluntary and
// Involuntary from its status file, Migrations from its sched file, and CPUs[c].Busy and Idle
// from /proc/stat, and each thread's Wakeup histogram its wake-up latencies (see
// [Result.Latency]) and its Request histogram, for a thread with an every, the time from each
// period's deadline to the end of the period's work (schbench's request latency). Those CPU figures are the whole machine's: other programs' work counts as busy.
// RunqWait, Events, Violations and Trace stay empty: the kernel keeps no per-dispatch record or
// event log the runner could read. A thread still running at the end has End -1; the runner
// completes the Result once ([sim.Result.Finish]), so that its Lifetime and Share run to
// Result.End as a simulated thread's do, and every table, summary and writer of bench/sim takes
// a host run as it takes a simulated one. Seed is Options.Seed.
type Result struct {
	sim.Result
	// Timeslices counts the times each thread, indexed like Threads, was switched in
	// (schedstat's third field, pcount).
	Timeslices []int64
	// Skipped lists the requests left out with Options.SkipUnsupported.
	Skipped []string
	// Load is /proc/loadavg's one-minute figure at the start and at the end of the run: how busy
	// the machine was with other work.
	Load [2]float64
	// Peers are what the peer programs did, in the order of Options.Peers.
	Peers []PeerResult
}

// Latency returns the p-th percentile (0 to 100) of the wake-up latencies of the thread named
// name (its Wakeup histogram: for a sleep or a period of every, the time it resumed minus the
// deadline it asked for; for a recv or send that blocked, the time it resumed minus the last
// send, or recv, on the pipe, a lower bound of the time since the message that woke it), or false
// if the thread is absent or was never woken. It panics if p is outside 0..100.
func (r *Result) Latency(name string, p float64) (int64, bool) {
	t, ok := r.Thread(name)
	if !ok {
		return sim.Percentile(nil, p)
	}
	return t.Latency(p)
}
