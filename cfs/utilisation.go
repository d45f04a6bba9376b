// This file implements the Scheduler's stand-in for PELT's utilisation: a running average per
// task and a signal per CPU, both decayed lazily by the ticks that passed since they were last
// brought up to date, so that a tick costs the same however many tasks its CPU holds.

package cfs

// decayUtil returns utilisation u after n ticks of decay, each of which takes u>>sh off,
// truncated, so that a value below 1<<sh no longer moves. It takes the ticks band by band
// (while u>>sh stays m, every tick takes exactly m), so that its cost grows with the number of
// bands crossed, not with n; the result is the tick-by-tick one. It is kept out of line so
// that its callers stay small enough to inline.
//
//go:noinline
func decayUtil(u uint64, n int64, sh uint) uint64 {
	sh &= 63 // utilShift is below 64; the mask lets the shifts below skip Go's test for 64
	if n == 1 {
		return u - u>>sh
	}
	for n > 0 {
		m := u >> sh
		if m == 0 {
			break
		}
		if k := (u-m<<sh)/m + 1; uint64(n) > k {
			u -= k * m
			n -= int64(k)
			continue
		}
		return u - uint64(n)*m
	}
	return u
}

// catchUp brings the utilisation estimate of task t to tick j: t decays by the ticks since it
// was last brought up to date, in which it did not run (a running task is brought up to date
// at every tick of its CPU).
func (s *System) catchUp(t *Task, j int64) {
	if j > t.utilTick {
		t.util, t.utilTick = decayUtil(t.util, j-t.utilTick, s.utilShift), j
	}
}

// catchUpCPU brings the utilisation signal of CPU rq to tick j.
func (s *System) catchUpCPU(rq *cpuRQ, j int64) {
	if j > rq.utilTick {
		rq.util, rq.utilTick = decayUtil(rq.util, j-rq.utilTick, s.utilShift), j
	}
}

// wakeUtil brings the utilisation estimate of sleeping task t to tick j and returns what it
// left on its CPU's signal, which has decayed with it; a task that slept more than
// 8<<utilShift ticks comes back with none.
func (s *System) wakeUtil(t *Task, j int64) (left uint64) {
	slept := j - t.utilTick
	s.catchUp(t, j)
	left = t.util
	if slept > int64(8)<<(s.utilShift&63) {
		t.util = 0
	}
	return left
}

// detachUtil takes u off CPU rq's utilisation signal at the current tick, saturating at 0
// (detach_entity_load_avg, remove_entity_load_avg).
func (s *System) detachUtil(rq *cpuRQ, u uint64) {
	s.catchUpCPU(rq, s.j)
	rq.util -= min(rq.util, u)
	rq.fresh = 0
}

// tickUtil is the utilisation part of a tick at tick j on busy CPU rq of capacity capacity: the
// CPU's signal and its running task's estimate, brought up to date, both gain
// capacity>>utilShift. (An idle CPU's signal only decays, and does so lazily.) The usual case,
// both brought up to date at the previous tick, decays each by one tick in line.
func (s *System) tickUtil(rq *cpuRQ, capacity uint64, j int64) {
	sh := s.utilShift & 63 // below 64 (see System.utilShift): the shifts need no test for 64
	gain := capacity >> sh
	if rq.utilTick == j-1 {
		rq.util, rq.utilTick = rq.util-rq.util>>sh, j
	} else {
		s.catchUpCPU(rq, j)
	}
	rq.util += gain
	t := rq.curr
	if t.utilTick == j-1 {
		t.util, t.utilTick = t.util-t.util>>sh, j
	} else {
		s.catchUp(t, j)
	}
	t.util += gain
}
