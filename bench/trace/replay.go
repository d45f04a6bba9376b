package trace

// This file implements Replay: an imported trace run under a policy, side by side with the
// trace's own timing.

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
)

// A Comparison puts each task's timing in the trace beside its timing in a replay.
type Comparison struct {
	// Tasks has one entry per imported task, in the order of Imported.Tasks.
	Tasks []TaskComparison
	// Result is the replay's simulation result.
	Result *sim.Result
}

// A TaskComparison is one task's timing in the trace (Trace) and in the replay.
type TaskComparison struct {
	Trace TaskStats
	// Ran says the replay created the task's thread; the times below are zero if not.
	Ran bool
	// CPUTime, WaitTime, Sleep and MeanLatency are the replay's, in nanoseconds, as
	// TaskStats defines them.
	CPUTime, WaitTime, Sleep, MeanLatency int64
}

// Replay runs the imported workload on the machine cfg describes under policy p for until
// (0 means ten times the trace's duration plus one second) and compares each task's CPU time,
// run-queue wait, sleep and mean wake-up latency with the trace's. cfg.Trace is left as the
// caller set it. Replaying a trace under the policy and machine it was recorded on shows how
// faithful the import is; under another policy, what would change. The trace's CPU time is
// TaskStats.CPUTime, from switch to switch, which the workload's runs are made of; the
// kernel's own charge, TaskStats.Runtime where the trace has sched_stat_runtime, leaves out
// interrupt and steal time that no replay reproduces, and is not compared.
func Replay(cfg sim.Config, p sim.Policy, im *Imported, until time.Duration) (*Comparison, error) {
	if until == 0 {
		until = time.Duration(10*im.Duration) + time.Second
	}
	r, err := sim.Run(cfg, p, im.Workload, until)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*sim.ThreadStats, len(r.Threads))
	for i := range r.Threads {
		byName[r.Threads[i].Name] = &r.Threads[i]
	}
	c := &Comparison{Result: r, Tasks: make([]TaskComparison, len(im.Tasks))}
	for i, ts := range im.Tasks {
		tc := TaskComparison{Trace: ts}
		if st := byName[ts.SimName]; st != nil {
			tc.Ran = true
			tc.CPUTime, tc.WaitTime, tc.Sleep = st.CPUTime, st.WaitTime, st.Sleep
			if lat, ok := st.Wakeup.Exact(); ok && len(lat) > 0 {
				var sum int64
				for _, l := range lat {
					sum += l
				}
				tc.MeanLatency = sum / int64(len(lat))
			}
		}
		c.Tasks[i] = tc
	}
	return c, nil
}

// Totals returns the CPU time and run-queue wait of all tasks, in the trace and in the replay
// (tasks the replay did not create count for the trace only).
func (c *Comparison) Totals() (cpuTrace, cpuReplay, waitTrace, waitReplay int64) {
	for _, t := range c.Tasks {
		cpuTrace += t.Trace.CPUTime
		waitTrace += t.Trace.WaitTime
		cpuReplay += t.CPUTime
		waitReplay += t.WaitTime
	}
	return
}

// WriteTable writes the comparison as an aligned table: per task, CPU time, wait and mean
// latency in the trace and in the replay (in microseconds), and the replay's CPU time as a
// percentage of the trace's; a last row totals CPU and wait.
func (c *Comparison) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "task\tcpu trace\tcpu replay\tcpu %\twait trace\twait replay\tlat trace\tlat replay\t")
	us := func(ns int64) string { return fmt.Sprintf("%.1f", float64(ns)/1e3) }
	for _, t := range c.Tasks {
		pct := "-"
		if t.Trace.CPUTime > 0 && t.Ran {
			pct = fmt.Sprintf("%.0f", 100*float64(t.CPUTime)/float64(t.Trace.CPUTime))
		}
		rep := func(v int64) string {
			if !t.Ran {
				return "-"
			}
			return us(v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.Trace.Name, us(t.Trace.CPUTime), rep(t.CPUTime), pct,
			us(t.Trace.WaitTime), rep(t.WaitTime), us(t.Trace.MeanLatency()), rep(t.MeanLatency))
	}
	ct, cr, wt, wr := c.Totals()
	pct := "-"
	if ct > 0 {
		pct = fmt.Sprintf("%.0f", 100*float64(cr)/float64(ct))
	}
	fmt.Fprintf(tw, "total\t%s\t%s\t%s\t%s\t%s\t\t\t\n", us(ct), us(cr), pct, us(wt), us(wr))
	return tw.Flush()
}
