package bsd4

import (
	"fmt"

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
func (r WakeRule) String() string {
	if int(r) < len(wakeRuleNames) {
		return wakeRuleNames[r]
	}
	return fmt.Sprintf("WakeRule(%d)", uint8(r))
}

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
	// Idle is idle_cpus_mask: the CPUs running their idle thread.
	Idle topology.CPUSet
}

// A Wake is the outcome of [WakeCPU].
type Wake struct {
	// Rule is the branch that decided.
	Rule WakeRule
	// CPUs are the CPUs that must reschedule: woken from idle, preempted, or sent an AST.
	CPUs topology.CPUSet
	// Preempt reports whether the running threads of CPUs are preempted (td_owepreempt,
	// IPI_PREEMPT) rather than rescheduled at their next AST: a preempted thread goes back to
	// the head of its queue (SRQ_PREEMPTED), a rescheduled one to the tail.
	Preempt bool
	// Preemption is maybe_preempt's verdict when Rule is WakePreemptSelf, WakeReschedSelf or
	// WakeNone.
	Preemption Preemption
	// In is the input.
	In WakeInput
}

// String explains the decision, for example "t? pri 76 on the global queue: forward_wakeup: IPI
// to the idle CPUs 1-3".
func (w Wake) String() string {
	where := "the global queue"
	if w.In.PerCPU {
		where = fmt.Sprintf("%v's queue", w.In.Queue)
	}
	s := fmt.Sprintf("pri %d queued on %s by %v: %v", w.In.Pri, where, w.In.Self, w.Rule)
	switch w.Rule {
	case WakeForward, WakeKickIdle, WakeKickPreempt, WakeKickAST:
		s += " " + w.CPUs.String()
	case WakePreemptSelf, WakeReschedSelf, WakeNone:
		if !w.In.PerCPU || w.In.Queue == w.In.Self {
			s += " (" + w.Preemption.String() + ")"
		}
	}
	return s
}

// WakeCPU is the notification at the end of sched_add (SMP): given where a thread of priority
// in.Pri was just queued, it returns the CPUs that must reschedule to consider it.
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
// Busy CPUs other than the waker's are never told about a global-queue thread, however much
// worse their threads are: the thread waits until one of them reschedules. 4BSD knows nothing of
// the topology here: the idle CPUs are a mask, all of equal worth. The complexity is
// O(MaxCPUs/64) for the mask operations. WakeCPU returns the CPUs and the explanation
// (Wake.CPUs holds the same set).
func WakeCPU(in WakeInput, p *Params) (topology.CPUSet, Wake) {
	w := Wake{In: in}
	if in.PerCPU && in.Queue != in.Self {
		switch {
		case in.Idle.Has(in.Queue):
			w.Rule = WakeKickIdle
		case in.Pri >= in.QueuePri:
			w.Rule = WakeKickNotBetter
			return w.CPUs, w
		case p.IPIPreemption && p.Preemption && (p.FullPreemption || in.Pri <= p.Layout.MaxITHD):
			w.Rule, w.Preempt = WakeKickPreempt, true
		default:
			w.Rule = WakeKickAST
		}
		w.CPUs.Add(in.Queue)
		return w.CPUs, w
	}
	if !in.PerCPU && !in.Idle.Has(in.Self) && p.IPIWakeup {
		others := in.Idle
		others.Remove(in.Self)
		if !others.IsEmpty() {
			w.Rule, w.CPUs = WakeForward, others
			return w.CPUs, w
		}
	}
	_, w.Preemption = ShouldPreempt(in.Pri, in.SelfPri, p)
	switch {
	case w.Preemption.Preempt:
		w.Rule, w.Preempt = WakePreemptSelf, true
	case in.Pri < in.SelfPri:
		w.Rule = WakeReschedSelf
	default:
		w.Rule = WakeNone
		return w.CPUs, w
	}
	w.CPUs.Add(in.Self)
	return w.CPUs, w
}

// A notice is the set of CPUs [WakeCPU] names, in the form wakeTarget returns it.
type notice uint8

const (
	noticeNone notice = iota // no CPU
	noticeOne                // one CPU
	noticeIdle               // every idle CPU: forward_wakeup
)

// wakeTarget is [WakeCPU] without its explanation, for the Scheduler's hot path: the same
// branches in the same order on the same inputs (the fields of a WakeInput; idle stands for
// Idle, as a cpuMask of whose words only the first words can hold a CPU, so that the set is
// neither copied nor scanned past the machine), but instead of a Wake, which copies the input
// and two sets, it returns which CPUs Wake.CPUs holds: none, the one CPU cpu, or idle itself.
// That last is forward_wakeup's "the idle CPUs but this one", which is idle unchanged because
// the branch is taken only when this CPU is not idle. preempt is Wake.Preempt.
// TestWakeTargetMatchesWakeCPU checks it against WakeCPU.
func wakeTarget(pri uint8, perCPU bool, queue topology.CPU, queuePri uint8, self topology.CPU, selfPri uint8, idle *cpuMask, words int, p *Params) (n notice, cpu topology.CPU, preempt bool) {
	if perCPU && queue != self {
		// kick_other_cpu
		switch {
		case idle.has(queue):
			return noticeOne, queue, false
		case pri >= queuePri:
			return noticeNone, 0, false
		case p.IPIPreemption && p.Preemption && (p.FullPreemption || pri <= p.Layout.MaxITHD):
			return noticeOne, queue, true
		}
		return noticeOne, queue, false
	}
	if !perCPU && p.IPIWakeup && !idle.has(self) && !idle.empty(words) {
		return noticeIdle, 0, false // forward_wakeup
	}
	// maybe_preempt, else maybe_resched. Neither acts unless pri is strictly better.
	if pri >= selfPri {
		return noticeNone, 0, false
	}
	preempt, _ = ShouldPreempt(pri, selfPri, p)
	return noticeOne, self, preempt
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
// p is taken for the shape every decision of the package has; sched_pickcpu reads no tunable
// of sched_4bsd.c (in every version the presets model), so the result does not depend on it.
// PickCPU panics if no CPU of cpus is allowed or p is nil. The complexity is O(number of CPUs).
func PickCPU(affinity topology.CPUSet, last topology.CPU, hasLast bool, cpus topology.CPUSet, lengths []int, p *Params) (topology.CPU, PickCPUReason) {
	if p == nil {
		panic("bsd4: PickCPU: nil Params")
	}
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
