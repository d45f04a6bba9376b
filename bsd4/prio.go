package bsd4

import "github.com/schedkit/schedkit/sched"

// This file implements the priority space of sys/priority.h and the user priority of a
// time-sharing thread (resetpriority in sched_4bsd.c).

// A Layout is the division of priorities 0..255 into classes (sys/priority.h); a lower number
// is more important. The sources read for this package show three: FreeBSD 9's
// ([Layout2011]), the pre-2025 one of FreeBSD 13-15 with a wider time-sharing range
// ([LayoutLegacy]), and FreeBSD main's, which gives each of the 32 POSIX real-time levels its
// own queue ([LayoutMain]).
type Layout struct {
	// MaxITHD is PRI_MAX_ITHD, the last interrupt-thread priority (PRI_MIN_ITHD is 0).
	MaxITHD uint8
	// MinRealtime is PRI_MIN_REALTIME, the first of the 32 real-time levels (rtprio 0).
	MinRealtime uint8
	// MinKern is PRI_MIN_KERN, the first kernel sleep priority (PSWP).
	MinKern uint8
	// MinTimeshare is PRI_MIN_TIMESHARE, which is also PUSER, the base of every user priority.
	MinTimeshare uint8
	// MinIdle is PRI_MIN_IDLE; PRI_MAX_TIMESHARE is MinIdle−1 and PRI_MAX_IDLE is 255.
	MinIdle uint8
}

// MaxIdle is PRI_MAX_IDLE = PRI_MAX, the priority of every CPU's idle thread.
const MaxIdle uint8 = 255

// LayoutMain returns FreeBSD main's priority layout (D45391, 2025): interrupt threads 0-7,
// real time 8-39, kernel 40-55, time sharing 56-223, idle 224-255.
func LayoutMain() Layout {
	return Layout{MaxITHD: 7, MinRealtime: 8, MinKern: 40, MinTimeshare: 56, MinIdle: 224}
}

// LayoutLegacy returns the layout of FreeBSD 13-15 before the 2025 rework (sys/priority.h as in
// OlCe2/freebsd-src @fc4e6fb7): interrupt threads 0-15, real time 16-47, kernel 48-87, time
// sharing 88-223, idle 224-255.
func LayoutLegacy() Layout {
	return Layout{MaxITHD: 15, MinRealtime: 16, MinKern: 48, MinTimeshare: 88, MinIdle: 224}
}

// Layout2011 returns the layout of FreeBSD 9 (sys/priority.h of releng/9.3 and of 2012 head,
// dcui/FreeBSD-9.3_kernel @80871985 and rayddteam/freebsd-pi @282184e1): interrupt threads 0-47,
// real time 48-79, kernel 80-119, time sharing 120-223, idle 224-255.
func Layout2011() Layout {
	return Layout{MaxITHD: 47, MinRealtime: 48, MinKern: 80, MinTimeshare: 120, MinIdle: 224}
}

// MaxTimeshare returns PRI_MAX_TIMESHARE, MinIdle−1.
func (l Layout) MaxTimeshare() uint8 { return l.MinIdle - 1 }

// ResetPriority returns the user priority of a time-sharing thread (resetpriority in
// sched_4bsd.c):
//
//	PUSER + estcpu/IEW + NICE_WEIGHT·(nice − PRIO_MIN)
//
// clamped to [PRI_MIN_TIMESHARE, PRI_MAX_TIMESHARE], computed as u_int as in the kernel (a nice
// below PRIO_MIN, which the kernel never stores, makes the unsigned sum wrap around).
// Because [ESTCPULim] caps estcpu/IEW at 39 (36 with the legacy run queue), a 4BSD thread never
// goes beyond PUSER+79: the time-sharing range above that is unused. iew is the
// [InverseEstcpuWeight] of the machine, so the same estcpu means a different priority on a
// machine of a different size. ResetPriority panics if iew is zero.
func ResetPriority(estcpu uint32, nice int, iew uint32, l Layout) uint8 {
	if iew == 0 {
		panic("bsd4: ResetPriority with a zero inverse estcpu weight")
	}
	pri := uint32(l.MinTimeshare) + estcpu/iew + uint32(int32(NiceWeight*(nice-PrioMin)))
	pri = min(max(pri, uint32(l.MinTimeshare)), uint32(l.MaxTimeshare()))
	return uint8(pri)
}

// ClassPriority returns the fixed priority of a thread of a class that 4BSD does not
// recompute, and false for the time-sharing classes (Normal and Batch, whose priority is
// [ResetPriority]'s). A FIFO or RR thread of rtprio(2) level rtprio (scale sched.RTFreeBSD,
// 0 most important) gets PRI_MIN_REALTIME + rtprio, as kern_resource.c rtp_to_pri sets it; on
// the 64-queue layouts four consecutive levels share a run queue. A priority on another scale
// (Linux's 1..99, which Scheduler.CheckAttr refuses) is read as a POSIX priority q clamped to
// FreeBSD's 0..31 and mapped as FreeBSD's sched_setscheduler does, to PRI_MIN_REALTIME + 31 − q
// (p4prio_to_rtpprio), so a larger q is more important. Idle threads (RTP_PRIO_IDLE, idprio 0)
// get PRI_MIN_IDLE.
func ClassPriority(c sched.Class, rtprio int, scale sched.RTScale, l Layout) (uint8, bool) {
	switch c {
	case sched.FIFO, sched.RR:
		if scale == sched.RTFreeBSD {
			return l.MinRealtime + uint8(min(max(rtprio, 0), 31)), true
		}
		q := min(max(rtprio, 0), 31)
		return l.MinRealtime + uint8(31-q), true
	case sched.Idle:
		return l.MinIdle, true
	default:
		return 0, false
	}
}
