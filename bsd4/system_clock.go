package bsd4

import (
	"math"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// This file implements the System's clock: sched_clock on every statistics-clock interrupt,
// and the once-a-second housekeeping (schedcpu, the load average) it triggers.

// ticks converts now to the kernel's ticks, hz ticks since boot, wrapping as an int does.
func (s *System) ticks(now int64) int32 {
	return int32(sched.Ticks(now, s.hz))
}

// Tick is a statistics-clock interrupt on cpu (sched_clock), appending to fx what the machine
// must do and returning it: the running thread is charged a tick of estcpu and cpticks
// ([EstCPUTick]), its priority follows each time estcpu crosses a level, and when its quantum
// is over ([SliceTick], [SwitchTick]) cpu must reschedule (EffectExpire). An idle CPU that finds
// a runnable thread on the global queue or its own must reschedule too (EffectIdlePoll), as the
// idle loop's sched_runnable() check does after every interrupt. On the lowest-numbered CPU
// Tick also runs schedcpu once per second of the machine's time ([System.SchedCPU]) and samples
// the load average every 4 to 6 seconds (in the kernel a kernel thread and a callout do this;
// which CPU runs them does not matter to 4BSD). Tick panics if cpu is not in the machine or now
// is before an earlier call's time.
func (s *System) Tick(now int64, cpu topology.CPU, fx []Effect) []Effect {
	s.contract.Time("Tick", now)
	s.contract.CPU("Tick", cpu)
	c := &s.pcpu[cpu]
	if t := c.cur; t != nil {
		fx = s.clockTick(now, c, cpu, t, fx)
	} else if !s.needResched.Has(cpu) && (!s.global.Empty() || !c.runq.Empty()) {
		// sched_idletd re-checks sched_runnable() after every interrupt, so work that arrived
		// without an IPI (kern.sched.ipiwakeup.enabled=0) is found at the next tick.
		s.needResched.Add(cpu)
		fx = append(fx, Effect{Kind: EffectIdlePoll, CPU: cpu})
	}
	if cpu == s.housekeeper {
		fx = s.housekeep(now, fx)
	}
	return fx
}

// clockTick is sched_clock_tick for t, running on cpu.
func (s *System) clockTick(now int64, c *perCPU, cpu topology.CPU, t *Thread, fx []Effect) []Effect {
	t.CPTicks++
	var reprio bool
	t.EstCPU, reprio = EstCPUTick(t.EstCPU, s.iew, s.p.Fold)
	if reprio {
		s.resetPriority(t)
		fx = s.resetPriorityThread(t, fx)
	}
	var expired bool
	var r TickReason
	if s.p.Quantum == SliceQuantum {
		expired, r = SliceTick(t.Slice, s.slice)
		t.Slice = r.Left
		t.sliceEnd = t.sliceEnd || expired
	} else {
		expired, r = SwitchTick(s.ticks(now), s.ticks(c.switchTime), s.quantum)
	}
	if expired && !s.needResched.Has(cpu) {
		s.needResched.Add(cpu)
		fx = append(fx, Effect{Kind: EffectExpire, CPU: cpu, Thread: t, Tick: r})
	}
	return fx
}

// housekeep is the housekeeping CPU's part of Tick at now: loadav when its callout is due and
// schedcpu once per second.
func (s *System) housekeep(now int64, fx []Effect) []Effect {
	if now >= s.nextLoadav {
		if s.p.OldLoadav {
			s.ldavg = s.ldavg.Update32(s.load)
			s.nextLoadav = after(now, LoadavIntervalTicks(s.rng.Uint64(), s.hz))
		} else {
			s.ldavg = s.ldavg.Update(s.load)
			s.nextLoadav = after(now, LoadavInterval(s.rng.Uint64()))
		}
	}
	if now >= s.nextSchedCPU {
		fx = s.SchedCPU(fx)
		s.nextSchedCPU = after(s.nextSchedCPU, sched.NanosPerSecond)
		if now >= s.nextSchedCPU {
			// The machine skipped a whole second of clock interrupts. The kernel's schedcpu
			// thread sleeps a second after each run (pause(hz)), so it runs once and the next
			// run is a second from now.
			s.nextSchedCPU = after(now, sched.NanosPerSecond)
		}
	}
	return fx
}

// after returns t + d, or math.MaxInt64 if that overflows: the end of the machine's time.
func after(t, d int64) int64 {
	if t > math.MaxInt64-d {
		return math.MaxInt64
	}
	return t + d
}

// resetPriorityThread is resetpriority_thread: a thread whose priority is in the time-sharing
// range takes its new user priority; a queued thread whose queue index changes moves to the
// tail of its new queue (sched_prio → sched_rem, sched_add).
func (s *System) resetPriorityThread(t *Thread, fx []Effect) []Effect {
	l := s.p.Layout
	if t.Pri < l.MinTimeshare || t.Pri > l.MaxTimeshare() || t.Pri == t.UserPri {
		return fx
	}
	return s.setPri(t, t.UserPri, fx)
}

// setPri is sched_priority: change t's priority and requeue it if its queue changes. The
// requeue's sched_add runs in kernel context (the schedcpu thread, or the system call that
// changed the attributes), on the housekeeping CPU.
func (s *System) setPri(t *Thread, pri uint8, fx []Effect) []Effect {
	t.Pri = pri
	if t.state != Queued {
		return fx
	}
	if idx, _ := t.Index(); idx == s.p.Fold.Index(pri) {
		return fx
	}
	s.dequeue(t)
	return s.addFromKernel(t, fx)
}

// addFromKernel is sched_add called by a kernel thread on the housekeeping CPU (WakeInput's
// Kernel), appending its Wake to fx.
func (s *System) addFromKernel(t *Thread, fx []Effect) []Effect {
	fx = append(fx, Effect{Kind: EffectWake, Thread: t})
	e := &fx[len(fx)-1]
	e.Wake = s.add(t, s.housekeeper, 0, false, true, &e.WakeReason)
	return fx
}

// SchedCPU runs schedcpu, appending to fx what the machine must do: every thread's usage is
// decayed ([SchedCPU]) and the priority of each thread that was awake in the last second
// recomputed. Threads are visited in ID order; a queued thread whose queue changes moves to the
// tail of its new queue, a sched_add from the housekeeping CPU. No running thread is preempted:
// the kernel's schedcpu runs as a kernel thread, better than any user priority. Tick calls it
// once per second. The complexity is O(threads); it does not allocate unless fx grows.
func (s *System) SchedCPU(fx []Effect) []Effect {
	loadav := s.ldavg[0]
	for _, t := range s.threads.All() {
		if t.state == Created {
			continue
		}
		awake := false
		switch {
		case t.state == Queued:
			awake, t.didRun = true, false
		case t.state == Running:
			awake = true
		case t.didRun:
			awake, t.didRun = true, false
		}
		var reprio bool
		t.Usage, reprio = SchedCPU(t.Usage, awake, loadav, s.realstathz)
		if reprio {
			s.resetPriority(t)
			fx = s.resetPriorityThread(t, fx)
		}
	}
	return fx
}
