// This file holds seed004-tbench's notes: the sources read and why the model's figures are what
// they are.

package scenario

// seed004TbenchNotes are seed004-tbench's notes: the sources read, what they say the latency
// column and the patch are, and why the model's figures are what they are.
func seed004TbenchNotes() []string {
	return []string{
		"Sources read: dbench 781852c (2022, the commit mmtests' dbench-install names): child.c child_run calls " +
			"nb_target_rate before each line of the load file, and without --target-rate its tdelay is minus the time since " +
			"its previous call, so child->max_latency is the longest line; dbench.c sig_alarm prints every PRINT_FREQ (1 s) " +
			"the largest max_latency of the clients, or the age of a line still under way, and zeroes it. sockio.c " +
			"do_packets: one line is one write of the request, a read of the answer's 4-byte header and a MSG_WAITALL recv " +
			"of the rest; tbench_srv.c server reads the 4-byte length and the body and writes the answer of the size the " +
			"request names. mmtests of 2022-10 (b5f04c23): config-network-tbench runs tbench -t 180 with 1 to NUMCPUS*4 " +
			"clients in powers of two and the maximum, so the seed's 384 means 96 CPUs (config-scheduler-schbench's " +
			"NUMCPUS/NUMNODES-1 = 23 workers then means 4 nodes); the load file client-tiny.txt is lines 601-4173 of " +
			"client.txt, 3573 lines with 19.1 MB of ReadX/WriteX data a pass, so the seed's 287.6 MB/s at one client is " +
			"about 53,700 lines a second, 18.6 us each (the 20 us of CPU calibrated here); ExtractDbench4latency averages " +
			"the latency column of the per-second lines. The seed's latency is therefore the mean over 180 s of the worst " +
			"line of each second: at one client 0.73 ms, 39 times the mean line, and 0.24 ms with the patch.",
		"The patch (LKML, 2022-10-27, against fair.c e4a0b8bd941c) returns from check_preempt_tick, where it would " +
			"reschedule curr for a vruntime lead over the leftmost entity larger than the ideal slice, when curr is not " +
			"idle and the leftmost is (se_is_idle: a task's SCHED_IDLE policy, a group's cpu.idle; the messaging tasks are " +
			"SCHED_NORMAL, so only their group's entity is idle). That test is reached only once curr has run " +
			"sysctl_sched_min_granularity (0.75 ms scaled by 4: 3 ms) since it was picked. At the root curr is the online " +
			"group's entity, which stays picked while online tasks of its CPU hand over to each other (pick_next_task_fair " +
			"calls set_next_entity only at the levels that change) and leaves when none is runnable. So the patch acts only " +
			"where online tasks kept a CPU 3 ms on end with idle-group work queued there, and what it spares them is the " +
			"idle entity's turn: its slice floored at sysctl_sched_idle_min_granularity (0.75 ms), ended at the next tick.",
		"Not reproduced at 1-64 clients. A tbench side runs about 10 us and blocks, and a woken one preempts an " +
			"idle-group task at once (check_preempt_wakeup: an idle entity against a non-idle one), so the online entity " +
			"of a CPU runs 3 ms on end only where online tasks queue. Traced with the ci profile's latencies (seeds 1-3, " +
			"at 1, 2, 4, 8, 16, 32 and 64 clients): client and server share their CPUs with messaging tasks, which run " +
			"whenever the pair sleeps, but no tick rescheduled an online entity for its lead over the idle group's (the " +
			"only decision the patch changes), and the two kernels' runs are identical. The worst line is a wake-up's " +
			"latency tail: at one client 0.35-0.59 ms (an IPI of 0.33 or 0.51 ms, or a server's first idle exit of about 0.57 " +
			"ms on a CPU idle since the start), near the seed's baseline 0.73 ms but in both kernels; at 64 clients " +
			"1.0-1.3 ms, a woken server that waits for an IPI and then an idle exit on the idle CPU it moved to. The " +
			"seed's means of per-second maxima say that a line of half a millisecond or more, 25-40 ordinary lines, is " +
			"common in the baseline's seconds and rarer with the patch: the size of an idle entity's turn ended at a 1000 " +
			"Hz tick, but that is a guess; the model's long lines are the machine's latencies, the same in both kernels. " +
			"What would be needed: the placement that stacks online tasks on a CPU with messaging work, which depends on " +
			"what the model does not know or simplifies: the seed machine's caches and SMT, perf bench sched messaging's " +
			"real per-message CPU (1-3 us, not msg_us' batch), loopback TCP's wake-ups from softirq context, and PELT's " +
			"group shares (GroupShares uses instantaneous loads).",
		"From 128 clients the online tasks (two a client) with the idle group's 40 outnumber the 96 CPUs: ticks do " +
			"meet the patch's case (traced, seeds 1-3: 0-5 times a run at 128 clients, 0-149 at 256, 108-166 at 384), " +
			"but some client waits most or all of the 20 ms run in both kernels (128: 3.8-20 ms; 256: 17-20 ms; 384: " +
			"20 ms; the seed 9.76, 23.68 and 61.68), so the figure is the run's length. That is the benchmark's start, " +
			"which the seed's figure leaves out: tbench -t 180 (mmtests' tbench-bench passes no --warmup) warms up " +
			"timelimit/5 = 36 s (dbench.c main), sig_alarm prints \"warmup\" lines until then and \"execute\" lines " +
			"after, and mmtests' ExtractDbench4latency averages only the execute lines. Traced at 256 clients (seed 1): " +
			"in 20 ms runs, in both kernels, a server (tbserver12) runnable from its start is never picked and its client " +
			"completes no line; in a run of 0.3 s without the patch a client's first line lasts until 246 ms, and after " +
			"it the worst line of each 20 ms window is 3.1-4.0 ms. Why a new task waits that long is not traced. To give " +
			"tbench's figure the cell would need a warm-up past that start (0.3 s) and then whole 1 s report intervals: " +
			"the 0.3 s run alone took 29 s of this loaded machine (404 MB), against 1.5-2 s for the 20 ms run, so six " +
			"runs of it (two kernels, three repetitions) are minutes, far beyond the main job's minute; it is not done " +
			"here, and the 256-client row (like 128 and 384) stays not reproduced.",
		"SMT is not known: with smt=2 (48 cores x 2 threads; schedbench sweep -grid smt=2 seed004-tbench, 3 runs) the " +
			"worst line is 0.32 ms at one client, 0.95 ms at 64 and the whole 20 ms run at 256, the same in both kernels.",
		"Runs are 20 ms of simulated time, shorter than one of dbench's 1 s intervals, so each gives one worst line (at " +
			"one client the worst of about 1,000 lines, where a second of the seed's holds about 53,700). Throughput (the " +
			"seed's second table, Hmean MB/s, higher is better) is the second metric, in requests/s, printed as a column " +
			"of the main table and, after the latency table, as its own mmtests table (TbenchThroughput); \"mean rt\" is " +
			"the mean round trip, the benchmark's time x clients / answers.",
	}
}
