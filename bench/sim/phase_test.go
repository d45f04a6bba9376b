package sim_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wakeTimes returns the times of the wake-ups (not forks) of each thread named.
func wakeTimes(r *sim.Result, names ...string) map[string][]int64 {
	out := map[string][]int64{}
	for _, rec := range r.Trace.Records {
		if rec.Kind != sim.KindWakeup || sched.WakeFlags(rec.Arg)&sched.WakeFork != 0 {
			continue
		}
		n := r.Threads[rec.Thread].Name
		for _, want := range names {
			if n == want {
				out[n] = append(out[n], rec.Time)
			}
		}
	}
	return out
}

func TestEveryPhase(t *testing.T) {
	four := topology.Uniform(1, 1, 1, 4, 1)
	cfg := sim.Config{Topology: four, Trace: sim.TraceFull}
	run := func(t *testing.T, text string) *sim.Result {
		r, err := sim.Run(cfg, newRR(1000, 4), mustParse(t, text), 100*time.Millisecond)
		require.NoError(t, err)
		return r
	}
	t.Run("equal phase wake together", func(t *testing.T) {
		// b reaches its every 3ms later than a, and still wakes with it.
		r := run(t, `
thread a
	every 10ms 4
		run 1ms
	end
end
thread b
	sleep 3ms
	every 10ms 4
		run 1ms
	end
end`)
		wt := wakeTimes(r, "a", "b")
		assert.Equal(t, []int64{10e6, 20e6, 30e6}, wt["a"])
		assert.Equal(t, []int64{3e6, 10e6, 20e6, 30e6, 40e6}, wt["b"], "the sleep's end, then the periods")
	})
	t.Run("phase shifts", func(t *testing.T) {
		r := run(t, "thread a\n\tevery 10ms 3 phase=4ms\n\t\trun 1ms\n\tend\nend\n")
		assert.Equal(t, []int64{4e6, 14e6, 24e6}, wakeTimes(r, "a")["a"])
	})
	t.Run("stagger", func(t *testing.T) {
		r := run(t, "thread p count=4\n\tevery 10ms 2 phase=stagger\n\t\trun 1ms\n\tend\nend\n")
		wt := wakeTimes(r, "p.0", "p.1", "p.2", "p.3")
		// p.0's first period starts at its creation; the others' at i*2.5ms.
		assert.Equal(t, []int64{10e6}, wt["p.0"])
		assert.Equal(t, []int64{2.5e6, 12.5e6}, wt["p.1"])
		assert.Equal(t, []int64{5e6, 15e6}, wt["p.2"])
		assert.Equal(t, []int64{7.5e6, 17.5e6}, wt["p.3"])
	})
	t.Run("arrival keeps the old behaviour", func(t *testing.T) {
		r := run(t, "thread a\n\tsleep 3ms\n\tevery 10ms 3 phase=arrival\n\t\trun 1ms\n\tend\nend\n")
		assert.Equal(t, []int64{3e6, 13e6, 23e6}, wakeTimes(r, "a")["a"])
	})
	t.Run("count is the number of runs", func(t *testing.T) {
		r := run(t, "thread a\n\tevery 10ms 3\n\t\trun 1ms\n\tend\nend\n")
		a := thread(t, r, "a")
		assert.Equal(t, int64(3), a.Request.Count(), "three runs of the body")
		assert.Equal(t, int64(21e6), a.End, "the third run ends at 21ms")
	})
	t.Run("first period's wait counts", func(t *testing.T) {
		// One CPU: the hog is created first and runs its 4ms slice; the ticker's first period
		// began at 0, so its first run at 4ms is 4ms late.
		r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, newRR(1000, 4),
			mustParse(t, "thread hog\n\trun forever\nend\nthread tk\n\tevery 10ms 1\n\t\trun 1ms\n\tend\nend\n"), 100*time.Millisecond)
		require.NoError(t, err)
		l, _ := thread(t, r, "tk").Wakeup.Exact()
		assert.Equal(t, []int64{4e6}, l)
	})
}

// TestRTScaleReachesPolicy: every rtprio(2) level of seed 003 reaches the policy with its scale.
func TestRTScaleReachesPolicy(t *testing.T) {
	for prio := 0; prio <= sched.MaxFreeBSDRTPrio; prio++ {
		p := &linuxOnly{rr: *newRR(1000, 4)}
		w := mustParse(t, "thread rt class=fifo rtprio=freebsd:"+itoa(prio)+"\n\trun 1ms\nend\n")
		_, err := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, p, w)
		require.Error(t, err)
		require.Len(t, p.asked, 1)
		assert.Equal(t, sched.Attr{Class: sched.FIFO, RTPrio: prio, RTScale: sched.RTFreeBSD}, p.asked[0])
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
