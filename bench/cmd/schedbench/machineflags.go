package main

// This file implements the flags run and explain share: what to run, on what machine, for how
// long.

import (
	"errors"
	"flag"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// machineFlags are the flags that describe a run.
type machineFlags struct {
	policy, topology string
	// profile names the machine profile (-profile); resolve sets prof.
	profile    string
	prof       *sim.Profile
	until      time.Duration
	seed       uint64
	hz, statHz int
	flatten    bool
	// reps and parallel are the command's runs per policy and runs at a time, for the bounds of
	// the work (checkWork); 0 means 1. They are not flags of every command.
	reps, parallel int
}

func (m *machineFlags) register(fs *flag.FlagSet, defaultPolicy string) {
	fs.StringVar(&m.policy, "policy", defaultPolicy, "comma-separated `policies`: bench/presets names FAMILY:PRESET such as ule:legacy, bsd4:freebsd14, cfs:v7.1 (an unknown one lists them); ule, bsd4 (or 4bsd) and cfs alone are ule:main, bsd4:main and cfs:v6.5")
	fs.StringVar(&m.topology, "topology", "cpu:2", "the machine: a `spec` such as \"llc:1 core:4 cpu:2\", a file (text or JSON spec; - for standard input), host, or one of two-cpu, two-socket-smt, four-llc, four-node, big-little")
	fs.DurationVar(&m.until, "until", 10*time.Second, "simulated `time` to run for (the run ends earlier if every thread exits)")
	fs.Uint64Var(&m.seed, "seed", 1, "`seed` of the workload's random durations (repetition i uses seed+i)")
	fs.IntVar(&m.hz, "hz", sim.DefaultHz, "clock interrupt `rate` (hz, CONFIG_HZ)")
	fs.IntVar(&m.statHz, "stathz", 127, "FreeBSD's statistics clock `rate` (ULE and 4BSD tick at it)")
	registerProfile(fs, &m.profile)
	fs.BoolVar(&m.flatten, "flatten", false, "run every thread in the root group under the policies without group scheduling (ULE, 4BSD) when the workload declares groups; the others keep them")
}

// A setup is a validated run description: everything but the repetitions.
type setup struct {
	policies []policySpec
	topo     *topology.Topology
	w        *workload.Workload
	wname    string
	flags    machineFlags
	flatten  []bool // per policy: run every thread in the root group (-flatten, and the policy has no groups)
}

// resolve checks the flags and the workload argument and builds a machine for each policy once,
// so that every refusal (a policy that cannot honour the workload, a thread pinned to a CPU the
// topology lacks) is a usage error before anything runs or is written.
func (m *machineFlags) resolve(e *env, fs *flag.FlagSet) (*setup, error) {
	args := fs.Args()
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	if err := m.check(args); err != nil {
		return nil, err
	}
	ps, err := parsePolicies(m.policy)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if m.prof, err = resolveProfile(m.profile); err != nil {
		return nil, err
	}
	t, err := e.topology(m.topology)
	if err != nil {
		return nil, usagef("%v", err)
	}
	w, err := loadWorkload(e, args[0])
	wname := workloadName(args[0])
	if errors.Is(err, errNoFile) {
		// Not a file: a scenario's name, whose first row gives the workload, the machine and
		// the length, unless -topology and -until say otherwise.
		su, name, serr := scenarioSetup(args[0], err)
		if serr != nil {
			return nil, serr
		}
		w, err, wname = su.Workload, nil, name
		if !explicit["topology"] {
			t = su.Config.Topology
		}
		if !explicit["until"] && su.Until > 0 {
			m.until = su.Until
		}
	}
	if err != nil {
		return nil, usagef("%v", err)
	}
	if instances(w) == 0 {
		return nil, usagef("%s: the workload starts no thread (templates alone are started only by forks): nothing to run", args[0])
	}
	s := &setup{policies: ps, topo: t, w: w, wname: wname, flags: *m}
	// The work asked for, before the machines built below to check the workload (a million
	// threads are hundreds of megabytes each).
	if err := checkWork(s, max(1, m.reps), max(1, m.parallel), e.maxMemory); err != nil {
		return nil, err
	}
	s.flatten = make([]bool, len(ps))
	for i, p := range ps {
		_, err := sim.New(s.config(i, 0, sim.TraceOff, false), p.new(), w)
		if err != nil && m.flatten && len(w.Groups) > 0 {
			// -flatten is for the policies without group scheduling: only those that refuse
			// the groups run without them.
			s.flatten[i] = true
			_, err = sim.New(s.config(i, 0, sim.TraceOff, false), p.new(), w)
		}
		if err != nil {
			hint := ""
			if len(w.Groups) > 0 && !m.flatten {
				hint = " (-flatten runs the threads of policies without group scheduling in the root group)"
			}
			return nil, usagef("%s on %s: %v%s", p.name, t, err, hint)
		}
	}
	return s, nil
}

// check returns a usage error for a workload argument missing or repeated, or a clock flag out
// of range.
func (m *machineFlags) check(args []string) error {
	switch {
	case len(args) == 0:
		return usagef("no workload file given")
	case len(args) > 1:
		return usagef("one workload at a time, got %d arguments: %q", len(args), args)
	case m.until <= 0:
		return usagef("-until %v: want a positive duration", m.until)
	case m.until > maxUntil:
		return usagef("-until %v: at most %v of simulated time", m.until, maxUntil)
	case m.hz < 2 || m.hz > 100000:
		return usagef("-hz %d: want 2..100000", m.hz)
	case m.statHz < 1 || m.statHz > m.hz:
		return usagef("-stathz %d: want 1..hz (%d)", m.statHz, m.hz)
	}
	return nil
}

// scenarioSetup returns the setup of the first row of the scenario named name, for a workload
// argument that is not a file (notFile says why), and the scenario's name.
func scenarioSetup(name string, notFile error) (scenario.Setup, string, error) {
	sc, err := scenario.Lookup(name)
	if err != nil {
		return scenario.Setup{}, "", usagef("%v, and not a scenario (%s)", notFile, strings.Join(scenario.Names(), ", "))
	}
	pl, err := scenario.NewPlan(sc, scenario.Options{Reps: 1})
	if err != nil {
		return scenario.Setup{}, "", usagef("%s: %v", sc.Name, err)
	}
	c := pl.Cells[0]
	su, err := sc.Build(c.Values, &sc.Rows[c.Row])
	if err != nil {
		return scenario.Setup{}, "", usagef("%s: %v", sc.Name, err)
	}
	return su, sc.Name, nil
}

// config returns the machine configuration of policy p's repetition rep, with the costs of the
// machine profile.
func (s *setup) config(p, rep int, trace sim.TraceMode, explain bool) sim.Config {
	cfg := sim.Config{Topology: s.topo, Hz: s.flags.hz, StatHz: s.flags.statHz, Seed: s.flags.seed + uint64(rep),
		Trace: trace, Explain: explain, FlattenGroups: s.flatten[p]}
	s.flags.prof.Apply(&cfg)
	return cfg
}
