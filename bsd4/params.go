package bsd4

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
)

// This file implements the tunables and compile-time options of sched_4bsd.c, and the presets
// for the FreeBSD versions the seeds compare.

// A QuantumMode says how 4BSD measures the time a thread may run before the CPU is rescheduled.
type QuantumMode uint8

const (
	// SliceQuantum is the per-thread slice that FreeBSD 9.3 and later have: ts_slice counts
	// statistics ticks down from sched_slice, is refilled on every wake-up, and its expiry sets
	// TDF_SLICEEND so that the thread goes to the tail of its queue (sched_clock_tick). The
	// head-or-tail rule modelled with it is the 2021 one (sched_switch @e2650af1: the head only
	// for an SW_PREEMPT switch before the slice ended); 9.3 sent any still-running thread that
	// was switched out to the head unless its slice had ended.
	SliceQuantum QuantumMode = iota
	// SwitchQuantum is the older per-CPU quantum of FreeBSD 7 to 9.0 and the 2011-12 head: a
	// statistics tick forces a reschedule once ticks − switchticks ≥ sched_quantum, where
	// switchticks is the hz tick of the CPU's last context switch and sched_quantum is hz/10
	// (sched_clock). It took over from the roundrobin() callout run every sched_quantum (in
	// kern_synch.c around 2001, then in the KSE-era sched_4bsd.c), which 7.x no longer has, and
	// was itself replaced by SliceQuantum.
	SwitchQuantum
)

var quantumModeNames = [...]string{SliceQuantum: "slice", SwitchQuantum: "switchticks"}

// String returns "slice" or "switchticks".
func (m QuantumMode) String() string {
	return sched.EnumName(quantumModeNames[:], m, "QuantumMode")
}

// Params are 4BSD's tunables and kernel options. Every field names the sysctl or option it
// mirrors; DefaultParams returns FreeBSD main's values.
type Params struct {
	// Name names the variant in reports, such as "4bsd-main".
	Name string
	// Quantum selects the per-thread slice or the older per-CPU quantum.
	Quantum QuantumMode
	// Slice is sched_slice in statistics ticks (kern.sched.4bsd.slice; kern.sched.4bsd.quantum
	// shows it in µs). Zero means realstathz/10, about 100 ms, as sched_initticks sets it.
	// Used with SliceQuantum.
	Slice int
	// SchedQuantum is sched_quantum in hz ticks (kern.sched.quantum, in µs, in FreeBSD 9).
	// Zero means hz/10. Used with SwitchQuantum.
	SchedQuantum int
	// Preemption is options PREEMPTION (reported by kern.sched.preemption): a woken thread may
	// preempt the thread running on the CPU that woke it (maybe_preempt). GENERIC has it.
	Preemption bool
	// FullPreemption is options FULL_PREEMPTION: any better priority preempts, not only
	// interrupt threads and the idle thread.
	FullPreemption bool
	// IPIPreemption is options IPI_PREEMPTION: kick_other_cpu preempts a remote CPU with
	// IPI_PREEMPT (for interrupt-thread priorities, or any priority with FullPreemption)
	// instead of posting an AST. It is listed in sys/conf/NOTES; off here by default.
	IPIPreemption bool
	// IPIWakeup is kern.sched.ipiwakeup.enabled: a thread queued on the global run queue wakes
	// the idle CPUs with an IPI (forward_wakeup). Without it an idle CPU finds the thread only
	// at its next clock interrupt. kern.sched.ipiwakeup.usemask and .useloop choose how the
	// idle CPUs are found; in a machine without races both give the same set.
	IPIWakeup bool
	// RunqFuzz is kern.sched.runq_fuzz: sched_choose looks at the first RunqFuzz threads of the
	// best global queue for one that last ran on this CPU. 1 (the default) or less takes the
	// head.
	RunqFuzz int
	// Fold is RQ_PPQ, priorities per run queue: runq.NoFold (256 queues) in main,
	// runq.LegacyFold (64 queues) before 2025. It also enters ESTCPULIM.
	Fold runq.Fold
	// Layout is the priority layout of sys/priority.h.
	Layout Layout
	// OldLoadav is the load average of older kernels such as FreeBSD 9 (kern_synch.c
	// @282184e1): u_int arithmetic ([LoadAvg.Update32]) and a resampling interval drawn in
	// whole hz ticks ([LoadavIntervalTicks]). Current kernels compute in 64 bits and draw the
	// interval in microseconds.
	OldLoadav bool
}

// DefaultParams returns FreeBSD main's 4BSD (sched_4bsd.c after the 2025 run-queue rework,
// GENERIC kernel options): per-thread slices of realstathz/10, PREEMPTION without
// FULL_PREEMPTION or IPI_PREEMPTION, IPI wake-up of idle CPUs, runq_fuzz 1, 256 queues and
// the main priority layout.
func DefaultParams() Params {
	return Params{
		Name:       "4bsd-main",
		Quantum:    SliceQuantum,
		Preemption: true,
		IPIWakeup:  true,
		RunqFuzz:   1,
		Fold:       runq.NoFold,
		Layout:     LayoutMain(),
	}
}

// FreeBSD14Params returns 4BSD as in FreeBSD 13-14 (sched_4bsd.c @e2650af1 and
// OlCe2/freebsd-src @0aefaccd, the 2021-24 code; seed 000 compares ULE against it): the same
// algorithm as main on the legacy 64-queue run queue (RQ_PPQ = 4) and the legacy priority
// layout, so ESTCPULIM is IEW·37−1 and user priorities span PUSER+0 to PUSER+76 in steps that
// share queues four at a time.
func FreeBSD14Params() Params {
	p := DefaultParams()
	p.Name = "4bsd-14"
	p.Fold = runq.LegacyFold
	p.Layout = LayoutLegacy()
	return p
}

// FreeBSD9Params returns 4BSD as seed 001 (December 2011) measured it, read from 2012 head
// (rayddteam/freebsd-pi @282184e1: sched_4bsd.c with cpuset_t masks and sched_quantum):
//   - the per-CPU quantum (SwitchQuantum): a reschedule once hz/10 hz ticks have passed since
//     the CPU's last context switch, instead of a per-thread slice; wake-ups do not refill it;
//   - a thread switched out with SW_PREEMPT always goes back to the head of its queue (there is
//     no TDF_SLICEEND to send a thread whose time ran out to the tail);
//   - RQ_PPQ = 4 (64 queues) and the 2011 priority layout (PUSER = 120);
//   - the load average in u_int arithmetic, resampled after a whole number of hz ticks
//     (OldLoadav).
//
// estcpu, schedcpu, updatepri, forward_wakeup, kick_other_cpu and runq_fuzz are the same code in
// both. Not modelled are four smaller differences of that code: its maybe_preempt switches to
// the woken thread itself (sched_add then does not queue it) and is skipped for SRQ_YIELDING,
// its sched_switch keeps TDF_NEEDRESCHED across an SW_PREEMPT switch, and its sched_pickcpu
// lacks the td_lastcpu != NOCPU test; they matter only for preempting idle CPUs or with
// FULL_PREEMPTION. FreeBSD 9.3 already has the per-thread
// slice (dcui/FreeBSD-9.3_kernel @80871985), so the change came after the 2012 head read here
// and reached the 9 branch by 9.3; the commit itself was not found in the sources available.
func FreeBSD9Params() Params {
	p := DefaultParams()
	p.Name = "4bsd-9"
	p.Quantum = SwitchQuantum
	p.OldLoadav = true
	p.Fold = runq.LegacyFold
	p.Layout = Layout2011()
	return p
}

// presets are the presets Preset knows.
var presets = sched.Presets[Params]{
	{Name: "main", Params: DefaultParams},
	{Name: "freebsd14", Params: FreeBSD14Params},
	{Name: "freebsd9", Params: FreeBSD9Params},
}

// Presets returns the names Preset accepts, sorted: "freebsd14" (FreeBSD14Params), "freebsd9"
// (FreeBSD9Params) and "main" (DefaultParams).
func Presets() []string { return presets.Names() }

// Preset returns the preset called name, or an error listing the known names.
func Preset(name string) (Params, error) { return presets.Get(pkg, name) }

// Validate reports the first field of p that is out of range, or nil.
func (p *Params) Validate() error {
	switch {
	case p.Quantum > SwitchQuantum:
		return fmt.Errorf("bsd4: invalid quantum mode %d", p.Quantum)
	case p.Slice < 0:
		return fmt.Errorf("bsd4: negative slice %d", p.Slice)
	case p.SchedQuantum < 0:
		return fmt.Errorf("bsd4: negative sched_quantum %d", p.SchedQuantum)
	case p.Fold != runq.NoFold && p.Fold != runq.LegacyFold:
		return fmt.Errorf("bsd4: RQ_PPQ %d is neither 1 nor 4", p.Fold)
	case p.FullPreemption && !p.Preemption:
		return errors.New("bsd4: FULL_PREEMPTION requires PREEMPTION")
	case p.IPIPreemption && !p.Preemption:
		return errors.New("bsd4: IPI_PREEMPTION requires PREEMPTION")
	}
	l := p.Layout
	if !(l.MaxITHD < l.MinRealtime && int(l.MinRealtime)+32 <= int(l.MinKern) &&
		l.MinKern < l.MinTimeshare && int(l.MinTimeshare)+80 <= int(l.MinIdle)) {
		return fmt.Errorf("bsd4: priority layout %+v is not ordered ITHD < REALTIME (32 levels) < KERN < TIMESHARE (80 levels) < IDLE", l)
	}
	return nil
}
