package simtest

// This file implements CheckPolicy, the conformance test of a sim.Policy, and CheckFamily,
// which runs it on every preset of a policy family.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// Options adjust [CheckPolicy].
type Options struct {
	// Topologies are the machines each scenario runs on; nil means one CPU, four CPUs, and two
	// packages of two cores with two hardware threads each.
	Topologies []*topology.Topology
	// Groups runs the control-group scenario with its groups; otherwise (a policy without group
	// scheduling) the machine flattens them (sim.Config.FlattenGroups).
	Groups bool
	// Starvation is the bound of the starvation checker; 0 means 5 seconds.
	Starvation time.Duration
	// WorkConservation is the bound of the work-conservation checker; 0 leaves it off.
	WorkConservation time.Duration
	// Time is each scenario's length of simulated time; 0 means 2s, enough for 4BSD's 100ms
	// quanta to let a thread pinned beside a hog in.
	Time time.Duration
	// NonPreemptive says the policy never takes the CPU from a running thread (a textbook FIFO):
	// the goals of the scenarios in which CPU hogs must share are not checked, the contract is.
	NonPreemptive bool
}

// A scenario is one workload and what a conforming policy achieves with it.
type scenario struct {
	name  string
	text  string
	check func(r *sim.Result, topo *topology.Topology) error
	// shares says the goal needs time slicing: CPU hogs share the CPUs with other threads.
	shares bool
}

var scenarios = []scenario{
	{"hogs", `
thread hog count=TWICE
	run forever
end`, func(r *sim.Result, topo *topology.Topology) error {
		// Two hogs per CPU keep every CPU busy, and each runs.
		for i := range r.Threads {
			if r.Threads[i].CPUTime == 0 {
				return fmt.Errorf("%s never ran", r.Threads[i].Name)
			}
		}
		for id := range topo.CPUs().All() {
			if c := &r.CPUs[id]; c.Idle > r.End/10 {
				return fmt.Errorf("cpu%d idle %dns of %dns beside two hogs per CPU", id, c.Idle, r.End)
			}
		}
		return nil
	}, true},
	{"pinned", `
thread pinned cpus=0
	loop
		run 2ms
		sleep 1ms
	end
end
thread hog count=4
	run forever
end`, func(r *sim.Result, _ *topology.Topology) error {
		p, _ := r.Thread("pinned")
		switch {
		case p.Migrations != 0:
			return fmt.Errorf("a thread pinned to cpu0 migrated %d times", p.Migrations)
		case p.CPUTime == 0:
			return fmt.Errorf("the pinned thread never ran")
		}
		return nil
	}, true},
	{"pipe", `
pipe ping
pipe pong
thread a
	repeat 200
		send ping
		recv pong
		run 50us
	end
end
thread b
	repeat 200
		recv ping
		run 50us
		send pong
	end
end`, func(r *sim.Result, _ *topology.Topology) error {
		if r.Ending != sim.AllExited || r.Messages != 400 {
			return fmt.Errorf("ping-pong ended by %v after %d of 400 messages", r.Ending, r.Messages)
		}
		return nil
	}, false},
	{"fork-join", `
template job
	run uniform(500us,2ms)
end
thread make
	repeat 5
		fork job 6
		join
	end
end`, func(r *sim.Result, _ *topology.Topology) error {
		if r.Ending != sim.AllExited || r.Exited != 31 {
			return fmt.Errorf("make -j6 ended by %v with %d of 31 threads exited", r.Ending, r.Exited)
		}
		return nil
	}, false},
	{"periodic", `
thread tick count=2
	every 10ms 10 phase=stagger
		run 1ms
	end
end
thread hog count=2
	run forever
end`, func(r *sim.Result, _ *topology.Topology) error {
		for _, n := range []string{"tick.0", "tick.1"} {
			tk, _ := r.Thread(n)
			if tk.Request.Count() < 10 {
				return fmt.Errorf("%s ran %d of its 10 periods", n, tk.Request.Count())
			}
		}
		return nil
	}, true},
	{"attributes", `
thread changer
	loop
		run 1ms
		nice 10
		run 1ms
		class batch
		run 1ms
		cpus 0
		run 1ms
		class idle
		run 100us
		class normal
		nice 0
		cpus ALL
		sleep 1ms
	end
end
thread hog count=NCPUS
	run forever
end`, func(r *sim.Result, _ *topology.Topology) error {
		if c, _ := r.Thread("changer"); c.Wakeups == 0 {
			return fmt.Errorf("the thread changing its attributes never went round its loop")
		}
		return nil
	}, true},
	{"groups", `
group a weight=200
group b weight=50
group c parent=a
thread x count=2 group=a
	run forever
end
thread y count=2 group=b
	run forever
end
thread z group=c
	loop
		run 2ms
		sleep 1ms
		group b
		run 1ms
		group c
	end
end`, func(r *sim.Result, _ *topology.Topology) error {
		for i := range r.Threads {
			if r.Threads[i].CPUTime == 0 {
				return fmt.Errorf("%s never ran", r.Threads[i].Name)
			}
		}
		return nil
	}, true},
}

// CheckPolicy runs fresh policies from factory through every scenario on every topology of
// opts, reporting through t each breach of the Policy contract the machine sees (after every
// event: sim.Machine.Check, including the policy's Queued count when it is a sched.Queuer), each
// violation of the checkers, each scenario whose goal is not met, any difference between the
// traces of two runs with the same seed, and any difference but the Explain records between a
// run and one that records explanations (explaining must never change which code decides). A policy that refuses a scenario's workload before it
// runs (an AttrChecker, or a Start or AddGroup error) has that scenario reported as skipped
// through t.Logf, not as a failure; a refusal on the first topology is reported once.
func CheckPolicy(t testing.TB, factory func() sim.Policy, opts Options) {
	t.Helper()
	topos := opts.Topologies
	if topos == nil {
		topos = []*topology.Topology{topology.Uniform(1, 1, 1, 1, 1), topology.Uniform(1, 1, 1, 4, 1),
			topology.Uniform(2, 1, 1, 2, 2)}
	}
	starve := opts.Starvation
	if starve == 0 {
		starve = 5 * time.Second
	}
	until := opts.Time
	if until == 0 {
		until = 2 * time.Second
	}
	for _, sc := range scenarios {
		for _, topo := range topos {
			// ALL stands for every CPU of the machine, NCPUS for their number, TWICE for twice it.
			text := strings.NewReplacer("ALL", topo.CPUs().String(), "NCPUS", strconv.Itoa(topo.NumCPUs()),
				"TWICE", strconv.Itoa(2*topo.NumCPUs())).Replace(sc.text)
			w, err := workload.Parse(text)
			if err != nil {
				panic("simtest: scenario " + sc.name + ": " + err.Error())
			}
			where := fmt.Sprintf("%s on %d CPUs", sc.name, topo.NumCPUs())
			cfg := sim.Config{Topology: topo, Hz: 1000, StatHz: 127, Seed: 1, Trace: sim.TraceFull,
				FlattenGroups: !opts.Groups,
				Checks:        sim.Checks{Starvation: starve, WorkConservation: opts.WorkConservation}}
			// Run 0 is checked after every event; run 1, with the same seed, must leave the same
			// trace; run 2 records explanations, which must change nothing else in the trace.
			var runs [3]*sim.Result
			for run := range runs {
				p := factory()
				c := cfg
				c.Explain = run == 2
				m, err := sim.New(c, p, w)
				if err != nil {
					if run == 0 {
						t.Logf("%s: skipped: %v", where, err)
					}
					break
				}
				var r *sim.Result
				if run == 0 {
					r, err = runChecked(m, until)
				} else {
					err = m.Run(until)
					r = m.Result()
				}
				if err != nil {
					t.Errorf("%s: %s: %v", where, p.Name(), err)
					break
				}
				runs[run] = r
				switch run {
				case 0:
					if err := r.Err(); err != nil {
						t.Errorf("%s: %v", where, err)
					}
					if opts.NonPreemptive && sc.shares {
						break // a policy that never preempts need not share the CPUs with hogs
					}
					if err := sc.check(r, topo); err != nil {
						t.Errorf("%s: %s: %v", where, p.Name(), err)
					}
				case 1:
					if h0, h1 := runs[0].Trace.Hash(), r.Trace.Hash(); h0 != h1 {
						t.Errorf("%s: %s: two runs with the same seed differ (trace %#x, then %#x)", where, p.Name(), h0, h1)
					}
				case 2:
					if i, ok := sameBesidesExplain(runs[0].Trace.Records, r.Trace.Records); !ok {
						t.Errorf("%s: %s: explaining changed the run: the traces differ at record %d", where, p.Name(), i)
					}
				}
			}
		}
	}
}

// CheckFamily runs [CheckPolicy] and [CheckMisuse] on every preset of f, each in a subtest
// named after it, with the control-group scenario unflattened when f.Groups, after checking
// the family value
// itself: a name, sorted presets, a fresh policy from each New call, and an error that starts
// with the family's name for a preset it lacks. TestFamilies in this package's tests calls it
// for every family bench/presets lists.
func CheckFamily(t *testing.T, f sched.Family, opts Options) {
	t.Helper()
	switch {
	case f.Name == "" || f.New == nil:
		t.Fatalf("family %q: no name or no New", f.Name)
	case len(f.Presets) == 0:
		t.Fatalf("family %q: no presets", f.Name)
	}
	for i := 1; i < len(f.Presets); i++ {
		if f.Presets[i-1] >= f.Presets[i] {
			t.Errorf("family %s: presets %q not sorted and unique", f.Name, f.Presets)
		}
	}
	if _, err := f.New("no such preset"); err == nil || !strings.HasPrefix(err.Error(), f.Name+": ") {
		t.Errorf("family %s: New(%q) = %v, want an error starting %q", f.Name, "no such preset", err, f.Name+": ")
	}
	opts.Groups = f.Groups
	for _, preset := range f.Presets {
		opts := opts
		opts.NonPreemptive = slices.Contains(f.NonPreemptive, preset)
		t.Run(preset, func(t *testing.T) {
			p1, err1 := f.New(preset)
			p2, err2 := f.New(preset)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: New(%q): %v, %v", f.Name, preset, err1, err2)
			}
			if p1 == p2 {
				t.Fatalf("%s: New(%q) returned the same policy twice", f.Name, preset)
			}
			newPolicy := func() sim.Policy {
				p, err := f.New(preset)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			CheckPolicy(t, newPolicy, opts)
			t.Run("misuse", func(t *testing.T) { CheckMisuse(t, f.Name, newPolicy) })
		})
	}
}

// sameBesidesExplain reports whether explained, without its Explain records, equals plain,
// and if not the index in plain of the first difference.
func sameBesidesExplain(plain, explained []sim.Record) (int, bool) {
	i := 0
	for _, r := range explained {
		if r.Kind == sim.KindExplain {
			continue
		}
		if i >= len(plain) || plain[i] != r {
			return i, false
		}
		i++
	}
	return i, i == len(plain)
}

// runChecked steps m to until, checking the conservation of threads after every event.
func runChecked(m *sim.Machine, until time.Duration) (*sim.Result, error) {
	for {
		next, ok := m.Next()
		if !ok || next > int64(until) {
			break
		}
		m.Step()
		if err := m.Check(); err != nil {
			return nil, err
		}
	}
	if err := m.Run(until); err != nil {
		return nil, err
	}
	return m.Result(), nil
}
