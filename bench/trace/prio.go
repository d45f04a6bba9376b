package trace

// This file implements the mapping between schedkit's scheduling attributes and the kernel's
// task prio, as sched_switch and sched_wakeup print it, and the Linux policy numbers.

import "github.com/schedkit/schedkit/sched"

// Kernel priority constants (include/linux/sched/prio.h): MAX_RT_PRIO and DEFAULT_PRIO.
const (
	maxRTPrio   = 100
	defaultPrio = 120
)

// KernelPrio returns the prio the Linux kernel reports for a task with attributes a (the prio
// field of sched_switch, sched_wakeup and friends, task_struct.prio without priority
// inheritance): 120+nice for SCHED_OTHER, SCHED_BATCH and SCHED_IDLE, and
// MAX_RT_PRIO-1-sched_priority (0..98) for SCHED_FIFO and SCHED_RR. A FreeBSD-numbered
// real-time priority (0..31, smaller more important) is reported as itself, as if it were
// sched_priority 99-rtprio.
func KernelPrio(a sched.Attr) int {
	if a.Class.RealTime() {
		if a.RTScale == sched.RTFreeBSD {
			return a.RTPrio
		}
		return maxRTPrio - 1 - a.RTPrio
	}
	return defaultPrio + a.Nice
}

// attrFromPrio returns the attributes a kernel prio implies when the policy is not known:
// 100..139 is SCHED_OTHER with nice prio-120, 0..98 is real time (reported as FIFO) with
// sched_priority 99-prio. It reports false for a prio outside 0..139 (-1 is SCHED_DEADLINE).
func attrFromPrio(prio int) (sched.Attr, bool) {
	switch {
	case prio >= maxRTPrio && prio <= defaultPrio+sched.MaxNice:
		return sched.Attr{Nice: prio - defaultPrio}, true
	case prio >= 0 && prio < maxRTPrio-1:
		return sched.Attr{Class: sched.FIFO, RTPrio: maxRTPrio - 1 - prio}, true
	}
	return sched.Attr{}, false
}
