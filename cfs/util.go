// This file implements the Scheduler's stand-in for PELT's utilisation: a running average per
// task and a signal per CPU, both decayed lazily by the ticks that passed since they were last
// brought up to date, so that a tick costs the same however many tasks its CPU holds.

package cfs

import "github.com/schedkit/schedkit/topology"

// decayUtil returns utilisation u after n ticks of decay, each of which takes u>>sh off,
// truncated, so that a value below 1<<sh no longer moves. It takes the ticks band by band
// (while u>>sh stays m, every tick takes exactly m), so that its cost grows with the number of
// bands crossed, not with n; the result is the tick-by-tick one.
func decayUtil(u uint64, n int64, sh uint) uint64 {
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
func (s *Scheduler) catchUp(t *Task, j int64) {
	if k := j - t.utilTick; k > 0 {
		t.util = decayUtil(t.util, k, s.utilShift)
		t.utilTick = j
	}
}

// cpuUtil brings CPU c's utilisation signal to tick j and returns it.
func (s *Scheduler) cpuUtil(c topology.CPU, j int64) *runQueue {
	rq := &s.rqs[c]
	if k := j - rq.utilTick; k > 0 {
		rq.util = decayUtil(rq.util, k, s.utilShift)
		rq.utilTick = j
	}
	return rq
}

// wakeUtil brings the utilisation estimate of sleeping task t to tick j and returns what it
// left on its CPU's signal, which has decayed with it; a task that slept more than
// 8<<utilShift ticks comes back with none.
func (s *Scheduler) wakeUtil(t *Task, j int64) (left uint64) {
	slept := j - t.utilTick
	s.catchUp(t, j)
	left = t.util
	if slept > int64(8)<<s.utilShift {
		t.util = 0
	}
	return left
}

// detachUtil takes u off CPU c's utilisation signal at the current tick, saturating at 0
// (detach_entity_load_avg, remove_entity_load_avg).
func (s *Scheduler) detachUtil(c topology.CPU, u uint64) {
	rq := s.cpuUtil(c, s.j)
	rq.util -= min(rq.util, u)
}

// tickUtil is the utilisation part of a tick at tick j on busy CPU c: the CPU's signal and its
// running task's estimate, brought up to date, both gain capacity>>utilShift. (An idle CPU's
// signal only decays, and does so lazily.)
func (s *Scheduler) tickUtil(c topology.CPU, j int64) {
	gain := s.stats[c].Capacity >> s.utilShift
	s.cpuUtil(c, j).util += gain
	t := s.rqs[c].curr.task
	s.catchUp(t, j)
	t.util += gain
}
