// This file implements the registry: names of presets and the constructors behind them.

package presets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/ule"
)

// Families returns the policy families, sorted: "bsd4", "cfs", "ule".
func Families() []string { return []string{"bsd4", "cfs", "ule"} }

// knobs are the presets this package adds to a family's own: a base preset with the knob a
// seed turns.
var knobs = map[string][]string{
	"cfs":  {"v6.5+favor-nonidle-tick"},
	"bsd4": {"freebsd14-nopreemption", "freebsd14+ipi-preemption"},
}

// presetsOf returns the presets of family f, sorted, or false if f is not a family.
func presetsOf(f string) ([]string, bool) {
	var ps []string
	switch f {
	case "ule":
		ps = ule.Presets()
	case "bsd4":
		ps = bsd4.Presets()
	case "cfs":
		ps = cfs.Presets()
	default:
		return nil, false
	}
	ps = append(slices.Clone(ps), knobs[f]...)
	slices.Sort(ps)
	return ps, true
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
	var p sim.Policy
	switch family {
	case "ule":
		p, err = newPolicy(preset, ule.Preset, ule.New)
	case "bsd4":
		switch preset {
		case "freebsd14-nopreemption", "freebsd14+ipi-preemption":
			p, err = newPolicy("freebsd14", func(n string) (bsd4.Params, error) {
				q, err := bsd4.Preset(n)
				// options PREEMPTION off, or on with IPI_PREEMPTION (seed 002).
				q.Preemption = preset == "freebsd14+ipi-preemption"
				q.IPIPreemption = q.Preemption
				q.Name = "4bsd-14-" + map[bool]string{false: "nopreemption", true: "ipi-preemption"}[q.Preemption]
				return q, err
			}, bsd4.New)
		default:
			p, err = newPolicy(preset, bsd4.Preset, bsd4.New)
		}
	default: // cfs
		if preset == "v6.5+favor-nonidle-tick" {
			p, err = newPolicy("v6.5", func(n string) (cfs.Params, error) {
				q, err := cfs.Preset(n)
				q.FavorNonIdleTick = true
				q.Name = "cfs-v6.5-favor-nonidle-tick"
				return q, err
			}, cfs.New)
		} else {
			p, err = newPolicy(preset, cfs.Preset, cfs.New)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("presets: %q: %w", name, err)
	}
	return p, nil
}

// newPolicy builds a policy from a family's Preset and New.
func newPolicy[P any, S sim.Policy](name string, preset func(string) (P, error), build func(P) (S, error)) (sim.Policy, error) {
	p, err := preset(name)
	if err != nil {
		return nil, err
	}
	return build(p)
}
