// This file implements Params, the kernel's fair-class tunables and scheduler features, and the
// named presets.

package cfs

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
)

// A Version names a kernel release whose fair-class behaviour a [Params] preset reproduces.
type Version uint8

const (
	// V65 is Linux v6.5, the last release with classic CFS (before EEVDF, v6.6).
	V65 Version = iota + 1
	// V66 is Linux v6.6, the first release with EEVDF: the timeline ordered by vruntime with
	// the minimum deadline of each subtree, lag kept in weights scaled down to 1024 for nice 0,
	// RUN_TO_PARITY as the "deadline stashed in vlag" rule.
	V66
	// V618 is Linux v6.18 (v6.18.35, kernel/sched/fair.c blob 7e0e2044d840, the kernel of
	// the CI host): v7.1's structure (the timeline ordered by deadline with the minimum
	// vruntime of each subtree, zero_vruntime, custom slices, slice protection, PREEMPT_SHORT,
	// the wakeup rules of set_preempt_buddy, delayed dequeue) with v6.6's arithmetic (weights
	// scaled down to 1024 for nice 0 in the average, div_s64, eligibility products in
	// wrapping s64, the multiplying __calc_delta), and v6.18's own rules where they differ:
	// place_entity never moves zero_vruntime; dequeue_entity does not save the lag of an
	// entity it delays, finish_delayed_dequeue_entity only clips a positive lag to 0 (no
	// "never more negative" rule), requeue_delayed_entity moves a woken delayed entity only
	// for a positive lag, to V; reweight_entity keeps the deadline relative to the entity's
	// vruntime and puts it back with place_entity (lag inflated by (W + w)/W); pick_eevdf
	// takes an eligible next buddy (PICK_BUDDY) even when it ignores slice protection; and a
	// PREEMPT_WAKEUP_SHORT preemption leaves the buddies alone. No 6.18.36 to 6.18.44 fair.c
	// could be compared (the CI host runs 6.18.44); public reports of that kernel say it
	// still re-places a reweighted entity with place_entity, the upstream revert of that
	// rule (commit 101f3498b4bd) first reaching the 6.18 stable branch in 6.18.45.
	V618
	// V71 is Linux v7.1 (v7.1.5): EEVDF with the timeline ordered by deadline and the minimum
	// vruntime of each subtree, full-resolution weights with a moving zero_vruntime, custom
	// slices (sched_attr.sched_runtime), slice protection, PREEMPT_SHORT and PICK_BUDDY, and the
	// dividing __calc_delta.
	V71
)

var versionNames = [...]string{V65: "v6.5", V66: "v6.6", V618: "v6.18", V71: "v7.1"}

// String returns the release name, for example "v6.5".
func (v Version) String() string { return sched.EnumName(versionNames[:], v, "Version") }

// EEVDF reports whether v picks with EEVDF (v6.6 and later) rather than classic CFS.
func (v Version) EEVDF() bool { return v >= V66 }

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

// scaleFactor returns the factor the kernel multiplies sched_latency, sched_min_granularity and
// sched_wakeup_granularity by on a machine with ncpus online CPUs: get_update_sysctl_factor.
// With the default [ScalingLog] that is 1 for 1 CPU, 2 for 2-3, 3 for 4-7 and 4 from 8 CPUs on.
// scaleFactor panics if ncpus < 1 or s is not a known scaling.
func scaleFactor(s TunableScaling, ncpus int) uint64 {
	if ncpus < 1 {
		panic(fmt.Sprintf("cfs: Params.ForCPUs: %d CPUs", ncpus))
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
	panic(fmt.Sprintf("cfs: Params.ForCPUs: unknown scaling %d", s))
}

// Base values of the scaled tunables before CPU-count scaling (normalized_sysctl_* in
// kernel/sched/fair.c), in nanoseconds: v6.5's latency, granularities, and the EEVDF base slice
// of v6.6 (0.75 ms) and v7.1 (0.70 ms, commit 2ae891b82695).
const (
	baseLatency           = 6_000_000
	baseMinGranularity    = 750_000
	baseWakeupGranularity = 1_000_000
	baseSliceV66          = 750_000
	baseSliceV71          = 700_000
)

// TickNSec returns TICK_NSEC, the length in nanoseconds of a scheduler tick at hz ticks per
// second: (10^9 + hz/2) / hz, so 1000000 at HZ=1000 and 4000000 at HZ=250. EEVDF uses it in
// the lag clamp. TickNSec panics if hz < 1.
func TickNSec(hz uint64) uint64 {
	if hz < 1 {
		panic(fmt.Sprintf("cfs: TickNSec: HZ %d", hz))
	}
	return (1_000_000_000 + hz/2) / hz
}

// Params are the fair class's tunables and feature flags of one kernel version, and those of
// its multiprocessor code ([smp.Params]). Time values are in nanoseconds. They are the values the
// decisions use, as the kernel's sysctl_* variables are (debugfs /sys/kernel/debug/sched/*_ns
// in v6.5): a [Scheduler] multiplies the CPU-count-scaled ones (Latency, MinGranularity,
// WakeupGranularity, DefaultSlice) by the factor Scaling gives for its machine when it starts
// ([Params.ForCPUs], the kernel's update_sysctl at boot); a preset is the one-CPU form, factor 1.
// Params are read through a pointer and never modified by the package; [Params.Validate] tells
// whether they make sense for their Version.
type Params struct {
	// Name names the parameters in reports, such as "cfs-v7.1".
	Name string

	// Version is the kernel release these parameters reproduce.
	Version Version

	// Scaling is sysctl_sched_tunable_scaling: how [Params.ForCPUs] scales Latency,
	// MinGranularity, WakeupGranularity and DefaultSlice with the number of CPUs. ForCPUs
	// returns Params with ScalingNone, so that scaling them again changes nothing.
	Scaling TunableScaling

	// SMP are the tunables of load balancing and wakeup placement.
	SMP smp.Params

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

	// NextBuddy is sched_feat NEXT_BUDDY: mark a wakee as the next buddy. v6.5 does it only
	// when the queue is crowded (at least NrLatency entities); v6.6 on every wakeup that is not
	// a fork; v7.1 through set_preempt_buddy, which keeps an existing buddy whose deadline is
	// earlier than the wakee's.
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

	// DefaultSlice is sysctl_sched_base_slice (debugfs sched/base_slice_ns), EEVDF only: the
	// request size r, in wall-clock nanoseconds, of every entity without a custom slice; its
	// virtual deadline is set r/w after its vruntime. It is 0.75 ms (v6.6) or 0.70 ms (v7.1)
	// times the CPU-count factor.
	DefaultSlice uint64

	// NormalizedSlice is normalized_sysctl_sched_base_slice, DefaultSlice before CPU-count
	// scaling. v7.1 protects a picked entity for this long when RUN_TO_PARITY is off.
	NormalizedSlice uint64

	// Tick is TICK_NSEC ([TickNSec]): the lag clamp of EEVDF allows a virtual lag of at least
	// one tick. The presets assume HZ=1000.
	Tick uint64

	// PlaceLag is sched_feat PLACE_LAG (EEVDF): an entity joining a queue keeps the virtual lag
	// it had when it left (inflated by (W+w)/W so that it survives its own arrival), instead of
	// starting at the queue's average vruntime.
	PlaceLag bool

	// PlaceDeadlineInitial is sched_feat PLACE_DEADLINE_INITIAL (EEVDF): a new task's first
	// deadline is only half a virtual slice away. In v6.6 it has no effect on forked tasks (see
	// [RunQueue.Fork]).
	PlaceDeadlineInitial bool

	// PlaceRelDeadline is sched_feat PLACE_REL_DEADLINE (v7.1): an entity dequeued without
	// sleeping (a renice, a migration) keeps its deadline relative to its vruntime and gets it
	// back when it is enqueued again.
	PlaceRelDeadline bool

	// RunToParity is sched_feat RUN_TO_PARITY (EEVDF). In v6.6 a picked entity keeps the CPU
	// while it stays eligible and has not finished its request; in v7.1 it is protected from
	// preemption until its vruntime reaches its protection point (vprot: its deadline, or the
	// shortest slice on the queue converted with its weight, whichever comes first).
	RunToParity bool

	// PreemptShort is sched_feat PREEMPT_SHORT (v7.1): a waking entity with a shorter slice than
	// the running one is judged without the running entity's slice protection, and if it wins
	// it cancels that protection.
	PreemptShort bool

	// PickBuddy is sched_feat PICK_BUDDY (v7.1): the next buddy, if eligible, is picked before
	// the earliest deadline (never when slice protection is being ignored).
	PickBuddy bool

	// DelayDequeue is sched_feat DELAY_DEQUEUE (v7.1): a task that goes to sleep while it is
	// not eligible (it has negative lag) stays on its queue, competing but never run, until it
	// is picked (then it leaves for real) or woken (then it simply stays). Lag is thereby burnt
	// off while sleeping instead of being carried to the next wakeup.
	DelayDequeue bool

	// DelayZero is sched_feat DELAY_ZERO (v7.1): an entity whose dequeue was delayed leaves
	// with its lag clipped to at most 0.
	DelayZero bool

	// FavorNonIdleTick is the option proposed in seed 004's patch "sched/fair: favor non-idle
	// group in tick preemption" (Chuyi Zhou, October 2022, not merged): the tick does not
	// preempt a non-idle running entity for a vruntime lead over an idle leftmost entity, so the
	// non-idle entity runs out its ideal slice. It is off in every preset.
	FavorNonIdleTick bool
}

// defaultSMPParams returns the SMP tunables and features of kernel version v: those of v6.5,
// migration cost 500 µs, nr_migrate 32, CACHE_HOT_BUDDY, WA_IDLE, WA_WEIGHT, WA_BIAS and
// SIS_UTIL on, LB_MIN off, CONFIG_PREEMPTION's one-task newly idle pull, and per-CPU group
// construction (features.h blob ee7f23c76bd3, the sysctls of fair.c), the same in v7.1
// (features.h blob 8f0dee8fc475), and from v6.18 on can_migrate_task's delayed-dequeue and
// eligibility tests (MigrateDelayed, MigrateIneligible; fair.c blobs 7e0e2044d840 of v6.18.35
// and abb76775aa72 of v7.1). Every
// [Preset] holds its version's in Params.SMP.
func defaultSMPParams(v Version) smp.Params {
	return smp.Params{
		MigrationCost:     500_000,
		NrMigrate:         32,
		CacheHotBuddy:     true,
		WAIdle:            true,
		WAWeight:          true,
		WABias:            true,
		SISUtil:           true,
		NewidleOnePull:    true,
		Groups:            smp.GroupsPerCPU,
		MigrateDelayed:    v >= V618,
		MigrateIneligible: v >= V618,
	}
}

// versionParams returns the preset of kernel version v on one CPU (factor 1, Scaling
// ScalingLog), with the default sched features, and reports false for an unknown version.
func versionParams(v Version) (Params, bool) {
	p := Params{Name: "cfs-" + v.String(), Version: v, Scaling: ScalingLog, SMP: defaultSMPParams(v)}
	switch v {
	case V65:
		p.CalcDelta = DeltaWMult
		p.Latency = baseLatency
		p.MinGranularity = baseMinGranularity
		p.IdleMinGranularity = 750_000
		p.WakeupGranularity = baseWakeupGranularity
		p.NrLatency = 8
		p.GentleFairSleepers = true
		p.StartDebit = true
		p.LastBuddy = true
		p.WakeupPreemption = true
		p.AltPeriod = true
		p.BaseSlice = true
	case V66: // kernel/sched/features.h blob f770168230ae
		p.setEEVDF(DeltaWMult, baseSliceV66)
	case V618, V71: // kernel/sched/features.h blobs 136a6584be79 (v6.18.35), 8f0dee8fc475 (v7.1)
		p.setEEVDF(DeltaDiv, baseSliceV71)
		if v == V618 {
			p.CalcDelta = DeltaWMult // fair.c blob 7e0e2044d840: __calc_delta with inv_weight
		}
		p.PlaceRelDeadline = true
		p.PreemptShort = true
		p.PickBuddy = true
		p.DelayDequeue = true
		p.DelayZero = true
	default:
		return Params{}, false
	}
	return p, true
}

// setEEVDF sets what the EEVDF presets share: the __calc_delta form d, the base slice (default
// and normalized), a tick at HZ=1000, and the features both features.h blobs turn on:
// PLACE_LAG, PLACE_DEADLINE_INITIAL, RUN_TO_PARITY and WAKEUP_PREEMPTION.
func (p *Params) setEEVDF(d DeltaMethod, slice uint64) {
	p.CalcDelta = d
	p.DefaultSlice = slice
	p.NormalizedSlice = slice
	p.Tick = TickNSec(1000)
	p.PlaceLag = true
	p.PlaceDeadlineInitial = true
	p.RunToParity = true
	p.WakeupPreemption = true
}

// presetVersions are the versions [Presets] lists, in order.
var presetVersions = [...]Version{V65, V66, V618, V71}

// Presets returns the names of the presets [Preset] knows, one per kernel version in release
// order: "v6.5" (classic CFS), "v6.6", "v6.18" and "v7.1" (EEVDF).
func Presets() []string {
	names := make([]string, len(presetVersions))
	for i, v := range presetVersions {
		names[i] = v.String()
	}
	return names
}

// Preset returns the parameters of the kernel version called name ("v6.5", "v6.6", "v6.18" or
// "v7.1", see [Presets]) as that kernel boots on one CPU: the default sched features, the default
// logarithmic tunable scaling (a [Scheduler] applies it for its machine, [Params.ForCPUs] for any
// CPU count: a 6 ms latency on one CPU is 24 ms from 8 CPUs on), and the SMP defaults of the
// version (the v6.5 balancer's, with can_migrate_task's delayed-dequeue and eligibility tests,
// [smp.Params] MigrateDelayed and MigrateIneligible, in the v6.18 and v7.1 presets). For the EEVDF
// versions the classic tunables (Latency, MinGranularity, IdleMinGranularity, WakeupGranularity,
// NrLatency) are 0, because those kernels removed them; v7.1's HRTICK, which the model does not
// implement, is absent, as if switched off. Preset returns an error naming the known presets if
// name is not one of them.
func Preset(name string) (Params, error) {
	for _, v := range presetVersions {
		if v.String() == name {
			p, _ := versionParams(v)
			return p, nil
		}
	}
	return Params{}, fmt.Errorf("cfs: unknown preset %q (known: %s)", name, strings.Join(Presets(), ", "))
}

// ForCPUs returns p as the kernel sets it on a machine with ncpus online CPUs (update_sysctl):
// Latency, MinGranularity, WakeupGranularity and DefaultSlice multiplied by
// get_update_sysctl_factor's factor for p.Scaling and ncpus (1, 1+ilog2(min(ncpus, 8)) or
// min(ncpus, 8)), and Scaling set to ScalingNone so that the values are used
// as they are from then on. IdleMinGranularity, NrLatency (the kernel recomputes it only when
// a sysctl is written) and NormalizedSlice are not scaled. ForCPUs panics if ncpus < 1 or
// p.Scaling is not a known scaling.
func (p Params) ForCPUs(ncpus int) Params {
	f := scaleFactor(p.Scaling, ncpus)
	p.Latency *= f
	p.MinGranularity *= f
	p.WakeupGranularity *= f
	p.DefaultSlice *= f
	p.Scaling = ScalingNone
	return p
}

// DefaultParams returns the "v6.5" [Preset]: classic CFS with the unscaled tunables (latency
// 6 ms, minimum granularity 0.75 ms, wakeup granularity 1 ms), scaled with the CPU count by a
// Scheduler.
func DefaultParams() Params {
	p, _ := versionParams(V65)
	return p
}

// maxTunable is the largest time tunable Validate accepts, one second: the bound the kernel's
// sysctl tables put on sched_latency_ns, sched_min_granularity_ns and
// sched_wakeup_granularity_ns before they moved to debugfs (max_sched_granularity_ns,
// max_wakeup_granularity_ns = NSEC_PER_SEC). Scaled by at most 8, it keeps every product with a
// weight (at most 88761<<10, below 2^27) far inside 64 bits.
const maxTunable = 1_000_000_000

// Validate reports the first field of p that is out of range or has no meaning in p.Version,
// or nil. Every time tunable must be at most one second; classic CFS (v6.5) needs a positive
// Latency, MinGranularity and NrLatency and none of EEVDF's fields or features; EEVDF needs a
// positive DefaultSlice, NormalizedSlice and Tick and none of classic CFS's tunables or
// features (Latency, MinGranularity, IdleMinGranularity, WakeupGranularity, NrLatency,
// ChildRunsFirst, GentleFairSleepers, StartDebit, LastBuddy, AltPeriod, BaseSlice and seed
// 004's FavorNonIdleTick, which is a rule of classic CFS's tick); v6.6 has none of the later
// features (PlaceRelDeadline, PreemptShort, PickBuddy, DelayDequeue, DelayZero, and
// SMP.migrateDelayed), and SMP.migrateIneligible needs EEVDF's eligibility.
func (p *Params) Validate() error {
	switch {
	case p.Version < V65 || p.Version > V71:
		return fmt.Errorf("cfs: Params.Version %d is not V65, V66, V618 or V71", uint8(p.Version))
	case p.CalcDelta != DeltaWMult && p.CalcDelta != DeltaDiv:
		return fmt.Errorf("cfs: Params.CalcDelta %d is not DeltaWMult or DeltaDiv", uint8(p.CalcDelta))
	case p.Scaling > ScalingLinear:
		return fmt.Errorf("cfs: Params.Scaling %d is not a known tunable scaling", uint8(p.Scaling))
	case p.SMP.Groups > smp.GroupsFirstCPU:
		return fmt.Errorf("cfs: Params.SMP.Groups %d is not a known group construction", uint8(p.SMP.Groups))
	case p.SMP.MigrationCost < -1:
		return fmt.Errorf("cfs: Params.SMP.MigrationCost %d is below -1", p.SMP.MigrationCost)
	case p.SMP.NrMigrate < 0:
		return fmt.Errorf("cfs: Params.SMP.NrMigrate %d is negative", p.SMP.NrMigrate)
	}
	for _, t := range [...]struct {
		name string
		v    uint64
	}{
		{"Latency", p.Latency}, {"MinGranularity", p.MinGranularity},
		{"IdleMinGranularity", p.IdleMinGranularity}, {"WakeupGranularity", p.WakeupGranularity},
		{"DefaultSlice", p.DefaultSlice}, {"NormalizedSlice", p.NormalizedSlice}, {"Tick", p.Tick},
	} {
		if t.v > maxTunable {
			return fmt.Errorf("cfs: Params.%s %d ns is more than one second", t.name, t.v)
		}
	}
	return p.validateVersion()
}

// validateVersion checks that p sets what its Version needs and nothing that has no meaning
// in it: classic CFS's latency period and granularities, or EEVDF's slices and features (v6.6
// has none of v6.12's).
func (p *Params) validateVersion() error {
	type field struct {
		name string
		set  bool
	}
	meaningless := func(fs []field, why string) error {
		for _, f := range fs {
			if f.set {
				return fmt.Errorf("cfs: Params.%s has no meaning in %v: %s", f.name, p.Version, why)
			}
		}
		return nil
	}
	unset := func(fs []field) error {
		for _, f := range fs {
			if !f.set {
				return fmt.Errorf("cfs: Params.%s is 0 in %v", f.name, p.Version)
			}
		}
		return nil
	}
	if p.Version == V65 {
		if err := unset([]field{
			{"Latency", p.Latency != 0}, {"MinGranularity", p.MinGranularity != 0}, {"NrLatency", p.NrLatency != 0},
		}); err != nil {
			return err
		}
		return meaningless([]field{
			{"DefaultSlice", p.DefaultSlice != 0}, {"NormalizedSlice", p.NormalizedSlice != 0},
			{"Tick", p.Tick != 0}, {"PlaceLag", p.PlaceLag},
			{"PlaceDeadlineInitial", p.PlaceDeadlineInitial}, {"PlaceRelDeadline", p.PlaceRelDeadline},
			{"RunToParity", p.RunToParity}, {"PreemptShort", p.PreemptShort},
			{"PickBuddy", p.PickBuddy}, {"DelayDequeue", p.DelayDequeue}, {"DelayZero", p.DelayZero},
			{"SMP.MigrateDelayed", p.SMP.MigrateDelayed}, {"SMP.MigrateIneligible", p.SMP.MigrateIneligible},
		}, "an EEVDF parameter, and this is classic CFS")
	}
	if err := unset([]field{
		{"DefaultSlice", p.DefaultSlice != 0}, {"NormalizedSlice", p.NormalizedSlice != 0}, {"Tick", p.Tick != 0},
	}); err != nil {
		return err
	}
	if err := meaningless([]field{
		{"Latency", p.Latency != 0}, {"MinGranularity", p.MinGranularity != 0},
		{"IdleMinGranularity", p.IdleMinGranularity != 0}, {"WakeupGranularity", p.WakeupGranularity != 0},
		{"NrLatency", p.NrLatency != 0}, {"ChildRunsFirst", p.ChildRunsFirst},
		{"GentleFairSleepers", p.GentleFairSleepers}, {"StartDebit", p.StartDebit},
		{"LastBuddy", p.LastBuddy}, {"AltPeriod", p.AltPeriod}, {"BaseSlice", p.BaseSlice},
		{"FavorNonIdleTick", p.FavorNonIdleTick},
	}, "a classic CFS parameter, and EEVDF has no latency period, granularities or tick preemption rule"); err != nil {
		return err
	}
	if p.Version == V66 {
		return meaningless([]field{
			{"PlaceRelDeadline", p.PlaceRelDeadline}, {"PreemptShort", p.PreemptShort},
			{"PickBuddy", p.PickBuddy}, {"DelayDequeue", p.DelayDequeue}, {"DelayZero", p.DelayZero},
			{"SMP.MigrateDelayed", p.SMP.MigrateDelayed},
		}, "a feature of v6.12 and later")
	}
	return nil
}
