package sim_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/topology"
)

// TestTimerExitCharging: Costs.TimerExit, the timer interrupt's way from a wake-up to the
// preempting switch-in, delays a sleeper that preempts the CPU's thread at once by exactly that
// much, the CPU's interrupt time holding it; a sleeper that waits does not wait longer for it,
// and the thread it interrupted pays it as interrupt time instead. Each case runs with and
// without the figure, the other costs the same.
func TestTimerExitCharging(t *testing.T) {
	us := int64(time.Microsecond)
	const exit, wakes = 7 * time.Microsecond, int64(20)
	base := sim.Costs{Timer: sim.Fixed(5 * time.Microsecond), Wakeup: sim.Fixed(2 * time.Microsecond),
		Switch: sim.Fixed(time.Microsecond), Refill: sim.Fixed(300 * time.Nanosecond)}
	one := topology.Uniform(1, 1, 1, 1, 1)
	cases := []struct {
		name   string
		policy func() sim.Policy
		text   string
		// preempts says the sleeper preempts the hog at every wake-up.
		preempts bool
	}{
		// CFS preempts a SCHED_IDLE thread at a normal thread's wake-up (check_preempt_wakeup_fair).
		{"preempts", func() sim.Policy { return must(cfs.New(must(cfs.Preset("v6.18")))) },
			"thread hog class=idle\n\trun 1s\nend\nthread sleeper\n\trepeat 20\n\t\tsleep 1ms\n\t\trun 10us\n\tend\nend\n", true},
		// The toy round robin never preempts at a wake-up: the sleeper waits for the hog's slice
		// to end at a clock interrupt.
		{"waits", func() sim.Policy { return newRR(1000, 4) },
			"thread hog\n\trun 1s\nend\nthread sleeper\n\trepeat 20\n\t\tsleep 1ms\n\t\trun 10us\n\tend\nend\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := func(k sim.Costs) *sim.Result {
				cfg := sim.Config{Topology: one, Costs: k, ExactSamples: 1 << 10}
				return runChecked(t, cfg, tc.policy(), mustParse(t, tc.text), 2*time.Second)
			}
			with := base
			with.TimerExit = sim.Fixed(exit)
			r0, r1 := run(base), run(with)
			lat0, ok0 := thread(t, r0, "sleeper").Latencies()
			lat1, ok1 := thread(t, r1, "sleeper").Latencies()
			require.True(t, ok0 && ok1, "exact latencies kept")
			require.Len(t, lat0, int(wakes))
			require.Len(t, lat1, int(wakes))
			hog0, hog1 := thread(t, r0, "hog"), thread(t, r1, "hog")
			intr := r1.CPUs[0].Interrupt - r0.CPUs[0].Interrupt
			if tc.preempts {
				for i := range lat0 {
					// Timer, then the way out of the interrupt, the switch and the refill.
					assert.Equal(t, 5*us+1*us+300, lat0[i], "wake-up %d without the figure", i)
					assert.Equal(t, lat0[i]+int64(exit), lat1[i], "wake-up %d delayed by exactly TimerExit", i)
				}
				assert.Equal(t, wakes*int64(exit), intr, "the way out is the CPU's interrupt time")
				assert.Equal(t, wakes, hog1.Involuntary, "the hog preempted at every wake-up")
				return
			}
			assert.Equal(t, lat0, lat1, "a sleeper that waits is not delayed by the way out")
			assert.Equal(t, wakes*int64(exit), intr, "the interrupted hog pays the way out")
			assert.Equal(t, hog0.End+wakes*int64(exit), hog1.End, "the hog ends later by as much")
		})
	}
}

// TestProfileWithoutTimerExit: a profile file without timer_exit (the checked-in ci) charges
// none (Costs.TimerExit 0, so the machine draws nothing for it and runs as before: the digests
// of TestPolicyDigests pin that) and writes back byte for byte, the figure still left out;
// one with it reads back as the figure given and refuses an absurd one, naming the file and
// the field.
func TestProfileWithoutTimerExit(t *testing.T) {
	text, err := os.ReadFile("profiles/ci.json")
	require.NoError(t, err)
	p, err := sim.ParseProfile("ci.json", text)
	require.NoError(t, err)
	_, has := p.Figures["timer_exit"]
	require.False(t, has, "the ci profile has no timer_exit")
	cfg := sim.Config{Costs: sim.Costs{TimerExit: sim.Fixed(time.Microsecond)}}
	p.Apply(&cfg)
	assert.True(t, cfg.Costs.TimerExit.IsZero(), "a figure left out is 0")
	out, err := p.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, string(text), string(out))

	ok := `"method": "m", "date": "d"`
	q, err := sim.ParseProfile("p.json", []byte(editFigure(t, "timer_exit", `{"unit": "us", "p50": 7, `+ok+`}`)))
	require.NoError(t, err)
	q.Apply(&cfg)
	assert.Equal(t, sim.Fixed(7*time.Microsecond), cfg.Costs.TimerExit)
	_, err = sim.ParseProfile("p.json", []byte(editFigure(t, "timer_exit", `{"unit": "ms", "p50": 101, `+ok+`}`)))
	assert.ErrorContains(t, err, "sim: profile p.json: figures.timer_exit.min: 101 ms is absurd (above 100ms)")
	_, err = sim.ParseProfile("p.json", []byte(editFigure(t, "timer_exit", `{"unit": "us", "min": 1, "p50": 3, "p90": 2, "p99": 4, "max": 5, `+ok+`}`)))
	assert.ErrorContains(t, err, "sim: profile p.json: figures.timer_exit: quantiles out of order")
}
