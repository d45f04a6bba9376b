// This file implements seed000-buildkernel: make -j N beside one CPU hog per CPU.

package scenario

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

func init() { Register(seed000Buildkernel()) }

func seed000Buildkernel() *Scenario {
	cal, ch := Compile(), Chain()
	job := float64(cal.MeanCPUNs) / 1e6
	return &Scenario{
		Name:  "seed000-buildkernel",
		Seed:  "000",
		Title: "make -j N, alone and beside one CPU hog per CPU (seed 000's buildkernel)",
		Description: `Seed 000's first table: make -j 8 buildkernel on an 8-core VM, 4BSD 435.67 s, stock ULE 436.85 s
(+0.27 %), ULE with the patch 438.62 s (+0.68 %); and, in the text, the same build beside one CPU hog per
hardware thread going from ~7 minutes to over an hour under stock ULE, "even if the hogs are niced to 20".
A build is one make process keeping j jobs running, as bmake does, jobs objects in all; each object is the
process chain the kernel's Makefile runs for it: a job shell (sh), which make starts with vfork and sleeps
until it has exec'd, that forks the compiler, waits, forks ctfconvert, waits and exits. CPU times are calibrated from real programs here (go run
./bench/scenario/calibrate -what compile and -what chain, data/compile-calibration.json and
data/chain-calibration.json); chain=0 one_make=0 is the earlier model (one process per job, the whole gcc
tree, its voluntary switches as sleeps, in j independent slots). Beside the kernel's make, modules
module makes (sys/modules, SUBDIR_PARALLEL) run each module's kmod.mk steps in a row, sharing the -j token
pipe with the kernel's make (modules=0: the kernel's objects alone).`,

		Params: slices.Concat([]Param{
			{Name: "cpus", Doc: "CPUs (the seed's VM: 8)", Default: 8, Min: 1, Max: 256, Integer: true},
			{Name: "smt", Doc: "hardware threads per core (CPUs = cores × smt)", Default: 1, Min: 1, Max: 8, Integer: true},
			{Name: "j", Doc: "make -j", Default: 8, Min: 1, Max: 1024, Integer: true},
			{Name: "jobs", Doc: "compile jobs in the build (not from the seed: a FreeBSD kernel has a few thousand sources)", Default: 2000, Min: 1, Max: 1e6, Integer: true},
			{Name: "job_ms", Doc: "CPU time of a job (calibrated)", Unit: "ms", Default: job, Min: 0.01, Max: 1e5},
			{Name: "blocks_per_s", Doc: "times a job goes off CPU per second of its CPU time (calibrated)", Default: math.Round(cal.BlocksPerCPUSecond), Min: 0, Max: 1e5},
			{Name: "off_us", Doc: "time off CPU each time (calibrated; an upper bound measured under load)", Unit: "us", Default: float64(cal.OffCPUNsPerBlock) / 1e3, Min: 0, Max: 1e7},
			{Name: "chain", Doc: "1: each object is the processes bmake's job shell runs (sh, the compiler, ctfconvert); 0: one process per job, the whole gcc tree", Default: 1, Min: 0, Max: 1, Integer: true},
			{Name: "cc_blocks_per_s", Doc: "times the compiler process goes off CPU per second of its CPU (chain; calibrated on cc1 alone)", Default: math.Round(ch.CC1BlocksPerCPUSecond), Min: 0, Max: 1e5},
			{Name: "cc_off_us", Doc: "the compiler process's time off CPU each time (chain; calibrated on cc1 alone)", Unit: "us", Default: float64(ch.CC1OffCPUNsPerBlock) / 1e3, Min: 0, Max: 1e7},
			{Name: "sh_ms", Doc: "the job shell's own CPU per object (chain; calibrated: dash reading two commands)", Unit: "ms", Default: roundUs(job * ch.ShellPerCompile), Min: 0, Max: 1e4},
			{Name: "ctf_ms", Doc: "ctfconvert's CPU per object (chain; not known: a program's start and exit, a lower bound)", Unit: "ms", Default: roundUs(job * ch.TruePerCompile), Min: 0, Max: 1e4},
			{Name: "one_make", Doc: "1: one make process keeps the j jobs running, as bmake does; 0: j independent make slots", Default: 1, Min: 0, Max: 1, Integer: true},
			{Name: "make_ms", Doc: "make's own CPU per job (one_make; calibrated on GNU make -j 8)", Unit: "ms", Default: roundUs(job * ch.MakePerCompile), Min: 0, Max: 1e4},
			{Name: "echo", Doc: "1: the job shell echoes each command into make's output pipe before it runs it, waking make (one_make; bmake's sh template)", Default: 1, Min: 0, Max: 1, Integer: true},
			{Name: "out_us", Doc: "make's CPU each time its poll returns for a job's output: read the pipe, write the line (echo; not known: swept)", Unit: "us", Default: 10, Min: 0, Max: 1e5},
			{Name: "vfork", Doc: "1: make starts each job shell with vfork(2) and sleeps until the shell has exec'd (one_make; bmake's JobExec, the kernel's fork_rfppwait); 0: make goes on at once", Default: 1, Min: 0, Max: 1, Integer: true},
			{Name: "submakes", Doc: "makes sharing the -j token pipe, each keeping its share of the j jobs and of the objects (one_make, echo; sys/conf/kern.post.mk builds kernel-all and modules-all side by side: at least 2; how many modules' makes run at once is not known: swept)", Default: 1, Min: 1, Max: 1024, Integer: true},
		}, moduleParams(roundUs(job*ch.TruePerCompile)), []Param{
			{Name: "hogs", Doc: "CPU hogs (one per CPU in the seed)", Default: 0, Min: 0, Max: 1024, Integer: true},
			{Name: "hog_nice", Doc: "the hogs' nice value", Default: 20, Min: 0, Max: 20, Integer: true},
			{Name: "hog_idle", Doc: "1: the hogs are SCHED_IDLE", Default: 0, Min: 0, Max: 1, Integer: true},
		}),
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
		Build: buildKernel,
		// A job's CPU is not given by the seed, and with make's vfork waits the ratio beside the
		// hogs depends on it: the calibrated gcc run on a small file, and about a kernel object's
		// (7 minutes × 8 CPUs over a few thousand objects).
		Sweep:     map[string][]float64{"job_ms": {job, 500}},
		Reps:      9,
		Small:     Values{"jobs": 160, "modules": 10},
		SmallReps: 3,
		Expect: []Expectation{
			{Doc: "stock ULE: nice 20 hogs make the build several times slower (seed: over 8.6×)", Row: "8 hogs nice 20/ULE 2023 (legacy)", Baseline: "-j 8, no hogs/ULE 2023 (legacy)", Min: 1.5, Max: 100},
			{Doc: "without hogs ULE and 4BSD build in about the same time (seed: +0.27 %)", Row: "-j 8, no hogs/ULE 2023 (legacy)", Baseline: "-j 8, no hogs/4BSD", Min: 0.9, Max: 1.1},
		},
		Seeded: Values{"cpus": 8, "j": 8, "smt": 1},
		Claims: []Claim{
			{Text: "make -j 8 beside 8 nice 20 hogs, stock ULE: 7 min → over 1 h", Row: "8 hogs nice 20/ULE 2023 (legacy)",
				Why: "job starts in a row through makes' vfork waits: 9.7× at 32 ms jobs; 1.5-1.7× at 500, modules or not"},
			{Text: "buildkernel without hogs: stock ULE 0.27 % slower than 4BSD", Row: "-j 8, no hogs/ULE 2023 (legacy)",
				Why: "from the profile's costs on the chain's wake-ups; without costs all policies build in the same time"},
			{Text: "… the patch 0.68 % slower than 4BSD", Row: "-j 8, no hogs/ULE 2023 + patch",
				Why: "the patch only changes who waits first; without hogs few wait: patched builds as stock does"},
		},
		Notes: append(slices.Concat(buildkernelNotes(), buildkernelMakeNotes(), buildkernelVforkNotes(), buildkernelModulesNotes()),
			fmt.Sprintf("Calibration: %s, %s, %s; the chain: %s, %s, %s, %s.", cal.Dir, cal.GCC, cal.Kernel, ch.GCC, ch.Shell, ch.Make, ch.Kernel)),
	}
}

// chainParams are the parameters of the per-object process chain and of bmake's single make
// process. seed002-idle reuses the build model without them (withoutChain).
var chainParams = map[string]bool{"chain": true, "cc_blocks_per_s": true, "cc_off_us": true, "sh_ms": true,
	"ctf_ms": true, "one_make": true, "make_ms": true, "echo": true, "out_us": true, "submakes": true, "vfork": true,
	"modules": true, "mod_lanes": true, "mod_objs": true, "mod_hdrs": true, "step_ms": true}

// withoutChain returns params without chainParams.
func withoutChain(params []Param) []Param {
	var out []Param
	for _, p := range params {
		if !chainParams[p.Name] {
			out = append(out, p)
		}
	}
	return out
}

// roundUs rounds a time in milliseconds to whole microseconds.
func roundUs(ms float64) float64 { return math.Round(ms*1e3) / 1e3 }

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
	if n := int(v["submakes"]); n > 1 && (v["one_make"] != 1 || v["echo"] != 1 || n > j) {
		return Setup{}, fmt.Errorf("submakes %d needs one_make 1, echo 1 and at most j (%d) makes", n, j)
	}
	if err := checkModules(v); err != nil {
		return Setup{}, err
	}
	w, first, per := jobTemplates(v)
	w.Threads = append(w.Threads, makeThreads(v, first, w)...)
	if v["modules"] > 0 {
		w.Threads = append(w.Threads, moduleThreads(v, w)...)
	}
	stop := make([]string, 0, j)
	for _, t := range w.Threads {
		if !t.Template {
			stop = append(stop, t.Name)
		}
	}
	for h := 0; h < int(v["hogs"]); h++ {
		hog := workload.Thread{Name: fmt.Sprintf("hog%d", h), CPUs: topology.CPUSetOf(topology.CPU(h % cpus)), Nice: int(v["hog_nice"]),
			Ops: []workload.Op{workload.RunOp(workload.Unbounded())}}
		if v["hog_idle"] == 1 {
			hog.Class = sched.Idle
		}
		w.Threads = append(w.Threads, hog)
	}
	ideal := float64(jobs) * per / float64(min(j, cpus))
	if m := v["modules"]; m > 0 {
		ideal += m * (float64(moduleStarts(v))*v["sh_ms"]*1e6 + (v["mod_objs"]+1)*per) / v["mod_lanes"]
	}
	return Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, cpus/smt, smt), StatHz: 127}, Workload: w,
		Until: time.Duration(ideal*200) + 10*time.Second, StopWhenExited: stop}, nil
}

// compileOps are the ops of a compiler process: job_ms of CPU in bursts, blocksPerS times per
// second of CPU off CPU for offUs microseconds. It returns them with the time they take alone.
func compileOps(v Values, blocksPerS, offUs float64) ([]workload.Op, float64) {
	job := v["job_ms"] * 1e6
	k := max(1, int(math.Round(blocksPerS*job/1e9)))
	body := []workload.Op{workload.RunOp(workload.Fixed(workload.Duration(job / float64(k))))}
	alone := job
	if offUs > 0 && blocksPerS > 0 {
		body = append(body, workload.SleepOp(workload.Fixed(workload.Duration(offUs*1e3))))
		alone += float64(k) * offUs * 1e3
	}
	return []workload.Op{workload.RepeatOp(k, body...)}, alone
}

// jobTemplates returns a workload holding the templates of one compile job, the template make
// forks, and the time a job takes alone. With chain 0 a job is one process, the calibrated gcc
// tree (its voluntary switches, those of the driver waiting for cc1 and as included, are
// sleeps); with chain 1 it is the process chain bmake's job shell runs for a kernel object
// (sys/conf/kern.pre.mk NORMAL_C then NORMAL_CTFCONVERT, the two commands usr.sbin/config
// writes per object): sh runs, forks the compiler and waits, runs, forks ctfconvert and waits,
// and exits. FreeBSD's clang runs cc1 and the assembler in its own process
// (lib/clang/include/clang/Config/config.h: CLANG_SPAWN_CC1 0), so the compiler blocks only as
// often as a compiler proper (cc_blocks_per_s, gcc's cc1 measured alone).
func jobTemplates(v Values) (*workload.Workload, string, float64) {
	// With one make and echo, the job shell echoes each command into make's output pipe before
	// it runs it (bmake's sh template echo "%s").
	var echo []workload.Op
	if v["one_make"] == 1 && v["echo"] == 1 {
		echo = []workload.Op{workload.SendOp("make", 1)}
	}
	if v["chain"] == 0 {
		ops, alone := compileOps(v, v["blocks_per_s"], v["off_us"])
		ops = append(echo, ops...)
		return &workload.Workload{Threads: []workload.Thread{{Name: "cc", Template: true, Ops: ops}}}, "cc", alone
	}
	ops, alone := compileOps(v, v["cc_blocks_per_s"], v["cc_off_us"])
	sh := workload.Fixed(workload.Duration(max(1, v["sh_ms"]*1e6/2)))
	ctf := workload.Fixed(workload.Duration(max(1, v["ctf_ms"]*1e6)))
	join := workload.Op{Kind: workload.Join}
	return &workload.Workload{Threads: []workload.Thread{
		{Name: "sh", Template: true, Ops: slices.Concat([]workload.Op{workload.RunOp(sh)}, echo,
			[]workload.Op{workload.ForkOp("cc", 1), join, workload.RunOp(sh)}, echo,
			[]workload.Op{workload.ForkOp("ctfconvert", 1), join})},
		{Name: "cc", Template: true, Ops: ops},
		{Name: "ctfconvert", Template: true, Ops: []workload.Op{workload.RunOp(ctf)}},
	}}, "sh", alone + v["sh_ms"]*1e6 + v["ctf_ms"]*1e6
}

// makeThreads returns the make threads that fork the jobs of template first. With one_make 0
// they are j independent slots, each forking a job and waiting for it; with one_make 1 one make
// process keeps j jobs running, as bmake's job loop does (usr.bin/bmake job.c: Job_CatchChildren
// reaps each exited job, woken by SIGCHLD through its self-pipe, and JobStart forks the next):
// each job's last act sends a message on the pipe "reaped" (the child's exit, from its CPU), and
// make runs make_ms per job before it forks the next. Templates of w get the message added.
//
// With echo 1 make also wakes for its jobs' output (Job_CatchOutput polls each job's output
// pipe with the SIGCHLD self-pipe): every message on the pipe "make" is one return of that poll
// (a command's echo, or SIGCHLD after the "reaped" message), and make runs out_us for it; make
// reaps a job when "reaped" holds one, after the poll that brought it.
func makeThreads(v Values, first string, w *workload.Workload) []workload.Thread {
	j, jobs := int(v["j"]), int(v["jobs"])
	join := workload.Op{Kind: workload.Join}
	if v["one_make"] == 0 {
		var out []workload.Thread
		for s := 0; s < j; s++ {
			n := jobs / j
			if s < jobs%j {
				n++
			}
			if n > 0 {
				out = append(out, workload.Thread{Name: fmt.Sprintf("make%d", s), Ops: []workload.Op{
					workload.RepeatOp(n, workload.ForkOp(first, 1), join)}})
			}
		}
		return out
	}
	n := max(1, int(v["submakes"]))
	if n == 1 {
		if v["modules"] > 0 {
			return []workload.Thread{tokenMake(v, w, first, j, jobs)}
		}
		return []workload.Thread{oneMake(v, w, first, "", nil, j, jobs)}
	}
	// Several makes: make i forks its own copy of the job's templates, whose pipes are its own.
	var tmpl workload.Thread
	for i := range w.Threads {
		if w.Threads[i].Name == first {
			tmpl = w.Threads[i]
			w.Threads = slices.Delete(w.Threads, i, i+1)
			break
		}
	}
	var out []workload.Thread
	for i := range n {
		suffix := strconv.Itoa(i)
		t := tmpl
		t.Name = first + suffix
		t.Ops = slices.Clone(tmpl.Ops)
		for k := range t.Ops {
			if t.Ops[k].Kind == workload.Send && t.Ops[k].Name == "make" {
				t.Ops[k].Name = "make" + suffix
			}
		}
		w.Threads = append(w.Threads, t)
		var others []string
		for k := range n {
			if k != i {
				others = append(others, "make"+strconv.Itoa(k))
			}
		}
		out = append(out, oneMake(v, w, t.Name, suffix, others, share(j, n, i), share(jobs, n, i)))
	}
	return out
}

// share returns the part of total that the i-th of n gets when it is split as evenly as it can
// be, the first total%n getting one more.
func share(total, n, i int) int {
	if i < total%n {
		return total/n + 1
	}
	return total / n
}

// oneMake returns a bmake process (named make+suffix, its pipes reaped+suffix and make+suffix,
// added to w) that keeps j jobs of template first running until it has forked jobs of them;
// the template's last ops become the job's exit messages (see makeThreads). With others (the
// poll pipes of the other makes sharing the -j token pipe), every job it reaps while others
// still run writes the job's token back (Job_TokenReturn), which wakes every make polling the
// token pipe: one message into each of others; make then takes the token back itself before
// they run (MakeStartJobs after Job_CatchChildren), so each keeps its j jobs.
func oneMake(v Values, w *workload.Workload, first, suffix string, others []string, j, jobs int) workload.Thread {
	start, reap, last := makePipes(v, w, first, suffix, others, j)
	ops := append(makeLoop(j, jobs, start, reap, last), workload.Op{Kind: workload.Join})
	return workload.Thread{Name: "make" + suffix, Ops: ops}
}

// makePipes adds to w the pipes by which make+suffix hears of its jobs (see makeThreads and
// oneMake), and to template first the messages its exit sends on them. It returns the ops by
// which make starts one job (make_ms of its own CPU, then the fork, and with vfork 1 the wait
// for the child's exec, see vforkOps), those by which it reaps one job, and, with others, those
// by which it reaps its last, which return no token (nil without others: every reap is alike).
func makePipes(v Values, w *workload.Workload, first, suffix string, others []string, j int) (start, reap, last []workload.Op) {
	reaped, poll := "reaped"+suffix, "make"+suffix
	w.Pipes = append(w.Pipes, workload.Pipe{Name: reaped})
	exit := []workload.Op{workload.SendOp(reaped, 1)}
	reap = []workload.Op{workload.RecvOp(reaped, 1)}
	if v["echo"] == 1 {
		w.Pipes = append(w.Pipes, workload.Pipe{Name: poll})
		exit = append(exit, workload.SendOp(poll, 1))
		out := workload.RunOp(workload.Fixed(workload.Duration(max(1, v["out_us"]*1e3))))
		reap = []workload.Op{workload.UntilOp(reaped, 1, workload.RecvOp(poll, 1), out)}
	}
	if len(others) > 0 {
		last = reap // the last job reaped returns the make's own token, which wakes no one
		if j > 1 {
			reap = slices.Clone(reap)
			for _, o := range others {
				reap = append(reap, workload.SendOp(o, 1))
			}
		}
	}
	for i := range w.Threads {
		if w.Threads[i].Name == first {
			w.Threads[i].Ops = append(w.Threads[i].Ops, exit...)
		}
	}
	mk := workload.RunOp(workload.Fixed(workload.Duration(max(1, v["make_ms"]*1e6))))
	return append([]workload.Op{mk}, vforkOps(v, w, first, suffix)...), reap, last
}

// vforkOps returns the ops by which make+suffix forks one job of template first. With vfork 1
// they are bmake's: JobExec starts the job shell with vfork(2) ("Parent, continuing after the
// child exec"; FORK_FUNCTION is vfork in make.h), so the kernel's do_fork marks the child
// P_PPWAIT and the parent sleeps in fork_rfppwait (sys/kern/kern_fork.c) until the child's
// execve clears the flag and broadcasts p_pwait (do_execve, sys/kern/kern_exec.c): make forks,
// then sleeps on the pipe "exec"+suffix, into which the template's first op writes when the
// child first runs (the exec's own CPU is left out). With vfork 0 make goes on at once.
func vforkOps(v Values, w *workload.Workload, first, suffix string) []workload.Op {
	fork := workload.ForkOp(first, 1)
	if v["vfork"] != 1 {
		return []workload.Op{fork}
	}
	exec := "exec" + suffix
	w.Pipes = append(w.Pipes, workload.Pipe{Name: exec})
	for i := range w.Threads {
		if w.Threads[i].Name == first {
			w.Threads[i].Ops = append([]workload.Op{workload.SendOp(exec, 1)}, w.Threads[i].Ops...)
		}
	}
	return []workload.Op{fork, workload.RecvOp(exec, 1)}
}

// makeLoop returns the ops by which one make process builds n objects, keeping min(j, n) of them
// running: it starts that many, then reaps one and starts the next until all are started, then
// reaps the rest, the last of them through last if it is not nil (bmake's job loop, see
// makeThreads). start are the ops that start one job and reap those that reap one (makePipes).
func makeLoop(j, n int, start, reap, last []workload.Op) []workload.Op {
	first := min(j, n)
	ops := []workload.Op{workload.RepeatOp(first, start...)}
	if n > first {
		ops = append(ops, workload.RepeatOp(n-first, slices.Concat(reap, start)...))
	}
	if last == nil {
		return append(ops, workload.RepeatOp(first, reap...))
	}
	if first > 1 {
		ops = append(ops, workload.RepeatOp(first-1, reap...))
	}
	return append(ops, last...)
}

// buildkernelNotes are seed000-buildkernel's notes: what the model leaves out, the sources read
// for its mechanisms, and what they gave.
func buildkernelNotes() []string {
	return []string{
		"jobs is an assumption (the seed does not count its objects); the calibrated jobs are gcc runs on small C files, " +
			"shorter than a kernel's, so our build takes seconds where the seed's took minutes: compare ratios, not seconds; but with make's vfork " +
			"waits (vfork 1) the ratio depends on the jobs' length (see the last notes).",
		"Not modelled: the linker and buildkernel's serial phases and any I/O; the modules' makes and the -j token " +
			"pipe they share with the kernel's are modelled since 2026-12-07 (modules, the last notes).",
		"Sources read for the process chain (FreeBSD 14, 2023): usr.sbin/config mkmakefile.c do_rules writes two commands " +
			"per kernel object, ${NORMAL_C} and ${NORMAL_CTFCONVERT} (sys/conf/kern.pre.mk: ${CC} -c … and ${CTFCONVERT} " +
			"${CTFFLAGS} ${.TARGET} when MK_CTF is on); usr.bin/bmake job.c JobExec runs one shell per target (sh -e, the " +
			"commands on its standard input), which forks each command, and Job_CatchChildren reaps each job when SIGCHLD " +
			"wakes make; lib/clang's config.h sets CLANG_SPAWN_CC1 0, so clang compiles and assembles in one process, " +
			"calibrated as gcc's cc1 alone (13 voluntary switches per CPU second, against 255 for the whole gcc tree, whose " +
			"switches are mostly the driver waiting for cc1 and as).",
		"Sources read for the scheduler (sys/kern/sched_ule.c, 2023): sched_fork / sched_fork_thread give the child its " +
			"parent's ts_runtime, ts_slptime and %CPU ticks, sched_interact_fork scales their sum down to SCHED_SLP_RUN_FORK, " +
			"the child starts with ts_slice = tdq_slice − sched_slice_min, the parent is charged a tickincr; sched_exit_thread " +
			"adds the child's ts_runtime (not its sleep) to the parent's. So make and sh turn batch (interactivity score " +
			"about 50, user priority in the 150s in the model) and every child is born batch: a batch thread placed behind " +
			"a running hog waits for its slice unless the wake-up is local (sched_add: sched_setpreempt sets NEEDRESCHED when " +
			"pri < cpri) or sched_shouldpreempt allows it remotely (pri <= preempt_thresh 48, or interactive over batch). " +
			"The model's ule package does all of this (Thread.Fork, InteractFork, ExitChild); it was checked, not changed. " +
			"sched_fork_thread does not set ts_rltick: a child holds what its recycled struct thread last held, long past on " +
			"a machine up for a while, so sched_pickcpu never finds it cache-affine; ULE's ticks now start at a machine up " +
			"600 s (ule.UptimeSeconds) instead of at 1. Traced (the first placement of each thread over 2 s, legacy and " +
			"the patch, 0 and 8 hogs): with ticks from 1 only make itself, forked at time 0, was placed as cache-affine " +
			"(on its CPU, cpu0, where the global search now puts it too); its children come after the first 2 ticks. " +
			"The placements after it change through the random tie-breaks, and the rows do not move.",
		"What the chain gives, before make's echo wake-ups (echo 0; stock ULE, nice 20 hogs, 3 runs a point): chain 0 / one_make 0 (the earlier model) " +
			"2.61×, chain 0 / one_make 1 2.60×, chain 1 / one_make 0 1.98× (± 0.6: a slot's chain often stays on one CPU " +
			"and starves the hog there), chain 1 / one_make 1 (the defaults) 2.13× (2.14× over the scenario's 9 runs): smaller, not larger. Per object, sh, " +
			"the compiler and ctfconvert each wait behind a hog at times, but most wake-ups are a child's exit waking its " +
			"parent, which sched_pickcpu keeps on the waker's CPU (\"compare the lowest loaded cpu to current cpu\"), where " +
			"it runs as soon as the child is gone: make itself hardly waits.",
		"Swept with echo 0 (3 runs a point), none near the seed's 8.6×: ctf_ms 1.3 / 10 / 50 at job_ms 32: 2.13 / 2.24 / 1.34×; at " +
			"job_ms 100: 1.04 / 1.13 / 1.02×; at job_ms 500 (about a kernel object's: 7 minutes × 8 CPUs over a few " +
			"thousand objects): 1.43 / 1.44 / 1.44×; cc_blocks_per_s 13 / 100 / 1000: 2.13 / 3.32 / 1.63×. What is left: " +
			"the seed's explanation is a thread that goes off CPU often and waits a full hog slice each time it comes back. " +
			"The model's off-CPU times are sleeps woken by a timer on the sleeper's own CPU, which preempts the hog at once " +
			"(NEEDRESCHED); waits woken from another CPU (I/O, locks, the modules' token pipe) would not, and cc1 alone " +
			"measured here seldom goes off CPU. What a FreeBSD compile waits for in the seed's VM is not known.",
	}
}

// buildkernelMakeNotes are the notes on make's own wake-ups and the -j token pipe, and on what
// the patched kernel does beside the hogs.
func buildkernelMakeNotes() []string {
	return []string{
		"Sources read for make's wake-ups: contrib/bmake/job.c (FreeBSD 12, NetBSD job.c 1.191 of 2017; and the rewrite " +
			"of the 2020s, ShellWriter_EchoCmd / JobWriteSpecialsEchoCtl): the sh description has no echo control, so " +
			"for every command not marked @ make writes echo \"%s\" into the job's script before it, and the job shell " +
			"echoes the command into the job's output pipe; Job_CatchOutput polls every job's output pipe together with " +
			"the childExitJob self-pipe that JobChildSig writes on SIGCHLD, and JobDoOutput copies the output to make's " +
			"own stdout. So make wakes, from the CPU of the shell, for each of the two commands of an object (echo 1) " +
			"and for the shell's exit; its CPU for each (out_us) is not known and is swept. The wakes come from other " +
			"CPUs (traced 2026-12-07 under the ci profile of 03:44, ULE, nice 20 hogs, seeds 1-3: 3,596-3,668 of make's " +
			"5,486-5,581 wake-ups migrate; 3,740 of 5,591 in seed 1 under the profile of 00:52), yet make never waits " +
			"in a run queue (0 s in each seed): asleep it is raised to static_boost (PRI_MIN_BATCH 152, sched_sleep), " +
			"better than the running sh, so sched_pickcpu's \"compare the lowest loaded cpu to current cpu\" keeps it " +
			"on the waker's CPU and sched_setpreempt switches to it. The time goes to sh (74-83 s of run-queue wait " +
			"over 2,000 objects; 80 s under the profile of 00:52) and to the forked compilers and ctfconverts (15-19 s " +
			"and 13-18 s; 17 s and 18 s), placed behind hogs. echo 0 / 1 (3 runs a point): " +
			"2.13 / 2.44×; out_us 2 / 10 / 50 / 200: 2.20 / 2.44 / 3.20 / 3.32× (the last two ± 50 % over 3 runs). Not " +
			"modelled: the I/O a compile waits for, and the modules' sub-makes sharing the -j token pipe (below).",
		"Sources read for the -j token pipe (contrib/bmake/job.c, NetBSD job.c 1.191 as FreeBSD 12 ships it; " +
			"sys/conf/kern.post.mk): kern.post.mk makes all depend on kernel-all and modules-all, and modules-all runs " +
			"${MAKE} in sys/modules as one job of the kernel's make, so the modules' makes build beside the kernel's " +
			"objects. Job_ServerStart in the first make writes max_tokens − 1 tokens into a pipe and passes it on as " +
			"-J r,w; every make runs its first job without a token (Job_TokenWithdraw with no job running puts a token " +
			"it read straight back) and reads one token for each further job. The read side is O_NONBLOCK " +
			"(JobCreatePipe: \"we might lose the race for the token\"): a make that finds the pipe empty sets wantToken " +
			"and adds the pipe to the poll(2) of Job_CatchOutput, so it sleeps in poll, not in read, and every token " +
			"written wakes every make polling. Job_TokenReturn writes the token back when a job is reaped, and the same " +
			"make then calls MakeStartJobs, whose non-blocking read takes it again if it has another job to start: a " +
			"token passes to another make only when its returner has no job ready, so a waiting make is woken from " +
			"another CPU for every token written and mostly finds the pipe empty again. How many modules' makes run " +
			"at once: read since (SUBDIR_PARALLEL, the last notes).",
		"The token pipe as modelled (submakes N): N makes, each forking its own share of the objects and keeping its " +
			"share of the j jobs; every job a make reaps while it has others running writes its token back, which " +
			"wakes each other make's poll once (out_us of CPU, then back to sleep), and the make takes the token back " +
			"itself. Left out: a woken make winning the race for the token (tokens stay with their make), and the " +
			"token written by the exiting job's own make and not by a poll on two pipes at once (the simulator's until " +
			"waits on one pipe while its body blocks on another). The default stays 1 (one make, the model above), " +
			"because the split of objects and tokens between the kernel's and the modules' makes is not known. Swept " +
			"(3 runs a point; schedbench sweep -grid submakes=1,2,4,8 -reps 3): stock ULE beside nice 20 hogs 2.44 / " +
			"2.02 / 2.16 / 1.83×, patched 4.69 / 4.63 / 4.66 / 4.75×; without hogs every policy within 0.1 % of 4BSD. " +
			"The remote wake-ups the token pipe adds do not make the build wait (stock ULE, nice 20 hogs, seed 1: the " +
			"makes wait 0.01 s each in run queues at submakes 2, 0.2-0.6 s at 4, over builds of 19 and 21 s); the " +
			"shells wait less (53 s against 80 s at submakes 2), which was not traced further.",
		"Without hogs, stock and patched ULE both come out 0.2 % slower than 4BSD at the calibrated jobs (0.02 % at 500 " +
			"ms), which the verdict counts as reproducing stock's 0.27 % but not the patch's 0.68 % (less than half its " +
			"effect); that difference is the ci profile's costs (idle exits, IPIs) on the chain's wake-ups across CPUs: " +
			"with -profile ideal every policy builds in exactly the same time, so it is not shown to be the seed's cause, " +
			"which the seed does not give.",
		"With the chain, the patched kernel (ule:seed000) builds slower than stock beside the hogs (4.70× against 2.41× " +
			"over 9 runs), where the seed expects the opposite; the seed gives no figure for it. Traced (seed 1, full size): " +
			"build 24.3 s stock, 46.8 s patched; the hogs' CPU 125 s against 304 s; run-queue wait of the compilers 17 s " +
			"against 100 s, of ctfconvert 18 s against 94 s. Each knob alone is worse still: pick_short alone " +
			"(seed000-ps1-pt48) 55.7 s, preempt_thresh 224 alone (seed000-ps0-pt224) 79.6 s. The mechanism, from explain " +
			"-state on the workload at 200 jobs: under the patch every compiler fork (200 of 200) is placed on another CPU " +
			"that runs a hog, against 66 of 200 under stock. A shell that preempted its CPU's hog (preempt_thresh 224) " +
			"runs there with the hog queued, so sched_pickcpu finds a CPU whose only thread is a hog (\"least loaded CPU " +
			"running worse priority\"), where stock finds none and keeps the child home. The child's preemption IPI then " +
			"stops the hog, which goes back first: legacy's tdq_runq_add puts a preempted batch thread at the head of " +
			"the queue being drained (tdq_ridx), and pick_short puts it in the real-time range; either way the hog runs " +
			"its slice out (a compiler forked at 48.97 ms ran at 94.49 ms, when the hog's slice expired) and the " +
			"compile waits. Making preempted threads not partial-slice users (a reading of the unpublished patch) gave " +
			"the same run to the nanosecond, so it is the patch's preemption in this shape, not pick_short's reading.",
	}
}

// buildkernelVforkNotes are the notes on how make starts a job (vfork) and what that gives.
func buildkernelVforkNotes() []string {
	return []string{
		"Sources read for how a job starts (2026-12-07): contrib/bmake job.c JobExec starts the job shell with vFork() " +
			"(\"Parent, continuing after the child exec\"; make.h of the 2020s: FORK_FUNCTION vfork). sys/kern/kern_fork.c: " +
			"vfork is a fork with RFPPWAIT; do_fork marks the child P_PPWAIT and sched_add()s it, and the parent, back from " +
			"the system call, sleeps in fork_rfppwait (cv_timedwait on the child's p_pwait) until sys/kern/kern_exec.c " +
			"do_execve, once the new image is in, clears P_PPWAIT and broadcasts p_pwait (or exit1 does, if the child " +
			"dies first). bin/sh eval.c evalcommand runs a simple command without redirections or assignments through " +
			"vforkexecshell when the shell is not interactive, so the job shell too sleeps from each vfork to the " +
			"compiler's and ctfconvert's exec. So make, the one process that starts every job, can neither reap nor " +
			"start another job until the shell it forked has run. Beside the hogs that shell is born batch (sched_fork), " +
			"sched_pickcpu keeps it on make's CPU only when make runs at a strictly worse priority (\"compare the lowest " +
			"loaded cpu to current cpu\"), else puts it on the least loaded CPU running a worse thread, a hog's, and " +
			"sched_shouldpreempt lets it wait there (batch, above preempt_thresh 48) until the hog's slice ends: up to " +
			"12 stathz ticks, 94.5 ms (tdq_slice with one thread waiting).",
		"Modelled as vfork 1 (the default): make forks, then sleeps on a pipe into which the shell writes as its first " +
			"op (the exec's own CPU, about 0.1 ms, is left out). The shell's own vforks of the compiler and ctfconvert " +
			"are not modelled: the workload has no pipe per process, and the shell's wake-up at the exec lands on the " +
			"child's CPU (asleep, the shell is raised to static_boost 152, better than the batch child) and cannot delay " +
			"the compile. Traced (seed 1, full size, stock ULE, nice 20 hogs; vfork 0 in brackets): make sleeps 108.7 s of " +
			"a 109.3 s build (24.6 of 25.1 s) and wakes 2,006 times (5,486: its pipe's messages pile up while it waits); " +
			"the shells wait 117 s in run queues, 58.6 ms each (83 s), the compilers 106 s (19 s), ctfconvert 112 s " +
			"(18 s). In explain's trace (seed 1, 200 jobs, past 2 s) each shell is forked at priority 156, as make runs, " +
			"so it goes to the \"least loaded CPU running worse priority\", a hog's at 219-220, with no preemption (156 " +
			"is above preempt_thresh 48), and first runs 31-94 ms later; its exec then wakes make onto that CPU, where it " +
			"preempts the shell. Without hogs the build does not move (stock ULE 1.0020× 4BSD over 9 runs, against 1.0016×).",
		"What it gives (9 runs, vfork 0 → 1): stock ULE beside nice 20 hogs 2.39× → 11.12×, patched 4.70× → 11.53×, " +
			"main 2.05× → 11.10×, 4BSD 4.26× → 4.40×; beside nice 0 hogs stock 2.36× → 11.08×, 4BSD 11.20× → 12.17×. " +
			"The build becomes make's job starts one after another, about 55 ms each whatever the job's length, so the " +
			"ratio falls as jobs grow (schedbench sweep seed000-buildkernel -grid job_ms=… -grid vfork=0,1 -reps 3; stock " +
			"ULE, nice 20): job_ms 32 / 40 / 50 / 64 / 80 / 100 / 150 / 250 / 500 / 1000: 11.25 / 9.27 / 7.63 / 6.22 / " +
			"5.11 / 4.76 / 2.38 / 1.73 / 1.52 / 1.32× (vfork 0: 2.34× at 32, 1.05× at 100, 1.42× at 250, 1.50× at 500, " +
			"1.33× at 1000). The seed's ≥ 8.57× falls at jobs of at most about 42 ms of CPU; a kernel object's compile is " +
			"longer (about 500 ms: 7 minutes × 8 CPUs over a few thousand objects; the seed does not count them), where " +
			"vfork adds little; at about 55 ms a start, the seed's hour over 7 minutes would take some 58,000 job starts " +
			"in a row through one make. So the claim is judged at both (Sweep: job_ms at the calibrated run and 500). " +
			"The build's short jobs are in its modules, " +
			"modelled since (the last notes). These figures are without them (modules 0).",
	}
}
