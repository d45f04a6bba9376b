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
// a thread asking for one with a Linux sched_priority runs as SCHED_NORMAL at its nice level,
// and [Scheduler.Err] reports the first such thread; one written on FreeBSD's rtprio(2) scale is
// refused before the run by [Scheduler.CheckAttr]. Nice 20 (FreeBSD's PRIO_MAX) is clamped to
// 19. The simulator calls CheckAttr and Err through its optional AttrChecker and ErrReporter
// interfaces.
//
// A Scheduler is deterministic: it holds no maps it iterates and uses no randomness. It is not
// safe for concurrent use.
type Scheduler struct {
	opts    Params // as given to New
	sys     *System
	env     sched.Env
	threads []*thread
	groups  map[sched.GroupID]*Group
	err     error
}

// A System is the fair class on a whole machine as explicit state, without the simulator: one
// [RunQueue] per CPU of the topology with its cfs_tasks list ([TaskList]) and running task,
// the statistics the SMP decisions read ([CPUStat]), the sched domains ([Domains]) with their
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
	smp  SMPParams
	env  sched.Env
	topo *topology.Topology
	ds   *Domains
	hz   int
	ncpu int

	rqs     []cpuRQ
	stats   []CPUStat
	dom     []domainState
	sgImb   []bool
	idleCor []bool
	idleScn []int

	overload  bool
	utilShift uint
	j         int64 // the tick of the call in progress, for block
	chosen    []*Task
	examined  []*Task
}

// cpuRQ is a CPU's struct rq beyond its fair part: its cfs_tasks list, the thread the
// machine runs, the balancing clock and the utilisation stand-in.
type cpuRQ struct {
	c           *RunQueue
	id          topology.CPU
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

// Start prepares the scheduler for the machine described by cfg and keeps env: it builds the
// [System] of the machine with the parameters given to New scaled for its CPU count. It returns
// an error if cfg is invalid.
func (s *Scheduler) Start(cfg sched.Config, env sched.Env) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	sys, err := NewSystem(s.opts, cfg.Topology, cfg.Hz, env)
	if err != nil {
		return err
	}
	s.sys, s.env = sys, env
	s.groups = map[sched.GroupID]*Group{}
	return nil
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
	s := &System{topo: t, env: env, hz: hz, ncpu: t.NumCPUs()}
	s.p = p.ForCPUs(s.ncpu)
	s.smp = s.p.SMP
	s.ds = NewDomains(t, s.smp.Groups)
	n := t.NumIDs()
	s.rqs = make([]cpuRQ, n)
	s.stats = make([]CPUStat, n)
	s.dom = make([]domainState, s.ds.NumDomains())
	s.sgImb = make([]bool, len(s.ds.Groups()))
	s.idleCor = make([]bool, n)
	s.idleScn = make([]int, n)
	s.utilShift = uint(bits.Len(uint(max(1, 32*hz/1000))))
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
	return s, nil
}

// System returns the scheduler's System (nil before Start).
func (s *Scheduler) System() *System { return s.sys }

// Params returns the parameters the CPUs run with: those given to NewSystem, scaled for the
// machine.
func (s *System) Params() Params { return s.p }

// Topology returns the machine.
func (s *System) Topology() *topology.Topology { return s.topo }

// Domains returns the balancer's view of the machine.
func (s *System) Domains() *Domains { return s.ds }

// RunQueue returns the fair-class run queue of CPU c.
func (s *System) RunQueue(c topology.CPU) *RunQueue { return s.rqs[c].c }

// Stats returns the statistics the SMP decisions read, indexed by CPU id. The slice belongs to
// the System.
func (s *System) Stats() []CPUStat { return s.stats }

// Tasks returns CPU c's cfs_tasks list.
func (s *System) Tasks(c topology.CPU) *TaskList { return &s.rqs[c].tasks }

// Curr returns the task CPU c runs (the one [System.Schedule] last returned for it and that
// has not stopped), or nil.
func (s *System) Curr(c topology.CPU) *Task { return s.rqs[c].curr }

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

// TickHz returns cfg.Hz: Linux accounts at the timer interrupt.
func (s *Scheduler) TickHz() int { return s.sys.hz }

// Params returns the parameters the CPUs run with: those given to New, scaled for the machine
// at Start.
func (s *Scheduler) Params() Params { return s.sys.p }

// Domains returns the balancer's view of the machine.
func (s *Scheduler) Domains() *Domains { return s.sys.ds }

// RunQueue returns the fair-class run queue of CPU c.
func (s *Scheduler) RunQueue(c topology.CPU) *RunQueue { return s.sys.rqs[c].c }

// Stats returns the statistics the SMP decisions read, indexed by CPU id. The slice belongs to
// the scheduler.
func (s *Scheduler) Stats() []CPUStat { return s.sys.stats }

// Task returns thread tid's task, or false if tid does not exist or exited.
func (s *Scheduler) Task(tid sched.ID) (*Task, bool) {
	if int(tid) < 0 || int(tid) >= len(s.threads) || s.threads[tid] == nil {
		return nil, false
	}
	return s.threads[tid].task, true
}

// Tasks returns CPU c's cfs_tasks list.
func (s *Scheduler) Tasks(c topology.CPU) *TaskList { return &s.sys.rqs[c].tasks }

// Err returns the first request the Scheduler ran as something else (a real-time class run as
// SCHED_NORMAL, a thread of an unknown group run in the root group), or nil.
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
	grp := NewGroup(fmt.Sprintf("g%d", g.ID), parent, s.sys.topo.NumIDs())
	if g.Idle {
		grp.SetIdle(true)
	} else if err := grp.SetCPUWeight(g.Weight); err != nil {
		return err
	}
	s.groups[g.ID] = grp
	return nil
}

// Fork creates thread tid with attributes attr on cpu (sched_fork): a task in attr's class
// and group, allowed on attr's CPUs, whose first wakeup places it ([System.Fork]); from v7.1
// on, attr.Slice is its custom slice ([Entity.SetSlice]; earlier versions ignore it, as their
// kernels do).
//
// Fork panics if cpu is not a CPU of the machine, or if thread tid exists (forked and not
// exited): a second task for one thread would be queued, and picked, twice.
func (s *Scheduler) Fork(now int64, tid, parent sched.ID, cpu topology.CPU, attr sched.Attr) {
	s.mustCPU("Fork", cpu)
	if tid < 0 {
		panic(fmt.Sprintf("cfs: Scheduler.Fork of thread id %d", tid))
	}
	if int(tid) < len(s.threads) && s.threads[tid] != nil {
		panic(fmt.Sprintf("cfs: Scheduler.Fork of thread %v, which exists", tid))
	}
	pol, nice := s.classOf(tid, attr)
	e := NewTask(tid.String(), pol, nice)
	e.SetGroup(s.group(tid, attr.Group))
	if s.sys.p.Version >= V71 && attr.Slice > 0 {
		e.SetSlice(uint64(attr.Slice))
	}
	t := s.sys.Fork(now, e, s.sys.allowed(attr.Affinity), cpu)
	for int(tid) >= len(s.threads) {
		s.threads = append(s.threads, nil)
	}
	th := &thread{id: tid, task: t, parent: parent, slice: attr.Slice}
	t.th = th
	s.threads[tid] = th
}

// Fork returns a new task for entity e, allowed on allowed, created on cpu and not yet
// runnable (sched_fork): its first [System.Wakeup], with sched.WakeFork, places it. Its
// utilisation estimate starts at half the capacity cpu has left, as post_init_entity_util_avg
// caps it. Fork panics if cpu is not a CPU of the machine or allowed has none of its CPUs.
func (s *System) Fork(now int64, e *Entity, allowed topology.CPUSet, cpu topology.CPU) *Task {
	s.mustCPU("Fork", cpu)
	t := NewSMPTask(e, allowed.Intersect(s.topo.CPUs()), cpu)
	st := &s.stats[cpu]
	t.util = (st.Capacity - min(st.Capacity, st.Util)) / 2
	t.utilTick = s.jiffies(now)
	return t
}

func (s *Scheduler) thread(tid sched.ID) *thread {
	if int(tid) < 0 || int(tid) >= len(s.threads) || s.threads[tid] == nil {
		panic(fmt.Sprintf("cfs: Scheduler: unknown thread %v", tid))
	}
	return s.threads[tid]
}

// jiffies converts simulated time to ticks.
func (s *System) jiffies(now int64) int64 { return now * int64(s.hz) / 1_000_000_000 }

// enlist puts task t on CPU c's cfs_tasks list (account_entity_enqueue) and attaches its
// utilisation, up to date, to the CPU's signal (attach_entity_load_avg).
func (s *System) enlist(c topology.CPU, t *Task) {
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
func (s *System) delist(c topology.CPU, t *Task, sleep bool) {
	s.rqs[c].tasks.Remove(t)
	s.catchUp(t, s.j)
	if !sleep {
		s.detachUtil(c, t.util)
	}
}

// block is __block_task for a task whose delayed dequeue (v7.1) finished inside a CPU method (a
// pick, a wakeup preemption check): it leaves its CPU's cfs_tasks list and, as a sleeper,
// leaves its utilisation behind as blocked utilisation.
func (s *System) block(e *Entity) {
	t := e.task
	s.delist(t.cpu, t, true)
}

// refresh recomputes CPU c's statistics from its queues, and raises the root domain's overload
// flag when c has two tasks or more (add_nr_running). nr_running counts delayed-dequeue tasks
// (v7.1), which are still queued; the h_nr_running the balancer reads, and cpu_runnable, count
// only the runnable ones (h_nr_runnable), as v7.1's balancer does.
func (s *System) refresh(c topology.CPU) {
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

// Wakeup makes tid runnable: [System.Wakeup], with the creating thread as the parent of a
// new thread (sched.WakeFork). Wakeup panics if from is not a CPU of the machine, or if tid is
// unknown (never forked, or exited) or is runnable and not a delayed sleeper.
func (s *Scheduler) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) {
	s.mustCPU("Wakeup", from)
	th := s.thread(tid)
	t := th.task
	if t.E.onRQ && !t.E.delayed {
		panic(fmt.Sprintf("cfs: Scheduler.Wakeup of runnable thread %v", tid))
	}
	var parent *Task
	if flags&sched.WakeFork != 0 && int(th.parent) >= 0 && int(th.parent) < len(s.threads) && s.threads[th.parent] != nil {
		parent = s.threads[th.parent].task
	}
	s.sys.Wakeup(now, t, parent, from, flags)
}

// Wakeup makes task t runnable (try_to_wake_up with select_task_rq_fair) and returns where it
// went and the preemption decision there. A new task (sched.WakeFork) is placed by the fork
// slow path from from, the parent's CPU, and started there by [RunQueue.Fork] (task_fork_fair
// and wake_up_new_task, placed against the chosen CPU's queue; parent, if it is the task
// running on that CPU in the same group, is the one whose vruntime the child may swap); a
// sleeper is placed by [System.SelectTaskRQ] (recording the waker's wakee flips) and enqueued,
// as a migrated wakeup if it changes CPU. A CPU the wakee should preempt, or an idle one, is
// rescheduled. A task whose sleep was delayed (v7.1) is still queued: ttwu_runnable requeues
// it on its own CPU ([RunQueue.Wakeup]) and judges preemption there, without select_task_rq;
// the selection returned is then that CPU with no reason. Wakeup panics if from is not a CPU
// of the machine or t is runnable and not a delayed sleeper.
func (s *System) Wakeup(now int64, t *Task, parent *Task, from topology.CPU, flags sched.WakeFlags) (CPUSelection, WakeupDecision) {
	s.mustCPU("Wakeup", from)
	s.j = s.jiffies(now)
	if t.E.onRQ {
		if !t.E.delayed {
			panic(fmt.Sprintf("cfs: System.Wakeup of runnable task %v", t))
		}
		return CPUSelection{CPU: t.cpu, Target: t.cpu}, s.wakeDelayed(now, t)
	}
	fork := flags&sched.WakeFork != 0
	left := s.wakeUtil(t, s.j)
	pl := s.SelectTaskRQ(now, t, from, flags)
	dst := pl.CPU
	rq := &s.rqs[dst]
	var d WakeupDecision
	switch {
	case fork:
		var pe *Entity
		if p := rq.curr; p != nil && p == parent && p.E.group == t.E.group {
			pe = p.E
		}
		d = rq.c.Fork(pe, t.E, uint64(now))
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
		s.explain(dst, tidOf(t), explainf{"%v; %v", []any{pl, d}})
	}
	if rq.c.NeedResched() {
		s.resched(dst)
	}
	return pl, d
}

// SelectTaskRQ is select_task_rq_fair for task t woken from CPU from (the waker's CPU, the
// parent's for a fork): it records the waker's wakee flips (a waker is the task running on
// from), asks [SelectTaskRQ] with the System's statistics and hints, and applies the hints the
// answer changes (the LLC's has_idle_cores, t's recent_used_cpu). It does not move t. It
// panics if from is not a CPU of the machine.
func (s *System) SelectTaskRQ(now int64, t *Task, from topology.CPU, flags sched.WakeFlags) CPUSelection {
	s.mustCPU("SelectTaskRQ", from)
	fork := flags&sched.WakeFork != 0
	var waker *Task
	if w := s.rqs[from].curr; w != nil && w != t {
		waker = w
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
	return pl
}

// wakeDelayed is try_to_wake_up of a task whose dequeue was delayed (v7.1): the task is still
// queued, so ttwu_runnable requeues it where it is (ENQUEUE_DELAYED) and judges wakeup
// preemption, without select_task_rq and without recording the waker's wakee.
func (s *System) wakeDelayed(now int64, t *Task) WakeupDecision {
	c := t.cpu
	rq := &s.rqs[c]
	d := rq.c.Wakeup(t.E, uint64(now))
	s.refresh(c)
	if s.explaining() {
		s.explain(c, tidOf(t), explainf{"ttwu_runnable: delayed on %v, requeued; %v", []any{c, d}})
	}
	if rq.c.NeedResched() {
		s.resched(c)
	}
	return d
}

// Pick returns the thread cpu runs next: [System.Schedule]. Pick panics if cpu is not a CPU of
// the machine.
func (s *Scheduler) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	s.mustCPU("Pick", cpu)
	t := s.sys.Schedule(now, cpu)
	if t == nil {
		return -1, false
	}
	return t.th.id, true
}

// Schedule returns the task cpu runs next, or nil if it idles: pick_next_task_fair, with the
// task cpu ran (if it stopped, see [System.Stop]) still in place. A pending active balance
// pushes one task away first ([System.ActiveBalance], the stopper); an empty CPU tries
// [System.NewidleBalance], records when it went idle, and picks again after a pull (which in
// v7.1 may have brought only delayed tasks, which the pick dequeues); the picked task moves to
// the head of the CPU's cfs_tasks and becomes [System.Curr]. Schedule panics if cpu is not a
// CPU of the machine.
func (s *System) Schedule(now int64, cpu topology.CPU) *Task {
	s.mustCPU("Schedule", cpu)
	rq := &s.rqs[cpu]
	s.j = s.jiffies(now)
	if rq.active {
		s.ActiveBalance(now, cpu, rq.pushCPU)
	}
	e := rq.c.Schedule(uint64(now))
	if e == nil {
		s.refresh(cpu) // the pick may have dequeued delayed tasks
		s.stats[cpu].IdleStamp = uint64(now)
		// A pull may bring only delayed tasks, which the pick then dequeues: pick again, and
		// balance again, as pick_next_task_fair does after a successful newidle balance.
		for e == nil && s.NewidleBalance(now, cpu) {
			e = rq.c.Schedule(uint64(now))
			s.refresh(cpu)
		}
	}
	rq.curr = nil
	if e == nil {
		s.refresh(cpu)
		s.updateIdleCore(cpu)
		return nil
	}
	s.stats[cpu].IdleStamp = 0
	t := e.task
	rq.curr = t
	rq.tasks.MoveToFront(t)
	s.catchUp(t, s.j)
	s.updateMisfit(cpu)
	s.refresh(cpu)
	return t
}

// updateIdleCore is __update_idle_core: when cpu idles and every SMT sibling is idle, its LLC
// has an idle core.
func (s *System) updateIdleCore(cpu topology.CPU) {
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
func (s *System) updateMisfit(cpu topology.CPU) {
	if !s.topo.Asymmetric() {
		return
	}
	st := &s.stats[cpu]
	t := s.rqs[cpu].curr
	if t == nil || t.nAllowed == 1 || fitsCapacity(t.util, st.Capacity) {
		st.MisfitLoad = 0
		return
	}
	st.MisfitLoad = max(TaskHLoad(t.E), 1)
}

// Stop tells the scheduler that tid stopped running on cpu: [System.Stop]; after sched.Exit
// the thread is forgotten. Stop panics if cpu is not a CPU of the machine, if tid is unknown,
// or if why is sched.Sleep or sched.Exit and tid is not queued on cpu (for sched.Sleep, also if
// it is a delayed sleeper).
func (s *Scheduler) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) {
	s.mustCPU("Stop", cpu)
	th := s.thread(tid)
	s.sys.Stop(now, cpu, th.task, why)
	if why == sched.Exit {
		s.threads[tid] = nil
	}
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
	s.mustCPU("Stop", cpu)
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
	// The stopped task stays the CPU's running entity until Schedule: pick_next_task_fair runs
	// with it in place, so that it can be picked again without restarting its slice, and a
	// group entity above it keeps running when the next task is in the same group.
	rq.curr = nil
	if t.E.onRQ && !t.allowed.Has(cpu) {
		rq.c.Deschedule(n)
		s.move(now, t, cpu, fallbackCPU(s.topo, t, cpu))
	}
	s.refresh(cpu)
}

// Move migrates task t, queued and not running, to CPU dst (move_queued_task, as an affinity
// change or a caller's experiment does): detach_task and attach_task, a delayed task moving
// delayed. Move panics if dst is not a CPU of the machine or t is not queued, or runs.
func (s *System) Move(now int64, t *Task, dst topology.CPU) {
	s.mustCPU("Move", dst)
	if !t.E.onRQ || s.rqs[t.cpu].curr == t {
		panic(fmt.Sprintf("cfs: System.Move of %v, which is not queued or runs", t))
	}
	s.j = s.jiffies(now)
	s.move(now, t, t.cpu, dst)
}

// move migrates queued task t from src to dst: detach_task and attach_task (move_queued_task).
// A delayed task moves delayed. It joins dst's list before the enqueue, whose preemption check
// may dequeue it for good (v7.1).
func (s *System) move(now int64, t *Task, src, dst topology.CPU) {
	n := uint64(now)
	s.rqs[src].c.MigrateOut(t.E, n)
	s.delist(src, t, false)
	t.migrationsTotal++
	s.enlist(dst, t)
	d := s.rqs[dst].c.MigrateIn(t.E, n)
	s.refresh(src)
	s.refresh(dst)
	if d.Preempt {
		s.resched(dst)
	}
}

// Tick is the scheduler tick on cpu: [System.Tick]. Tick panics if cpu is not a CPU of the
// machine.
func (s *Scheduler) Tick(now int64, cpu topology.CPU) {
	s.mustCPU("Tick", cpu)
	s.sys.Tick(now, cpu)
}

// Tick is the scheduler tick on cpu (scheduler_tick): on a busy CPU the CPU's utilisation
// signal and the running task's estimate gain capacity/2^k (everything decays lazily, by the
// ticks that passed, when it is next read or changes state), task_tick_fair charges the
// running task and may ask for a resched, the misfit status is updated, and when the CPU's
// next_balance is due, rebalance_domains balances every domain whose interval has elapsed.
// Apart from the balancing, its cost does not depend on the number of tasks on the CPU.
// Tick panics if cpu is not a CPU of the machine.
func (s *System) Tick(now int64, cpu topology.CPU) {
	s.mustCPU("Tick", cpu)
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
				s.explain(cpu, tidOf(rq.curr), d)
			}
			s.resched(cpu)
		}
		s.updateMisfit(cpu)
	}
	s.refresh(cpu)
	if j >= rq.nextBalance {
		idle := CPUIdle
		if busy {
			idle = CPUNotIdle
		}
		s.RebalanceDomains(now, cpu, idle)
	}
}

// RebalanceDomains is rebalance_domains on cpu, in state idle (CPUIdle or CPUNotIdle): from
// the lowest domain up, balance each domain whose interval elapsed ([System.LoadBalance]),
// stopping above a level where another CPU of the group balances, and set the CPU's
// next_balance ([System.NextBalance]) to the earliest next due time. [System.Tick] calls it
// when next_balance is due. It panics if cpu is not a CPU of the machine.
func (s *System) RebalanceDomains(now int64, cpu topology.CPU, idle IdleType) {
	s.mustCPU("RebalanceDomains", cpu)
	j := s.jiffies(now)
	s.j = j
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
			moved, cont = s.LoadBalance(now, cpu, sd, idle)
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

// NewidleBalance is newidle_balance on cpu, about to idle: when some CPU has more than one task (the root domain's
// overload flag), balance each SD_BALANCE_NEWIDLE domain from the lowest up until a task was
// pulled; without the flag, only bring the CPU's next periodic balance forward to the base
// domain's idle interval. The kernel also skips domains whose measured balancing cost exceeds the CPU's average
// idle time; the model has no such costs and never skips. It reports whether a task was pulled
// (or cpu has tasks again). [System.Schedule] calls it for a CPU that found nothing to run. It
// panics if cpu is not a CPU of the machine.
func (s *System) NewidleBalance(now int64, cpu topology.CPU) bool {
	s.mustCPU("NewidleBalance", cpu)
	rq := &s.rqs[cpu]
	j := s.jiffies(now)
	s.j = j
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
				moved, _ := s.LoadBalance(now, cpu, sd, CPUNewlyIdle)
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

// LoadBalance is load_balance of v6.5 for cpu at domain sd (one of cpu's [Domains.Chain]) in
// state idle: should_we_balance, [FindBusiestGroup], [FindBusiestQueue], [DetachTasks] with its
// retries (LBF_NEED_BREAK, LBF_DST_PINNED, LBF_ALL_PINNED), the moves, the domain's failure
// count and interval, and, when balancing keeps failing, the start of an active balance (the
// busiest CPU is asked to reschedule, and runs [System.ActiveBalance] at its next
// [System.Schedule]). It returns the number of tasks moved and whether balancing should
// continue at the levels above (should_we_balance). It panics if cpu is not a CPU of the
// machine.
func (s *System) LoadBalance(now int64, cpu topology.CPU, sd *SchedDomain, idle IdleType) (moved int, cont bool) {
	s.mustCPU("LoadBalance", cpu)
	s.j = s.jiffies(now)
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
			if bc == nil || !bc.allowed.Has(cpu) {
				goto outOnePinned
			}
			if !s.rqs[src].active {
				s.rqs[src].active, s.rqs[src].pushCPU = true, cpu
				activeStarted = true
				if s.explaining() {
					s.explain(src, tidOf(bc), explainf{"active balance from %v to %v at %v: %v", []any{src, cpu, sd.Name(), bg}})
				}
				s.resched(src)
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
func (s *System) apply(now int64, me *MigrateEnv, d Detach) {
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
		s.resched(dst)
	}
}

// ActiveBalance is active_load_balance_cpu_stop on busiest CPU cpu: the stopper preempts the
// fair class (put_prev_task_fair of the task cpu ran, [RunQueue.Deschedule]), then moves the
// least recently run task that may run on target there, at the lowest of target's domains
// that spans cpu. It returns the task moved, or nil. [System.Schedule] calls it, with the CPU
// that asked ([System.ActivePending]), when an active balance is pending; a caller may call it
// for any pair of CPUs. It panics if cpu or target is not a CPU of the machine.
func (s *System) ActiveBalance(now int64, cpu, target topology.CPU) *Task {
	s.mustCPU("ActiveBalance", cpu)
	s.mustCPU("ActiveBalance", target)
	s.j = s.jiffies(now)
	rq := &s.rqs[cpu]
	rq.c.Deschedule(uint64(now))
	rq.active = false
	// The kernel's test is busiest_rq->nr_running <= 1 with the stopper itself counted.
	if s.stats[cpu].NrRunning == 0 {
		return nil
	}
	var sd *SchedDomain
	for k := range s.ds.Chain(target) {
		if d := &s.ds.Chain(target)[k]; d.span.Has(cpu) {
			sd = d
			break
		}
	}
	if sd == nil {
		return nil
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
			return p
		}
	}
	return nil
}

// SetAttr changes tid's attributes: [System.SetAttr] with attr's class (a real-time one runs
// as SCHED_NORMAL, see [Scheduler.Err]), nice level, group, custom slice (when it differs from
// the last one asked for) and affinity. SetAttr panics if tid is unknown (never forked, or
// exited).
func (s *Scheduler) SetAttr(now int64, tid sched.ID, attr sched.Attr) {
	th := s.thread(tid)
	pol, nice := s.classOf(tid, attr)
	g := s.group(tid, attr.Group)
	slice := int64(-1)
	if attr.Slice != th.slice && attr.Slice >= 0 {
		th.slice = attr.Slice
		slice = attr.Slice
	}
	s.sys.SetAttr(now, th.task, pol, nice, g, slice, s.sys.allowed(attr.Affinity))
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
	s.j = s.jiffies(now)
	resched := false
	if class != e.class || g != e.group {
		resched = rq.c.Requeue(e, n, func() {
			e.SetGroup(g)
			e.setClass(class)
		})
	}
	if nice != e.nice {
		resched = rq.c.SetNice(e, nice, n) || resched
	}
	if slice >= 0 && s.p.Version >= V71 {
		if e.onRQ {
			rq.c.SetSlice(e, uint64(slice), n)
		} else {
			e.SetSlice(uint64(slice))
		}
	}
	t.SetAllowed(allowed.Intersect(s.topo.CPUs()))
	if !t.allowed.Has(cpu) {
		switch {
		case rq.curr == t:
			resched = true
		case e.onRQ:
			s.move(now, t, cpu, fallbackCPU(s.topo, t, cpu))
		}
	}
	s.refresh(cpu)
	if resched || rq.c.NeedResched() {
		s.resched(cpu)
	}
}
