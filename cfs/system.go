// This file implements System, the fair class on a whole machine as explicit state: every
// CPU's run queue, cfs_tasks list and statistics, and the kernel's entry points on them
// (wakeup placement and enqueue, the pick with newly idle and active balance, stop, tick,
// attribute changes), without the simulator.

package cfs

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/schedkit/schedkit/cfs/internal/flatbalance"
	"github.com/schedkit/schedkit/cfs/internal/groupsums"
	"github.com/schedkit/schedkit/cfs/internal/idlescan"
	"github.com/schedkit/schedkit/cfs/internal/leastload"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/internal/comparelog"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A System is the fair class on a whole machine as explicit state, without the simulator: one
// [RunQueue] per CPU of the topology with its cfs_tasks list ([TaskList]) and running task,
// the statistics the SMP decisions read ([smp.CPUStat]), the sched domains ([Domains]) with their
// balancing clocks, intervals and failure counts, the root domain's overload flag, and the
// LLCs' idle-core and scan hints. Its methods are the kernel's entry points on that state:
// [System.Wakeup] (select_task_rq_fair and the enqueue), [System.Schedule]
// (pick_next_task_fair with newidle_balance and the active-balance stopper), [System.Stop],
// [System.Tick] (scheduler_tick with rebalance_domains), [System.SetAttr], and the balancing
// steps a caller can drive one at a time: [System.SelectTaskRQ], [System.LoadBalance],
// [System.NewidleBalance], [System.ActiveBalance], [System.RebalanceDomains]. A [Scheduler] is
// a thin adapter from the simulator's thread ids and attributes to a System.
//
// The System asks for reschedules, and gives explanations, through the sched.Env passed to
// [NewSystem]: Resched(c) when CPU c should pick again (a wakee or a pulled task preempts, an
// idle CPU gets work, a busiest CPU must run its stopper for an active balance). A caller
// driving the System by hand passes an Env that records those CPUs. Time is explicit (now, in
// nanoseconds, non-decreasing); jiffies are now·hz/10^9.
//
// A System is deterministic and not safe for concurrent use.
type System struct {
	p    Params
	smp  smp.Params
	env  sched.Env
	topo *topology.Topology
	all  topology.CPUSet // the machine's CPUs, which every task allowed anywhere shares
	ds   *Domains
	hz   int
	ncpu int
	// tasks holds the records of the tasks Fork makes, allocated a chunk at a time.
	tasks sched.Slab[Task]

	rqs     []cpuRQ
	stats   []smp.CPUStat
	dom     []domainState
	sgImb   []bool
	idleCor []bool
	idleScn []int

	overload  bool
	flat      flatbalance.Index // the CPUs whose NrRunning is above 1, kept by refresh
	sums      groupsums.Index   // the groups' sums, kept by refresh and the tick's when lb.sums is set
	sumOld    groupsums.Stat    // the figures of the CPU refresh is refreshing, for the sums
	idle      idlescan.Mask     // the idle (or SCHED_IDLE-only) CPUs, kept by refresh
	least     leastload.Tree    // the busy CPUs' loads, kept with the groups' sums when we.least is set
	utilShift uint              // bits.Len of a positive int: at most 63, which its users' shifts rely on
	j         int64             // the tick of the call in progress, for block
	jNow      int64             // the time j was converted from (see at)
	chosen    []*Task
	examined  []*Task

	td     TickDecision             // the last tick's decision, kept between ticks
	we     WakeEnv                  // selectTaskRQ's env, kept between wakeups
	lb     LBEnv                    // loadBalance's lb_env, kept between balances
	bg     BusiestGroup             // loadBalance's find_busiest_group outcome, kept between balances
	lbSpan *SchedDomain             // the domain whose span lb.CPUs holds, nil if none
	me     MigrateEnv               // loadBalance's env for detach_tasks, kept between balances
	meMask *topology.CPUSet         // the balance mask me.DstGroupMask holds a copy of, nil if none
	det    Detach                   // the last detach_tasks pass's outcome, kept between balances
	cmpLog *[]comparelog.Comparison // the comparisons since TakeComparisons, nil while not recorded
}

// cpuRQ is a CPU's struct rq beyond its fair part: its cfs_tasks list, the thread the
// machine runs, the balancing clock and the utilisation stand-in.
type cpuRQ struct {
	c           *RunQueue
	id          topology.CPU
	st          *smp.CPUStat // the CPU's statistics: its entry of System.stats
	tasks       TaskList
	curr        *Task // the running task: the one Schedule last returned
	nextBalance int64
	active      bool
	pushCPU     topology.CPU
	// util is the CPU's utilisation signal (cfs_rq->avg.util_avg), decayed up to utilTick: it
	// decays at every tick, lazily, and grows by capacity>>utilShift at a busy one; a task's
	// estimate joins it when the task is attached (fork, wakeup, migration in) and leaves it
	// when the task is detached (migration out, exit, a wakeup elsewhere). A sleeping task's
	// share stays and decays with it.
	util     uint64
	utilTick int64 // the tick up to which util is decayed
	// fresh is 1 + the tick at which refresh (or the tick's refresh after it) last wrote the
	// CPU's statistics, if nothing refresh reads has changed since (enlist, delist and detachUtil
	// reset it to 0); see unchanged.
	fresh int64
}

// NewSystem returns the System of machine t with parameters p scaled for its CPU count
// ([Params.ForCPUs]) and hz ticks per second, every CPU idle, reporting reschedules and
// explanations to env (which may be nil: then nothing is reported). It returns an error if p
// is invalid, t is nil or hz is not positive.
func NewSystem(p Params, t *topology.Topology, hz int, env sched.Env) (*System, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("cfs: NewSystem without a topology")
	}
	if hz <= 0 {
		return nil, fmt.Errorf("cfs: NewSystem: hz %d", hz)
	}
	s := &System{topo: t, all: t.CPUs(), env: env, hz: hz, ncpu: t.NumCPUs()}
	s.p = p.ForCPUs(s.ncpu)
	s.smp = s.p.SMP
	s.ds = NewDomains(t, s.smp.Groups)
	n := t.NumIDs()
	s.rqs = make([]cpuRQ, n)
	s.stats = make([]smp.CPUStat, n)
	s.dom = make([]domainState, s.ds.numDomains())
	s.sgImb = make([]bool, len(s.ds.groups))
	s.idleCor = make([]bool, n)
	s.idleScn = make([]int, n)
	s.flat.Init(n)
	s.lb.flat = &s.flat
	if of := s.ds.groupsOf(); !t.Asymmetric() && slices.ContainsFunc(of, func(g []int32) bool { return len(g) > 0 }) {
		// The sums stand for update_sg_lb_stats' only where no CPU carries a misfit load,
		// which needs a machine of one capacity (see package groupsums); a machine whose
		// groups are all single CPUs has nothing to sum.
		s.sums.Init(len(s.ds.groups), of)
		s.lb.sums = &s.sums
		setRings(s.ds, &s.sums)
	}
	s.utilShift = uint(bits.Len(uint(max(1, 32*hz/1000))))
	s.we = WakeEnv{Domains: s.ds, Stats: s.stats, HasIdleCores: s.idleCor, NrIdleScan: s.idleScn, idle: &s.idle, sums: s.lb.sums}
	if s.lb.sums != nil && slices.ContainsFunc(s.ds.groups, leastGroup) {
		// find_idlest_group_cpu reads the loads' tree for the groups leastGroup accepts; the
		// tree follows the statistics where the sums do, in refreshSummed.
		s.least.Init(n)
		s.we.least = &s.least
	}
	block := s.block
	for c := range t.CPUs().All() {
		rq := &s.rqs[c]
		rq.c, rq.id, rq.st = NewRunQueue(int(c), s.p), c, &s.stats[c]
		rq.c.onBlock = block
		cp := uint64(t.Capacity(c))
		s.stats[c] = smp.CPUStat{Capacity: cp, CapacityOrig: cp, IdleStamp: 1}
		s.idle.Set(c, true)
		// As after boot: every CPU has idled once (has_idle_cores) and the LLC scan bound is
		// what update_idle_cpu_scan gives an idle LLC.
		s.idleCor[s.ds.llcid(c)] = true
		s.idleScn[s.ds.llcid(c)] = s.ds.llcSize(c)
		for k := range s.ds.Chain(c) {
			sd := &s.ds.Chain(c)[k]
			s.dom[sd.idx].interval = sd.minInterval()
		}
	}
	return s, nil
}

// Params returns the parameters the CPUs run with: those given to NewSystem, scaled for the
// machine.
func (s *System) Params() Params { return s.p }

// Domains returns the balancer's view of the machine.
func (s *System) Domains() *Domains { return s.ds }

// RunQueue returns the fair-class run queue of CPU c. It panics if c is not a CPU of the
// machine.
func (s *System) RunQueue(c topology.CPU) *RunQueue {
	s.mustCPU("RunQueue", c)
	return s.rqs[c].c
}

// Stats returns the statistics the SMP decisions read, indexed by CPU id. The slice belongs to
// the System.
func (s *System) Stats() []smp.CPUStat { return s.stats }

// Tasks returns CPU c's cfs_tasks list. It panics if c is not a CPU of the machine.
func (s *System) Tasks(c topology.CPU) *TaskList {
	s.mustCPU("Tasks", c)
	return &s.rqs[c].tasks
}

// Curr returns the task CPU c runs (the one [System.Schedule] last returned for it and that
// has not stopped), or nil. It panics if c is not a CPU of the machine.
func (s *System) Curr(c topology.CPU) *Task {
	s.mustCPU("Curr", c)
	return s.rqs[c].curr
}

// Overload reports the root domain's overload flag (rd->overload): some CPU had two or more
// tasks when its statistics were last refreshed, or the last top-level balance said so.
func (s *System) Overload() bool { return s.overload }

// NextBalance returns the jiffy at which CPU c's next periodic balance is due
// (rq->next_balance).
func (s *System) NextBalance(c topology.CPU) int64 { return s.rqs[c].nextBalance }

// ActivePending returns the CPU that asked CPU c to push a task away (active balance) and true,
// or false if c has no pending active balance (rq->active_balance, rq->push_cpu).
func (s *System) ActivePending(c topology.CPU) (topology.CPU, bool) {
	return s.rqs[c].pushCPU, s.rqs[c].active
}

// Fork returns a new task for entity e, allowed on allowed, created on cpu and not yet
// runnable (sched_fork): its first [System.Wakeup], with sched.WakeFork, places it. Its
// utilisation estimate starts at half the capacity cpu has left, as post_init_entity_util_avg
// caps it. Fork panics if cpu is not a CPU of the machine or allowed has none of its CPUs.
func (s *System) Fork(now int64, e *Entity, allowed topology.CPUSet, cpu topology.CPU) *Task {
	s.mustCPU("Fork", cpu)
	m := allowed.Intersect(s.all)
	if m.IsEmpty() {
		panic("cfs: NewSMPTask with no allowed CPU")
	}
	t := newSMPTask(s.tasks.New(), e, s.share(&m, nil), cpu)
	st := &s.stats[cpu]
	t.util = (st.Capacity - min(st.Capacity, st.Util)) / 2
	t.utilTick = s.jiffies(now)
	return t
}

// jiffies converts simulated time to ticks.
func (s *System) jiffies(now int64) int64 { return sched.Ticks(now, s.hz) }

// at makes now the time of the call in progress: s.j becomes its jiffy. The last conversion is
// kept, so that the calls of one instant (every CPU's tick, a stop and the pick after it)
// convert once; the zero System holds time 0, jiffy 0.
func (s *System) at(now int64) {
	if now != s.jNow {
		s.jNow, s.j = now, s.jiffies(now)
	}
}

// enlist puts task t on CPU rq's cfs_tasks list (account_entity_enqueue) and attaches its
// utilisation, up to date, to the CPU's signal (attach_entity_load_avg).
func (s *System) enlist(rq *cpuRQ, t *Task) {
	s.catchUpCPU(rq, s.j)
	rq.tasks.PushFront(t)
	s.catchUp(t, s.j)
	rq.util += t.util
	rq.fresh = 0
	t.cpu = rq.id
}

// delist takes task t off CPU rq's list, its estimate brought up to date. A task going to
// sleep leaves its utilisation in the CPU's signal, where it decays as blocked utilisation;
// any other (migration, exit) detaches it.
func (s *System) delist(rq *cpuRQ, t *Task, sleep bool) {
	rq.fresh = 0
	rq.tasks.Remove(t)
	s.catchUp(t, s.j)
	if !sleep {
		s.detachUtil(rq, t.util)
	}
}

// block is __block_task for a task whose delayed dequeue (v7.1) finished inside a CPU method (a
// pick, a wakeup preemption check): it leaves its CPU's cfs_tasks list and, as a sleeper,
// leaves its utilisation behind as blocked utilisation.
func (s *System) block(e *Entity) {
	t := e.task
	s.delist(&s.rqs[t.cpu], t, true)
}

// refresh recomputes CPU rq's statistics from its queues, and raises the root domain's overload
// flag when it has two tasks or more (add_nr_running). nr_running counts delayed-dequeue tasks
// (v7.1), which are still queued; the h_nr_running the balancer reads, and cpu_runnable, count
// only the runnable ones (h_nr_runnable), as v7.1's balancer does. Where the groups' sums
// follow the statistics (s.lb.sums), they trade the CPU's old figures for its new ones; the old
// ones wait in the System (sumOld) rather than in the frame, so that the machines without sums
// pay two tests for them, neither a register held across the body nor a call of a wrapper.
func (s *System) refresh(rq *cpuRQ) {
	// The signal first: its catch-up may call decayUtil, and nothing the body holds in
	// registers is live across that call.
	s.catchUpCPU(rq, s.j)
	c, st := rq.id, rq.st
	if s.lb.sums != nil {
		s.sumOld = sumStat(st)
	}
	root := rq.c.Root()
	nr := uint32(root.HNrRunning())
	nrr := uint32(root.HNrRunnable())
	was := st.NrRunning
	st.NrRunning, st.HNrRunning = nr, nrr
	st.IdleHNrRunning = uint32(int(root.idleHNrRunning))
	st.Load = ScaleLoadDown(root.Load().Weight)
	st.Runnable = uint64(nrr) * topology.CapacityScale
	st.Util = min(rq.util, st.Capacity)
	// s.flat follows NrRunning, which only this function writes.
	s.flat.Update(c, was, nr)
	// Idle or SCHED_IDLE-only (available_idle_cpu || sched_idle_cpu): every task queued is a
	// SCHED_IDLE one, none when there is none.
	s.idle.Set(c, nr == st.IdleHNrRunning)
	if nr >= 2 {
		s.overload = true
	}
	rq.fresh = s.j + 1
	if s.lb.sums != nil {
		s.lb.sums.Update(int(c), s.sumOld, sumStat(st))
		if s.we.least != nil {
			s.least.Set(int(c), leastKey(st))
		}
	}
}

// explaining reports whether the machine wants explanations; callers test it before building
// one, so that a machine that does not explain pays no allocation for them.
func (s *System) explaining() bool { return s.env != nil && s.env.Explaining() }

// explain records why when the machine is explaining.
func (s *System) explain(c topology.CPU, tid sched.ID, why fmt.Stringer) {
	if s.explaining() {
		s.env.Explain(c, tid, why.String())
	}
}

// resched asks the environment to reschedule CPU c.
func (s *System) resched(c topology.CPU) {
	if s.env != nil {
		s.env.Resched(c)
	}
}

// tidOf returns the thread id of a Scheduler's task, or -1 for a task without a thread.
func tidOf(t *Task) sched.ID {
	if t == nil || t.th == nil {
		return -1
	}
	return t.th.id
}

type explainf struct {
	f    string
	args []any
}

func (e explainf) String() string { return fmt.Sprintf(e.f, e.args...) }

// Schedule returns the task cpu runs next, or nil if it idles: pick_next_task_fair, with the
// task cpu ran (if it stopped, see [System.Stop]) still in place. A pending active balance
// pushes one task away first ([System.ActiveBalance], the stopper); an empty CPU tries
// [System.NewidleBalance], records when it went idle, and picks again after a pull (which in
// v7.1 may have brought only delayed tasks, which the pick dequeues); the picked task moves to
// the head of the CPU's cfs_tasks and becomes [System.Curr]. Schedule panics if cpu is not a
// CPU of the machine.
func (s *System) Schedule(now int64, cpu topology.CPU) *Task {
	if s.notCPU(cpu) {
		s.badCPU("Schedule", cpu)
	}
	return s.schedule(now, &s.rqs[cpu])
}

// schedule is [System.Schedule] on CPU rq for a caller that checked the CPU (the [Scheduler],
// whose contract did).
func (s *System) schedule(now int64, rq *cpuRQ) *Task {
	s.at(now)
	if rq.active {
		s.ActiveBalance(now, rq.id, rq.pushCPU)
	}
	e := rq.c.Schedule(uint64(now))
	// Whether the CPU's statistics are those of its queue as it is now, so that refreshing them
	// again would change nothing.
	fresh := false
	if e == nil {
		// The pick may have dequeued delayed tasks (v7.1); before v6.6 a pick changes nothing
		// refresh reads, which unchanged tells when the last refresh was at this tick (the
		// stop's, usually).
		if !s.unchanged(rq) {
			s.refresh(rq)
		}
		rq.st.IdleStamp = uint64(now)
		// A pull may bring only delayed tasks, which the pick then dequeues: pick again, and
		// balance again, as pick_next_task_fair does after a successful newidle balance. The
		// pull ends with a refresh of the CPU, which the pick leaves standing before v6.6.
		for e == nil && s.newidleBalance(now, rq.id) {
			e = rq.c.Schedule(uint64(now))
			if !s.unchanged(rq) {
				s.refresh(rq)
			}
		}
		// Either the last pick found a task, after the refresh above, or the last new-idle
		// balance pulled nothing (it reports a pull, or tasks on the CPU), which leaves its
		// queue as that refresh saw it, at the same tick; what follows does not touch what
		// refresh reads, and a refresh of an empty queue sets no overload flag.
		fresh = true
	}
	rq.curr = nil
	if e == nil {
		s.updateIdleCore(rq.id)
		return nil
	}
	rq.st.IdleStamp = 0
	t := e.task
	rq.curr = t
	rq.tasks.moveToFront(t)
	s.catchUp(t, s.j)
	s.updateMisfit(rq.id)
	if !fresh && !s.unchanged(rq) {
		s.refresh(rq)
	}
	return t
}

// unchanged reports whether a refresh of CPU rq after a call that queued and dequeued nothing
// there (a pick that found a task, a stop for preemption) would leave everything as it is:
// before v6.6 a pick (pick_next_task_fair, set_next_entity, put_prev_entity) changes no count
// and no load refresh reads; they stand as refresh, or the tick's refresh, last wrote them if
// that was at this tick (no decay since) and no task joined or left the CPU's list nor took its
// utilisation off since (rq.fresh); and the overload flag refresh would raise is raised, or the
// CPU has fewer than two tasks. Every other change of a CPU's queues ends with a refresh. It
// spares, among others, the refresh that follows a stop's on the same CPU at the same instant.
func (s *System) unchanged(rq *cpuRQ) bool {
	return !s.p.Version.EEVDF() && rq.fresh == s.j+1 && (s.overload || rq.st.NrRunning < 2)
}

// updateIdleCore is __update_idle_core: when cpu idles and every SMT sibling is idle, its LLC
// has an idle core.
func (s *System) updateIdleCore(cpu topology.CPU) {
	if !s.ds.smtActive() {
		return
	}
	for _, c := range s.ds.smt[cpu] {
		if !s.stats[c].Idle() {
			return
		}
	}
	s.idleCor[s.ds.llcid(cpu)] = true
}

// updateMisfit is update_misfit_status for cpu's running task. On a machine whose CPUs are all
// alike no task is misfit and MisfitLoad stays 0, so the test stays at the call site.
func (s *System) updateMisfit(cpu topology.CPU) {
	if s.topo.Asymmetric() {
		s.updateMisfitAsym(cpu)
	}
}

// updateMisfitAsym is update_misfit_status on a machine of unequal capacities.
func (s *System) updateMisfitAsym(cpu topology.CPU) {
	st := &s.stats[cpu]
	t := s.rqs[cpu].curr
	if t == nil || t.nAllowed == 1 || fitsCapacity(t.util, st.Capacity) {
		st.MisfitLoad = 0
		return
	}
	st.MisfitLoad = max(TaskHLoad(t.E), 1)
}

// Stop tells the System that task t, running on cpu, stopped: dequeue_task with DEQUEUE_SLEEP
// for sched.Sleep ([RunQueue.Sleep]; in v7.1 a task that is not eligible stays queued, delayed,
// and on the CPU's cfs_tasks list), with DEQUEUE_SLEEP | DEQUEUE_SPECIAL for sched.Exit
// ([RunQueue.Exit], never delayed), yield_task_fair for sched.Yield, nothing for sched.Preempt.
// The task stays the CPU's running entity: the next [System.Schedule] puts it back only where
// the picked task's hierarchy differs ([RunQueue.Schedule]), as __schedule does; cpu has no
// [System.Curr] until then. A still-queued task that may no longer run on cpu, delayed or not,
// is put back at once and moves to an allowed CPU (move_queued_task, which keeps a delayed task
// delayed). Stop panics if cpu is not a CPU of the machine, or if why is sched.Sleep or
// sched.Exit and t is not queued on cpu (for sched.Sleep, also if it is a delayed sleeper).
func (s *System) Stop(now int64, cpu topology.CPU, t *Task, why sched.StopReason) {
	if s.notCPU(cpu) {
		s.badCPU("Stop", cpu)
	}
	s.stop(now, &s.rqs[cpu], t, why)
}

// stop is [System.Stop] on CPU rq for a caller that checked the CPU.
func (s *System) stop(now int64, rq *cpuRQ, t *Task, why sched.StopReason) {
	n := uint64(now)
	s.at(now)
	switch why {
	case sched.Sleep:
		rq.c.Sleep(t.E, n)
		if !t.E.delayed {
			s.delist(rq, t, true)
		}
	case sched.Exit:
		rq.c.Exit(t.E, n)
		if rq.tasks.contains(t) {
			s.delist(rq, t, false) // task_dead_fair: remove_entity_load_avg
		}
	case sched.Yield:
		rq.c.Yield(n)
	}
	// The stopped task stays the CPU's running entity until Schedule: pick_next_task_fair runs
	// with it in place, so that it can be picked again without restarting its slice, and a
	// group entity above it keeps running when the next task is in the same group.
	rq.curr = nil
	if t.E.onRQ && !t.allowed.Has(rq.id) {
		rq.c.deschedule(n)
		s.move(now, t, rq.id, fallbackCPU(s.topo, t, rq.id))
	}
	if why != sched.Preempt || !s.unchanged(rq) { // a preemption queues and dequeues nothing
		s.refresh(rq)
	}
}

// Move migrates task t, queued and not running, to CPU dst (move_queued_task, as an affinity
// change or a caller's experiment does): detach_task and attach_task, a delayed task moving
// delayed. Move panics if dst is not a CPU of the machine or t is not queued, or runs.
func (s *System) Move(now int64, t *Task, dst topology.CPU) {
	s.mustCPU("Move", dst)
	if !t.E.onRQ || s.rqs[t.cpu].curr == t {
		panic(fmt.Sprintf("cfs: System.Move of %v, which is not queued or runs", t))
	}
	s.at(now)
	s.move(now, t, t.cpu, dst)
}

// move migrates queued task t from src to dst: detach_task and attach_task (move_queued_task).
// A delayed task moves delayed. It joins dst's list before the enqueue, whose preemption check
// may dequeue it for good (v7.1).
func (s *System) move(now int64, t *Task, src, dst topology.CPU) {
	n := uint64(now)
	srq, drq := &s.rqs[src], &s.rqs[dst]
	srq.c.migrateOut(t.E, n)
	s.delist(srq, t, false)
	t.migrationsTotal++
	s.enlist(drq, t)
	var d WakeupDecision
	drq.c.migrateIn(t.E, n, &d)
	s.refresh(srq)
	s.refresh(drq)
	if d.Preempt {
		s.resched(dst)
	}
}

// SetAttr changes task t's fair class (__sched_setscheduler) and group (sched_move_task), its
// nice level (set_user_nice), its custom slice if slice >= 0 (sched_setattr's sched_runtime,
// v7.1 only: [RunQueue.SetSlice], or [Entity.SetSlice] for a task that is not queued; 0 goes
// back to the default) and its affinity (set_cpus_allowed_ptr, which moves a queued task off a
// CPU it may no longer use and reschedules a running one so that it leaves at its next stop). A
// task whose dequeue was delayed (v7.1) is still queued: each change dequeues and enqueues it
// around the change as the kernel's sched_change does, and it stays delayed, on its CPU or on
// the one it is moved to. SetAttr panics if allowed holds no CPU of the machine.
func (s *System) SetAttr(now int64, t *Task, class Class, nice int, g *Group, slice int64, allowed topology.CPUSet) {
	e := t.E
	cpu := t.cpu
	rq := &s.rqs[cpu]
	n := uint64(now)
	s.at(now)
	resched := false
	if class != e.class || g != e.group {
		resched = rq.c.requeue(e, n, func() {
			e.SetGroup(g)
			e.setClass(class)
		})
	}
	if nice != e.nice {
		resched = rq.c.SetNice(e, nice, n) || resched
	}
	if slice >= 0 && s.p.Version >= V618 {
		if e.onRQ {
			rq.c.SetSlice(e, uint64(slice), n)
		} else {
			e.SetSlice(uint64(slice))
		}
	}
	m := allowed.Intersect(s.all)
	if m.IsEmpty() {
		panic("cfs: System.SetAttr with no allowed CPU")
	}
	t.setAllowed(s.share(&m, t.allowed))
	if !t.allowed.Has(cpu) {
		switch {
		case rq.curr == t:
			resched = true
		case e.onRQ:
			s.move(now, t, cpu, fallbackCPU(s.topo, t, cpu))
		}
	}
	s.refresh(rq)
	if resched || rq.c.NeedResched() {
		s.resched(cpu)
	}
}
