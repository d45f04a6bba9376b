// This file implements the preemption decision, sched_shouldpreempt, and the two ways a woken
// thread reaches a CPU: sched_setpreempt on the local CPU and tdq_notify on a remote one.

package ule

import "github.com/schedkit/schedkit/sched"

// A PreemptRule says which test of sched_shouldpreempt decided.
type PreemptRule uint8

const (
	PreemptNotBetter      PreemptRule = iota // pri >= cpri: the newcomer is not better
	PreemptIdle                              // cpri >= PRI_MIN_IDLE: an idle CPU (or idle-class thread) is always preempted
	PreemptDisabled                          // preempt_thresh == 0: preemption is off
	PreemptThreshold                         // pri < preempt_thresh (legacy: <=): the newcomer is important enough
	PreemptRemoteInteract                    // remote, pri <= PRI_MAX_INTERACT < cpri: an interactive thread interrupts batch work elsewhere
	PreemptNo                                // none of the above: no preemption
)

// A PreemptReason explains ShouldPreempt: the rule and the numbers it compared.
type PreemptReason struct {
	Rule      PreemptRule
	Pri, CPri int  // the newcomer's and the running side's priorities
	Thresh    int  // preempt_thresh
	AtThresh  bool // the threshold test was <= (legacy)
	Remote    bool
}

var preemptReasons = []string{PreemptNotBetter: "pri %[1]d >= cpri %[2]d: no preemption",
	PreemptIdle:           "cpri %[2]d is idle: preempt",
	PreemptDisabled:       "preempt_thresh 0: no preemption",
	PreemptThreshold:      "pri %[1]d %[4]s preempt_thresh %[3]d: preempt",
	PreemptRemoteInteract: "remote: interactive pri %[1]d over batch cpri %[2]d: preempt",
	PreemptNo:             "pri %[1]d not %[4]s preempt_thresh %[3]d, cpri %[2]d: no preemption"}

// String formats the reason, such as "pri 136 <= preempt_thresh 224: preempt".
func (r PreemptReason) String() string {
	op := "<"
	if r.AtThresh {
		op = "<="
	}
	return explain(preemptReasons, r.Rule, "PreemptReason", r.Pri, r.CPri, r.Thresh, op)
}

// ShouldPreempt reports whether a thread of priority pri should preempt a CPU whose best
// priority is cpri: sched_shouldpreempt(pri, cpri, remote). The tests, in order:
//
//  1. pri >= cpri: no;
//  2. cpri >= PRI_MIN_IDLE: yes, always preempt idle;
//  3. preempt_thresh == 0: no;
//  4. pri < preempt_thresh (<= with PreemptAtThresh, as legacy): yes;
//  5. remote, pri <= PRI_MAX_INTERACT and cpri > PRI_MAX_INTERACT: yes, an interactive thread
//     interrupts batch work on another CPU;
//  6. otherwise no.
//
// With the defaults (40 in main, 48 in legacy) only interrupt and real-time threads preempt
// locally (in legacy also a kernel thread at exactly 48, PRI_MIN_KERN); time-sharing threads
// never preempt one another locally. The complexity is O(1).
func ShouldPreempt(pri, cpri int, remote bool, p *Params) (bool, PreemptReason) {
	rule := shouldPreempt(pri, cpri, remote, p)
	return rule.preempts(), preemptReason(rule, pri, cpri, remote, p)
}

// shouldPreempt is sched_shouldpreempt: the rule of ShouldPreempt that fires.
func shouldPreempt(pri, cpri int, remote bool, p *Params) PreemptRule {
	switch {
	case pri >= cpri:
		return PreemptNotBetter
	case cpri >= PriMinIdle:
		return PreemptIdle // always preempt idle
	case p.PreemptThresh == 0:
		return PreemptDisabled
	case pri < p.PreemptThresh || (p.PreemptAtThresh && pri == p.PreemptThresh):
		return PreemptThreshold
	}
	if l := p.Version.layout(); remote && pri <= int(l.MaxInteract) && cpri > int(l.MaxInteract) {
		return PreemptRemoteInteract
	}
	return PreemptNo
}

// preemptReason returns the PreemptReason of rule, which sched_shouldpreempt(pri, cpri, remote)
// gave under p.
func preemptReason(rule PreemptRule, pri, cpri int, remote bool, p *Params) PreemptReason {
	return PreemptReason{Rule: rule, Pri: pri, CPri: cpri, Thresh: p.PreemptThresh, AtThresh: p.PreemptAtThresh, Remote: remote}
}

// preempts reports whether rule r of sched_shouldpreempt answers yes.
func (r PreemptRule) preempts() bool {
	return r == PreemptIdle || r == PreemptThreshold || r == PreemptRemoteInteract
}

// A Kick is what a CPU must do about a newly queued thread.
type Kick uint8

const (
	// KickNone: nothing; the thread waits until the CPU switches for another reason.
	KickNone Kick = iota
	// KickAST: reschedule when the running thread next returns to user mode (ast_sched_locked
	// with TDA_SCHED). The running thread is not "preempted": it requeues at the tail.
	KickAST
	// KickPreempt: preempt now (td_owepreempt locally, IPI_PREEMPT remotely). The running
	// thread requeues at the head of its queue (SRQ_PREEMPTED).
	KickPreempt
	// KickIdle: the CPU runs its idle thread; wake it (cpu_idle_wakeup or an IPI).
	KickIdle
)

var kickNames = []string{KickNone: "none", KickAST: "ast", KickPreempt: "preempt", KickIdle: "wake idle"}

// String returns "none", "ast", "preempt" or "wake idle".
func (k Kick) String() string { return sched.EnumName(kickNames, k, "Kick") }

// SetPreempt decides for a thread of priority pri queued on the CPU that queued it, whose
// running thread has priority cpri (PriMaxIdle for the idle thread): sched_setpreempt. If
// pri < cpri an AST reschedule is requested; if moreover ShouldPreempt(pri, cpri, local) holds,
// a preemption (td_owepreempt). The complexity is O(1).
func SetPreempt(pri, cpri int, p *Params) (k Kick, why PreemptReason) {
	k = setPreempt(pri, cpri, p, &why)
	return k, why
}

// setPreempt is SetPreempt writing the reason to why.
func setPreempt(pri, cpri int, p *Params, why *PreemptReason) Kick {
	rule := shouldPreempt(pri, cpri, false, p)
	*why = preemptReason(rule, pri, cpri, false, p)
	switch {
	case rule.preempts():
		return KickPreempt
	case pri < cpri:
		return KickAST
	}
	return KickNone
}

// Notify decides for a thread queued on a remote CPU c whose LowPri before the addition was
// oldLowPri: tdq_notify. Nothing happens if a remote preemption is already pending or if
// ShouldPreempt(c.LowPri(), oldLowPri, remote) fails; otherwise an idle CPU is woken
// (KickIdle) and a busy one is sent IPI_PREEMPT (KickPreempt), which the caller records by
// setting c.OwePreempt. Notify changes nothing. The complexity is O(1).
func Notify(c *CPUState, oldLowPri uint8) (k Kick, why PreemptReason) {
	k = notify(c, nil, oldLowPri, &why)
	return k, why
}

// notify is tdq_notify for thread t just queued on c (nil for Notify), writing the reason to why:
// nothing while a remote preemption is pending (tdq_owepreempt, reported as PreemptNo), else
// sched_shouldpreempt(pri, cpri, 1) on c's LowPri after and before the addition (NotifyRunning:
// t's priority and the running thread's); an idle CPU is woken and a busy one preempted.
func notify(c *CPUState, t *Thread, oldLowPri uint8, why *PreemptReason) Kick {
	pri, cpri := int(c.LowPri()), int(oldLowPri)
	if t != nil && c.p.NotifyRunning {
		pri, cpri = int(t.Priority), int(c.curPriority())
	}
	if c.OwePreempt {
		*why = PreemptReason{Rule: PreemptNo, Pri: pri, CPri: cpri, Remote: true}
		return KickNone
	}
	rule := shouldPreempt(pri, cpri, true, c.p)
	*why = preemptReason(rule, pri, cpri, true, c.p)
	switch {
	case !rule.preempts():
		return KickNone
	case c.Cur == nil:
		return KickIdle
	}
	return KickPreempt
}

// NotifyThread is tdq_notify for thread t, just queued on the remote CPU c whose LowPri before
// the addition was oldLowPri. It is Notify, unless c's Params set NotifyRunning: then it is the
// form of FreeBSD 9.0 (sys/kern/sched_ule.c 1.290, rodrigc/bz-vimage @191fe557), which asks
// ShouldPreempt(t's priority, the priority of the thread c runs, remote) instead of comparing
// c's lowest priority before and after the addition (the package documentation's section on
// FreeBSD 9.0 says when the two differ). As in Notify, nothing happens while a remote
// preemption is pending (tdq_ipipending), an idle CPU is woken and a busy one preempted;
// NotifyThread changes nothing. The complexity is O(1).
func NotifyThread(c *CPUState, t *Thread, oldLowPri uint8) (k Kick, why PreemptReason) {
	k = notify(c, t, oldLowPri, &why)
	return k, why
}
