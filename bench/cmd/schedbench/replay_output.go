package main

// This file is replay's output: the JSON document of -format json and the text tables,
// one per policy or side by side with the trace's own timing.

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/trace"
	"github.com/schedkit/schedkit/topology"
)

// replayDoc is the JSON document of -format json; doc.go documents its fields.
type replayDoc struct {
	Schema   string       `json:"schema"`
	File     string       `json:"file"`
	Kind     string       `json:"kind"`
	Topology string       `json:"topology"`
	UntilNS  int64        `json:"until_ns"`
	Hz       int          `json:"hz"`
	StatHz   int          `json:"stathz"`
	Seed     uint64       `json:"seed"`
	Profile  string       `json:"profile"`
	Policies []string     `json:"policies"`
	Trace    traceJSON    `json:"trace"`
	Replays  []replayJSON `json:"replays"`
}

type traceJSON struct {
	DurationNS    int64            `json:"duration_ns"`
	CPUs          int              `json:"cpus"`
	Events        int64            `json:"events"`
	Skipped       map[string]int64 `json:"skipped"`
	Warned        int              `json:"warned"`
	Warnings      []string         `json:"warnings"`
	KernelThreads string           `json:"kernel_threads"`
	Charged       int              `json:"charged"`
	Dropped       []taskJSON       `json:"dropped"`
}

type replayJSON struct {
	Policy     string      `json:"policy"`
	EndNS      int64       `json:"end_ns"`
	MakespanNS int64       `json:"makespan_ns"`
	Mapped     []rtMapJSON `json:"mapped"`
	Tasks      []taskJSON  `json:"tasks"`
	Total      taskTiming  `json:"total"`
	TotalTrace *taskTiming `json:"total_trace"`

	text string // a trace's table as Comparison.WriteTable writes it
	rows []int  // the tasks the table shows, in its order
}

// rtMapJSON is a real-time priority mapped for the policy (trace.RTMap).
type rtMapJSON struct {
	Task  string `json:"task"`
	Scale string `json:"scale"`
	From  int    `json:"from"`
	To    int    `json:"to"`
}

type taskJSON struct {
	Name   string      `json:"name"`
	Label  string      `json:"label"`
	Thread string      `json:"thread"`
	PID    *int64      `json:"pid"`
	Ran    bool        `json:"ran"`
	Trace  *taskTiming `json:"trace"`
	Replay *taskTiming `json:"replay"`
}

// taskTiming is a task's timing in the trace or in the replay.
type taskTiming struct {
	CPUNS         int64 `json:"cpu_ns"`
	WaitNS        int64 `json:"wait_ns"`
	SleepNS       int64 `json:"sleep_ns"`
	LatencyMeanNS int64 `json:"latency_mean_ns"`
}

func newReplayDoc(in *replayInput, t *topology.Topology, f *machineFlags, ps []policySpec, kmode trace.KernelMode) *replayDoc {
	d := &replayDoc{Schema: replaySchema, File: filepath.Base(in.path), Kind: in.kind, Topology: t.String(),
		UntilNS: int64(f.until), Hz: f.hz, StatHz: f.statHz, Seed: f.seed, Profile: f.prof.String(), Replays: []replayJSON{}}
	for _, p := range ps {
		d.Policies = append(d.Policies, p.name)
	}
	kept, all := in.warnings()
	d.Trace.Warned, d.Trace.Warnings, d.Trace.Skipped = all, []string{}, map[string]int64{}
	for _, w := range kept {
		d.Trace.Warnings = append(d.Trace.Warnings, w.String())
	}
	d.Trace.Dropped = []taskJSON{}
	if in.im != nil {
		d.Trace.DurationNS, d.Trace.CPUs, d.Trace.Events = in.im.Duration, in.im.CPUs, in.im.Events
		for k, v := range in.im.Skipped {
			d.Trace.Skipped[k] = v
		}
		d.Trace.KernelThreads, d.Trace.Charged = kmode.String(), in.im.Charged
		for _, ts := range in.im.Dropped {
			pid := ts.PID
			d.Trace.Dropped = append(d.Trace.Dropped, taskJSON{Name: ts.Name, Label: ts.Label(), Thread: ts.SimName, PID: &pid,
				Trace: &taskTiming{ts.CPUTime, ts.WaitTime, ts.Sleep, ts.MeanLatency()}})
		}
	} else {
		d.Trace.DurationNS = in.rt.Duration
	}
	return d
}

// comparisonJSON is a replay of a trace: every task of the trace, with both timings.
func comparisonJSON(c *trace.Comparison) replayJSON {
	r := replayJSON{Policy: c.Result.Policy, EndNS: c.Result.End, MakespanNS: c.Result.Makespan, Tasks: []taskJSON{}, Mapped: []rtMapJSON{}}
	for _, m := range c.Adapted.RT {
		r.Mapped = append(r.Mapped, rtMapJSON{m.Task, m.Scale.String(), m.From, m.To})
	}
	r.TotalTrace = &taskTiming{}
	for _, tc := range c.Tasks {
		pid := tc.Trace.PID
		tj := taskJSON{Name: tc.Trace.Name, Label: tc.Trace.Label(), Thread: tc.Trace.SimName, PID: &pid, Ran: tc.Ran,
			Trace: &taskTiming{tc.Trace.CPUTime, tc.Trace.WaitTime, tc.Trace.Sleep, tc.Trace.MeanLatency()}}
		if tc.Ran {
			tj.Replay = &taskTiming{tc.CPUTime, tc.WaitTime, tc.Sleep, tc.MeanLatency}
		}
		r.Tasks = append(r.Tasks, tj)
	}
	cpuT, cpuR, waitT, waitR := c.Totals()
	r.TotalTrace.CPUNS, r.TotalTrace.WaitNS = cpuT, waitT
	r.Total.CPUNS, r.Total.WaitNS = cpuR, waitR
	for _, tc := range c.Tasks {
		r.TotalTrace.SleepNS += tc.Trace.Sleep
		r.Total.SleepNS += tc.Sleep
	}
	return r
}

// descriptionJSON is a run of an rt-app description: its threads, with no trace timing.
func descriptionJSON(res *sim.Result) replayJSON {
	r := replayJSON{Policy: res.Policy, EndNS: res.End, MakespanNS: res.Makespan, Tasks: []taskJSON{}, Mapped: []rtMapJSON{}}
	for i := range res.Threads {
		st := &res.Threads[i]
		rep := &taskTiming{CPUNS: st.CPUTime, WaitNS: st.WaitTime, SleepNS: st.Sleep}
		if lat, ok := st.Wakeup.Exact(); ok && len(lat) > 0 {
			var sum int64
			for _, l := range lat {
				sum += l
			}
			rep.LatencyMeanNS = sum / int64(len(lat))
		}
		r.Tasks = append(r.Tasks, taskJSON{Name: st.Name, Label: st.Name, Thread: st.Name, Ran: true, Replay: rep})
		r.Total.CPUNS += st.CPUTime
		r.Total.WaitNS += st.WaitTime
		r.Total.SleepNS += st.Sleep
	}
	return r
}

// writeReplayText writes the text form: what the trace is, then per policy the comparison
// table of bench/trace's Comparison.WriteTable (for rt-app, which records no timing, the
// trace columns are "-").
func writeReplayText(w io.Writer, d *replayDoc) error {
	kind := kindNames[d.Kind]
	if d.Kind == kindRTApp {
		length := "runs until stopped"
		if d.Trace.DurationNS > 0 {
			length = fmt.Sprintf("global.duration %s", ms(d.Trace.DurationNS))
		}
		fmt.Fprintf(w, "%s: %s, %s, %s; it records no timing, so the trace columns are empty\n", d.File, kind, count(len(d.Replays[0].Tasks), "task"), length)
	} else {
		fmt.Fprintf(w, "%s: %s, %s on %s, %s, %s", d.File, kind, ms(d.Trace.DurationNS), count(d.Trace.CPUs, "CPU"), count(int(d.Trace.Events), "event"), count(len(d.Replays[0].Tasks), "task"))
		if len(d.Trace.Skipped) > 0 {
			names := make([]string, 0, len(d.Trace.Skipped))
			for k := range d.Trace.Skipped {
				names = append(names, k)
			}
			slices.Sort(names)
			for i, k := range names {
				names[i] = fmt.Sprintf("%s %d", k, d.Trace.Skipped[k])
			}
			fmt.Fprintf(w, "; skipped %s", strings.Join(names, ", "))
		}
		fmt.Fprintln(w)
	}
	if d.Trace.Warned > 0 {
		fmt.Fprintf(w, "%s (on stderr)\n", count(d.Trace.Warned, "warning"))
	}
	fmt.Fprintf(w, "machine profile of the replays: %s\n", d.Profile)
	for _, r := range d.Replays {
		fmt.Fprintf(w, "\n%s on %s for %s: the replay ends at %s (makespan %s)\n", r.Policy, d.Topology, time.Duration(d.UntilNS), ms(r.EndNS), ms(r.MakespanNS))
		if r.TotalTrace != nil {
			if _, err := io.WriteString(w, r.text); err != nil {
				return err
			}
			continue
		}
		if err := writeReplayTable(w, &r); err != nil {
			return err
		}
	}
	if len(d.Replays) > 1 && d.Replays[0].TotalTrace != nil {
		return writeSideBySide(w, d)
	}
	return nil
}

// writeSideBySide writes the policies' replays of a trace side by side: for the tasks the tables
// show, the CPU time, then the run-queue wait and the mean wake-up latency in the trace and
// under each policy, and a last row with the spans (the trace's duration, each replay's
// makespan).
func writeSideBySide(w io.Writer, d *replayDoc) error {
	fmt.Fprintln(w, "\nside by side:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "task\tcpu ms\twait trace ms\t"
	for _, r := range d.Replays {
		head += "wait " + r.Policy + " ms\t"
	}
	head += "lat trace µs\t"
	for _, r := range d.Replays {
		head += "lat " + r.Policy + " µs\t"
	}
	fmt.Fprintln(tw, head)
	msv := func(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1e6) }
	us := func(ns int64) string { return fmt.Sprintf("%.1f", float64(ns)/1e3) }
	for _, i := range d.Replays[0].rows {
		t := d.Replays[0].Tasks[i]
		line := t.Label + "\t" + msv(t.Trace.CPUNS) + "\t" + msv(t.Trace.WaitNS) + "\t"
		for _, r := range d.Replays {
			v := "-"
			if rt := r.Tasks[i].Replay; rt != nil {
				v = msv(rt.WaitNS)
			}
			line += v + "\t"
		}
		line += us(t.Trace.LatencyMeanNS) + "\t"
		for _, r := range d.Replays {
			v := "-"
			if rt := r.Tasks[i].Replay; rt != nil {
				v = us(rt.LatencyMeanNS)
			}
			line += v + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	line := "span ms (trace, replays)\t\t" + msv(d.Trace.DurationNS) + "\t"
	for _, r := range d.Replays {
		line += msv(r.MakespanNS) + "\t"
	}
	fmt.Fprintln(tw, line+strings.Repeat("\t", len(d.Replays)+1))
	return tw.Flush()
}

// writeReplayTable writes the table of an rt-app description's run with the columns,
// alignment and units of trace.Comparison.WriteTable (the trace columns empty).
func writeReplayTable(w io.Writer, r *replayJSON) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "task\tcpu trace ms\tcpu replay ms\tcpu %\twait trace ms\twait replay ms\tlat trace µs\tlat replay µs\t")
	us := func(ns int64) string { return fmt.Sprintf("%.1f", float64(ns)/1e3) }
	msv := func(ns int64) string { return fmt.Sprintf("%.2f", float64(ns)/1e6) }
	for _, t := range r.Tasks {
		fmt.Fprintf(tw, "%s\t-\t%s\t-\t-\t%s\t-\t%s\t\n", t.Name, msv(t.Replay.CPUNS), msv(t.Replay.WaitNS), us(t.Replay.LatencyMeanNS))
	}
	fmt.Fprintf(tw, "total\t-\t%s\t-\t-\t%s\t-\t-\t\n", msv(r.Total.CPUNS), msv(r.Total.WaitNS))
	return tw.Flush()
}

// count returns "1 noun" or "n nouns".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ms formats nanoseconds as milliseconds with two decimals.
func ms(ns int64) string { return fmt.Sprintf("%.2f ms", float64(ns)/1e6) }
