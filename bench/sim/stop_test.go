package sim_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stopWorkload is a hog that never exits beside a short job, a job in a group (whose template is
// never forked) and two workers.
const stopWorkload = `
group batch
group inner parent=batch
thread hog
	run forever
end
thread gzip
	run 30ms
end
thread packer group=inner
	run 50ms
end
template spare group=batch
	run 1ms
end
thread worker count=2
	run 10ms
	sleep 5ms
	run 10ms
end
`

func TestStopConditions(t *testing.T) {
	w := mustParse(t, stopWorkload)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 1}
	tests := []struct {
		name   string
		stop   sim.Stop
		ending sim.Ending
		end    int64 // 0: only check the ending
	}{
		{"time", sim.Stop{Time: 20 * time.Millisecond}, sim.TimeReached, 20e6},
		{"thread", sim.Stop{Threads: []string{"gzip"}, Time: time.Second}, sim.ThreadsExited, 0},
		{"instances", sim.Stop{Threads: []string{"worker"}, Time: time.Second}, sim.ThreadsExited, 0},
		{"one instance", sim.Stop{Threads: []string{"worker.1"}, Time: time.Second}, sim.ThreadsExited, 0},
		{"group below", sim.Stop{Groups: []string{"batch"}, Time: time.Second}, sim.GroupsExited, 0},
		{"time first", sim.Stop{Threads: []string{"gzip"}, Time: time.Millisecond}, sim.TimeReached, 1e6},
		{"events", sim.Stop{Events: 100, Time: time.Second}, sim.EventsReached, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := sim.RunUntil(cfg, newRR(1000, 4), w, tc.stop)
			require.NoError(t, err)
			assert.Equal(t, tc.ending, r.Ending)
			if tc.end != 0 {
				assert.Equal(t, tc.end, r.End)
			}
			switch tc.ending {
			case sim.ThreadsExited:
				for _, n := range tc.stop.Threads {
					for i := range r.Threads {
						if th := &r.Threads[i]; th.Name == n || th.Decl == n {
							assert.GreaterOrEqual(t, th.End, int64(0), "%s", th.Name)
						}
					}
				}
				// The run ends at the exit that completed the condition.
				last := int64(0)
				for i := range r.Threads {
					last = max(last, r.Threads[i].End)
				}
				assert.Equal(t, last, r.End)
			case sim.GroupsExited:
				p := thread(t, r, "packer")
				assert.Equal(t, p.End, r.End)
				assert.Equal(t, "inner", p.Group)
			case sim.EventsReached:
				assert.GreaterOrEqual(t, r.Events, uint64(100))
				assert.Less(t, r.Events, uint64(100+2), "at most one clock interrupt of the CPUs beyond")
			}
			// Shares are over the run that happened, not over Stop.Time.
			h := thread(t, r, "hog")
			assert.Equal(t, r.End, h.Lifetime())
		})
	}
}

func TestStopAllExited(t *testing.T) {
	w := mustParse(t, "thread a\n\trun 3ms\nend\n")
	r, err := sim.RunUntil(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, newRR(1000, 4), w, sim.Stop{Time: time.Second})
	require.NoError(t, err)
	assert.Equal(t, sim.AllExited, r.Ending)
	assert.Equal(t, int64(3e6), r.End)
	assert.Equal(t, int64(3e6), r.Makespan)
}

func TestStopErrors(t *testing.T) {
	w := mustParse(t, stopWorkload)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}
	tests := []struct {
		name string
		stop sim.Stop
		want string
	}{
		{"negative time", sim.Stop{Time: -1}, "Stop.Time"},
		{"time above max", sim.Stop{Time: sim.MaxTime + 1}, "Stop.Time"},
		{"negative warmup", sim.Stop{Time: time.Second, Warmup: -1}, "Stop.Warmup"},
		{"warmup after time", sim.Stop{Time: time.Second, Warmup: time.Second}, "not before"},
		{"unknown thread", sim.Stop{Threads: []string{"gunzip"}}, `no thread or declaration "gunzip"`},
		{"instance of a single thread", sim.Stop{Threads: []string{"gzip.0"}}, `"gzip.0"`},
		{"unknown group", sim.Stop{Groups: []string{"nobody"}}, `no group "nobody"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.RunUntil(cfg, newRR(1000, 4), w, tc.stop)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	// An instance name is DECL.K of a declaration that numbers its threads.
	dotted := mustParse(t, "thread a-b count=2\n\trun 1ms\nend\nthread a\n\trun 2ms\nend\n")
	for _, n := range []string{"a-b.1", "a-b", "a"} {
		_, err := sim.RunUntil(cfg, newRR(1000, 4), dotted, sim.Stop{Threads: []string{n}, Time: time.Second})
		assert.NoError(t, err, "%s", n)
	}
	for _, n := range []string{"a.1", "a.", "a-b.", "b.1", ".1"} {
		_, err := sim.RunUntil(cfg, newRR(1000, 4), dotted, sim.Stop{Threads: []string{n}, Time: time.Second})
		assert.Error(t, err, "%s", n)
	}
	m, err := sim.New(cfg, newRR(1000, 4), w)
	require.NoError(t, err)
	require.Error(t, m.Run(-time.Second), "a negative until")
	_, err = m.RunUntil(sim.Stop{Time: time.Millisecond})
	require.NoError(t, err)
	_, err = m.RunUntil(sim.Stop{Time: 2 * time.Millisecond})
	require.Error(t, err, "a second RunUntil")
}

// TestWarmup checks that the Result covers exactly the interval after the warm-up: a hog alone
// on its CPU for 100ms, measured after 40ms, ran 60ms.
func TestWarmup(t *testing.T) {
	w := mustParse(t, `
thread hog
	run forever
end
thread blip
	loop
		run 1ms
		sleep 9ms
	end
end`)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 3}
	full, err := sim.RunUntil(cfg, newRR(1000, 4), w, sim.Stop{Time: 100 * time.Millisecond})
	require.NoError(t, err)
	r, err := sim.RunUntil(cfg, newRR(1000, 4), w, sim.Stop{Time: 100 * time.Millisecond, Warmup: 40 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, int64(40e6), r.Start)
	assert.Equal(t, int64(60e6), r.Makespan)
	h := thread(t, r, "hog")
	assert.Equal(t, int64(60e6), h.CPUTime)
	assert.Equal(t, int64(60e6), h.Lifetime())
	assert.Equal(t, 1.0, h.Share())
	assert.InDelta(t, 60e6, float64(h.Work), 2, "work counted from the warm-up's end")
	b := thread(t, r, "blip")
	assert.Equal(t, int64(6), b.Wakeups, "wake-ups at 49, 59, …, 99 ms")
	assert.Equal(t, int64(6), b.Wakeup.Count())
	assert.Equal(t, thread(t, full, "blip").Wakeups-4, b.Wakeups)
	var busy, idle int64
	for _, c := range r.CPUs {
		busy += c.Busy
		idle += c.Idle
	}
	assert.Equal(t, int64(2*60e6), busy+idle)
	assert.Less(t, r.Events, full.Events)
}

// TestStatisticsClippedToEnd: a switch cost of an hour in a one-second run counts one second.
func TestStatisticsClippedToEnd(t *testing.T) {
	w := mustParse(t, "thread hog count=2\n\trun forever\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Costs: sim.Costs{Switch: sim.Fixed(sim.MaxCost), Tick: sim.Fixed(time.Microsecond)}}
	r, err := sim.Run(cfg, newRR(1000, 4), w, time.Second)
	require.NoError(t, err)
	c := r.CPUs[0]
	assert.LessOrEqual(t, c.Switch+c.Interrupt, r.End)
	assert.Equal(t, r.End, c.Busy+c.Idle)
	assert.Greater(t, c.Switch, int64(0))
}

func TestRunEndsDuringWarmup(t *testing.T) {
	w := mustParse(t, "thread a\n\trun 3ms\nend\n")
	r, err := sim.RunUntil(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, newRR(1000, 4), w, sim.Stop{Time: time.Second, Warmup: 10 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, sim.AllExited, r.Ending)
	assert.Equal(t, int64(3e6), r.Start)
	assert.Equal(t, int64(3e6), r.End)
	assert.Zero(t, r.Threads[0].CPUTime)
	assert.Zero(t, r.Exited+int64(r.Events))
}

func TestStopContext(t *testing.T) {
	w := mustParse(t, stopWorkload)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 1}
	stop := sim.Stop{Time: time.Hour}

	// A context done before the run: the run ends at its first look, ContextPollEvents in.
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("interrupted")
	cancel(cause)
	m, err := sim.New(cfg, newRR(1000, 4), w)
	require.NoError(t, err)
	s := stop
	s.Context = ctx
	ending, err := m.RunUntil(s)
	assert.Equal(t, sim.Canceled, ending)
	assert.ErrorIs(t, err, cause)
	r := m.Result()
	assert.GreaterOrEqual(t, r.Events, uint64(sim.ContextPollEvents))
	assert.Less(t, r.Events, uint64(sim.ContextPollEvents+2), "at most one clock interrupt of the CPUs beyond")
	assert.Less(t, r.End, int64(time.Hour))

	// A context that never ends changes nothing, nor does an event limit beside it.
	for _, extra := range []sim.Stop{{}, {Events: 3 * sim.ContextPollEvents / 2}} {
		plain, with := stop, stop
		plain.Events, with.Events = extra.Events, extra.Events
		with.Context = context.Background()
		a, err := sim.RunUntil(cfg, newRR(1000, 4), w, plain)
		require.NoError(t, err)
		b, err := sim.RunUntil(cfg, newRR(1000, 4), w, with)
		require.NoError(t, err)
		assert.Equal(t, a.Ending, b.Ending)
		assert.Equal(t, a.Events, b.Events)
		assert.Equal(t, a.End, b.End)
		assert.Equal(t, a.Threads, b.Threads)
	}
	assert.Equal(t, "canceled", sim.Canceled.String())
}
