package sched

// This file implements the check both FreeBSD policies (ule, bsd4) make of the attributes a
// thread asks for.

import (
	"errors"
	"fmt"
)

// CheckFreeBSDAttr reports whether a FreeBSD policy can run a thread with attributes a as
// asked: pkg names the package in the error ("ule") and policy the scheduler in its text
// ("ULE"). It refuses attributes that fail [Attr.Validate], then those [RefuseFreeBSDAttr]
// refuses. Each policy runs refused attributes as the nearest thing and reports the first
// through its Err ([ErrReporter]).
func CheckFreeBSDAttr(pkg, policy string, a *Attr) error {
	if err := a.check(); err != nil {
		return fmt.Errorf("%s: %w", pkg, err)
	}
	return RefuseFreeBSDAttr(pkg, policy, a)
}

// RefuseFreeBSDAttr returns what FreeBSD cannot honour in valid attributes a, naming the field,
// or nil:
//   - a real-time priority on Linux's 1..99 scale (RTLinux): FreeBSD's rtprio(2) and its
//     sched_setscheduler(2) take 0..31, and a Linux program's sched_priority has no FreeBSD
//     meaning (sched_setscheduler fails with EINVAL above 31); rtprio(2) levels (RTFreeBSD)
//     are accepted, each policy mapping them as rtp_to_pri does;
//   - Batch: FreeBSD has no SCHED_BATCH;
//   - a requested slice (Attr.Slice): neither FreeBSD scheduler has a per-thread slice request;
//   - a control group other than the root: FreeBSD's cpusets restrict where threads run, not
//     how CPU time is shared.
//
// It is CheckFreeBSDAttr for a caller that has validated a already (a policy's Fork, which
// panics on invalid attributes).
func RefuseFreeBSDAttr(pkg, policy string, a *Attr) error {
	switch {
	case a.Class.RealTime() && a.RTScale != RTFreeBSD:
		return fmt.Errorf("%s: %s priority %d is on the %s scale; FreeBSD's rtprio(2) takes 0..%d (RTScale %s)",
			pkg, a.Class, a.RTPrio, a.RTScale, MaxFreeBSDRTPrio, RTFreeBSD)
	case a.Class == Batch:
		return errors.New(pkg + ": FreeBSD has no SCHED_BATCH class")
	case a.Slice != 0:
		return fmt.Errorf("%s: a requested slice (%d ns) has no %s equivalent", pkg, a.Slice, policy)
	case a.Group != RootGroup:
		return fmt.Errorf("%s: no group scheduling in %s (group %d)", pkg, policy, a.Group)
	}
	return nil
}
