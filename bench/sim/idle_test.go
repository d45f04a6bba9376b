package sim_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIdleExitLatency(t *testing.T) {
	w := mustParse(t, "thread napper\n\tloop\n\t\tsleep 1ms\n\t\trun 100us\n\tend\nend\n")
	one := topology.Uniform(1, 1, 1, 1, 1)
	run := func(idle sim.Idle) *sim.Result {
		r, err := sim.Run(sim.Config{Topology: one, Idle: idle}, newRR(1000, 4), w, 100*time.Millisecond)
		require.NoError(t, err)
		return r
	}
	base, deep := run(sim.Idle{}), run(sim.Idle{ExitLatency: sim.Fixed(50 * time.Microsecond)})
	nb, nd := thread(t, base, "napper"), thread(t, deep, "napper")
	// Each wake-up of the idle CPU costs 50us before the 100us run: requests take 150us.
	req, _ := nd.Request.Exact()
	for _, v := range req {
		assert.Equal(t, int64(150e3), v)
	}
	reqBase, _ := nb.Request.Exact()
	assert.Equal(t, int64(100e3), reqBase[0])
	assert.Equal(t, nd.Wakeups*50e3, deep.CPUs[0].IdleExit)
	assert.Zero(t, base.CPUs[0].IdleExit)
	// The exit is the CPU waking up for the napper, which waits meanwhile: as in the kernels,
	// its CPU time starts when the CPU runs it (the run that was in its exit at the end
	// included, which counts only what passed).
	// With no other stall, its CPU time is the work it did, and its wait the exits.
	assert.Equal(t, nd.Work, nd.CPUTime, "CPU time without the exits")
	assert.Equal(t, deep.CPUs[0].IdleExit, nd.WaitTime, "the exits are wait")
	assert.Zero(t, nb.WaitTime)
	// A spinning idle loop does not sleep deeply.
	spin := run(sim.Idle{ExitLatency: sim.Fixed(50 * time.Microsecond), Spin: true})
	assert.Zero(t, spin.CPUs[0].IdleExit)
}

// TestIdlePollWindow checks that a CPU idle for no longer than Idle.PollWindow leaves idle
// without the exit latency (KVM's halt polling), and one idle for longer pays it.
func TestIdlePollWindow(t *testing.T) {
	// The napper sleeps 1 ms, so its CPU is idle for 1 ms before each wake-up.
	w := mustParse(t, "thread napper\n\tloop\n\t\tsleep 1ms\n\t\trun 100us\n\tend\nend\n")
	one := topology.Uniform(1, 1, 1, 1, 1)
	run := func(window time.Duration) *sim.Result {
		idle := sim.Idle{ExitLatency: sim.Fixed(50 * time.Microsecond), PollWindow: sim.Fixed(window)}
		r, err := sim.Run(sim.Config{Topology: one, Idle: idle}, newRR(1000, 4), w, 100*time.Millisecond)
		require.NoError(t, err)
		return r
	}
	short, long := run(500*time.Microsecond), run(2*time.Millisecond)
	ns, nl := thread(t, short, "napper"), thread(t, long, "napper")
	require.Positive(t, ns.Wakeups)
	assert.Equal(t, ns.Wakeups*50e3, short.CPUs[0].IdleExit, "idle 1 ms > a 500 µs window: every exit pays")
	assert.Zero(t, long.CPUs[0].IdleExit, "idle 1 ms < a 2 ms window: the CPU was still polling")
	req, _ := nl.Request.Exact()
	for _, v := range req {
		assert.Equal(t, int64(100e3), v)
	}
	_, err := sim.Run(sim.Config{Topology: one, Idle: sim.Idle{PollWindow: sim.Fixed(-1)}}, newRR(1000, 4), w, time.Millisecond)
	require.ErrorContains(t, err, "Config.Idle.PollWindow")
}

// lostWakeups is a producer on CPU 0 waking a consumer on CPU 1 through a pipe: every wake-up
// is an IPI to an idle CPU.
const lostWakeups = `
pipe p
thread producer cpus=0
	loop
		run 300us
		send p
	end
end
thread consumer cpus=1
	loop
		recv p
		run 100us
	end
end`

func TestLostWakeups(t *testing.T) {
	w := mustParse(t, lostWakeups)
	two := topology.Uniform(1, 1, 1, 2, 1)
	run := func(idle sim.Idle, seed uint64) *sim.ThreadStats {
		r, err := sim.Run(sim.Config{Topology: two, Idle: idle, Seed: seed}, newRR(1000, 4), w, 100*time.Millisecond)
		require.NoError(t, err)
		return thread(t, r, "consumer")
	}
	never := run(sim.Idle{}, 1)
	require.Greater(t, never.Wakeup.Count(), int64(100))
	assert.Equal(t, int64(0), never.Wakeup.Max(), "an ideal idle loop wakes at once")

	// Every IPI lost: the consumer waits for CPU 1's next clock interrupt, at the next whole
	// millisecond after each send at 0.3, 0.6, 0.9, 1.2, …ms.
	r, err := sim.Run(sim.Config{Topology: two, Idle: sim.Idle{MissProbability: 1}, Seed: 1, Trace: sim.TraceFull}, newRR(1000, 4), w, 100*time.Millisecond)
	require.NoError(t, err)
	always := thread(t, r, "consumer")
	lat, _ := always.Wakeup.Exact()
	require.NotEmpty(t, lat)
	for _, v := range lat {
		assert.Greater(t, v, int64(0))
		assert.LessOrEqual(t, v, int64(time.Millisecond))
	}
	for _, rec := range r.Trace.Records {
		if rec.Kind == sim.KindSwitch && rec.CPU == 1 && rec.Other < 0 {
			assert.Zero(t, rec.Time%int64(time.Millisecond), "CPU 1 leaves idle only at a clock interrupt, not at %d", rec.Time)
		}
	}

	// Half of them: drawn from the seeded stream, so the same seed loses the same ones.
	a, b := run(sim.Idle{MissProbability: 0.5}, 7), run(sim.Idle{MissProbability: 0.5}, 7)
	assert.Equal(t, a.Wakeup, b.Wakeup)
	la, _ := a.Wakeup.Exact()
	lost := 0
	for _, v := range la {
		if v > 0 {
			lost++
		}
	}
	assert.InDelta(t, 0.5, float64(lost)/float64(len(la)), 0.2, "%d of %d lost", lost, len(la))

	// A window shorter than the consumer's idle time before each send loses none.
	windowed := run(sim.Idle{MissProbability: 1, MissWindow: 10 * time.Microsecond}, 1)
	assert.Equal(t, int64(0), windowed.Wakeup.Max())
	// A spinning idle loop loses none.
	spinning := run(sim.Idle{MissProbability: 1, Spin: true}, 1)
	assert.Equal(t, int64(0), spinning.Wakeup.Max())
}

func TestIdleSpinSlowsSibling(t *testing.T) {
	w := mustParse(t, "thread hog\n\trun forever\nend\n")
	smt := topology.Uniform(1, 1, 1, 1, 2)
	run := func(idle sim.Idle) int64 {
		r, err := sim.Run(sim.Config{Topology: smt, Idle: idle}, newRR(1000, 4), w, time.Second)
		require.NoError(t, err)
		return thread(t, r, "hog").Work
	}
	assert.Equal(t, int64(1e9), run(sim.Idle{}))
	assert.Equal(t, int64(0.5e9), run(sim.Idle{Spin: true}), "DefaultSpinFactor: half speed, seed 002's 50%")
	assert.Equal(t, int64(0.75e9), run(sim.Idle{Spin: true, SpinFactor: 768}))
	// Without a sibling, spinning costs nothing.
	r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Idle: sim.Idle{Spin: true}}, newRR(1000, 4), w, time.Second)
	require.NoError(t, err)
	assert.Equal(t, int64(1e9), thread(t, r, "hog").Work)
}

// TestTimerSlack checks that a thread's timer slack (workload slack=) makes each of its sleeps
// end that much after the deadline, counted in its wake-up latency, as hrtimer_nanosleep's
// range timer fires at its hard expiry; a thread without slack wakes at the deadline.
func TestTimerSlack(t *testing.T) {
	w := mustParse(t, "thread slack slack=50us cpus=0\n\tevery 1ms 20\n\t\trun 10us\n\tend\nend\n"+
		"thread exact cpus=1\n\tevery 1ms 20\n\t\trun 10us\n\tend\nend\n")
	r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, newRR(1000, 4), w, 30*time.Millisecond)
	require.NoError(t, err)
	for name, want := range map[string]int64{"slack": 50e3, "exact": 0} {
		th := thread(t, r, name)
		lat, _ := th.Wakeup.Exact()
		require.Len(t, lat, 20, name) // its creation, then the sleeps to periods 2..20
		for _, v := range lat[1:] {
			assert.Equal(t, want, v, name)
		}
	}
}

// TestLostWakeupsIdleTimer checks Idle.MissTimer: a CPU that lost an IPI sleeps through its
// clock interrupts until the idle timer it armed when it went idle, at a multiple of MissTimer
// after that, as FreeBSD's tickless idle does (getnextcpuevent(idle)).
func TestLostWakeupsIdleTimer(t *testing.T) {
	w := mustParse(t, lostWakeups)
	two := topology.Uniform(1, 1, 1, 2, 1)
	const timer = 5 * time.Millisecond
	r, err := sim.Run(sim.Config{Topology: two, Idle: sim.Idle{MissProbability: 1, MissTimer: timer}, Seed: 1, Trace: sim.TraceFull},
		newRR(1000, 4), w, 100*time.Millisecond)
	require.NoError(t, err)
	lat, _ := thread(t, r, "consumer").Wakeup.Exact()
	require.NotEmpty(t, lat)
	var longest int64
	for _, v := range lat {
		longest = max(longest, v)
		assert.LessOrEqual(t, v, int64(timer), "the idle timer wakes the CPU within MissTimer of going idle")
	}
	// The consumer's CPU goes idle 100 µs after each wake-up and the producer sends 300 µs
	// into its run; with the clock interrupts (every 1 ms) skipped, the wait is the timer's:
	// 5 ms less the time from going idle to the send, far beyond a tick.
	assert.Greater(t, longest, int64(3*time.Millisecond))
	var idleSince int64 = -1
	for _, rec := range r.Trace.Records {
		if rec.Kind != sim.KindSwitch || rec.CPU != 1 {
			continue
		}
		switch {
		case rec.Thread < 0:
			idleSince = rec.Time
		case rec.Other < 0 && idleSince >= 0:
			assert.Zero(t, (rec.Time-idleSince)%int64(timer), "CPU 1 leaves idle only at its idle timer, not at %d (idle since %d)", rec.Time, idleSince)
		}
	}
	// ULE's Tick runs the idle loop on an idle CPU (it switches to queued work), so without the
	// timer a lost IPI costs at most a tick; asleep on its idle timer the CPU takes no tick, and
	// the consumer waits for the timer. 4BSD's Tick does not poll a CPU it has told already.
	wait := func(p sched.Policy, timer time.Duration) int64 {
		r, err := sim.Run(sim.Config{Topology: two, Idle: sim.Idle{MissProbability: 1, MissTimer: timer}, Seed: 1},
			p, w, 100*time.Millisecond)
		require.NoError(t, err)
		return thread(t, r, "consumer").Wakeup.Max()
	}
	assert.LessOrEqual(t, wait(must(ule.New(ule.DefaultParams())), 0), int64(time.Millisecond))
	assert.Greater(t, wait(must(ule.New(ule.DefaultParams())), timer), int64(3*time.Millisecond))
	assert.Greater(t, wait(must(bsd4.New(bsd4.DefaultParams())), timer), int64(3*time.Millisecond))
	// Without the loss, the timer changes nothing.
	never, err := sim.Run(sim.Config{Topology: two, Idle: sim.Idle{MissTimer: timer}, Seed: 1}, newRR(1000, 4), w, 100*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, int64(0), thread(t, never, "consumer").Wakeup.Max())
	_, err = sim.Run(sim.Config{Topology: two, Idle: sim.Idle{MissTimer: -1}}, newRR(1000, 4), w, time.Millisecond)
	require.ErrorContains(t, err, "Config.Idle.MissTimer")
}

// TestLostWakeupsAfterFruitlessWake checks that Idle.MissWindow counts from the CPU's last entry
// into its idle loop: a CPU that 4BSD's forward_wakeup woke for a thread another CPU took goes
// back to its idle loop, whose check-then-halt race window opens again.
func TestLostWakeupsAfterFruitlessWake(t *testing.T) {
	w := mustParse(t, `
pipe p
pipe q
thread producer cpus=0
	loop
		run 300us
		send p
		run 5us
		send q
	end
end
thread a
	loop
		recv p
		run 100us
	end
end
thread b
	loop
		recv q
		run 100us
	end
end`)
	const ipi = 2 * time.Microsecond
	r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 3, 1), Seed: 1,
		Idle:  sim.Idle{MissProbability: 1, MissWindow: 20 * time.Microsecond},
		Costs: sim.Costs{IPI: sim.Fixed(ipi)}}, must(bsd4.New(bsd4.DefaultParams())), w, 20*time.Millisecond)
	require.NoError(t, err)
	// a wakes CPUs 1 and 2, idle for about 200 µs, beyond the window: it waits only for the IPI.
	assert.Equal(t, int64(ipi), thread(t, r, "a").Wakeup.Max())
	// The CPU that lost the race for a went back to idle 2 µs after the send; b's wake-up 5 µs
	// later falls in its new window and is lost: b waits for a's CPU to finish a (about 100 µs).
	assert.Greater(t, thread(t, r, "b").Wakeup.Max(), int64(50*time.Microsecond))
}
