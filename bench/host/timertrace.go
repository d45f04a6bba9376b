package host

// This file implements the reading of a traced timer probe: perf script's text of the kernel's
// hrtimer_start, hrtimer_expire_entry, sched_waking and sched_switch tracepoints on the probed
// CPU, made into each timer wake-up's steps from the deadline to the sleeper's switch-in.

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
)

// A timerWake is one wake-up of a sleeper by its own timer, as a trace of the probed CPU shows
// it, each step counted from the deadline (hrtimer_start's softexpires: the absolute time the
// sleeper asked for, clock_nanosleep's, the timer slack after it being 1 ns):
//   - expiry: hrtimer_expire_entry's now, the hrtimer interrupt's run of the timer
//     (__hrtimer_run_queues);
//   - waking: the sched_waking of the sleeper that hrtimer_wakeup's try_to_wake_up emits;
//   - switchIn: the sched_switch that runs the sleeper next, or -1 where that switch did not
//     preempt the thread it replaced (its prev_state not R, the thread blocked, or prev_pid 0,
//     the CPU idle) or did not follow within the trace.
//
// The tracepoints' own clock (perf's) and the hrtimer's (CLOCK_MONOTONIC) differ by an offset:
// the steps after the expiry are timed on perf's clock from the expiry's event, whose now
// gives the offset.
type timerWake struct {
	expiry, waking, switchIn time.Duration
}

// parseTimerTrace reads perf script's output (-F tid,cpu,time,event,trace --ns) of the probed
// CPU and returns the timer wake-ups of the thread the most of them woke (the probe: on a
// shared machine other sleepers' timers fire on its CPU too). A line it cannot read is an
// error naming its number.
func parseTimerTrace(r io.Reader) ([]timerWake, error) {
	tr := timerTraceReader{timers: map[string]armedTimer{}, byTid: map[string][]timerWake{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		ev, err := readTraceLine(line)
		if err == nil {
			err = tr.event(&ev)
		}
		if err != nil {
			return nil, fmt.Errorf("host: timer trace: line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("host: timer trace: %w", err)
	}
	for _, o := range tr.waiting {
		tr.byTid[o.tid] = append(tr.byTid[o.tid], o.wake)
	}
	var best string
	for tid, ws := range tr.byTid {
		if len(ws) > len(tr.byTid[best]) || len(ws) == len(tr.byTid[best]) && tid < best {
			best = tid
		}
	}
	return tr.byTid[best], nil
}

// An armedTimer is a sleeper's timer armed: its deadline (CLOCK_MONOTONIC ns) and the thread.
type armedTimer struct {
	deadline int64
	tid      string
}

// An openWake is a timer wake-up under way in the trace: its thread, its steps so far, and the
// expiry's and the waking's times on perf's clock.
type openWake struct {
	tid                string
	wake               timerWake
	expiryAt, wakingAt int64
}

// A timerTraceReader is parseTimerTrace's state: the sleepers' timers armed by address, the
// wake-up whose expiry came last and has not woken yet, the woken not yet switched in, and the
// wake-ups done by thread.
type timerTraceReader struct {
	timers  map[string]armedTimer
	pending *openWake
	waiting []*openWake
	byTid   map[string][]timerWake
}

// event takes one event of the trace.
func (tr *timerTraceReader) event(ev *traceEvent) error {
	switch ev.name {
	case "timer:hrtimer_start":
		if ev.field("function") != "hrtimer_wakeup" {
			return nil
		}
		soft, err := ev.int("softexpires")
		tr.timers[ev.field("hrtimer")] = armedTimer{soft, ev.tid}
		return err
	case "timer:hrtimer_expire_entry":
		a, ok := tr.timers[ev.field("hrtimer")]
		tr.pending = nil
		if !ok || ev.field("function") != "hrtimer_wakeup" {
			return nil
		}
		delete(tr.timers, ev.field("hrtimer"))
		now, err := ev.int("now")
		tr.pending = &openWake{tid: a.tid, expiryAt: ev.at, wake: timerWake{expiry: time.Duration(now - a.deadline), switchIn: -1}}
		return err
	case "sched:sched_waking":
		if o := tr.pending; o != nil && ev.field("pid") == o.tid {
			tr.close(o.tid) // an earlier waking whose switch-in the trace lost
			o.wakingAt = ev.at
			o.wake.waking = o.wake.expiry + time.Duration(ev.at-o.expiryAt)
			tr.waiting, tr.pending = append(tr.waiting, o), nil
		}
	case "sched:sched_switch":
		tr.switchIn(ev)
	}
	return nil
}

// switchIn ends the woken wake-up of the thread a sched_switch runs, if any: at once (timed)
// where the thread it replaced was still runnable, a wake-up preemption. A woken wake-up of the
// thread it switches out ends untimed: its timer expired before the sleeper was off the CPU
// (try_to_wake_up of the running task, ttwu_runnable: a sched_waking, no switch-in), and the
// sleeper's next switch-in is its next wake-up's, a period later.
func (tr *timerTraceReader) switchIn(ev *traceEvent) {
	tr.close(ev.field("prev_pid"))
	next := ev.field("next_pid")
	for i, o := range tr.waiting {
		if o.tid != next {
			continue
		}
		if strings.HasPrefix(ev.field("prev_state"), "R") && ev.field("prev_pid") != "0" {
			o.wake.switchIn = o.wake.waking + time.Duration(ev.at-o.wakingAt)
		}
		tr.byTid[o.tid] = append(tr.byTid[o.tid], o.wake)
		tr.waiting = append(tr.waiting[:i], tr.waiting[i+1:]...)
		return
	}
}

// close ends the woken wake-ups of thread tid untimed (no switch-in: not a wake-up preemption).
func (tr *timerTraceReader) close(tid string) {
	tr.waiting = slices.DeleteFunc(tr.waiting, func(o *openWake) bool {
		if o.tid != tid {
			return false
		}
		tr.byTid[tid] = append(tr.byTid[tid], o.wake)
		return true
	})
}

// A traceEvent is one line of perf script's output: the thread it ran in, its time on perf's
// clock in nanoseconds, its name and its fields (key=value, the rest ignored).
type traceEvent struct {
	tid, name string
	at        int64
	fields    []string
}

// readTraceLine reads a line of perf script -F tid,cpu,time,event,trace --ns:
// "31019 [001] 24789.600526329: timer:hrtimer_start: hrtimer=0x… function=hrtimer_wakeup …".
func readTraceLine(line string) (traceEvent, error) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[1], "[") || !strings.HasSuffix(f[2], ":") || !strings.HasSuffix(f[3], ":") {
		return traceEvent{}, fmt.Errorf("want \"tid [cpu] seconds: event: fields\", got %q", line)
	}
	sec, frac, ok := strings.Cut(strings.TrimSuffix(f[2], ":"), ".")
	s, err1 := strconv.ParseInt(sec, 10, 64)
	ns, err2 := strconv.ParseInt(frac, 10, 64)
	if !ok || len(frac) != 9 || err1 != nil || err2 != nil {
		return traceEvent{}, fmt.Errorf("time %q is not seconds with 9 decimals (perf script --ns)", f[2])
	}
	return traceEvent{tid: f[0], name: strings.TrimSuffix(f[3], ":"), at: s*1e9 + ns, fields: f[4:]}, nil
}

// field returns the value of the event's field key, or "".
func (e *traceEvent) field(key string) string {
	for _, f := range e.fields {
		if k, v, ok := strings.Cut(f, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// int returns the event's field key as an integer.
func (e *traceEvent) int(key string) (int64, error) {
	v, err := strconv.ParseInt(e.field(key), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: field %s=%q is not an integer", e.name, key, e.field(key))
	}
	return v, nil
}

// timerSplit returns the quantiles of the traced wake-ups' steps: the deadline to the expiry,
// the deadline to the waking, and, of the wake-ups that preempted the CPU's thread at once, the
// waking to the switch-in. ok is false where ws holds no wake-up.
func timerSplit(ws []timerWake) (expiry, waking, wakeToSwitch sim.Cost, preempted int, ok bool) {
	if len(ws) == 0 {
		return expiry, waking, wakeToSwitch, 0, false
	}
	ex, wk, sw := make([]int64, len(ws)), make([]int64, len(ws)), []int64{}
	for i, w := range ws {
		ex[i], wk[i] = int64(w.expiry), int64(w.waking)
		if w.switchIn >= 0 {
			sw = append(sw, int64(w.switchIn-w.waking))
		}
	}
	return costOf(ex), costOf(wk), costOf(sw), len(sw), true
}
