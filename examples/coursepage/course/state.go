package course

// This file takes the policy's state beside each decision of a run, for the page to draw: ULE's
// tdqs with their calendars, 4BSD's global and per-CPU run queues, CFS's and EEVDF's cfs_rqs.

import (
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/internal/comparelog"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/ule"
)

// stateOf returns the kind of state p, a started policy, has ("ule", "bsd4" or "cfs"), a
// function returning its snapshot as the page reads it, and a function that forgets what the
// snapshot would have said of the events since the last (ULE's searches) for an event without
// a decision; or "" and nil for a policy without a snapshot.
func stateOf(p sched.Policy) (string, func() any, func()) {
	switch s := p.(type) {
	case *ule.Scheduler:
		s.System().RecordSearches(true)
		return "ule", func() any { return ULEState{s.Snapshot(), s.System().TakeSearches()} }, func() { s.System().TakeSearches() }
	case *bsd4.Scheduler:
		return "bsd4", func() any { return s.System().Snapshot() }, func() {}
	case *cfs.Scheduler:
		s.System().RecordComparisons(true)
		return "cfs", func() any {
			v := cfsView(s.Snapshot())
			v.Comparisons = s.System().TakeComparisons()
			return v
		}, func() { s.System().TakeComparisons() }
	}
	return "", nil, nil
}

// A ULEState is ule.State with the searches of the CPU topology made by the decisions of the
// event it follows (ule.System.RecordSearches): the loads PickCPU, Steal and Balance compared.
type ULEState struct {
	ule.State
	Searches []ule.Search `json:"searches"`
}

// A CFSState is cfs.State as the page draws it: every CPU's vruntimes, deadlines and V taken
// relative to the queue's min_vruntime (zero_vruntime in v7.1), so that they fit a JavaScript
// number exactly whatever the absolute values (the kernel starts min_vruntime near 2^64), and
// the comparisons of the event.
type CFSState struct {
	Version string   `json:"version"`
	EEVDF   bool     `json:"eevdf"`
	CPUs    []CFSCPU `json:"cpus"`
	// Comparisons are what the SMP decisions of the event compared: the CPUs a placement
	// chose among and the groups a balance weighed (cfs.System.RecordComparisons).
	Comparisons []comparelog.Comparison `json:"comparisons"`
}

// A CFSCPU is one CPU's root cfs_rq in a [CFSState]. Base is min_vruntime (or zero_vruntime)
// in decimal; V is avg_vruntime minus Base (EEVDF only).
type CFSCPU struct {
	CPU       int         `json:"cpu"`
	Running   string      `json:"running"`
	NrRunning int         `json:"nr_running"`
	Load      uint64      `json:"load"`
	Base      string      `json:"base"`
	V         int64       `json:"v"`
	Entities  []CFSEntity `json:"entities"`
}

// A CFSEntity is one sched_entity of a [CFSCPU]; Vruntime and Deadline are relative to the
// queue's Base (Deadline is 0 under CFS, which has none).
type CFSEntity struct {
	Name     string `json:"name"`
	Running  bool   `json:"running"`
	Vruntime int64  `json:"vruntime"`
	Deadline int64  `json:"deadline"`
	Slice    uint64 `json:"slice"`
	Weight   uint64 `json:"weight"`
	Nice     int    `json:"nice"`
	Lag      int64  `json:"lag"`
	Eligible bool   `json:"eligible"`
}

// cfsView turns a cfs.State into a CFSState (unsigned differences read as signed, as the
// kernel's entity_key does).
func cfsView(st cfs.State) CFSState {
	v := CFSState{Version: st.Version, EEVDF: st.Version != "v6.5"}
	for _, q := range st.CPUs {
		c := CFSCPU{CPU: q.CPU, Running: q.Running, NrRunning: q.NrRunning, Load: q.Load,
			Base: strconv.FormatUint(q.MinVruntime, 10), Entities: []CFSEntity{}}
		if v.EEVDF {
			c.V = int64(q.AvgVruntime - q.MinVruntime)
		}
		for _, e := range q.Entities {
			ce := CFSEntity{Name: e.Name, Running: e.Running, Vruntime: int64(e.Vruntime - q.MinVruntime),
				Slice: e.Slice, Weight: e.Weight, Nice: e.Nice, Lag: e.Lag, Eligible: e.Eligible}
			if v.EEVDF { // CFS (v6.5) keeps no deadline
				ce.Deadline = int64(e.Deadline - q.MinVruntime)
			}
			c.Entities = append(c.Entities, ce)
		}
		v.CPUs = append(v.CPUs, c)
	}
	return v
}

// threadRef matches a thread's id as a whole JSON string ("t3").
var threadRef = regexp.MustCompile(`"t[0-9]+"`)

// stateJSON marshals a snapshot with every thread id replaced by the thread's name, as the
// decisions and the chart name them.
func stateJSON(v any, names []string) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("course: a snapshot does not marshal: " + err.Error())
	}
	return threadRef.ReplaceAllFunc(b, func(ref []byte) []byte {
		id, err := strconv.Atoi(string(ref[2 : len(ref)-1]))
		if err != nil || id >= len(names) {
			return ref
		}
		q, _ := json.Marshal(names[id])
		return q
	})
}

// State returns the policy's state just after decision i, as JSON: the snapshot taken after
// the simulator event that made the decision. It returns nil when the run's policy has no
// snapshot or i is out of range.
func (run *Run) State(i int) json.RawMessage {
	if i < 0 || i >= len(run.states) {
		return nil
	}
	return run.states[i]
}
