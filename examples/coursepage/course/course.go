// Package course is the catalogue of lesson workloads the course page offers and the run that
// turns one into what the page draws. It is built both into the page's WebAssembly module and
// into the generator's tests, so that the page and the tests run exactly the same code.
package course

import (
	"errors"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// A Lesson is a workload of the course with the machine and policies it is meant for.
type Lesson struct {
	Name     string   `json:"name"`
	Title    string   `json:"title"`
	Example  string   `json:"example"` // the program of examples/ that tells the story
	Workload string   `json:"workload"`
	Topology string   `json:"topology"`
	Policies []string `json:"policies"`
	Millis   int      `json:"millis"`
	// Kind is "runq" for the run-queue tour, whose steps come from RunqTour and are drawn as
	// the status bits and queues, and empty for a simulated workload.
	Kind string `json:"kind,omitempty"`
}

// Lessons returns the workloads the page offers, in course order.
func Lessons() []Lesson {
	return []Lesson{
		{Name: "runqtour", Title: "FreeBSD's run queue: 256 queues and the status bits (runq tour)", Example: "runqtour",
			Topology: "package:1 node:1 llc:1 cpu:1", Policies: []string{"runq"}, Millis: 1, Kind: "runq"},
		{"calendar", "ULE's calendar: nice 0 against nice 20 on one CPU (seed 000)", "calendar",
			"thread nice0\n\trun forever\nend\n\nthread nice20 nice=20\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"ule:legacy", "ule:main", "bsd4:main", "cfs:v6.5"}, 2000, ""},
		{"pickshort", "Partial-slice starvation: gzip fed by tar beside a hog (seed 000)", "pickshort",
			"pipe data cap=1\n\nthread tar cpus=0\n\trepeat 200\n\t\trun 1500us\n\t\tsend data\n\tend\nend\n\n" +
				"thread gzip cpus=1\n\trepeat 200\n\t\trecv data\n\t\trun 1ms\n\tend\nend\n\n" +
				"thread hog cpus=1 nice=20\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:2", []string{"ule:seed000-ps0-pt48", "ule:seed000-ps1-pt224", "bsd4:main", "cfs:v6.5"}, 1000, ""},
		{"interactivity", "ULE's interactivity: an editor, a compiler and two hogs", "interactivity",
			"thread editor\n\tloop\n\t\tsleep exp(100ms)\n\t\trun exp(1ms)\n\tend\nend\n\n" +
				"thread compiler\n\tloop\n\t\trun 20ms\n\t\tsleep 20ms\n\tend\nend\n\n" +
				"thread hog\n\trun forever\nend\n\nthread nicehog nice=20\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"ule:main", "ule:legacy", "cfs:v6.5", "cfs:v7.1"}, 2000, ""},
		{"vruntime", "CFS shares by weight: hogs at nice 0, 1 and 5", "vruntime",
			"thread nice0\n\trun forever\nend\n\nthread nice1 nice=1\n\trun forever\nend\n\nthread nice5 nice=5\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"cfs:v6.5", "cfs:v7.1", "ule:main", "bsd4:main"}, 1000, ""},
		{"idlegroup", "SCHED_IDLE: workers beside idle hogs (seed 004)", "idlegroup",
			"thread worker count=4\n\tevery 10ms\n\t\trun exp(1500us)\n\tend\nend\n\n" +
				"thread hog count=4 class=idle\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"cfs:v6.5", "cfs:v7.1"}, 500, ""},
		{"migration", "CPU-bound jobs on four CPUs: who migrates (seed 001)", "",
			"thread job count=5\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:4", []string{"ule:legacy", "ule:main", "bsd4:main", "cfs:v6.5"}, 3000, ""},
	}
}

// A Slice is a thread on a CPU from Start to End (nanoseconds).
type Slice struct {
	CPU   int   `json:"cpu"`
	TID   int   `json:"tid"`
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// A Decision is one thing the policy did or said, in the order it happened.
type Decision struct {
	Time int64  `json:"t"`
	CPU  int    `json:"cpu"`
	TID  int    `json:"tid"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// A Run is what the page draws: the threads, the CPU slices and the decisions with the
// policy's explanations, and each thread's share.
type Run struct {
	Policy    string     `json:"policy"`
	CPUs      int        `json:"cpus"`
	End       int64      `json:"end"`
	Threads   []string   `json:"threads"`
	Shares    []float64  `json:"shares"`
	Slices    []Slice    `json:"slices"`
	Decisions []Decision `json:"decisions"`
	Truncated bool       `json:"truncated"`
}

// MaxDecisions bounds what a run sends to the page.
const MaxDecisions = 20000

// Simulate runs a workload under a policy on a topology for the given simulated time, with the
// policy's explanations on, and returns what the page draws. Every error names its input.
func Simulate(workloadText, policy, topo string, d time.Duration, seed uint64) (*Run, error) {
	if d <= 0 || d > 60*time.Second {
		return nil, errors.New("duration must be in (0, 60s]")
	}
	w, err := workload.Parse(workloadText)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	t, err := topology.Parse(topo)
	if err != nil {
		return nil, err
	}
	p, err := presets.New(policy)
	if err != nil {
		return nil, err
	}
	cfg := sim.Config{Topology: t, Hz: 1000, StatHz: 127, Seed: seed, Trace: sim.TraceFull, Explain: true, FlattenGroups: true}
	res, err := sim.Run(cfg, p, w, d)
	if err != nil {
		return nil, err
	}
	run := &Run{Policy: policy, CPUs: t.NumIDs(), End: res.End}
	for i := range res.Threads {
		run.Threads = append(run.Threads, res.Threads[i].Name)
		run.Shares = append(run.Shares, res.Threads[i].Share())
	}
	tr := res.Trace
	running := make([]int, t.NumIDs()) // thread on each CPU, -1 idle
	since := make([]int64, t.NumIDs())
	for i := range running {
		running[i] = -1
	}
	for _, r := range tr.Records {
		cpu := int(r.CPU)
		switch r.Kind {
		case sim.KindSwitch:
			if running[cpu] >= 0 && r.Time > since[cpu] {
				run.Slices = append(run.Slices, Slice{cpu, running[cpu], since[cpu], r.Time})
			}
			running[cpu], since[cpu] = int(r.Thread), r.Time
		case sim.KindExplain, sim.KindWakeup, sim.KindMigrate, sim.KindResched:
		default:
			continue
		}
		if len(run.Decisions) == MaxDecisions {
			run.Truncated = true
			continue
		}
		text := tr.Format(r)
		if r.Kind == sim.KindExplain && int(r.Other) < len(tr.Strings) {
			text = tr.Strings[r.Other]
		}
		c := cpu
		if r.CPU == sim.NoCPU {
			c = -1
		}
		run.Decisions = append(run.Decisions, Decision{r.Time, c, int(r.Thread), r.Kind.String(), text})
	}
	for cpu, tid := range running {
		if tid >= 0 && res.End > since[cpu] {
			run.Slices = append(run.Slices, Slice{cpu, tid, since[cpu], res.End})
		}
	}
	return run, nil
}
