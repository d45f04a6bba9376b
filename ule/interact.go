// This file implements the interactivity arithmetic: the score, the bound on the history and
// the scaling at fork (sched_interact_score, sched_interact_update, sched_interact_fork).

package ule

// Interactivity constants of sched_ule.c.
const (
	TickShift      = 10  // SCHED_TICK_SHIFT: run and sleep times are kept in hz ticks << 10
	InteractMax    = 100 // SCHED_INTERACT_MAX
	InteractHalf   = 50  // SCHED_INTERACT_HALF
	InteractThresh = 30  // SCHED_INTERACT_THRESH, the default of kern.sched.ule.interact
)

// SlpRunMax returns SCHED_SLP_RUN_MAX, the most sleep plus run history kept: (hz*5) << 10, in
// shifted hz ticks (5,120,000 at hz 1000). The kernel computes it as an int.
func SlpRunMax(hz int) int32 { return int32(hz*5) << TickShift }

// SlpRunFork returns SCHED_SLP_RUN_FORK, the most history a child inherits: (hz/2) << 10.
// It is 0 at hz 1, which Params.Validate therefore refuses.
func SlpRunFork(hz int) int32 { return int32(hz/2) << TickShift }

// InteractScore returns the interactivity score of a thread that ran runtime and voluntarily
// slept slptime (both shifted hz ticks), with interactivity threshold interact: 0 is the most
// interactive, 100 the least. It is sched_interact_score:
//
//   - if interact <= 50 and runtime >= slptime: 50 (the fast path; a thread this busy cannot
//     be interactive under such a threshold);
//   - if runtime > slptime: 50 + (50 - slptime/max(1, runtime/50)), computed in u_int;
//   - if slptime > runtime: runtime/max(1, slptime/50), about 50*runtime/slptime;
//   - otherwise 50, or 0 when both are zero.
//
// The divisions truncate as the kernel's do, so with times below 100 shifted ticks (0.1 ms) the
// score can exceed 50 (runtime 98, slptime 99 scores 98), and with interact above 50 the u_int
// arithmetic of the second branch is what the kernel computes.
func InteractScore(runtime, slptime, interact uint32) int {
	if interact <= InteractHalf && runtime >= slptime {
		return InteractHalf
	}
	if runtime > slptime {
		div := max(1, runtime/InteractHalf) // max() of libkern works on u_int
		return int(int32(uint32(InteractHalf) + (uint32(InteractHalf) - slptime/div)))
	}
	if slptime > runtime {
		div := max(1, slptime/InteractHalf)
		return int(int32(runtime / div))
	}
	if runtime != 0 {
		return InteractHalf
	}
	return 0
}

// InteractUpdate bounds the interactivity history of a thread after its runtime or slptime grew:
// sched_interact_update. With sum = runtime + slptime (u_int, wrapping) and max = SlpRunMax(hz):
//
//   - sum < max: unchanged;
//   - sum > 2*max: the larger becomes max and the smaller 1;
//   - sum > max/5*6: both are halved;
//   - otherwise both become x/5*4.
func InteractUpdate(runtime, slptime uint32, hz int) (newRuntime, newSlptime uint32) {
	srMax := SlpRunMax(hz)
	sum := runtime + slptime
	if sum < uint32(srMax) {
		return runtime, slptime
	}
	if sum > uint32(srMax*2) {
		if runtime > slptime {
			return uint32(srMax), 1
		}
		return 1, uint32(srMax)
	}
	if sum > uint32((srMax/5)*6) {
		return runtime / 2, slptime / 2
	}
	return (runtime / 5) * 4, (slptime / 5) * 4
}

// InteractFork scales the history a child inherits from its parent: sched_interact_fork. The
// kernel adds the two u_int times into an int sum; if sum exceeds SlpRunFork(hz), both are
// divided by sum/SlpRunFork(hz). A sum of 2^31 or more is negative as an int and left alone, as
// in the kernel. Preconditions: hz >= 2 (as Params.Validate requires); at hz 1 SlpRunFork is 0
// and the division panics where the kernel's would trap.
func InteractFork(runtime, slptime uint32, hz int) (newRuntime, newSlptime uint32) {
	fork := SlpRunFork(hz)
	sum := int32(runtime + slptime)
	if sum > fork {
		ratio := uint32(sum / fork)
		return runtime / ratio, slptime / ratio
	}
	return runtime, slptime
}
