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
	cal, ch := Compile(), Chain()
	on := "seed 003: Ryzen 9 3900X (12 cores, 24 threads), 64 GB, buildworld, 23 and 21 runs (ministat)"
	return &Scenario{
		Name:  "seed003-buildworld",
		Seed:  "003",
		Title: "a staged parallel build on a 12-core SMT machine, ULE legacy vs main (seed 003's buildworld)",
		Description: `Seed 003 reports "preliminary benchmarking" of the run-queue rework on a Ryzen 9 3900X: buildworld
110.52 s (legacy, N=23) against 105.29 s (main, N=21), −4.74 % ± 0.33 %, and "close to 5%" for make -j8
buildkernel. buildworld runs its stages one after another (Makefile.inc1's WMAKE_TGTS under .ORDER:
bootstrap-tools, build-tools, cross-tools, includes, libraries, everything), and inside a stage a
directory's objects compile in parallel before its library or program links. The model: stages stages,
each jobs/stages objects compiled by seed000-buildkernel's calibrated process chain (one make keeping j
jobs running; each object a job shell forking the compiler and a second command), then one link
process alone, make waiting for it. serial_pct, the links' share of the build's time on one CPU, is not
known and is swept. The other metrics are the run-queue wait of all threads together (with the
idle loop's exits) and the number of threads that waited over 1 ms in all: the time in which the
order of queued threads, all that the rework changes in a build's decisions, can act; and the
context switches, on whose path the rework's faster queue code would save CPU: legacy_switch_us
charges each of legacy's switches that much more, swept (0 by default).`,
		Params: worldParams(),
		Rows: []Row{
			{Label: "ULE legacy", Policy: "ule:legacy", Published: &Figure{Value: 110.52174, Spread: 0.59310931, SpreadKind: "stddev", Unit: "s", On: on}},
			{Label: "ULE main", Policy: "ule:main", Baseline: "ULE legacy", Published: &Figure{Value: 105.28571, Spread: 0.6436503, SpreadKind: "stddev", Unit: "s", On: on, Sig: SigShown}},
		},
		Metrics: []Metric{
			seed000Buildkernel().Metrics[0],
			{Name: "run-queue wait", Unit: "s", Of: func(r *sim.Result, _ *Setup) float64 {
				var wait int64
				for i := range r.Threads {
					wait += r.Threads[i].WaitTime
				}
				return float64(wait) / 1e9
			}},
			{Name: "queued over 1 ms", Unit: "threads", Of: func(r *sim.Result, _ *Setup) float64 {
				n := 0
				for i := range r.Threads {
					if r.Threads[i].WaitTime > int64(time.Millisecond) {
						n++
					}
				}
				return float64(n)
			}},
			{Name: "context switches", Unit: "switches", Of: func(r *sim.Result, _ *Setup) float64 {
				return sim.Switches.Of(r)
			}},
		},
		Build:     buildWorld,
		Reps:      3,
		Small:     Values{"jobs": 240},
		SmallReps: 3,
		Seeded:    Values{"cpus": 24, "smt": 2, "j": 8},
		Expect: []Expectation{
			{Doc: "main builds within a few percent of legacy (seed: −4.7 %; direction only)", Row: "ULE main", Baseline: "ULE legacy", Min: 0.9, Max: 1.05},
		},
		Claims: []Claim{{Text: "buildworld, 256-queue ULE main against legacy: −4.7 %", Row: "ULE main",
			Why: "pickcpu, idled, notify unchanged; 1 of 6,021 threads queues; 4.7 % needs legacy +700 µs a switch"}},
		Notes: append(buildworldNotes(),
			fmt.Sprintf("Calibration: %s, %s, %s; the chain: %s, %s, %s, %s.", cal.Dir, cal.GCC, cal.Kernel, ch.GCC, ch.Shell, ch.Make, ch.Kernel)),
	}
}

// worldParams are seed003-buildworld's parameters: seed000-buildkernel's build model without
// its hogs, its one_make switch and its submakes (one make process, always), on the seed's
// machine at make -j 8, with the stages and the serial share of the build.
func worldParams() []Param {
	var out []Param
	for _, p := range seed000Buildkernel().Params {
		switch p.Name {
		case "hogs", "hog_nice", "hog_idle", "one_make", "submakes":
			continue
		case "cpus":
			p.Default, p.Doc = 24, "CPUs (the seed's Ryzen 9 3900X: 12 cores, 24 threads)"
		case "smt":
			p.Default = 2
		case "j":
			p.Default, p.Doc = 8, "make -j (the seed's buildkernel: 8; it does not give buildworld's)"
		}
		out = append(out, p)
	}
	return append(out,
		Param{Name: "stages", Doc: "stages the build passes one after another, each ending in one link (not known: swept)", Default: 20, Min: 1, Max: 1e5, Integer: true},
		Param{Name: "serial_pct", Doc: "the links' share of the build's time on one CPU (each object's chain alone, make's CPU, the links), in percent (not known: swept)", Unit: "%", Default: 10, Min: 0, Max: 90},
		Param{Name: "legacy_switch_us", Doc: "CPU each context switch costs under ULE legacy beyond the profile's, which main pays alone (the seed's \"faster queue selection code\": not known, swept)", Unit: "us", Default: 0, Min: 0, Max: 1e5})
}

// buildWorld builds seed003-buildworld's setup: one make process that, for each of stages
// stages, builds its share of jobs objects through the process chain of seed000-buildkernel
// (jobTemplates, makePipes, makeLoop) and then forks one link process and waits for it.
//
// Under the row of ULE legacy, every context switch costs legacy_switch_us more than the
// profile's (Setup.SwitchExtra): the CPU the rework's run-queue code saved, swept.
func buildWorld(v Values, row *Row) (Setup, error) {
	v = v.clone()
	v["one_make"] = 1
	cpus, j, jobs, smt, stages := int(v["cpus"]), int(v["j"]), int(v["jobs"]), int(v["smt"]), int(v["stages"])
	if cpus%smt != 0 {
		return Setup{}, fmt.Errorf("cpus %d is not a multiple of smt %d", cpus, smt)
	}
	if stages > jobs {
		return Setup{}, fmt.Errorf("stages %d exceeds jobs %d: a stage compiles at least one object", stages, jobs)
	}
	w, first, per := jobTemplates(v)
	parallel := float64(jobs) * (per + v["make_ms"]*1e6)
	link := v["serial_pct"] / (100 - v["serial_pct"]) * parallel / float64(stages)
	w.Threads = append(w.Threads, workload.Thread{Name: "ld", Template: true,
		Ops: []workload.Op{workload.RunOp(workload.Fixed(workload.Duration(max(1, link))))}})
	start, reap, last := makePipes(v, w, first, "", nil, j)
	join := workload.Op{Kind: workload.Join}
	var ops []workload.Op
	for s := 0; s < stages; s++ {
		n := jobs / stages
		if s < jobs%stages {
			n++
		}
		ops = append(ops, makeLoop(j, n, start, reap, last)...)
		if link > 0 {
			ops = append(ops, workload.ForkOp("ld", 1), join)
		}
	}
	w.Threads = append(w.Threads, workload.Thread{Name: "make", Ops: append(ops, join)})
	ideal := parallel/float64(min(j, cpus)) + link*float64(stages)
	setup := Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, cpus/smt, smt), StatHz: 127}, Workload: w,
		Until: time.Duration(ideal*200) + 10*time.Second, StopWhenExited: []string{"make"}}
	if row != nil && row.Policy == "ule:legacy" {
		setup.SwitchExtra = time.Duration(v["legacy_switch_us"] * 1e3)
	}
	return setup, nil
}

// buildworldNotes are seed003-buildworld's notes: the sources read, which of the rework's
// changes can act in a build, and what the runs gave.
func buildworldNotes() []string {
	return append(buildworldSourceNotes(),
		"So every difference acts on threads that wait in a run queue. Measured (2026-12-07, the ci profile of 00:52 that "+
			"day, 3 runs, the defaults: -j 8, 24 CPUs, 20 stages, serial_pct 10): legacy and main 19.10 s (1.0000×, "+
			"n.s.); 1 of the 6,021 threads waits over 1 ms in all, and of the 0.38 s of run-queue wait 0.23 s goes with "+
			"the idle loop's exits (0.16 s with the idle exit taken out of the profile, seed 1). At -j 48 4,553 and "+
			"4,557 threads wait over 1 ms (about 84 s of wait), yet the build takes the same time (0.9988×, n.s.) and "+
			"the CPUs are busy as long (118.5 and 118.4 s, seed 1): the queued threads are alike batch compiles, so "+
			"another order changes which of them waits, not whether a CPU idles, and each stage still ends when its "+
			"last object does. (Under the profile of 2026-12-05 93 and 94 threads waited over 1 ms at -j 8, and 0.75 s "+
			"of the 0.90 s of wait went with the idle exits, whose tail then reached 2.8 ms.) Traced again on "+
			"2026-12-07 under the ci profile of 03:44 (seeds 1-3, both kernels): at -j 8 the build takes 19.13 s, 1 "+
			"of the 6,021 threads waits over 1 ms in all and the run-queue wait is 0.59-0.60 s; at -j 48 4,510-4,529 "+
			"(legacy) and 4,514-4,577 (main) threads wait over 1 ms (82.7-84.9 s of wait), yet the build takes the "+
			"same time (13.95-13.99 s in both) and the CPUs are busy as long (118.4-118.5 s).",
		"Swept (2026-12-07, 3 runs a point): j 8 / 24 / 48 × serial_pct 0 / 10 / 30 × stages 1 / 20 / 200: main "+
			"against legacy 0.9988× to 1.0024×, every point n.s.; the seed's 0.953× is outside the whole grid.",
		"The CPU the scheduler itself spends, swept (2026-12-07, the ci profile of that day for guest fc-v1300, 3 runs a point; schedbench "+
			"sweep seed003-buildworld -grid legacy_switch_us=…): at -j 8 the build switches 30,638 (legacy) and 30,689 "+
			"(main) times, about 1,600 a second on 24 CPUs. Charging each of legacy's switches 0 / 0.1 / 1 / 10 / 100 / "+
			"700 / 800 µs more than the profile's gives main 1.0000× (n.s.) / 1.0000× (n.s.) / 0.9999× / 0.9993× / "+
			"0.99× / 0.9536× / 0.948×: the seed's 0.953× falls at about 700 µs a switch, some 1,500 times the "+
			"profile's whole switch (479 ns). What the rework changed on that path is the search of the run queues' "+
			"status words with a find-first-set: one 64-bit word for each of legacy's three run queues (RQB_LEN 1 on "+
			"amd64; runq_choose, runq_choose_from), up to four for main's one (RQSW_NB, runq_findq in kern_switch.c). "+
			"Were the real build's switches a hundred times the model's (interrupt threads, page faults and I/O, which "+
			"it leaves out), 7 µs would still have to be saved on each.",
		"Not modelled: I/O and the kernel threads it wakes (bufdaemon, GEOM, ZFS: kernel priorities, which by (5) "+
			"above preempt alike before and after the rework); the directories' sub-makes and the -j token pipe they "+
			"share (one make stands for them); the link's own threads (lld is one process here).",
	)
}

// buildworldSourceNotes are the notes of seed003-buildworld on the sources read: the build's
// shape, sched_ule.c before and after the rework, and what the seed says of its two kernels.
func buildworldSourceNotes() []string {
	return []string{
		"Sources read for the build's shape: freebsd-src Makefile.inc1 (@0026fec5, FreeBSD 13-CURRENT): buildworld " +
			"depends on WMAKE_TGTS under .ORDER (_legacy, _bootstrap-tools, _cleanobj, _obj, _build-tools, _cross-tools, " +
			"_build-metadata, _includes, _libraries, everything, then lib32), each a sub-make run to completion before " +
			"the next; only everything sets _PARALLEL_SUBDIR_OK. How many objects, directories and links each stage " +
			"has is not read from source: stages and serial_pct are swept.",
		"Source reading (2026-12-07), sys/kern/sched_ule.c before the rework (OlCe2/freebsd-src @366ae94e, preset " +
			"legacy) and after it (mchoo7/freebsd-src @3521c70f, main as of 2026, preset main), function by function " +
			"for what a build calls. The same in both, names aside (and SCHED_AFFINITY, signed in legacy, unsigned in main: " +
			"alike away from the tick counter's wrap): sched_pickcpu (the previous CPU if it and its SMT " +
			"siblings idle within SCHED_AFFINITY, the LLC search at max(pri, PRI_MAX_TIMESHARE), the global searches, " +
			"the waking CPU when TDQ_LOAD(self) <= TDQ_LOAD(cpu) + 1), cpu_search_lowest and cpu_search_highest, " +
			"tdq_idled, tdq_trysteal, tdq_move, sched_balance_group and sched_balance_pair, tdq_notify, " +
			"sched_setpreempt, sched_add, sched_wakeup, sched_sleep (a sleeping timeshare thread is raised to " +
			"static_boost = PRI_MIN_BATCH; its sleep priority counts only with static_boost 1), sched_fork_thread, " +
			"sched_exit_thread (the child's runtime goes to the parent, so make and the job shells turn batch), the " +
			"interactivity score, tdq_slice and sched_idletd (no idle spinning on an SMT group, TDQ_IDLESPIN, in " +
			"either). Where a thread runs, when an idle CPU looks for work and whether a wake-up preempts are " +
			"decided by the same code on the same inputs.",
		"What differs, and what each can change in a build: (1) tdq_realtime, tdq_timeshare and tdq_idle of 64 " +
			"queues (RQ_PPQ 4) become one tdq_runq of 256, which tdq_choose searches in the same order: the " +
			"real-time range, the calendar from its dequeue offset, the idle range. (2) tdq_runq_add's calendar: " +
			"RQ_NQS * (pri - PRI_MIN_BATCH) / PRI_BATCH_RANGE slots ahead of tdq_idx on 64 queues, against pri - " +
			"PRI_MIN_BATCH ahead of tdq_ts_off on 109, and sched_clock advancing it 1 against 7/4 a tick (main's " +
			"comment there: to keep the 64-queue calendar's anti-starvation and nice behaviour). (3) runq_steal_from " +
			"skipped the first thread of the victim's calendar and fell back to it; runq_steal_timeshare takes the " +
			"first that may migrate. (4) priority.h: interrupt 0-15, real-time 16-47, kernel 48-87, timesharing " +
			"88-223 become 0-7, 8-39, 40-55, 56-223, so interactive 88-135 and batch 136-223 become 56-114 and " +
			"115-223. (5) sched_shouldpreempt's pri <= preempt_thresh (PRI_MIN_KERN, 48) becomes pri < " +
			"preempt_thresh (40): the same levels preempt but a kernel thread at exactly PSWP, user threads never " +
			"reach the kernel range (static_boost), and the remote rule for an interactive thread over a batch one " +
			"is unchanged. (6) Main as of 2026 also takes the batch priority from a %CPU window decaying by 10/11 a " +
			"second (sched_pctcpu_update, SCHED_TICK_SECS 11) and 5/4 of nice (SCHED_PRI_NICE); whether the seed's " +
			"2024 patch (reviews D45387-D45392) had them is not known here, and like (2) they only move a batch " +
			"thread's slot. (1)-(3) and (6) order the threads waiting on one CPU or choose which of them moves; (4) " +
			"and (5) change nothing for processes that are all batch. None decides whether a CPU idles while a " +
			"thread waits on another.",
		"The seed's comparison: its summary credits the \"close to 5%\" to make -j8 buildkernel, its ministat " +
			"table to buildworld (110.52 against 105.29 s in whole seconds, ranges 109-111 and 104-107); it calls the " +
			"benchmarking preliminary, on one machine, and gives neither the base revision of the two kernels, nor " +
			"their configuration (INVARIANTS, WITNESS), nor the compiler and tree they built. The model takes -j 8 " +
			"and the 24 CPUs from it; whether the two kernels differed in more than the rework cannot be told from " +
			"the seed.",
	}
}
