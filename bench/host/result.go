package host

// This file implements Result: a host run's measurements in the simulator's Result shape, with
// what the simulator's shape cannot hold yet beside it.

import (
	"slices"

	"github.com/schedkit/schedkit/bench/sim"
)

// A Result is what a host run measured. Its embedded sim.Result has the simulator's fields, so
// that the tables and statistics written for simulated runs apply to it: Policy names the kernel
// ("linux 6.18.44 (EEVDF)"), times are nanoseconds since the start of the run, each thread's
// CPUTime, WaitTime (run-queue wait) and Timeslices come from its schedstat, Voluntary and
// Involuntary from its status file, Migrations from its sched file, and CPUs[c].Busy and Idle
// from /proc/stat. Those CPU figures are the whole machine's: other programs' work counts as busy.
// Events, Violations and Trace stay zero: the kernel keeps no event log the runner could read.
type Result struct {
	sim.Result
	// Timeslices counts the times each thread, indexed like Threads, was switched in
	// (schedstat's third field, pcount).
	Timeslices []int64
	// Latencies holds each thread's wake-up latencies in nanoseconds, in ascending order: for a
	// sleep or a period of every, the time it resumed minus the deadline it asked for; for a recv
	// or send that blocked, the time it resumed minus the last send (or recv) on the pipe, a lower
	// bound of the time since the message that woke it. At most MaxLatencies are kept per thread.
	Latencies [][]int64
	// Skipped lists the requests left out with Options.SkipUnsupported.
	Skipped []string
	// Load is /proc/loadavg's one-minute figure at the start and at the end of the run: how busy
	// the machine was with other work.
	Load [2]float64
	// Peers are what the peer programs did, in the order of Options.Peers.
	Peers []PeerResult
}

// Latency returns the p-th percentile (0 to 100) of the wake-up latencies of the thread named
// name by the nearest-rank method, as sim.ThreadStats.Latency computes it, or false if the thread
// is absent or was never woken. It panics if p is outside 0..100.
func (r *Result) Latency(name string, p float64) (int64, bool) {
	for i := range r.Threads {
		if r.Threads[i].Name == name {
			return sim.Percentile(r.Latencies[i], p)
		}
	}
	return sim.Percentile(nil, p)
}

// addLatency records one latency in a thread's bounded list.
func addLatency(l []int64, v int64) []int64 {
	if len(l) >= MaxLatencies {
		return l
	}
	return append(l, v)
}

func sortLatencies(ls [][]int64) {
	for _, l := range ls {
		slices.Sort(l)
	}
}
