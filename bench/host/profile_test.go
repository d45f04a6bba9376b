package host

import (
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spread returns a cost of median d with a tail.
func spread(d time.Duration) sim.Cost {
	return sim.Cost{Min: d * 8 / 10, P50: d, P90: d * 13 / 10, P99: 3 * d, P999: 5 * d, Max: 10 * d}
}

// synthetic builds the measurements the probes would make of a machine whose steps cost what
// the arguments say (medians; the sums the probes see, with the spread of the probed step), so
// that Derive can be checked to take them apart again.
func synthetic(wake, send, ipi, exit, timer, sw, mm, refill, mig, tick, syscall, pipe time.Duration) Measurements {
	f := sim.Fixed
	return Measurements{
		FutexWake:  f(syscall),
		WakeLocal:  f(syscall + wake),
		WakeRemote: spread(syscall + wake + send),
		// The model's remote wake-up of a thread on an idle CPU: wakeup, IPI, idle exit.
		PingRemote: less(spread(syscall+wake+ipi+exit), 0),
		PipeRW:     f(pipe),
		// One wake-up a round trip, as on Linux 6.18 (the woken reader preempts the writer).
		PerfPipeThreads:      f(2*(pipe+sw+refill) + wake),
		PerfPipe:             f(2*(pipe+sw+mm+refill) + wake),
		PerfPipeThreadsWakes: 1,
		PerfPipeWakes:        1,
		TimerBusy:            spread(timer + sw + refill),
		TimerIdle:            spread(timer + exit),
		Tick:                 f(tick),
		Hz:                   250,
		Refill:               f(refill),
		Migration:            map[topology.Level]sim.Cost{topology.Node: f(mig)},
		Pipe100:              f(pipe + 100),
		Socket100:            f(pipe + 700),
	}
}

func TestDeriveRecoversTheSteps(t *testing.T) {
	us := time.Microsecond
	m := synthetic(800*time.Nanosecond, 13*us, 17*us, 15*us, 16*us, 6*us, 9*us, 300*time.Nanosecond, 2*us, 3*us, 1100*time.Nanosecond, 2500*time.Nanosecond)
	figs, prog, err := Derive(m, "2026-01-02")
	require.NoError(t, err)
	want := map[string]time.Duration{"wakeup": 800 * time.Nanosecond, "ipi_send": 13 * us, "ipi": 17 * us, "idle_exit": 15 * us,
		"timer": 16 * us, "switch": 6 * us, "switch_mm": 9 * us, "refill": 300 * time.Nanosecond, "migration_node": 2 * us, "tick": 3 * us}
	for name, d := range want {
		assert.Equal(t, d, figs[name].Cost.P50, name)
		assert.NotEmpty(t, figs[name].Method, name)
		assert.Empty(t, figs[name].Assumed, name)
	}
	// Levels the machine has not take the nearest measured one's figure, marked.
	for _, name := range []string{"migration_smt", "migration_llc", "migration_remote"} {
		assert.Equal(t, 2*us, figs[name].Cost.P50, name)
		assert.Contains(t, figs[name].Assumed, "no two CPUs sharing", name)
		assert.Contains(t, figs[name].Method, "nearest level measured, node", name)
	}
	assert.Equal(t, 2500*time.Nanosecond, prog["pipe"].Cost.P50)
	assert.Contains(t, prog, "pipe100")
	assert.Contains(t, prog, "socket100")
	// The timer keeps TimerBusy's spread, shifted by the switch and refill.
	assert.Equal(t, spread(16*us+6*us+300*time.Nanosecond).P99-6*us-300*time.Nanosecond, figs["timer"].Cost.P99)
	// Every figure makes a profile that parses.
	p := &sim.Profile{Name: "t", Figures: figs, Program: prog, Machine: sim.ProfileMachine{Hz: 250}}
	b, err := p.MarshalJSON()
	require.NoError(t, err)
	_, err = sim.ParseProfile("t.json", b)
	require.NoError(t, err)
}

// TestDeriveIdleExitByQuantile: the model draws the idle exit after a timer's wake-up at the
// timer's point of its distribution (sim.Idle.ExitLatency), so Derive takes the exit as the
// sleeper's lateness on an idle CPU less the timer quantile by quantile: drawn together, the
// two give back the measured lateness at every quantile. Taking only the timer's median away
// left the timer's tail in the exit's, and the draw added it twice (the ci profile of
// 2026-12-05: 2437 + 2779 µs at p99.9, where the sleeper measured 2804).
func TestDeriveIdleExitByQuantile(t *testing.T) {
	us := time.Microsecond
	sw, refill := 6*us, 300*time.Nanosecond
	m := synthetic(800*time.Nanosecond, 13*us, 17*us, 15*us, 16*us, sw, 9*us, refill, 2*us, 3*us, 1100*time.Nanosecond, 2500*time.Nanosecond)
	timer := sim.Cost{Min: 12 * us, P50: 24 * us, P90: 41 * us, P99: 62 * us, P995: 300 * us, P999: 2437 * us, Max: 2661 * us}
	exit := sim.Cost{Min: 2 * us, P50: 16 * us, P90: 26 * us, P99: 560 * us, P995: 800 * us, P999: 900 * us, Max: 1000 * us}
	m.TimerBusy = less(timer, -(sw + refill))
	qt, qe := quantiles(timer), quantiles(exit)
	var whole [7]time.Duration
	for i := range whole {
		whole[i] = qt[i] + qe[i]
	}
	m.TimerIdle = fromQuantiles(whole)
	figs, _, err := Derive(m, "2026-01-02")
	require.NoError(t, err)
	assert.Equal(t, timer, figs["timer"].Cost)
	assert.Equal(t, exit, figs["idle_exit"].Cost)
	assert.Contains(t, figs["idle_exit"].Method, "quantile by quantile")
}

// TestDeriveTimerAsDerive: the timer's figures re-derived alone, with the switch and refill a
// whole derivation took away, are the whole derivation's; without the timer probes there are
// none.
func TestDeriveTimerAsDerive(t *testing.T) {
	us := time.Microsecond
	sw, refill := 6*us, 300*time.Nanosecond
	m := synthetic(800*time.Nanosecond, 13*us, 17*us, 15*us, 16*us, sw, 9*us, refill, 2*us, 3*us, 1100*time.Nanosecond, 2500*time.Nanosecond)
	for _, p := range []time.Duration{50 * us, 100 * us, 200 * us, 300 * us} {
		late := 16 * us
		if p > 200*us {
			late += 15 * us
		}
		m.IdleByPeriod = append(m.IdleByPeriod, IdleLateness{Period: p, Late: spread(late)})
	}
	whole, _, err := Derive(m, "2026-01-02")
	require.NoError(t, err)
	alone, err := DeriveTimer(m, sw+refill, "2026-01-02")
	require.NoError(t, err)
	require.Len(t, alone, 3)
	for name, f := range alone {
		assert.Equal(t, whole[name], f, name)
	}
	m.TimerIdle = sim.Cost{}
	_, err = DeriveTimer(m, sw+refill, "2026-01-02")
	assert.ErrorContains(t, err, "no timer on an idle CPU measurement")
}

// TestDerivePollWindow: a machine that polls 200 µs before it halts (a KVM guest): the sleeper
// is early at periods whose idle time is within the window and late beyond it, and a
// ping-pong whose CPUs are idle for less than the window carries no idle exit.
func TestDerivePollWindow(t *testing.T) {
	us := time.Microsecond
	const window = 200 * time.Microsecond
	timer, exit := 16*us, 15*us
	m := synthetic(800*time.Nanosecond, 13*us, 8*us, exit, timer, 6*us, 9*us, 300*time.Nanosecond, 2*us, 3*us, 1100*time.Nanosecond, 2500*time.Nanosecond)
	m.PingRemote = spread(1100*time.Nanosecond + 800*time.Nanosecond + 8*us) // no exit: idle ~20 µs
	for _, p := range []time.Duration{50 * us, 100 * us, 150 * us, 200 * us, 250 * us, 300 * us, 400 * us} {
		late := timer
		if p-5*us-timer > window {
			late = timer + exit
		}
		m.IdleByPeriod = append(m.IdleByPeriod, IdleLateness{Period: p, Late: spread(late)})
	}
	figs, _, err := Derive(m, "2026-01-02")
	require.NoError(t, err)
	// Early up to 200 µs (179 µs idle), late from 250 µs (214 µs idle): the midpoint.
	assert.Equal(t, sim.Fixed((179*us+214*us)/2), figs["idle_poll"].Cost)
	assert.Contains(t, figs["idle_poll"].Method, "by period")
	assert.Equal(t, 8*us, figs["ipi"].Cost.P50, "the ping-pong's idle is within the window: no exit in it")
	assert.Contains(t, figs["ipi"].Method, "within the poll window")
	assert.Equal(t, exit, figs["idle_exit"].Cost.P50)

	// A machine that halts at once: late at every period, no window.
	for i := range m.IdleByPeriod {
		m.IdleByPeriod[i].Late = spread(timer + exit)
	}
	m.PingRemote = spread(1100*time.Nanosecond + 800*time.Nanosecond + 8*us + exit)
	figs, _, err = Derive(m, "2026-01-02")
	require.NoError(t, err)
	assert.NotContains(t, figs, "idle_poll")
	assert.Equal(t, 8*us, figs["ipi"].Cost.P50)
}

// TestPollWindowFirstStep: the two calibrations of the CI machine type on 2026-12-05, whose
// sleeper's lateness rises once between the 200 and 250 µs periods (the guest's halt polling
// ends) and, in the second, again between 600 µs and 1 ms. Both give the first step's window;
// taking the midpoint of the shortest and longest latenesses instead put the second at 746 µs.
func TestPollWindowFirstStep(t *testing.T) {
	periods := []time.Duration{50, 100, 150, 200, 250, 300, 400, 600}
	cases := []struct {
		name string
		late []time.Duration // ns, one per period
		long time.Duration
		want time.Duration
	}{
		// 200 µs: 200 − 5 − 20.97 = 174.03 µs idle; 250 µs: 250 − 5 − 34.528 = 210.472 µs idle.
		{"one step", []time.Duration{25515, 21174, 20915, 20970, 34528, 34657, 35405, 37443}, 40123, (174030 + 210472) / 2},
		// The rise is 60.927 − 21.029 µs; a quarter of it above 21.029 µs is 31.0 µs, which
		// 250 µs's 34.161 µs crosses first: 174.52 and 210.839 µs idle.
		{"two steps", []time.Duration{21029, 20425, 21735, 20480, 34161, 34399, 34856, 36469}, 60927, (174520 + 210839) / 2},
	}
	for _, c := range cases {
		var by []IdleLateness
		for i, p := range periods {
			by = append(by, IdleLateness{Period: p * time.Microsecond, Late: sim.Fixed(c.late[i])})
		}
		w, how := pollWindow(by, c.long)
		assert.Equal(t, c.want, w, c.name)
		assert.Contains(t, how, "250µs: ", c.name)
	}
}

// TestDeriveSwitchWithinSpreads checks that a switch a little below 0, within the spreads of
// the medians it is the difference of, is 0 and says why, as calibrate found on the CI
// machine type when it took a wake-up out of each way of the round trip: half of perf bench
// sched pipe -T's 7.072 µs less a pipe write+read of 2.565 µs, a wakeup of 672 ns and a refill
// of 390 ns is −91 ns (with the one wake-up a round trip Linux 6.18 makes, 245 ns).
func TestDeriveSwitchWithinSpreads(t *testing.T) {
	us := time.Microsecond
	m := synthetic(800*time.Nanosecond, 13*us, 17*us, 15*us, 16*us, 6*us, 9*us, 300*time.Nanosecond, 2*us, 3*us, 1100*time.Nanosecond, 2500*time.Nanosecond)
	figs, _, err := Derive(m, "2026-01-02")
	require.NoError(t, err)
	sw := figs["switch"].Cost.P50
	// Take the switch's median, and 50 ns more, out of the round trip: the switch comes out 50 ns
	// below 0, where the pipe's write+read spreads by 750 ns (p90 − p50).
	m.PerfPipeThreads = less(m.PerfPipeThreads, 2*(sw+50*time.Nanosecond))
	m.PipeRW = spread(m.PipeRW.P50)
	figs, _, err = Derive(m, "2026-01-02")
	require.NoError(t, err)
	assert.Zero(t, figs["switch"].Cost.P50)
	assert.Contains(t, figs["switch"].Method, "-50ns, within the terms' spreads")
}

// TestDeriveCountsWakeups: the switch and the switch of address space come from perf bench
// sched pipe's round trips less as many wake-ups as the runs counted. A kernel whose woken
// reader does not preempt the writer blocks both reads of a round trip, two wake-ups; the same
// round trips with one wake-up counted leave the other's time to the switches.
func TestDeriveCountsWakeups(t *testing.T) {
	us := time.Microsecond
	wake, sw, mm := 800*time.Nanosecond, 6*us, 9*us
	m := synthetic(wake, 13*us, 17*us, 15*us, 16*us, sw, mm, 300*time.Nanosecond, 2*us, 3*us, 1100*time.Nanosecond, 2500*time.Nanosecond)
	m.PerfPipeThreads, m.PerfPipeThreadsWakes = less(m.PerfPipeThreads, -wake), 2
	m.PerfPipe, m.PerfPipeWakes = less(m.PerfPipe, -wake), 2
	m.TimerBusy = spread(16*us + sw + 300*time.Nanosecond)
	figs, _, err := Derive(m, "2026-01-02")
	require.NoError(t, err)
	assert.Equal(t, sw, figs["switch"].Cost.P50)
	assert.Equal(t, mm, figs["switch_mm"].Cost.P50)
	assert.Equal(t, 16*us, figs["timer"].Cost.P50)
	assert.Contains(t, figs["switch"].Method, "its 2.000 wake-ups a round trip")

	// The same round trips counted with one wake-up: half of the other goes to each switch.
	m.PerfPipeThreadsWakes, m.PerfPipeWakes = 1, 1
	figs, _, err = Derive(m, "2026-01-02")
	require.NoError(t, err)
	assert.Equal(t, sw+wake/2, figs["switch"].Cost.P50)
	assert.Equal(t, mm, figs["switch_mm"].Cost.P50)
	// Processes that block once more a round trip than threads: that wake-up is not the
	// address space's.
	m.PerfPipeWakes = 2
	figs, _, err = Derive(m, "2026-01-02")
	require.NoError(t, err)
	assert.Equal(t, mm-wake/2, figs["switch_mm"].Cost.P50)

	m.PerfPipeWakes = 0
	_, _, err = Derive(m, "2026-01-02")
	assert.ErrorContains(t, err, "no count of perf bench sched pipe's wake-ups")
}

// TestMedianOfWakes: the repetitions' wake-up counts combine as their median, over those
// that counted.
func TestMedianOfWakes(t *testing.T) {
	m := medianOf([]Measurements{{PerfPipeThreadsWakes: 1.2, PerfPipeWakes: 2}, {PerfPipeThreadsWakes: 1.0}, {PerfPipeThreadsWakes: 1.1, PerfPipeWakes: 1}})
	assert.InDelta(t, 1.1, m.PerfPipeThreadsWakes, 1e-12)
	assert.InDelta(t, 2.0, m.PerfPipeWakes, 1e-12, "the upper of two middle ones, as costOf's median")
}

func TestDeriveRefusesDisagreement(t *testing.T) {
	us := time.Microsecond
	ok := func() Measurements {
		return synthetic(800*time.Nanosecond, 13*us, 17*us, 15*us, 16*us, 6*us, 9*us, 300*time.Nanosecond, 2*us, 3*us, 1100*time.Nanosecond, 2500*time.Nanosecond)
	}
	cases := []struct {
		name string
		edit func(m *Measurements)
		want string
	}{
		{"no tick", func(m *Measurements) { m.Tick = sim.Cost{} }, "no tick measurement"},
		{"switch below 0", func(m *Measurements) { m.PerfPipeThreads = sim.Fixed(4 * us) }, "the switch comes out as"},
		{"switch below 0 beyond the spreads", func(m *Measurements) { m.PerfPipeThreads = spread(4 * us) }, "disagree beyond their spreads"},
		{"threads dearer than processes", func(m *Measurements) { m.PerfPipe = sim.Fixed(10 * us) }, "the switch of address space comes out as"},
		{"remote cheaper than local", func(m *Measurements) { m.WakeRemote = sim.Fixed(time.Microsecond) }, "the IPI's send comes out as"},
		{"idle faster than busy", func(m *Measurements) { m.TimerIdle = sim.Fixed(10 * us) }, "the idle exit comes out as"},
		{"no migration", func(m *Measurements) { m.Migration = nil }, "no migration measured"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := ok()
			tc.edit(&m)
			_, _, err := Derive(m, "d")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCostOfAndClamp(t *testing.T) {
	c := costOf([]int64{5, -3, 1, 2, 4, 3, 100, 7, 8, 6})
	assert.Equal(t, sim.Cost{Min: -3, P50: 5, P90: 100, P99: 100, P995: 100, P999: 100, Max: 100}, c)
	assert.Equal(t, sim.Cost{Min: 0, P50: 5, P90: 100, P99: 100, P995: 100, P999: 100, Max: 100}, clamp(c))
	assert.Equal(t, sim.Cost{Min: 0, P50: 0, P90: 3, P99: 3, P995: 3, P999: 3, Max: 5}, minus(sim.Cost{Min: 1, P50: 2, P90: 8, P99: 5, Max: 10}, sim.Fixed(5)))
	var b strings.Builder
	require.NoError(t, WriteMeasurements(&b, Measurements{Tick: sim.Fixed(3000), Hz: 250, Skipped: []string{"perf: missing"}}))
	assert.Contains(t, b.String(), "tick (HZ=250)")
	assert.Contains(t, b.String(), "skipped: perf: missing")
	assert.NotContains(t, b.String(), "repetition")
	// A repeated probe prints its median and, under it, each repetition; one repetition prints none.
	b.Reset()
	one, two := sim.Fixed(40000), sim.Cost{Min: 30000, P50: 41000, P90: 50000, P99: 600000, Max: 700000}
	require.NoError(t, WriteMeasurements(&b, Measurements{TimerIdle: two, TimerIdleReps: []sim.Cost{one, two}, TimerBusy: one, TimerBusyReps: []sim.Cost{one}}))
	out := b.String()
	assert.Contains(t, out, "timer, idle CPU, repetition 1")
	assert.Contains(t, out, "timer, idle CPU, repetition 2")
	assert.Regexp(t, `timer, idle CPU, repetition 2 +30\.0 +41\.0 +50\.0 +600 +600 +600 +700`, out)
	assert.NotContains(t, out, "timer, busy CPU, repetition")
}

// TestFanoutFigures: the fan-out measurements become the program figures pipe100_fanout and
// socket100_fanout, whose methods name the probe's shape (hackbench's 20 receivers, each queue
// up to fanoutDepth messages), and the measurements' table shows them; a calibration that did
// not measure them has no such figures.
func TestFanoutFigures(t *testing.T) {
	m := Measurements{Pipe100Fanout: sim.Fixed(3100), Socket100Fanout: sim.Fixed(4900)}
	prog := programFigures(m, func(c sim.Cost, method string) sim.Figure { return sim.Figure{Cost: c, Unit: "us", Method: method} })
	require.Len(t, prog, 2)
	assert.Equal(t, 3100*time.Nanosecond, prog["pipe100_fanout"].Cost.P50)
	assert.Equal(t, 4900*time.Nanosecond, prog["socket100_fanout"].Cost.P50)
	assert.Contains(t, prog["pipe100_fanout"].Method, "round-robin into 20 pipes, each holding up to 128")
	assert.Contains(t, prog["socket100_fanout"].Method, "through 20 AF_UNIX stream socket pairs")
	var b strings.Builder
	require.NoError(t, WriteMeasurements(&b, m))
	assert.Contains(t, b.String(), "pipe write, read, 100 bytes, 20 pipes, one CPU to the other")
	assert.Contains(t, b.String(), "socket write, read, 100 bytes, 20 sockets, one CPU to the other")
	assert.NotContains(t, programFigures(Measurements{Socket100: sim.Fixed(3000)}, func(c sim.Cost, method string) sim.Figure { return sim.Figure{Cost: c} }), "socket100_fanout")
}

// TestSwitchMMRingFigure: the ring measurement becomes the program figure switch_mm_ring, whose
// method names the ring's size and what it is less; the measurements' table shows it; a
// calibration that did not measure it has no such figure.
func TestSwitchMMRingFigure(t *testing.T) {
	m := Measurements{SwitchMMRing: sim.Fixed(10800)}
	prog := programFigures(m, func(c sim.Cost, method string) sim.Figure { return sim.Figure{Cost: c, Unit: "us", Method: method} })
	require.Len(t, prog, 1)
	assert.Equal(t, 10800*time.Nanosecond, prog["switch_mm_ring"].Cost.P50)
	assert.Contains(t, prog["switch_mm_ring"].Method, "a ring of 20 processes pinned to one CPU")
	assert.Contains(t, prog["switch_mm_ring"].Method, "less the median hop of the same ring of threads")
	var b strings.Builder
	require.NoError(t, WriteMeasurements(&b, m))
	assert.Regexp(t, `switch to another process, a ring of 20 on one CPU +10\.8`, b.String())
	assert.NotContains(t, programFigures(Measurements{Fault: sim.Fixed(3000)}, func(c sim.Cost, method string) sim.Figure { return sim.Figure{Cost: c} }), "switch_mm_ring")
}
