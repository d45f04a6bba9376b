package bsd4

import "github.com/schedkit/schedkit/runq"

// This file implements the arithmetic of ts_estcpu, 4BSD's estimate of a thread's recent CPU
// use: its growth by one per statistics tick (sched_clock_tick), its ceiling (ESTCPULIM) and its
// decay after a long sleep (updatepri).

// Nice and weight constants of sched_4bsd.c and sys/resource.h.
const (
	// NiceWeight is NICE_WEIGHT: priorities per nice level.
	NiceWeight = 1
	// PrioMin is PRIO_MIN, the lowest (most favourable) nice value.
	PrioMin = -20
	// PrioMax is PRIO_MAX, the highest nice value. FreeBSD accepts 20, where Linux stops at 19.
	PrioMax = 20
)

// InverseEstcpuWeight returns INVERSE_ESTCPU_WEIGHT, the number of estcpu units per priority
// level: 8·smp_cpus in an SMP kernel (sched_4bsd.c). Every CPU's statistics clock charges the
// thread it interrupts, so a machine with n CPUs hands out n times as many ticks per second as a
// uniprocessor; dividing by 8·n keeps priorities on the same scale (Bruce Evans's "quick fix",
// commit 67e14c35e9e18c53750d1cf461402741d643ee32; see the package documentation). A
// uniprocessor kernel uses 8, which equals 8·1.
// InverseEstcpuWeight panics if ncpu < 1.
func InverseEstcpuWeight(ncpu int) uint32 {
	if ncpu < 1 {
		panic("bsd4: InverseEstcpuWeight of fewer than one CPU")
	}
	return 8 * uint32(ncpu)
}

// ESTCPULim returns ESTCPULIM(e) = min(e, IEW·(NICE_WEIGHT·(PRIO_MAX−PRIO_MIN) − RQ_PPQ) + IEW − 1)
// (sched_4bsd.c), with iew the [InverseEstcpuWeight] and fold the run queue's RQ_PPQ. The ceiling
// keeps estcpu/IEW + (nice − PRIO_MIN) below the 40 + 40 levels the formula was sized for:
// IEW·40 − 1 with FreeBSD main's 256 queues (estcpu/IEW ≤ 39), IEW·37 − 1 with the legacy
// 64-queue run queue (≤ 36). ESTCPULim panics if iew or fold is zero (the kernel's
// INVERSE_ESTCPU_WEIGHT and RQ_PPQ are never zero).
func ESTCPULim(e, iew uint32, fold runq.Fold) uint32 {
	if iew == 0 {
		panic("bsd4: ESTCPULim with a zero inverse estcpu weight")
	}
	if fold == 0 {
		panic("bsd4: ESTCPULim with a zero fold")
	}
	limit := iew*(NiceWeight*(PrioMax-PrioMin)-uint32(fold)) + iew - 1
	return min(e, limit)
}

// EstCPUTick is the estcpu step of sched_clock_tick for the thread a statistics tick
// interrupted: estcpu becomes ESTCPULIM(estcpu+1), and the thread's priority is recomputed
// (resetpriority) whenever the new value is a multiple of iew, that is each time it crosses a
// priority level. At the ceiling the value stays put and, being IEW·k − 1, never asks for a
// recomputation. EstCPUTick panics if iew or fold is zero.
func EstCPUTick(estcpu, iew uint32, fold runq.Fold) (next uint32, reprioritize bool) {
	next = ESTCPULim(estcpu+1, iew, fold)
	return next, next%iew == 0
}

// UpdatePri returns the estcpu of a thread that wakes after sleeping slptime whole seconds
// (updatepri in sched_4bsd.c). schedcpu stopped decaying the thread once it had slept more than
// a second, so the decays it missed are applied now, all at the current load average: none is
// skipped and estcpu simply becomes zero when slptime > 5·loadfactor, otherwise
// estcpu is decayed slptime−2 times (the kernel first undoes schedcpu's last increment, then
// decays while --slptime is non-zero), stopping early at zero.
//
// The comparison is the kernel's: a signed slptime against the unsigned 5·loadfac, both as
// u_int. Because loadfac is in Fixpt units (2048 per unit of load), 5·loadfac is about 20480 at
// load 1.0 and the reset branch is taken only when the load average is nearly zero.
//
// Preconditions: slptime > 1, as in every kernel caller. With a smaller value the kernel's loop
// runs until estcpu reaches zero, and so does this one.
func UpdatePri(estcpu uint32, slptime int32, loadav Fixpt) uint32 {
	loadfac := LoadFactor(loadav)
	if uint32(slptime) > 5*uint32(loadfac) {
		return 0
	}
	slptime--
	for estcpu != 0 {
		slptime--
		if slptime == 0 {
			break
		}
		estcpu = DecayCPU(loadfac, estcpu)
	}
	return estcpu
}
