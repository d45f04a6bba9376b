package sim

// This file implements the machine's per-thread state and the list of runnable threads that are
// not running.

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A tstate is where a thread is in its life, as the machine sees it.
type tstate uint8

const (
	tNew      tstate = iota // created (Fork), not yet woken
	tRunnable               // runnable and not running: in the policy's queues
	tRunning                // running on a CPU
	tBlocked                // sleeping or blocked on a pipe or a join
	tExited                 // exited
)

var tstateNames = [...]string{"new", "runnable", "running", "blocked", "exited"}

func (s tstate) String() string { return tstateNames[s] }

// forever is the work left of a run that never ends.
const forever = int64(1) << 62

// nobody is the -1 of thread links.
const nobody = -1

// A thread is the machine's state of one thread. Its fields are ordered by size, so that it
// has no padding: BenchmarkIdleThread counts its bytes.
//
// It holds no pointer, so that the garbage collector does not scan the machine's threads: it
// refers to its program, code and attributes by index into the Machine's progs, code and attrs.
type thread struct {
	rng rand.PCG
	// opLeft is what remains of a Send or Recv of several messages.
	opLeft int64
	// remaining is the work left in the current run, in ns at speed 1024, or forever.
	remaining int64
	// since is when the current state began.
	since int64
	// wokeAt is when the last wake-up's cause began (see Machine.wake), whose latency is
	// measured when woken is set. While the thread sleeps on a timer it is the timer's deadline
	// (armSleep), and while it pays for a wake-up it causes, when it began paying (pay): fields
	// of a thread that is not waiting for its first run.
	wokeAt int64
	// reqStart is the start of the current request (a wake-up, or the scheduled start of a
	// period), or -1: its latency is measured when the thread next blocks or exits.
	reqStart int64
	// readyAt is when the thread last became runnable from new or blocked; fresh says it has
	// run no op taking time since, so that an every it reaches counts its periods from then.
	readyAt int64
	st      counters
	// lat holds the latency series of ThreadStats (Wakeup, RunqWait, Request, indexed by
	// Series) while the machine runs; see liveSeries.
	lat [numSeries]liveSeries
	// prog is the thread's program, in Machine.progs; base is the start of its code in
	// Machine.code (program.base), kept here so that a step of the script reads no line of the
	// program.
	prog, base int32
	// attr is the thread's attributes, in Machine.attrs: its program's (program.attrIx), shared
	// by every thread of the program, until a script op changes them; ownAttr says attr is the
	// thread's own copy then, made at the first change.
	attr int32
	pc   int32
	cpu  int32 // the CPU it runs on, or -1
	// last is the CPU it last ran on, or -1.
	last   int32
	parent int32
	// children counts the children that have not exited.
	children int32
	// instance is the thread's number among those of its declaration.
	instance int32
	// vars is the index of the thread's script variables (loop counters, periods) in the
	// machine's vars.
	vars int32
	// waitPrev and waitNext link the runnable, not running threads in order of since, when a
	// checker needs them (see waitPush).
	waitPrev, waitNext int32
	// pipeNext links the threads blocked on one pipe.
	pipeNext int32
	// timerAt is the point of Costs.Timer's distribution its last sleep's lateness was drawn
	// at, plus one, until it is next picked; 0 for none (see armSleep and pickStall).
	timerAt int32
	state   tstate
	woken   bool
	// forked says the thread has not blocked since it was created: the first period of an
	// every then measures the wait before the first run.
	forked bool
	fresh  bool
	// joining says that a blocked thread waits in Join.
	joining bool
	// reported has a bit per Invariant already reported for the current wait.
	reported uint8
	// spin says the run the thread last began is a Spin's (advance sets it at every run), so
	// that its work left is what ends it at the spin's end in wall-clock time (spinLeft).
	spin    bool
	ownAttr bool
	// anyCPU caches whether attr allows every CPU of the machine, to spare the CPU-set test.
	anyCPU bool
	// paying says the thread has paid for the wake-up its current op is causing (pay).
	paying bool
}

// counters are the statistics of ThreadStats the machine counts as it runs; Result adds the
// names, which it derives from the program, and the latency series.
type counters struct {
	Start, End                                  int64
	CPUTime, WaitTime, Sleep, Work              int64
	Voluntary, Involuntary, Migrations, Wakeups int64
}

// threadName returns the name of p's thread number instance: its declaration's, numbered for a
// template or one of several instances ("worker.3").
func (p *program) threadName(instance int32) string {
	if p.decl.Template || p.decl.Instances() > 1 {
		return p.name + "." + strconv.Itoa(int(instance))
	}
	return p.name
}

// names reports whether the name of p's thread number instance is n, without making the name.
func (p *program) names(n string, instance int32) bool {
	if !p.decl.Template && p.decl.Instances() <= 1 {
		return n == p.name
	}
	rest, ok := strings.CutPrefix(n, p.name)
	if !ok || len(rest) < 2 || rest[0] != '.' {
		return false
	}
	i, err := strconv.Atoi(rest[1:])
	return err == nil && i == int(instance) && rest[1:] == strconv.Itoa(i)
}

// name returns thread t's name (program.threadName).
func (m *Machine) name(t *thread) string { return m.progs[t.prog].threadName(t.instance) }

// attrOf returns thread t's attributes.
func (m *Machine) attrOf(t *thread) *sched.Attr { return &m.attrs[t.attr] }

// allowed reports whether t may run on id.
func (m *Machine) allowed(t *thread, id topology.CPU) bool {
	return t.anyCPU || m.attrs[t.attr].Affinity.Has(id)
}

// shareAttr gives t the attributes of its program p, shared with the program's other threads,
// and sets the anyCPU cache.
func (m *Machine) shareAttr(t *thread, p *program) {
	a := &m.attrs[p.attrIx]
	t.attr, t.ownAttr = p.attrIx, false
	t.anyCPU = a.Affinity.IsEmpty() || m.topo.CPUs().SubsetOf(a.Affinity)
}

// setAttrOf sets t's attributes to a, in its own copy (made at the first change), and the anyCPU
// cache.
func (m *Machine) setAttrOf(t *thread, a sched.Attr) {
	if !t.ownAttr {
		t.attr, t.ownAttr = int32(len(m.attrs)), true
		m.attrs = append(m.attrs, sched.Attr{})
	}
	m.attrs[t.attr] = a
	t.anyCPU = a.Affinity.IsEmpty() || m.topo.CPUs().SubsetOf(a.Affinity)
}

// waitPush counts tid, just made runnable at m.now, among the runnable threads and, when a
// checker needs them in order of since (Config.Checks), appends it to the wait list. Without
// checkers the list is not kept: linking a thread to the last one touches that thread's memory
// too, at every wake-up and preemption.
func (m *Machine) waitPush(tid int32) {
	m.nwait++
	if !m.checking {
		return
	}
	t := &m.threads[tid]
	t.waitPrev, t.waitNext = m.waitTail, nobody
	if m.waitTail == nobody {
		m.waitHead = tid
	} else {
		m.threads[m.waitTail].waitNext = tid
	}
	m.waitTail = tid
}

// waitRemove takes tid off the count of runnable threads and, if it is kept, the wait list.
func (m *Machine) waitRemove(tid int32) {
	m.nwait--
	if !m.checking {
		return
	}
	t := &m.threads[tid]
	if t.waitPrev == nobody {
		m.waitHead = t.waitNext
	} else {
		m.threads[t.waitPrev].waitNext = t.waitNext
	}
	if t.waitNext == nobody {
		m.waitTail = t.waitPrev
	} else {
		m.threads[t.waitNext].waitPrev = t.waitPrev
	}
	t.waitPrev, t.waitNext = nobody, nobody
}

// A pipe is a workload pipe: a count of messages and two lists of blocked threads. room is
// workload.Pipe.Room, at least 1.
type pipe struct {
	cap, msgs, room    int64
	recvHead, recvTail int32
	sendHead, sendTail int32
}

func (m *Machine) pipePush(head, tail *int32, tid int32) {
	m.threads[tid].pipeNext = nobody
	if *tail == nobody {
		*head = tid
	} else {
		m.threads[*tail].pipeNext = tid
	}
	*tail = tid
}

func (m *Machine) pipePop(head, tail *int32) int32 {
	tid := *head
	if tid == nobody {
		return nobody
	}
	*head = m.threads[tid].pipeNext
	if *head == nobody {
		*tail = nobody
	}
	m.threads[tid].pipeNext = nobody
	return tid
}

// splitmix64 is the finaliser of SplitMix64, used to derive each thread's random stream from the
// seed and the thread's id.
func splitmix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}
