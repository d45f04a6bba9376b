package host

// This file implements the traced timer probe: the sleeper beside its hog with perf recording
// the probed CPU's hrtimer and scheduler tracepoints, so that the timer's own lateness (the
// deadline to the sleeper's waking) is seen apart from the way to its switch-in.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// timerTraceEvents are the tracepoints the traced timer probe records: the sleeper's timer
// armed (its deadline) and run, its waking, and its switch-in.
var timerTraceEvents = []string{"timer:hrtimer_start", "timer:hrtimer_expire_entry", "sched:sched_waking", "sched:sched_switch"}

// timerTracing returns why the timer probe cannot run traced here, or "" where it can: the
// tracepoints need root and perf.
func timerTracing() string {
	if os.Geteuid() != 0 {
		return "not root: the kernel's tracepoints need it"
	}
	if _, err := exec.LookPath("perf"); err != nil {
		return "perf is not installed (Debian: linux-perf)"
	}
	return ""
}

// probeTimerTraced is probeTimerSamples with perf recording cpu's tracepoints meanwhile (perf
// itself on other, where there is another CPU), and returns with the lateness the timer
// wake-ups the trace shows (parseTimerTrace). An error of the probe is err; one of the trace
// alone is traceErr, with the probe's samples.
func probeTimerTraced(ctx context.Context, cpu, other topology.CPU, n int, period time.Duration, hog bool) (h *sim.Histogram, ws []timerWake, traceErr, err error) {
	dir, err := os.MkdirTemp("", "schedkit-timertrace")
	if err != nil {
		return nil, nil, nil, err
	}
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "perf.data")
	args := []string{"record", "-q", "-C", fmt.Sprint(int(cpu)), "-o", data}
	for _, e := range timerTraceEvents {
		args = append(args, "-e", e)
	}
	rec := exec.Command("perf", args...)
	if other != cpu {
		rec = exec.Command("taskset", append([]string{"-c", fmt.Sprint(int(other)), "perf"}, args...)...)
	}
	var stderr strings.Builder
	rec.Stderr = &stderr
	if err := rec.Start(); err != nil {
		return nil, nil, nil, err
	}
	// perf record needs a moment to open its events: a wake-up it misses is left out, not
	// mismeasured.
	time.Sleep(500 * time.Millisecond)
	h, err = probeTimerSamples(ctx, cpu, n, period, hog)
	_ = rec.Process.Signal(os.Interrupt)
	// perf record writes its data on SIGINT, then raises the signal again to die of it.
	if werr := rec.Wait(); werr != nil && !diedOf(rec.ProcessState, syscall.SIGINT) && err == nil {
		return h, nil, fmt.Errorf("perf record: %w: %s", werr, strings.TrimSpace(stderr.String())), nil
	}
	if err != nil {
		return nil, nil, nil, err
	}
	script := exec.CommandContext(ctx, "perf", "script", "-i", data, "-F", "tid,cpu,time,event,trace", "--ns")
	out, serr := script.Output()
	if serr != nil {
		var ee *exec.ExitError
		if errors.As(serr, &ee) {
			serr = fmt.Errorf("%w: %s", serr, strings.TrimSpace(string(ee.Stderr)))
		}
		return h, nil, fmt.Errorf("perf script: %w", serr), nil
	}
	if ws, traceErr = parseTimerTrace(strings.NewReader(string(out))); traceErr == nil && len(ws) < n/2 {
		traceErr = fmt.Errorf("the trace shows %d of the probe's %d timer wake-ups", len(ws), n)
	}
	return h, ws, traceErr, nil
}

// diedOf reports whether the process ended by signal sig.
func diedOf(ps *os.ProcessState, sig syscall.Signal) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// timerSteps are one traced repetition's quantiles of the steps timerSplit returns.
type timerSteps struct {
	expiry, waking, wakeSwitch sim.Cost
}

// startTimerTrace decides whether the timer probe beside the hog runs traced, and says so
// where it cannot.
func (c *calibration) startTimerTrace() {
	c.traced = nil
	if why := timerTracing(); why != "" {
		c.untraced(why)
	}
}

// untraced records why the timer probe beside the hog runs untraced (the first reason only),
// discards what traced repetitions gave, and says which method the timer figure falls back to.
func (c *calibration) untraced(why string) {
	if c.m.TimerUntraced != "" {
		return
	}
	c.m.TimerUntraced, c.traced, c.m.TimerWakingReps = why, nil, nil
	c.logf("the timer probe beside the hog runs untraced (%s): the timer figure is how late the sleeper ran less the model's charges after its wake-up (the switch and the refill)", why)
}

// timerRun runs one repetition of the timer probe (probeTimerSamples at 1 ms), beside the hog
// traced while tracing works (probeTimerTraced), and keeps the trace's steps.
func (c *calibration) timerRun(hog bool) (*sim.Histogram, error) {
	if !hog || c.m.TimerUntraced != "" {
		return probeTimerSamples(c.ctx, c.b, c.n, time.Millisecond, hog)
	}
	h, ws, traceErr, err := probeTimerTraced(c.ctx, c.b, c.a, c.n, time.Millisecond, hog)
	if err != nil {
		return nil, err
	}
	if traceErr != nil {
		c.untraced("its trace failed: " + traceErr.Error())
		return h, nil
	}
	ex, wk, sw, preempted, _ := timerSplit(ws)
	c.traced = append(c.traced, timerSteps{ex, wk, sw})
	c.m.TimerWakingReps = append(c.m.TimerWakingReps, wk)
	c.logf("  traced %d timer wake-ups: deadline to expiry median %v, to waking %v; %d preempted the hog at once, waking to switch-in median %v",
		len(ws), ex.P50, wk.P50, preempted, sw.P50)
	return h, nil
}

// finishTimerTrace makes the traced repetitions' steps into Measurements' (each the median of
// the repetitions', quantile by quantile) and returns the provenance's notes on them: the
// waking's spread, or which method the timer figure fell back to and why.
func (c *calibration) finishTimerTrace() []string {
	if c.m.TimerUntraced != "" || len(c.traced) == 0 {
		c.m.TimerUntraced = cmp.Or(c.m.TimerUntraced, "the timer probe beside the hog was not measured")
		return []string{fmt.Sprintf("timer probe beside the hog untraced (%s): the timer figure is the untraced method's", c.m.TimerUntraced)}
	}
	var ex, sw []sim.Cost
	for _, s := range c.traced {
		ex, sw = append(ex, s.expiry), append(sw, s.wakeSwitch)
	}
	c.m.TimerExpiry, c.m.TimerWaking, c.m.TimerWakeSwitch = MedianCost(ex), MedianCost(c.m.TimerWakingReps), MedianCost(sw)
	return []string{spreadNote("the timer beside the hog traced, deadline to the sleeper's sched_waking", c.n, c.m.TimerWakingReps)}
}
