// This file implements Scheduler, the fair class on a whole machine: one CPU per topology CPU
// composed with the SMP decisions (wakeup placement, periodic, newly idle and active load
// balancing), behind the method set the simulator's Policy interface asks for.

package cfs

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// maxPinnedInterval is MAX_PINNED_INTERVAL (ms): the longest balance interval after all tasks
// were pinned.
const maxPinnedInterval = 512

// A Scheduler runs the fair class on a machine: one [RunQueue] per CPU of the topology, running the
// preset of its version (classic CFS of v6.5, EEVDF of v6.6 or v7.1), with the multiprocessor
// decisions of v6.5 between them, and v7.1's counting of runnable tasks and its
// can_migrate_task tests under v7.1 ([SMPParams]). Wakeups and forks are placed by
// [SelectTaskRQ]; a CPU about to idle pulls work by newidle_balance; every tick runs
// task_tick_fair and, when due, rebalance_domains over the CPU's [SchedDomain]s with
// load_balance ([FindBusiestGroup], [FindBusiestQueue], [DetachTasks]); a balance that keeps
// failing pushes the busiest CPU's running task away (active balance). Its methods are the
// simulator's Policy interface (bench/sim), in the types of package sched.
//
// Under v7.1 a thread that sleeps while not eligible stays queued, delayed (DELAY_DEQUEUE): it
// stays on its CPU's cfs_tasks list ([Scheduler.Tasks]) until a pick or a wakeup-preemption
// check dequeues it for good, its wakeup requeues it in place (ttwu_runnable) without choosing
// a CPU, and moves and attribute changes keep it delayed; see the package documentation.
//
// Real-time classes (FIFO, RR) are a different kernel class that this package does not model:
// a thread asking for one runs as SCHED_NORMAL at its nice level, and [Scheduler.Err] reports
// the first such request. Nice 20 (FreeBSD's PRIO_MAX) is clamped to 19.
//
// A Scheduler is deterministic: it holds no maps it iterates and uses no randomness. It is not
// safe for concurrent use.
type Scheduler struct {
	opts Params // as given to New
	p    Params // opts for the machine's CPU count
	smp  SMPParams
	env  sched.Env
	topo *topology.Topology
	ds   *Domains
	hz   int
	ncpu int

	rqs     []cpuRQ
	stats   []CPUStat
	threads []*thread
	groups  map[sched.GroupID]*Group
	dom     []domainState
	sgImb   []bool
	idleCor []bool
	idleScn []int

	overload  bool
	utilShift uint
	j         int64 // the tick of the call in progress, for block
	chosen    []*Task
	examined  []*Task
	err       error
}

// cpuRQ is a CPU's struct rq beyond its fair part: its cfs_tasks list, the thread the
// machine runs, the balancing clock and the utilisation stand-in.
type cpuRQ struct {
	c           *RunQueue
	id          topology.CPU
	tasks       TaskList
	curr        *thread
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
}

// domainState is the mutable part of a struct sched_domain.
type domainState struct {
	lastBalance int64
	interval    int
	failed      int
}

// thread is a thread of the machine.
type thread struct {
	id     sched.ID
	task   *Task
	parent sched.ID
	slice  int64 // the sched_attr runtime last asked for (sched.Attr.Slice)
}

// New returns a Scheduler running parameters p (for example a [Preset]), to be started with
// [Scheduler.Start], which scales them for the machine's CPU count ([Params.ForCPUs]). It
// returns an error if p is not valid ([Params.Validate]).
func New(p Params) (*Scheduler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Scheduler{opts: p}, nil
}

// Name returns the parameters' name, such as "cfs-v6.5" ("cfs-" and the version if it is
// empty), with "-groupbug" when the NUMA groups are built with the Wasted Cores bug.
func (s *Scheduler) Name() string {
	n := s.opts.Name
	if n == "" {
		n = "cfs-" + s.opts.Version.String()
	}
	if s.opts.SMP.Groups == GroupsFirstCPU && !strings.HasSuffix(n, "-groupbug") {
		n += "-groupbug"
	}
	return n
}

// Start prepares the scheduler for the machine described by cfg and keeps env. It returns an
// error if cfg is invalid.
func (s *Scheduler) Start(cfg sched.Config, env sched.Env) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	t := cfg.Topology
	s.topo, s.env, s.hz, s.ncpu = t, env, cfg.Hz, t.NumCPUs()
	s.p = s.opts.ForCPUs(s.ncpu)
	s.smp = s.p.SMP
	s.ds = NewDomains(t, s.smp.Groups)
	n := t.NumIDs()
	s.rqs = make([]cpuRQ, n)
	s.stats = make([]CPUStat, n)
	s.dom = make([]domainState, s.ds.NumDomains())
	s.sgImb = make([]bool, len(s.ds.Groups()))
	s.idleCor = make([]bool, n)
	s.idleScn = make([]int, n)
	s.groups = map[sched.GroupID]*Group{}
	s.utilShift = uint(bits.Len(uint(max(1, 32*cfg.Hz/1000))))
	block := s.block
	for c := range t.CPUs().All() {
		rq := &s.rqs[c]
		rq.c, rq.id = NewRunQueue(int(c), s.p), c
		rq.c.onBlock = block
		cp := uint64(t.Capacity(c))
		s.stats[c] = CPUStat{Capacity: cp, CapacityOrig: cp, IdleStamp: 1}
		// As after boot: every CPU has idled once (has_idle_cores) and the LLC scan bound is
		// what update_idle_cpu_scan gives an idle LLC.
		s.idleCor[s.ds.LLCID(c)] = true
		s.idleScn[s.ds.LLCID(c)] = s.ds.LLCSize(c)
		for k := range s.ds.Chain(c) {
			sd := &s.ds.Chain(c)[k]
			s.dom[sd.idx].interval = sd.MinInterval()
		}
	}
	return nil
}

// TickHz returns cfg.Hz: Linux accounts at the timer interrupt.
func (s *Scheduler) TickHz() int { return s.hz }

// Params returns the parameters the CPUs run with: those given to New, scaled for the machine
// at Start.
func (s *Scheduler) Params() Params { return s.p }

// Domains returns the balancer's view of the machine.
func (s *Scheduler) Domains() *Domains { return s.ds }

// RunQueue returns the fair-class run queue of CPU c.
func (s *Scheduler) RunQueue(c topology.CPU) *RunQueue { return s.rqs[c].c }

// Stats returns the statistics the SMP decisions read, indexed by CPU id. The slice belongs to
// the scheduler.
func (s *Scheduler) Stats() []CPUStat { return s.stats }

// Task returns thread tid's task, or false if tid does not exist or exited.
func (s *Scheduler) Task(tid sched.ID) (*Task, bool) {
	if int(tid) < 0 || int(tid) >= len(s.threads) || s.threads[tid] == nil {
		return nil, false
	}
	return s.threads[tid].task, true
}

// Tasks returns CPU c's cfs_tasks list.
func (s *Scheduler) Tasks(c topology.CPU) *TaskList { return &s.rqs[c].tasks }

// Err returns the first unsupported request (a real-time class, an unknown group), or nil.
func (s *Scheduler) Err() error { return s.err }

func (s *Scheduler) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// AddGroup creates control group g with cpu.weight (100 = 1024 shares, cpu_weight_write_u64)
// or cpu.idle. It returns an error if g is invalid, exists, or its parent does not.
func (s *Scheduler) AddGroup(g sched.Group) error {
	if err := g.Validate(); err != nil {
		return err
	}
	if _, ok := s.groups[g.ID]; ok {
		return fmt.Errorf("cfs: group %d exists", g.ID)
	}
	var parent *Group
	if g.Parent != sched.RootGroup {
		p, ok := s.groups[g.Parent]
		if !ok {
			return fmt.Errorf("cfs: group %d: parent %d does not exist", g.ID, g.Parent)
		}
		parent = p
	}
	grp := NewGroup(fmt.Sprintf("g%d", g.ID), parent, s.topo.NumIDs())
	if g.Idle {
		grp.SetIdle(true)
	} else if err := grp.SetCPUWeight(g.Weight); err != nil {
		return err
	}
	s.groups[g.ID] = grp
	return nil
}

// policyOf maps a sched class to a fair policy, recording an error for the real-time classes.
func (s *Scheduler) policyOf(tid sched.ID, a sched.Attr) (Class, int) {
	nice := min(max(a.Nice, MinNice), MaxNice)
	switch a.Class {
	case sched.Batch:
		return Batch, nice
	case sched.Idle:
		return Idle, nice
	case sched.FIFO, sched.RR:
		s.fail(fmt.Errorf("cfs: thread %v: class %v is a real-time class, not modelled; it runs as SCHED_NORMAL", tid, a.Class))
	}
	return Normal, nice
}

// allowed returns the CPUs of affinity that the machine has, or all of them.
func (s *Scheduler) allowed(a topology.CPUSet) topology.CPUSet {
	m := a.Intersect(s.topo.CPUs())
	if m.IsEmpty() {
		return s.topo.CPUs()
	}
	return m
}

func (s *Scheduler) group(tid sched.ID, id sched.GroupID) *Group {
	if id == sched.RootGroup {
		return nil
	}
	g, ok := s.groups[id]
	if !ok {
		s.fail(fmt.Errorf("cfs: thread %v: group %d does not exist; it runs in the root group", tid, id))
	}
	return g
}

// Fork creates thread tid with attributes attr on cpu (sched_fork): a task in attr's class
// and group, allowed on attr's CPUs, whose first wakeup places it; from v7.1 on, attr.Slice is
// its custom slice ([Entity.SetSlice]; earlier versions ignore it, as their kernels do). Its
// utilisation estimate starts at half the capacity cpu has left, as
// post_init_entity_util_avg caps it.
func (s *Scheduler) Fork(now int64, tid, parent sched.ID, cpu topology.CPU, attr sched.Attr) {
	pol, nice := s.policyOf(tid, attr)
	e := NewTask(tid.String(), pol, nice)
	e.SetGroup(s.group(tid, attr.Group))
	if s.p.Version >= V71 && attr.Slice > 0 {
		e.SetSlice(uint64(attr.Slice))
	}
	t := NewSMPTask(e, s.allowed(attr.Affinity), cpu)
	st := &s.stats[cpu]
	t.util = (st.Capacity - min(st.Capacity, st.Util)) / 2
	t.utilTick = s.jiffies(now)
	for int(tid) >= len(s.threads) {
		s.threads = append(s.threads, nil)
	}
	th := &thread{id: tid, task: t, parent: parent, slice: attr.Slice}
	t.th = th
	s.threads[tid] = th
}

func (s *Scheduler) thread(tid sched.ID) *thread {
	if int(tid) < 0 || int(tid) >= len(s.threads) || s.threads[tid] == nil {
		panic(fmt.Sprintf("cfs: Scheduler: unknown thread %v", tid))
	}
	return s.threads[tid]
}

// jiffies converts simulated time to ticks.
func (s *Scheduler) jiffies(now int64) int64 { return now * int64(s.hz) / 1_000_000_000 }

// enlist puts task t on CPU c's cfs_tasks list (account_entity_enqueue) and attaches its
// utilisation, up to date, to the CPU's signal (attach_entity_load_avg).
func (s *Scheduler) enlist(c topology.CPU, t *Task) {
	rq := &s.rqs[c]
	s.catchUpCPU(rq, s.j)
	rq.tasks.PushFront(t)
	s.catchUp(t, s.j)
	rq.util += t.util
	t.cpu = c
}

// delist takes task t off CPU c's list, its estimate brought up to date. A task going to
// sleep leaves its utilisation in the CPU's signal, where it decays as blocked utilisation;
// any other (migration, exit) detaches it.
func (s *Scheduler) delist(c topology.CPU, t *Task, sleep bool) {
	s.rqs[c].tasks.Remove(t)
	s.catchUp(t, s.j)
	if !sleep {
		s.detachUtil(c, t.util)
	}
}

// block is __block_task for a task whose delayed dequeue (v7.1) finished inside a CPU method (a
// pick, a wakeup preemption check): it leaves its CPU's cfs_tasks list and, as a sleeper,
// leaves its utilisation behind as blocked utilisation.
func (s *Scheduler) block(e *Entity) {
	t := e.task
	s.delist(t.cpu, t, true)
}

// refresh recomputes CPU c's statistics from its queues, and raises the root domain's overload
// flag when c has two tasks or more (add_nr_running). nr_running counts delayed-dequeue tasks
// (v7.1), which are still queued; the h_nr_running the balancer reads, and cpu_runnable, count
// only the runnable ones (h_nr_runnable), as v7.1's balancer does.
func (s *Scheduler) refresh(c topology.CPU) {
	rq := &s.rqs[c]
	st := &s.stats[c]
	root := rq.c.Root()
	nr := uint32(root.HNrRunning())
	nrr := uint32(root.HNrRunnable())
	st.NrRunning, st.HNrRunning = nr, nrr
	st.IdleHNrRunning = uint32(root.IdleHNrRunning())
	st.Load = ScaleLoadDown(root.Load().Weight)
	st.Runnable = uint64(nrr) * topology.CapacityScale
	s.catchUpCPU(rq, s.j)
	st.Util = min(rq.util, st.Capacity)
	if nr >= 2 {
		s.overload = true
	}
}

// explaining reports whether the machine wants explanations; callers test it before building
// one, so that a machine that does not explain pays no allocation for them.
func (s *Scheduler) explaining() bool { return s.env != nil && s.env.Explaining() }

// explain records why when the machine is explaining.
func (s *Scheduler) explain(c topology.CPU, tid sched.ID, why fmt.Stringer) {
	if s.explaining() {
		s.env.Explain(c, tid, why.String())
	}
}

type explainf struct {
	f    string
	args []any
}

func (e explainf) String() string { return fmt.Sprintf(e.f, e.args...) }

// Wakeup makes tid runnable. A new thread (sched.WakeFork) is placed by the fork slow path from
// from, the parent's CPU, and started there by [RunQueue.Fork] (task_fork_fair and
// wake_up_new_task, placed against the chosen CPU's queue); a sleeper is placed by
// [SelectTaskRQ] (recording the waker's wakee flips) and enqueued, as a migrated wakeup if it
// changes CPU. A CPU the wakee should preempt, or an idle one, is rescheduled. A thread whose
// sleep was delayed (v7.1) is still queued: ttwu_runnable requeues it on its own CPU
// ([RunQueue.Wakeup]) and judges preemption there, without select_task_rq. Wakeup panics if tid is
// unknown (never forked, or exited) or is runnable and not a delayed sleeper.
func (s *Scheduler) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) {
	th := s.thread(tid)
	t := th.task
	s.j = s.jiffies(now)
	if t.E.onRQ {
		if !t.E.delayed {
			panic(fmt.Sprintf("cfs: Scheduler.Wakeup of runnable thread %v", tid))
		}
		s.wakeDelayed(now, th)
		return
	}
	fork := flags&sched.WakeFork != 0
	left := s.wakeUtil(t, s.j)
	var waker *Task
	if w := s.rqs[from].curr; w != nil && w.task != t {
		waker = w.task
	}
	if waker != nil && !fork {
		waker.RecordWakee(t, now)
	}
	env := WakeEnv{Domains: s.ds, Stats: s.stats, Task: t, Waker: waker, This: from, Prev: t.cpu,
		Sync: flags&sched.WakeSync != 0, Fork: fork, HasIdleCores: s.idleCor, NrIdleScan: s.idleScn, Params: s.smp}
	if fork {
		env.Prev = from
	}
	pl := SelectTaskRQ(&env)
	if pl.ClearIdleCores {
		s.idleCor[s.ds.LLCID(pl.Target)] = false
	}
	if pl.SetRecentUsed {
		t.recentUsedCPU = pl.RecentUsed
	}
	dst := pl.CPU
	rq := &s.rqs[dst]
	var d WakeupDecision
	switch {
	case fork:
		var parent *Entity
		if p := rq.curr; p != nil && p.id == th.parent && p.task.E.group == t.E.group {
			parent = p.task.E
		}
		d = rq.c.Fork(parent, t.E, uint64(now))
	case dst != t.cpu && t.E.q != nil:
		t.migrationsTotal++
		d = rq.c.WakeupMigrated(t.E, uint64(now))
	default:
		d = rq.c.Wakeup(t.E, uint64(now))
	}
	if !fork {
		// remove_entity_load_avg: the old CPU's statistics see it at their next refresh.
		s.detachUtil(t.cpu, left)
	}
	s.enlist(dst, t)
	s.refresh(dst)
	if s.explaining() {
		s.explain(dst, tid, explainf{"%v; %v", []any{pl, d}})
	}
	if rq.c.NeedResched() {
		s.env.Resched(dst)
	}
}

// wakeDelayed is try_to_wake_up of a task whose dequeue was delayed (v7.1): the task is still
// queued, so ttwu_runnable requeues it where it is (ENQUEUE_DELAYED) and judges wakeup
// preemption, without select_task_rq and without recording the waker's wakee.
func (s *Scheduler) wakeDelayed(now int64, th *thread) {
	c := th.task.cpu
	rq := &s.rqs[c]
	d := rq.c.Wakeup(th.task.E, uint64(now))
	s.refresh(c)
	if s.explaining() {
		s.explain(c, th.id, explainf{"ttwu_runnable: delayed on %v, requeued; %v", []any{c, d}})
	}
	if rq.c.NeedResched() {
		s.env.Resched(c)
	}
}

// Pick returns the thread cpu runs next: pick_next_task_fair. A pending active balance pushes
// one task away first (the stopper); an empty CPU tries newidle_balance, and records when it
// went idle, and picks again after a pull (which in v7.1 may have brought only delayed tasks,
// which the pick dequeues); the picked task moves to the head of the CPU's cfs_tasks.
func (s *Scheduler) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	rq := &s.rqs[cpu]
	s.j = s.jiffies(now)
	if rq.active {
		// The stopper preempts the fair class (put_prev_task_fair), then pushes a task away.
		rq.c.Deschedule(uint64(now))
		s.activeBalance(now, cpu)
	}
	e := rq.c.Schedule(uint64(now))
	if e == nil {
		s.refresh(cpu) // the pick may have dequeued delayed tasks
		s.stats[cpu].IdleStamp = uint64(now)
		// A pull may bring only delayed tasks, which the pick then dequeues: pick again, and
		// balance again, as pick_next_task_fair does after a successful newidle balance.
		for e == nil && s.newidleBalance(now, cpu) {
			e = rq.c.Schedule(uint64(now))
			s.refresh(cpu)
		}
	}
	rq.curr = nil
	if e == nil {
		s.refresh(cpu)
		s.updateIdleCore(cpu)
		return -1, false
	}
	s.stats[cpu].IdleStamp = 0
	t := e.task
	th := t.th
	rq.curr = th
	rq.tasks.MoveToFront(t)
	s.catchUp(t, s.j)
	s.updateMisfit(cpu)
	s.refresh(cpu)
	return th.id, true
}

// updateIdleCore is __update_idle_core: when cpu idles and every SMT sibling is idle, its LLC
// has an idle core.
func (s *Scheduler) updateIdleCore(cpu topology.CPU) {
	if !s.ds.SMTActive() {
		return
	}
	for _, c := range s.ds.SMT(cpu) {
		if !s.stats[c].Idle() {
			return
		}
	}
	s.idleCor[s.ds.LLCID(cpu)] = true
}

// updateMisfit is update_misfit_status for cpu's running task.
func (s *Scheduler) updateMisfit(cpu topology.CPU) {
	if !s.topo.Asymmetric() {
		return
	}
	st := &s.stats[cpu]
	th := s.rqs[cpu].curr
	if th == nil || th.task.nAllowed == 1 || fitsCapacity(th.task.util, st.Capacity) {
		st.MisfitLoad = 0
		return
	}
	st.MisfitLoad = max(TaskHLoad(th.task.E), 1)
}

// Stop tells the scheduler that tid stopped running on cpu: dequeue_task with DEQUEUE_SLEEP for
// sched.Sleep ([RunQueue.Sleep]; in v7.1 a task that is not eligible stays queued, delayed, and on
// the CPU's cfs_tasks list), with DEQUEUE_SLEEP | DEQUEUE_SPECIAL for sched.Exit ([RunQueue.Exit],
// never delayed), yield_task_fair for sched.Yield, nothing for sched.Preempt. The task stays the
// CPU's running entity: the next Pick puts it back only where the picked task's hierarchy
// differs ([RunQueue.Schedule]), as __schedule does. A still-queued task that may no longer run on
// cpu, delayed or not, is put back at once and moves to an allowed CPU (move_queued_task, which
// keeps a delayed task delayed). Stop panics if tid is unknown, or if why is sched.Sleep or
// sched.Exit and tid is not queued on cpu (for sched.Sleep, also if it is a delayed sleeper).
func (s *Scheduler) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) {
	th := s.thread(tid)
	t := th.task
	rq := &s.rqs[cpu]
	n := uint64(now)
	s.j = s.jiffies(now)
	switch why {
	case sched.Sleep:
		rq.c.Sleep(t.E, n)
		if !t.E.delayed {
			s.delist(cpu, t, true)
		}
	case sched.Exit:
		rq.c.Exit(t.E, n)
		if rq.tasks.Contains(t) {
			s.delist(cpu, t, false) // task_dead_fair: remove_entity_load_avg
		}
	case sched.Yield:
		rq.c.Yield(n)
	}
	// The stopped task stays the CPU's running entity until Pick: pick_next_task_fair runs with
	// it in place, so that it can be picked again without restarting its slice, and a group
	// entity above it keeps running when the next task is in the same group.
	rq.curr = nil
	if why == sched.Exit {
		s.threads[tid] = nil
	}
	if t.E.onRQ && !t.allowed.Has(cpu) {
		rq.c.Deschedule(n)
		s.move(now, t, cpu, fallbackCPU(s.topo, t, cpu))
	}
	s.refresh(cpu)
}

// move migrates queued task t from src to dst: detach_task and attach_task (move_queued_task).
// A delayed task moves delayed. It joins dst's list before the enqueue, whose preemption check
// may dequeue it for good (v7.1).
func (s *Scheduler) move(now int64, t *Task, src, dst topology.CPU) {
	n := uint64(now)
	s.rqs[src].c.MigrateOut(t.E, n)
	s.delist(src, t, false)
	t.migrationsTotal++
	s.enlist(dst, t)
	d := s.rqs[dst].c.MigrateIn(t.E, n)
	s.refresh(src)
	s.refresh(dst)
	if d.Preempt {
		s.env.Resched(dst)
	}
}

// Tick is the scheduler tick on cpu (scheduler_tick): on a busy CPU the CPU's utilisation
// signal and the running task's estimate gain capacity/2^k (everything decays lazily, by the
// ticks that passed, when it is next read or changes state), task_tick_fair charges the
// running task and may ask for a resched, the misfit status is updated, and when the CPU's
// next_balance is due, rebalance_domains balances every domain whose interval has elapsed.
// Apart from the balancing, its cost does not depend on the number of tasks on the CPU.
func (s *Scheduler) Tick(now int64, cpu topology.CPU) {
	rq := &s.rqs[cpu]
	j := s.jiffies(now)
	s.j = j
	busy := rq.curr != nil
	if busy {
		s.tickUtil(rq, s.stats[cpu].Capacity, j)
		var d TickDecision
		rq.c.tick(uint64(now), &d)
		if rq.c.NeedResched() {
			if s.explaining() {
				s.explain(cpu, rq.curr.id, d)
			}
			s.env.Resched(cpu)
		}
		s.updateMisfit(cpu)
	}
	s.refresh(cpu)
	if j >= rq.nextBalance {
		idle := CPUIdle
		if busy {
			idle = CPUNotIdle
		}
		s.rebalanceDomains(now, cpu, idle)
	}
}

// rebalanceDomains is rebalance_domains: from the lowest domain up, balance each domain whose
// interval elapsed, stopping above a level where another CPU of the group balances, and set the
// CPU's next_balance to the earliest next due time.
func (s *Scheduler) rebalanceDomains(now int64, cpu topology.CPU, idle IdleType) {
	j := s.jiffies(now)
	busy := idle != CPUIdle && !s.stats[cpu].IdleOnly()
	next := j + int64(60*s.hz)
	cont := true
	chain := s.ds.Chain(cpu)
	for k := range chain {
		sd := &chain[k]
		if !cont {
			break
		}
		ds := &s.dom[sd.idx]
		iv := BalanceInterval(ds.interval, sd.BusyFactor(), busy, s.hz, s.ncpu)
		if j >= ds.lastBalance+iv {
			var moved int
			moved, cont = s.loadBalance(now, cpu, sd, idle)
			if moved > 0 {
				idle = CPUNotIdle
				if s.stats[cpu].Idle() {
					idle = CPUIdle
				}
				busy = idle != CPUIdle && !s.stats[cpu].IdleOnly()
			}
			ds.lastBalance = j
			iv = BalanceInterval(ds.interval, sd.BusyFactor(), busy, s.hz, s.ncpu)
		}
		next = min(next, ds.lastBalance+iv)
	}
	s.rqs[cpu].nextBalance = next
}

// newidleBalance is newidle_balance: when some CPU has more than one task (the root domain's
// overload flag), balance each SD_BALANCE_NEWIDLE domain from the lowest up until a task was
// pulled; without the flag, only bring the CPU's next periodic balance forward to the base
// domain's idle interval. The kernel also skips domains whose measured balancing cost exceeds the CPU's average
// idle time; the model has no such costs and never skips. It reports whether a task was pulled.
func (s *Scheduler) newidleBalance(now int64, cpu topology.CPU) bool {
	rq := &s.rqs[cpu]
	j := s.jiffies(now)
	next := j + int64(s.hz)
	pulled := false
	if chain := s.ds.Chain(cpu); !s.overload && len(chain) > 0 {
		// Nothing to pull anywhere (rd->overload clear): newidle_balance still brings the
		// next periodic balance forward to the base domain's idle interval.
		sd := &chain[0]
		ds := &s.dom[sd.idx]
		next = min(next, ds.lastBalance+BalanceInterval(ds.interval, sd.BusyFactor(), false, s.hz, s.ncpu))
	}
	if s.overload {
		for k := range s.ds.Chain(cpu) {
			sd := &s.ds.Chain(cpu)[k]
			ds := &s.dom[sd.idx]
			next = min(next, ds.lastBalance+BalanceInterval(ds.interval, sd.BusyFactor(), false, s.hz, s.ncpu))
			if sd.flags&topology.SDBalanceNewIdle != 0 {
				moved, _ := s.loadBalance(now, cpu, sd, CPUNewlyIdle)
				pulled = moved > 0
			}
			if pulled || s.stats[cpu].NrRunning > 0 {
				break
			}
		}
	}
	rq.nextBalance = min(rq.nextBalance, next)
	return pulled || s.stats[cpu].NrRunning > 0
}

// loadBalance is load_balance of v6.5 for cpu at domain sd: it returns the number of tasks moved
// and whether balancing should continue at the levels above (should_we_balance).
func (s *Scheduler) loadBalance(now int64, cpu topology.CPU, sd *SchedDomain, idle IdleType) (moved int, cont bool) {
	ds := &s.dom[sd.idx]
	env := LBEnv{SD: sd, DstCPU: cpu, Idle: idle, CPUs: sd.span, Stats: s.stats, GroupImbalance: s.sgImb,
		NrBalanceFailed: ds.failed, MaxCapacity: s.ds.MaxCapacity(), Params: s.smp}
	dstGrpMask := sd.groups[0].balance
	var flags LBFlags
	cont = true
	var bg BusiestGroup
	var src topology.CPU
	activeStarted := false
redo:
	if !ShouldWeBalance(&env) {
		cont = false
		goto outBalanced
	}
	bg = FindBusiestGroup(&env)
	if sd.parent == nil {
		s.overload = bg.Overload
	}
	if idle != CPUNewlyIdle && s.ds.LLC(cpu) == sd {
		s.idleScn[s.ds.LLCID(cpu)] = IdleCPUScan(bg.SumUtil, sd.weight, sd.ImbalancePct())
	}
	if bg.Group == nil {
		goto outBalanced
	}
	{
		var ok bool
		src, ok = FindBusiestQueue(&env, &bg)
		if !ok {
			goto outBalanced
		}
	}
	flags = LBFAllPinned
	if s.stats[src].NrRunning > 1 {
		if bg.Migration == MigrateUtil || bg.Migration == MigrateMisfit {
			// detach_tasks reads the utilisation of the tasks it examines.
			for p := s.rqs[src].tasks.head; p != nil; p = p.next {
				s.catchUp(p, s.j)
			}
		}
		me := MigrateEnv{LBEnv: &env, Src: src, SrcRQ: s.rqs[src].c, Now: uint64(now), Migration: bg.Migration,
			Imbalance: bg.Imbalance, Flags: flags, DstGroupMask: dstGrpMask}
		examined := 0
		for {
			me.Flags, me.DstRQ = flags, s.rqs[env.DstCPU].c
			var d Detach
			s.chosen, d = DetachTasks(&me, &s.rqs[src].tasks, s.chosen[:0])
			examined += d.Examined
			s.apply(now, &me, d)
			moved += d.Detached
			me.Imbalance, flags = d.Imbalance, d.Flags
			if d.Detached > 0 {
				if s.explaining() {
					s.explain(me.DstCPU, -1, explainf{"load_balance %v %v: %v; %v from %v", []any{sd.Name(), idle, bg, d, src}})
				}
			}
			if flags&LBFNeedBreak != 0 {
				flags &^= LBFNeedBreak
				if examined < int(s.stats[src].NrRunning) {
					continue
				}
			}
			if flags&LBFDstPinned != 0 && me.Imbalance > 0 {
				env.CPUs.Remove(env.DstCPU)
				env.DstCPU = d.NewDst
				flags &^= LBFDstPinned
				examined = 0
				continue
			}
			break
		}
		if sd.parent != nil && flags&LBFSomePinned != 0 && me.Imbalance > 0 {
			s.sgImb[sd.parent.groups[0].id] = true
		}
		if flags&LBFAllPinned != 0 {
			env.CPUs.Remove(src)
			if !env.CPUs.SubsetOf(dstGrpMask) {
				goto redo
			}
			goto outAllPinned
		}
	}
	if moved == 0 {
		if idle != CPUNewlyIdle {
			ds.failed++
		}
		if NeedActiveBalance(&env, src, bg.Migration, ds.failed) {
			bc := s.rqs[src].curr
			if bc == nil || !bc.task.allowed.Has(cpu) {
				goto outOnePinned
			}
			if !s.rqs[src].active {
				s.rqs[src].active, s.rqs[src].pushCPU = true, cpu
				activeStarted = true
				if s.explaining() {
					s.explain(src, bc.id, explainf{"active balance from %v to %v at %v: %v", []any{src, cpu, sd.Name(), bg}})
				}
				s.env.Resched(src)
			}
		}
	} else {
		ds.failed = 0
	}
	if !activeStarted || NeedActiveBalance(&env, src, bg.Migration, ds.failed) {
		ds.interval = sd.MinInterval()
	}
	return moved, cont

outBalanced:
	if sd.parent != nil && flags&LBFAllPinned == 0 {
		s.sgImb[sd.parent.groups[0].id] = false
	}
outAllPinned:
	ds.failed = 0
outOnePinned:
	if idle == CPUNewlyIdle {
		return 0, cont
	}
	if (flags&LBFAllPinned != 0 && ds.interval < maxPinnedInterval) || ds.interval < sd.MaxInterval() {
		ds.interval *= 2
	}
	return 0, cont
}

// apply carries out a [DetachTasks] outcome: the chosen tasks leave the source, the examined
// tasks that stayed move to the head of its list in examination order, and the chosen ones are
// attached to the destination in reverse detach order (attach_tasks takes them from the head of
// env->tasks, where each was added).
func (s *Scheduler) apply(now int64, me *MigrateEnv, d Detach) {
	src := &s.rqs[me.Src]
	s.examined = s.examined[:0]
	for p, k := src.tasks.tail, 0; p != nil && k < d.Examined; p, k = p.prev, k+1 {
		s.examined = append(s.examined, p)
	}
	n := uint64(now)
	for _, t := range s.chosen {
		src.c.MigrateOut(t.E, n)
		s.delist(me.Src, t, false)
	}
	for _, t := range s.examined {
		if src.tasks.Contains(t) {
			src.tasks.MoveToFront(t)
		}
	}
	dst := me.DstCPU
	resched := false
	for i := len(s.chosen) - 1; i >= 0; i-- {
		t := s.chosen[i]
		t.migrationsTotal++
		s.enlist(dst, t)
		w := s.rqs[dst].c.MigrateIn(t.E, n)
		resched = resched || w.Preempt
	}
	s.refresh(me.Src)
	s.refresh(dst)
	if resched {
		s.env.Resched(dst)
	}
}

// activeBalance is active_load_balance_cpu_stop on busiest CPU cpu, whose running task the
// machine has stopped: move the least recently run task that may run on the pushing CPU there.
func (s *Scheduler) activeBalance(now int64, cpu topology.CPU) {
	rq := &s.rqs[cpu]
	rq.active = false
	target := rq.pushCPU
	// The kernel's test is busiest_rq->nr_running <= 1 with the stopper itself counted.
	if s.stats[cpu].NrRunning == 0 {
		return
	}
	var sd *SchedDomain
	for k := range s.ds.Chain(target) {
		if d := &s.ds.Chain(target)[k]; d.span.Has(cpu) {
			sd = d
			break
		}
	}
	if sd == nil {
		return
	}
	env := LBEnv{SD: sd, DstCPU: target, Idle: CPUIdle, CPUs: sd.span, Stats: s.stats, Params: s.smp,
		NrBalanceFailed: s.dom[sd.idx].failed, MaxCapacity: s.ds.MaxCapacity()}
	// The stopper's lb_env leaves migration_type 0, migrate_load, so v7.1 may push a delayed task.
	me := MigrateEnv{LBEnv: &env, Src: cpu, SrcRQ: rq.c, DstRQ: s.rqs[target].c, Now: uint64(now), Flags: LBFActiveLB}
	for p := rq.tasks.tail; p != nil; p = p.prev {
		if v := CanMigrateTask(&me, p); v.OK {
			s.move(now, p, cpu, target)
			s.dom[sd.idx].failed = 0
			if s.explaining() {
				s.explain(target, -1, explainf{"active balance moved %v from %v", []any{p, cpu}})
			}
			return
		}
	}
}

// SetAttr changes tid's attributes: nice (set_user_nice), fair policy (__sched_setscheduler),
// group (sched_move_task), the custom slice (sched_setattr's sched_runtime, v7.1 only:
// [RunQueue.SetSlice], or [Entity.SetSlice] for a task that is not queued) and affinity
// (set_cpus_allowed_ptr, which moves a queued task off a CPU it may no longer use and
// reschedules a running one so that it leaves at its next stop). A task whose dequeue was
// delayed (v7.1) is still queued: each change dequeues and enqueues it around the change as the
// kernel's sched_change does, and it stays delayed, on its CPU or on the one it is moved to.
// SetAttr panics if tid is unknown (never forked, or exited).
func (s *Scheduler) SetAttr(now int64, tid sched.ID, attr sched.Attr) {
	th := s.thread(tid)
	t := th.task
	e := t.E
	cpu := t.cpu
	rq := &s.rqs[cpu]
	n := uint64(now)
	s.j = s.jiffies(now)
	pol, nice := s.policyOf(tid, attr)
	g := s.group(tid, attr.Group)
	resched := false
	if pol != e.class || g != e.group {
		resched = rq.c.Requeue(e, n, func() {
			e.SetGroup(g)
			e.setClass(pol)
		})
	}
	if nice != e.nice {
		resched = rq.c.SetNice(e, nice, n) || resched
	}
	if attr.Slice != th.slice && attr.Slice >= 0 {
		th.slice = attr.Slice
		if s.p.Version >= V71 {
			if e.onRQ {
				rq.c.SetSlice(e, uint64(attr.Slice), n)
			} else {
				e.SetSlice(uint64(attr.Slice))
			}
		}
	}
	t.SetAllowed(s.allowed(attr.Affinity))
	if !t.allowed.Has(cpu) {
		switch {
		case rq.curr == th:
			resched = true
		case e.onRQ:
			s.move(now, t, cpu, fallbackCPU(s.topo, t, cpu))
		}
	}
	s.refresh(cpu)
	if resched || rq.c.NeedResched() {
		s.env.Resched(cpu)
	}
}
