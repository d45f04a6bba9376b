package bsd4

// This file implements the once-a-second recomputation of every thread's usage (schedcpu in
// sched_4bsd.c) as a pure function of one thread's counters.

// CCPU is ccpu = exp(−1/20)·FScale truncated (0.95122942450071400909·2048 = 1948.1): the factor
// by which %CPU decays each second, so that 95% of it is forgotten in 60 seconds whatever the
// load (sched_4bsd.c).
const CCPU Fixpt = 1948

// CCPUShift is CCPU_SHIFT = 11 (sched_4bsd.c). Because FShift ≥ CCPUShift the kernel uses its
// "faster/more-accurate formula" for %CPU, which shifts cpticks by FShift − CCPUShift = 0.
const CCPUShift = 11

// A Usage is the part of td_sched that decay-usage scheduling keeps per thread.
type Usage struct {
	// EstCPU is ts_estcpu (u_int): recent CPU use in statistics ticks, decayed every second.
	EstCPU uint32
	// PctCPU is ts_pctcpu (fixpt_t): the %CPU that ps(1) shows, FScale being 100%.
	PctCPU Fixpt
	// CPTicks is ts_cpticks (int): statistics ticks charged since the last schedcpu.
	CPTicks int32
	// SlpTime is ts_slptime (int): whole seconds spent off every run queue and CPU.
	SlpTime int32
}

// DecayPctCPU returns a thread's %CPU after one second (schedcpu): pct·CCPU >> FShift, plus the
// ticks the thread was charged during that second scaled to FScale per realstathz ticks, that is
// cpticks << (FShift − CCPUShift) at 100 Hz and 100·(cpticks << (FShift − CCPUShift))/realstathz
// otherwise. All arithmetic is u_int, as the kernel's. A thread that runs all the time tends to
// FScale (100%). DecayPctCPU panics if realstathz is zero and cpticks is not.
func DecayPctCPU(pct Fixpt, cpticks int32, realstathz int) Fixpt {
	pct = Fixpt(uint32(pct) * uint32(CCPU) >> FShift)
	if cpticks != 0 {
		ticks := uint32(cpticks) << (FShift - CCPUShift)
		if realstathz == 100 {
			pct += Fixpt(ticks)
		} else {
			pct += Fixpt(100 * ticks / uint32(realstathz))
		}
	}
	return pct
}

// SchedCPU is schedcpu's work for one thread, run once a second: it decays %CPU and clears
// cpticks, counts another second of sleep for a thread that was not awake, and for a thread
// that was (on a run queue, running, or run at some point in the last second: TDF_DIDRUN)
// first catches up on the decays a long sleep skipped ([UpdatePri]) and resets slptime. Unless
// the thread has now slept more than one second, estcpu decays once more ([DecayCPU] at
// [LoadFactor](loadav)) and SchedCPU reports that the caller must recompute the thread's
// priority (resetpriority, resetpriority_thread).
func SchedCPU(u Usage, awake bool, loadav Fixpt, realstathz int) (next Usage, reprioritize bool) {
	u.PctCPU = DecayPctCPU(u.PctCPU, u.CPTicks, realstathz)
	u.CPTicks = 0
	if awake {
		if u.SlpTime > 1 {
			u.EstCPU = UpdatePri(u.EstCPU, u.SlpTime, loadav)
		}
		u.SlpTime = 0
	} else {
		u.SlpTime++
	}
	if u.SlpTime > 1 {
		return u, false
	}
	u.EstCPU = DecayCPU(LoadFactor(loadav), u.EstCPU)
	return u, true
}
