// Command eevdf is lesson 9 of the course: EEVDF, the fair scheduler Linux has used since
// 6.6 — lag, eligibility, virtual deadlines and custom slices (package cfs).
//
// Run it with
//
//	go run ./examples/eevdf
//
// Classic CFS ran the task with the smallest vruntime. EEVDF (Earliest Eligible Virtual
// Deadline First) keeps the vruntimes but asks two more questions:
//
//   - Is the task owed service? The queue's average vruntime V, weighted by the tasks'
//     weights (avg_vruntime, cfs.AvgVruntime), is where a perfectly fair scheduler would have
//     every task. A task's lag is V − vruntime: positive means it received less than its share.
//     Only tasks with lag ≥ 0 are eligible (entity_eligible, cfs.VruntimeEligible).
//   - Which eligible task's request ends first? Each task asks for a slice (3 ms by default,
//     or its own sched_attr.sched_runtime since 6.12) and its virtual deadline is
//     vruntime + slice·1024/weight (cfs.CalcDeltaFair). EEVDF runs the eligible task with
//     the earliest deadline (pick_eevdf, cfs.Pick).
//
// A short slice therefore means an early deadline: a latency-sensitive task that asks for
// 0.1 ms is picked as soon as it is eligible, and in 7.1 it preempts a running task at once
// (PREEMPT_SHORT), while its share of the CPU stays that of its weight.
//
// The lesson first builds one queue at a chosen state (cfs.NewRunQueueAt: any vruntimes,
// deadlines and weights, not only the ones enqueueing would produce) and asks the library what
// the kernel would compute; then it runs a 0.1 ms-slice task beside three CPU hogs on one
// simulated CPU under Linux 6.5 (classic CFS), 6.6 (the first EEVDF, no custom slices) and 7.1.
package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/examples/internal/lesson"
	"github.com/schedkit/schedkit/topology"
)

const text = `
thread hog count=3
	run forever
end

thread lat slice=100us
	every 7ms
		run 200us
	end
end
`

func main() { lesson.Main("eevdf", run) }

// run prints the lesson to w.
func run(w io.Writer) error {
	p, err := cfs.Preset("v7.1")
	if err != nil {
		return err
	}
	const z = 1 << 40 // the queue's zero_vruntime; vruntimes are written relative to it
	ms := uint64(time.Millisecond)
	nice0 := cfs.TaskLoad(cfs.Normal, 0).Weight
	// Each deadline is vruntime + slice·1024/weight, as the kernel sets it; D is three times
	// as heavy and asked for 0.15 ms, so its request ends 0.05 ms of vruntime after it starts.
	states := []cfs.EntityState{
		{Name: "A (ran a lot)", Weight: nice0, Vruntime: z + 4*ms, Deadline: z + 7*ms, Slice: 3 * ms},
		{Name: "B (behind, long request)", Weight: nice0, Vruntime: z - 2*ms, Deadline: z + 6*ms, Slice: 8 * ms, CustomSlice: true},
		{Name: "C (behind, short request)", Weight: nice0, Vruntime: z - 1*ms, Deadline: z + 1*ms, Slice: 2 * ms, CustomSlice: true},
		{Name: "D (heavy, ahead)", Weight: 3 * nice0, Vruntime: z + 9*ms/10, Deadline: z + 95*ms/100, Slice: 150 * ms / 1000, CustomSlice: true},
	}
	c, ts, _, err := cfs.NewRunQueueAt(0, p, z, states, nil)
	if err != nil {
		return err
	}
	q := c.Root()
	v := cfs.AvgVruntime(q.Sums())
	fmt.Fprintf(w, "one queue (Linux 7.1), vruntimes relative to zero_vruntime; V = avg_vruntime = %+.3f ms\n",
		float64(int64(v-z))/1e6)
	fmt.Fprintf(w, "%-28s %7s %10s %10s %9s %9s\n", "task", "weight", "vruntime", "deadline", "lag", "eligible")
	for i, e := range ts {
		fmt.Fprintf(w, "%-28s %7d %+9.3f %+9.3f %+9.3f %9t\n", e.Name, cfs.ScaleLoadDown(states[i].Weight),
			float64(int64(e.Vruntime-z))/1e6, float64(int64(e.Deadline-z))/1e6, float64(int64(v-e.Vruntime))/1e6, cfs.VruntimeEligible(q.Sums(), e.Vruntime))
	}
	pick, why := cfs.Pick(q, nil, c.Params())
	fmt.Fprintf(w, "pick: %s (%v)\n", pick.Name, why)
	fmt.Fprintln(w, "D has the earliest deadline of all, but it is ahead of V (it ran more than its share); of the")
	fmt.Fprintln(w, "eligible tasks C's request ends first. Classic CFS would have run B, the smallest vruntime.")

	wl, err := workload.Parse(text)
	if err != nil {
		return err
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Hz: 1000, Seed: 1}
	fmt.Fprintln(w, "\na task asking for 0.1 ms slices (every 7 ms it runs 0.2 ms) beside three hogs, one CPU, 20 s:")
	fmt.Fprintf(w, "%-10s %8s %8s %8s %8s %7s\n", "policy", "p50(µs)", "p90", "p99", "max", "share")
	for _, name := range []string{"cfs:v6.5", "cfs:v6.6", "cfs:v7.1"} {
		pol, err := presets.New(name)
		if err != nil {
			return err
		}
		r, err := sim.Run(cfg, pol, wl, 20*time.Second)
		if err != nil {
			return err
		}
		t, _ := r.Thread("lat")
		fmt.Fprintf(w, "%-10s", name)
		for _, pc := range []float64{50, 90, 99, 100} {
			d, _ := t.Latency(pc)
			fmt.Fprintf(w, " %8.0f", float64(d)/1e3)
		}
		fmt.Fprintf(w, " %6.1f%%\n", 100*t.Share())
		if err := r.Err(); err != nil {
			fmt.Fprintf(w, "           (the policy reports: %v)\n", err)
		}
	}
	fmt.Fprintln(w, "\nClassic CFS lets a waking sleeper preempt at once (its vruntime is placed half a latency")
	fmt.Fprintln(w, "behind, far enough ahead of the hogs to pass the wake-up granularity). 6.6 ignores the")
	fmt.Fprintln(w, "requested slice (sched_runtime is honoured from 6.12 on) and places the task with its lag, so")
	fmt.Fprintln(w, "it waits for a tick; 7.1 gives its short requests early deadlines and preempts at wake-up.")
	return nil
}
