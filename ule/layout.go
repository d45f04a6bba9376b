// This file implements the priority layouts: which ranges of 0..255 belong to interrupt
// threads, real-time threads, the kernel, time sharing and idle threads, in FreeBSD main and in
// the legacy (pre-2025) kernels and in FreeBSD 9.0, and the scheduling classes.

package ule

import (
	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
)

// A Version selects the generation of sched_ule.c a [Params] models: the priority layout, the
// shape of the run queues, the calendar arithmetic and the formulas that changed with the 2025
// run-queue rework (reviews D45387-D45393, seed 003).
type Version uint8

const (
	// Main is FreeBSD main as of 2026 (mchoo7/freebsd-src sys/kern/sched_ule.c @3521c70f): one
	// 256-queue run queue per CPU, the priority layout 0-7/8-39/40-55/56-223/224-255, a timeshare
	// calendar of 109 queues driven by tdq_ts_off and tdq_ts_deq_off.
	Main Version = iota
	// Legacy is the ULE of FreeBSD 13-14 as it stood in 2024, just before the rework
	// (OlCe2/freebsd-src sys/kern/sched_ule.c @366ae94e): three run queues of 64 queues each (tdq_realtime,
	// tdq_timeshare, tdq_idle; RQ_PPQ 4), the layout 0-15/16-47/48-87/88-223/224-255, a calendar
	// of 64 queues driven by tdq_idx and tdq_ridx.
	Legacy
	// FreeBSD9 is the ULE of FreeBSD 9.0 (2011), read in 9-CURRENT's sys/kern/sched_ule.c
	// 1.290 of 2011-01-14 (rodrigc/bz-vimage @191fe557): the same three 64-queue run queues and
	// tdq_idx/tdq_ridx calendar as Legacy, with the priority layout of 2011
	// (0-47/48-79/80-119/120-223/224-255) and the calendar mapping and formulas of its time
	// (FreeBSD9CalendarIndex, TimesharePriority, PctCPUUpdate).
	FreeBSD9
)

var versionNames = []string{Main: "main", Legacy: "legacy", FreeBSD9: "freebsd9"}

// String returns "main", "legacy" or "freebsd9".
func (v Version) String() string { return sched.EnumName(versionNames, v, "Version") }

// split reports whether v keeps three run queues of 64 queues per CPU (tdq_realtime,
// tdq_timeshare, tdq_idle) and the tdq_idx/tdq_ridx calendar, as every kernel before the 2025
// rework did: Legacy and FreeBSD9.
func (v Version) split() bool { return v-Legacy <= FreeBSD9-Legacy } // Legacy and FreeBSD9 are consecutive

// Priority limits that do not depend on the version (sys/sys/priority.h, sys/sys/resource.h).
const (
	PriMinIdle = 224 // PRI_MIN_IDLE
	PriMaxIdle = 255 // PRI_MAX_IDLE = PRI_MAX: also the tdq_lowpri of an idle CPU
	PrioMin    = -20 // PRIO_MIN, the lowest nice value
	PrioMax    = 20  // PRIO_MAX, the highest nice value
	RTPPrioMax = 31  // RTP_PRIO_MAX: real-time and idle priorities run 0..31
)

// A Layout is the division of the priority space 0..255 (sys/sys/priority.h) together with the
// ranges sched_ule.c derives from it. All bounds are inclusive. Lower numbers are more important.
type Layout struct {
	MinIthd, MaxIthd           uint8 // PRI_MIN_ITHD, PRI_MAX_ITHD: interrupt threads
	MinRealtime, MaxRealtime   uint8 // PRI_MIN_REALTIME, PRI_MAX_REALTIME: rtprio / SCHED_FIFO, SCHED_RR
	MinKern, MaxKern           uint8 // PRI_MIN_KERN, PRI_MAX_KERN: kernel sleep priorities
	MinTimeshare, MaxTimeshare uint8 // PRI_MIN_TIMESHARE, PRI_MAX_TIMESHARE: time-sharing user threads
	MinIdle, MaxIdle           uint8 // PRI_MIN_IDLE, PRI_MAX_IDLE: idprio threads and the idle thread

	// NResv is SCHED_PRI_NRESV, the priorities reserved for nice: 50 in main
	// (SCHED_PRI_NICE(PRIO_MAX) = 40*5/4), 40 in legacy and freebsd9 (PRIO_MAX - PRIO_MIN).
	NResv int
	// MinInteract..MaxInteract is where interactive time-sharing threads go
	// (PRI_MIN_INTERACT..PRI_MAX_INTERACT), MinBatch..MaxBatch the batch threads
	// (PRI_MIN_BATCH..PRI_MAX_BATCH).
	MinInteract, MaxInteract, MinBatch, MaxBatch uint8
	// Fold is RQ_PPQ, the number of priorities per run-queue queue: 1 in main, 4 in legacy and
	// freebsd9.
	Fold runq.Fold
}

// Layout returns the priority layout of v.
func (v Version) Layout() Layout { return *v.layout() }

// layout returns the priority layout of v in place, for the hot paths, which read a field or two
// of it.
func (v Version) layout() *Layout {
	switch v {
	case Legacy:
		return &legacyLayout
	case FreeBSD9:
		return &freebsd9Layout
	}
	return &mainLayout
}

func newLayout(ithd, rt, kern uint8, nresv int, fold runq.Fold) Layout {
	l := Layout{
		MinIthd: 0, MaxIthd: ithd,
		MinRealtime: ithd + 1, MaxRealtime: rt,
		MinKern: rt + 1, MaxKern: kern,
		MinTimeshare: kern + 1, MaxTimeshare: 223,
		MinIdle: PriMinIdle, MaxIdle: PriMaxIdle,
		NResv: nresv, Fold: fold,
	}
	tsRange := int(l.MaxTimeshare) - int(l.MinTimeshare) + 1 // PRI_TIMESHARE_RANGE
	interact := (tsRange - nresv) / 2                        // PRI_INTERACT_RANGE
	l.MinInteract, l.MaxInteract = l.MinTimeshare, l.MinTimeshare+uint8(interact)-1
	l.MinBatch, l.MaxBatch = l.MinTimeshare+uint8(interact), l.MaxTimeshare
	return l
}

var (
	// main: priority.h after D45391 ("Interrupt threads: 0 - 7").
	mainLayout = newLayout(7, 39, 55, (PrioMax-PrioMin)*5/4, runq.NoFold)
	// legacy: OlCe2/freebsd-src sys/sys/priority.h @fc4e6fb7.
	legacyLayout = newLayout(15, 47, 87, PrioMax-PrioMin, runq.LegacyFold)
	// freebsd9: sys/sys/priority.h of 2011 (rodrigc/bz-vimage @191fe557): PRI_MIN_REALTIME 48,
	// PRI_MIN_KERN 80, PRI_MIN_TIMESHARE 120; sched_ule.c 1.290 derives PRI_INTERACT_RANGE
	// (104-40)/2 = 32, so interactive 120-151 and batch 152-223.
	freebsd9Layout = newLayout(47, 79, 119, PrioMax-PrioMin, runq.LegacyFold)
)

// InteractRange returns PRI_INTERACT_RANGE, the number of interactive priorities: 59 in main,
// 48 in legacy, 32 in freebsd9.
func (l *Layout) InteractRange() int { return int(l.MaxInteract) - int(l.MinInteract) + 1 }

// BatchRange returns PRI_BATCH_RANGE, the number of batch priorities: 109 in main, 88 in legacy,
// 72 in freebsd9.
func (l *Layout) BatchRange() int { return int(l.MaxBatch) - int(l.MinBatch) + 1 }

// IsBatch reports whether pri lies in MinBatch..MaxBatch, the priorities that go through the
// timeshare calendar.
func (l *Layout) IsBatch(pri uint8) bool { return l.MinBatch <= pri && pri <= l.MaxBatch }

// RealtimePriority returns the priority of a real-time thread of rtprio level prio
// (RTP_PRIO_REALTIME, RTP_PRIO_FIFO; kern_resource.c rtp_to_pri): PRI_MIN_REALTIME + prio,
// prio clamped to 0..RTPPrioMax. A POSIX SCHED_FIFO/SCHED_RR priority q maps to rtprio level
// RTPPrioMax - q (p4prio_to_rtpprio).
func (l *Layout) RealtimePriority(prio int) uint8 {
	return l.MinRealtime + uint8(min(max(prio, 0), RTPPrioMax))
}

// IdlePriority returns the priority of an idprio thread of level prio (RTP_PRIO_IDLE):
// PRI_MIN_IDLE + prio, prio clamped to 0..RTPPrioMax.
func (l *Layout) IdlePriority(prio int) uint8 {
	return l.MinIdle + uint8(min(max(prio, 0), RTPPrioMax))
}

// A Class is a thread's priority class, td_pri_class (sys/sys/priority.h PRI_*), with the
// kernel's values: the FIFO bit marks a real-time class without time slicing.
type Class uint8

const (
	ClassIthd      Class = 1                            // PRI_ITHD: interrupt threads
	ClassRealtime  Class = 2                            // PRI_REALTIME: rtprio, SCHED_RR
	ClassTimeshare Class = 3                            // PRI_TIMESHARE: ordinary user threads
	ClassIdle      Class = 4                            // PRI_IDLE: idprio threads
	ClassFIFO      Class = classFIFOBit | ClassRealtime // PRI_FIFO: SCHED_FIFO
	classFIFOBit   Class = 8                            // PRI_FIFO_BIT
)

// Base returns PRI_BASE(c), the class without the FIFO bit.
func (c Class) Base() Class { return c &^ classFIFOBit }

// FIFO reports whether c has the FIFO bit (PRI_FIFO_BIT): such threads are never sliced.
func (c Class) FIFO() bool { return c&classFIFOBit != 0 }

var classNames = []string{ClassIthd: "PRI_ITHD", ClassRealtime: "PRI_REALTIME", ClassTimeshare: "PRI_TIMESHARE",
	ClassIdle: "PRI_IDLE", ClassFIFO: "PRI_FIFO"}

// String returns the kernel name of c, such as "PRI_TIMESHARE".
func (c Class) String() string { return sched.EnumName(classNames, c, "Class") }
