// This file implements the weight tables and load scaling: the kernel's sched_prio_to_weight,
// sched_prio_to_wmult, scale_load, scale_load_down and set_load_weight.

package cfs

import "fmt"

// Fixed-point constants of the 64-bit kernel (kernel/sched/sched.h, v6.5 and v7.1).
const (
	// fixedPointShift is SCHED_FIXEDPOINT_SHIFT, the extra resolution 64-bit kernels give loads.
	fixedPointShift = 10
	// NiceZeroLoad is NICE_0_LOAD, the weight of a nice-0 task in load units: 1<<20 on 64-bit.
	NiceZeroLoad uint64 = 1 << (2 * fixedPointShift)
	// weightIdlePrio is WEIGHT_IDLEPRIO, the unscaled weight of a SCHED_IDLE task and of an idle
	// task group.
	weightIdlePrio uint64 = 3
	// wMultIdlePrio is WMULT_IDLEPRIO, the precomputed inverse (2^32/3) installed with
	// [weightIdlePrio].
	wMultIdlePrio uint32 = 1431655765
	// minShares is MIN_SHARES, the unscaled floor of a group entity's weight.
	minShares uint64 = 2
	// maxShares is MAX_SHARES, the unscaled ceiling of a task group's shares.
	maxShares uint64 = 1 << 18
)

// Nice bounds: MIN_NICE and MAX_NICE (Linux's; package sched's MaxNice is FreeBSD's PRIO_MAX, 20).
const (
	minNice = -20
	maxNice = 19
)

// prioToWeight is sched_prio_to_weight[40] of kernel/sched/core.c (identical in v6.5, v6.6 and
// v7.1), indexed by nice+20. Neighbouring entries differ by a factor of about 1.25, which makes
// one nice step worth about 10% of CPU time between two competing tasks.
var prioToWeight = [40]uint32{
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */ 9548, 7620, 6100, 4904, 3906,
	/*  -5 */ 3121, 2501, 1991, 1586, 1277,
	/*   0 */ 1024, 820, 655, 526, 423,
	/*   5 */ 335, 272, 215, 172, 137,
	/*  10 */ 110, 87, 70, 56, 45,
	/*  15 */ 36, 29, 23, 18, 15,
}

// prioToWMult is sched_prio_to_wmult[40] of kernel/sched/core.c: 2^32/weight rounded to the
// nearest integer, indexed by nice+20.
var prioToWMult = [40]uint32{
	/* -20 */ 48388, 59856, 76040, 92818, 118348,
	/* -15 */ 147320, 184698, 229616, 287308, 360437,
	/* -10 */ 449829, 563644, 704093, 875809, 1099582,
	/*  -5 */ 1376151, 1717300, 2157191, 2708050, 3363326,
	/*   0 */ 4194304, 5237765, 6557202, 8165337, 10153587,
	/*   5 */ 12820798, 15790321, 19976592, 24970740, 31350126,
	/*  10 */ 39045157, 49367440, 61356676, 76695844, 95443717,
	/*  15 */ 119304647, 148102320, 186737708, 238609294, 286331153,
}

func checkNice(fn string, nice int) {
	if nice < minNice || nice > maxNice {
		panic(fmt.Sprintf("cfs: %s: nice %d outside [%d, %d]", fn, nice, minNice, maxNice))
	}
}

// Weight returns the unscaled weight of nice level nice: sched_prio_to_weight[nice+20]
// (1024 for nice 0). Weight panics if nice is outside -20..19 (MIN_NICE..MAX_NICE).
func Weight(nice int) uint64 {
	checkNice("Weight", nice)
	return uint64(prioToWeight[nice-minNice])
}

// invWeightOf returns the precomputed inverse of [Weight](nice), sched_prio_to_wmult[nice+20]
// (2^32/1024 = 4194304 for nice 0), which [TaskLoad] caches in a task's load ([LoadWeight.Inverse]
// reads it). It panics if nice is outside -20..19 (MIN_NICE..MAX_NICE).
func invWeightOf(nice int) uint32 {
	checkNice("invWeightOf", nice)
	return prioToWMult[nice-minNice]
}

// ScaleLoad converts an unscaled weight to load units: the kernel's scale_load, w << 10.
func ScaleLoad(w uint64) uint64 { return w << fixedPointShift }

// ScaleLoadDown converts a load back to an unscaled weight: the kernel's 64-bit
// scale_load_down, which is 0 for 0 and otherwise max(2, w >> 10). The floor of 2 keeps tiny
// group weights from vanishing.
func ScaleLoadDown(w uint64) uint64 {
	if w == 0 {
		return 0
	}
	return max(2, w>>fixedPointShift)
}

// A LoadWeight is a weight in load units with its cached 32-bit inverse: the kernel's struct
// load_weight. The inverse is not exported: [LoadWeight.Inverse] reads it, and 0 means "not
// computed": [CalcDelta] then uses 0xFFFFFFFF divided by the unscaled weight, as
// __update_inv_weight does. A task's own load carries the table inverse
// ([TaskLoad]); a sum of loads, or a group entity's load, carries none and gets the computed one,
// which can differ from the table's by one (4194303 instead of 4194304 for nice 0), so results of
// the v6.5 arithmetic depend on which one is present.
type LoadWeight struct {
	Weight    uint64
	invWeight uint32 // lw->inv_weight
}

// TaskLoad returns the load of a task with the given class and nice level: the kernel's
// set_load_weight. A SCHED_IDLE task gets scale_load(3) with inverse WMULT_IDLEPRIO whatever its
// nice; any other task gets scale_load of the table weight and the table inverse. TaskLoad
// panics if nice is outside -20..19 (MIN_NICE..MAX_NICE) or class is not a known [Class].
func TaskLoad(class Class, nice int) LoadWeight {
	checkNice("TaskLoad", nice)
	switch class {
	case Idle:
		return LoadWeight{Weight: ScaleLoad(weightIdlePrio), invWeight: wMultIdlePrio}
	case Normal, Batch:
		return LoadWeight{Weight: ScaleLoad(Weight(nice)), invWeight: invWeightOf(nice)}
	}
	panic(fmt.Sprintf("cfs: TaskLoad: unknown class %d", class))
}

// add returns lw with inc added to its weight and its inverse invalidated: update_load_add.
func (lw LoadWeight) add(inc uint64) LoadWeight { return LoadWeight{Weight: lw.Weight + inc} }

// sub returns lw with dec subtracted from its weight and its inverse invalidated:
// update_load_sub.
func (lw LoadWeight) sub(dec uint64) LoadWeight { return LoadWeight{Weight: lw.Weight - dec} }

// Inverse returns the inverse __calc_delta multiplies by: the cached one if set, otherwise the
// kernel's __update_inv_weight of the unscaled weight w (1 if w >= 0xFFFFFFFF, 0xFFFFFFFF if
// w == 0, else 0xFFFFFFFF / w).
func (lw LoadWeight) Inverse() uint32 {
	if lw.invWeight != 0 {
		return lw.invWeight
	}
	w := ScaleLoadDown(lw.Weight)
	switch {
	case w >= wmultConst:
		return 1
	case w == 0:
		return wmultConst
	}
	return uint32(wmultConst / w)
}
