package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refusing is a toy that cannot run on the machine or cannot make groups.
type refusing struct {
	rr
	start, group bool
	hz           int
}

func (p *refusing) Start(cfg sched.Config, env sched.Env) error {
	if p.start {
		return assert.AnError
	}
	return p.rr.Start(cfg, env)
}

func (p *refusing) AddGroup(sched.Group) error {
	if p.group {
		return assert.AnError
	}
	return nil
}

func (p *refusing) TickHz() int { return p.hz }

func TestNewErrors(t *testing.T) {
	one := topology.Uniform(1, 1, 1, 1, 1)
	w := mustParse(t, "group g\nthread x cpus=0 group=g\n\trun 1ms\nend\n")
	cases := []struct {
		name string
		cfg  sim.Config
		p    sim.Policy
		text string
		want string
	}{
		{"no topology", sim.Config{}, newRR(1000, 4), "", "sim: Config without a topology"},
		{"zero topology", sim.Config{Topology: &topology.Topology{}}, newRR(1000, 4), "", "sim: Config.Topology has no CPUs"},
		{"nil policy", sim.Config{Topology: one}, nil, "", "sim: nil Policy"},
		{"nil workload", sim.Config{Topology: one}, newRR(1000, 4), "-", "sim: nil Workload"},
		{"speed entries", sim.Config{Topology: one, Speed: []int{1, 2}}, newRR(1000, 4), "", "sim: Config.Speed has 2 entries for 1 CPU ids"},
		{"speed value", sim.Config{Topology: one, Speed: []int{5000}}, newRR(1000, 4), "", "sim: Config.Speed[0] = 5000 outside 1..4096"},
		{"smt", sim.Config{Topology: one, SMTFactor: 2000}, newRR(1000, 4), "", "sim: Config.SMTFactor 2000 outside 1..1024"},
		{"negative cost", sim.Config{Topology: one, Costs: sim.Costs{IPI: sim.Fixed(-1)}}, newRR(1000, 4), "", "sim: Costs.IPI: negative cost -1ns"},
		{"quantiles out of order", sim.Config{Topology: one, Costs: sim.Costs{Timer: sim.Cost{P50: 2, P90: 1, P99: 3, Max: 4}}}, newRR(1000, 4), "", "sim: Costs.Timer: quantiles"},
		{"wakeup cost above MaxCost", sim.Config{Topology: one, Costs: sim.Costs{Wakeup: sim.Cost{Max: sim.MaxCost + 1}}}, newRR(1000, 4), "", "sim: Costs.Wakeup: cost above MaxCost"},
		{"explain without trace", sim.Config{Topology: one, Explain: true}, newRR(1000, 4), "", "sim: Config.Explain needs a trace"},
		{"cpus off the machine", sim.Config{Topology: one}, newRR(1000, 4), "thread x cpus=1\n\trun 1ms\nend\n", `sim: thread "x": CPUs 1 are not all on the machine (0)`},
		{"op cpus off the machine", sim.Config{Topology: one}, newRR(1000, 4), "thread x\n\tcpus 0-1\nend\n", "sim: cpus 0-1: not all on the machine (0)"},
		{"start refused", sim.Config{Topology: one}, &refusing{start: true, hz: 100}, "", "sim: toy-rr: assert.AnError"},
		{"group refused", sim.Config{Topology: one}, &refusing{group: true, hz: 100}, "", `sim: toy-rr: group "g": assert.AnError`},
		{"tick rate", sim.Config{Topology: one}, &refusing{hz: 0}, "", "sim: toy-rr: tick rate 0 outside 1..1000000"},
		{"tick cost", sim.Config{Topology: one, Costs: sim.Costs{Tick: sim.Fixed(10 * time.Millisecond)}}, &refusing{hz: 100}, "", "sim: tick cost 10ms (median) is not below half the tick period of toy-rr"},
		{"switch cost MaxInt64", sim.Config{Topology: one, Costs: sim.Costs{Switch: sim.Fixed(math.MaxInt64)}}, newRR(1000, 4), "", "sim: Costs.Switch: cost above MaxCost"},
		{"migration cost 1<<62", sim.Config{Topology: one, Costs: sim.Costs{Migration: sim.EveryLevel(sim.Fixed(1 << 62))}}, newRR(1000, 4), "", "sim: Costs.Migration.SMT: cost above MaxCost"},
		{"ipi cost MaxInt64", sim.Config{Topology: one, Costs: sim.Costs{IPI: sim.Fixed(math.MaxInt64)}}, newRR(1000, 4), "", "sim: Costs.IPI: cost above MaxCost"},
		{"tick cost MaxInt64", sim.Config{Topology: one, Costs: sim.Costs{Tick: sim.Fixed(math.MaxInt64)}}, newRR(1000, 4), "", "sim: Costs.Tick: cost above MaxCost"},
		{"checker bound", sim.Config{Topology: one, Checks: sim.Checks{Starvation: math.MaxInt64}}, newRR(1000, 4), "", "sim: checker bound above MaxTime"},
		{"max threads", sim.Config{Topology: one, MaxThreads: math.MaxInt}, newRR(1000, 4), "", "sim: Config.MaxThreads"},
		{"exact samples", sim.Config{Topology: one, ExactSamples: -1}, newRR(1000, 4), "", "sim: Config.ExactSamples -1"},
		{"idle exit", sim.Config{Topology: one, Idle: sim.Idle{ExitLatency: sim.Fixed(math.MaxInt64)}}, newRR(1000, 4), "", "sim: Config.Idle.ExitLatency"},
		{"miss probability", sim.Config{Topology: one, Idle: sim.Idle{MissProbability: math.NaN()}}, newRR(1000, 4), "", "sim: Config.Idle.MissProbability NaN"},
		{"miss window", sim.Config{Topology: one, Idle: sim.Idle{MissWindow: -1}}, newRR(1000, 4), "", "sim: Config.Idle.MissWindow"},
		{"spin factor", sim.Config{Topology: one, Idle: sim.Idle{SpinFactor: 1025}}, newRR(1000, 4), "", "sim: Config.Idle.SpinFactor 1025"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if r, ok := tc.p.(*refusing); ok {
				r.rr = *newRR(100, 4)
			}
			wl := w
			switch tc.text {
			case "":
			case "-":
				wl = nil
			default:
				wl = mustParse(t, tc.text)
			}
			_, err := sim.New(tc.cfg, tc.p, wl)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestFlattenGroups(t *testing.T) {
	w := mustParse(t, "group g\nthread x group=g\n\trun 1ms\nend\n")
	p := &refusing{rr: *newRR(1000, 4), group: true, hz: 1000}
	r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), FlattenGroups: true}, p, w, time.Second)
	require.NoError(t, err)
	assert.Equal(t, int64(1), r.Exited)
}

func TestForkBombStops(t *testing.T) {
	w := mustParse(t, "template t\n\tfork t 2\n\trun 1ms\nend\nthread x\n\tfork t\nend\n")
	m, err := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), MaxThreads: 100}, newRR(1000, 4), w)
	require.NoError(t, err)
	err = m.Run(time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sim: more than 100 threads at time ")
	assert.True(t, m.Done())
	assert.False(t, m.Step())
}

// misbehaving asks for impossible reschedules.
type misbehaving struct {
	rr
	cpu  topology.CPU
	loop bool
}

func (p *misbehaving) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	if p.loop {
		p.env.Resched(cpu)
	}
	return p.rr.Pick(now, cpu)
}

func (p *misbehaving) Tick(now int64, cpu topology.CPU) {
	if p.cpu != 0 {
		p.env.Resched(p.cpu)
	}
	p.rr.Tick(now, cpu)
}

func TestPolicyMisusePanics(t *testing.T) {
	w := mustParse(t, "thread x\n\trun forever\nend\n")
	one := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}
	m, err := sim.New(one, &misbehaving{rr: *newRR(1000, 4), cpu: 7}, w)
	require.NoError(t, err)
	assert.PanicsWithValue(t, "sim: toy-rr asked to reschedule cpu7, not a CPU of the machine", func() { _ = m.Run(time.Second) })

	m, err = sim.New(one, &misbehaving{rr: *newRR(1000, 4), loop: true}, w)
	require.NoError(t, err)
	assert.PanicsWithValue(t, "sim: toy-rr keeps asking for reschedules at time 0", func() { _ = m.Run(time.Second) })
}

func TestRunContinues(t *testing.T) {
	w := hogs(t, 2)
	m, err := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, newRR(1000, 4), w)
	require.NoError(t, err)
	require.NoError(t, m.Run(500*time.Millisecond))
	half := m.Result()
	require.NoError(t, m.Run(time.Second))
	full := m.Result()
	assert.Equal(t, int64(500*time.Millisecond), half.End)
	assert.Equal(t, int64(time.Second), full.End)
	assert.Equal(t, int64(time.Second), full.Threads[0].CPUTime+full.Threads[1].CPUTime)
	// The same as one run to the end.
	r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, newRR(1000, 4), w, time.Second)
	require.NoError(t, err)
	assert.Equal(t, r.Threads, full.Threads)
}

// TestLongInstantsOfValidWorkloadsRun checks that the guard against a policy rescheduling without
// end does not fire on a valid workload that does much at one instant: 70000 yields (beyond the
// guard's 65536 + 64×(threads+CPUs) work items) and a fork of 70000 threads, each woken at once.
func TestLongInstantsOfValidWorkloadsRun(t *testing.T) {
	one := topology.Uniform(1, 1, 1, 1, 1)
	cases := []struct {
		name, text string
		exited     int64
	}{
		{"yields", "thread a\n\trepeat 70000\n\t\tyield\n\tend\n\trun 1ms\nend\n", 1},
		{"two threads yielding", "thread a count=2\n\trepeat 40000\n\t\tyield\n\tend\n\trun 1ms\nend\n", 2},
		{"fork", "template c\n\texit\nend\nthread p\n\tfork c 70000\n\tjoin\nend\n", 70001},
	}
	for _, tc := range cases {
		w := mustParse(t, tc.text)
		for _, pc := range realPolicies(one) {
			if tc.name == "fork" && pc.name != "ule-main" {
				continue // 70000 threads take seconds under the race detector: one policy is enough
			}
			t.Run(tc.name+"/"+pc.name, func(t *testing.T) {
				r, err := sim.Run(sim.Config{Topology: one}, pc.make(), w, time.Second)
				require.NoError(t, err)
				assert.Equal(t, tc.exited, r.Exited, "threads exited")
				require.NoError(t, r.Err())
			})
		}
	}
}
