package sim

// This file implements the kept form of a Result: JSON with a documented, versioned schema.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// ResultSchema names the version of the JSON form of a Result, written in its "schema" field.
// A change that renames or removes a field, or changes a unit, gets a new version; fields may be
// added within one.
const ResultSchema = "schedkit.sim.result/1"

// resultJSON is the JSON form of a Result; see Result.MarshalJSON.
type resultJSON struct {
	Schema          string          `json:"schema"`
	Policy          string          `json:"policy"`
	Start           int64           `json:"start_ns"`
	End             int64           `json:"end_ns"`
	Ending          Ending          `json:"ending"`
	TickHz          int             `json:"tick_hz"`
	Makespan        int64           `json:"makespan_ns"`
	Events          uint64          `json:"events"`
	Exited          int64           `json:"exited"`
	Messages        int64           `json:"messages"`
	PolicyErr       string          `json:"policy_error,omitempty"`
	ViolationCounts map[string]int  `json:"violation_counts"`
	Violations      []violationJSON `json:"violations"`
	Threads         []threadJSON    `json:"threads"`
	CPUs            []cpuJSON       `json:"cpus"`
}

type violationJSON struct {
	Invariant string `json:"invariant"`
	Time      int64  `json:"time_ns"`
	CPU       int    `json:"cpu"`
	Thread    int    `json:"thread"`
	Wait      int64  `json:"wait_ns"`
}

type threadJSON struct {
	ID          int       `json:"id"`
	Name        string    `json:"name"`
	Decl        string    `json:"decl"`
	Group       string    `json:"group"`
	Parent      int       `json:"parent"`
	Start       int64     `json:"start_ns"`
	End         int64     `json:"end_ns"`
	CPUTime     int64     `json:"cpu_ns"`
	WaitTime    int64     `json:"wait_ns"`
	Sleep       int64     `json:"sleep_ns"`
	Work        int64     `json:"work_ns"`
	Voluntary   int64     `json:"voluntary"`
	Involuntary int64     `json:"involuntary"`
	Migrations  int64     `json:"migrations"`
	Wakeups     int64     `json:"wakeups"`
	Lifetime    int64     `json:"lifetime_ns"`
	Share       float64   `json:"share"`
	Wakeup      Histogram `json:"wakeup"`
	RunqWait    Histogram `json:"runq_wait"`
	Request     Histogram `json:"request"`
}

type cpuJSON struct {
	ID        int              `json:"id"`
	Busy      int64            `json:"busy_ns"`
	Idle      int64            `json:"idle_ns"`
	Interrupt int64            `json:"interrupt_ns"`
	Switch    int64            `json:"switch_ns"`
	IdleExit  int64            `json:"idle_exit_ns"`
	Switches  int64            `json:"switches"`
	Ticks     map[string]int64 `json:"ticks"`
}

var cpuStateNames = [NumCPUStates]string{"user", "nice", "sys", "intr", "idle"}

// String returns the state's kern.cp_time name: "user", "nice", "sys", "intr" or "idle".
func (s CPUState) String() string { return sched.EnumName(cpuStateNames[:], s, "cpustate") }

// MarshalJSON writes r in the schema ResultSchema names. Every time is an integer count of
// nanoseconds and its field name ends in _ns; share is a fraction (0..1); counts are integers.
// The fields:
//
//	schema            ResultSchema
//	policy            Policy
//	start_ns, end_ns  Start, End: the measured interval
//	ending            Ending's name: "all-exited", "time", "threads-exited", "groups-exited", "events", "failed", "running"
//	tick_hz           TickHz
//	makespan_ns       Makespan
//	events, exited, messages
//	policy_error      PolicyErr's message, omitted when nil
//	violation_counts  Counts by invariant name ("work-conservation", "starvation", "thread-conservation")
//	violations        Violations: {invariant, time_ns, cpu (-1: none), thread, wait_ns}
//	threads           Threads, by ID: {id, name, decl, group, parent (-1: none), start_ns,
//	                  end_ns (-1: had not exited), cpu_ns, wait_ns, sleep_ns, work_ns, voluntary,
//	                  involuntary, migrations, wakeups, lifetime_ns and share (derived, ignored
//	                  when read), wakeup, runq_wait, request (histograms: see Histogram.MarshalJSON)}
//	cpus              CPUs, by CPU id: {id, busy_ns, idle_ns, interrupt_ns, switch_ns,
//	                  idle_exit_ns, switches, ticks: {user, nice, sys, intr, idle}}
//
// The trace is not part of it (package trace exporters write it), nor is Seed (the runs
// document of [RunsSchema] writes each run's). [Result.UnmarshalJSON] reads
// it back. The JSON Schema in bench/sim/result.schema.json describes it for validators.
func (r *Result) MarshalJSON() ([]byte, error) {
	j := resultJSON{Schema: ResultSchema, Policy: r.Policy, Start: r.Start, End: r.End, Ending: r.Ending,
		TickHz: r.TickHz, Makespan: r.Makespan, Events: r.Events, Exited: r.Exited, Messages: r.Messages,
		ViolationCounts: map[string]int{}, Violations: []violationJSON{}, Threads: []threadJSON{}, CPUs: []cpuJSON{}}
	if r.PolicyErr != nil {
		j.PolicyErr = r.PolicyErr.Error()
	}
	for i, n := range r.Counts {
		j.ViolationCounts[Invariant(i).String()] = n
	}
	for _, v := range r.Violations {
		j.Violations = append(j.Violations, violationJSON{Invariant: v.Invariant.String(), Time: v.Time,
			CPU: int(v.CPU), Thread: int(v.Thread), Wait: v.Wait})
	}
	for i := range r.Threads {
		t := &r.Threads[i]
		j.Threads = append(j.Threads, threadJSON{ID: int(t.ID), Name: t.Name, Decl: t.Decl, Group: t.Group,
			Parent: int(t.Parent), Start: t.Start, End: t.End, CPUTime: t.CPUTime, WaitTime: t.WaitTime,
			Sleep: t.Sleep, Work: t.Work, Voluntary: t.Voluntary, Involuntary: t.Involuntary,
			Migrations: t.Migrations, Wakeups: t.Wakeups, Lifetime: t.Lifetime(), Share: t.Share(),
			Wakeup: t.Wakeup, RunqWait: t.RunqWait, Request: t.Request})
	}
	for id := range r.CPUs {
		c := &r.CPUs[id]
		cj := cpuJSON{ID: id, Busy: c.Busy, Idle: c.Idle, Interrupt: c.Interrupt, Switch: c.Switch,
			IdleExit: c.IdleExit, Switches: c.Switches, Ticks: map[string]int64{}}
		for s, n := range c.Ticks {
			cj.Ticks[CPUState(s).String()] = n
		}
		j.CPUs = append(j.CPUs, cj)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the form of [Result.MarshalJSON]. It returns an error for another schema, an
// unknown ending, invariant or CPU state, a thread or CPU out of order, or a bad histogram. The
// policy's error comes back as an error with the same message; the trace is nil.
func (r *Result) UnmarshalJSON(b []byte) error {
	var j resultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Schema != ResultSchema {
		return fmt.Errorf("sim: result schema %q, want %q", j.Schema, ResultSchema)
	}
	out := Result{Policy: j.Policy, Start: j.Start, End: j.End, Ending: j.Ending, TickHz: j.TickHz,
		Makespan: j.Makespan, Events: j.Events, Exited: j.Exited, Messages: j.Messages, names: &threadIndex{}}
	if j.PolicyErr != "" {
		out.PolicyErr = errors.New(j.PolicyErr)
	}
	for name, n := range j.ViolationCounts {
		i := slices.Index(invariantNames[:], name)
		if i < 0 {
			return fmt.Errorf("sim: result: unknown invariant %q", name)
		}
		out.Counts[i] = n
	}
	for _, v := range j.Violations {
		i := slices.Index(invariantNames[:], v.Invariant)
		if i < 0 {
			return fmt.Errorf("sim: result: unknown invariant %q", v.Invariant)
		}
		out.Violations = append(out.Violations, Violation{Invariant: Invariant(i), Time: v.Time,
			CPU: cpuID(v.CPU), Thread: threadID(v.Thread), Wait: v.Wait})
	}
	for i, t := range j.Threads {
		if t.ID != i {
			return fmt.Errorf("sim: result: thread %d at index %d", t.ID, i)
		}
		out.Threads = append(out.Threads, ThreadStats{ID: threadID(t.ID), Name: t.Name, Decl: t.Decl,
			Group: t.Group, Parent: threadID(t.Parent), Start: t.Start, End: t.End, CPUTime: t.CPUTime,
			WaitTime: t.WaitTime, Sleep: t.Sleep, Work: t.Work, Voluntary: t.Voluntary,
			Involuntary: t.Involuntary, Migrations: t.Migrations, Wakeups: t.Wakeups,
			Wakeup: t.Wakeup, RunqWait: t.RunqWait, Request: t.Request, from: j.Start, end: j.End})
	}
	for i, c := range j.CPUs {
		if c.ID != i {
			return fmt.Errorf("sim: result: cpu %d at index %d", c.ID, i)
		}
		cs := CPUStats{Busy: c.Busy, Idle: c.Idle, Interrupt: c.Interrupt, Switch: c.Switch,
			IdleExit: c.IdleExit, Switches: c.Switches}
		for name, n := range c.Ticks {
			s := slices.Index(cpuStateNames[:], name)
			if s < 0 {
				return fmt.Errorf("sim: result: cpu %d: unknown state %q", i, name)
			}
			cs.Ticks[s] = n
		}
		out.CPUs = append(out.CPUs, cs)
	}
	*r = out
	return nil
}

func cpuID(i int) topology.CPU { return topology.CPU(i) }

func threadID(i int) sched.ID { return sched.ID(i) }
