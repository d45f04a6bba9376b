// This file implements Scheduler, the fair class behind sched.Policy, the method set a machine
// such as the simulator drives: a thin adapter from thread ids and sched.Attr to a System.

package cfs

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// ID identifies a task: it is sched.ID under this package's name, as ule.ID and bsd4.ID are, so
// that the three policies name their thread ids alike (cfs.ID(i) for a task built from a loop).
type ID = sched.ID

// A Scheduler runs the fair class on a machine for the simulator: its methods are
// [sched.Policy], the contract every policy offers a machine, and each one is a
// thin translation onto the machine's [System] ([Scheduler.System]), which holds one [RunQueue]
// per CPU of the topology running the preset of its version (classic CFS of v6.5, EEVDF of v6.6
// or v7.1), with the multiprocessor decisions of v6.5 between them, and v7.1's counting of
// runnable tasks and its can_migrate_task tests under v7.1 ([smp.Params]). Wakeups and forks
// are placed by [System.SelectTaskRQ]; a CPU about to idle pulls work by
// [System.NewidleBalance]; every tick runs task_tick_fair and, when due,
// [System.RebalanceDomains] over the CPU's [SchedDomain]s with [System.LoadBalance]; a balance
// that keeps failing pushes the busiest CPU's running task away ([System.ActiveBalance]). What
// the Scheduler adds is the simulator's vocabulary: thread ids, control groups by id, the
// mapping of sched.Attr onto fair classes, and the errors of what it could not honour.
//
// Under v7.1 a thread that sleeps while not eligible stays queued, delayed (DELAY_DEQUEUE): it
// stays on its CPU's cfs_tasks list ([System.Tasks]) until a pick or a wakeup-preemption
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
	opts Params // as given to New
	sys  *System
	env  sched.Env
	// contract checks the machine's calls (CPUs, time, attributes), with the standard panics.
	contract sched.Contract
	threads  sched.Threads[thread]
	// entities holds the threads' task entities, allocated a chunk at a time.
	entities sched.Slab[Entity]
	groups   map[sched.GroupID]*Group
	err      error
	woke     wakeResult // the outcome of the last wakeup, which nothing reads
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
	return &Scheduler{opts: p, contract: sched.Contract{Pkg: "cfs"}}, nil
}

// Name returns the parameters' name, such as "cfs-v6.5" ("cfs-" and the version if it is
// empty), with "-groupbug" when the NUMA groups are built with the Wasted Cores bug.
func (s *Scheduler) Name() string {
	n := s.opts.Name
	if n == "" {
		n = "cfs-" + s.opts.Version.String()
	}
	if s.opts.SMP.Groups == smp.GroupsFirstCPU && !strings.HasSuffix(n, "-groupbug") {
		n += "-groupbug"
	}
	return n
}

// Start prepares the scheduler for the machine described by cfg and keeps env: it builds the
// [System] of the machine with the parameters given to New scaled for its CPU count. It returns
// an error if cfg is invalid, env is nil or Start was called before: a Scheduler runs on one
// machine only.
func (s *Scheduler) Start(cfg sched.Config, env sched.Env) error {
	if err := sched.CheckStart("cfs", s.sys != nil, cfg, env); err != nil {
		return err
	}
	sys, err := NewSystem(s.opts, cfg.Topology, cfg.Hz, env)
	if err != nil {
		return err
	}
	s.sys, s.env = sys, env
	s.contract.Start(cfg.Topology)
	s.groups = map[sched.GroupID]*Group{}
	return nil
}

// System returns the scheduler's System (nil before Start).
func (s *Scheduler) System() *System { return s.sys }

// TickHz returns cfg.Hz: Linux accounts at the timer interrupt.
func (s *Scheduler) TickHz() int {
	s.mustStarted("TickHz")
	return s.sys.hz
}

// Params returns the parameters the CPUs run with: those given to New, scaled for the machine
// at Start (before Start, those given to New).
func (s *Scheduler) Params() Params {
	if s.sys == nil {
		return s.opts
	}
	return s.sys.p
}

// stats returns the statistics the SMP decisions read, indexed by CPU id. The slice belongs to
// the scheduler.
func (s *Scheduler) stats() []smp.CPUStat {
	s.mustStarted("Stats")
	return s.sys.stats
}

// Thread returns thread tid's task, and false if tid was never forked or has exited.
func (s *Scheduler) Thread(tid sched.ID) (*Task, bool) {
	th, ok := s.threads.Lookup(tid)
	if !ok {
		return nil, false
	}
	return th.task, true
}

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
// Fork panics if cpu is not a CPU of the machine, if thread tid exists (forked and not
// exited: a second task for one thread would be queued, and picked, twice) or parent is neither
// -1 nor a thread, if attr is invalid or its affinity holds no CPU of the machine, or if now is
// before an earlier call's time.
func (s *Scheduler) Fork(now int64, tid, parent sched.ID, cpu topology.CPU, attr sched.Attr) {
	s.mustStarted("Fork")
	_, hasParent := s.threads.Lookup(parent)
	s.contract.Fork(now, tid, parent, cpu, &attr, hasParent)
	th := s.threads.New("cfs", "Fork", tid) // zeroed: only the fields that are not zero are set
	th.id, th.parent, th.slice = tid, parent, attr.Slice
	pol, nice := s.classOf(tid, attr)
	e := initTask(s.entities.New(), tid.String(), pol, nice)
	e.SetGroup(s.group(tid, attr.Group))
	if s.sys.p.Version >= V618 && attr.Slice > 0 {
		e.SetSlice(uint64(attr.Slice))
	}
	t := s.sys.Fork(now, e, s.sys.allowed(attr.Affinity), cpu)
	th.task, t.th = t, th
}

// Wakeup makes tid runnable: [System.Wakeup], with the creating thread as the parent of a
// new thread (sched.WakeFork). Wakeup panics if from is not a CPU of the machine, if tid is
// unknown (never forked, or exited) or is runnable and not a delayed sleeper, if flags has an
// unknown bit, or if now is before an earlier call's time.
func (s *Scheduler) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) {
	s.mustStarted("Wakeup")
	s.contract.Time("Wakeup", now)
	s.contract.CPU("Wakeup", from)
	// The lookup inlines (Must is over Go's inlining budget); Must is asked only for its panic.
	th, ok := s.threads.Lookup(tid)
	if !ok {
		th = s.threads.Must("cfs", "Wakeup", tid)
	}
	s.contract.WakeFlags(tid, flags)
	t := th.task
	if t.E.onRQ && !t.E.delayed {
		panic(fmt.Sprintf("cfs: Scheduler.Wakeup of runnable thread %v", tid))
	}
	var parent *Task
	if flags&sched.WakeFork != 0 {
		if pt, ok := s.threads.Lookup(th.parent); ok {
			parent = pt.task
		}
	}
	s.sys.wakeup(now, t, parent, from, flags, &s.woke)
}

// Pick returns the thread cpu runs next: [System.Schedule]. Pick panics if cpu is not a CPU of
// the machine or runs a thread.
func (s *Scheduler) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	s.mustStarted("Pick")
	s.contract.CPU("Pick", cpu)
	rq := &s.sys.rqs[cpu]
	if rq.curr != nil {
		busyPick(cpu, rq.curr)
	}
	t := s.sys.schedule(now, rq)
	if t == nil {
		return -1, false
	}
	return t.th.id, true
}

// Stop tells the scheduler that tid stopped running on cpu: [System.Stop]; after sched.Exit
// the thread is forgotten. Stop panics if cpu is not a CPU of the machine, if tid is unknown or
// is not the thread running on cpu, if why is not a StopReason, or if now is before an earlier
// call's time.
func (s *Scheduler) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) {
	s.mustStarted("Stop")
	s.contract.Time("Stop", now)
	s.contract.CPU("Stop", cpu)
	// The thread cpu runs is the only one Stop accepts: its task is the CPU's, so that tid
	// needs no lookup in the table unless it is not that thread.
	rq := &s.sys.rqs[cpu]
	t := rq.curr
	if t == nil || t.th.id != tid {
		s.notRunning(tid, cpu)
	}
	s.contract.StopReason(tid, why)
	s.sys.stop(now, rq, t, why)
	if why == sched.Exit {
		s.threads.Delete(tid)
	}
}

// busyPick panics for a Pick on cpu, which runs t.
//
//go:noinline
func busyPick(cpu topology.CPU, t *Task) {
	panic(fmt.Sprintf("cfs: Pick on %v, which runs %v", cpu, t.th.id))
}

// notRunning panics for a Stop of tid, which cpu is not running: as an unknown thread (never
// forked, or exited) if it is one, else as a thread that cpu does not run.
//
//go:noinline
func (s *Scheduler) notRunning(tid sched.ID, cpu topology.CPU) {
	s.threads.Must("cfs", "Stop", tid)
	panic(fmt.Sprintf("cfs: Stop of %v, which is not running on %v", tid, cpu))
}

// Tick is the scheduler tick on cpu: [System.Tick]. Tick panics if cpu is not a CPU of the
// machine or now is before an earlier call's time.
func (s *Scheduler) Tick(now int64, cpu topology.CPU) {
	s.mustStarted("Tick")
	s.contract.Time("Tick", now)
	s.contract.CPU("Tick", cpu)
	s.sys.tickCPU(now, &s.sys.rqs[cpu])
}

// SetAttr changes tid's attributes: [System.SetAttr] with attr's class (a real-time one runs
// as SCHED_NORMAL, see [Scheduler.Err]), nice level, group, custom slice (when it differs from
// the last one asked for) and affinity. SetAttr panics if tid is unknown (never forked, or
// exited), if attr is invalid or its affinity holds no CPU of the machine, or if now is before
// an earlier call's time.
func (s *Scheduler) SetAttr(now int64, tid sched.ID, attr sched.Attr) {
	s.mustStarted("SetAttr")
	s.contract.Time("SetAttr", now)
	th := s.threads.Must("cfs", "SetAttr", tid)
	s.contract.Attr("SetAttr", tid, &attr)
	pol, nice := s.classOf(tid, attr)
	g := s.group(tid, attr.Group)
	slice := int64(-1)
	if attr.Slice != th.slice {
		th.slice = attr.Slice
		slice = attr.Slice
	}
	s.sys.SetAttr(now, th.task, pol, nice, g, slice, s.sys.allowed(attr.Affinity))
}
