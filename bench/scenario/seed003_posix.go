// This file implements seed003-posix (the 32 POSIX real-time levels, served in order or not)
// and seed003-buildworld (a build on ULE legacy and main).

package scenario

import (
	"fmt"
	"sort"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

func init() {
	Register(seed003Posix())
	Register(seed003Buildworld())
}

func seed003Posix() *Scenario {
	on := "seed 003 (Olivier Certner, runq rework, 2025): the 64-queue run queue maps adjacent rtprio levels 4 to 1; main has 256 distinct queues"
	return &Scenario{
		Name:  "seed003-posix",
		Seed:  "003",
		Title: "the 32 POSIX real-time levels through rtprio 0..31: how many the run queue keeps apart",
		Description: `Seed 003 (the 2025 run-queue rework): with 64 queues, "adjacent priority levels (with different values
modulo 4) are mapped internally to the same queue", so of rtprio(2)'s 32 levels only 8 are distinct,
breaking POSIX's 32 for SCHED_FIFO/SCHED_RR; main's 256 queues keep all 32. On one CPU, a FIFO thread
at rtprio 0 runs for 5 ms; at 1 ms one FIFO thread per level is created, from 31 down to 0 (a newcomer of
equal or worse priority does not preempt it); then the CPU serves the queued threads, each running 1 ms. Threads of one
queue run in the order they were queued, so a conflated level shows as a less important thread served
first. The metrics: distinct levels (the levels served before every less important level) and
inversions (pairs served against priority order).`,
		Params: []Param{
			{Name: "levels", Doc: "rtprio levels used, 0..levels-1", Default: 32, Min: 2, Max: 32, Integer: true},
		},
		Rows: []Row{
			{Label: "ULE 2024 (legacy, 64 queues)", Policy: "ule:legacy", Published: &Figure{Value: 8, Exact: true, Unit: "levels", On: on}},
			{Label: "ULE main (256 queues)", Policy: "ule:main", Published: &Figure{Value: 32, Exact: true, Unit: "levels", On: on}},
			{Label: "4BSD 14 (64 queues)", Policy: "bsd4:freebsd14", Published: &Figure{Value: 8, Exact: true, Unit: "levels", On: on}},
			{Label: "4BSD main (256 queues)", Policy: "bsd4:main", Published: &Figure{Value: 32, Exact: true, Unit: "levels", On: on}},
		},
		Metrics: []Metric{
			{Name: "distinct levels", Unit: "levels", Of: func(r *sim.Result, s *Setup) float64 { d, _ := serviceOrder(r, s); return d }},
			{Name: "inversions", Unit: "pairs", Of: func(r *sim.Result, s *Setup) float64 { _, inv := serviceOrder(r, s); return inv }},
		},
		Build:    buildPosix,
		Absolute: true,
		Seeded:   Values{"levels": 32},
		Claims: []Claim{
			{Text: "64 queues keep 8 of rtprio's 32 levels apart (ULE 2024)", Row: "ULE 2024 (legacy, 64 queues)"},
			{Text: "… and 4BSD 14", Row: "4BSD 14 (64 queues)"},
			{Text: "256 queues keep all 32 (ULE main)", Row: "ULE main (256 queues)"},
		},
		Reps:      2,
		Small:     Values{},
		SmallReps: 2,
		Notes: []string{
			"The model's 4BSD 14 serves the four levels of a shared queue in creation order except the last created, which " +
				"comes third (3, 2, 0, 1 where ULE gives 3, 2, 1, 0); this was not checked against the kernel. It changes the " +
				"inversions, not the distinct levels.",
		},
		Expect: []Expectation{
			{Doc: "legacy ULE keeps 8 of the 32 levels apart", Row: "ULE 2024 (legacy, 64 queues)", Min: 8, Max: 8},
			{Doc: "main ULE keeps all 32", Row: "ULE main (256 queues)", Min: 32, Max: 32},
			{Doc: "4BSD on 64 queues conflates too", Row: "4BSD 14 (64 queues)", Min: 8, Max: 8},
		},
	}
}

// serviceOrder returns the distinct levels and the inversions of the service order (the levels
// sorted by the time their thread exited): a level is distinct when it was served before every
// less important level; an inversion is a pair served against priority order.
func serviceOrder(r *sim.Result, s *Setup) (float64, float64) {
	n := int(s.Values["levels"])
	type served struct{ level, end int64 }
	var order []served
	for i := range r.Threads {
		t := &r.Threads[i]
		var l int
		if _, err := fmt.Sscanf(t.Name, "rt%d", &l); err == nil && t.End >= 0 {
			order = append(order, served{int64(l), t.End})
		}
	}
	if len(order) != n {
		return 0, 0
	}
	sort.Slice(order, func(i, j int) bool { return order[i].end < order[j].end })
	pos := make([]int, n)
	for i, o := range order {
		pos[o.level] = i
	}
	distinct, inv := 0, 0
	for l := 0; l < n; l++ {
		ok := true
		for m := l + 1; m < n; m++ {
			ok = ok && pos[l] < pos[m]
		}
		if ok {
			distinct++
		}
	}
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			if order[i].level > order[j].level {
				inv++
			}
		}
	}
	return float64(distinct), float64(inv)
}

func buildPosix(v Values, _ *Row) (Setup, error) {
	n := int(v["levels"])
	ms := workload.Duration(time.Millisecond)
	w := &workload.Workload{Threads: []workload.Thread{{Name: "blocker", Class: sched.FIFO, RTPrio: 0, RTScale: sched.RTFreeBSD,
		Ops: []workload.Op{workload.RunOp(workload.Fixed(5 * ms))}}}}
	for l := n - 1; l >= 0; l-- {
		w.Threads = append(w.Threads, workload.Thread{Name: fmt.Sprintf("rt%d", l), Start: ms, Class: sched.FIFO, RTPrio: l,
			RTScale: sched.RTFreeBSD, Ops: []workload.Op{workload.RunOp(workload.Fixed(ms))}})
	}
	return Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), StatHz: 127}, Workload: w,
		Until: time.Duration(n+10) * time.Millisecond}, nil
}

func seed003Buildworld() *Scenario {
	cal := Compile()
	on := "seed 003: Ryzen 9 3900X (12 cores, 24 threads), 64 GB, buildworld, 23 and 21 runs (ministat)"
	s := seed000Buildkernel()
	return &Scenario{
		Name:  "seed003-buildworld",
		Seed:  "003",
		Title: "a parallel build on a 12-core SMT machine, ULE legacy vs main (seed 003's buildworld)",
		Description: `Seed 003 reports "preliminary benchmarking" of the run-queue rework on a Ryzen 9 3900X: buildworld
110.52 s (legacy, N=23) against 105.29 s (main, N=21), −4.74 % ± 0.33 %, and "close to 5%" for make -j8
buildkernel. The same build model as seed000-buildkernel (compile jobs calibrated from real gcc runs,
make's job slots forking them) runs on 12 cores × 2 SMT threads.`,
		Params: withoutChain(s.Params),
		Rows: []Row{
			{Label: "ULE legacy", Policy: "ule:legacy", Set: Values{"cpus": 24, "smt": 2, "j": 24}, Published: &Figure{Value: 110.52174, Spread: 0.59310931, SpreadKind: "stddev", Unit: "s", On: on}},
			{Label: "ULE main", Policy: "ule:main", Set: Values{"cpus": 24, "smt": 2, "j": 24}, Baseline: "ULE legacy", Published: &Figure{Value: 105.28571, Spread: 0.6436503, SpreadKind: "stddev", Unit: "s", On: on, Sig: SigShown}},
		},
		Metrics:   s.Metrics,
		Build:     buildKernel,
		Reps:      3,
		Small:     Values{"jobs": 240},
		SmallReps: 3,
		Expect: []Expectation{
			{Doc: "main builds within a few percent of legacy (seed: −4.7 %; direction only)", Row: "ULE main", Baseline: "ULE legacy", Min: 0.9, Max: 1.05},
		},
		Claims: []Claim{{Text: "buildworld, 256-queue ULE main against legacy: −4.7 %", Row: "ULE main",
			Why: "the model has only parallel compile jobs: no I/O, linker or serial phases"}},
		Notes: []string{
			"The seed's 4.7 % comes from a real buildworld (many short processes, I/O, the linker, serial phases); the model " +
				"has only parallel compile jobs, so it can show at most the part of the difference that is scheduling of " +
				"CPU-bound bursts, and the seed itself calls its figure preliminary.",
			fmt.Sprintf("Calibration: %s, %s.", cal.Dir, cal.GCC),
		},
	}
}
