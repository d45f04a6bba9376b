// This file implements Params, ULE's tunables, and the presets for the kernel generations the
// seeds compare.

package ule

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
)

// Params are ULE's tunables: the sysctls under kern.sched.ule (kern.sched in legacy kernels),
// the compile-time choices that change decisions, and the knobs of the seed-000 patch. Each
// field names the variable of sched_ule.c it stands for.
//
// Fields that FreeBSD derives from the clock at boot (sched_initticks) hold a sentinel meaning
// "derive" (0 for Slice, -1 for the others); the accessor methods (SliceTicks, AffinityTicks …)
// return the derived value for Hz and StatHz.
type Params struct {
	// Name names the preset in reports, such as "ule-main".
	Name string
	// Version selects the generation of sched_ule.c: priority layout, run-queue shape, calendar
	// and formulas (Main, Legacy, FreeBSD9).
	Version Version

	// Hz is kern.hz, the rate of the hardclock tick that "ticks" counts (1000 by default).
	// The Scheduler sets it from sched.Config.Hz. It must be at least 2: at hz 1,
	// SCHED_SLP_RUN_FORK = (hz/2) << 10 is 0 and sched_interact_fork would divide by it.
	Hz int
	// StatHz is stathz, the rate of sched_clock (127 on x86); 0 means Hz (realstathz).
	// The Scheduler sets it from sched.Config.StatHz.
	StatHz int

	// Slice is kern.sched.ule.slice (sched_slice), the time-sharing slice in stathz ticks;
	// 0 derives realstathz/10 (SCHED_SLICE_DEFAULT_DIVISOR), 12 at 127 Hz. sched_slice_min is
	// always Slice/6 (SCHED_SLICE_MIN_DIVISOR): the sysctl handlers recompute it. The sysctl
	// kern.sched.ule.quantum is the same slice in microseconds, (1000000/realstathz) * sched_slice.
	Slice int
	// Interact is kern.sched.ule.interact (sched_interact, SCHED_INTERACT_THRESH = 30): threads
	// whose interactivity score plus nice is below it are interactive. It must be at least 1.
	Interact uint32
	// PreemptThresh is kern.sched.ule.preempt_thresh: a woken thread whose priority is better
	// than the threshold preempts (PRI_MIN_KERN, 40 in main, 48 in legacy, 80 in freebsd9, with options
	// PREEMPTION; 0 without; PRI_MAX_IDLE+1 in main and PRI_MAX_IDLE in legacy with
	// FULL_PREEMPTION). The seed-000 patch raised it to 224.
	PreemptThresh int
	// PreemptAtThresh makes the threshold inclusive: legacy sched_shouldpreempt tests
	// pri <= preempt_thresh, main tests pri < preempt_thresh.
	PreemptAtThresh bool
	// StaticBoost is kern.sched.ule.static_boost: the priority a time-sharing thread is raised
	// to when it sleeps (PRI_MIN_BATCH: 115 in main, 136 in legacy, 152 in freebsd9); 1 uses the sleep priority
	// passed to sched_sleep, which the model never has; 0 disables the boost.
	StaticBoost int
	// IdleSpins is kern.sched.ule.idlespins (sched_idlespins, 10000): how long an idle CPU
	// spins before halting. The model has no idle-state latency, so it changes no decision.
	IdleSpins int
	// IdleSpinThresh is kern.sched.ule.idlespinthresh; -1 derives 2*max(10000, 6*hz)/realstathz
	// (157 at hz 1000, stathz 127). Like IdleSpins it changes no decision in the model.
	IdleSpinThresh int
	// Affinity is kern.sched.ule.affinity, in hz ticks: a thread that ran within
	// level*Affinity ticks keeps cache affinity at a cache level (SCHED_AFFINITY); -1 derives
	// SCHED_AFFINITY_DEFAULT = max(1, hz/1000).
	Affinity int
	// Balance is kern.sched.ule.balance (rebalance): run the periodic load balancer.
	Balance bool
	// BalanceInterval is kern.sched.ule.balance_interval, the mean period of the balancer in
	// stathz ticks; -1 derives realstathz. The derived or given value must be at least 1.
	BalanceInterval int
	// StealIdle is kern.sched.ule.steal_idle: an idle CPU steals from a loaded one.
	StealIdle bool
	// StealThresh is kern.sched.ule.steal_thresh (2): a CPU is a victim only with at least this
	// load (running thread included). -1 derives FreeBSD 7.1-9.0's default from the CPU count,
	// min(fls(mp_ncpus) - 1, 3) (System.StealThreshold).
	StealThresh int
	// TryStealLimit is kern.sched.ule.trysteal_limit (2): how many topology levels
	// tdq_trysteal climbs when a CPU is about to go idle in sched_switch.
	TryStealLimit int
	// AlwaysSteal is kern.sched.ule.always_steal: the idle loop tries to steal on every pass,
	// not only when the switch count changed.
	AlwaysSteal bool

	// CalendarSteal is the form of runq_steal_from (tdq_steal's search of the victim's
	// time-sharing calendar) of the kernel generation modelled (see its constants). No sysctl.
	CalendarSteal CalendarSteal
	// SMP selects the generation of the multiprocessor code, SMPRework (2012 and later) or
	// SMP2008 (FreeBSD 8.0-9.0). No sysctl.
	SMP SMPCode
	// FixedSlice gives every thread the whole sched_slice, whatever the CPU's load, as before
	// the load-dependent tdq_slice (FreeBSD 9.0 and earlier); a forked child gets one tick
	// before its first reschedule (ts_slice = 1). No sysctl.
	FixedSlice bool
	// NotifyRunning makes tdq_notify compare the woken thread with the thread the remote CPU
	// runs, as FreeBSD 9.0 did, instead of the CPU's lowest priority before and after the
	// addition (NotifyThread). No sysctl.
	NotifyRunning bool
	// PickShort is kern.sched.pick_short from the 2023 patch of seed 000, which never landed:
	// a batch thread whose last run ended before its slice did (it slept or was preempted) is
	// queued by priority with the real-time-range threads instead of in the calendar. See the
	// package documentation for exactly what is modelled.
	PickShort bool
}

// DefaultParams returns the defaults of FreeBSD main as of 2026 (preset "main") for hz 1000 and
// stathz 127.
func DefaultParams() Params {
	return Params{
		Name:            "ule-main",
		Version:         Main,
		Hz:              1000,
		StatHz:          127,
		Slice:           0,
		Interact:        30,
		PreemptThresh:   int(mainLayout.MinKern),
		PreemptAtThresh: false,
		StaticBoost:     int(mainLayout.MinBatch),
		IdleSpins:       10000,
		IdleSpinThresh:  -1,
		Affinity:        -1,
		Balance:         true,
		BalanceInterval: -1,
		StealIdle:       true,
		StealThresh:     2,
		TryStealLimit:   2,
	}
}

// LegacyParams returns the defaults of the ULE that FreeBSD 13-14 shipped, as it stood in 2024
// just before the 2025 rework (preset "legacy", OlCe2/freebsd-src @366ae94e): the package
// documentation's list of presets says how it differs from main and from older 13.x code.
func LegacyParams() Params {
	p := DefaultParams()
	p.Name = "ule-legacy"
	p.Version = Legacy
	p.PreemptThresh = int(legacyLayout.MinKern)
	p.PreemptAtThresh = true
	p.StaticBoost = int(legacyLayout.MinBatch)
	p.CalendarSteal = StealSkipFirst
	return p
}

// FreeBSD9Params returns ULE as FreeBSD 9.0 shipped it (preset "freebsd9"): the kernel Steve
// Kargl measured in seed 001 (December 2011), read in 9-CURRENT's sys/kern/sched_ule.c 1.290 of
// 2011-01-14 (rodrigc/bz-vimage @191fe5570364da41649df401cb58beb5c92393c6), with Jeff Roberson's
// SMP code of 2008 that FreeBSD 8.0 shipped too (SMP2008, smp2008.go). Each field it sets is
// documented with the field; the package documentation's section on FreeBSD 9.0 describes the
// kernel they make together, where its source comes from, and what is not modelled.
func FreeBSD9Params() Params {
	p := LegacyParams()
	p.Name = "ule-freebsd9"
	p.Version = FreeBSD9
	p.PreemptThresh = int(freebsd9Layout.MinKern)
	p.StaticBoost = int(freebsd9Layout.MinBatch)
	p.SMP = SMP2008
	p.CalendarSteal = StealOneQueue
	p.StealThresh = -1
	p.TryStealLimit = 0
	p.AlwaysSteal = true
	p.FixedSlice = true
	p.NotifyRunning = true
	return p
}

// Seed000Params returns legacy ULE with the two knobs of the 2023 patch of seed 000 set as given:
// pick_short (partial-slice users queued with the real-time range) and preempt_thresh. The seed's
// table uses 48 (stock) and 224 (the patch). The four rows of the table are Seed000Params(false,
// 48), (false, 224), (true, 48) and (true, 224); the patch as proposed is the last.
func Seed000Params(pickShort bool, preemptThresh int) Params {
	p := LegacyParams()
	ps := 0
	if pickShort {
		ps = 1
	}
	p.Name = fmt.Sprintf("ule-seed000-ps%d-pt%d", ps, preemptThresh)
	p.PickShort = pickShort
	p.PreemptThresh = preemptThresh
	return p
}

// presets are the presets Preset knows.
var presets = sched.Presets[Params]{
	{Name: "main", Params: DefaultParams},
	{Name: "legacy", Params: LegacyParams},
	{Name: "freebsd9", Params: FreeBSD9Params},
	{Name: "seed000", Params: func() Params { p := Seed000Params(true, 224); p.Name = "ule-seed000"; return p }},
	{Name: "seed000-ps0-pt48", Params: func() Params { return Seed000Params(false, 48) }},
	{Name: "seed000-ps0-pt224", Params: func() Params { return Seed000Params(false, 224) }},
	{Name: "seed000-ps1-pt48", Params: func() Params { return Seed000Params(true, 48) }},
	{Name: "seed000-ps1-pt224", Params: func() Params { return Seed000Params(true, 224) }},
}

// Presets returns the names Preset accepts, sorted: "freebsd9" (FreeBSD9Params), "legacy",
// "main", "seed000" (the patch as proposed: pick_short=1, preempt_thresh=224) and
// "seed000-psX-ptY" for the four rows of the seed's table.
func Presets() []string { return presets.Names() }

// Preset returns the preset called name, or an error listing the known names.
func Preset(name string) (Params, error) { return presets.Get("ule", name) }

// Layout returns the priority layout of p.Version.
func (p *Params) Layout() Layout { return p.Version.Layout() }

// RealStatHz returns realstathz: StatHz, or Hz when StatHz is 0.
func (p *Params) RealStatHz() int {
	if p.StatHz != 0 {
		return p.StatHz
	}
	return p.Hz
}

// SliceTicks returns sched_slice in stathz ticks: Slice, or realstathz/10.
func (p *Params) SliceTicks() int {
	if p.Slice > 0 {
		return p.Slice
	}
	return p.RealStatHz() / 10
}

// SliceMinTicks returns sched_slice_min: sched_slice/6.
func (p *Params) SliceMinTicks() int { return p.SliceTicks() / 6 }

// TickIncr returns tickincr, one stathz tick in hz ticks shifted left by SCHED_TICK_SHIFT:
// max(1, (hz<<10)/realstathz), 8062 at hz 1000 and stathz 127.
func (p *Params) TickIncr() uint32 {
	return uint32(max(int32(p.Hz<<TickShift)/int32(p.RealStatHz()), 1))
}

// AffinityTicks returns affinity in hz ticks: Affinity, or max(1, hz/1000).
func (p *Params) AffinityTicks() int {
	if p.Affinity >= 0 {
		return p.Affinity
	}
	return max(1, p.Hz/1000)
}

// BalanceTicks returns balance_interval in stathz ticks: BalanceInterval, or realstathz.
func (p *Params) BalanceTicks() int {
	if p.BalanceInterval >= 0 {
		return p.BalanceInterval
	}
	return p.RealStatHz()
}

// Validate reports the first field of p that ULE cannot run with, or nil (for Hz, see the field).
func (p *Params) Validate() error {
	switch {
	case p.Version > FreeBSD9:
		return fmt.Errorf("ule: Params.Version %d is not Main, Legacy or FreeBSD9", p.Version)
	case p.Hz < 2 || p.Hz > 1_000_000:
		return fmt.Errorf("ule: Params.Hz %d is outside 2..1000000 (SCHED_SLP_RUN_FORK = (hz/2)<<10 must not be 0)", p.Hz)
	case p.StatHz < 0 || p.StatHz > 1_000_000:
		return fmt.Errorf("ule: Params.StatHz %d is outside 0..1000000", p.StatHz)
	case p.Slice < 0:
		return fmt.Errorf("ule: Params.Slice %d is negative", p.Slice)
	case p.SliceTicks() < 1:
		return fmt.Errorf("ule: the slice (realstathz/10 = %d) is below one tick; set Params.Slice", p.SliceTicks())
	case p.Interact < 1 || p.Interact > 100:
		return fmt.Errorf("ule: Params.Interact %d is outside 1..100", p.Interact)
	case p.PreemptThresh < 0 || p.PreemptThresh > PriMaxIdle+1:
		return fmt.Errorf("ule: Params.PreemptThresh %d is outside 0..256", p.PreemptThresh)
	case p.StaticBoost < 0 || p.StaticBoost > PriMaxIdle:
		return fmt.Errorf("ule: Params.StaticBoost %d is outside 0..255", p.StaticBoost)
	case p.BalanceTicks() < 1:
		return fmt.Errorf("ule: Params.BalanceInterval %d gives a balance interval below 1", p.BalanceInterval)
	case p.StealThresh < -1:
		return fmt.Errorf("ule: Params.StealThresh %d is below -1", p.StealThresh)
	case p.SMP > SMP2008:
		return fmt.Errorf("ule: Params.SMP %d is not an SMPCode constant", p.SMP)
	case p.TryStealLimit < 0:
		return fmt.Errorf("ule: Params.TryStealLimit %d is negative", p.TryStealLimit)
	case p.CalendarSteal > StealOneQueue:
		return fmt.Errorf("ule: Params.CalendarSteal %d is not a CalendarSteal constant", p.CalendarSteal)
	case p.SMP == SMP2008 && p.Version == Main:
		return fmt.Errorf("ule: Params.SMP 2008 needs Version FreeBSD9 or Legacy (the 2008 code never ran on the 256-queue layout)")
	case p.CalendarSteal == StealOneQueue && p.Version == Main:
		return fmt.Errorf("ule: Params.CalendarSteal OneQueue needs the 64-queue run queues of Version FreeBSD9 or Legacy")
	}
	return nil
}
