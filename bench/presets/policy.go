// This file implements the registry: names of presets and the constructors behind them.

package presets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/ule"
)

// Families returns the policy families, sorted: "bsd4", "cfs", "ule".
func Families() []string { return []string{"bsd4", "cfs", "ule"} }

// presetsOf returns the presets of family f, sorted, or false if f is not a family.
func presetsOf(f string) ([]string, bool) {
	switch f {
	case "ule":
		return ule.Presets(), true
	case "bsd4":
		return []string{"freebsd14", "freebsd9", "main"}, true
	case "cfs":
		return []string{"v6.5", "v6.5+favor-nonidle-tick", "v6.6", "v7.1"}, true
	}
	return nil, false
}

// Names returns every name New accepts, FAMILY:PRESET, sorted by family and then by preset.
func Names() []string {
	var out []string
	for _, f := range Families() {
		ps, _ := presetsOf(f)
		for _, p := range ps {
			out = append(out, f+":"+p)
		}
	}
	return out
}

// Split splits a name into its family and preset. It returns an error naming the problem if
// name is not of the form FAMILY:PRESET with a known family and one of its presets.
func Split(name string) (family, preset string, err error) {
	family, preset, ok := strings.Cut(name, ":")
	if !ok || family == "" || preset == "" {
		return "", "", fmt.Errorf("presets: %q is not FAMILY:PRESET (families: %s)", name, strings.Join(Families(), ", "))
	}
	ps, ok := presetsOf(family)
	if !ok {
		return "", "", fmt.Errorf("presets: %q: unknown family %q (families: %s)", name, family, strings.Join(Families(), ", "))
	}
	if !slices.Contains(ps, preset) {
		return "", "", fmt.Errorf("presets: %q: unknown %s preset %q (presets: %s)", name, family, preset, strings.Join(ps, ", "))
	}
	return family, preset, nil
}

// New returns a fresh policy for the preset called name (see Names), or an error naming an
// unknown family or preset.
func New(name string) (sim.Policy, error) {
	family, preset, err := Split(name)
	if err != nil {
		return nil, err
	}
	switch family {
	case "ule":
		p, err := ule.Preset(preset)
		if err != nil {
			return nil, fmt.Errorf("presets: %q: %w", name, err)
		}
		return ule.New(p), nil
	case "bsd4":
		var p bsd4.Params
		switch preset {
		case "main":
			p = bsd4.DefaultParams()
		case "freebsd14":
			p = bsd4.FreeBSD14Params()
		case "freebsd9":
			p = bsd4.FreeBSD9Params()
		}
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("presets: %q: %w", name, err)
		}
		return bsd4.New(p), nil
	default: // cfs
		switch preset {
		case "v6.5":
			return cfs.NewScheduler(cfs.SchedulerOptions{Version: cfs.V65}), nil
		case "v6.6":
			return cfs.NewScheduler(cfs.SchedulerOptions{Version: cfs.V66}), nil
		case "v7.1":
			return cfs.NewScheduler(cfs.SchedulerOptions{Version: cfs.V71}), nil
		default: // v6.5+favor-nonidle-tick
			return &favorNonIdle{}, nil
		}
	}
}

// favorNonIdle is CFS v6.5 with FavorNonIdleTick. The preset's tunables scale with the number
// of CPUs, which is known only at Start, so the cfs.Scheduler is built there.
type favorNonIdle struct {
	*cfs.Scheduler
}

// Name returns "cfs-v6.5-favor-nonidle-tick".
func (f *favorNonIdle) Name() string { return "cfs-v6.5-favor-nonidle-tick" }

// Start builds the scheduler with v6.5's preset for cfg's CPUs and FavorNonIdleTick set.
func (f *favorNonIdle) Start(cfg sched.Config, env sched.Env) error {
	if cfg.Topology == nil {
		return fmt.Errorf("presets: nil topology")
	}
	p := cfs.Preset(cfs.V65, cfg.Topology.NumCPUs())
	p.FavorNonIdleTick = true
	f.Scheduler = cfs.NewScheduler(cfs.SchedulerOptions{Version: cfs.V65, Params: &p})
	return f.Scheduler.Start(cfg, env)
}
