// This file implements seed000-nice: a nice 0 and a nice 20 CPU hog on one CPU.

package scenario

import (
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

func init() { Register(seed000Nice()) }

func seed000Nice() *Scenario {
	seedULE := &Figure{Value: 50, Unit: "%", On: `seed 000's text: "running a nice 0 hog vs nice 20 hog gives them about 50:50" (FreeBSD 14 ULE, 2023)`}
	// Linux clamps nice 20 to 19; sched_prio_to_weight gives nice 0 1024 and nice 19 15.
	weights := &Figure{Value: 100 * 1024.0 / (1024 + 15), Unit: "%", Reference: true, On: "not a seed figure: CFS's weights, 1024/(1024+15) (sched_prio_to_weight, kernel/sched/core.c)"}
	row := func(label, policy string, pub *Figure) Row {
		return Row{Label: label, Policy: policy, Published: pub}
	}
	return &Scenario{
		Name:  "seed000-nice",
		Seed:  "000",
		Title: "a nice 0 and a nice 20 CPU hog on one CPU: the nice 0 hog's share",
		Description: `Seed 000 reports a second ULE bug it does not fix: "the calendar queue does not properly
distribute CPU time between different priorities, for example running a nice 0 hog vs nice 20 hog gives
them about 50:50". Two hogs share one CPU for the given time; the metric is the nice 0 hog's share of the
CPU. CFS and EEVDF divide by weight (nice 19 after Linux's clamp: 1024 against 15, 98.6 %).`,
		Params: []Param{
			{Name: "seconds", Doc: "simulated time", Unit: "s", Default: 60, Min: 1, Max: 3600},
			{Name: "nice", Doc: "the second hog's nice value", Default: 20, Min: 0, Max: 20, Integer: true},
		},
		Rows: []Row{
			row("ULE 2023 (legacy)", "ule:legacy", seedULE),
			row("ULE main", "ule:main", nil),
			row("4BSD", "bsd4:freebsd14", nil),
			row("CFS v6.5", "cfs:v6.5", weights),
			row("EEVDF v6.6", "cfs:v6.6", weights),
			row("EEVDF v7.1", "cfs:v7.1", weights),
		},
		Metrics: []Metric{{Name: "nice 0 share", Unit: "%", Of: func(r *sim.Result, _ *Setup) float64 {
			t, _ := r.Thread("nice0")
			return 100 * t.Share()
		}}},
		Build: func(v Values, _ *Row) (Setup, error) {
			hog := []workload.Op{workload.RunOp(workload.Unbounded())}
			w := &workload.Workload{Threads: []workload.Thread{
				{Name: "nice0", Ops: hog},
				{Name: "niced", Nice: int(v["nice"]), Ops: hog},
			}}
			return Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), StatHz: 127}, Workload: w,
				Until: time.Duration(v["seconds"] * float64(time.Second))}, nil
		},
		Absolute:  true,
		Notes:     niceNotes(),
		Seeded:    Values{"nice": 20},
		Claims:    []Claim{{Text: "a nice 0 and a nice 20 hog share about 50:50 (ULE 2023)", Row: "ULE 2023 (legacy)"}},
		Reps:      3,
		Small:     Values{"seconds": 10},
		SmallReps: 3,
		Expect: []Expectation{
			{Doc: "ULE 2023 splits about 50:50 (seed: about 50:50)", Row: "ULE 2023 (legacy)", Min: 40, Max: 65},
			{Doc: "CFS gives the nice 0 hog its weight's share (98.6 %)", Row: "CFS v6.5", Min: 95, Max: 100},
			{Doc: "EEVDF v7.1 too", Row: "EEVDF v7.1", Min: 95, Max: 100},
		},
	}
}

// niceNotes are seed000-nice's notes: the sources read for the split and what a trace of it
// shows.
func niceNotes() []string {
	return []string{
		"Sources read: sys/kern/sched_ule.c of FreeBSD 13-14 before the 2025 rework (OlCe2/freebsd-src @366ae94e). " +
			"sched_priority gives a thread that never sleeps (interactivity score over 30) the batch priority " +
			"SCHED_PRI_MIN + SCHED_PRI_TICKS (its %CPU over a 10 s window, scaled onto SCHED_PRI_RANGE, 48) + nice, so " +
			"nice 20 adds 20 of PRI_BATCH_RANGE's 88 priorities. tdq_runq_add queues a batch thread RQ_NQS x (pri - " +
			"PRI_MIN_BATCH) / PRI_BATCH_RANGE queues ahead of the insertion index tdq_idx of the 64-queue calendar " +
			"(tdq_timeshare); sched_clock moves tdq_idx on one queue a stat tick once tdq_ridx has caught up with it; " +
			"tdq_choose takes the first non-empty queue from tdq_ridx on. A worse priority therefore delays a thread's " +
			"turn by queues that pass at one a stat tick, and never skips it: 20 nice levels are about 14 queues, 14 " +
			"ticks at stathz 127, while tdq_slice gives each of two hogs sched_slice, 12 ticks. The model's ule " +
			"package implements these functions (TimesharePriority, LegacyCalendarIndex, LegacyAdvance, SliceFor).",
		"Traced (schedbench explain -policy ule:legacy -state -until 3s -from 2s -to 2.3s -only seed000-nice): the hogs sit at " +
			"priorities 181 and 198, 17 apart, 12 calendar queues, one slice; they take turns slice by slice, the nice 0 " +
			"hog now and then taking two in a row, which gives it 53.9 % of the CPU (the seed: \"about 50:50\"). Main's " +
			"calendar (109 queues, 7/4 of a queue a tick; mchoo7/freebsd-src @3521c70f) gives 52.9 %: the 2025 rework " +
			"did not change this. 4BSD orders by a priority that sinks with use (sched_4bsd.c resetpriority: " +
			"PUSER + estcpu / INVERSE_ESTCPU_WEIGHT + NICE_WEIGHT x (nice - PRIO_MIN)), and gives the nice 0 hog 93 %.",
	}
}
