package sim_test

// The checkers must fire on the deliberately broken toy policies and stay silent on the correct
// one.

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var checks = sim.Checks{WorkConservation: 10 * time.Millisecond, Starvation: 100 * time.Millisecond}

func TestWorkConservationFiresOnLazyPolicy(t *testing.T) {
	w := mustParse(t, "thread hog count=4\n\trun forever\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 4, 1), Checks: checks}
	r := runChecked(t, cfg, newBroken(lazyWake), w, time.Second)
	require.Error(t, r.Err())
	assert.Greater(t, r.Counts[sim.WorkConservation], 0)
	v := r.Violations[0]
	assert.Equal(t, sim.WorkConservation, v.Invariant)
	assert.NotEqual(t, topology.CPU(0), v.CPU, "CPU 0 is never idle")
	// The first idle CPU is seen at the first tick after 10ms of idling and waiting: 11ms.
	assert.Equal(t, 11*ms, v.Time)
	assert.Equal(t, 11*ms, v.Wait)
	// Each waiting thread is reported once per wait, by the first idle CPU that sees it.
	for _, v := range r.Violations {
		if v.Invariant == sim.WorkConservation {
			assert.Equal(t, topology.CPU(1), v.CPU)
		}
	}
	assert.Contains(t, r.Err().Error(), "work-conservation: cpu1 idle while t1 waited 11000000ns")
}

func TestStarvationFiresOnLIFOPolicy(t *testing.T) {
	w := mustParse(t, "thread hog count=2\n\trun forever\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Checks: checks}
	r := runChecked(t, cfg, newBroken(lifo), w, time.Second)
	assert.Equal(t, 1, r.Counts[sim.Starvation], "hog.1 starves once, for the whole run")
	assert.Zero(t, r.Counts[sim.WorkConservation])
	v := r.Violations[0]
	assert.Equal(t, sched.ID(1), v.Thread)
	assert.Equal(t, 101*ms, v.Time)
	assert.Zero(t, thread(t, r, "hog.1").CPUTime)
}

func TestThreadConservationFiresOnDuplicate(t *testing.T) {
	w := mustParse(t, "thread hog count=2\n\trun forever\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 3, 1), Checks: checks}
	r := runChecked(t, cfg, newBroken(duplicate), w, 100*time.Millisecond)
	assert.Greater(t, r.Counts[sim.ThreadConservation], 0)
	v := r.Violations[0]
	assert.Equal(t, sim.ThreadConservation, v.Invariant)
	assert.Contains(t, v.String(), "which is not a runnable thread allowed there")
}

func TestThreadConservationFiresOnLoss(t *testing.T) {
	w := mustParse(t, "thread hog count=3\n\trun forever\nend\n")
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Checks: checks}
	m, err := sim.New(cfg, newBroken(lose), w)
	require.NoError(t, err)
	var found error
	for m.Step() && m.Now() < int64(time.Second) {
		if err := m.Check(); err != nil {
			found = err
			break
		}
	}
	require.Error(t, found)
	assert.Contains(t, found.Error(), "toy-broken holds 1 threads in its queues; 2 are runnable and not running")
	// Without the Check, the lost thread shows as starvation.
	require.NoError(t, m.Run(time.Second))
	assert.Equal(t, 1, m.Result().Counts[sim.Starvation])
}

func TestCheckersSilentOnCorrectPolicy(t *testing.T) {
	cases := []struct {
		name string
		cpus int
		text string
	}{
		{"hogs", 4, "thread hog count=6\n\trun forever\nend\n"},
		{"pinned", 2, "thread p cpus=1\n\trun forever\nend\nthread f count=2\n\trun forever\nend\n"},
		{"pipeline", 2, `
pipe a cap=4
pipe b cap=4
thread src
	loop
		run exp(300us)
		send a
	end
end
thread mid count=2
	loop
		recv a
		run uniform(100us,500us)
		send b
	end
end
thread sink
	loop
		recv b
		run 50us
	end
end`},
		{"make", 4, `
template cc
	run uniform(5ms,30ms)
	sleep 1ms
	run 2ms
end
thread make
	repeat 5
		fork cc 8
		join
	end
end`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, tc.cpus, 1), Checks: checks, Seed: 7}
			r := runChecked(t, cfg, newRR(1000, 4), mustParse(t, tc.text), 2*time.Second)
			require.NoError(t, r.Err())
		})
	}
}
