package sim_test

// Hand-checkable runs of each cost of the path from decision to effect, with the toy round
// robin: the expected figures follow from the workload and Costs' rules, worked out beside them.

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const us = int64(time.Microsecond)

// crossCPU is a producer on CPU 0 waking a consumer on CPU 1 every 300us: each wake-up goes to
// an idle CPU on which nothing else ever runs.
const crossCPU = `
pipe p
thread producer cpus=0
	repeat 10
		run 300us
		send p
	end
end
thread consumer cpus=1
	repeat 10
		recv p
		run 100us
	end
end`

// TestWakeupPathCosts adds the steps of a cross-CPU wake-up one by one: the waker's
// try_to_wake_up (paid by the producer, before the consumer is runnable), the IPI, the idle
// exit. The consumer resumes where nothing else ran: no switch and no refill, whatever they
// cost, but for its first dispatch (a switch from nothing). Its wake-up latency is the sum; the
// producer's CPU time grows by its wakeup cost.
func TestWakeupPathCosts(t *testing.T) {
	w := mustParse(t, crossCPU)
	two := topology.Uniform(1, 1, 1, 2, 1)
	run := func(c sim.Costs, exit time.Duration) (*sim.ThreadStats, *sim.ThreadStats, *sim.Result) {
		cfg := sim.Config{Topology: two, Costs: c, Idle: sim.Idle{ExitLatency: sim.Fixed(exit)}}
		r := runChecked(t, cfg, newRR(1000, 4), w, time.Second)
		return thread(t, r, "producer"), thread(t, r, "consumer"), r
	}
	lat := func(s *sim.ThreadStats) []int64 {
		v, _ := s.Wakeup.Exact()
		return v
	}
	_, c0, _ := run(sim.Costs{}, 0)
	assert.Equal(t, []int64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, lat(c0), "ideal: every wake-up runs at once")

	unused := sim.Costs{Switch: sim.Fixed(2 * time.Microsecond), Refill: sim.Fixed(7 * time.Microsecond)}
	withWake := unused
	withWake.Wakeup = sim.Fixed(5 * time.Microsecond)
	p, c, r := run(withWake, 0)
	for _, v := range lat(c) {
		assert.Equal(t, 5*us, v, "the waker's try_to_wake_up delays the wakee")
	}
	assert.Equal(t, 10*(300+5)*us+2*us, p.CPUTime, "the producer pays 5us per wake-up, and its first switch")
	assert.Equal(t, 10*100*us+2*us, c.CPUTime, "no switch but the first, no refill: the consumer resumes where it ran")
	assert.Equal(t, 10*5*us+2*us, r.CPUs[0].Switch)

	withIPI := withWake
	withIPI.IPI = sim.Fixed(3 * time.Microsecond)
	_, c, _ = run(withIPI, 20*time.Microsecond)
	for _, v := range lat(c) {
		assert.Equal(t, (5+3+20)*us, v, "wakeup + IPI + idle exit")
	}
	req, _ := c.Request.Exact()
	assert.Equal(t, (5+3+20+100)*us, req[0], "the request ends 100us of work after the thread runs")
}

// TestTimerCost: a napper alone on its CPU sleeps 1ms and runs 100us. Its timer fires 30us late
// (Costs.Timer) and the CPU takes 20us to leave its idle state; the latency counts from the
// deadline: 50us, and each request 150us. Its CPU's thread never changes: only its first
// dispatch is a switch.
func TestTimerCost(t *testing.T) {
	w := mustParse(t, "thread napper\n\trepeat 20\n\t\tsleep 1ms\n\t\trun 100us\n\tend\nend\nthread ticker\n\tevery 2ms 5\n\t\trun 10us\n\tend\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1),
		Costs: sim.Costs{Timer: sim.Fixed(30 * time.Microsecond), Switch: sim.Fixed(time.Microsecond)},
		Idle:  sim.Idle{ExitLatency: sim.Fixed(20 * time.Microsecond)}}
	w.Threads[0].CPUs, w.Threads[1].CPUs = topology.CPUSetOf(0), topology.CPUSetOf(1)
	r := runChecked(t, cfg, newRR(1000, 4), w, time.Second)
	n := thread(t, r, "napper")
	lat, _ := n.Wakeup.Exact()
	require.Len(t, lat, 20)
	for _, v := range lat {
		assert.Equal(t, 50*us, v)
	}
	req, _ := n.Request.Exact()
	for _, v := range req {
		assert.Equal(t, 150*us, v)
	}
	// The ticker's periods start at 0, 2, 4, 6, 8ms: the first has no wake-up; the others are
	// woken 30us late, 20us to leave idle.
	tk := thread(t, r, "ticker")
	lat, _ = tk.Wakeup.Exact()
	assert.Equal(t, []int64{50 * us, 50 * us, 50 * us, 50 * us}, lat[len(lat)-4:])
	assert.Equal(t, us, r.CPUs[0].Switch, "nothing but the napper runs on CPU 0")
}

// TestTimerAndIdleExitAddUp: a calibration measures a timer's lateness beside a busy CPU and
// a sleeper alone on an idle one, and takes the idle exit as the difference of the two
// quantile by quantile. Drawn at the same point of their distributions, the timer and the exit
// of the CPU it wakes add up to the sleeper's measured lateness at every quantile: the share of
// wake-ups at most timer.P99 + exit.P99 late is 99 %, within the binomial spread of 20,000
// draws. Drawn apart, two tails would stack (the ci profile's: a p99 of 1.5 ms where the whole
// measured 0.66 ms).
func TestTimerAndIdleExitAddUp(t *testing.T) {
	timer := sim.Cost{Min: 12 * time.Microsecond, P50: 24 * time.Microsecond, P90: 41 * time.Microsecond,
		P99: 62 * time.Microsecond, P999: 2437 * time.Microsecond, Max: 2661 * time.Microsecond}
	exit := sim.Cost{Min: 0, P50: 16 * time.Microsecond, P90: 26 * time.Microsecond,
		P99: 598 * time.Microsecond, P999: 2779 * time.Microsecond, Max: 2796 * time.Microsecond}
	const n = 20000
	w := mustParse(t, fmt.Sprintf("thread sleeper cpus=0\n\tevery 5ms %d\n\t\trun 1us\n\tend\nend\n", n+1))
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Seed: 3, ExactSamples: 1 << 16,
		Costs: sim.Costs{Timer: timer}, Idle: sim.Idle{ExitLatency: exit}}
	r := runChecked(t, cfg, newRR(1000, 4), w, 5*(n+2)*time.Millisecond)
	lat, ok := thread(t, r, "sleeper").Latencies()
	require.True(t, ok, "exact latencies kept")
	require.Greater(t, len(lat), n*99/100, "a wake-up a period")
	for _, q := range []struct {
		p    float64
		late time.Duration
	}{{0.5, timer.P50 + exit.P50}, {0.9, timer.P90 + exit.P90}, {0.99, timer.P99 + exit.P99}, {0.999, timer.P999 + exit.P999}} {
		k := 0
		for _, v := range lat {
			if v <= int64(q.late) {
				k++
			}
		}
		share, spread := float64(k)/float64(len(lat)), 3*math.Sqrt(q.p*(1-q.p)/float64(len(lat)))
		assert.InDelta(t, q.p, share, spread, "wake-ups at most %v late: %.4f, want %v", q.late, share, q.p)
	}
}

// TestRefillAfterOthers: two hogs share one CPU in slices of 4ms; each resumes after the other
// ran, so each dispatch but the first of each pays the switch and the refill. A napper alone on
// CPU 1 resumes where nothing else ran: only its first dispatch is a switch.
func TestRefillAfterOthers(t *testing.T) {
	w := mustParse(t, `
thread hog count=2 cpus=0
	run forever
end
thread napper cpus=1
	loop
		sleep 1ms
		run 1ms
	end
end`)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1),
		Costs: sim.Costs{Switch: sim.Fixed(2 * time.Microsecond), Refill: sim.Fixed(10 * time.Microsecond)}}
	r := runChecked(t, cfg, newRR(1000, 4), w, 100*time.Millisecond)
	// Dispatches at 0 (hog.0, new: switch only), 4ms (hog.1, new: switch only), then every 4ms
	// up to 100ms with a refill: 23 of them.
	assert.Equal(t, int64(2*2+23*12)*us, r.CPUs[0].Switch)
	assert.Equal(t, 2*us, r.CPUs[1].Switch)
}

// TestMigrationByLevel moves a thread once between two CPUs of each relation on a machine of two
// packages, each of two LLCs of two cores of two hardware threads, and checks that the refill
// charged on arrival is the one of the level crossed.
func TestMigrationByLevel(t *testing.T) {
	topo := topology.Uniform(2, 1, 2, 2, 2)
	mc := sim.MigrationCosts{SMT: sim.Fixed(1 * time.Microsecond), LLC: sim.Fixed(10 * time.Microsecond),
		Node: sim.Fixed(100 * time.Microsecond), Remote: sim.Fixed(1000 * time.Microsecond)}
	all := topo.CPUs()
	first, _ := all.First()
	want := map[topology.Level]int64{topology.SMT: 1 * us, topology.LLC: 10 * us, topology.Node: 100 * us, topology.Package: 1000 * us, topology.Machine: 1000 * us}
	seen := map[topology.Level]bool{}
	for to := range topo.CPUs().All() {
		if to == first {
			continue
		}
		l := topo.SharedLevel(first, to)
		if seen[l] {
			continue
		}
		seen[l] = true
		w := mustParse(t, fmt.Sprintf("thread mover cpus=%d\n\trun 1ms\n\tcpus %d\n\trun 1ms\nend\n", first, to))
		r := runChecked(t, sim.Config{Topology: topo, Costs: sim.Costs{Migration: mc}}, newRR(1000, 4), w, time.Second)
		m := thread(t, r, "mover")
		assert.Equal(t, int64(1), m.Migrations, "%v", l)
		assert.Equal(t, want[l], r.CPUs[to].Switch, "a move across %v", l)
		assert.Equal(t, 2*ms+want[l], m.CPUTime, "%v", l)
	}
	assert.True(t, seen[topology.SMT] && seen[topology.LLC], "levels seen: %v", seen)
}

// TestSpreadCostsDeterministic runs the mixed workload with every cost drawn from a spread: the
// same seed gives the same trace, another seed another, and no latency of a woken thread is 0.
func TestSpreadCostsDeterministic(t *testing.T) {
	spread := func(p50 time.Duration) sim.Cost {
		return sim.Cost{Min: p50 / 2, P50: p50, P90: 2 * p50, P99: 5 * p50, Max: 20 * p50}
	}
	costs := sim.Costs{Wakeup: spread(time.Microsecond), IPI: spread(3 * time.Microsecond), IPISend: spread(5 * time.Microsecond),
		Timer: spread(10 * time.Microsecond), Switch: spread(2 * time.Microsecond), SwitchMM: spread(3 * time.Microsecond),
		Refill:    spread(4 * time.Microsecond),
		Migration: sim.EveryLevel(spread(20 * time.Microsecond)), Tick: spread(time.Microsecond)}
	run := func(seed uint64) *sim.Result {
		cfg := sim.Config{Topology: topology.Uniform(2, 1, 1, 2, 2), Seed: seed, Costs: costs,
			Idle: sim.Idle{ExitLatency: spread(15 * time.Microsecond)}, Trace: sim.TraceHash, Checks: checks}
		return runChecked(t, cfg, newRR(250, 3), mixedScale(t, 40), 200*time.Millisecond)
	}
	a, b, c := run(1), run(1), run(2)
	assert.Equal(t, a.Trace.Hash(), b.Trace.Hash())
	assert.Equal(t, a.Threads, b.Threads)
	assert.NotEqual(t, a.Trace.Hash(), c.Trace.Hash())
	for _, th := range a.Threads {
		if v, ok := th.Latency(0); ok {
			assert.Positive(t, v, "%s: a wake-up with a cost on every step took no time", th.Name)
		}
	}
}

// TestCostsTraceHashGolden pins the trace of the mixed workload with varying costs: the draws
// are integer arithmetic on the machine's own stream, the same on every GOARCH (the CI runs this
// package on 386 too).
func TestCostsTraceHashGolden(t *testing.T) {
	c := sim.Cost{Min: time.Microsecond, P50: 3 * time.Microsecond, P90: 8 * time.Microsecond, P99: 30 * time.Microsecond, Max: 200 * time.Microsecond}
	cfg := sim.Config{Topology: topology.Uniform(2, 1, 1, 2, 2), Seed: 5, Trace: sim.TraceHash,
		Costs: sim.Costs{Wakeup: c, IPI: c, Timer: c, Switch: c, Refill: c, Migration: sim.EveryLevel(c), Tick: sim.Fixed(time.Microsecond)},
		Idle:  sim.Idle{ExitLatency: c}}
	r := runChecked(t, cfg, newRR(250, 3), mixedScale(t, 40), 200*time.Millisecond)
	const want = 0xc533b33276dfe587
	assert.Equal(t, uint64(want), r.Trace.Hash(), "hash %#x over %d records", r.Trace.Hash(), r.Trace.Len())
}

// TestSwitchMM: hogs of two declarations alternate on one CPU: every switch between them is
// one between processes and pays SwitchMM too, unless process= puts them in one process.
func TestSwitchMM(t *testing.T) {
	run := func(text string) int64 {
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1),
			Costs: sim.Costs{Switch: sim.Fixed(2 * time.Microsecond), SwitchMM: sim.Fixed(5 * time.Microsecond)}}
		r := runChecked(t, cfg, newRR(1000, 4), mustParse(t, text), 100*time.Millisecond)
		return r.CPUs[0].Switch
	}
	// Dispatches at 0, 4, …, 96ms: 25, each a switch; all but the first from another process.
	two := run("thread a\n\trun forever\nend\nthread b\n\trun forever\nend\n")
	assert.Equal(t, (25*2+24*5)*us, two)
	one := run("thread a process=p\n\trun forever\nend\nthread b process=p\n\trun forever\nend\n")
	assert.Equal(t, 25*2*us, one, "threads of one process switch for Switch alone")
	inst := run("thread a count=2\n\trun forever\nend\n")
	assert.Equal(t, 25*2*us, inst, "a declaration's instances are threads of one process")
}

// TestIPISend: the producer's wake-ups of the consumer on the other, idle CPU each send an IPI,
// whose cost the producer pays after the wake-up: its CPU time grows by it, the consumer's
// latency does not.
func TestIPISend(t *testing.T) {
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1),
		Costs: sim.Costs{IPI: sim.Fixed(3 * time.Microsecond), IPISend: sim.Fixed(11 * time.Microsecond)}}
	r := runChecked(t, cfg, newRR(1000, 4), mustParse(t, crossCPU), time.Second)
	p, c := thread(t, r, "producer"), thread(t, r, "consumer")
	assert.Equal(t, 10*(300+11)*us, p.CPUTime)
	lat, _ := c.Wakeup.Exact()
	for _, v := range lat {
		assert.Equal(t, 3*us, v)
	}
	assert.Equal(t, 10*11*us, r.CPUs[0].Switch)
}
