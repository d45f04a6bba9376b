package trace

// This file implements Replay: an imported trace run under a policy, side by side with the
// trace's own timing, and the table that shows it.

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
)

// A Comparison puts each task's timing in the trace beside its timing in a replay.
type Comparison struct {
	// Tasks has one entry per imported task, in the order of Imported.Tasks.
	Tasks []TaskComparison
	// Dropped holds the stats of the tasks the import left out (Imported.Dropped).
	Dropped []TaskStats
	// Charged counts the tasks kept as CPU-time charges (Imported.Charged).
	Charged int
	// Adapted is what the replay changed of the workload for the policy and the machine: the
	// real-time priorities it mapped onto rtprio(2) levels for a policy that takes only those,
	// the charges it unpinned (see Imported.ForPolicy).
	Adapted Adaptation
	// TraceCPUs and TraceSpan are the trace's CPUs and duration (Imported.CPUs, Duration);
	// ReplayCPUs and ReplaySpan the replay machine's CPUs and the replay's makespan.
	TraceCPUs, ReplayCPUs int
	TraceSpan, ReplaySpan int64
	// Result is the replay's simulation result.
	Result *sim.Result
}

// A TaskComparison is one task's timing in the trace (Trace) and in the replay.
type TaskComparison struct {
	Trace TaskStats
	// Ran says the replay created the task's thread; the times below are zero if not.
	Ran bool
	// CPUTime, WaitTime, Sleep and MeanLatency are the replay's, in nanoseconds, as
	// TaskStats defines them; Latencies counts the latencies MeanLatency is the mean of.
	CPUTime, WaitTime, Sleep, MeanLatency, Latencies int64
	// Start and End are when the replay created the thread and when it exited (-1 if it did
	// not), in nanoseconds of the replay.
	Start, End int64
}

// Replay runs the imported workload on the machine cfg describes under policy p for until
// (0 means ten times the trace's duration plus one second) and compares each task's CPU time,
// run-queue wait, sleep and mean wake-up latency with the trace's. The workload is the one
// Imported.ForPolicy gives p: under ULE and 4BSD, Linux's real-time priorities run on rtprio(2)
// levels, and Comparison.Adapted says which. cfg.Trace is left as the caller set it. Replaying
// a trace under the policy and machine it was recorded on shows how faithful the import is;
// under another, what would change. The trace's CPU time is TaskStats.CPUTime, from switch to
// switch, which the workload's runs are made of; the kernel's own charge, TaskStats.Runtime
// where the trace has sched_stat_runtime, leaves out interrupt and steal time that no replay
// reproduces, and is not compared.
func Replay(cfg sim.Config, p sim.Policy, im *Imported, until time.Duration) (*Comparison, error) {
	if until == 0 {
		until = time.Duration(10*im.Duration) + time.Second
	}
	w, ad := im.ForPolicy(p, cfg.Topology)
	if cfg.ExactSamples == 0 {
		// Keep every wake-up latency of the busiest task exactly, so that its mean is exact
		// (past the simulator's limit, meanOf estimates it from the histogram).
		var most int64
		for i := range im.Tasks {
			most = max(most, im.Tasks[i].Wakeups)
		}
		cfg.ExactSamples = int(min(max(2*most+64, sim.DefaultExactSamples), maxExactSamples))
	}
	r, err := sim.Run(cfg, p, w, until)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*sim.ThreadStats, len(r.Threads))
	for i := range r.Threads {
		byName[r.Threads[i].Name] = &r.Threads[i]
	}
	c := &Comparison{Result: r, Tasks: make([]TaskComparison, len(im.Tasks)), Dropped: im.Dropped, Charged: im.Charged,
		Adapted: ad, TraceCPUs: im.CPUs, TraceSpan: im.Duration, ReplayCPUs: len(r.CPUs), ReplaySpan: r.Makespan}
	for i, ts := range im.Tasks {
		tc := TaskComparison{Trace: ts}
		if st := byName[ts.SimName]; st != nil {
			tc.Ran = true
			tc.CPUTime, tc.WaitTime, tc.Sleep, tc.Start, tc.End = st.CPUTime, st.WaitTime, st.Sleep, st.Start, st.End
			tc.MeanLatency, tc.Latencies = meanOf(&st.Wakeup), st.Wakeup.Count()
		}
		c.Tasks[i] = tc
	}
	return c, nil
}

// maxExactSamples is the most exact samples per series sim.Config takes.
const maxExactSamples = 1 << 20

// meanOf returns the mean of h's samples: exact while h keeps them, else the mean of its
// percentiles at 0.5 %, 1.5 %, … 99.5 % (each within the histogram's 1/128 of the sample).
func meanOf(h *sim.Histogram) int64 {
	if h.Count() == 0 {
		return 0
	}
	if lat, ok := h.Exact(); ok {
		var sum int64
		for _, l := range lat {
			sum += l
		}
		return sum / int64(len(lat))
	}
	ps := make([]float64, 100)
	for i := range ps {
		ps[i] = float64(i) + 0.5
	}
	var sum int64
	for _, v := range h.Percentiles(ps...) {
		sum += v
	}
	return sum / int64(len(ps))
}

// A Summary is a Comparison summed over some of its tasks: a recorded command's, say.
type Summary struct {
	// Tasks counts the tasks; Within those the replay gave their trace's CPU time within ±5 %.
	Tasks, Within int
	// CPUTrace and CPUReplay are the tasks' CPU time in the trace and in the replay.
	CPUTrace, CPUReplay int64
	// SpanTrace and SpanReplay run from the first task's start to the last one's end, in the
	// trace and in the replay (a task still alive when the replay stopped ends with it).
	SpanTrace, SpanReplay int64
	// LatencyTrace and LatencyReplay are the mean wake-up-to-run latency over the tasks'
	// wake-ups, in the trace and in the replay.
	LatencyTrace, LatencyReplay int64
}

// Summarize sums the comparison over the tasks keep reports true for.
func (c *Comparison) Summarize(keep func(*TaskStats) bool) Summary {
	var s Summary
	tStart, rStart := int64(-1), int64(-1)
	var tEnd, rEnd, latT, nT, latR, nR int64
	for i := range c.Tasks {
		tc := &c.Tasks[i]
		if !keep(&tc.Trace) {
			continue
		}
		s.Tasks++
		s.CPUTrace += tc.Trace.CPUTime
		s.CPUReplay += tc.CPUTime
		if d := tc.CPUTime - tc.Trace.CPUTime; tc.Ran && (d == 0 || 20*max(d, -d) <= tc.Trace.CPUTime) {
			s.Within++
		}
		if tStart < 0 || tc.Trace.Start < tStart {
			tStart = tc.Trace.Start
		}
		tEnd = max(tEnd, tc.Trace.End)
		if tc.Ran {
			if rStart < 0 || tc.Start < rStart {
				rStart = tc.Start
			}
			end := tc.End
			if end < 0 {
				end = c.Result.End
			}
			rEnd = max(rEnd, end)
		}
		latT += tc.Trace.LatencySum
		nT += tc.Trace.Latencies
		latR += tc.MeanLatency * tc.Latencies
		nR += tc.Latencies
	}
	if tStart >= 0 {
		s.SpanTrace = tEnd - tStart
	}
	if rStart >= 0 {
		s.SpanReplay = rEnd - rStart
	}
	if nT > 0 {
		s.LatencyTrace = latT / nT
	}
	if nR > 0 {
		s.LatencyReplay = latR / nR
	}
	return s
}

// Descendants returns a filter for Summarize that keeps the task of pid root and those the
// trace shows it forking, recursively (TaskStats.Parent): a recorded command's tasks.
func (im *Imported) Descendants(root int64) func(*TaskStats) bool {
	tree := map[int64]bool{root: true}
	for changed := true; changed; {
		changed = false
		for i := range im.Tasks {
			ts := &im.Tasks[i]
			if !tree[ts.PID] && ts.Parent != 0 && tree[ts.Parent] {
				tree[ts.PID] = true
				changed = true
			}
		}
	}
	return func(ts *TaskStats) bool { return tree[ts.PID] }
}

// Totals returns the CPU time and run-queue wait of all tasks, in the trace and in the replay
// (tasks the replay did not create count for the trace only; dropped tasks for neither).
func (c *Comparison) Totals() (cpuTrace, cpuReplay, waitTrace, waitReplay int64) {
	for _, t := range c.Tasks {
		cpuTrace += t.Trace.CPUTime
		waitTrace += t.Trace.WaitTime
		cpuReplay += t.CPUTime
		waitReplay += t.WaitTime
	}
	return
}

// TableOptions choose the rows of Comparison.WriteTable. The zero value (or nil) writes every
// task in the trace's order.
type TableOptions struct {
	// Top keeps the Top tasks with the most CPU time in the trace, most first; 0 keeps all.
	Top int
	// Task, if not nil, keeps the tasks whose label (TaskStats.Label: last name and pid)
	// it matches.
	Task *regexp.Regexp
}

// Rows returns the indices in c.Tasks of the rows o chooses, in the order they are written.
func (c *Comparison) Rows(o *TableOptions) []int {
	var rows []int
	for i := range c.Tasks {
		if o != nil && o.Task != nil && !o.Task.MatchString(c.Tasks[i].Trace.Label()) {
			continue
		}
		rows = append(rows, i)
	}
	if o != nil && o.Top > 0 {
		slices.SortStableFunc(rows, func(a, b int) int {
			x, y := c.Tasks[a].Trace.CPUTime, c.Tasks[b].Trace.CPUTime
			switch {
			case x > y:
				return -1
			case x < y:
				return 1
			}
			return 0
		})
		rows = rows[:min(o.Top, len(rows))]
	}
	return rows
}

// Column headings of WriteTable, with their units.
const tableHeader = "task\tcpu trace ms\tcpu replay ms\tcpu %\twait trace ms\twait replay ms\tlat trace µs\tlat replay µs\t"

// WriteTable writes the comparison as an aligned table: per task (the rows o chooses, labelled
// by last name and pid), CPU time and run-queue wait in the trace and in the replay in
// milliseconds, the replay's CPU time as a percentage of the trace's, and the mean wake-up
// latency in both in microseconds; then a line for the rows left out, a total row over every
// task, and the capacity line: the CPU time of all tasks beside CPUs × span, in the trace and
// in the replay, so that a total no machine could have run shows at a glance. Lines before the
// table say what the import and the replay did with the kernel threads and real-time
// priorities.
func (c *Comparison) WriteTable(w io.Writer, o *TableOptions) error {
	for _, l := range c.Notes() {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, tableHeader)
	rows := c.Rows(o)
	shown := make([]bool, len(c.Tasks))
	for _, i := range rows {
		t := &c.Tasks[i]
		shown[i] = true
		rep := func(v int64, f func(int64) string) string {
			if !t.Ran {
				return "-"
			}
			return f(v)
		}
		pct := "-"
		if t.Trace.CPUTime > 0 && t.Ran {
			pct = percent(t.CPUTime, t.Trace.CPUTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.Trace.Label(), msText(t.Trace.CPUTime), rep(t.CPUTime, msText), pct,
			msText(t.Trace.WaitTime), rep(t.WaitTime, msText), usText(t.Trace.MeanLatency()), rep(t.MeanLatency, usText))
	}
	if hidden := len(c.Tasks) - len(rows); hidden > 0 {
		var cpu int64
		for i := range c.Tasks {
			if !shown[i] {
				cpu += c.Tasks[i].Trace.CPUTime
			}
		}
		fmt.Fprintf(tw, "(%d more)\t%s\t-\t-\t-\t-\t-\t-\t\n", hidden, msText(cpu))
	}
	ct, cr, wt, wr := c.Totals()
	pct := "-"
	if ct > 0 {
		pct = percent(cr, ct)
	}
	fmt.Fprintf(tw, "total\t%s\t%s\t%s\t%s\t%s\t-\t-\t\n", msText(ct), msText(cr), pct, msText(wt), msText(wr))
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, c.Capacity())
	return err
}

// Capacity returns the capacity line of WriteTable: the CPU time of all tasks (the dropped
// ones' too) against CPUs × span, in the trace and in the replay.
func (c *Comparison) Capacity() string {
	ct, cr, _, _ := c.Totals()
	for _, d := range c.Dropped {
		ct += d.CPUTime
	}
	capT, capR := int64(c.TraceCPUs)*c.TraceSpan, int64(c.ReplayCPUs)*c.ReplaySpan
	return fmt.Sprintf("CPU time of all tasks: trace %s ms of %s × %s ms (%s); replay %s ms of %s × %s ms (%s)",
		msText(ct), cpus(c.TraceCPUs), msText(c.TraceSpan), share(ct, capT), msText(cr), cpus(c.ReplayCPUs), msText(c.ReplaySpan), share(cr, capR))
}

// Notes returns the lines WriteTable writes before the table: what the import did with the
// per-CPU kernel threads, and which real-time priorities the replay mapped.
func (c *Comparison) Notes() []string {
	var out []string
	if c.Charged > 0 {
		what := "CPU-time charges on their CPUs"
		if c.Charged == 1 {
			what = "a CPU-time charge on its CPU"
		}
		out = append(out, fmt.Sprintf("kernel threads: %s kept as %s", count(c.Charged, "per-CPU kernel thread"), what))
	}
	if u := c.Adapted.Unpinned; len(u) > 0 {
		out = append(out, fmt.Sprintf("kernel threads: %s charged on a CPU this machine lacks, run unpinned: %s", count(len(u), "thread"), clipList(u, 8)))
	}
	if len(c.Dropped) > 0 {
		var cpu int64
		var names []string
		for _, d := range c.Dropped {
			cpu += d.CPUTime
			names = append(names, d.Label())
		}
		out = append(out, fmt.Sprintf("kernel threads: %s dropped, %s ms of CPU in the trace not replayed: %s",
			count(len(c.Dropped), "per-CPU kernel thread"), msText(cpu), clipList(names, 8)))
	}
	if rt := c.Adapted.RT; len(rt) > 0 {
		var m []string
		for _, x := range rt {
			m = append(m, fmt.Sprintf("%s %d→%d", x.Task, x.From, x.To))
		}
		what := count(len(rt), "Linux priority", "Linux priorities") + " mapped onto rtprio levels (sched_priority→rtprio)"
		if rt[0].Scale == sched.RTFreeBSD {
			what = count(len(rt), "rtprio level") + " mapped onto Linux priorities (rtprio→sched_priority)"
		}
		out = append(out, fmt.Sprintf("real-time: %s: %s", what, clipList(m, 8)))
	}
	return out
}

// cpus returns "1 CPU" or "n CPUs".
func cpus(n int) string { return count(n, "CPU") }

// count returns "1 noun" or "n nouns" (or the plural given).
func count(n int, noun string, plural ...string) string {
	if n == 1 {
		return "1 " + noun
	}
	if len(plural) > 0 {
		return fmt.Sprintf("%d %s", n, plural[0])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// clipList joins the first n of s with commas, then says how many more there are.
func clipList(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ", ")
	}
	return strings.Join(s[:n], ", ") + fmt.Sprintf(", … (%d more)", len(s)-n)
}

// msText formats nanoseconds as milliseconds with three decimals.
func msText(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1e6) }

// usText formats nanoseconds as microseconds with one decimal.
func usText(ns int64) string { return fmt.Sprintf("%.1f", float64(ns)/1e3) }

// percent returns a as a whole percentage of b.
func percent(a, b int64) string { return fmt.Sprintf("%.0f", 100*float64(a)/float64(b)) }

// share returns a as a percentage of b with one decimal, or "-" when b is 0.
func share(a, b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}
