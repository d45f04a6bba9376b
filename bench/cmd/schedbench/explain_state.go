package main

// This file implements explain -state: the policy's state (its read-only snapshot) printed as
// text beneath each decision explained, as a student would draw it at that moment.

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/internal/comparelog"
	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/ule"
)

// hasState returns nil if p has a snapshot, or an error naming the policies that have one.
func hasState(p sim.Policy, name string) error {
	switch p.(type) {
	case *ule.Scheduler, *bsd4.Scheduler, *cfs.Scheduler:
		return nil
	}
	return usagef("-state: %s has no snapshot (ule, 4bsd and cfs have)", name)
}

// stateText returns a function that formats the state of p, a started policy that has a
// snapshot, as text, with ULE's searches of the topology or CFS's comparisons since the
// previous call (it turns their record on).
func stateText(p sim.Policy) func() string {
	switch s := p.(type) {
	case *ule.Scheduler:
		s.System().RecordSearches(true)
		return func() string { return uleStateText(s.Snapshot()) + searchesText(s.System().TakeSearches()) }
	case *bsd4.Scheduler:
		return func() string { return bsd4StateText(s.System().Snapshot()) }
	case *cfs.Scheduler:
		s.System().RecordComparisons(true)
		return func() string { return cfsStateText(s.Snapshot()) + comparisonsText(s.System().TakeComparisons()) }
	}
	panic("schedbench: stateText of a policy without a snapshot")
}

// runWithStates runs m until until, as runMachine does, one event at a time, and after each
// event that recorded an explanation kept by keep it takes the policy's state: the result maps
// the index of the event's last record that keep keeps to the state's text (the state after
// the event, printed beneath its records). The run is the same with or
// without the states (the snapshots only read).
func runWithStates(ctx context.Context, m *sim.Machine, until time.Duration, state func() string, keep func(sim.Record) bool) (map[int]string, error) {
	states := map[int]string{}
	tr := m.Trace()
	for n := 0; !m.Done(); n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, errInterrupted
		}
		if t, ok := m.Next(); !ok || t > int64(until) {
			break
		}
		before := len(tr.Records)
		m.Step()
		last, explained := -1, false
		for i := before; i < len(tr.Records); i++ {
			if r := tr.Records[i]; keep(r) {
				last, explained = i, explained || r.Kind == sim.KindExplain
			}
		}
		// The state is taken after every event, so that the searches it lists are the event's.
		if text := state(); explained {
			states[last] = nameThreads(text, tr)
		}
	}
	return states, nil
}

// uleStateText formats a ULE snapshot: a line per CPU (what it runs, tdq_load, tdq_lowpri, the
// calendar's insert/remove offsets, the non-empty queues) and a line per thread.
func uleStateText(st ule.State) string {
	var b strings.Builder
	for _, c := range st.CPUs {
		fmt.Fprintf(&b, "    cpu%d runs %s load %d lowpri %d calendar %d/%d of %d", c.CPU, orIdle(c.Running), c.Load, c.LowPri,
			c.Calendar.Insert, c.Calendar.Remove, c.Calendar.Size)
		for _, q := range c.Queues {
			fmt.Fprintf(&b, " %s%s", q.Name, queuesText(q.Queue))
		}
		b.WriteByte('\n')
	}
	for _, t := range st.Threads {
		fmt.Fprintf(&b, "    %s %s cpu%d %s nice %d pri %d score %d (run %d, sleep %d ticks) slice %d/%d %%cpu %s\n", t.Name, t.State, t.CPU,
			t.Class, t.Nice, t.Pri, t.Score, t.RunTime, t.SlpTime, t.SliceUsed, t.Slice, t.PctCPU)
	}
	return b.String()
}

// searchesText formats ULE's searches of the topology: a line per search (what it looked for
// and found) with a CPU per entry: its load, lowpri and "*" when it qualified.
func searchesText(ss []ule.Search) string {
	var b strings.Builder
	for _, sr := range ss {
		if sr.Kind == "lowest" {
			fmt.Fprintf(&b, "    search lowest in %s: lowpri > %d, load <= %s, prefer cpu%d", sr.Group, sr.Pri, loadLimit(sr.MaxLoad), sr.Prefer)
		} else {
			fmt.Fprintf(&b, "    search highest in %s: load >= %d, transferable >= %d", sr.Group, sr.MinLoad, sr.MinTrans)
		}
		if sr.Found >= 0 {
			fmt.Fprintf(&b, ": found cpu%d\n     ", sr.Found)
		} else {
			b.WriteString(": none qualified\n     ")
		}
		for _, c := range sr.CPUs {
			mark := ""
			if c.Qualified {
				mark = "*"
			}
			fmt.Fprintf(&b, " cpu%d%s %d/%d", c.CPU, mark, c.Load, c.LowPri)
		}
		b.WriteString(" (load/lowpri, * qualified)\n")
	}
	return b.String()
}

// comparisonsText formats CFS's comparisons: for a placement a line with its CPUs and reason
// and a line of the CPUs it chose among (nr_running/load, "idle" marks); for a balance a line
// with its domain and verdict and a line per group with its sg_lb_stats.
func comparisonsText(cs []comparelog.Comparison) string {
	var b strings.Builder
	for _, c := range cs {
		if f := c.Placement; f != nil {
			fmt.Fprintf(&b, "    select_task_rq %s from cpu%d, prev cpu%d, target cpu%d: %s\n     ", f.Task, f.From, f.Prev, f.Target, f.Reason)
			for _, cf := range f.CPUs {
				fmt.Fprintf(&b, " cpu%d %d/%d%s", cf.CPU, cf.NrRunning, cf.Load, firstMark(cf.Idle, " idle", cf.IdleOnly, " idle-only"))
			}
			fmt.Fprintf(&b, " (%s: nr_running/load)\n", f.Scope)
		}
		if f := c.Balance; f != nil {
			fmt.Fprintf(&b, "    find_busiest_group %s %s from cpu%d (%s): %s", f.Domain, f.Span, f.Dst, f.Idle, f.Reason)
			if f.Migration != "" {
				fmt.Fprintf(&b, ", %s %d", f.Migration, f.Imbalance)
			}
			b.WriteByte('\n')
			for _, g := range f.Groups {
				fmt.Fprintf(&b, "      group %v%s %s: %d tasks on %d CPUs (%d idle), load %d, capacity %d, util %d, avg_load %d\n", g.CPUs,
					firstMark(g.Local, " local", g.Busiest, " busiest"), g.Type,
					g.SumNrRunning, g.GroupWeight, g.IdleCPUs, g.GroupLoad, g.GroupCapacity, g.GroupUtil, g.AvgLoad)
			}
		}
	}
	return b.String()
}

// firstMark returns markA if a holds, else markB if b holds, else "".
func firstMark(a bool, markA string, b bool, markB string) string {
	switch {
	case a:
		return markA
	case b:
		return markB
	}
	return ""
}

// loadLimit formats a search's maximum load, "any" for none.
func loadLimit(n int) string {
	if n == math.MaxInt32 {
		return "any"
	}
	return strconv.Itoa(n)
}

// bsd4StateText formats a 4BSD snapshot: the load average and the global queue, a line per CPU
// and a line per thread.
func bsd4StateText(st bsd4.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    loadavg %s load %d runq%s\n", strings.Join(st.LoadAvg[:], " "), st.Load, queuesText(st.Global))
	for _, c := range st.CPUs {
		fmt.Fprintf(&b, "    cpu%d runs %s runq_pcpu%s\n", c.CPU, orIdle(c.Running), queuesText(c.Queue))
	}
	for _, t := range st.Threads {
		fmt.Fprintf(&b, "    %s %s nice %d pri %d user_pri %d estcpu %d slice %d %%cpu %s\n", t.Name, t.State, t.Nice, t.Pri, t.UserPri,
			t.EstCPU, t.Slice, t.PctCPU)
	}
	return b.String()
}

// cfsStateText formats a CFS or EEVDF snapshot: a line per CPU (what it runs, nr_running, the
// reference point and V) and a line per entity, vruntimes and deadlines relative to the
// reference point (min_vruntime, or v7.1's zero_vruntime).
func cfsStateText(st cfs.State) string {
	var b strings.Builder
	for _, rq := range st.CPUs {
		fmt.Fprintf(&b, "    cpu%d runs %s nr_running %d min_vruntime %d V %+d\n", rq.CPU, orIdle(rq.Running), rq.NrRunning, rq.MinVruntime,
			int64(rq.AvgVruntime-rq.MinVruntime))
		for _, e := range rq.Entities {
			run := ""
			if e.Running {
				run = " (curr)"
			}
			fmt.Fprintf(&b, "      %s%s nice %d weight %d vruntime %+d deadline %+d lag %d eligible %v\n", e.Name, run, e.Nice, e.Weight,
				int64(e.Vruntime-rq.MinVruntime), int64(e.Deadline-rq.MinVruntime), e.Lag, e.Eligible)
		}
	}
	return b.String()
}

// queuesText formats a run queue's non-empty queues: " [] " when all are empty, else
// " 131:[t1 t4] 223:[t0]".
func queuesText(q runq.State) string {
	if len(q.Queues) == 0 {
		return " []"
	}
	var b strings.Builder
	for _, e := range q.Queues {
		fmt.Fprintf(&b, " %d:[%s]", e.Index, strings.Join(e.Elems, " "))
	}
	return b.String()
}

// threadRef matches a thread as the policies' snapshots name it: "t" and its ID.
var threadRef = regexp.MustCompile(`\bt([0-9]+)\b`)

// nameThreads replaces each thread ID in text ("t6") by the thread's name in tr ("consumer"),
// as the records above it name threads.
func nameThreads(text string, tr *sim.Trace) string {
	return threadRef.ReplaceAllStringFunc(text, func(ref string) string {
		id, err := strconv.Atoi(ref[1:])
		if err != nil || id >= len(tr.Threads) {
			return ref
		}
		return tr.Threads[id].Name
	})
}

// orIdle returns name, or "idle" for "".
func orIdle(name string) string {
	if name == "" {
		return "idle"
	}
	return name
}
