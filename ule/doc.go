// Package ule is FreeBSD's ULE scheduler (sys/kern/sched_ule.c) written as Go data and pure
// functions: the per-thread and per-CPU state, the kernel's integer arithmetic, and every
// decision ULE takes — which thread runs next, whether a newcomer preempts, which CPU a woken
// thread goes to, what an idle CPU steals, what the periodic balancer moves — as functions of
// explicit inputs, each returning an explanation of the rule that fired. Parameters reproduce
// FreeBSD main as of 2026, the pre-2025 ("legacy") scheduler, FreeBSD 9.0's of 2011 and the
// 2023 patch of seed 000 that never landed. A Scheduler composes it all behind the simulator's Policy interface.
//
// # Interactivity
//
// ULE keeps, for every thread, how long it ran (ts_runtime) and how long it slept voluntarily
// (ts_slptime), in hz ticks shifted left by 10. InteractScore turns the two into a score from 0
// (always asleep) to 100: about 50*run/sleep for a thread that sleeps more than it runs, and, with
// the default threshold of 30, exactly 50 for any thread that runs at least as much as it sleeps.
// Time spent waiting on a run queue counts as neither, so a thread that is starved does not become
// "interactive" by waiting. A time-sharing thread whose score plus nice is below
// kern.sched.ule.interact (30) is interactive. InteractUpdate keeps the history bounded (five
// seconds' worth, SCHED_SLP_RUN_MAX), so that behaviour changes show within seconds; InteractFork
// scales down what a child inherits, so that a shell's compiler child proves itself quickly.
//
// # Priority bands as ranges of one run queue
//
// Priorities run from 0 (most important) to 255. FreeBSD main divides them into interrupt
// threads 0-7, real-time 8-39, kernel 40-55, time sharing 56-223 and idle 224-255 (Layout;
// legacy kernels used 0-15/16-47/48-87/88-223/224-255, FreeBSD 9.0
// 0-47/48-79/80-119/120-223/224-255). ULE splits time sharing in two: interactive threads get 56-114 in proportion to their score (TimesharePriority), batch threads
// 115-223 from their %CPU over the last ten seconds (PctCPUUpdate's window) plus 5/4 of nice+20.
//
// In main, each CPU has one run queue of 256 FIFO queues (package runq) and the three policies are
// three ranges of it (RealtimeRange, TimeshareRange, IdleRange). Pick (tdq_choose) takes the
// first thread of 0-114 in strict priority order — interrupt, real-time, kernel and interactive
// threads — then scans the timeshare range as a circular calendar, then the idle range. Legacy
// kernels had three separate 64-queue run queues per CPU (tdq_realtime, tdq_timeshare,
// tdq_idle) in which four adjacent priorities shared a queue; seed 003 is about that folding,
// and the legacy Version models it with three runq.Runq whose indices stay in 0..63.
//
// # The calendar
//
// Batch threads are not ordered by priority but placed on a calendar: the 109 timeshare queues
// (64 in legacy) form a circle with an insertion offset (tdq_ts_off; legacy tdq_idx) and a
// dequeue offset (tdq_ts_deq_off; tdq_ridx). A batch thread of priority pri is queued
// pri-115 slots ahead of the insertion offset (CalendarIndex; legacy scales 136-223 onto 64
// queues, LegacyCalendarIndex), so a worse priority means a later turn, never no turn. The
// dequeue offset drains queue after queue; while it lags, insertions into the window still being
// drained go just behind it. At each stat tick whose dequeue offset has caught up, the insertion
// offset advances: by 7/4 of a slot on average in main (AdvanceCalendar: 2, 2, 2, 1, because
// main has 109 queues where legacy had 64 and advanced by 1, LegacyAdvance), and the dequeue
// offset skips empty queues (AdvanceDeqOff). A preempted or priority-borrowing batch thread goes
// back to the head of the queue being drained (SRQ_PREEMPTED, SRQ_BORROWING). Every batch thread
// is therefore reached within one turn of the calendar, whatever its priority: ULE's answer to
// starvation, and the reason nice values share CPU less sharply than their priorities suggest.
//
// A thread that sleeps in the kernel is raised to static_boost (PRI_MIN_BATCH) if worse
// (Thread.Sleep), so a woken batch thread lands at the front of the calendar and keeps that
// priority until it returns to user mode (System.ReturnToUser).
//
// # Slices and preemption
//
// A time-sharing or round-robin thread runs for a slice of kern.sched.ule.slice stat ticks (12
// at stathz 127, about 94 ms), shortened when more threads wait (SliceFor: the waiting threads
// together should wait about one slice, never under slice/6). The slice counts up in ts_slice;
// when it is used up (SliceTick) the thread is marked TDF_SLICEEND and goes to the tail of its
// calendar slot. FIFO threads have no slice.
//
// When a thread becomes runnable, ShouldPreempt (sched_shouldpreempt) decides whether it takes the
// CPU at once: never if it is not better than what runs there; always if the CPU idles; otherwise
// only if its priority is below kern.sched.ule.preempt_thresh (40 in main, strictly; 48 in legacy,
// inclusively), which admits interrupt and real-time threads only (and, in legacy, kernel threads
// at exactly 48, PRI_MIN_KERN); and, for another CPU, also when an interactive thread lands on a
// CPU running batch work. Locally, a better thread that does not preempt still gets an AST: the
// running thread switches when it next returns to user mode (SetPreempt). Remotely there is no such
// AST: the woken thread waits for the running one's slice to end unless Notify (tdq_notify) sends
// IPI_PREEMPT. A preemption puts the preempted thread at the head of its queue; an AST does not.
//
// # Placement, stealing, balancing
//
// PickCPU (sched_pickcpu) keeps a woken thread on its last CPU if that CPU (and, on an SMT core,
// its siblings) idles and the thread ran there within the last 2*affinity ticks (at hz 1000: in the
// current or the previous tick); otherwise it searches the highest cache group still warm (within
// level*affinity ticks) for an idle CPU, then the whole machine for a CPU running worse priority,
// then for the least loaded one. Lowest and Highest are the kernel's cpu_search_lowest and
// cpu_search_highest: they compare whole subtrees of the topology by total load (256 per thread),
// visit children last to first and CPUs highest first, favour the thread's previous CPU by 128 and
// break ties with sched_random (Rand). Finally a busy target loses to the waking CPU when that one
// runs worse priority and carries at most one thread more (TDQ_LOAD(self) <= TDQ_LOAD(cpu) + 1).
//
// An idle CPU steals (Steal: tdq_idled from the idle loop, tdq_trysteal from sched_switch with
// a limit of trysteal_limit levels): it looks for a CPU with load >= steal_thresh (2) and a
// transferable thread in its own group, then the sibling group, then higher, and takes the first
// thread in priority order that may run on it (StealFrom). Legacy kernels avoided the head of
// the victim's calendar (runq_steal_from's quirk), in forms that changed over the years
// (Params.CalendarSteal): until FreeBSD 14 "first = td" ran for every thread visited, so the
// fallback tested the last thread visited and a queue whose head was eligible and whose tail was
// not gave nothing; main in 2024 set it once and fell back to the head; FreeBSD 7-9.0 also
// looked at only one queue per pass.
// Once a second, give or take half, the first CPU runs the balancer (Balance: sched_balance),
// which moves one thread from each of the most loaded CPUs to a less loaded one.
//
// # Presets
//
//   - "main" (DefaultParams): FreeBSD main, 2026.
//   - "legacy" (LegacyParams): FreeBSD 13-14's ULE as it stood in 2024, before the 2025 rework
//     (OlCe2/freebsd-src @366ae94e): three 64-queue run queues, the legacy layout and batch
//     formula, the tdq_idx/tdq_ridx calendar, preemption at <= 48, the legacy %CPU window and
//     SCHED_AFFINITY (signed ints), the stealing quirk. Older 13.x code (freebsd-src @d8d5f036)
//     differs in two details that "legacy" does not model, both of them 2011's (preset
//     "freebsd9" models them on its own layout): its tdq_notify compares the woken thread with
//     the remote CPU's running thread instead of the queue's lowest priority before and after
//     the add (Params.NotifyRunning), and its interactive priority divides before it
//     multiplies ((48/30)*score, so score 20 gives 108 instead of 120).
//   - "freebsd9" (FreeBSD9Params): ULE as FreeBSD 9.0 shipped it (its SMP code dates from 2008
//     and shipped in 8.0 too), the scheduler of seed 001 (see below).
//   - "seed000" and "seed000-psX-ptY" (Seed000Params): legacy with the two knobs of Mateusz
//     Guzik's 2023 patch "ule: queue partial slice users on tdq_realtime and enable more
//     preemption" (seed 000), which never landed: kern.sched.pick_short and preempt_thresh
//     (48 stock, 224 patched). The four rows of the seed's table are the four combinations.
//
// What is modelled of pick_short, and what is assumed. The patch text is not available; only its
// commit message is (seed 000). The model reads it literally: a batch-priority thread whose last
// run ended before its slice did — it slept, yielded or was preempted (Thread.Short, set by
// System.Switch) — is queued by priority in the real-time run queue (legacy: tdq_realtime at
// pri/4) instead of on the calendar, so it runs before every calendar thread. The test is on
// how the run ended, not on ts_slice, because every kernel read resets ts_slice to 0 at wake-up,
// so a test on ts_slice could never fire there. On the main layout, which has no free queue
// below the calendar, such threads go to queue 114, the last of the real-time range: an
// extrapolation, not FreeBSD code. The commit message says the threshold became
// PRI_MAX_TIMESHARE (223) while the seed's table uses 224; with legacy's inclusive test the two
// differ only for idle-class threads of priority 224.
//
// At the level of decisions the model reproduces the seed's table: with a nice-20 hog and a
// batch "gzip" bound to one CPU and woken from another, gzip waits about a slice per wake-up in
// rows (0,48), (0,224) and (1,48) and not at all in (1,224). In (0,224) the wake-up does
// preempt, but the preempted hog goes back to the head of the queue being drained and is chosen
// again; in (1,48) gzip is first in line but nothing preempts the hog until its slice ends.
//
// # FreeBSD 9.0 (preset "freebsd9")
//
// Steve Kargl's measurements of December 2011 (seed 001) ran the ULE of FreeBSD 9.0, before
// Alexander Motin's 2012 rework of its SMP code. The preset is read in 9-CURRENT's
// sys/kern/sched_ule.c 1.290 of 2011-01-14 with its sys/sys/priority.h (rodrigc/bz-vimage
// @191fe5570364da41649df401cb58beb5c92393c6), the closest copy to 9.0-RELEASE (January 2012,
// branched from head in September 2011) that the public sources offered: no stable/9 or
// releng/9.0 copy of the file of that time was found: the stable/9 copies available are of
// 2013 (thinkmoore/freebsdold @2de84cce, r255569 of 2013-09-14, 661 lines of diff against 1.290)
// and releng/9.3 (dcui/FreeBSD-9.3_kernel @8087198, r262057 of 2014), both with the 2012 rework. Between January and September
// 2011 head also converted cpumask_t to cpuset_t (June 2011), which changes no decision; a
// change to the modelled functions in those months cannot be excluded. The SMP functions below
// (balancer, searches, stealing, placement, tdq_notify) are the same in FreeBSD 8.0-RELEASE
// (oza/FreeBSD-8.0-dyntick @cff798ab); its priority layout, calendar mapping and
// sched_priority were older. Differences from "legacy" (2024):
//
//   - Priority layout (Version FreeBSD9; priority.h of 2011): interrupt 0-47, real-time 48-79,
//     kernel 80-119, time sharing 120-223 with interactive 120-151 and batch 152-223, idle
//     224-255, on the same three run queues of 64 queues (RQ_PPQ 4) as legacy. Interactive
//     threads go to tdq_realtime at pri/4, like every priority below PRI_MIN_BATCH. (8.0 had
//     the older layout, time sharing 160-223 with interactive threads in the real-time range.)
//   - Calendar (FreeBSD9CalendarIndex): TS_RQ_PPQ = 72/64 = 1, so each batch priority has its
//     own queue, (pri-152+idx) % 64, and 216-223 wrap onto the 8 queues at idx: a nice +13..+20
//     hog is queued ahead of a nice 0 one. Legacy scales 88 priorities onto 64 queues
//     (LegacyCalendarIndex). The advance of tdq_idx (one queue per stat tick once ridx caught
//     up) and the removal of tdq_ridx are the same.
//   - sched_priority (TimesharePriority): interactive 120 + (32/interact)*score, dividing first
//     (120 + score at the default threshold 30); batch 172 + SCHED_PRI_TICKS + nice over a range
//     of 32 with no clamp, so a thread that used its whole window gets 204, and with nice +20
//     224, an idle priority (the clamp came in 2012).
//   - %CPU (PctCPUUpdate): charged one hz tick at a time in sched_tick and rescaled to a
//     10-second window only once it exceeds 11 seconds or at a wake-up after 1/10 s or more;
//     sched_choose only sets ts_ltick. Legacy updates the window at every switch.
//   - preempt_thresh = PRI_MIN_KERN = 80 (inclusive, options PREEMPTION): real-time and kernel
//     threads preempt locally; interactive threads preempt batch ones only on other CPUs
//     (PRI_MAX_INTERACT = 151). static_boost = PRI_MIN_BATCH = 152. An interrupt thread whose
//     slice expires is rescheduled like any other (no demotion by RQ_PPQ).
//   - Balancer (Params.SMP = SMP2008; sched_balance, sched_balance_group, sched_balance_pair):
//     from the root down, each group runs one combined search (sched_both) for its least and
//     most loaded CPU and moves ceil(diff/2) threads (at most the donor's transferable count)
//     by tdq_move, stopping after the first pair that moved anything; a pair that moves nothing
//     drops the donor (if it has nothing transferable) or the receiver and searches again. Loads
//     2 and 1 become 1 and 2: the imbalance changes sides. The combined search's reset slip
//     (lgroup.cs_load = 0 where hgroup was meant) finds no low CPU under a group with children,
//     so only leaf groups are balanced; across packages or caches the balancer does nothing.
//     The legacy balancer moves one thread per pair over the whole tree, weighs loads by 256
//     with a random tie-break and asks a lone running thread to re-pick (TDF_PICKCPU), which
//     2011 could not. balance_interval = realstathz and the period
//     max(balance_interval/2, 1) + random() % balance_interval are the same; the first period is
//     drawn at boot (sched_setup_smp calls sched_balance) instead of being balance_interval.
//   - Searches (cpu_search, cpu_compare: Lowest2008, Highest2008, Both2008): plain loads, no
//     random tie-break, a leaf's CPUs from the lowest id up, children first to last, strict
//     comparisons, so ties go to the lowest-numbered CPU; the highest search carries the best
//     load into later children (the same slip), so a later CPU must beat it.
//   - Idle stealing (tdq_idled): steal_thresh = min(fls(ncpu) - 1, 3) (StealThresh -1: 1 on 2
//     CPUs, 2 on 4, 3 from 8), 1 inside an SMT group; the thief climbs to the parent (no
//     sibling shortcut), and each candidate leaves the mask whether it yields a thread or not.
//     There is no tdq_trysteal (TryStealLimit 0), and the idle loop calls tdq_idled on every
//     pass (AlwaysSteal).
//   - The first-thread quirk (CalendarSteal = StealOneQueue): runq_steal_from looks at one
//     queue per pass (the first non-empty one at or after tdq_ridx, then the first of all if
//     ridx is not 0), never returns the first thread it visits on that visit and has no
//     fallback: a CPU with one thread running and one queued gives the queued one up only when
//     ridx is not 0 and its queue is at or after ridx. Balancing and stealing both go through it.
//     Interactive threads sit in tdq_realtime, which runq_steal searches without the quirk.
//   - Placement (sched_pickcpu): the previous CPU if it idles, or if the thread ran there within
//     2*affinity ticks and it runs worse priority; otherwise the least loaded CPU running worse
//     priority in the lowest group that is still cache-affine (SCHED_AFFINITY at its cg_level),
//     else the least loaded CPU of the machine; the waking CPU wins if it runs worse priority
//     and the choice is busy, whatever its load. sched_switch re-picks only a thread whose
//     affinity excludes its CPU.
//   - tickincr and realstathz: the same formulas (realstathz = stathz or hz, tickincr =
//     max(1, (hz << 10)/realstathz)); sched_slice = realstathz/10 for every thread whatever the
//     load (FixedSlice: no tdq_slice, no sched_slice_min); ts_slice counts down from sched_slice,
//     restarts at a wake-up and at expiry, and a forked child reschedules after one tick.
//   - Remote wake-ups (tdq_notify; NotifyRunning, NotifyThread): the woken thread is compared
//     with the thread the remote CPU runs, not with that CPU's lowest priority before the add,
//     so a CPU that already queues a better thread than it runs is still sent IPI_PREEMPT for
//     a newcomer better than its running thread.
//   - A preempted thread (an owed preemption or IPI_PREEMPT: SW_PREEMPT) goes back to the head
//     of its queue even when its slice had just expired; 1.290 has no TDF_SLICEEND.
//
// Not modelled: the idle loop's spinning; %CPU as ps(1) shows it (sched_pctcpu updates the
// window first).
//
// No "freebsd7" preset. FreeBSD 7.x never had the cpu_group code above: stable/7's sched_ule.c
// (1.214.2.12.2.1, FreeBSD 7.3, oza/FreeBSD-7.3-dyntick @ebeeed7d) still balances tdq_groups
// (sched_balance picks the most and least loaded group from a random start, sched_balance_groups
// the members of each group), places threads with tdq_lowestpri and tdq_lowestload, and uses the
// 2007 layout (time sharing 160-223, interactive threads in the real-time range 128-159). It would
// differ in what matters to seed 001 — balancer and placement — but Kargl measured FreeBSD 9, so it
// would add a column, not reproduce his; it is left for later.
//
// # The Scheduler
//
// Scheduler maps the simulator's events onto the kernel's entry points (see its documentation) with
// these modelling choices: a thread returns to user mode, taking its user priority, as soon as it
// is picked; sleeps pass no sleep priority (static_boost 1 therefore boosts nothing); ticks are
// those of a machine up UptimeSeconds (see "The tick origin" below); the idle loop runs at Pick and at each stat tick of an idle CPU (stealing when the
// switch count changed, or always with always_steal); idle spinning, IPI latency, priority lending
// and interrupt threads woken from interrupt context are not modelled (the pure functions accept
// interrupt threads and the intr flag). ULE has no group scheduling, so AddGroup fails.
//
// Attributes: a real-time priority is an rtprio(2) level (sched.RTFreeBSD, 0..31, 0 most
// important), mapped to PRI_MIN_REALTIME + level as rtp_to_pri does, so in legacy and freebsd9
// four levels share a 64-queue run queue (seed 003). Scheduler.CheckAttr lists the attributes
// that have no ULE meaning and what the Scheduler runs instead.
//
// The decisions share one shape, F(state…, p *Params) (result, Reason), where p is present
// only when the state does not already hold it: SetPreempt(pri, cpri, p) takes it, while
// Pick(c), StealFrom(victim, thief) and the System's methods read the Params their state was
// built with (CPUState.Params, System.Params). A CPUState keeps a pointer to those Params because
// the shape of its run queues (one of 256 queues in main, three of 64 in legacy) is fixed then
// and its mutating methods read the tunables, so no caller can hand a decision Params that
// disagree with the state.
//
// # The tick origin
//
// The kernel's ticks count hz clock interrupts since boot. FreeBSD's start at 0 and are never
// preset (kern_clock.c's "int ticks" in 2011, rodrigc/bz-vimage @0db9990a; "volatile int ticks"
// in main, fel1x-developer/freebsd-src @2d614aa2; since 2025 the low half of the zeroed ticksl
// of subr_ticks.S, freebsd/freebsd-src @159d29d3). The seeds ran on machines up for a long time,
// so the Scheduler's ticks at simulated time 0 are those of a machine up UptimeSeconds (600 s).
//
// The origin matters to SCHED_AFFINITY alone: whether a thread last switched out within
// level*affinity ticks. Only sched_switch sets ts_rltick; sched_fork_thread leaves it (2011,
// sched_ule.c 1.290, rodrigc/bz-vimage @191fe557, as in main), so a new thread's holds the last
// switch-out of its recycled struct thread's previous owner, normally long past, for which the
// model's 0 stands. With ticks starting at 1, as they did before, every thread forked in the
// first 2*affinity ticks was affine to its parent's CPU. Any origin above a few ticks and below
// the int wrap gives the same decisions (7 s and 3600 s leave bench/sim's policy digests as they
// are); the wrap itself (24.8 days at hz 1000) is not modelled.
//
// # Kernel names
//
//	sched_ule.c, priority.h                 package ule
//	struct td_sched, struct thread fields   Thread
//	struct tdq                              CPUState (one per CPU, inside System)
//	TDQ_LOAD, tdq_transferable, tdq_lowpri  CPUState.Load, Transferable, LowPri
//	cpu_top, DPCPU tdq                      System
//	kern.sched.ule.* sysctls                Params
//	priority.h PRI_* ranges                 Layout, Version.Layout
//	td_pri_class, PRI_ITHD … PRI_FIFO       Class
//	SRQ_* flags                             AddFlags
//	sched_interact_score                    InteractScore
//	sched_interact_update                   InteractUpdate
//	sched_interact_fork                     InteractFork
//	sched_priority                          TimesharePriority, Thread.UpdatePriority
//	sched_pctcpu_update, sched_pctcpu       PctCPUUpdate, PctCPU (and 2011's sched_tick)
//	tdq_slice, td_slice                     SliceFor, CPUState.Slice, CPUState.ThreadSlice
//	end of sched_clock (slice)              SliceTick, Thread.ChargeTick
//	tdq_runq_add (batch branch)             CalendarIndex, LegacyCalendarIndex, FreeBSD9CalendarIndex
//	sched_clock (calendar)                  AdvanceCalendar, LegacyAdvance, CPUState.ClockQueue
//	tdq_advance_ts_deq_off                  AdvanceDeqOff
//	runq_remove_idx(…, &tdq_ridx)           LegacyRemove
//	tdq_runq_add, tdq_runq_rem              CPUState.RunqAdd, CPUState.RunqRemove
//	tdq_load_add, tdq_load_rem              CPUState.LoadAdd, CPUState.LoadRemove
//	tdq_add, sched_rem, tdq_setlowpri       CPUState.Add, CPUState.Remove, CPUState.UpdateLowPri
//	tdq_choose, sched_choose                Pick, CPUState.Choose
//	sched_shouldpreempt                     ShouldPreempt
//	sched_setpreempt, tdq_notify            SetPreempt, Notify, NotifyThread
//	sched_random                            Rand
//	struct cpu_search, cpu_search_res       cpuSearch, cpuSearchRes
//	cpu_search_lowest, sched_lowest         System.Lowest (cpuSearchLowest)
//	cpu_search_highest, sched_highest       System.Highest (cpuSearchHighest)
//	tdq_cg                                  Topology.Leaf (CPUState.cg)
//	sched_pickcpu, SCHED_AFFINITY           System.PickCPU
//	tdq_steal, runq_steal_pred              StealFrom
//	runq_steal_from (legacy quirk)          Params.CalendarSteal, CalendarSteal
//	tdq_idled, tdq_trysteal                 System.Steal (limit 0 or trysteal_limit)
//	tdq_move                                System.Move, System.MoveThread
//	sched_balance_group, sched_balance_pair System.Balance
//	cpu_search, cpu_compare (2008)          System.Lowest2008, Highest2008, Both2008 (Params.SMP)
//	steal_thresh (2008 default)             System.StealThreshold
//	sched_add                               System.Add
//	sched_switch, sched_throw               System.Switch
//	sched_sleep, sched_wakeup               Thread.Sleep, Thread.WakeAccount
//	sched_fork, sched_exit_thread           Thread.Fork, Thread.ExitChild
//	sched_prio, sched_thread_priority       System.SetPriority
//	sched_affinity                          System.SetAffinity
//	sched_userret_slowpath                  System.ReturnToUser
//	sched_nice, rtp_to_pri, sched_idletd    Scheduler.SetAttr, Scheduler.Tick
//	(a debugger's look at tdq, td_sched)    Scheduler.Snapshot, State
//	(the loads a cpu_search compared)       System.RecordSearches, TakeSearches, Search
//
// # Snapshots for the course
//
// [Scheduler.Snapshot] returns a [State]: each CPU's struct tdq, with its calendar offsets and
// run queues, and every thread's td_sched, with sched_interact_score and sched_pctcpu. It only
// reads: taking one never changes a decision (a test compares a run's trace hash with and without
// a snapshot after every event).
//
// A snapshot is the state between decisions; the loads a CPU search compared are the state
// during one. [System.RecordSearches] keeps every sched_lowest and sched_highest made (PickCPU's
// one to three searches, Steal's and Balance's) as a [Search]: its criteria, what it read of
// each CPU and the CPU found. The record is written after the search from the same loads, so it
// decides nothing and draws nothing.
//
// # Sources
//
// Main: mchoo7/freebsd-src sys/kern/sched_ule.c @3521c70fa20cb998249455b3157c49b5c76262d6 (a
// fork tracking main in 2026; upstream reviews D45387-D45393). Legacy: OlCe2/freebsd-src
// sys/kern/sched_ule.c @366ae94e2732ac400423aa3b111336e07c3aa779, just before the rework. The
// FreeBSD 10-14 form of runq_steal_from: freebsd/freebsd-src @d8d5f03610e905815989a61bef515126c14bd736
// and sobomax/freebsd14_vendor @0f7ff3427c99afe8b7a0ccf8638dc10aed02c3f8. FreeBSD 9.0:
// rodrigc/bz-vimage sys/kern/sched_ule.c 1.290 @191fe5570364da41649df401cb58beb5c92393c6
// (9-CURRENT, January 2011), checked against FreeBSD 8.0-RELEASE (oza/FreeBSD-8.0-dyntick
// @cff798ab6107a9726ceff9219ac8c0272e7fe327) and releng/9.3 (dcui/FreeBSD-9.3_kernel
// @808719858c6e53f558e128011dc1d75fbb57f8ef); FreeBSD 7.3: oza/FreeBSD-7.3-dyntick
// @ebeeed7dc9236ff99339dc01d58b6cc391756ed8. The tests cite them case by case.
//
// # One function per decision, the load index, cost and concurrency
//
// Each decision has one implementation, written in the shape of the kernel function it names (the
// table above), and it is the one that runs: the exported functions and methods are the ones the
// Scheduler calls. The searches of the CPU topology — cpu_search_lowest and cpu_search_highest,
// under sched_pickcpu, tdq_idled and sched_balance — read every CPU's load, which the System keeps
// in one array that only the CPUStates write. On machines of IndexCPUs (16) CPUs or more,
// sched_lowest and sched_highest hand their searches to the load index (package
// ule/internal/loadindex, whose documentation describes its faster forms), which keeps the loads
// as masks of 64 CPUs a word and returns the kernel's answer, moving sched_random draw for draw
// as the kernel's loop does; this package's tests check every search with the index against the
// same search without it. On every machine the index also counts the CPUs that have a
// transferable thread, so that an idle CPU's steal search, while there is none, ends at once
// with the reason the climb gives. docs/performance.md in the repository has the measurements.
//
// Pick and the calendar arithmetic are O(1); the searches are O(CPUs and groups searched)
// (O(CPUs/64) with the index) and, like every decision here, allocate nothing (TestZeroAllocs).
// Nothing in the package is safe for concurrent use: the kernel serialises each CPU's queue with
// its lock, and callers must serialise calls the same way. New refuses invalid Params with an
// error; misuse (queueing a queued thread, switching out an idle CPU, forking an existing thread
// id, an unknown thread, a second wake-up, a CPU outside the machine) panics with a message
// starting with "ule: ".
package ule
