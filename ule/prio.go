// This file implements the user priority of time-sharing threads (sched_priority) in its main,
// legacy and FreeBSD 9.0 forms.

package ule

// A Window is the %CPU estimation window of a thread: the shifted hz ticks it ran (ts_ticks)
// between ts_ftick and ts_ltick (hz ticks). Legacy kernels declare the three as int; the
// arithmetic on them is done with int32 where that matters. In Main and Legacy, PctCPUUpdate
// changes nothing at tick t when ltick is t and t - ftick < 11*hz: the Scheduler skips that call.
type Window struct {
	Ticks uint32 // ts_ticks: run time inside the window, hz ticks << 10
	FTick uint32 // ts_ftick: first tick of the window
	LTick uint32 // ts_ltick: last update of the window
}

// Legacy SCHED_PRI_* constants (OlCe2/freebsd-src sys/kern/sched_ule.c @366ae94e).
const (
	legacyPriNHalf = (PrioMax - PrioMin) / 2 // SCHED_PRI_NHALF
	legacyPriMin   = 136 + legacyPriNHalf    // SCHED_PRI_MIN = PRI_MIN_BATCH + NHALF = 156
	legacyPriMax   = 223 - legacyPriNHalf    // SCHED_PRI_MAX = PRI_MAX_BATCH - NHALF = 203
	legacyPriRange = legacyPriMax - legacyPriMin + 1
	legacyTickSecs = 10 // SCHED_TICK_SECS
)

// FreeBSD 9.0 SCHED_PRI_* constants (sys/kern/sched_ule.c 1.290, rodrigc/bz-vimage @191fe557):
// the batch range 152..223 of the 2011 layout.
const (
	freebsd9PriMin   = 152 + legacyPriNHalf // SCHED_PRI_MIN = PRI_MIN_BATCH + NHALF = 172
	freebsd9PriMax   = 223 - legacyPriNHalf // SCHED_PRI_MAX = PRI_MAX_BATCH - NHALF = 203
	freebsd9PriRange = freebsd9PriMax - freebsd9PriMin + 1
)

// TimesharePriority returns the user priority sched_priority assigns a time-sharing thread with
// interactivity score score (see InteractScore), nice value nice and %CPU window w, under
// threshold interact, for version v at hz:
//
//   - interactive (max(0, score+nice) < interact): MinInteract + InteractRange*score/interact,
//     multiplied first (56 + 59*score/30 in main, 88 + 48*score/30 in legacy);
//   - batch in main: 115 + cpu + (nice+20)*5/4, where
//     cpu = ((58*ticks + len/2)/len + 512) >> 10 and len = max(ltick-ftick, 1);
//     0 % CPU at nice 0 gives 140, 100 % gives 198;
//   - batch in legacy: 156 + (ticks ? min(T, 47) : 0) + nice, where
//     T = (ticks>>10) / (roundup(max(ltick-ftick, hz), 48)/48);
//   - in freebsd9 the interactive priority divides first, 120 + (32/interact)*score (120 + score
//     at the default threshold), and the batch one is 172 + (ticks ? T : 0) + nice with
//     T = (ticks>>10) / (roundup(max(ltick-ftick, hz), 32)/32) and no clamp: T reaches 32 for a
//     thread that ran its whole window, so nice +20 then gives 224, an idle priority, which the
//     kernel's KASSERT would catch only with INVARIANTS (the clamp came in 2012). The result is
//     truncated to a u_char as sched_user_prio's argument is.
//
// The kernel asserts the batch result lies in MinBatch..MaxBatch; with a consistent window
// (ticks <= (ltick-ftick) << 10) and nice in -20..20 it does, except in freebsd9 as said.
func TimesharePriority(v Version, interact uint32, score, nice int, w Window, hz int) uint8 {
	l := v.layout()
	s := uint32(max(0, int32(score)+int32(nice))) // imax(0, score + nice) into a u_int
	if v == FreeBSD9 {
		if s < interact {
			return l.MinInteract + uint8(uint32(l.InteractRange())/interact*s)
		}
		pri := uint32(freebsd9PriMin)
		if w.Ticks != 0 {
			pri += legacyTickPri(w, hz, freebsd9PriRange)
		}
		return uint8(pri + uint32(int32(nice)))
	}
	if s < interact {
		return l.MinInteract + uint8(uint32(l.InteractRange())*s/interact)
	}
	if v == Legacy {
		pri := uint32(legacyPriMin)
		if w.Ticks != 0 {
			pri += min(legacyTickPri(w, hz, legacyPriRange), legacyPriRange-1)
		}
		return uint8(pri + uint32(int32(nice)))
	}
	const cpuRange = 109 - 50 // SCHED_PRI_CPU_RANGE = PRI_BATCH_RANGE - SCHED_PRI_NRESV
	run := w.Ticks
	length := max(w.LTick-w.FTick, 1)
	nicePri := uint32((int32(nice) - PrioMin) * 5 / 4) // SCHED_PRI_NICE
	cpuPri := (((cpuRange-1)*run+length/2)/length + (1<<TickShift)/2) >> TickShift
	return uint8(uint32(l.MinBatch) + cpuPri + nicePri)
}

// legacyTickPri is SCHED_PRI_TICKS of the 64-queue kernels for a batch range of rng priorities:
// SCHED_TICK_HZ / (roundup(SCHED_TICK_TOTAL, rng) / rng), in the kernel's mix of int and u_int.
func legacyTickPri(w Window, hz int, rng uint32) uint32 {
	tickHz := uint32(int32(w.Ticks) >> TickShift)                   // SCHED_TICK_HZ, an int
	total := max(uint32(int32(w.LTick)-int32(w.FTick)), uint32(hz)) // u_int max()
	per := max((total+rng-1)/rng*rng/rng, 1)                        // 0 only if roundup() wraps past 2^32: the kernel would trap
	return tickHz / per
}
