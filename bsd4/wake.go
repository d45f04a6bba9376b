package bsd4

import (
	"fmt"
	"strconv"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// This file implements the end of sched_add: which CPUs learn that a thread was queued
// (forward_wakeup, kick_other_cpu, maybe_preempt, maybe_resched), and sched_pickcpu, which
// chooses the per-CPU queue of a thread with a restricted affinity.

// A WakeRule names the branch of sched_add's notification that decided.
type WakeRule uint8

const (
	// WakeNone: no CPU is told; the thread waits on its queue until some CPU reschedules (at
	// the end of a slice, a sleep, or an exit).
	WakeNone WakeRule = iota
	// WakeForward: forward_wakeup sent an IPI to every other idle CPU; the first to get to
	// sched_choose takes the thread and the others go back to idle.
	WakeForward
	// WakePreemptSelf: maybe_preempt: the thread preempts the one running on the waking CPU.
	WakePreemptSelf
	// WakeReschedSelf: maybe_resched: the waking CPU's thread is worse, so TDF_NEEDRESCHED makes
	// it switch at its next return to user mode.
	WakeReschedSelf
	// WakeKickIdle: kick_other_cpu found the per-CPU queue's CPU idle and woke it.
	WakeKickIdle
	// WakeKickPreempt: kick_other_cpu sent IPI_PREEMPT (IPI_PREEMPTION).
	WakeKickPreempt
	// WakeKickAST: kick_other_cpu set TDF_NEEDRESCHED on the remote thread and sent IPI_AST.
	WakeKickAST
	// WakeKickNotBetter: kick_other_cpu left the remote CPU alone: its thread is as good.
	WakeKickNotBetter
)

var wakeRuleNames = [...]string{
	WakeNone:          "no CPU told",
	WakeForward:       "forward_wakeup: IPI to the idle CPUs",
	WakePreemptSelf:   "maybe_preempt: preempt this CPU",
	WakeReschedSelf:   "maybe_resched: reschedule this CPU at its next AST",
	WakeKickIdle:      "kick_other_cpu: wake the idle target",
	WakeKickPreempt:   "kick_other_cpu: IPI_PREEMPT",
	WakeKickAST:       "kick_other_cpu: NEEDRESCHED and IPI_AST",
	WakeKickNotBetter: "kick_other_cpu: target runs a thread at least as good",
}

// String describes the rule.
func (r WakeRule) String() string { return sched.EnumName(wakeRuleNames[:], r, "WakeRule") }

// A WakeInput is what sched_add knows when it decides whom to tell about a queued thread.
type WakeInput struct {
	// Pri is the queued thread's td_priority.
	Pri uint8
	// PerCPU reports whether the thread went to the per-CPU queue of Queue rather than to the
	// global queue.
	PerCPU bool
	// Queue is the CPU of that per-CPU queue.
	Queue topology.CPU
	// QueuePri is the priority of the thread running on Queue (MaxIdle when idle).
	QueuePri uint8
	// Self is the CPU running sched_add (PCPU_GET(cpuid)): the waker's.
	Self topology.CPU
	// SelfPri is the priority of the thread running on Self (MaxIdle when idle).
	SelfPri uint8
	// Kernel reports that a kernel thread runs sched_add on Self (schedcpu requeueing a thread
	// whose priority changed, a system call changing its attributes): Self is then busy at a
	// kernel priority whatever Idle says, so only the other idle CPUs can be told at once, and
	// if Self is idle in Idle it looks for work when the kernel thread blocks again (SelfPri
	// should be 0).
	Kernel bool
	// Idle is idle_cpus_mask, the CPUs running their idle thread; nil means none. WakeCPU reads
	// the set without copying it, and a forward_wakeup's Wake and WakeReason point at it.
	Idle *topology.CPUSet
}

// A Wake is whom sched_add tells about a queued thread: nobody, one CPU, or a set of CPUs.
type Wake struct {
	// One reports that CPU must reschedule: woken from idle, preempted, or sent an AST.
	One bool
	// CPU is that CPU.
	CPU topology.CPU
	// Set, when not nil, holds the CPUs that must reschedule: forward_wakeup's idle CPUs. It
	// points at WakeInput.Idle (which then holds no busy Self) and is valid as long as that set
	// is unchanged.
	Set *topology.CPUSet
	// Preempt reports whether the running thread of CPU is preempted (td_owepreempt,
	// IPI_PREEMPT) rather than rescheduled at its next AST: a preempted thread goes back to the
	// head of its queue (SRQ_PREEMPTED), a rescheduled one to the tail.
	Preempt bool
}

// A WakeReason explains [WakeCPU]: the branch that decided, maybe_preempt's verdict and the
// inputs its String names. It holds no set of its own (a forward_wakeup's CPUs are those of the
// input's Idle, which it points at), so it costs nothing to build.
type WakeReason struct {
	// Rule is the branch that decided.
	Rule WakeRule
	// Preemption is maybe_preempt's verdict when Rule is WakePreemptSelf, WakeReschedSelf or
	// WakeNone.
	Preemption PreemptReason
	// Pri, PerCPU, Queue and Self are the input's.
	Pri    uint8
	PerCPU bool
	Queue  topology.CPU
	Self   topology.CPU
	// CPU is the CPU told by a kick_other_cpu rule, or Self when Kernel tells it to look for
	// work; Told reports that one was.
	CPU  topology.CPU
	Told bool
	// Idle is the input's idle set, whose CPUs a forward_wakeup tells.
	Idle *topology.CPUSet
}

// String explains the decision, for example "pri 76 queued on the global queue by cpu0:
// forward_wakeup: IPI to the idle CPUs 1-3".
func (r WakeReason) String() string {
	where := "the global queue"
	if r.PerCPU {
		where = fmt.Sprintf("%v's queue", r.Queue)
	}
	s := fmt.Sprintf("pri %d queued on %s by %v: %v", r.Pri, where, r.Self, r.Rule)
	switch r.Rule {
	case WakeForward:
		s += " " + r.Idle.String()
	case WakeKickIdle, WakeKickPreempt, WakeKickAST:
		s += " " + strconv.Itoa(int(r.CPU))
	case WakePreemptSelf, WakeReschedSelf, WakeNone:
		if !r.PerCPU || r.Queue == r.Self {
			s += " (" + r.Preemption.String() + ")"
		}
	}
	return s
}

// WakeCPU is the notification at the end of sched_add (SMP): given where a thread of priority
// in.Pri was just queued, it returns whom to tell.
//
//   - On another CPU's per-CPU queue (kick_other_cpu): wake that CPU if idle; otherwise, if the
//     thread is strictly better than the one running there, preempt it with IPI_PREEMPT when
//     IPI_PREEMPTION and PREEMPTION allow (interrupt priorities, or any with FULL_PREEMPTION),
//     else set NEEDRESCHED and send IPI_AST.
//   - On the global queue, from a CPU that is not idle, while other CPUs are idle
//     (forward_wakeup with ipiwakeup enabled): IPI every other idle CPU. All of them wake and
//     race for the one thread, which is how 4BSD spreads work; the losers find nothing and go
//     back to idle. The waking CPU itself is then not considered.
//   - Otherwise (this CPU's own queue, or the global queue with no idle CPU to tell, or from an
//     idle CPU): maybe_preempt against this CPU's running thread ([ShouldPreempt]), else
//     maybe_resched: an AST when the thread is strictly better.
//
// With in.Kernel, Self counts as busy; if it is idle after all and the thread went to the
// global queue or Self's own, Self is told too (its idle thread looks for work when the kernel
// thread blocks), so a forward_wakeup then tells every idle CPU.
//
// Busy CPUs other than the waker's are never told about a global-queue thread, however much
// worse their threads are: the thread waits until one of them reschedules. 4BSD knows nothing of
// the topology here: the idle CPUs are a mask, all of equal worth. The complexity is
// O(MaxCPUs/64) for the mask operations; nothing is copied.
func WakeCPU(in *WakeInput, p *Params) (Wake, WakeReason) {
	idle := in.Idle
	if idle == nil {
		idle = &noCPUs
	}
	r := WakeReason{Pri: in.Pri, PerCPU: in.PerCPU, Queue: in.Queue, Self: in.Self, Idle: idle}
	if in.PerCPU && in.Queue != in.Self {
		// kick_other_cpu
		w := Wake{One: true, CPU: in.Queue}
		switch {
		case idle.Has(in.Queue):
			r.Rule = WakeKickIdle
		case in.Pri >= in.QueuePri:
			r.Rule = WakeKickNotBetter
			return Wake{}, r
		case p.IPIPreemption && p.Preemption && (p.FullPreemption || in.Pri <= p.Layout.MaxITHD):
			r.Rule, w.Preempt = WakeKickPreempt, true
		default:
			r.Rule = WakeKickAST
		}
		r.CPU, r.Told = in.Queue, true
		return w, r
	}
	selfIdle := idle.Has(in.Self)
	if !in.PerCPU && p.IPIWakeup && (!selfIdle && !idle.IsEmpty() || selfIdle && in.Kernel && othersIdle(idle, in.Self)) {
		r.Rule = WakeForward // forward_wakeup: every idle CPU but this one, if any
		return Wake{Set: idle}, r
	}
	// maybe_preempt, else maybe_resched. Neither acts unless pri is strictly better.
	var w Wake
	var preempt bool
	preempt, r.Preemption = ShouldPreempt(in.Pri, in.SelfPri, p)
	switch {
	case preempt:
		r.Rule, w = WakePreemptSelf, Wake{One: true, CPU: in.Self, Preempt: true}
	case in.Pri < in.SelfPri:
		r.Rule, w = WakeReschedSelf, Wake{One: true, CPU: in.Self}
	default:
		r.Rule = WakeNone
	}
	if in.Kernel && selfIdle && (!in.PerCPU || in.Queue == in.Self) {
		w = Wake{One: true, CPU: in.Self}
	}
	if w.One {
		r.CPU, r.Told = w.CPU, true
	}
	return w, r
}

// noCPUs is the empty idle set WakeCPU reads when its input has none. It is never written.
var noCPUs topology.CPUSet

// othersIdle reports whether idle holds a CPU other than self.
func othersIdle(idle *topology.CPUSet, self topology.CPU) bool {
	c, ok := idle.First()
	if ok && c == self {
		_, ok = idle.After(self)
	}
	return ok
}

// A PickCPURule says how PickCPU chose its queue.
type PickCPURule uint8

const (
	PickCPULast     PickCPURule = iota // the thread's last CPU: no allowed queue is strictly shorter
	PickCPUShortest                    // the first allowed CPU (in CPU order) of the shortest queue
)

// A PickCPUReason explains PickCPU: the rule, the CPU chosen and its queue length
// (runq_length), and the CPU the search started from (td_lastcpu) when it was allowed.
type PickCPUReason struct {
	Rule    PickCPURule
	CPU     topology.CPU
	Length  int
	Last    topology.CPU
	HasLast bool // the last CPU was known, in cpus and allowed
}

// String formats the reason, such as "cpu2: shortest allowed queue (1 queued; last cpu1)".
func (r PickCPUReason) String() string {
	last := "no last CPU"
	if r.HasLast {
		last = fmt.Sprintf("last cpu%d", r.Last)
	}
	switch r.Rule {
	case PickCPULast:
		return fmt.Sprintf("cpu%d: the last CPU, no allowed queue shorter (%d queued)", r.CPU, r.Length)
	case PickCPUShortest:
		return fmt.Sprintf("cpu%d: shortest allowed queue (%d queued; %s)", r.CPU, r.Length, last)
	}
	return "PickCPUReason(?)"
}

// PickCPU is sched_pickcpu: the per-CPU queue for a thread whose affinity excludes some CPU.
// It starts from the CPU the thread last ran on, if that is allowed, and takes any allowed CPU
// with a strictly shorter per-CPU queue, scanning cpus in ascending order (CPU_FOREACH);
// lengths[c] is runq_length[c]. An empty affinity allows every CPU.
//
// sched_pickcpu reads no tunable of sched_4bsd.c (in every version the presets model), so
// PickCPU takes no Params. It panics if no CPU of cpus is allowed. The complexity is O(number
// of CPUs).
func PickCPU(affinity topology.CPUSet, last topology.CPU, hasLast bool, cpus topology.CPUSet, lengths []int) (topology.CPU, PickCPUReason) {
	// The kernel's CPU_FOREACH skips the CPUs THREAD_CAN_SCHED refuses; this loop visits the
	// same CPUs in the same order, those of cpus ∩ affinity, without testing each one.
	allowed := cpus
	if !affinity.IsEmpty() {
		allowed = cpus.Intersect(affinity)
	}
	best, ok := last, hasLast && allowed.Has(last)
	r := PickCPUReason{Rule: PickCPULast, Last: last, HasLast: ok}
	for c := range allowed.All() {
		if !ok || lengths[c] < lengths[best] {
			best, ok = c, true
			r.Rule = PickCPUShortest
		}
	}
	if !ok {
		panic("bsd4: PickCPU: the affinity allows no CPU of the machine")
	}
	r.CPU, r.Length = best, lengths[best]
	return best, r
}
