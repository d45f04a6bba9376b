package main

// This file implements the upper bounds of the flags and scenario parameters that multiply a
// command's work, each checked before any work with an error naming it, so that no command line
// runs for days or until the machine's memory is gone.

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim/workload"
)

// The bounds. Each is far beyond what the seeds' experiments use, and each alone keeps a
// command within minutes on a laptop.
const (
	// maxReps bounds -reps of run, sweep, merge and seeds.
	maxReps = 10000
	// maxCells bounds the runs one command simulates: policies × -reps for run, grid points ×
	// rows × repetitions for sweep and merge, and their sum over the scenarios for seeds.
	maxCells = 100000
	// maxGridValues bounds the values of one -grid parameter; a value given twice is refused.
	maxGridValues = 1000
	// maxParallel bounds -parallel: each run at a time holds a machine in memory.
	maxParallel = 256
	// maxUntil bounds -until of run, explain and trace: a day of simulated time.
	maxUntil = 24 * time.Hour
	// maxInterrupts bounds the clock interrupts run simulates over all its runs, policies ×
	// -reps × -until × -hz × CPUs: at the tens of millions per second the simulator handles, a
	// few minutes of the clock alone.
	maxInterrupts = 1e10
	// maxStatWidth bounds stat -w, the width of ministat's plot.
	maxStatWidth = 10000
)

// checkWork checks, before any run, the work that the runs of s repeated reps times ask for:
// the number of runs, the clock interrupts they simulate, and the memory their threads need
// with parallel runs at a time (see estimateMemory) against the budget.
func checkWork(s *setup, reps, parallel int, budget int64) error {
	cells := len(s.policies) * reps
	if cells > maxCells {
		return usagef("%d policies × -reps %d = %d runs; at most %d", len(s.policies), reps, cells, maxCells)
	}
	ticks := float64(cells) * s.flags.until.Seconds() * float64(s.flags.hz) * float64(s.topo.NumCPUs())
	if ticks > maxInterrupts {
		return usagef("%d run(s) × -until %v × -hz %d × %d CPUs = %.3g clock interrupts to simulate; at most %.0e (fewer -reps, a shorter -until or a lower -hz)",
			cells, s.flags.until, s.flags.hz, s.topo.NumCPUs(), ticks, float64(maxInterrupts))
	}
	if need := estimateMemory(s.w, cells, parallel); budget > 0 && need > budget {
		n, _ := s.w.Started()
		return usagef("%s: %d threads × %d run(s) need about %s of memory; -max-memory is %s (fewer -reps or -parallel, or a larger -max-memory)",
			s.wname, n, cells, formatSize(need), formatSize(budget))
	}
	return nil
}

// Bytes per workload thread, as measured on runs of a million short threads under ULE and CFS
// with the collector held to the budget (one run peaked at 1.7 GB; two at a time passed 2 GiB):
// a machine's state of the thread while it runs (the simulator's thread, the policy's, the
// event queue's), a finished run's ThreadStats with its histograms, and the table's row. The
// simulator keeps every thread until the run ends, so the threads a run forks count as much as
// those it starts with: the estimates count both (workload.Workload.Started). Forks the script
// alone cannot count (inside a loop without end) are left out: the watchdog stops a run they
// take past the budget.
const (
	machineBytesPerThread = 700
	resultBytesPerThread  = 400
	tableBytesPerThread   = 300
)

// estimateMemory returns the memory cells runs of w need with parallel of them at a time: a
// machine per run in progress, every finished run's result until the table is printed, and the
// table.
func estimateMemory(w *workload.Workload, cells, parallel int) int64 {
	started, _ := w.Started()
	n := float64(started)
	v := n * (machineBytesPerThread*float64(max(1, min(parallel, cells))) + resultBytesPerThread*float64(cells) + tableBytesPerThread)
	return int64(min(v, math.MaxInt64/2))
}

// instances returns the threads w starts with: its declarations' counts, templates excluded.
func instances(w *workload.Workload) int {
	n := 0
	for i := range w.Threads {
		if !w.Threads[i].Template {
			n += w.Threads[i].Instances()
		}
	}
	return n
}

// checkPlanMemory checks, before any cell of pl runs, the memory the cells idx need with
// workers of them at a time (0: one per CPU) against the budget (0: none): the largest cell's
// threads (workload.Workload.Started, forks included) times what a machine and its result keep
// of each, once per cell at a time. A sweep keeps only each finished cell's metrics, so the
// cells at a time are what counts. Building a cell's workload is cheap (no run), and cells that
// differ only in their repetition share one.
func checkPlanMemory(pl *scenario.Plan, idx []int, workers int, budget int64) error {
	if budget <= 0 || len(idx) == 0 {
		return nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	at := float64(min(workers, len(idx)))
	built := map[[2]int]bool{}
	for _, i := range idx {
		c := &pl.Cells[i]
		if built[[2]int{c.Point, c.Row}] {
			continue
		}
		built[[2]int{c.Point, c.Row}] = true
		setup, err := pl.Scenario.Build(c.Values, &pl.Scenario.Rows[c.Row])
		if err != nil {
			return fmt.Errorf("%s: cell %d: %w", pl.Scenario.Name, i, err)
		}
		n, _ := setup.Workload.Started()
		need := float64(n) * (machineBytesPerThread + resultBytesPerThread) * at
		if need > float64(budget) {
			return usagef("%s: cell %d (%s) starts %d threads; %.0f cell(s) at a time need about %s of memory; -max-memory is %s (smaller parameters, fewer -parallel, or a larger -max-memory)",
				pl.Scenario.Name, i, describeValues(c.Values), n, at, formatSize(int64(min(need, math.MaxInt64/2))), formatSize(budget))
		}
	}
	return nil
}

// describeValues formats the parameter values of a cell in name order: "cpus=8 jobs=1e+06".
func describeValues(v scenario.Values) string {
	names := make([]string, 0, len(v))
	for k := range v {
		names = append(names, k)
	}
	slices.Sort(names)
	var b strings.Builder
	for i, k := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%g", k, v[k])
	}
	return b.String()
}

// checkPlanSize checks, before a plan is built, the cells the scenario s would have under o:
// each -grid parameter's values, and grid points × rows × repetitions.
func checkPlanSize(s *scenario.Scenario, o scenario.Options) error {
	reps := s.Reps
	if o.Small && s.SmallReps > 0 {
		reps = s.SmallReps
	}
	if o.Reps > 0 {
		reps = o.Reps
	}
	grid := o.Grid
	if grid == nil {
		grid = s.Sweep
	}
	cells := float64(len(s.Rows) * max(reps, 1))
	for name, vs := range grid {
		if len(vs) > maxGridValues {
			return usagef("-grid %s: %d values; at most %d", name, len(vs), maxGridValues)
		}
		cells *= float64(len(vs))
	}
	if cells > maxCells {
		return usagef("%s: %.0f cells (grid points × %d rows × %d repetitions); at most %d", s.Name, cells, len(s.Rows), reps, maxCells)
	}
	return nil
}

// formatSize formats a number of bytes with a binary unit: "512MiB", "1.5GiB".
func formatSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	v, i := float64(n), 0
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.4g%s", v, []string{"B", "KiB", "MiB", "GiB", "TiB"}[i])
}
