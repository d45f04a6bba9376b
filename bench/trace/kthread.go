package trace

// This file implements what an import does with Linux's kernel threads and real-time
// priorities, which FreeBSD's policies cannot take as they are: KernelMode, the names of the
// per-CPU kernel threads, and the mapping of sched_priority onto rtprio(2) levels.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A KernelMode says what an import does with the per-CPU kernel threads a Linux trace shows:
//
//	migration/N, ksoftirqd/N, cpuhp/N, idle_inject/N,   bound to CPU N (kthread_create_on_cpu,
//	  watchdog/N, rcuc/N, rcuop/N, rcuos/N, rcuog/N       smpboot_register_percpu_thread)
//	kworker/N:M, kworker/N:MH (and a -name suffix)      a per-CPU workqueue's worker, bound to CPU N
//	rcu_* (rcu_preempt, rcu_sched, rcu_tasks_…)         RCU's grace-period threads, bound to none
//
// (kworker/uN:M, the unbound workers, and every other kernel thread are ordinary tasks.) They
// are recognised by their names, as the trace gives no other sign of a kernel thread. On the
// kernel they are pinned, and several (migration/N, the threaded-irq and RCU ones) run
// SCHED_FIFO, whose Linux priorities FreeBSD's policies refuse: replayed as ordinary tasks they
// would run on any CPU, and ULE and 4BSD would refuse the whole trace. Replay maps every
// real-time priority onto FreeBSD's rtprio(2) levels for a policy that takes only those
// ([Imported.ForPolicy]); KernelMode decides the rest. The zero value, KernelCharge, lets every
// policy replay any Linux trace with each CPU's kernel work where the trace shows it.
type KernelMode uint8

const (
	// KernelCharge (the default) keeps each per-CPU kernel thread as a CPU-time charge on its
	// CPU: pinned to the CPU its name binds it to, running its recorded bursts, its wake-ups
	// sleeps of their recorded length rather than messages from its waker, so that it takes
	// the CPU when the trace shows it taking it, under any policy.
	KernelCharge KernelMode = iota
	// KernelDrop leaves the per-CPU kernel threads out of the workload: Imported.Dropped holds
	// their stats (their CPU time is reported, not replayed), and the wake-ups between them and
	// other tasks become sleeps. A thread that had woken another through a pipe before its name
	// marked it (a kthread renamed after its creation) is kept.
	KernelDrop
	// KernelKeep imports them as ordinary tasks, unpinned, as other threads.
	KernelKeep
)

var kernelModeNames = [...]string{KernelCharge: "charge", KernelDrop: "drop", KernelKeep: "keep"}

// String returns "charge", "drop" or "keep".
func (m KernelMode) String() string { return sched.EnumName(kernelModeNames[:], m, "KernelMode") }

// ParseKernelMode returns the mode String names, or an error listing the names.
func ParseKernelMode(s string) (KernelMode, error) {
	for m, n := range kernelModeNames {
		if n == s {
			return KernelMode(m), nil
		}
	}
	return 0, fmt.Errorf("kernel-thread mode %q: want charge, drop or keep", s)
}

// perCPUPrefixes are the per-CPU kernel threads named prefix/N.
var perCPUPrefixes = []string{"migration/", "ksoftirqd/", "cpuhp/", "idle_inject/", "watchdog/",
	"rcuc/", "rcuop/", "rcuos/", "rcuob/", "rcuog/"}

// kernelThread reports whether comm names a per-CPU kernel thread (see KernelMode) and the CPU
// it is bound to (-1 for rcu_*).
func kernelThread(comm string) (ok bool, cpu int) {
	if strings.HasPrefix(comm, "rcu_") {
		return true, -1
	}
	for _, p := range perCPUPrefixes {
		if rest, found := strings.CutPrefix(comm, p); found {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 0 || n >= maxCPU {
				return false, -1
			}
			return true, n
		}
	}
	rest, found := strings.CutPrefix(comm, "kworker/")
	if !found {
		return false, -1
	}
	cpuText, _, found := strings.Cut(rest, ":")
	if !found {
		return false, -1
	}
	n, err := strconv.Atoi(cpuText) // kworker/u4:2 (unbound) and kworker/R-x (rescuer) fail here
	if err != nil || n < 0 || n >= maxCPU {
		return false, -1
	}
	return true, n
}

// FreeBSDRTPrio returns the rtprio(2) level (0 most important, 31 least) that Replay gives a
// Linux sched_priority p (1 least important, 99 most) under a policy that takes only
// FreeBSD's levels: 31 - (p-1)*31/98, which keeps the order (a more important Linux priority
// never maps to a less important level), maps 99 to 0 and 1 to 31, and is schedkit's own
// choice — neither kernel defines a mapping (FreeBSD's sched_setscheduler takes 0..31 and fails
// with EINVAL above). p outside 1..99 is clamped.
func FreeBSDRTPrio(p int) int {
	p = min(max(p, sched.MinRTPrio), sched.MaxRTPrio)
	return sched.MaxFreeBSDRTPrio - (p-sched.MinRTPrio)*sched.MaxFreeBSDRTPrio/(sched.MaxRTPrio-sched.MinRTPrio)
}

// LinuxRTPrio returns the Linux sched_priority Replay gives an rtprio(2) level l (from a
// FreeBSD trace) under a policy that takes only Linux's priorities: 99 - l*98/31, which keeps
// the order and maps 0 to 99 and 31 to 1 (schedkit's choice, as FreeBSDRTPrio's). l outside
// 0..31 is clamped.
func LinuxRTPrio(l int) int {
	l = min(max(l, 0), sched.MaxFreeBSDRTPrio)
	return sched.MaxRTPrio - l*(sched.MaxRTPrio-sched.MinRTPrio)/sched.MaxFreeBSDRTPrio
}

// An RTMap is a real-time priority Replay mapped for a policy: the task, the priority as the
// trace gave it (From, on Scale) and the one it ran with (To, on the other scale).
type RTMap struct {
	Task     string // TaskStats.Label
	Scale    sched.RTScale
	From, To int
}

// rtMapping returns the real-time scale p refuses but whose counterpart it takes (ULE and 4BSD
// take FreeBSD's rtprio levels only, CFS Linux's sched_priority only), and false when p takes
// both or neither.
func rtMapping(p sim.Policy) (from sched.RTScale, ok bool) {
	ac, isChecker := p.(sim.AttrChecker)
	if !isChecker {
		return 0, false
	}
	linux := ac.CheckAttr(sched.Attr{Class: sched.FIFO, RTPrio: sched.MinRTPrio, RTScale: sched.RTLinux}) == nil
	freebsd := ac.CheckAttr(sched.Attr{Class: sched.FIFO, RTPrio: 0, RTScale: sched.RTFreeBSD}) == nil
	switch {
	case freebsd && !linux:
		return sched.RTLinux, true
	case linux && !freebsd:
		return sched.RTFreeBSD, true
	}
	return 0, false
}

// mapRT returns priority v on scale from as the other scale's.
func mapRT(from sched.RTScale, v int) (int, sched.RTScale) {
	if from == sched.RTLinux {
		return FreeBSDRTPrio(v), sched.RTFreeBSD
	}
	return LinuxRTPrio(v), sched.RTLinux
}

// An Adaptation is what Imported.ForPolicy changed of a workload for a policy and a machine.
type Adaptation struct {
	// RT lists the real-time priorities mapped onto the policy's scale, in the order of the
	// threads and their scripts.
	RT []RTMap
	// Unpinned lists the kernel threads kept as charges on a CPU the machine lacks (a replay
	// on fewer CPUs than the trace's), which run unpinned (TaskStats.Label).
	Unpinned []string
}

// ForPolicy returns the workload to replay under p on machine t, and what it changed: the
// import's own workload, or a copy that shares the scripts it does not change, in which
//   - when p refuses one kernel's real-time priorities and takes the other's, every FIFO and
//     RR thread and every class change of a script on the refused scale has the priority
//     FreeBSDRTPrio or LinuxRTPrio gives: a Linux trace's under ULE and 4BSD, a FreeBSD
//     (KTR) trace's under CFS;
//   - a kernel thread kept as a charge on a CPU that t lacks runs unpinned.
func (im *Imported) ForPolicy(p sim.Policy, t *topology.Topology) (*workload.Workload, Adaptation) {
	var ad Adaptation
	from, mapping := rtMapping(p)
	all := t.CPUs()
	src := im.Workload
	var w *workload.Workload
	for i := range src.Threads {
		th := &src.Threads[i]
		rt := mapping && (th.Class.RealTime() && th.RTScale == from || hasRTClassOp(th.Ops, from))
		unpin := !th.CPUs.IsEmpty() && !th.CPUs.SubsetOf(all) && i < len(im.Tasks) && im.Tasks[i].Charged
		if !rt && !unpin {
			continue
		}
		if w == nil {
			w = &workload.Workload{Groups: src.Groups, Pipes: src.Pipes, Threads: slices.Clone(src.Threads)}
		}
		c := &w.Threads[i]
		label := th.Name
		if i < len(im.Tasks) {
			label = im.Tasks[i].Label()
		}
		if unpin {
			c.CPUs = topology.CPUSet{}
			ad.Unpinned = append(ad.Unpinned, label)
		}
		if !rt {
			continue
		}
		if c.Class.RealTime() && c.RTScale == from {
			to, scale := mapRT(from, c.RTPrio)
			ad.RT = append(ad.RT, RTMap{Task: label, Scale: from, From: c.RTPrio, To: to})
			c.RTPrio, c.RTScale = to, scale
		}
		if hasRTClassOp(c.Ops, from) {
			c.Ops = mapRTOps(c.Ops, from, label, &ad.RT)
		}
	}
	if w == nil {
		return src, ad
	}
	return w, ad
}

func hasRTClassOp(ops []workload.Op, scale sched.RTScale) bool {
	for i := range ops {
		if ops[i].Kind == workload.SetClass && ops[i].Class.RealTime() && ops[i].RTScale == scale || hasRTClassOp(ops[i].Body, scale) {
			return true
		}
	}
	return false
}

func mapRTOps(ops []workload.Op, from sched.RTScale, label string, maps *[]RTMap) []workload.Op {
	out := make([]workload.Op, len(ops))
	copy(out, ops)
	for i := range out {
		op := &out[i]
		if op.Kind == workload.SetClass && op.Class.RealTime() && op.RTScale == from {
			to, scale := mapRT(from, op.N)
			*maps = append(*maps, RTMap{Task: label, Scale: from, From: op.N, To: to})
			op.N, op.RTScale = to, scale
		}
		if hasRTClassOp(op.Body, from) {
			op.Body = mapRTOps(op.Body, from, label, maps)
		}
	}
	return out
}
