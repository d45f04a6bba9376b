package sim_test

// The hand-checkable micro-scenarios, run under every preset of every real policy
// (policies_test.go), plus the ones particular to one policy.

import (
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// policyConfig is the machine of the micro-scenarios: FreeBSD's and Linux's default clocks.
func policyConfig(topo *topology.Topology) sim.Config {
	return sim.Config{Topology: topo, Hz: 1000, StatHz: 127, Seed: 1, Checks: checks}
}

func TestPolicyOneHogGetsItsCPU(t *testing.T) {
	topo := topology.Uniform(1, 1, 1, 1, 1)
	for _, pc := range realPolicies(topo) {
		t.Run(pc.name, func(t *testing.T) {
			r := runChecked(t, policyConfig(topo), pc.make(), hogs(t, 1), 2*time.Second)
			require.NoError(t, r.Err())
			assert.Equal(t, 1.0, r.Threads[0].Share())
			assert.Zero(t, r.CPUs[0].Idle)
		})
	}
}

func TestPolicyPinnedThreadNeverMigrates(t *testing.T) {
	w := mustParse(t, `
thread pinned cpus=2
	loop
		run uniform(1ms,5ms)
		sleep uniform(100us,2ms)
	end
end
thread hog count=5
	run forever
end
thread napper count=3
	loop
		run exp(2ms)
		sleep exp(1ms)
	end
end`)
	topo := topology.Uniform(1, 1, 1, 4, 1)
	for _, pc := range realPolicies(topo) {
		t.Run(pc.name, func(t *testing.T) {
			r := runChecked(t, policyConfig(topo), pc.make(), w, 2*time.Second)
			p := thread(t, r, "pinned")
			assert.Zero(t, p.Migrations)
			assert.Greater(t, p.CPUTime, int64(0))
			var moved int64
			for i := range r.Threads {
				moved += r.Threads[i].Migrations
			}
			assert.Greater(t, moved, int64(0), "the others do move")
		})
	}
}

func TestPolicyNPlusOneHogsShareNCPUs(t *testing.T) {
	const n = 4
	topo := topology.Uniform(1, 1, 1, n, 1)
	for _, pc := range realPolicies(topo) {
		if !strings.HasPrefix(pc.name, "4bsd") {
			continue
		}
		t.Run(pc.name, func(t *testing.T) {
			cfg := policyConfig(topo)
			cfg.Checks.Starvation = 500 * time.Millisecond // a hog waits out one 100ms quantum
			r := runChecked(t, cfg, pc.make(), hogs(t, n+1), 10*time.Second)
			require.NoError(t, r.Err())
			// One global queue: every hog gets n/(n+1) of a CPU, within a few percent.
			for i := range r.Threads {
				assert.InDelta(t, float64(n)/(n+1), r.Threads[i].Share(), 0.03, r.Threads[i].Name)
			}
		})
	}
}

// TestPolicyExplanationsReachTheTrace runs every policy with explanations on: they appear in the
// trace, attached to the policy call that made them.
func TestPolicyExplanationsReachTheTrace(t *testing.T) {
	topo := topology.Uniform(1, 1, 1, 2, 1)
	w := mustParse(t, "thread hog count=3\n\trun forever\nend\nthread napper\n\tloop\n\t\trun 1ms\n\t\tsleep 2ms\n\tend\nend\n")
	for _, pc := range realPolicies(topo) {
		t.Run(pc.name, func(t *testing.T) {
			cfg := policyConfig(topo)
			cfg.Trace, cfg.Explain = sim.TraceFull, true
			r := runChecked(t, cfg, pc.make(), w, 500*time.Millisecond)
			calls := map[sim.Call]int{}
			for _, rec := range r.Trace.Records {
				if rec.Kind == sim.KindExplain {
					calls[sim.Call(rec.Arg)]++
					require.NotEmpty(t, r.Trace.Strings[rec.Other])
				}
			}
			assert.NotZero(t, calls[sim.CallWakeup]+calls[sim.CallPick]+calls[sim.CallTick], "explanations: %v", calls)
		})
	}
}

// TestPolicyULEIdleCPUSteals queues the hogs on CPU 0 (they start pinned there and widen their
// affinity while running there, which moves nothing), and CPU 1 runs only a thread that naps.
// When CPU 1 has idled after a switch, ULE's idle loop (tdq_idled, run here from Pick and Tick)
// steals from CPU 0 as soon as a hog there may move, long before the periodic balancer would.
func TestPolicyULEIdleCPUSteals(t *testing.T) {
	w := mustParse(t, `
thread hog count=3 cpus=0
	run 1ms
	cpus 0-1
	run forever
end
thread napper cpus=1
	loop
		run 5ms
		sleep 30ms
	end
end`)
	topo := topology.Uniform(1, 1, 1, 2, 1)
	for _, pc := range realPolicies(topo) {
		if !strings.HasPrefix(pc.name, "ule") {
			continue
		}
		t.Run(pc.name, func(t *testing.T) {
			cfg := policyConfig(topo)
			cfg.Trace, cfg.Explain = sim.TraceFull, true
			r := runChecked(t, cfg, pc.make(), w, time.Second)
			var moved *sim.Record
			for i, rec := range r.Trace.Records {
				if rec.Kind == sim.KindMigrate && rec.CPU == 1 {
					moved = &r.Trace.Records[i]
					break
				}
			}
			require.NotNil(t, moved, "no thread ever moved to cpu1")
			assert.Less(t, moved.Time, int64(200*time.Millisecond), "moved late: %s", r.Trace.Format(*moved))
			var stole bool
			for _, rec := range r.Trace.Records {
				if rec.Time == moved.Time && rec.Kind == sim.KindExplain && rec.CPU == 1 &&
					strings.Contains(r.Trace.Strings[rec.Other], "steal from cpu0") {
					stole = true
				}
			}
			assert.True(t, stole, "the move to cpu1 was not a steal")
			// From then on CPU 1 hardly idles.
			assert.Less(t, r.CPUs[1].Idle, int64(250*time.Millisecond))
		})
	}
}

// TestPolicyCFSTwoHogsSplitEvenly: two nice-0 hogs on one CPU under CFS share it 50:50, since
// vruntime advances at the same rate for equal weights; nice 5 against nice 0 gets the weight
// ratio 335:1024.
func TestPolicyCFSTwoHogsSplitEvenly(t *testing.T) {
	topo := topology.Uniform(1, 1, 1, 1, 1)
	for _, pc := range realPolicies(topo) {
		if !strings.HasPrefix(pc.name, "cfs") {
			continue
		}
		t.Run(pc.name, func(t *testing.T) {
			r := runChecked(t, policyConfig(topo), pc.make(), hogs(t, 2), 10*time.Second)
			require.NoError(t, r.Err())
			for i := range r.Threads {
				assert.InDelta(t, 0.5, r.Threads[i].Share(), 0.005, r.Threads[i].Name)
			}
			w := mustParse(t, "thread a\n\trun forever\nend\nthread b nice=5\n\trun forever\nend\n")
			r = runChecked(t, policyConfig(topo), pc.make(), w, 10*time.Second)
			a, b := thread(t, r, "a"), thread(t, r, "b")
			assert.InDelta(t, 1024.0/335, float64(a.CPUTime)/float64(b.CPUTime), 0.05)
		})
	}
}

// TestPolicyGroups runs a workload with an idle control group: CFS honours it (the idle group's
// hogs weigh 3 against the normal group's 1024, as in seed 004), the FreeBSD policies refuse the
// groups and run the same workload with Config.FlattenGroups.
func TestPolicyGroups(t *testing.T) {
	w := mustParse(t, `
group online
group offline idle
thread web group=online
	run forever
end
thread batch count=2 group=offline
	run forever
end`)
	topo := topology.Uniform(1, 1, 1, 1, 1)
	for _, pc := range realPolicies(topo) {
		t.Run(pc.name, func(t *testing.T) {
			cfg := policyConfig(topo)
			if !strings.HasPrefix(pc.name, "cfs") {
				_, err := sim.New(cfg, pc.make(), w)
				require.Error(t, err, "a FreeBSD policy has no group scheduling")
				cfg.FlattenGroups = true
				r := runChecked(t, cfg, pc.make(), w, 5*time.Second)
				assert.Less(t, thread(t, r, "web").Share(), 0.5, "flattened, the three hogs compete alike")
				return
			}
			cfg.Checks.Starvation = 0 // the idle group's hogs wait long, by design
			r := runChecked(t, cfg, pc.make(), w, 5*time.Second)
			assert.Greater(t, thread(t, r, "web").Share(), 0.95)
		})
	}
}
