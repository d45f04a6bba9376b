package main

// This file implements the JSON and CSV forms of run's results: the stable schema documented
// in doc.go.

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"

	"github.com/schedkit/schedkit/bench/sim"
)

// schemaVersion names the JSON schema; it changes only when a field changes meaning or goes.
const schemaVersion = "schedbench.run/1"

// runDoc is the JSON document run writes: what ran, and one entry per finished run.
type runDoc struct {
	Schema   string    `json:"schema"`
	Workload string    `json:"workload"`
	Topology string    `json:"topology"`
	UntilNS  int64     `json:"until_ns"`
	Hz       int       `json:"hz"`
	StatHz   int       `json:"stathz"`
	Seed     uint64    `json:"seed"`
	Reps     int       `json:"reps"`
	Policies []string  `json:"policies"`
	Complete bool      `json:"complete"`
	Runs     []runJSON `json:"runs"`
}

type runJSON struct {
	Policy     string         `json:"policy"`
	Rep        int            `json:"rep"`
	Seed       uint64         `json:"seed"`
	EndNS      int64          `json:"end_ns"`
	MakespanNS int64          `json:"makespan_ns"`
	Events     uint64         `json:"events"`
	Exited     int64          `json:"exited"`
	Messages   int64          `json:"messages"`
	Violations map[string]int `json:"violations"`
	Threads    []threadJSON   `json:"threads"`
	CPUs       []cpuJSON      `json:"cpus"`
}

type threadJSON struct {
	ID          int32        `json:"id"`
	Name        string       `json:"name"`
	Parent      int32        `json:"parent"`
	StartNS     int64        `json:"start_ns"`
	EndNS       int64        `json:"end_ns"`
	CPUNS       int64        `json:"cpu_ns"`
	WaitNS      int64        `json:"wait_ns"`
	SleepNS     int64        `json:"sleep_ns"`
	WorkNS      int64        `json:"work_ns"`
	Share       float64      `json:"share"`
	Voluntary   int64        `json:"voluntary"`
	Involuntary int64        `json:"involuntary"`
	Migrations  int64        `json:"migrations"`
	Wakeups     int64        `json:"wakeups"`
	Latency     *latencyJSON `json:"latency_ns,omitempty"`
}

type latencyJSON struct {
	P50  int64 `json:"p50"`
	P90  int64 `json:"p90"`
	P99  int64 `json:"p99"`
	P999 int64 `json:"p99.9"`
	Max  int64 `json:"max"`
}

type cpuJSON struct {
	CPU         int   `json:"cpu"`
	BusyNS      int64 `json:"busy_ns"`
	IdleNS      int64 `json:"idle_ns"`
	InterruptNS int64 `json:"interrupt_ns"`
	SwitchNS    int64 `json:"switch_ns"`
	Switches    int64 `json:"switches"`
}

// newRunDoc builds the JSON document of the finished cells.
func newRunDoc(s *setup, reps int, cells []*cell) runDoc {
	d := runDoc{Schema: schemaVersion, Workload: s.wname, Topology: s.topo.String(), UntilNS: int64(s.flags.until),
		Hz: s.flags.hz, StatHz: s.flags.statHz, Seed: s.flags.seed, Reps: reps, Complete: true, Runs: []runJSON{}}
	for _, p := range s.policies {
		d.Policies = append(d.Policies, p.name)
	}
	for _, c := range cells {
		if c.result == nil {
			d.Complete = false
			continue
		}
		d.Runs = append(d.Runs, newRunJSON(s.policies[c.policy].name, c.rep, s.flags.seed+uint64(c.rep), c.result))
	}
	return d
}

func newRunJSON(policy string, rep int, seed uint64, r *sim.Result) runJSON {
	j := runJSON{Policy: policy, Rep: rep, Seed: seed, EndNS: r.End, MakespanNS: r.Makespan, Events: r.Events,
		Exited: r.Exited, Messages: r.Messages, Violations: map[string]int{}, Threads: []threadJSON{}, CPUs: []cpuJSON{}}
	for i, n := range r.Counts {
		j.Violations[sim.Invariant(i).String()] = n
	}
	for i := range r.Threads {
		t := &r.Threads[i]
		tj := threadJSON{ID: int32(t.ID), Name: t.Name, Parent: int32(t.Parent), StartNS: t.Start, EndNS: t.End,
			CPUNS: t.CPUTime, WaitNS: t.WaitTime, SleepNS: t.Sleep, WorkNS: t.Work, Share: t.Share(),
			Voluntary: t.Voluntary, Involuntary: t.Involuntary, Migrations: t.Migrations, Wakeups: t.Wakeups}
		if _, ok := t.Latency(50); ok {
			p := func(q float64) int64 { v, _ := t.Latency(q); return v }
			tj.Latency = &latencyJSON{P50: p(50), P90: p(90), P99: p(99), P999: p(99.9), Max: p(100)}
		}
		j.Threads = append(j.Threads, tj)
	}
	for c := range r.CPUs {
		if s := r.CPUs[c]; s.Busy+s.Idle > 0 {
			j.CPUs = append(j.CPUs, cpuJSON{CPU: c, BusyNS: s.Busy, IdleNS: s.Idle, InterruptNS: s.Interrupt, SwitchNS: s.Switch, Switches: s.Switches})
		}
	}
	return j
}

// writeJSON writes d indented, with a final newline.
func writeJSON(w io.Writer, d runDoc) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// csvHeader is the first line of the CSV form: one row per thread of each finished run.
var csvHeader = []string{"policy", "rep", "seed", "thread", "id", "cpu_ns", "wait_ns", "sleep_ns", "work_ns",
	"share", "voluntary", "involuntary", "migrations", "wakeups",
	"lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p99.9_ns", "lat_max_ns"}

// writeCSV writes the CSV form of d: csvHeader, then one row per thread of each run; latency
// cells are empty for a thread never woken.
func writeCSV(w io.Writer, d runDoc) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range d.Runs {
		for _, t := range r.Threads {
			row := []string{r.Policy, strconv.Itoa(r.Rep), strconv.FormatUint(r.Seed, 10), t.Name, strconv.Itoa(int(t.ID)),
				i64(t.CPUNS), i64(t.WaitNS), i64(t.SleepNS), i64(t.WorkNS), strconv.FormatFloat(t.Share, 'g', -1, 64),
				i64(t.Voluntary), i64(t.Involuntary), i64(t.Migrations), i64(t.Wakeups)}
			if l := t.Latency; l != nil {
				row = append(row, i64(l.P50), i64(l.P90), i64(l.P99), i64(l.P999), i64(l.Max))
			} else {
				row = append(row, "", "", "", "", "")
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
