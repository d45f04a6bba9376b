package host

// This file derives the timer's figures (timer, timer_exit, idle_exit, idle_poll) from the
// calibration's sleeper probes, alone (schedbench calibrate -timer) or as part of Derive.

import (
	"cmp"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
)

// DeriveTimer returns the figures timer, timer_exit (where the probe beside the hog ran
// traced: TimerWakeSwitch), idle_exit and idle_poll (where polling is seen) from m's timer
// probes alone (TimerBusy, TimerIdle, IdleByPeriod), as Derive makes them, given the
// switch and refill that a timer wake-up on a busy CPU pays beside the timer (switchRefill: a
// profile's switch and refill medians), each dated date: a profile's timer figures re-measured
// without the rest (CalibrateTimer). Its errors are Derive's for these figures.
func DeriveTimer(m Measurements, switchRefill time.Duration, date string) (map[string]sim.Figure, error) {
	for _, need := range []struct {
		name string
		c    sim.Cost
	}{{"timer on an idle CPU", m.TimerIdle}, {"timer on a busy CPU", m.TimerBusy}} {
		if need.c.Max <= 0 {
			return nil, fmt.Errorf("host: derive: no %s measurement", need.name)
		}
	}
	return deriveTimer(m, switchRefill, func(c sim.Cost, method string) sim.Figure {
		return sim.Figure{Cost: c, Unit: "us", Method: method, Date: date}
	})
}

// deriveTimer is DeriveTimer with Derive's fig.
func deriveTimer(m Measurements, switchRefill time.Duration, fig func(sim.Cost, string) sim.Figure) (map[string]sim.Figure, error) {
	figs := map[string]sim.Figure{}
	timer, how := timerFigure(m, switchRefill)
	if timer.P50 <= 0 {
		return nil, fmt.Errorf("host: derive: the timer comes out as %v (%s)", timer.P50, how)
	}
	figs["timer"] = fig(timer, how)
	exit := minus(m.TimerIdle, timer)
	if exit.P50 <= 0 {
		return nil, fmt.Errorf("host: derive: the idle exit comes out as %v (timer on an idle CPU %v, timer %v)", exit.P50, m.TimerIdle.P50, timer.P50)
	}
	figs["idle_exit"] = fig(exit, fmt.Sprintf("the same sleeper alone on its CPU, how late it ran (median %v), less the timer quantile by quantile (median %v)", m.TimerIdle.P50, timer.P50))
	if te, how, ok := timerExitFigure(m, switchRefill); ok {
		figs["timer_exit"] = fig(te, how)
	}
	if window, how := pollWindow(m.IdleByPeriod, m.TimerIdle.P50); window > 0 {
		figs["idle_poll"] = fig(sim.Fixed(window), how)
	}
	return figs, nil
}

// timerFigure returns the timer figure and its method: where the probe beside the hog ran
// traced, the deadline to the sleeper's sched_waking (TimerWaking), the timer's own lateness;
// otherwise how late the sleeper ran (TimerBusy) less what the model charges after a timer
// wake-up that preempts (switchRefill), which leaves the way from the waking to the switch-in
// in the figure.
//
// The model (bench/sim: Machine.armSleep, Machine.timer) makes the sleeper runnable Costs.Timer
// after its deadline and charges after that, on a busy CPU, Costs.Wakeup as interrupt time to
// the interrupted thread (cut where the wakee preempts it at once: it delays nobody), then the
// switch and the refill when the wakee runs, and the interrupt's way out (Costs.TimerExit,
// where the profile has it) before them when the wakee preempts at once, else to the
// interrupted thread; no IPI (the timer fires on the sleeper's CPU). So the timer holds what delays the wakee before it is runnable,
// the expiry and hrtimer_wakeup's way to try_to_wake_up, whether it then preempts or waits; the
// switch and refill are the model's; the rest of the way to a wake-up preemption's switch-in
// (try_to_wake_up's enqueue and check_preempt_curr, the interrupt's exit, schedule's pick)
// is left out of the traced figure: it is timer_exit (timerExitFigure).
func timerFigure(m Measurements, switchRefill time.Duration) (sim.Cost, string) {
	probe := "a thread sleeping to absolute 1 ms deadlines (clock_nanosleep, timer slack 1 ns) beside a SCHED_IDLE hog on its CPU"
	if m.TimerWaking.Max > 0 {
		return m.TimerWaking, fmt.Sprintf("%s, traced (perf record of hrtimer_start, hrtimer_expire_entry, sched_waking, sched_switch on its CPU): the deadline (hrtimer_start's softexpires) to the sched_waking of its hrtimer_wakeup (median %v; the expiry, hrtimer_expire_entry's now, median %v), what delays a timer-woken thread before it is runnable whether it then preempts or waits. Not in it: the wakeup (the interrupted thread's, the model's Costs.Wakeup), the switch and the refill (%v, the model's after the wake-up), and the rest of a wake-up preemption's way from the waking to the switch-in (median %v less the switch and the refill: timer_exit); how late the sleeper ran in all, median %v",
			probe, m.TimerWaking.P50, m.TimerExpiry.P50, switchRefill, m.TimerWakeSwitch.P50, m.TimerBusy.P50)
	}
	why := cmp.Or(m.TimerUntraced, "no trace measured")
	return less(m.TimerBusy, switchRefill), fmt.Sprintf("untraced (%s): %s, how late it ran (median %v), less what the model charges after a timer wake-up that preempts, the switch and the refill (%v; the wakeup is the interrupted thread's, and the model charges no exit from the interrupt): the expiry with the way from the waking to the switch-in, which the model then charges a woken thread that waits too",
		why, probe, m.TimerBusy.P50, switchRefill)
}

// timerExitFigure returns the figure timer_exit and its method, where the probe beside the hog
// ran traced and some wake-ups preempted it at once (TimerWakeSwitch): the way from the
// sleeper's sched_waking to its switch-in, less the switch and the refill the model charges
// when it runs (switchRefill), quantile by quantile, made a distribution again (a quantile
// below them is 0). Untraced, the figure is not measured (false) and left out: the untraced
// timer holds that way.
func timerExitFigure(m Measurements, switchRefill time.Duration) (sim.Cost, string, bool) {
	if m.TimerWakeSwitch.Max <= 0 {
		return sim.Cost{}, "", false
	}
	return less(m.TimerWakeSwitch, switchRefill), fmt.Sprintf("the timer probe beside the SCHED_IDLE hog, traced as for timer: of the wake-ups that preempted the hog at once, the sleeper's sched_waking to its sched_switch in (median %v: the rest of try_to_wake_up, of hrtimer_interrupt and irq_exit, schedule), less the switch and the refill the model charges when it runs (%v), quantile by quantile",
		m.TimerWakeSwitch.P50, switchRefill), true
}
