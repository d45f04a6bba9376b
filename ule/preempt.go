// This file implements the preemption decision, sched_shouldpreempt, and the two ways a woken
// thread reaches a CPU: sched_setpreempt on the local CPU and tdq_notify on a remote one.

package ule

import "fmt"

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

// String formats the reason, such as "pri 136 <= preempt_thresh 224: preempt".
func (r PreemptReason) String() string {
	op := "<"
	if r.AtThresh {
		op = "<="
	}
	switch r.Rule {
	case PreemptNotBetter:
		return fmt.Sprintf("pri %d >= cpri %d: no preemption", r.Pri, r.CPri)
	case PreemptIdle:
		return fmt.Sprintf("cpri %d is idle: preempt", r.CPri)
	case PreemptDisabled:
		return "preempt_thresh 0: no preemption"
	case PreemptThreshold:
		return fmt.Sprintf("pri %d %s preempt_thresh %d: preempt", r.Pri, op, r.Thresh)
	case PreemptRemoteInteract:
		return fmt.Sprintf("remote: interactive pri %d over batch cpri %d: preempt", r.Pri, r.CPri)
	case PreemptNo:
		return fmt.Sprintf("pri %d not %s preempt_thresh %d, cpri %d: no preemption", r.Pri, op, r.Thresh, r.CPri)
	}
	return "PreemptReason(?)"
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
	rule := preemptRule(pri, cpri, remote, p)
	return rule.preempts(), preemptWhy{pri: pri, cpri: cpri, rule: rule, remote: remote}.reason(p)
}

// preemptRule is sched_shouldpreempt's decision alone: the rule of ShouldPreempt that fires.
func preemptRule(pri, cpri int, remote bool, p *Params) PreemptRule {
	switch {
	case pri >= cpri:
		return PreemptNotBetter
	case cpri >= PriMinIdle:
		return PreemptIdle
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

// preempts reports whether rule r of sched_shouldpreempt answers yes.
func (r PreemptRule) preempts() bool {
	return r == PreemptIdle || r == PreemptThreshold || r == PreemptRemoteInteract
}

// A preemptWhy is what the decisions below pass up to the method that reports a PreemptReason:
// the priorities compared and the rule, without the tunables, which reason fills in from the
// Params. Returning it rather than the larger PreemptReason through the layers of an addition
// keeps the common path from copying the explanation it rarely needs.
type preemptWhy struct {
	pri, cpri int
	rule      PreemptRule
	remote    bool
	// pending says tdq_notify found a remote preemption pending and asked nothing.
	pending bool
}

// reason returns the PreemptReason w stands for under p.
func (w preemptWhy) reason(p *Params) PreemptReason {
	if w.pending {
		return PreemptReason{Rule: PreemptNo, Pri: w.pri, CPri: w.cpri, Remote: true}
	}
	return PreemptReason{Rule: w.rule, Pri: w.pri, CPri: w.cpri, Thresh: p.PreemptThresh, AtThresh: p.PreemptAtThresh, Remote: w.remote}
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

// String returns "none", "ast", "preempt" or "wake idle".
func (k Kick) String() string {
	switch k {
	case KickNone:
		return "none"
	case KickAST:
		return "ast"
	case KickPreempt:
		return "preempt"
	case KickIdle:
		return "wake idle"
	}
	return "Kick(?)"
}

// SetPreempt decides for a thread of priority pri queued on the CPU that queued it, whose
// running thread has priority cpri (PriMaxIdle for the idle thread): sched_setpreempt. If
// pri < cpri an AST reschedule is requested; if moreover ShouldPreempt(pri, cpri, local) holds,
// a preemption (td_owepreempt). The complexity is O(1).
func SetPreempt(pri, cpri int, p *Params) (Kick, PreemptReason) {
	k, w := setPreempt(pri, cpri, p)
	return k, w.reason(p)
}

// setPreempt is SetPreempt with its reason in short (see preemptWhy).
func setPreempt(pri, cpri int, p *Params) (Kick, preemptWhy) {
	w := preemptWhy{pri: pri, cpri: cpri, rule: preemptRule(pri, cpri, false, p)}
	switch {
	case w.rule.preempts():
		return KickPreempt, w
	case pri < cpri:
		return KickAST, w
	}
	return KickNone, w
}

// Notify decides for a thread queued on a remote CPU c whose LowPri before the addition was
// oldLowPri: tdq_notify. Nothing happens if a remote preemption is already pending or if
// ShouldPreempt(c.LowPri(), oldLowPri, remote) fails; otherwise an idle CPU is woken
// (KickIdle) and a busy one is sent IPI_PREEMPT (KickPreempt), which the caller records by
// setting c.OwePreempt. Notify changes nothing. The complexity is O(1).
func Notify(c *CPUState, oldLowPri uint8) (Kick, PreemptReason) {
	k, w := notify(c, oldLowPri)
	return k, w.reason(c.p)
}

// notify is Notify with its reason in short (see preemptWhy).
func notify(c *CPUState, oldLowPri uint8) (Kick, preemptWhy) {
	w := preemptWhy{pri: int(c.LowPri()), cpri: int(oldLowPri), remote: true}
	if c.OwePreempt {
		w.pending = true
		return KickNone, w
	}
	return notifyKick(c, w)
}

// notifyKick is the end of tdq_notify once no preemption is pending: sched_shouldpreempt with
// w's priorities, then an idle CPU is woken and a busy one preempted.
func notifyKick(c *CPUState, w preemptWhy) (Kick, preemptWhy) {
	w.rule = preemptRule(w.pri, w.cpri, true, c.p)
	switch {
	case !w.rule.preempts():
		return KickNone, w
	case c.Cur == nil:
		return KickIdle, w
	}
	return KickPreempt, w
}

// NotifyThread is tdq_notify for thread t, just queued on the remote CPU c whose LowPri before
// the addition was oldLowPri. It is Notify, unless c's Params set NotifyRunning: then it is the
// form of FreeBSD 9.0 (sys/kern/sched_ule.c 1.290, rodrigc/bz-vimage @191fe557), which asks
// ShouldPreempt(t's priority, the priority of the thread c runs, remote) instead of comparing
// c's lowest priority before and after the addition. The two differ when c already queues a
// thread better than the one it runs: a newcomer better than the running thread but not than
// the queued one gets IPI_PREEMPT in 2011 and nothing in Notify. As in Notify, nothing happens
// while a remote preemption is pending (tdq_ipipending), an idle CPU is woken and a busy one
// preempted; NotifyThread changes nothing. The complexity is O(1).
func NotifyThread(c *CPUState, t *Thread, oldLowPri uint8) (Kick, PreemptReason) {
	k, w := notifyThread(c, t, oldLowPri)
	return k, w.reason(c.p)
}

// notifyThread is NotifyThread with its reason in short (see preemptWhy).
func notifyThread(c *CPUState, t *Thread, oldLowPri uint8) (Kick, preemptWhy) {
	if !c.p.NotifyRunning {
		return notify(c, oldLowPri)
	}
	w := preemptWhy{pri: int(t.Priority), cpri: int(c.curPriority()), remote: true}
	if c.OwePreempt {
		w.pending = true
		return KickNone, w
	}
	return notifyKick(c, w)
}
