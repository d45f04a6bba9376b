package host

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/sim"
)

// timerTraceText is perf script's text of a CPU on which the probe (tid 100) sleeps to its
// deadlines beside a hog (tid 200), and another sleeper (tid 300) wakes once. perf's clock is
// CLOCK_MONOTONIC plus 1 ms here (the expiries' now say so).
const timerTraceText = `
100 [001] 1000.000000000:        timer:hrtimer_start: hrtimer=0xa function=hrtimer_wakeup expires=1000001000001 softexpires=1000001000000 mode=0x0 was_armed=0
100 [001] 1000.000000500:         sched:sched_switch: prev_comm=p prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=h next_pid=200 next_prio=139
200 [001] 1000.000100000: timer:hrtimer_expire_entry: hrtimer=0xt function=tick_nohz_handler now=999999100000
200 [001] 1001.002008000: timer:hrtimer_expire_entry: hrtimer=0xa function=hrtimer_wakeup now=1000001008000
200 [001] 1001.002009000:         sched:sched_waking: comm=p pid=100 prio=120 target_cpu=001
200 [001] 1001.002017000:         sched:sched_switch: prev_comm=h prev_pid=200 prev_prio=139 prev_state=R+ ==> next_comm=p next_pid=100 next_prio=120
100 [001] 1001.002030000:        timer:hrtimer_start: hrtimer=0xa function=hrtimer_wakeup expires=1000002000001 softexpires=1000002000000 mode=0x0 was_armed=0
300 [001] 1001.002031000:        timer:hrtimer_start: hrtimer=0xb function=hrtimer_wakeup expires=1000002000501 softexpires=1000002000500 mode=0x0 was_armed=0
100 [001] 1001.002032000:         sched:sched_switch: prev_comm=p prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=h next_pid=200 next_prio=139
200 [001] 1001.003010000: timer:hrtimer_expire_entry: hrtimer=0xa function=hrtimer_wakeup now=1000002010000
200 [001] 1001.003011500:         sched:sched_waking: comm=p pid=100 prio=120 target_cpu=001
200 [001] 1001.003012000: timer:hrtimer_expire_entry: hrtimer=0xb function=hrtimer_wakeup now=1000002012000
200 [001] 1001.003013000:         sched:sched_waking: comm=q pid=300 prio=120 target_cpu=001
200 [001] 1001.003200000:         sched:sched_switch: prev_comm=h prev_pid=200 prev_prio=139 prev_state=S ==> next_comm=q next_pid=300 next_prio=120
300 [001] 1001.003300000:         sched:sched_switch: prev_comm=q prev_pid=300 prev_prio=120 prev_state=S ==> next_comm=p next_pid=100 next_prio=120
`

// TestParseTimerTrace: the probe's wake-ups are timed from their deadlines (softexpires): the
// expiry on the hrtimer's clock, the waking and the switch-in on perf's from the expiry; a
// switch-in that replaced a thread that blocked is no wake-up preemption; the other
// sleeper's wake-up (fewer) is not the probe's.
func TestParseTimerTrace(t *testing.T) {
	ws, err := parseTimerTrace(strings.NewReader(timerTraceText))
	require.NoError(t, err)
	us := time.Microsecond
	assert.Equal(t, []timerWake{
		{expiry: 8 * us, waking: 9 * us, switchIn: 17 * us},
		{expiry: 10 * us, waking: 11500 * time.Nanosecond, switchIn: -1},
	}, ws)
	ex, wk, sw, preempted, ok := timerSplit(ws)
	require.True(t, ok)
	assert.Equal(t, 1, preempted)
	assert.Equal(t, 8*us, ex.Min)
	assert.Equal(t, 10*us, ex.Max)
	assert.Equal(t, 11500*time.Nanosecond, wk.P50)
	assert.Equal(t, sim.Fixed(8*us), sw) // waking to switch-in of the one that preempted
	_, _, _, _, ok = timerSplit(nil)
	assert.False(t, ok)
}

// TestParseTimerTraceWokenRunning: a timer that expires before its sleeper is off the CPU
// wakes it without a switch-in (try_to_wake_up of the running task): that wake-up is no
// preemption, and the sleeper's next switch-in, a period later, is its next wake-up's.
func TestParseTimerTraceWokenRunning(t *testing.T) {
	const text = `
100 [001] 1000.000000000:        timer:hrtimer_start: hrtimer=0xa function=hrtimer_wakeup expires=1000001000001 softexpires=1000001000000 mode=0x0 was_armed=0
100 [001] 1001.002005000: timer:hrtimer_expire_entry: hrtimer=0xa function=hrtimer_wakeup now=1000001005000
100 [001] 1001.002006000:         sched:sched_waking: comm=p pid=100 prio=120 target_cpu=001
100 [001] 1001.002010000:        timer:hrtimer_start: hrtimer=0xa function=hrtimer_wakeup expires=1000002000001 softexpires=1000002000000 mode=0x0 was_armed=0
100 [001] 1001.002011000:         sched:sched_switch: prev_comm=p prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=h next_pid=200 next_prio=139
200 [001] 1001.003007000: timer:hrtimer_expire_entry: hrtimer=0xa function=hrtimer_wakeup now=1000002007000
200 [001] 1001.003008000:         sched:sched_waking: comm=p pid=100 prio=120 target_cpu=001
200 [001] 1001.003015000:         sched:sched_switch: prev_comm=h prev_pid=200 prev_prio=139 prev_state=R ==> next_comm=p next_pid=100 next_prio=120
`
	// Without the sleeper's switch-out (an event the trace lost), its next waking ends the
	// earlier one.
	lost := strings.Replace(text, "100 [001] 1001.002011000:         sched:sched_switch: prev_comm=p prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=h next_pid=200 next_prio=139\n", "", 1)
	require.NotEqual(t, text, lost)
	us := time.Microsecond
	for _, tx := range []string{text, lost} {
		ws, err := parseTimerTrace(strings.NewReader(tx))
		require.NoError(t, err)
		assert.Equal(t, []timerWake{
			{expiry: 5 * us, waking: 6 * us, switchIn: -1},
			{expiry: 7 * us, waking: 8 * us, switchIn: 15 * us},
		}, ws)
	}
}

// TestParseTimerTraceBadLine: a line that is not perf script's, or a field that is not a
// number, is an error naming its line.
func TestParseTimerTraceBadLine(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"100 [001] 1000.000000000: timer:hrtimer_start: hrtimer=0xa function=hrtimer_wakeup softexpires=soon\n", "line 1: timer:hrtimer_start: field softexpires=\"soon\" is not an integer"},
		{"\nnot a trace line\n", "line 2: want"},
		{"100 [001] 1000.000001: sched:sched_waking: pid=100\n", "line 1: time \"1000.000001:\" is not seconds with 9 decimals"},
	} {
		_, err := parseTimerTrace(strings.NewReader(c.text))
		assert.ErrorContains(t, err, c.want, c.text)
	}
}

// TestDeriveTimerTraced: with the trace, the timer is the deadline to the waking (the switch,
// refill and the way to the switch-in left to what follows in the model), and the idle exit the
// rest of the idle sleeper's lateness, quantile by quantile; without it, the fallback's
// figure, TimerBusy less the switch and refill, its method naming why.
func TestDeriveTimerTraced(t *testing.T) {
	us := time.Microsecond
	sw, refill := 6*us, 300*time.Nanosecond
	m := synthetic(800*time.Nanosecond, 13*us, 17*us, 15*us, 16*us, sw, 9*us, refill, 2*us, 3*us, 1100*time.Nanosecond, 2500*time.Nanosecond)
	m.TimerUntraced = "not root: the kernel's tracepoints need it"
	figs, err := DeriveTimer(m, sw+refill, "2026-01-02")
	require.NoError(t, err)
	assert.Equal(t, less(m.TimerBusy, sw+refill), figs["timer"].Cost)
	assert.True(t, strings.HasPrefix(figs["timer"].Method, "untraced (not root: the kernel's tracepoints need it): "), figs["timer"].Method)
	_, has := figs["timer_exit"]
	assert.False(t, has, "untraced, the way to the switch-in is not measured: no timer_exit")

	m.TimerWaking, m.TimerExpiry, m.TimerWakeSwitch = spread(7*us), spread(6*us), spread(8*us)
	m.TimerUntraced = ""
	figs, err = DeriveTimer(m, sw+refill, "2026-01-02")
	require.NoError(t, err)
	assert.Equal(t, spread(7*us), figs["timer"].Cost)
	assert.Equal(t, minus(m.TimerIdle, spread(7*us)), figs["idle_exit"].Cost)
	assert.Contains(t, figs["timer"].Method, "traced (perf record of hrtimer_start")
	assert.Contains(t, figs["timer"].Method, "median 7µs; the expiry, hrtimer_expire_entry's now, median 6µs")
	assert.NotContains(t, figs["timer"].Method, "untraced")
	// timer_exit: the waking to the switch-in less the switch and the refill, quantile by
	// quantile.
	te := figs["timer_exit"]
	q := quantiles(spread(8 * us))
	assert.Equal(t, sim.Cost{Min: q[0] - sw - refill, P50: 8*us - sw - refill, P90: q[2] - sw - refill, P99: q[3] - sw - refill,
		P995: q[4] - sw - refill, P999: q[5] - sw - refill, Max: q[6] - sw - refill}, te.Cost)
	assert.Contains(t, te.Method, "sched_waking to its sched_switch in (median 8µs")
	assert.Contains(t, te.Method, "less the switch and the refill the model charges when it runs (6.3µs)")
	assert.Equal(t, "2026-01-02", te.Date)

	// A median waking that comes out negative is refused.
	m.TimerWaking = sim.Cost{Min: -2 * us, P50: -us, P90: us, P99: us, Max: us}
	_, err = DeriveTimer(m, sw+refill, "2026-01-02")
	assert.ErrorContains(t, err, "the timer comes out as -1µs")
}
