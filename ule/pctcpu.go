// This file implements the %CPU window (sched_pctcpu_update, sched_pctcpu, and FreeBSD 9.0's
// sched_tick) in its main, legacy and freebsd9 forms.

package ule

// FShift and FScale are the kernel's fixed point for load and %CPU (sys/sys/param.h): fixpt_t
// values are scaled by FScale = 1 << FShift.
const (
	FShift = 11
	FScale = 1 << FShift
)

// PctCPUUpdate advances the %CPU window w of a thread to tick t (hz ticks, wrapping u_int):
// sched_pctcpu_update(ts, run). run says whether the thread was running since the last update,
// in which case the elapsed ticks are added to w.Ticks.
//
// Main (11-second maximum, 10-second target, t_tgt = ((11*hz << 10) * 10/11) >> 10):
//
//   - if t - ltick >= t_tgt: forget the past; ticks = run ? t_tgt << 10 : 0, ftick = t - t_tgt;
//   - else if t - ftick >= 11*hz: ticks = ticks / max(ltick-ftick, 1) * (t_tgt - (t-ltick)),
//     ftick = t - t_tgt (about a 10/11 decay per second for a thread that runs often);
//   - then, if run, ticks += (t - ltick) << 10; ltick = t.
//
// Legacy (ints, 10-second target): if (u_int)(t - ltick) >= 10*hz, ticks = 0 and ftick = t - 10*hz;
// else if t - ftick >= 11*hz (signed), ticks = ticks/(ltick-ftick) * (ltick - (t - 10*hz)) and
// ftick = t - 10*hz; then, if run, ticks += (t - ltick) << 10 with the old ltick; ltick = t.
//
// FreeBSD9 (sys/kern/sched_ule.c 1.290, rodrigc/bz-vimage @191fe557) charged the running thread
// one hz tick at a time in sched_tick and rescaled the window only now and then. With run the
// ticks since ltick are charged (ticks += (t - ltick) << 10, ltick = t, what sched_tick did at
// each hz tick in between) and then, if ftick + 11*hz < ltick, the window is rescaled as below.
// Without run it is sched_pctcpu_update as sched_wakeup calls it: nothing if ticks is 0, or if
// t - hz/10 < ltick and max(ltick-ftick, hz) < 11*hz; otherwise ticks = ticks/(t - ftick) *
// 10*hz if ltick > t - 10*hz, else 0, and ltick = t, ftick = t - 10*hz. (sched_choose only sets
// ltick = t when it picks a thread; the Scheduler does that itself.) The rescaling keeps the
// rate ticks/(ltick-ftick), so it moves the priority little; charging at stat ticks instead of
// hz ticks delays the rescaling by less than a stat tick.
func PctCPUUpdate(v Version, w Window, t uint32, run bool, hz int) Window {
	switch v {
	case Legacy:
		return legacyPctCPUUpdate(w, int32(t), run, int32(hz))
	case FreeBSD9:
		return freebsd9PctCPUUpdate(w, int32(t), run, int32(hz))
	}
	tMax := uint32(hz) * 11
	tTgt := pctCPUTarget(uint32(hz))
	lu := t - w.LTick
	if lu >= tTgt {
		w.Ticks = 0
		if run {
			w.Ticks = tTgt << TickShift
		}
		w.FTick = t - tTgt
		w.LTick = t
		return w
	}
	if t-w.FTick >= tMax {
		w.Ticks = w.Ticks / max(w.LTick-w.FTick, 1) * (tTgt - lu)
		w.FTick = t - tTgt
	}
	if run {
		w.Ticks += lu << TickShift
	}
	w.LTick = t
	return w
}

// pctCPUTarget returns main's t_tgt for hz h: ((t_max << SCHED_TICK_SHIFT) * 10 / 11) >>
// SCHED_TICK_SHIFT with t_max = 11*h, in u_int. While (11*h << 10) * 10 does not wrap (h up to
// pctNoWrapHz) that is exactly 10*h: 112640*h is divisible by 11. Above, the product wraps, and
// the formula is computed as written.
func pctCPUTarget(h uint32) uint32 {
	if h <= pctNoWrapHz {
		return h * 10
	}
	return ((h * 11 << TickShift) * 10 / 11) >> TickShift
}

// pctNoWrapHz is the largest hz for which (11*hz << SCHED_TICK_SHIFT) * 10 fits a u_int.
const pctNoWrapHz = (1<<32 - 1) / (11 << TickShift * 10)

func legacyPctCPUUpdate(w Window, t int32, run bool, hz int32) Window {
	targ := hz * legacyTickSecs // SCHED_TICK_TARG
	tickMax := targ + hz        // SCHED_TICK_MAX
	ticks, ftick, ltick := int32(w.Ticks), int32(w.FTick), int32(w.LTick)
	if uint32(t-ltick) >= uint32(targ) {
		ticks = 0
		ftick = t - targ
	} else if t-ftick >= tickMax {
		span := ltick - ftick
		if span == 0 { // impossible unless the ticks wrapped oddly; the kernel would trap
			span = 1
		}
		ticks = (ticks / span) * (ltick - (t - targ))
		ftick = t - targ
	}
	if run {
		ticks += (t - ltick) << TickShift
	}
	return Window{Ticks: uint32(ticks), FTick: uint32(ftick), LTick: uint32(t)}
}

func freebsd9PctCPUUpdate(w Window, t int32, run bool, hz int32) Window {
	targ := hz * legacyTickSecs // SCHED_TICK_TARG
	tickMax := targ + hz        // SCHED_TICK_MAX
	ticks, ftick, ltick := int32(w.Ticks), int32(w.FTick), int32(w.LTick)
	if run {
		ticks += (t - ltick) << TickShift // sched_tick, once per hz tick
		ltick = t
		if ftick+tickMax >= ltick {
			return Window{Ticks: uint32(ticks), FTick: uint32(ftick), LTick: uint32(ltick)}
		}
	}
	if ticks == 0 {
		return Window{FTick: uint32(ftick), LTick: uint32(ltick)}
	}
	total := max(uint32(ltick-ftick), uint32(hz)) // SCHED_TICK_TOTAL, u_int max()
	if t-hz/10 < ltick && total < uint32(tickMax) {
		return w
	}
	if ltick > t-targ {
		span := t - ftick
		if span == 0 { // only with ticks wrapped oddly; the kernel would trap
			span = 1
		}
		ticks = (ticks / span) * targ
	} else {
		ticks = 0
	}
	return Window{Ticks: uint32(ticks), FTick: uint32(t - targ), LTick: uint32(t)}
}

// PctCPU returns the %CPU of window w as a fixpt_t (FScale = 100 %): sched_pctcpu after its update.
// Main: ((ticks << 1) + len/2) / len with len = max(ltick-ftick, 1). Legacy and freebsd9: rtick =
// min((ticks>>10)/10, hz), then (FScale * ((FScale*rtick)/hz)) >> FShift, or 0 if ticks is 0.
func PctCPU(v Version, w Window, hz int) uint32 {
	if v.split() {
		if w.Ticks == 0 {
			return 0
		}
		rtick := min((int32(w.Ticks)>>TickShift)/legacyTickSecs, int32(hz))
		return uint32((FScale * ((FScale * rtick) / int32(hz))) >> FShift)
	}
	length := max(w.LTick-w.FTick, 1)
	return ((w.Ticks << (FShift - TickShift)) + length/2) / length
}
