package trace

// This file implements the phases of an rt-app task: each phase's events (run, sleep, timer,
// lock, signal, barrier…) read into the ops of a workload script.

import (
	"strings"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// isProperty reports whether key is a thread or phase property, not an event.
func isProperty(k string) bool {
	switch k {
	case "loop", "policy", "priority", "cpus", "instance", "delay", "phases", "util_min", "util_max",
		"taskgroup", "membind_nodes", "dl-runtime", "dl-period", "dl-deadline", "nice":
		return true
	}
	return false
}

// phase converts one phase (or a thread without phases) into ops.
func (rd *rtappReader) phase(task, field string, ph *jnode, th *workload.Thread, first bool) ([]workload.Op, *Error) {
	var pre []workload.Op
	if !first {
		var err *Error
		if pre, err = rd.attrs(ph, field, th, true); err != nil {
			return nil, err
		}
	} else if ph != rd.tasks[task] {
		// The first phase's attributes are the thread's.
		if _, err := rd.attrs(ph, field, th, false); err != nil {
			return nil, err
		}
	}
	loop := int64(1)
	if l := ph.get("loop"); l != nil && ph != rd.tasks[task] {
		var err *Error
		if loop, err = rd.intOf(l, field+".loop", -1, workload.MaxRepeat); err != nil {
			return nil, err
		}
	}
	var ops []workload.Op
	var tm phaseTimer
	for i, k := range ph.keys {
		if isProperty(k) {
			continue
		}
		tm.last = false
		var err *Error
		if ops, err = rd.event(task, k, field+"."+k, ph.vals[i], ops, &tm); err != nil {
			return nil, err
		}
	}
	if tm.period != 0 && !tm.last {
		rd.warn(ph, "%s: the timer is not the phase's last event; imported as every PERIOD around all of it", field)
	}
	var out []workload.Op
	out = append(out, pre...)
	switch {
	case tm.period != 0:
		n := int(loop)
		if loop == -1 {
			n = 0
		}
		out = append(out, workload.EveryOp(tm.period, n, ops...))
	case loop == -1:
		out = append(out, workload.LoopOp(ops...))
	case loop == 1:
		out = append(out, ops...)
	case loop > 1:
		out = append(out, workload.RepeatOp(int(loop), ops...))
	}
	return out, nil
}

// A phaseTimer is the timer of a phase: its period (0 without one), and whether it was the
// last event so far.
type phaseTimer struct {
	period workload.Duration
	last   bool
}

// event converts event k (at field ef, value v) of one of task's phases into ops appended to
// ops: the events of time (run, sleep, timer) and those that cannot be expressed here; the
// events between threads go to syncEvent.
func (rd *rtappReader) event(task, k, ef string, v *jnode, ops []workload.Op, tm *phaseTimer) ([]workload.Op, *Error) {
	switch {
	case strings.HasPrefix(k, "runtime"), strings.HasPrefix(k, "run"):
		d, err := rd.usec(v, ef)
		if err != nil {
			return nil, err
		}
		ops = append(ops, workload.RunOp(workload.Fixed(d)))
	case strings.HasPrefix(k, "sleep"):
		d, err := rd.usec(v, ef)
		if err != nil {
			return nil, err
		}
		ops = append(ops, workload.SleepOp(workload.Fixed(d)))
	case strings.HasPrefix(k, "timer"):
		if v.kind != jObject || v.get("period") == nil {
			return nil, rd.errAt(v, ef, "want an object with a period")
		}
		d, err := rd.usec(v.get("period"), ef+".period")
		if err != nil {
			return nil, err
		}
		if d == 0 {
			return nil, rd.errAt(v, ef+".period", "a timer period must be positive")
		}
		if tm.period != 0 {
			rd.warn(v, "%s: a second timer in a phase cannot be expressed; imported as a sleep of its period", ef)
			return append(ops, workload.SleepOp(workload.Fixed(d))), nil
		}
		tm.period, tm.last = d, true
	case strings.HasPrefix(k, "lock"), strings.HasPrefix(k, "unlock"):
		rd.warn(v, "%s: mutexes cannot be expressed; left out", ef)
	case strings.HasPrefix(k, "broad"):
		rd.warn(v, "%s: a broadcast cannot be expressed (the number of waiters is not known); left out", ef)
	case strings.HasPrefix(k, "yield"):
		ops = append(ops, workload.Op{Kind: workload.Yield})
	case strings.HasPrefix(k, "mem"), strings.HasPrefix(k, "iorun"):
		rd.warn(v, "%s: memory and I/O load cannot be expressed; left out", ef)
	default:
		return rd.syncEvent(task, k, ef, v, ops)
	}
	return ops, nil
}

// syncEvent converts the events between threads (signal, wait, sync, suspend, resume, barrier,
// fork) as event does.
func (rd *rtappReader) syncEvent(task, k, ef string, v *jnode, ops []workload.Op) ([]workload.Op, *Error) {
	switch {
	case strings.HasPrefix(k, "signal"):
		s, err := rd.strOf(v, ef)
		if err != nil {
			return nil, err
		}
		rd.warn(v, "%s: a condition variable is imported as a pipe, which keeps a signal no thread waits for", ef)
		ops = append(ops, workload.SendOp(rd.pipe(s), 1))
	case strings.HasPrefix(k, "wait"), strings.HasPrefix(k, "sync"):
		if v.kind != jObject || v.get("ref") == nil {
			return nil, rd.errAt(v, ef, "want an object with a ref")
		}
		s, err := rd.strOf(v.get("ref"), ef+".ref")
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(k, "sync") {
			ops = append(ops, workload.SendOp(rd.pipe(s), 1))
		}
		ops = append(ops, workload.RecvOp(rd.pipe(s), 1))
	case strings.HasPrefix(k, "suspend"):
		ops = append(ops, workload.RecvOp(rd.pipe("suspend-"+task), 1))
	case strings.HasPrefix(k, "resume"):
		s, err := rd.taskOf(v, ef)
		if err != nil {
			return nil, err
		}
		ops = append(ops, workload.SendOp(rd.pipe("suspend-"+s), 1))
	case strings.HasPrefix(k, "barrier"):
		s, err := rd.strOf(v, ef)
		if err != nil {
			return nil, err
		}
		users := rd.barrierOf[s]
		for _, u := range users {
			if u != task {
				ops = append(ops, workload.SendOp(rd.pipe("barrier-"+s+"-"+u), 1))
			}
		}
		if len(users) > 1 {
			ops = append(ops, workload.RecvOp(rd.pipe("barrier-"+s+"-"+task), len(users)-1))
		}
	case strings.HasPrefix(k, "fork"):
		s, err := rd.taskOf(v, ef)
		if err != nil {
			return nil, err
		}
		ops = append(ops, workload.ForkOp(sanitize(s), 1))
	default:
		return nil, rd.errAt(v, ef, "unknown event %q", k)
	}
	return ops, nil
}
