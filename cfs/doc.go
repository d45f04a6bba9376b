// Package cfs models Linux's fair scheduling class as it was in classic CFS, the Completely
// Fair Scheduler of Linux v6.5 (the last release before EEVDF): the weight tables and their
// fixed-point arithmetic with the kernel's exact integer semantics, the vruntime timeline, the
// per-queue and per-CPU state with its state changes, task groups (cgroups) with shares and the
// idle flag, and the decisions (pick, tick preemption, wakeup preemption, placement) as pure
// functions over that state. The same state runs EEVDF, the Earliest Eligible Virtual Deadline
// First pick that replaced classic CFS in v6.6, in its v6.6, v6.18 and v7.1 forms (see [V618]
// for how v6.18 sits between them): a [Params] preset ([Preset] "v6.5", "v6.6", "v6.18" or
// "v7.1", listed by [Presets]) chooses the policy of a CPU, so one workload runs under each.
//
// # Weights
//
// Every task has a weight that follows from its nice level through a 40-entry table,
// sched_prio_to_weight: 1024 for nice 0, and about 1.25 times more for each step down (88761 for
// nice -20) or less for each step up (15 for nice 19). The factor 1.25 is chosen so that one
// nice step moves about 10% of the CPU between two competing tasks: with weights 1024 and 820,
// nice 0 gets 55.5% and nice 1 44.5%. The kernel also keeps the table of inverses 2^32/weight,
// sched_prio_to_wmult, so that dividing by a weight becomes a multiplication and a shift.
//
// On 64-bit kernels loads carry ten more bits of resolution: NICE_0_LOAD is 1<<20 and
// scale_load(w) is w<<10; scale_load_down(w) shifts back but floors the result at 2 so that tiny
// group weights never vanish. A SCHED_IDLE task weighs scale_load(3) whatever its nice, about
// 1/341 of a nice-0 task. [Weight], [ScaleLoad], [ScaleLoadDown] and [TaskLoad] give these
// values; [LoadWeight] is struct load_weight with its cached inverse, a task's the table's
// ([LoadWeight.Inverse]).
//
// # Exact arithmetic
//
// __calc_delta computes delta*weight/lw.weight. Up to v7.0 64-bit kernels do it with the 32-bit
// inverse of lw, shifting the intermediate factors back into 32 bits and the final 96-bit
// product right by what is left of 32 ([DeltaWMult]); the result is usually 0 or 1 below the
// exact quotient, and it depends on whether lw carries the table inverse (a task's own load) or
// the computed one (a sum of loads, which gets 0xFFFFFFFF/w: 4194303 rather than 4194304 for
// nice 0). That is why two nice-0 tasks get 2999998 ns of a 6 ms period rather than 3 ms. Since
// commit db4551e2ba34 (v7.1) 64-bit kernels divide instead, letting the product wrap
// ([DeltaDiv]). [CalcDelta] takes the method as a parameter, so that presets of both eras
// share the code; [CalcDeltaFair] is calc_delta_fair, the conversion of run time into virtual
// time.
//
// # Virtual runtime
//
// Each entity's vruntime advances by its run time scaled by 1024/weight: a nice-0 task's
// vruntime runs at wall-clock speed, a nice-19 task's 68 times faster, a SCHED_IDLE task's 341
// times faster. CFS always runs the entity with the smallest vruntime, so over time every entity
// gets CPU time in proportion to its weight. vruntime is an unsigned 64-bit clock that is
// allowed to wrap: every comparison is int64(a-b) < 0 ([Before], [MaxVruntime], [MinVruntime]),
// and a fresh queue starts its min_vruntime at 2^64-2^20 ([InitialMinVruntime]) so that the wrap
// happens after about a millisecond (2^20 ns of nice-0 time) and wrap bugs cannot hide.
//
// Each queue keeps min_vruntime, a monotonic floor that follows the smallest vruntime of its
// running and waiting entities. New and waking entities are placed against it ([PlaceEntity]):
// a forked task starts one virtual slice after it (START_DEBIT: the current period is already
// promised to the others), a waking sleeper at most half a latency period before it
// (GENTLE_FAIR_SLEEPERS: some credit for having slept, but not enough to monopolise the CPU), and
// never earlier than its own old vruntime; a task that slept for more than about 104 days is
// placed at the base unconditionally, because its old vruntime can no longer be compared.
//
// # The timeline, and why not the 256-queue run queue
//
// FreeBSD's schedulers keep runnable threads in 256 FIFO queues indexed by priority, with a bitmap
// of non-empty queues: the pick is a find-first-set, O(1), since a priority takes few values and
// changes rarely. A vruntime takes any of 2^64 values and changes every time the entity runs, and
// fairness depends on the exact order: 256 buckets would serve entities out of order within one and
// need a moving window over an unbounded clock. So CFS orders entities in a red-black tree by
// vruntime, caching the leftmost node: the pick is O(1), insertion and removal O(log n).
//
// Every [Queue] keeps its waiting entities on such a tree, a timeline.Timeline (package timeline:
// the kernel's rb_root_cached, intrusive, allocation-free, FIFO among equal keys), keyed by
// vruntime, or by virtual deadline in v7.1. Under EEVDF every node also keeps the minimum of a
// second value over its subtree, updated at each rotation: the minimum deadline (v6.6, ordered by
// vruntime) or the minimum vruntime (v7.1, ordered by deadline), to find the eligible entity with
// the earliest deadline in O(log n); a classic CFS queue pays nothing for it.
//
// # Slices, the tick and the latency/granularity trade
//
// Classic CFS has no fixed time slice. It promises that every runnable entity runs once within
// sched_latency (6 ms times a factor 1+log2 of the CPU count, capped at 8 CPUs: 24 ms on a large
// machine, see [Params.ForCPUs] and [Preset]), and gives each entity a share of that period
// proportional to its weight ([Period], [Slice]). With many entities the period stretches to
// nr*min_granularity, so slices never drop below the minimum granularity (0.75 ms times the
// factor): a short latency means frequent switches and lost cache warmth, a long one means
// interactive tasks wait. The tick enforces the slices ([CheckPreemptTick], check_preempt_tick):
// the running entity is switched out once it ran longer than its ideal slice, or once, having run
// at least the minimum granularity, its vruntime is ahead of the leftmost waiting entity's by
// more than that slice (a virtual lead compared with a wall-clock slice, as in the kernel).
//
// Wakeups preempt too ([CheckPreemptWakeup]): a waking task takes the CPU at once if its
// vruntime is before the running one's by more than the wakeup granularity (1 ms times the
// factor), converted into the wakee's virtual time, so a light wakee needs a larger lead. The
// granularity keeps tasks that wake up often from thrashing the CPU with switches. Buddies bend
// the strict order a little: the next buddy (a wakee that preempted) and the last buddy (the
// task it preempted, whose cache is warm) are preferred by [Pick] as long as they are within a
// wakeup granularity of the leftmost entity, and a skip buddy (a task that called sched_yield)
// is passed over under the same condition.
//
// # EEVDF: eligibility, deadlines and lag (v6.6, v7.1)
//
// EEVDF (Stoica and Abdel-Wahab, 1995) keeps CFS's weights and vruntimes but changes what is
// picked. The queue's virtual time V is the weighted average of the vruntimes of its queued
// entities, running one included ([AvgVruntime]). An entity's lag, w·(V - v), is the service it
// is owed; the lags of a queue sum to zero. An entity is eligible when its lag is not negative,
// v <= V ([VruntimeEligible]). Every entity makes requests of Slice nanoseconds, 0.75 ms (v6.6) or
// 0.70 ms (v7.1) times the CPU-count factor ([Params].DefaultSlice) unless it asked for another
// one (v7.1: sched_attr.sched_runtime, [Entity.SetSlice], [RunQueue.SetSlice], clamped to
// 0.1..100 ms); a request made at vruntime v has the virtual deadline v + Slice·1024/weight
// (v + [CalcDeltaFair] of the slice; [PlaceEntity]'s Placement.Deadline).
// The pick is the eligible entity with the earliest virtual deadline ([pickEEVDF]): eligibility
// makes it fair (nobody runs ahead of its share for long), the deadline makes short requests
// responsive (a task asking for little at a time is served sooner, with the same share). There
// is no latency period, no minimum or wakeup granularity and no tick rule: when the running
// entity's vruntime reaches its deadline the request is served, a new one is made from the
// current vruntime, and a reschedule is asked for if anyone else is queued (update_deadline).
//
// Computing V exactly would need Σ w_i·v_i over 64-bit vruntimes. The kernel keeps instead, per
// queue, S = Σ (v_i - v0)·w_i and W = Σ w_i over the timeline, relative to a reference point v0,
// and adds the running entity on the fly: V = v0 + floor(S/W), eligibility S >= (v - v0)·W without
// a division ([VruntimeEligible]). v6.6 uses v0 = min_vruntime and weights scaled down to 1024
// for nice 0, shifts S by W·Δ whenever min_vruntime advances by Δ, and compares in wrapping
// 64-bit arithmetic (its divisions take 32-bit divisors); v7.1 uses full 2^20-scaled weights,
// compares with a 128-bit product, and moves v0, renamed zero_vruntime, onto V each time it
// computes V ([Sums]: Zero, SumWVruntime, SumWeight; [Queue.Sums]). The model keeps
// the same sums with the same integer semantics; the floor makes an entity exactly at V
// eligible, and a lone entity always is.
//
// These functions take the sums as explicit values ([Sums]; a queue gives its own with
// [Queue.Sums]), so that any state the kernel can be in can be asked, including states the enqueues
// of a test would take long to reach: sums near the limits of s64, where the kernel's wrapping
// arithmetic gives surprising answers, or a v6.6 weight of 2^31 and more, which div_s64 truncates
// to 32 bits. [PickEligible] is the pick of v6.18 and v7.1 over explicit entities, with the running
// entity's slice protection. [NewRunQueueAt] builds a run queue at a chosen state: the entities
// with the vruntimes, deadlines, weights (any, not only the nice table's), slices and protection
// point given and the queue's reference point, nothing placed or normalised, so that every decision
// of the package ([Pick], [CheckPreemptWakeup] after a wakeup, a tick) can be asked about it.
//
// When an entity leaves its queue its virtual lag V - v is saved in VLag, clamped to
// ±[lagLimit] ([EntityLag]), and when it joins a queue again it is placed at V - lag
// ([PlaceEntity], PLACE_LAG): a task that overran its share pays it back later, one that was
// waiting keeps its credit, across sleeps and migrations. Because the newcomer's own weight
// pulls V towards it, the lag is first inflated by (W + w)/W. A new task starts at V with lag 0;
// its first deadline is half a request away in v7.1 (PLACE_DEADLINE_INITIAL) and a full one in
// v6.6, whose wake_up_new_task re-places the task without ENQUEUE_INITIAL ([RunQueue.Fork]). A change
// of weight scales a saved lag, and a queued entity's relative deadline, by old/new weight (v7.1
// also moves the queued entity to V - lag, so that V does not move). v7.1 delays the dequeue of
// a task that goes to sleep with negative lag (DELAY_DEQUEUE): it stays queued
// ([Entity.Delayed]) until it is picked, when it leaves with its lag clipped to 0 (DELAY_ZERO), or
// woken, when it simply stays. Without that, a periodic task would carry the negative lag of its
// last burst into every wakeup and never be eligible when it wakes. A delayed task still counts
// in h_nr_running (h_nr_queued) and in its queue's load, but not in h_nr_runnable
// ([Queue.HNrRunnable]); a migration or an attribute change (nice, slice, group), which dequeues
// and enqueues it without a sleep, keeps it delayed; a delayed entity that the wakeup-preemption
// pick chooses leaves for good there too, and a delayed wakee never preempts. An exit is never
// delayed ([RunQueue.Exit], DEQUEUE_SPECIAL).
//
// The two versions find the pick differently on the augmented timeline, both in O(log n):
// v6.6 orders the timeline by vruntime, so eligibility is a prefix of the tree, and each node
// keeps the earliest deadline of its subtree; the search walks down from the root, discarding
// right subtrees past V, remembering the best fully eligible left subtree, and descends it along
// its minimum at the end. v7.1 orders the timeline by deadline and each node keeps the smallest
// vruntime of its subtree; it takes the leftmost entity if eligible, and otherwise walks down
// from the root into the left subtree whenever it contains an eligible entity (its minimum
// vruntime is), taking the first eligible node on the way. Both compare the running entity,
// which is off the timeline, separately.
//
// Run to parity: switching at every deadline would switch too often, so a picked entity is kept
// a while. v6.6 keeps the running entity while it stays eligible and has not started a new
// request (the pick stashes its deadline in VLag and compares). v7.1 gives it a protection point
// VProt, its deadline or its vruntime plus the shortest slice on the queue, whichever comes first
// (set_protect_slice: the pick of [RunQueue.Schedule] sets [Entity].VProt; the protection
// holds while Before(Vruntime, VProt)); the tick asks for a reschedule once the vruntime passes
// it. In both, [RunQueue.Schedule] picks with the running task still in place, as the kernel's
// group-scheduling path does (CONFIG_FAIR_GROUP_SCHED, as in distribution kernels), so the
// protection can keep it; re-picking the running task changes nothing. Wakeup preemption
// ([CheckPreemptWakeup]) asks the pick itself: the wakee preempts when the pick on the level
// where the two hierarchies meet chooses it. In v6.6 that means a wakee can preempt only an
// entity that no longer runs to parity. v7.1 lets a wakee with a shorter slice ignore the
// running entity's protection (PREEMPT_SHORT), and otherwise cuts that protection to the
// shortest slice; a forked task does not preempt; an eligible next buddy (the group of a task that
// just went to sleep) is picked first (PICK_BUDDY).
//
// Not modelled from v7.1: PARANOID_AVG's overflow fallback (off by default), the high-resolution
// tick (HRTICK), proxy execution, and WF_SYNC wakeups with NEXT_BUDDY (off by default). The kernel
// leaves a new timeline node's max_slice stale, which its lag clamp can briefly see; the model uses
// the true maximum ([Queue.MaxSlice]).
//
// [Scheduler.Snapshot] returns a read-only [State] for the course, the picture a student draws of
// each CPU's root cfs_rq: nr_running, load, min_vruntime (v7.1's zero_vruntime), V = avg_vruntime,
// and the running entity then the tree in order, each with its vruntime, deadline, slice, weight,
// nice, lag V − vruntime and entity_eligible. Taking one never changes a decision (a test compares
// trace hashes with and without one after every event); `schedbench explain -state` prints it.
//
// [System.RecordComparisons] keeps what the SMP decisions compared (the CPUs a select_task_rq_fair
// chose among, every group a find_busiest_group weighed with its sg_lb_stats) and changes nothing;
// [System.TakeComparisons] returns the records, values of the module's internal package comparelog.
//
// # SCHED_BATCH and SCHED_IDLE
//
// SCHED_BATCH tasks are weighted like SCHED_NORMAL ones but never preempt on wakeup: only the
// tick switches to them. SCHED_IDLE tasks, and every task below a cgroup with cpu.idle set, are
// meant to soak up the cycles nothing else wants: they weigh 3 (1/341 of nice 0), never preempt
// on wakeup, are preempted at once by any waking non-idle task, are never buddies, get a smaller
// sleeper credit and an unscaled 0.75 ms slice floor when they compete with non-idle entities,
// and a CPU running only them counts as idle for wakeup placement ([RunQueue.IdleOnly]).
//
// It is deliberately not a strict priority. A strictly lower class could starve forever, and an
// idle task that holds a lock or other resource a normal task waits for would then block that
// task forever too (priority inversion). Weight 3 instead guarantees idle entities a trickle of
// CPU, about 0.3% against one nice-0 hog, which is enough to make progress and release what they
// hold. Seed 004 discusses the consequences: users who want an idle cgroup to get a real share
// are told that its weight is fixed on purpose (the kernel refuses to set the shares of an idle
// group: [Group.SetShares] returns the error), and a proposed patch, "favor non-idle group in
// tick preemption", would let a non-idle running entity use up its slice instead of being
// preempted on its vruntime lead over an idle leftmost entity. [Params.FavorNonIdleTick] adds
// that rule (off in every preset). As Josh Don pointed out in the thread, it also hides a
// non-idle entity queued behind the idle leftmost, whose own lag the tick then ignores.
//
// # Group scheduling
//
// A task group (a cgroup with the cpu controller, [Group]) has shares (cpu.weight 100 = 1024,
// [Group.SetCPUWeight]) and, on every CPU, its own [Queue] and a group [Entity] that competes in
// its parent's queue on that CPU with the group's weight. Picking descends from the CPU's root
// queue: pick an entity; if it is a group entity, pick again in its queue, until a task
// ([RunQueue.Schedule]). Fairness is therefore hierarchical: two groups of equal shares split the CPU
// in half whatever the number of tasks in each. A group entity's weight is the group's shares
// times the fraction of the group's load that is on this CPU ([GroupShares]); the kernel
// estimates the other CPUs' load with PELT averages, the model uses instantaneous queue weights
// (the exact formula PELT approximates). vruntimes and min_vruntime are per queue, so entities are
// compared only with siblings: a wakeup is judged between the two entities where the wakee's and
// the running task's hierarchies meet, which is where an idle group loses to a non-idle one.
//
// # State changes and time
//
// A [RunQueue] (struct rq) and its queues change only through explicit methods that mirror the
// kernel's hooks: [RunQueue.Fork] (task_fork_fair and wake_up_new_task), [RunQueue.Wakeup] (enqueue with
// ENQUEUE_WAKEUP and check_preempt_curr), [RunQueue.Sleep] (dequeue with DEQUEUE_SLEEP), [RunQueue.Exit]
// (the same with DEQUEUE_SPECIAL, and task_dead_fair), [RunQueue.Tick] (task_tick_fair),
// [RunQueue.Schedule] (put_prev_task_fair and pick_next_task_fair, then set_next_entity down the
// hierarchy), [RunQueue.SetNice] (set_user_nice), [RunQueue.SetSlice] (sched_setattr's runtime, v7.1),
// [RunQueue.Yield] (yield_task_fair), [RunQueue.UpdateCurr] (update_curr_fair), [RunQueue.DequeueDelayed]
// (v7.1); a task changes CPU through the [System] that owns both queues ([System.Move], its
// balancing and wakeups). Time is always an explicit now in nanoseconds; nothing reads a
// clock. The decisions the methods take are available as pure functions, in the shape below.
//
// # The shape of a decision
//
// Every decision of the package, as in ule and bsd4, is a function F(state…, p) (result,
// reason): the state it reads first, the tunables last as a pointer it never writes, and two
// results, what was decided and a typed reason that says which of the kernel's rules decided,
// with a String method that explains it in a few words. The uniprocessor decisions take
// p *[Params]: [Pick] (*Entity, [PickReason]), [PickEligible] (int, PickReason),
// [CheckPreemptTick] ([TickDecision], [TickReason]) and [CheckPreemptWakeup] ([WakeupDecision],
// [WakeupReason]). The multiprocessor decisions take p *[smp.Params], the SMP part of the
// Params (Params.SMP; a caller holding Params passes &p.SMP), after their state, a [WakeEnv],
// [LBEnv] or [MigrateEnv] that mirrors the kernel's struct lb_env and the machine's statistics
// and carries no tunables: [SelectTaskRQ] and [SelectIdleSibling] ([CPUSelection],
// [PlaceReason]), [FindBusiestGroup] ([BusiestGroup], [BalanceReason]), [CanMigrateTask]
// ([MigrateVerdict], [MigrateReason]), and the decisions whose result says it all, without a
// reason: [WakeAffine], [FindIdlestGroup], [FindIdlestGroupCPU], [FindIdlestCPU],
// [FindBusiestQueue], [ShouldWeBalance], [NeedActiveBalance] and
// [DetachTasks] (whose [Detach] counts the reasons of every task it examined). Some of these
// read no tunable today (FindBusiestGroup, for one); they take p all the same, so that every
// SMP decision has one shape and a feature the kernel adds to one of them changes no
// signature.
//
// The reason is returned, not stored: a result struct holds the figures the decision was made
// from (the ideal slice, the lead, the buddies to mark, the imbalance, the flags) and never its
// own reason, so there is one source of truth. (A [WakeupDecision] does hold the PickReason of
// the pick it consulted, another decision's reason.) Its Explain method takes the reason and
// writes the explanation the simulator's traces show, such as "tick b: resched: ran longer than
// its ideal slice (ran 3000000 ns, ideal 2999998 ns)". The state-changing methods that take
// these decisions return the same pair: [RunQueue.Tick] (TickDecision, TickReason),
// [RunQueue.Wakeup] and [RunQueue.Fork] (WakeupDecision, WakeupReason), [System.SelectTaskRQ]
// (CPUSelection, PlaceReason) and [System.Wakeup] both pairs. A test in the package checks the
// shape of every exported function against these rules.
//
// Not modelled here: PELT load tracking (group weights use instantaneous loads), CFS bandwidth
// control (cpu.max throttling), hrtick, and changing a group's idle flag or shares while it has
// queued entities (the kernel can; the model panics). Migration and load balancing between
// CPUs are the subject of the multiprocessor section below.
//
// # Cost model
//
//	operation                          cost                     allocates
//	Pick                               O(1), O(log n) with skip no
//	Pick (EEVDF)                       O(log n)                 no
//	AvgVruntime, VruntimeEligible      O(1)                     no
//	PickEligible                       O(n)                     no
//	NewRunQueueAt                      O(n log n)               yes
//	PlaceEntity                        O(1)                     no
//	EntityLag (v7.1)                   O(log n) (max slice)     no
//	CheckPreemptTick                   O(depth)                 no
//	CheckPreemptWakeup                 O(depth)                 no
//	RunQueue.Tick / Schedule / Wakeup       O(depth * log n)         no
//	GroupShares per group update       O(CPUs of the group)     no
//
// No type in the package is safe for concurrent use; a CPU and everything queued on it belong to
// one goroutine at a time, as a struct rq belongs to whoever holds its lock.
//
// # Kernel names
//
//	Linux v6.5 (kernel/sched/)                  schedkit/cfs
//	sched_prio_to_weight, sched_prio_to_wmult   Weight, TaskLoad (LoadWeight.Inverse; (unexported) invWeightOf)
//	scale_load, scale_load_down                 ScaleLoad, ScaleLoadDown
//	struct load_weight, __update_inv_weight     LoadWeight, LoadWeight.Inverse
//	set_load_weight                             TaskLoad
//	update_load_add / update_load_sub           (unexported) LoadWeight.add / LoadWeight.sub
//	__calc_delta (v6.5 / v7.1 64-bit)           CalcDelta with DeltaWMult / DeltaDiv
//	mul_u64_u32_shr                             (unexported) mulU64U32Shr
//	calc_delta_fair                             CalcDeltaFair
//	get_update_sysctl_factor                    Params.ForCPUs ((unexported) scaleFactor)
//	sysctl_sched_*, sched_feat(...)             Params fields
//	__sched_period, sched_slice, sched_vslice   Period, Slice, (unexported) vslice (CalcDeltaFair of Slice)
//	wakeup_gran                                 (unexported) wakeupGran (WakeupDecision.Explain prints it)
//	entity_before, max_vruntime, min_vruntime   Before, MaxVruntime, MinVruntime
//	entity_is_long_sleeper, place_entity        (unexported) isLongSleeper, PlaceEntity (Placement.Vruntime)
//	struct rb_root_cached tasks_timeline        (unexported) Queue.timeline (a timeline.Timeline)
//	__enqueue_entity, __dequeue_entity          (Queue, unexported) enqueueTree, dequeueTree
//	struct sched_entity                         Entity
//	se_is_idle, entity_is_task                  Entity.IsIdle, (unexported) Entity.isTask
//	struct cfs_rq                               Queue
//	cfs_rq->nr_running, idle_nr_running         Queue.NrRunning, Queue.IdleNrRunning
//	cfs_rq->h_nr_running, idle_h_nr_running     Queue.HNrRunning, (unexported) Queue.idleHNrRunning
//	init_cfs_rq's min_vruntime                  InitialMinVruntime
//	update_curr, update_min_vruntime            (Queue, unexported) updateCurr, updateMinVruntime
//	enqueue_entity, dequeue_entity              (Queue, unexported) enqueueEntity, dequeueEntity
//	set_next_entity, put_prev_entity            (Queue, unexported) setNextEntity, putPrevEntity
//	reweight_entity, update_cfs_group           (Queue, unexported) reweightEntity, updateGroup
//	set_next_buddy, set_last_buddy, clear_...   (unexported) setNextBuddy, setLastBuddy, ...
//	struct rq (fair part)                       RunQueue (System: all of them)
//	enqueue_task_fair, dequeue_task_fair        RunQueue.Wakeup, RunQueue.Sleep (and RunQueue.Fork)
//	pick_next_task_fair, put_prev_task_fair     RunQueue.Schedule
//	task_tick_fair, entity_tick                 RunQueue.Tick
//	task_fork_fair + wake_up_new_task           RunQueue.Fork
//	set_user_nice, prio_changed_fair            RunQueue.SetNice
//	yield_task_fair                             RunQueue.Yield
//	update_curr_fair                            RunQueue.UpdateCurr
//	sched_idle_rq                               RunQueue.IdleOnly
//	pick_next_entity                            Pick
//	check_preempt_tick                          CheckPreemptTick
//	check_preempt_wakeup, check_preempt_curr    CheckPreemptWakeup
//	wakeup_preempt_entity                       (unexported) wakeupPreemptEntity (CheckPreemptWakeup, Pick)
//	find_matching_se                            (unexported) matchingEntities
//	struct task_group, tg->shares, tg->idle     Group, Group.Shares, Group.Idle
//	sched_group_set_shares, cpu.weight          Group.SetShares, Group.SetCPUWeight
//	sched_group_set_idle (cpu.idle)             Group.SetIdle
//	calc_group_shares                           GroupShares (simplified: instantaneous loads)
//
// EEVDF names (v6.6 kernel/sched/fair.c; v7.1 name where it differs):
//
//	Linux v6.6 / v7.1                           schedkit/cfs
//	sysctl_sched_base_slice, normalized_...     Params.DefaultSlice, Params.NormalizedSlice
//	sched_feat PLACE_LAG ... DELAY_ZERO         Params.PlaceLag ... Params.DelayZero
//	TICK_NSEC                                   TickNSec, Params.Tick
//	se->deadline, se->vlag, se->slice           Entity.Deadline, Entity.VLag, Entity.Slice
//	se->vprot, custom_slice, sched_delayed      Entity.VProt, Entity.CustomSlice, Entity.Delayed
//	__setparam_fair (sched_attr runtime)        Entity.SetSlice, RunQueue.SetSlice ((unexported) clampSlice)
//	avg_vruntime, avg_load / sum_w_vruntime,    Sums.SumWVruntime, Sums.SumWeight
//	  sum_weight
//	min_vruntime (v6.6) / zero_vruntime         Queue.MinVruntime / Sums.Zero
//	avg_vruntime()                              AvgVruntime (of Sums, Queue.Sums)
//	avg_vruntime_add/_sub, sum_w_vruntime_...   (Queue, unexported) sumAdd, sumSub
//	avg_vruntime_update / update_zero_vruntime  (Queue, unexported) advanceMinVruntime, moveZero
//	entity_eligible, vruntime_eligible          VruntimeEligible (of Sums; (unexported) entityEligible)
//	pick_eevdf (v6.18, v7.1) on explicit values PickEligible
//	update_entity_lag / entity_lag              EntityLag ((unexported) lagLimit, the clamp)
//	update_deadline                             (unexported) virtualDeadline (v + CalcDeltaFair), Queue.updateDeadline
//	place_entity                                PlaceEntity (Placement); placeEntity applies it
//	min_deadline_cb / min_vruntime_cb           the timeline's augmentation (timeline.Timeline.UpdateAug)
//	cfs_rq_min_slice, cfs_rq_max_slice          Queue.MinSlice, Queue.MaxSlice
//	__pick_eevdf + pick_eevdf (v6.6)            Pick (v6.6 rules; unexported pickEEVDF)
//	pick_eevdf(cfs_rq, protect) (v7.1)          Pick (v7.1 rules; unexported pickEEVDF)
//	set_protect_slice, protect_slice            Entity.VProt (a pick sets it), (unexported) protectPoint, protected
//	update_protect_slice, cancel_protect_slice  (Queue, unexported) updateProtect, cancelProtect
//	check_preempt_wakeup / wakeup_preempt_fair  CheckPreemptWakeup (EEVDF rules)
//	reweight_entity, rescale_entity             (Queue, unexported) reweightEEVDF
//	requeue_delayed_entity, dequeue_entities    (unexported) requeueDelayed, dequeueEntities
//	pick_next_task_fair (group path)            RunQueue.Schedule
//	dequeue_task(DEQUEUE_SLEEP|DEQUEUE_DELAYED) RunQueue.DequeueDelayed
//
// Renames from v6.5 to v7.1 (the v6.5 name is the one used above):
//
//	v6.5                          v7.1
//	check_preempt_wakeup          check_preempt_wakeup_fair, then wakeup_preempt_fair
//	check_preempt_curr            wakeup_preempt
//	cfs_rq->nr_running            cfs_rq->nr_queued
//	cfs_rq->h_nr_running          cfs_rq->h_nr_queued (h_nr_runnable excludes delayed tasks)
//	cfs_rq->idle_h_nr_running     cfs_rq->h_nr_idle
//	cfs_rq->min_vruntime          cfs_rq->zero_vruntime (not monotonic)
//	avg_vruntime, avg_load (v6.6) sum_w_vruntime, sum_weight
//	sysctl_sched_min_granularity  sysctl_sched_base_slice (v6.6)
//
// # Multiprocessor scheduling: domains, load balancing, wakeup placement
//
// Linux keeps one run queue per CPU and moves tasks between them at three moments: when a task
// wakes up or is forked (placement), when a CPU is about to idle (newly idle balance), and
// periodically from the tick (rebalance_domains). All three decide over sched domains. The
// decisions are in this package; the data they share, plain values with the kernel's names, is
// in package cfs/smp: what they read about each CPU ([smp.CPUStat]), the state a CPU balances
// in ([smp.IdleType]), what an imbalance counts ([smp.MigrationType]) and their tunables
// ([smp.Params]).
//
// Domains. Every CPU has a chain of domains from its core up to the machine (SMT, CLS, MC for
// the last-level cache, PKG, NODE and one NUMA level per distance), built by package topology
// as kernel/sched/topology.c builds them; [NewDomains] wraps them as [SchedDomain]s with their
// [BalanceGroup]s. A domain balances between its groups, each the span of a child domain (the
// cores of an LLC at MC, the LLCs of a package at PKG); at NUMA levels groups may overlap.
// sd_llc, the highest domain sharing the last-level cache, bounds the wakeup search
// ([SelectIdleSibling]). Each domain balances every balance_interval
// milliseconds (its span weight at first), busy_factor (16) times less often on a busy CPU,
// doubling after each balance that found nothing to do up to max_interval (twice the span) and
// returning to the minimum after a success (get_sd_balance_interval; [System.NextBalance]).
// Only one CPU per group balances a level periodically: the first idle CPU of the group's balance mask, or its first CPU
// ([ShouldWeBalance]).
//
// The Wasted Cores group construction bug. Lozi et al. ("The Linux Scheduler: a Decade of
// Wasted Cores", EuroSys 2016) found that the groups of the machine-wide NUMA domain were built
// from CPU 0's point of view and shared by all CPUs. On a machine where two nodes are two hops
// apart, each of the two appears in several of those groups; a CPU of one node finds the other
// node inside its own (local) group, the groups' loads look alike, and an application pinned to
// the two nodes stays on one of them while the other idles. [smp.GroupsFirstCPU] rebuilds that
// construction beside today's per-CPU one ([smp.GroupsPerCPU], the default): on topology.FourNode,
// eight hogs pinned to nodes 1 and 2 (distance 22) keep node 2 idle with the bug and occupy all
// four CPUs without it.
//
// Load and utilisation in the model. The kernel's balancer reads PELT averages; this package
// has no PELT. A CPU's load is the unscaled weight of its root queue (cpu_load of an
// always-runnable workload: 1024 per nice-0 task at the top level), a task's load is task_h_load
// computed from the instantaneous weights ([TaskHLoad]), and runnable is the number of queued
// tasks times 1024. Utilisation is a running average kept per task: at every tick (jiffy) each
// task's estimate loses 1/2^k of itself, truncated (so that an estimate below 2^k no longer
// decays), and at each tick of the CPU it runs on the running task's estimate gains
// capacity/2^k, with 2^k the smallest power of two above the number of ticks in 32 ms (a
// half-life near PELT's). A task that slept more than 8·2^k ticks wakes with 0. A CPU's
// utilisation is a signal of its own, as the kernel's cfs_rq util_avg is: it loses 1/2^k,
// truncated, at every tick and gains capacity/2^k at each tick at which the CPU is busy; a
// task's estimate is added to it when the task is attached to the CPU (fork, wakeup, migration
// in) and taken off, saturating at 0, when it is detached (migration out, exit, and at a
// wakeup from the CPU it slept on, the estimate it left there), while a sleeping task's share
// stays and decays with the signal as blocked utilisation, so that the signal moves with
// migrating tasks as PELT's does. Both decay lazily: an estimate or a signal is brought up to
// date, by the ticks that passed, when it is read or changes (a pick, a stop, a wakeup, a
// migration, a tick of a busy CPU, a balance reading utilisation), which makes a tick cost the
// same however many tasks wait on the CPU and gives the same values as decaying at every tick.
// The signal U differs from the sum S of the estimates that belong to the CPU (those of its
// queued tasks and of the tasks that slept on it) only by the truncations of the per-task
// decays: with both up to date, -(2^k - 1) <= S - U <= (2^k - 1)·N for N tasks that ever
// belonged to the CPU, the truncations keeping the sum a little above the signal. A new task
// starts at half the capacity its CPU has left (post_init_entity_util_avg's cap). Everything is
// integer arithmetic driven by the caller's ticks: deterministic.
//
// Load balancing ([FindBusiestGroup], [FindBusiestQueue], [DetachTasks]). The balancing CPU
// gathers each group's statistics (sg_lb_stats) and classifies it (group_classify):
// has_spare, fully_busy, misfit_task (a task too big for its CPU on a machine of unequal
// capacities), imbalanced (affinity kept a lower level from balancing: sgc->imbalance) or
// overloaded (more tasks than CPUs and utilisation or runnable time beyond capacity by
// imbalance_pct). The busiest group is the one of highest class, ties broken per class
// (avg_load, misfit load, fewest idle CPUs). A local group of higher class, two overloaded
// groups within imbalance_pct of each other, or a busiest group that is not overloaded while
// this CPU is busy or idle CPUs differ by at most one, mean balanced; otherwise
// calculate_imbalance says what to move: utilisation into spare capacity across caches,
// tasks to even out idle CPUs or task counts (halved; NUMA levels tolerate a two-task
// imbalance while the destination is lightly loaded, adjust_numa_imbalance), or load towards
// the domain's average. The busiest queue is then the CPU of highest load per capacity, most
// utilisation, most tasks, or largest misfit. [DetachTasks] walks that CPU's cfs_tasks list
// ([TaskList]) from the tail, the least recently run task first, and [CanMigrateTask] refuses
// tasks whose affinity excludes the destination (remembering another CPU of the destination's
// group that would do, LBF_DST_PINNED), the running task, and cache-hot tasks (task_hot: ran
// within sysctl_sched_migration_cost, 0.5 ms) until the domain's nr_balance_failed exceeds its
// cache_nice_tries. A balance that keeps failing to move a task count asks the busiest CPU to
// push its running task (active balance, [NeedActiveBalance]); a misfit task is always pushed.
//
// Newly idle balance. A CPU about to idle balances its domains from the lowest up until it pulls
// a task, as long as some CPU has two or more tasks (the root domain's overload flag). The
// kernel also stops when the expected balancing cost exceeds the CPU's average idle time, both
// measured in wall-clock time; the model does not measure costs and never stops for them.
//
// Six decisions have a faster form behind them, each chosen by one rule and tested equal to the
// readable one. A flat domain (one group per CPU), balanced by a System, is searched from the CPUs
// with two tasks or more alone (cfs/internal/flatbalance says why). A System on a machine of one
// capacity keeps each group's sums, read by a balance and by fork placement instead of a visit of
// the group's CPUs (cfs/internal/groupsums), a mask of the idle CPUs that select_idle_cpu scans a
// word at a time and select_idle_smt reads in one AND (cfs/internal/idlescan), and a tree of loads
// (cfs/internal/leastload). The tick computes check_preempt_tick's verdict (tickResched) and
// reuses the running task's last sched_slice while every value it came from stays the same
// (cfs/internal/slicememo). Explaining changes none of them (TestExplainKeepsTheCodePath).
//
// Wakeup placement ([SelectTaskRQ]). A waking task may move next to its waker unless the two
// wake many partners (wake_wide); at the lowest wake-affine domain spanning both CPUs,
// [WakeAffine] picks the waker's CPU or the previous one (an idle cache-sharing CPU, a sync
// wakeup onto a CPU running only the waker, an idle previous CPU, then the lighter of the two
// by load scaled by capacity). [SelectIdleSibling] then looks near that target: the target, the
// previous CPU and the recently used CPU if idle and cache-affine, then within the LLC an idle
// SMT sibling of the previous CPU, a wholly idle core (while the LLC's has_idle_cores hint
// says one exists) or any idle CPU, scanning at most nr_idle_scan CPUs (update_idle_cpu_scan,
// SIS_UTIL). Forks take the slow path instead: from the highest SD_BALANCE_FORK domain down,
// the idlest group's idlest CPU ([FindIdlestGroup], [FindIdlestGroupCPU], [FindIdlestCPU]).
//
// The System and its adapter. [System] is the fair class on a whole machine as explicit
// state, the layer ule's System is in that package; its type documentation lists its parts
// and its methods, the kernel's entry points ([System.Wakeup], [System.Schedule],
// [System.Tick], …), each composing the pure decisions above with the state changes they call
// for, and the balancing steps callable one at a time on whatever state a test or a what-if
// analysis sets up ([System.SelectTaskRQ], [System.LoadBalance], [System.NewidleBalance],
// [System.ActiveBalance], [System.RebalanceDomains]). The [Scheduler] is the thin adapter the
// simulator's Policy interface needs: thread ids to tasks, control groups by id, sched.Attr to
// fair classes, nice levels and affinity, and the errors of what it could not honour
// ([Scheduler.CheckAttr], [Scheduler.Err]); it decides nothing itself. Both run the preset of
// their [Version], so EEVDF and classic CFS stay one fair class, as in the kernel. The SMP
// decisions follow v6.5 for every version with two v7.1 exceptions: the balancer counts
// runnable tasks as v7.1 does (h_nr_runnable, [smp.CPUStat].HNrRunning), and can_migrate_task makes
// v7.1's delayed-dequeue and eligibility tests ([smp.Params] MigrateDelayed and
// MigrateIneligible, on in the v7.1 preset). Every decision has an explanation: a reason
// with a String method and, for [BusiestGroup] and [CPUSelection], an Explain method that puts
// the reason and the figures together; a [Detach] explains itself (String).
//
// Delayed dequeue in the System (v7.1). A task that stops with sched.Sleep while not
// eligible stays queued, delayed, on its CPU's cfs_tasks list, with its utilisation; it leaves
// the list (leaving its utilisation behind as blocked utilisation) only when its dequeue
// finishes, in a pick or in a wakeup-preemption check (__block_task). Its wakeup requeues it
// where it is (ttwu_runnable): no select_task_rq, no wakee flip. The balancer moves it only
// when migrating load (and active balance, whose migration type is migrate_load), and it arrives
// still delayed; an affinity change moves it still delayed (move_queued_task); nice, slice and
// group changes keep it delayed; an exit never leaves a thread delayed. rq->nr_running counts
// delayed tasks, so a CPU holding one is not idle for wakeup placement, as in the kernel.
//
// Not modelled in the SMP part: PELT (above), NUMA balancing, SD_ASYM_PACKING, energy-aware
// placement, nohz idle balancing (idle CPUs are ticked and balance for themselves, publishing
// their decayed utilisation, so the [Scheduler] does not let the simulator skip idle ticks),
// RT and deadline classes and their capacity (a FIFO or RR thread runs as SCHED_NORMAL and
// [Scheduler.Err] says so), select_idle_sibling's per-CPU kthread case, SIS_PROP, and the
// balancer's changes after v6.5 (v6.6's group_smt_balance, sibling_imbalance and idle-core
// preference in should_we_balance; v7.1's NI_RANDOM/NI_RATE). A thread forked onto another CPU
// than its parent's is placed against the destination's queue; the kernel places it against
// the parent's and renormalises.
//
// # SMP cost model
//
//	operation                              cost                                allocates
//	NewDomains                             O(CPUs × levels × groups)           yes
//	FindBusiestGroup                       O(CPUs of the domain)               no
//	  (System, flat domain)                O(CPUs with two tasks or more)      no
//	FindBusiestQueue                       O(CPUs of the group)                no
//	DetachTasks                            O(NrMigrate)                        only to grow its buffer
//	SelectIdleSibling                      O(CPUs of the LLC)                  no
//	SelectTaskRQ (fork)                    O(CPUs of the domain × levels)      no
//
// docs/performance.md gives the measured costs (BenchmarkBalancePass, BenchmarkSelectIdleSibling,
// and the simulator's instructions per step for every preset).
//
// # SMP kernel names
//
//	Linux v6.5 (kernel/sched/fair.c, topology.c)  v7.1 name                         schedkit/cfs
//	struct sched_domain, rq->sd, sd->parent        (same)                            SchedDomain, Domains.Base, SchedDomain.Parent
//	struct sched_group, sched_group_capacity       (same)                            BalanceGroup
//	group_balance_mask, build_balance_mask         (same)                            (unexported) BalanceGroup.balanceMask
//	sd_llc, sd_llc_size, sd_llc_id                 (same)                            (unexported) Domains.llc, llcSize, llcID
//	cpus_share_cache, cpu_smt_mask                 (same)                            (unexported) Domains.shareCache, Domains.smt
//	sd_asym_cpucapacity                            (same)                            (unexported) Domains.asymCapacity
//	sd->imb_numa_nr                                (same)                            (unexported) SchedDomain.imbNumaNr
//	SD_SHARE_PKG_RESOURCES                         SD_SHARE_LLC                      topology.SDShareLLC
//	DIE (topology level)                           PKG                               "PKG"
//	enum cpu_idle_type                             (same)                            smp.IdleType
//	enum group_type, group_classify                (same, + group_smt_balance)       (unexported) groupType, groupClassify
//	enum migration_type                            (same)                            smp.MigrationType
//	struct lb_env                                  (same)                            LBEnv, MigrateEnv
//	struct sg_lb_stats, update_sg_lb_stats         (same)                            (unexported) groupStats, updateSGLBStats
//	update_sd_pick_busiest                         (same)                            (unexported) pickBusiest
//	find_busiest_group, calculate_imbalance        sched_balance_find_src_group      FindBusiestGroup
//	find_busiest_queue                             sched_balance_find_src_rq         FindBusiestQueue
//	adjust_numa_imbalance                          (same)                            (unexported) adjustNumaImbalance
//	should_we_balance                              (same)                            ShouldWeBalance
//	task_h_load, task_hot                          (same)                            TaskHLoad, (unexported) taskHot
//	can_migrate_task, detach_tasks                 (same)                            CanMigrateTask, DetachTasks
//	LBF_* flags                                    (same)                            LBFlags
//	need_active_balance                            (same)                            NeedActiveBalance
//	active_load_balance_cpu_stop                   (same)                            System.ActiveBalance
//	load_balance                                   sched_balance_rq                  System.LoadBalance
//	rebalance_domains                              sched_balance_domains             System.RebalanceDomains
//	newidle_balance                                sched_balance_newidle             System.NewidleBalance
//	get_sd_balance_interval                        (same)                            (unexported) balanceInterval
//	update_idle_cpu_scan                           (same)                            (unexported) idleCPUScan
//	rq->cfs_tasks, se->group_node                  (same)                            TaskList, Task
//	se->avg.util_avg, cfs_rq->avg.util_avg (PELT)  (same)                            (unexported) Task.util, smp.CPUStat.Util (stand-ins, not PELT)
//	attach/detach/remove_entity_load_avg           (same)                            System (enlist, delist, Wakeup)
//	record_wakee, wake_wide                        (same)                            (unexported) Task.recordWakee, wakeWide
//	wake_affine (wake_affine_idle, _weight)        (same)                            WakeAffine
//	select_idle_sibling, select_idle_cpu/core/smt  (same)                            SelectIdleSibling
//	select_idle_capacity                           (same)                            SelectIdleSibling (unequal capacities)
//	find_idlest_group, update_pick_idlest          sched_balance_find_dst_group      FindIdlestGroup
//	find_idlest_group_cpu, find_idlest_cpu         sched_balance_find_dst_group_cpu, sched_balance_find_dst_cpu  FindIdlestGroupCPU, FindIdlestCPU
//	select_task_rq_fair, select_fallback_rq        (same)                            SelectTaskRQ, System.SelectTaskRQ
//	detach_task/attach_task, migrate_task_rq_fair  (same)                            (unexported) RunQueue.migrateOut, migrateIn, wakeupMigrated
//	__sched_setscheduler, sched_move_task          (same)                            (unexported) RunQueue.requeue
//	rq->cfs.h_nr_running (balancer's reads)        rq->cfs.h_nr_runnable             smp.CPUStat.HNrRunning, Queue.HNrRunnable
//	-                                              can_migrate_task: sched_delayed   smp.Params.MigrateDelayed
//	-                                              task_is_ineligible_on_dst_cpu     smp.Params.MigrateIneligible
//	-                                              ttwu_runnable (ENQUEUE_DELAYED)   System.Wakeup of a delayed task
//	-                                              __block_task after a delayed pick System (its CPUs' dequeue hook)
//	-                                              DEQUEUE_SPECIAL, task_dead_fair   RunQueue.Exit
package cfs
