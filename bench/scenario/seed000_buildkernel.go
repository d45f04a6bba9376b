// This file implements seed000-buildkernel: make -j N beside one CPU hog per CPU.

package scenario

import (
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

func init() { Register(seed000Buildkernel()) }

func seed000Buildkernel() *Scenario {
	cal := Compile()
	return &Scenario{
		Name:  "seed000-buildkernel",
		Seed:  "000",
		Title: "make -j N, alone and beside one CPU hog per CPU (seed 000's buildkernel)",
		Description: `Seed 000's first table: make -j 8 buildkernel on an 8-core VM, 4BSD 435.67 s, stock ULE 436.85 s
(+0.27 %), ULE with the patch 438.62 s (+0.68 %); and, in the text, the same build beside one CPU hog per
hardware thread going from ~7 minutes to over an hour under stock ULE, "even if the hogs are niced to 20".
A build is modelled as make's N job slots, each forking a compile job and waiting for it, jobs times in
all. A job's shape is calibrated from real compiles here (go run ./bench/scenario/calibrate -what compile,
data/compile-calibration.json): its CPU time, split into bursts between the voluntary switches a real
gcc makes per second of CPU, each followed by the measured time off CPU.`,
		Params: []Param{
			{Name: "cpus", Doc: "CPUs (the seed's VM: 8)", Default: 8, Min: 1, Max: 256, Integer: true},
			{Name: "smt", Doc: "hardware threads per core (CPUs = cores × smt)", Default: 1, Min: 1, Max: 8, Integer: true},
			{Name: "j", Doc: "make -j", Default: 8, Min: 1, Max: 1024, Integer: true},
			{Name: "jobs", Doc: "compile jobs in the build (not from the seed: a FreeBSD kernel has a few thousand sources)", Default: 2000, Min: 1, Max: 1e6, Integer: true},
			{Name: "job_ms", Doc: "CPU time of a job (calibrated)", Unit: "ms", Default: float64(cal.MeanCPUNs) / 1e6, Min: 0.01, Max: 1e5},
			{Name: "blocks_per_s", Doc: "times a job goes off CPU per second of its CPU time (calibrated)", Default: math.Round(cal.BlocksPerCPUSecond), Min: 0, Max: 1e5},
			{Name: "off_us", Doc: "time off CPU each time (calibrated; an upper bound measured under load)", Unit: "us", Default: float64(cal.OffCPUNsPerBlock) / 1e3, Min: 0, Max: 1e7},
			{Name: "hogs", Doc: "CPU hogs (one per CPU in the seed)", Default: 0, Min: 0, Max: 1024, Integer: true},
			{Name: "hog_nice", Doc: "the hogs' nice value", Default: 20, Min: 0, Max: 20, Integer: true},
			{Name: "hog_idle", Doc: "1: the hogs are SCHED_IDLE", Default: 0, Min: 0, Max: 1, Integer: true},
		},
		Rows: buildkernelRows(),
		Metrics: []Metric{{Name: "build time", Unit: "s", Of: func(r *sim.Result, _ *Setup) float64 {
			var end int64
			for i := range r.Threads {
				if t := &r.Threads[i]; t.Name != "" && t.Name[0] != 'h' {
					end = max(end, t.End)
				}
			}
			return float64(end) / 1e9
		}}},
		Build:     buildKernel,
		Reps:      9,
		Small:     Values{"jobs": 160},
		SmallReps: 3,
		Expect: []Expectation{
			{Doc: "stock ULE: nice 20 hogs make the build several times slower (seed: over 8.6×)", Row: "8 hogs nice 20/ULE 2023 (legacy)", Baseline: "-j 8, no hogs/ULE 2023 (legacy)", Min: 1.5, Max: 100},
			{Doc: "without hogs ULE and 4BSD build in about the same time (seed: +0.27 %)", Row: "-j 8, no hogs/ULE 2023 (legacy)", Baseline: "-j 8, no hogs/4BSD", Min: 0.9, Max: 1.1},
		},
		Seeded: Values{"cpus": 8, "j": 8, "smt": 1},
		Claims: []Claim{
			{Text: "make -j 8 beside 8 nice 20 hogs, stock ULE: 7 min → over 1 h", Row: "8 hogs nice 20/ULE 2023 (legacy)",
				Why: "a woken make preempts the hogs, long jobs outrun them; the per-object processes are not modelled"},
			{Text: "buildkernel without hogs: stock ULE 0.27 % slower than 4BSD", Row: "-j 8, no hogs/ULE 2023 (legacy)",
				Why: "without hogs no job ever waits for a CPU in the model, so every policy builds in the same time"},
			{Text: "… the patch 0.68 % slower than 4BSD", Row: "-j 8, no hogs/ULE 2023 + patch",
				Why: "as above: the patch changes only who waits, and nothing waits"},
		},
		Notes: []string{
			"jobs is an assumption (the seed does not count its compile jobs); the calibrated jobs are gcc runs on small C files, " +
				"shorter than a kernel's, so our build takes seconds where the seed's took minutes: compare ratios, not seconds.",
			"make itself, the linker and buildkernel's serial phases are not modelled: the whole build is parallel compile jobs.",
			"The seed's over-8.6× comes out as about 2.6× under stock ULE, and the patch (ule:seed000) does not help in the model; " +
				"the seed gives no figure for the patched kernel with hogs, nor for 4BSD with hogs, where the model's large slow-down " +
				"has nothing to be checked against and was not investigated.",
			"Mechanisms checked and not enough (issue 25): one make process woken by every child's exit, as bmake's job loop " +
				"(usr.bin/bmake job.c: the SIGCHLD handler writes a self-pipe make polls) starts and reaps every job, instead " +
				"of eight independent slots: stock ULE 2.60× → 2.68× with 0.5 ms of make per job; a woken make is interactive " +
				"and, placed on another CPU than its waker's, preempts a batch hog there (sys/kern/sched_ule.c " +
				"sched_shouldpreempt: remote, pri <= PRI_MAX_INTERACT, cpri > PRI_MAX_INTERACT), so it hardly waits. Longer " +
				"compile jobs, as a kernel's files are (the seed's 7 minutes × 8 CPUs over a few thousand objects is about " +
				"0.5 s each, not the calibrated 32 ms), make the model's slow-down smaller, not larger (1.35× at 250 ms, 1.18× " +
				"at 1 s): a long job turns batch and out-competes a nice 20 hog between its sleeps. Not modelled and the next " +
				"candidates: the short processes around each object (sh, ctfconvert, the assembler and linker steps), each a " +
				"fork whose child must first get a CPU behind a hog.",
			fmt.Sprintf("Calibration: %s, %s, %s.", cal.Dir, cal.GCC, cal.Kernel),
		},
	}
}

// buildkernelRows are seed000-buildkernel's rows: each policy building alone, then beside one
// hog per CPU at nice 20 (19 for Linux) and at nice 0, with the seed's figures where it printed
// them.
func buildkernelRows() []Row {
	vm := "seed 000: FreeBSD 14 (2023), 8-core VM, make -j 8 buildkernel, 9 runs each (ministat)"
	hogs := "seed 000: 8-core VM, one CPU hog per hardware thread, \"~7 minute total real time is extended to over 1h(!), even if the hogs are niced to 20\" (ratio 60/7, a lower bound)"
	row := func(label, column, policy string, nhog, nice float64, idle bool, base string, pub *Figure) Row {
		set := Values{"hogs": nhog, "hog_nice": nice}
		if idle {
			set["hog_idle"] = 1
		}
		return Row{Label: label, Column: column, Policy: policy, Set: set, Baseline: base, Published: pub}
	}
	return []Row{
		row("4BSD", "-j 8, no hogs", "bsd4:freebsd14", 0, 0, false, "", &Figure{Value: 435.66667, Spread: 0.73333144, SpreadKind: "stddev", Unit: "s", On: vm}),
		row("ULE 2023 (legacy)", "-j 8, no hogs", "ule:legacy", 0, 0, false, "-j 8, no hogs/4BSD", &Figure{Value: 436.85111, Spread: 0.68641176, SpreadKind: "stddev", Unit: "s", On: vm, Sig: SigShown}),
		row("ULE 2023 + patch", "-j 8, no hogs", "ule:seed000", 0, 0, false, "-j 8, no hogs/4BSD", &Figure{Value: 438.61889, Spread: 0.30608187, SpreadKind: "stddev", Unit: "s", On: vm, Sig: SigShown}),
		row("ULE main", "-j 8, no hogs", "ule:main", 0, 0, false, "-j 8, no hogs/4BSD", nil),
		row("CFS v6.5", "-j 8, no hogs", "cfs:v6.5", 0, 0, false, "-j 8, no hogs/4BSD", nil),
		row("EEVDF v7.1", "-j 8, no hogs", "cfs:v7.1", 0, 0, false, "-j 8, no hogs/4BSD", nil),
		row("ULE 2023 (legacy)", "8 hogs nice 20", "ule:legacy", 8, 20, false, "-j 8, no hogs/ULE 2023 (legacy)", &Figure{Value: 60.0 / 7, Ratio: true, AtLeast: true, Unit: "×", On: hogs}),
		row("ULE 2023 + patch", "8 hogs nice 20", "ule:seed000", 8, 20, false, "-j 8, no hogs/ULE 2023 + patch", nil),
		row("ULE main", "8 hogs nice 20", "ule:main", 8, 20, false, "-j 8, no hogs/ULE main", nil),
		row("4BSD", "8 hogs nice 20", "bsd4:freebsd14", 8, 20, false, "-j 8, no hogs/4BSD", nil),
		row("CFS v6.5 nice 19", "8 hogs nice 20", "cfs:v6.5", 8, 19, false, "-j 8, no hogs/CFS v6.5", nil),
		row("EEVDF v7.1 nice 19", "8 hogs nice 20", "cfs:v7.1", 8, 19, false, "-j 8, no hogs/EEVDF v7.1", nil),
		row("ULE 2023 (legacy)", "8 hogs nice 0", "ule:legacy", 8, 0, false, "-j 8, no hogs/ULE 2023 (legacy)", nil),
		row("ULE 2023 + patch", "8 hogs nice 0", "ule:seed000", 8, 0, false, "-j 8, no hogs/ULE 2023 + patch", nil),
		row("4BSD", "8 hogs nice 0", "bsd4:freebsd14", 8, 0, false, "-j 8, no hogs/4BSD", nil),
		row("EEVDF v7.1", "8 hogs nice 0", "cfs:v7.1", 8, 0, false, "-j 8, no hogs/EEVDF v7.1", nil),
	}
}

func buildKernel(v Values, _ *Row) (Setup, error) {
	cpus, j, jobs, smt := int(v["cpus"]), int(v["j"]), int(v["jobs"]), int(v["smt"])
	if cpus%smt != 0 {
		return Setup{}, fmt.Errorf("cpus %d is not a multiple of smt %d", cpus, smt)
	}
	job := v["job_ms"] * 1e6
	k := max(1, int(math.Round(v["blocks_per_s"]*job/1e9)))
	burst := workload.Fixed(workload.Duration(job / float64(k)))
	off := workload.Fixed(workload.Duration(v["off_us"] * 1e3))
	body := []workload.Op{workload.RunOp(burst)}
	if v["off_us"] > 0 && v["blocks_per_s"] > 0 {
		body = append(body, workload.SleepOp(off))
	}
	w := &workload.Workload{Threads: []workload.Thread{{Name: "cc", Template: true, Ops: []workload.Op{workload.RepeatOp(k, body...)}}}}
	for s := 0; s < j; s++ {
		n := jobs / j
		if s < jobs%j {
			n++
		}
		if n == 0 {
			continue
		}
		w.Threads = append(w.Threads, workload.Thread{Name: fmt.Sprintf("make%d", s), Ops: []workload.Op{
			workload.RepeatOp(n, workload.ForkOp("cc", 1), workload.Op{Kind: workload.Join})}})
	}
	stop := make([]string, 0, j)
	for _, t := range w.Threads[1:] {
		stop = append(stop, t.Name)
	}
	for h := 0; h < int(v["hogs"]); h++ {
		hog := workload.Thread{Name: fmt.Sprintf("hog%d", h), CPUs: topology.CPUSetOf(topology.CPU(h % cpus)), Nice: int(v["hog_nice"]),
			Ops: []workload.Op{workload.RunOp(workload.Unbounded())}}
		if v["hog_idle"] == 1 {
			hog.Class = sched.Idle
		}
		w.Threads = append(w.Threads, hog)
	}
	ideal := float64(jobs) * (job + float64(k)*v["off_us"]*1e3) / float64(min(j, cpus))
	return Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, cpus/smt, smt), StatHz: 127}, Workload: w,
		Until: time.Duration(ideal*200) + 10*time.Second, StopWhenExited: stop}, nil
}
