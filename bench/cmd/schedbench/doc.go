// Command schedbench runs schedkit's simulator from the shell: a workload under one or more
// policies on a topology, side by side, with repetitions, pictures and an HTML report, and the
// policies' own explanations of each decision.
//
// Install it with
//
//	go install github.com/schedkit/schedkit/bench/cmd/schedbench@latest
//
// # Usage
//
//	schedbench run [flags] WORKLOAD
//	schedbench explain [flags] WORKLOAD
//	schedbench top [-every DURATION] [flags] WORKLOAD
//	schedbench seeds [flags] [SCENARIO|SEED ...]
//	schedbench sweep [flags] SCENARIO
//	schedbench merge [flags] SCENARIO RESULTS.jsonl...
//	schedbench record [-o FILE] [flags] -- COMMAND [ARG...]
//	schedbench replay [flags] TRACE
//	schedbench trace [flags] WORKLOAD
//	schedbench host [flags] WORKLOAD
//	schedbench host -experiments [flags]
//	schedbench calibrate [flags]
//	schedbench serve [flags]
//	schedbench stat [flags] [FILE...]
//
// WORKLOAD is a workload file in the text form of package workload, or its JSON form (a name
// ending in .json, or a text starting with "{"), or a real trace to replay under the policies
// (a name ending in .ftrace: tracefs, trace-cmd report or perf sched script text; .gotrace: a Go
// execution trace; imported by bench/trace, each task's bursts and wake-ups its script), or the
// name of a scenario of bench/scenario
// (see seeds), whose first row gives the workload, the machine and the length of the run unless
// -topology and -until are given. Flags may come before or after the arguments ("--" ends them,
// for a file whose name starts with "-"; record takes its command after them); -h prints a
// command's flags. A duration flag takes a number and a unit (2s, 500ms, 1.5m, 250us); the error
// for "-until 2" says so. Wherever a command reads a file (a workload, a -topology spec, a trace
// to replay, stat's data sets, merge's results, serve's -page), "-" is standard input, which
// messages and reports name <stdin> (stdin as a workload or run name), and stat with no file
// reads it, as ministat does.
//
// Every command that simulates charges the costs of a machine profile (package bench/sim's
// Profile: the waker's try_to_wake_up, the IPI, a timer's expiry, the idle state's exit, the
// context switch, the cache refills, the clock interrupt), named by -profile: ci, the default,
// was measured on the machine the project's CI runs on; ideal charges nothing (a woken thread
// runs the instant it is chosen, what the policies' decisions alone give); host is what
// calibrate measured on this machine; any other value is a profile file. Any of them followed by
// ":latencies" (ci:latencies) charges only the profile's latencies, the IPI, the idle exit and
// poll and the timer (sim.Profile.Latencies), for a workload whose CPU costs were measured with
// the real programs and so hold the CPU figures already; seed 004's hackbench, perf-pipe and
// tbench scenarios charge their profile so whatever -profile says. Tables end with a line
// naming the profile they used, and -format json has it in its profile field.
//
// run plays the workload under every policy of -policy (a comma-separated list: ule, ule:legacy,
// ule:seed000, 4bsd, 4bsd:14, 4bsd:9, cfs, cfs:v6.6, cfs:v7.1, …) on the machine -topology
// describes (a text spec such as "llc:1 core:4 cpu:2", a file with a text or JSON spec, a
// ready-made machine such as two-socket-smt, or host for this machine), for -until of simulated
// time, -reps times with seeds -seed, -seed+1, …, -parallel runs at a time. It prints one row
// per thread with its CPU share (cpu%) and wake-up latency percentiles (wake p50 … wake max,
// from being woken to running) under each policy (the medians over the repetitions), then one
// row per policy with the run's totals; a legend under each table says what its columns
// measure and that "-" is no figure (a thread that never slept has no wake-up latency) while
// "0ns" is a measured zero. While stderr is
// a terminal and -q is not given, a progress bar counts the runs done (seeds and sweep count
// cells). ^C stops the runs in progress; the table then shows the runs that finished and the
// command exits with status 1 (seeds starts no further cell; sweep stops between batches of a
// few cells per CPU).
//
//	schedbench run -policy ule:legacy,cfs:v7.1 -topology "cpu:4" -until 2s -reps 5 mixed.wl
//
// explain runs one policy with its explanations on and prints the trace records that match the
// filters: -thread (a name, or a group such as hog for hog.0, hog.1, …), -cpu, -from and -to,
// or -at for one instant; -only keeps the explanations alone. "Why did CPU 3 pick hog.1 at
// 12.004 ms" is
//
//	schedbench explain -policy ule -topology cpu:4 -cpu 3 -thread hog.1 -at 12.004ms mixed.wl
//
// -state prints the policy's state beneath each decision, as it is after the event the decision
// belongs to (ule.Scheduler.Snapshot, bsd4.System.Snapshot, cfs.Scheduler.Snapshot; the toy
// policy has none, a usage error): for ULE a line per CPU (what it runs, tdq_load, tdq_lowpri, the calendar's
// insert and remove offsets, the non-empty queues) and a line per thread (class, nice, priority,
// interactivity score with its run and sleep ticks, slice used of slice, %CPU); for 4BSD the
// load average and the global queue, each CPU's runq_pcpu, and each thread's priority, estcpu,
// slice and %CPU; for CFS and EEVDF each CPU's nr_running, min_vruntime (v7.1's zero_vruntime)
// and V, and each entity on the root queue in tree order after the running one, with its nice,
// weight, vruntime and deadline relative to min_vruntime, lag and eligibility. Threads are
// named as in the records. The snapshots only read: the records
// are the same with and without -state.
//
// top shows a run of one policy as top -H shows a machine's threads: for ule and 4bsd FreeBSD's
// top, for cfs procps' top (below), a screen every -every (default 1s) of simulated time up to -until, with the columns
// usr.bin/top/machine.c computes from kinfo_proc: PRI is td_priority less PZERO
// (PRI_MIN_KERN + 20: 68 in main's layout, 100 in FreeBSD 10-14's, 84 in 2011's); NICE the nice
// value, or "r" or "i" and the level for a real-time or idle thread; STATE CPUn for a running
// thread, RUN for a queued one, "sleep" otherwise (the model names no wait channel); C the CPU
// it runs on or ran on last; TIME its CPU time; CPU sched_pctcpu; WCPU top's weighted_cpu,
// pct / (1 − exp(swtime · log(ccpu))) with swtime the whole seconds since the thread started
// and kern.ccpu exp(-1/20) under 4BSD (so a young process's WCPU is scaled up), 0 under ULE
// (WCPU is CPU: "all cpu percentages from ULE are weighted"). Seed 001's evidence is top's
// output: Kargl pointed at the PRI column, the high-PRI jobs pinned to a CPU at 100 % WCPU.
// For cfs the columns are procps': PR the task's prio less MAX_RT_PRIO (20 + nice), NI, S (R
// for a running or runnable task, S otherwise), %CPU the CPU time over the screen's interval
// (Irix mode: 100 % is one CPU), P the CPU it last ran on (task_cpu) and TIME+.
//
//	schedbench top -policy ule:freebsd9 -every 5s -until 30s mixed.wl
//
// seeds runs every seed scenario of package bench/scenario at its defaults (or those named: a
// scenario's name, a beginning of exactly one name such as seed000-pipe, or a seed number such
// as 000 for all of that seed's; a beginning of several names is an error listing them) and
// prints the summary: one line per seed claim with the seed's figure, ours and the verdict
// (bench/scenario's Judge: reproduced, direction only, not reproduced, opposite, matches, no
// figure), then the reason of each claim that does not come out. -v, or naming scenarios,
// adds each scenario's table in its seed's own layout, with its notes. -params NAME lists a
// scenario's parameters (default, unit, range) instead of running it. -small runs the
// scenarios' small sizes (seconds); -o DIR writes the summary and tables, each scenario's
// results as JSON lines, a box-and-strip picture per scenario and grid point, and index.html.
//
//	schedbench seeds
//	schedbench seeds 000
//	schedbench seeds -params seed001-kargl
//
// sweep runs one scenario over a parameter grid (-grid NAME=V1,V2,…, repeatable; -set
// NAME=VALUE fixes one) with -reps repetitions and prints its table. -shard k/n runs only every
// n-th cell from k and writes its results as JSON lines (stdout or -o FILE); merge, given the
// scenario, the same plan flags and every shard's file in any order, prints the table the whole
// sweep prints, byte for byte, and refuses a missing, duplicated or foreign cell. Shards are
// plain processes, so any batch system runs them (bench/scenario's SHARDING.md shows a
// Kubernetes Indexed Job, a Slurm array job and GNU parallel):
//
//	for k in 0 1 2; do schedbench sweep -shard $k/3 -grid nice=0,10,20 -o s$k.jsonl seed000-nice & done; wait
//	schedbench merge -grid nice=0,10,20 seed000-nice s0.jsonl s1.jsonl s2.jsonl
//
// record runs COMMAND with the kernel's scheduler events recorded (bench/trace's Recording:
// sched_switch, the wake-ups, fork, exit, exec, migrations, sched_stat_runtime and task_rename,
// system-wide) into ftrace text that replay reads, in FILE (-o, default schedbench.ftrace,
// written atomically; - for stdout, the command's output then going to stderr). It records
// through a private tracefs instance (its own buffers and switch, read per CPU as the events
// come and merged by time; -buffer sets each CPU's ring buffer), which needs root and leaves
// other tracers alone; where tracefs is not writable, or with -perf, it runs perf sched record
// and writes perf sched script's text. The instance is removed whatever happens: the command's
// end or failure, or SIGINT, SIGTERM or SIGHUP, which record passes on to the command before
// it writes the trace until then and exits with status 1; an instance left by a record killed
// outright (SIGKILL) is removed by the next record. A command that fails leaves its trace too,
// and record exits with status 1 saying how it ended. trace-cmd record needs ftrace_enabled
// writable, which some kernels (this project's VM among them) refuse; an instance does not.
//
//	sudo schedbench record -o tar.ftrace -- sh -c 'tar cf - /usr/share | gzip -c >/dev/null'
//	schedbench replay -policy cfs:v7.1,ule,bsd4 tar.ftrace
//
// replay runs a real trace under every policy of -policy and prints, per policy, each task's
// CPU time, run-queue wait and mean wake-up latency in the trace beside the replay's (the table
// of bench/trace's Comparison.WriteTable). TRACE is ftrace text (tracefs, trace-cmd report,
// perf sched script), a Go execution trace (runtime/trace, go test -trace), FreeBSD's KTR_SCHED
// trace as ktrdump -ct prints it (-ktr-ghz gives its clock rate as schedgraph.py's second
// argument does, -ktr-layout the FreeBSD version whose priority layout its priorities are
// read in) or an rt-app JSON description, told apart by content: a Go trace by its header, a
// KTR trace by a KTRGRAPH line among its first ten, a JSON object by its first key
// (schedkit's own workload JSON and Chrome trace-event JSON are refused with a hint), anything
// else as ftrace text. The machine defaults to one package with a shared cache and as many
// CPUs as the trace names, the length to ten times the trace's duration plus a second (an
// rt-app file's global.duration); -topology and -until override them, and the other machine
// flags are run's. -summary, -no-pipes, -go-threads and -kthreads are bench/trace's import
// options: -kthreads charge (the default) keeps a Linux trace's per-CPU kernel threads
// (migration/N, ksoftirqd/N, kworker/N:M, rcu_*) as CPU-time charges pinned to their CPU,
// drop leaves them out (their CPU time is reported), keep replays them as other tasks; under
// ULE and 4BSD, Linux's real-time priorities run on rtprio(2) levels, so that every policy
// replays any Linux trace, and a line above each table says what was mapped, charged or
// dropped. -max-memory (default 2GiB) bounds what an exact import may need: a trace too large
// for it is an error naming the limit and suggesting -summary, never the runtime's
// out-of-memory crash; the garbage collector keeps the heap within it too. The table gives the
// 25 tasks with the most CPU time in the trace (-top N; 0 for every task in the trace's order)
// or those whose name-pid matches -task (a Go regular expression), with the units in its
// headings, and ends with the CPU time of all tasks beside CPUs × span, in the trace and in
// the replay. The import's warnings (lost events, what rt-app features a workload cannot
// express) go to stderr; an rt-app description records no timing, so its trace columns are
// "-". Replayed under the policy the trace was recorded with (cfs:v6.5 for a Linux kernel
// before 6.6, cfs:v6.6 or later after), the table shows how faithful the import is; under
// another, what would change. The machine profile defaults to ideal (the bursts as recorded);
// under another (-profile ci) the import shortens each burst by the profile's costs at the
// steps inside it (trace.ImportOptions.Costs), so that the model's costs replace the recording
// machine's instead of counting twice. Without -policy it replays under ule and cfs, and leaves out,
// with a note on stderr, one that refuses the workload (ULE refuses an rt-app description's
// Linux real-time priorities); a policy named with -policy that refuses it is a usage error.
// -format json prints one document of schema "schedbench.replay/1" (below).
//
//	schedbench replay -policy ule,cfs:v6.6 pipeline.gotrace
//	schedbench replay -policy cfs:v6.5,ule -topology cpu:4 report.txt
//
// trace runs one policy and writes its trace (-o FILE, atomically, or stdout) with package
// bench/trace: -format chrome is the Chrome trace-event JSON that Perfetto and chrome://tracing
// open (a track per CPU, per-thread running and runnable slices, wake-up flows, migrations,
// run-queue counters), -format ftrace the text trace-cmd report prints for sched_switch,
// sched_wakeup, sched_wakeup_new, sched_migrate_task and sched_process_fork/exit, -format ktr
// FreeBSD's KTR_SCHED text as ktrdump -ct prints it (newest first, timestamps in nanoseconds:
// open it with schedgraph.py FILE 1), -format text the simulator's own one-line records (with
// -explain, the policy's reasons too).
//
//	schedbench trace -policy cfs:v7.1 -until 1s -o run.json mixed.wl
//
// host plays the workload as real threads on this machine's kernel (package bench/host), -reps
// times one after the other for -until each, and prints the kernel's column beside the model's:
// the same workload simulated on -topology host under -policy (by default the preset nearest the
// running kernel, host.NearestPolicy). The host's figures come from /proc (schedstat, status);
// other work on the machine takes CPU from the workload, so the table prints the load average
// around each run. What the host cannot do (a class without permission, a missing cpu
// controller) is a usage error before anything starts, unless -skip-unsupported. The host does
// not play poll or until (a busy-wait on a pipe, a wait on two): a thread that reaches one stops
// the run with an error naming it.
//
//	schedbench host -until 2s -reps 3 mixed.wl
//
// host -experiments runs the model-vs-host table README's "Model vs host" reports instead of a
// workload (what examples/hostcompare prints; both call bench/host's WriteTable): seed 000's
// pipeline beside a pinned nice 0, nice 19 and SCHED_IDLE hog, its nice 0 vs nice 19 split and
// seed 004's probe beside an idle group, each -reps times (3 unless given) on the host and under
// the nearest preset and the other policies on this machine's topology. Each row has the host's
// median and range, the models' figures, the ratio, a verdict on the host's range and a t test
// in ministat's words (Welch's t of the host's runs against the nearest model's over as many
// seeds; the one-sample t where the model's runs are all the same, as they are here). -weight
// gives the runs' parent group a cpu.weight against the other programs of a busy machine, -dir
// adds the rows of the real tar cf - DIR | gzip, and -model-only prints the models' figures alone
// on a simulated 2-CPU machine (the CI machine's, whose CPUs share an L3), anywhere:
//
//	sudo schedbench host -experiments -reps 5 -weight 10000 -dir "$(go env GOROOT)/src/runtime"
//	schedbench host -experiments -model-only
//
// calibrate measures this machine's costs between a scheduling decision and its effect with
// package bench/host's probes (about half a minute; perf bench sched pipe with processes and
// threads on one CPU, a futex ping-pong across CPUs and a wake-up on one, a sleeper's lateness at
// 1 ms deadlines on an idle CPU and beside a SCHED_IDLE hog, a spinning thread's gaps at the
// clock interrupts, a working set's refill after another thread and after a migration; -reps
// times each, 3 by default, every figure's quantiles the median of the repetitions', as the host
// table's figure is the median of its runs: the profile's provenance gives the timer's and the
// ping-pong's median and p99 in each repetition), prints
// each probe's quantiles and the figures made of them, and writes the profile (-o, by default
// the host profile that -profile host reads: $SCHEDKIT_HOST_PROFILE, or schedkit/host-profile.json
// in the user configuration directory). It measures only a quiet machine (-max-load, 0.5 by
// default, before and after), and writes nothing when a measurement cannot be made (no perf, one
// CPU, a busy machine), saying which: an earlier profile stays as it was. The profile's program
// figures (a pipe's and a socket's write and read, a copy-on-write fault and a small process's
// exit, the last two also beside a busy CPU: what the modelled benchmarks' own work costs) can be
// re-measured alone into an existing profile with -program, its machine's figures left as they
// were; and the timer's figures (timer, timer_exit where the probe ran traced, idle_exit,
// idle_poll: the sleeper's probes alone, with the profile's switch and refill taken away as a
// whole calibration does) with -timer, the others left as they were; and the IPI's latency by
// how long its target had been idle (ipi_idle: a futex ping-pong whose replier waits 5 to 320 µs
// before each wake-up, with the profile's wakeup, idle_exit and idle_poll) with -ipi-idle.
//
//	sudo schedbench calibrate
//	sudo schedbench calibrate -o my-profile.json -program fault,exit
//	sudo schedbench calibrate -o my-profile.json -timer
//	sudo schedbench calibrate -o my-profile.json -ipi-idle
//	schedbench run -profile host -policy cfs:v7.1 mixed.wl
//
// serve builds the course's interactive page (package bench/coursepage: the simulator and the
// policies compiled to WebAssembly, in one self-contained HTML file that needs no server) and
// serves it on -addr, 127.0.0.1:8080 by default, until ^C, which stops it cleanly (status 0).
// Building compiles examples/coursepage/wasm with the go command, so it needs the Go toolchain
// and runs inside the schedkit source tree, as go run ./examples/coursepage -o course.html
// does; -page FILE serves a page written that way instead.
//
//	go run ./bench/cmd/schedbench serve
//
// stat reads numbers from files, one data set per file, and prints ministat's report with
// ministat's flags (-C column, -c confidence, -d delimiters, -A, -n, -s, -w width) and the same
// bytes as Debian's ministat (a test compares them); -mmtests prints compare-mmtests' table
// instead, each file one run and the first the baseline (-higher when higher is better, -op to
// name the operation), as mmtests of 2026 prints it or, with -mmtests-version 2022, as the
// mmtests seed 004's tables came from did; -summary picks mmtests' summary kind (Multiops,
// Normalisedops, NormalisedLeftSkewops, Singleops, Variabletime) and -print-significance adds
// compare-mmtests' significance rows. Both come from package bench/stat.
//
//	schedbench stat before.txt after.txt
//	schedbench stat -mmtests -higher -op ops/s before.txt after.txt
//	schedbench stat -mmtests -mmtests-version 2022 -summary variabletime base.txt patched.txt
//
// # Exit status
//
// 0 on success; 2 for a mistake on the command line or in an input it names (an unknown flag
// or policy, a malformed topology, a workload error reported as file:line:col, an impossible
// combination), after one line on stderr and before anything is run or written; 1 when a run
// fails, a file cannot be written, or a signal (^C) interrupted the runs. serve ends with ^C, status 0; it
// exits 1 if it cannot build the page or listen.
//
// # Bounds
//
// Every flag and input that multiplies a command's work has an upper bound, checked before any
// work with a usage error naming it: -reps at most 10000; at most 100000 runs in one command
// (policies × -reps for run; grid points × rows × repetitions for sweep, merge and seeds); -grid
// at most 1000 values per parameter, none listed twice, and no parameter both in -set and
// -grid; -parallel at most 256; -until at most 24h, and policies × -reps × -until × -hz × CPUs
// at most 10^10 clock interrupts; stat -w at most 10000; a scenario's parameters within the
// ranges seeds -params lists, and one cell at most scenario.MaxCellEvents events. -max-memory
// (default 2GiB, the same flag as replay's; 0: no limit) bounds the memory: an input file may
// take 1/64 of it (a workload: 32MiB by default) or 1/16 (stat's numbers, merge's results), read through
// that limit so that /dev/zero or an endless pipe is refused; a workload's threads × runs must
// fit it (about 1.4 KB a thread for one run), counting the threads its scripts fork
// (workload.Workload.Started), and so must a sweep's or seeds' largest cell times the cells at a
// time (about 1.1 KB a thread each: sweep -set jobs=1e6 seed000-buildkernel forks a million
// compilers a cell and is refused before it starts); and while the command works, the garbage
// collector is held to it and a watchdog stops the command, with status 1 and a line naming
// -max-memory, if the process's memory passes it. A workload that starts no thread is refused.
// An error is one line, whatever the input: a quoted input longer than 120 bytes is cut with an
// ellipsis and its length, beside the position the message gives.
//
// # Output files and signals
//
// Every -o is examined before any work, so that a destination that cannot be written is a
// usage error (status 2) and costs nothing: run's and seeds' -o DIR must be a directory, or not
// exist yet below one, in which a file can be created; trace's and sweep's -o FILE is written
// through a temporary file in its directory (.NAME.schedbench-PID-N.tmp) renamed over NAME once
// complete, keeping the mode and owner of a file it replaces; a file with other hard links is
// overwritten in place, a symbolic link followed, a character device (/dev/null) or a FIFO with
// a reader written through, and a block device or a socket refused (package internal/outfile
// has the rules). SIGINT (^C), SIGTERM and SIGHUP end every command the same way: the runs in
// progress stop, what finished is printed, temporary files are removed, a host run's threads,
// child processes and cgroups are removed, and the command exits with status 1. A second signal,
// or 15 s after the first without the command having ended, ends it at once by that signal
// after removing its temporary files. What a command killed with SIGKILL left behind is removed
// by the next one: temporary files by the next -o into the same directory, a host run's cgroups
// and its peers' processes by the next host run (package bench/host).
//
// # Output formats
//
// -format text (the default) prints the aligned table: per thread, under each policy, its CPU
// share and wake-up latency percentiles, each the median over the repetitions (the mean of the
// middle two for an even count, bench/stat's Median), then per policy the medians of the run's
// totals, each heading with its unit and each table with a legend. -format json and csv give
// the runs themselves, written by the same writer (bench/sim's Summary.Write). -format json
// prints one document of schema "schedkit.sim.runs/1", each run's result in bench/sim's schema
// "schedkit.sim.result/1"; both are published as a JSON Schema, bench/sim/result.schema.json,
// and stable: a field may be added, none renamed or given another meaning without a new schema
// name. Times are integer nanoseconds (suffix _ns), shares fractions of one CPU.
//
//	schema      "schedkit.sim.runs/1"
//	settings    what ran, as strings: workload (the file's base name, without extension),
//	            topology (its text form), until, hz, stathz, seed, reps,
//	            profile (the machine profile's name and date, "ci (measured 2026-12-04)", "ideal
//	            (no costs)": -profile)
//	columns     the policies' names, in -policy order
//	complete    false if ^C stopped some runs (they are absent from runs)
//	runs[]      column (the policy), rep (0-based), seed (seed+rep), result:
//	              schema "schedkit.sim.result/1", policy, start_ns, end_ns (the run's end),
//	              ending, tick_hz, makespan_ns (the last exit, or end_ns), events, exited,
//	              messages, violation_counts (per checker: work-conservation, starvation,
//	              thread-conservation), violations[],
//	              threads[]: id, name, decl (its declaration: hog for hog.0), group, parent
//	                (-1: none), start_ns, end_ns (-1: still alive), cpu_ns, wait_ns (runnable,
//	                not running), sleep_ns, work_ns (at full speed), voluntary, involuntary,
//	                migrations, wakeups, lifetime_ns, share (cpu_ns over lifetime_ns), and the
//	                histograms wakeup, runq_wait and request {count, min_ns, max_ns, and
//	                exact_ns, every sample, or beyond the simulator's budget buckets [ns,
//	                count], within 1/128},
//	              cpus[]: id, busy_ns, idle_ns, interrupt_ns, switch_ns, idle_exit_ns,
//	                switches, ticks {user, nice, sys, intr, idle}.
//
// This replaced schedbench.run/1, whose runs held each thread's latency_ns {p50, p90, p99,
// p99.9, max} in place of its histograms: the same run had two JSON forms with different field
// names. No command ever read run's document back: merge reads a sweep's JSON lines, and given
// a run document, old or new, it stops with a usage error naming the document's schema ("a
// schedbench.run/1 document, not a sweep's results"), so a schedbench.run/1 file is not
// misread; its figures are all in the new form (latency_ns is the wakeup histogram's
// percentiles).
//
// replay's -format json prints one document of schema "schedbench.replay/1", stable in the
// same way:
//
//	schema      "schedbench.replay/1"
//	file        the trace's base name; kind: ftrace, gotrace or rtapp
//	topology    the machine's text form; until_ns, hz, stathz, seed: as replayed
//	profile     the machine profile the replays charged (-profile), its name and date
//	policies    the policies' names, in -policy order
//	trace       duration_ns (rt-app: global.duration, 0 for none), cpus, events (0 for
//	            rt-app), skipped {event: count}, warned (all warnings), warnings[] ("file:line:
//	            message"; of a trace, the first 100), kernel_threads (-kthreads; "" for
//	            rt-app), charged (kernel threads kept as charges), dropped[] (tasks as below,
//	            trace timing only)
//	replays[]   policy, end_ns, makespan_ns, mapped[] {task, scale, from, to} (real-time
//	            priorities mapped from the trace's scale, linux or freebsd, onto the other, the
//	            policy's), total and total_trace {cpu_ns, wait_ns,
//	            sleep_ns} (total_trace null for rt-app),
//	            tasks[]: name (the workload's thread declaration), label (the trace's last
//	              name and pid, as the table prints it), thread (the simulator's), pid (null
//	              for rt-app), ran (the replay created it), trace and replay {cpu_ns, wait_ns,
//	              sleep_ns, latency_mean_ns} (trace null for rt-app; replay null if not ran).
//
// -format csv prints one row per thread of each run: column, rep, seed, the run's policy,
// ending, start_ns and end_ns, the thread's fields as in the JSON form (start_thread_ns,
// end_thread_ns for its own), and for each series (wakeup, runq-wait, request) its count and
// the percentiles p50, p75, p90, p95, p99, p99.5, p99.9, p99.99 and p100 (the maximum) in
// nanoseconds, named such as wakeup_p99.9_ns; a cell is empty for an empty series.
//
// # Artefacts
//
// -o DIR writes every artefact of the run into DIR (created if needed), each file written to a
// temporary name and renamed once complete, so that no half-written file is ever seen:
//
//	table.txt                     the table
//	results.json, results.csv     the two forms above
//	gantt-POLICY.svg              who ran on each CPU over the whole run (repetition 0)
//	gantt-POLICY-first-ZOOM.svg   the same over the first -zoom (10ms by default)
//	cdf-GROUP.svg                 wake-to-run latency distribution of the threads of one
//	                              declaration (hog for hog.0 … hog.3), one curve per policy
//	shares.svg                    CPU share per thread, one bar per policy
//	dist-share-GROUP.svg,         with -reps > 1: one point per repetition, box and whiskers
//	dist-p99-GROUP.svg            per policy (ministat's picture)
//	trace-POLICY.json             repetition 0's trace as Chrome trace-event JSON (Perfetto)
//	trace-POLICY.ftrace           the same as trace-cmd report's text
//	index.html                    all of the above in one page that needs no network and no
//	                              JavaScript
//
// The pictures are drawn by package bench/plot and the page by bench/report.
//
// # Cost
//
// A run's cost is the simulator's, plus, with -o, keeping the trace and writing it: BenchmarkRun
// (hackbench on 4 CPUs for 4 s of simulated time, 1.12 million trace records) takes 0.66 s
// and 5 MB of allocations without -o, 4.0 s and 151 MB with it (a 356 MB Chrome JSON file, a
// 137 MB ftrace file, every picture and the page); the process's peak RSS is 15 MB and 108 MB
// (measured with /usr/bin/time while other work kept the 2-CPU machine's load average at 14-18).
// The exporters stream; the memory is the kept trace's 24-byte records. Unless the GOGC
// environment variable says otherwise, the command runs Go's garbage collector at GOGC=400: a
// sweep builds and drops a machine per cell, and at the default of 100 the collector took a
// sixth of seeds' CPU time (66.5 s against 55.7 s, for a peak RSS of 160 MB against 336 MB).
//
// A Gantt chart of the whole run takes 65 ms and a 0.74 MB SVG (BenchmarkGantt in bench/plot;
// one rectangle per run instead: 766 ms and 36 MB).
//
// # Names
//
//	tool                                   schedbench
//	hackbench / schbench / perf sched      run (the workload file says which)
//	ministat(1)                            stat
//	compare-mmtests                        stat -mmtests
//	compare-mmtests --print-significance   stat -mmtests -print-significance
//	ministat's repetitions                 run -reps, dist-*.svg
//	kernelshark, Perfetto CPU tracks       gantt-*.svg
//	trace-cmd report with sched_* events   trace -format ftrace, trace-POLICY.ftrace
//	perf sched replay, rt-app              replay
//	Perfetto UI, chrome://tracing          trace -format chrome, trace-POLICY.json
//	"why did the scheduler do that"        explain
//	the real kernel                        host
//	the course page                        serve
package main
