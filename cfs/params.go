// This file implements Params, the kernel's fair-class tunables and scheduler features, and the
// named presets.

package cfs

import (
	"fmt"
	"math/bits"
)

// A Version names a kernel release whose fair-class behaviour a [Params] preset reproduces.
type Version uint8

const (
	// V65 is Linux v6.5, the last release with classic CFS (before EEVDF, v6.6).
	V65 Version = iota + 1
)

// String returns the release name, for example "v6.5".
func (v Version) String() string {
	switch v {
	case V65:
		return "v6.5"
	}
	return fmt.Sprintf("Version(%d)", uint8(v))
}

// A TunableScaling is how the kernel scales its latency tunables with the number of CPUs:
// sysctl_sched_tunable_scaling (debugfs sched/tunable_scaling).
type TunableScaling uint8

const (
	// ScalingNone is SCHED_TUNABLESCALING_NONE: factor 1.
	ScalingNone TunableScaling = iota
	// ScalingLog is SCHED_TUNABLESCALING_LOG, the default: factor 1 + ilog2(min(ncpus, 8)).
	ScalingLog
	// ScalingLinear is SCHED_TUNABLESCALING_LINEAR: factor min(ncpus, 8).
	ScalingLinear
)

// ScaleFactor returns the factor the kernel multiplies sched_latency, sched_min_granularity and
// sched_wakeup_granularity by on a machine with ncpus online CPUs: get_update_sysctl_factor.
// With the default [ScalingLog] that is 1 for 1 CPU, 2 for 2-3, 3 for 4-7 and 4 from 8 CPUs on.
// ScaleFactor panics if ncpus < 1 or s is not a known scaling.
func ScaleFactor(s TunableScaling, ncpus int) uint64 {
	if ncpus < 1 {
		panic(fmt.Sprintf("cfs: ScaleFactor: %d CPUs", ncpus))
	}
	cpus := uint(min(ncpus, 8))
	switch s {
	case ScalingNone:
		return 1
	case ScalingLog:
		return uint64(bits.Len(cpus)) // 1 + ilog2(cpus)
	case ScalingLinear:
		return uint64(cpus)
	}
	panic(fmt.Sprintf("cfs: ScaleFactor: unknown scaling %d", s))
}

// Base values of the scaled tunables before CPU-count scaling (normalized_sysctl_* in
// kernel/sched/fair.c, v6.5), in nanoseconds.
const (
	baseLatency           = 6_000_000
	baseMinGranularity    = 750_000
	baseWakeupGranularity = 1_000_000
)

// Params are the fair-class tunables and feature flags of one kernel version. Time values are
// in nanoseconds and already scaled by the CPU count, as the kernel's sysctl_* variables are
// (debugfs /sys/kernel/debug/sched/*_ns in v6.5). A Params is a small value; policies take it by
// value and never modify it.
type Params struct {
	// Version is the kernel release these parameters reproduce.
	Version Version

	// CalcDelta is the 64-bit form of __calc_delta: DeltaWMult up to v7.0, DeltaDiv since
	// commit db4551e2ba34 (v7.1).
	CalcDelta DeltaMethod

	// Latency is sysctl_sched_latency (debugfs sched/latency_ns): the period in which every
	// runnable entity should run once while there are at most NrLatency of them.
	Latency uint64

	// MinGranularity is sysctl_sched_min_granularity (debugfs sched/min_granularity_ns): the
	// shortest slice, the period per entity beyond NrLatency entities, and the shortest run
	// before the tick may preempt for a vruntime lead.
	MinGranularity uint64

	// IdleMinGranularity is sysctl_sched_idle_min_granularity (debugfs
	// sched/idle_min_granularity_ns): the shortest slice of an idle entity competing with
	// non-idle ones. It is not scaled by the CPU count.
	IdleMinGranularity uint64

	// WakeupGranularity is sysctl_sched_wakeup_granularity (debugfs
	// sched/wakeup_granularity_ns): the vruntime lead, in nice-0 time, a wakee needs over the
	// running entity to preempt it.
	WakeupGranularity uint64

	// NrLatency is sched_nr_latency, Latency/MinGranularity rounded up: the number of entities
	// beyond which the period stretches. The kernel recomputes it only when the sysctls are
	// written, so it stays 8 at boot whatever the CPU count.
	NrLatency uint64

	// ChildRunsFirst is kernel.sched_child_runs_first: a forked child swaps vruntime with its
	// parent when the parent's is earlier.
	ChildRunsFirst bool

	// GentleFairSleepers is sched_feat GENTLE_FAIR_SLEEPERS: a waking sleeper's credit is half
	// of Latency (of MinGranularity for idle entities) instead of all of it.
	GentleFairSleepers bool

	// StartDebit is sched_feat START_DEBIT: a forked task starts one virtual slice after
	// min_vruntime.
	StartDebit bool

	// NextBuddy is sched_feat NEXT_BUDDY: mark a wakee as the next buddy when the queue is
	// crowded (at least NrLatency entities).
	NextBuddy bool

	// LastBuddy is sched_feat LAST_BUDDY: remember a task preempted by a wakeup as the last
	// buddy, to return the CPU to it for cache locality.
	LastBuddy bool

	// WakeupPreemption is sched_feat WAKEUP_PREEMPTION: a waking SCHED_NORMAL task may preempt
	// the running one.
	WakeupPreemption bool

	// AltPeriod is sched_feat ALT_PERIOD: the period counts every fair task on the CPU
	// (rq->cfs.h_nr_running) instead of the entities of the entity's own queue.
	AltPeriod bool

	// BaseSlice is sched_feat BASE_SLICE: floor every slice at MinGranularity
	// (IdleMinGranularity for an idle entity in a queue that is not all idle).
	BaseSlice bool

	// FavorNonIdleTick is the option proposed in seed 004's patch "sched/fair: favor non-idle
	// group in tick preemption" (Chuyi Zhou, October 2022, not merged): the tick does not
	// preempt a non-idle running entity for a vruntime lead over an idle leftmost entity, so the
	// non-idle entity runs out its ideal slice. It is off in every preset.
	FavorNonIdleTick bool
}

// Preset returns the parameters of kernel version v on a machine with ncpus online CPUs, with
// the default logarithmic tunable scaling and the default sched features. Preset panics if v is
// not a known version or ncpus < 1.
func Preset(v Version, ncpus int) Params {
	f := ScaleFactor(ScalingLog, ncpus)
	switch v {
	case V65:
		return Params{
			Version:            V65,
			CalcDelta:          DeltaWMult,
			Latency:            baseLatency * f,
			MinGranularity:     baseMinGranularity * f,
			IdleMinGranularity: 750_000,
			WakeupGranularity:  baseWakeupGranularity * f,
			NrLatency:          8,
			GentleFairSleepers: true,
			StartDebit:         true,
			LastBuddy:          true,
			WakeupPreemption:   true,
			AltPeriod:          true,
			BaseSlice:          true,
		}
	}
	panic(fmt.Sprintf("cfs: Preset: unknown version %d", v))
}

// DefaultParams returns Preset(V65, 1): classic CFS with the unscaled tunables (latency 6 ms,
// minimum granularity 0.75 ms, wakeup granularity 1 ms).
func DefaultParams() Params { return Preset(V65, 1) }
