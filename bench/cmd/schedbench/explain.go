package main

// This file implements the explain subcommand: a run's trace with the policy's own reasons,
// filtered down to the decisions a person asks about.

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
)

const explainSynopsis = "[flags] WORKLOAD"

// explainFlags are explain's own flags.
type explainFlags struct {
	machineFlags
	thread, cpu  string
	from, to, at time.Duration
	only         bool
	limit        int
	state        bool
}

func cmdExplain(e *env, args []string) error {
	var f explainFlags
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	f.register(fs, "ule")
	fs.StringVar(&f.thread, "thread", "", "only records about this `thread` (a name such as hog.1, or a group such as hog for all its instances)")
	fs.StringVar(&f.cpu, "cpu", "", "only records on this `cpu` (a number)")
	fs.DurationVar(&f.from, "from", 0, "only records at or after this simulated `time`")
	fs.DurationVar(&f.to, "to", 0, "only records at or before this simulated `time` (0: the end of the run)")
	fs.DurationVar(&f.at, "at", -1, "only records at exactly this simulated `time` (sets -from and -to)")
	fs.BoolVar(&f.only, "only", false, "only the policy's explanations, not the switches, wake-ups and migrations around them")
	fs.IntVar(&f.limit, "n", 0, "print at most `n` records (0: all)")
	fs.BoolVar(&f.state, "state", false, "print the policy's state (its run queues, calendar, each thread's priority, score and %CPU) beneath each decision, with ULE's searches of the CPU topology (each CPU's load and lowpri, the ones that qualified, the one found) (ule, 4bsd and cfs)")
	registerMaxMemory(fs)
	if err := parseFlags(e, fs, args, explainSynopsis); err != nil {
		return err
	}
	flt, err := f.filter(fs)
	if err != nil {
		return err
	}
	s, err := f.resolve(e, fs)
	if err != nil {
		return err
	}
	if len(s.policies) != 1 {
		return usagef("explain takes one policy, got %d in -policy %q", len(s.policies), f.policy)
	}
	if flt.cpu >= s.topo.NumCPUs() {
		return usagef("-cpu %d: the topology %s has CPUs 0..%d", flt.cpu, s.topo, s.topo.NumCPUs()-1)
	}
	until := s.flags.until
	if flt.hasTo && f.to < until {
		until = f.to + 1 // the records of the instant f.to are made before time moves past it
	}
	p := s.policies[0].new()
	if f.state {
		if err := hasState(p, s.policies[0].name); err != nil {
			return err
		}
	}
	m, err := sim.New(s.config(0, 0, sim.TraceFull, true), p, s.w)
	if err != nil {
		return usagef("%v", err)
	}
	var states map[int]string
	if f.state {
		states, err = runWithStates(e.ctx, m, until, stateText(p), func(r sim.Record) bool { return flt.keeps(&f, r) })
	} else {
		err = runMachine(e.ctx, m, until)
	}
	if err != nil {
		return err
	}
	res := m.Result()
	if f.thread != "" {
		if flt.ids = threadIDs(res, f.thread); len(flt.ids) == 0 {
			return usagef("-thread %q: no thread of that name ran before %v", f.thread, time.Duration(until))
		}
	}
	return writeExplained(e.stdout, res.Trace, &f, flt, states)
}

// explainFilter is what explain's flags select of a run's records.
type explainFilter struct {
	cpu   int  // -1: every CPU
	hasTo bool // records after f.to are left out
	ids   map[sched.ID]bool
}

// filter checks the window and CPU flags and returns the filter they make (without threads:
// their IDs are known only after the run).
func (f *explainFlags) filter(fs *flag.FlagSet) (explainFilter, error) {
	flt := explainFilter{cpu: -1, hasTo: f.to > 0}
	atSet := false
	fs.Visit(func(fl *flag.Flag) { atSet = atSet || fl.Name == "at" })
	if atSet && f.at < 0 {
		return flt, usagef("-at %v: want a time at or after 0", f.at)
	}
	if atSet {
		if f.from != 0 || f.to != 0 {
			return flt, usagef("-at cannot be combined with -from or -to")
		}
		f.from, f.to, flt.hasTo = f.at, f.at, true
	}
	switch {
	case f.from < 0 || f.to < 0:
		return flt, usagef("-from and -to must not be negative")
	case flt.hasTo && f.to < f.from:
		return flt, usagef("-to %v is before -from %v", f.to, f.from)
	case f.limit < 0:
		return flt, usagef("-n %d: want 0 or more", f.limit)
	}
	if f.cpu != "" {
		n, err := strconv.Atoi(f.cpu)
		if err != nil || n < 0 {
			return flt, usagef("-cpu %q: want a CPU number", f.cpu)
		}
		flt.cpu = n
	}
	return flt, nil
}

// threadIDs returns the IDs of the threads named name, or declared as name (every instance of
// a count=N declaration), by their declaration rather than by parsing name suffixes.
func threadIDs(res *sim.Result, name string) map[sched.ID]bool {
	ids := map[sched.ID]bool{}
	for id, ti := range res.Trace.Threads {
		if ti.Name == name || id < len(res.Threads) && res.Threads[id].Decl == name {
			ids[sched.ID(id)] = true
		}
	}
	return ids
}

// writeExplained prints the records of tr that flt and f's -from, -to, -only and -n select, or
// a line saying that none does.
func writeExplained(out io.Writer, tr *sim.Trace, f *explainFlags, flt explainFilter, states map[int]string) error {
	w := bufio.NewWriter(out)
	n := 0
	for i, r := range tr.Records {
		if !flt.keeps(f, r) {
			continue
		}
		fmt.Fprintln(w, tr.Format(r))
		if st, ok := states[i]; ok {
			w.WriteString(st)
		}
		n++
		if f.limit > 0 && n == f.limit {
			break
		}
	}
	if n == 0 {
		fmt.Fprintf(w, "no record matches (%s)\n", describeFilter(f, flt.cpu, flt.hasTo))
	}
	return w.Flush()
}

// keeps reports whether record r passes the filter.
func (flt explainFilter) keeps(f *explainFlags, r sim.Record) bool {
	switch {
	case r.Time < int64(f.from) || flt.hasTo && r.Time > int64(f.to):
		return false
	case f.only && r.Kind != sim.KindExplain:
		return false
	case flt.cpu >= 0 && int(r.CPU) != flt.cpu:
		return false
	case flt.ids == nil:
		return true
	case r.Kind == sim.KindResched || r.Kind == sim.KindIPI:
		// Reschedule requests and IPIs name no thread of their own; they follow from the
		// explanation printed before them.
		return false
	}
	return flt.ids[r.Thread] || r.Kind == sim.KindSwitch && r.Other >= 0 && flt.ids[sched.ID(r.Other)]
}

func describeFilter(f *explainFlags, cpu int, hasTo bool) string {
	var parts []string
	if f.thread != "" {
		parts = append(parts, "thread "+f.thread)
	}
	if cpu >= 0 {
		parts = append(parts, "cpu"+strconv.Itoa(cpu))
	}
	if f.from > 0 || hasTo {
		parts = append(parts, fmt.Sprintf("from %v to %v", f.from, f.to))
	}
	if len(parts) == 0 {
		return "no filter"
	}
	return strings.Join(parts, ", ")
}
