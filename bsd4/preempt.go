package bsd4

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
)

// This file implements maybe_preempt (sys/kern/sched_4bsd.c): whether a thread that becomes
// runnable takes the CPU from the thread running there at once.

// A PreemptRule names the test of maybe_preempt that decided.
type PreemptRule uint8

const (
	// NoPreemptionOption: the kernel lacks options PREEMPTION; maybe_preempt returns 0.
	NoPreemptionOption PreemptRule = iota
	// NotBetter: the new priority is not strictly better than the running thread's.
	NotBetter
	// NotInterrupt: without FULL_PREEMPTION only interrupt threads (pri ≤ PRI_MAX_ITHD)
	// preempt, unless the CPU runs an idle-class thread.
	NotInterrupt
	// PreemptIdle: the CPU runs an idle-class thread or its idle thread (pri ≥ PRI_MIN_IDLE);
	// anything better preempts it.
	PreemptIdle
	// PreemptInterrupt: the new thread has an interrupt-thread priority.
	PreemptInterrupt
	// PreemptFull: FULL_PREEMPTION lets any better priority preempt.
	PreemptFull
)

var preemptRuleNames = [...]string{
	NoPreemptionOption: "kernel built without PREEMPTION",
	NotBetter:          "not strictly better than the running thread",
	NotInterrupt:       "only interrupt threads preempt without FULL_PREEMPTION",
	PreemptIdle:        "the CPU runs an idle-priority thread",
	PreemptInterrupt:   "interrupt-thread priority",
	PreemptFull:        "FULL_PREEMPTION: any better priority",
}

// String describes the rule.
func (r PreemptRule) String() string {
	return sched.EnumName(preemptRuleNames[:], r, "PreemptRule")
}

// A PreemptReason explains [ShouldPreempt]: the verdict, the test that decided and the
// priorities compared.
type PreemptReason struct {
	// Preempt reports whether the running thread is preempted (td_owepreempt = 1).
	Preempt bool
	// Rule is the test that decided.
	Rule PreemptRule
	// Pri and CurPri are the compared priorities: the new thread's and the running one's.
	Pri, CurPri uint8
}

// String explains the decision, for example "pri 60 does not preempt pri 80: only interrupt
// threads preempt without FULL_PREEMPTION".
func (p PreemptReason) String() string {
	verb := "does not preempt"
	if p.Preempt {
		verb = "preempts"
	}
	return fmt.Sprintf("pri %d %s pri %d: %v", p.Pri, verb, p.CurPri, p.Rule)
}

// ShouldPreempt is maybe_preempt: whether a thread of priority pri, just made runnable,
// preempts the thread running on this CPU at priority curPri (the idle thread's is [MaxIdle]).
// With options PREEMPTION it does when pri < curPri and either FULL_PREEMPTION is set, pri is
// an interrupt-thread priority (≤ PRI_MAX_ITHD), or curPri is an idle priority
// (≥ PRI_MIN_IDLE). So under the default options a time-sharing or real-time thread never
// preempts another non-idle thread at once; it waits for the running thread's next AST
// (maybe_resched) or the end of its slice. The kernel's other exits (a panic, a running thread
// already switching out) have no counterpart here. It returns the verdict and its explanation.
func ShouldPreempt(pri, curPri uint8, p *Params) (bool, PreemptReason) {
	d := PreemptReason{Pri: pri, CurPri: curPri}
	switch {
	case !p.Preemption:
		d.Rule = NoPreemptionOption
	case pri >= curPri:
		d.Rule = NotBetter
	case curPri >= p.Layout.MinIdle:
		d.Preempt, d.Rule = true, PreemptIdle
	case pri <= p.Layout.MaxITHD:
		d.Preempt, d.Rule = true, PreemptInterrupt
	case p.FullPreemption:
		d.Preempt, d.Rule = true, PreemptFull
	default:
		d.Rule = NotInterrupt
	}
	return d.Preempt, d
}
