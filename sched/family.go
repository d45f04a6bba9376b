package sched

// This file implements Family, a policy package as the harnesses see it, and Presets, the
// table of named parameter sets every policy package keeps.

import (
	"fmt"
	"slices"
	"strings"
)

// A Preset is one named set of a policy's parameters: a historical variant the seeds compare
// (ULE's "legacy", CFS's "v6.5"), or a knob a seed turns on top of one.
type Preset[P any] struct {
	// Name names the preset in its family, such as "legacy" or "v6.5+favor-nonidle-tick".
	Name string
	// Params returns a fresh copy of the preset's parameters.
	Params func() P
}

// Presets is a policy package's table of presets, in any order. Names must be unique.
type Presets[P any] []Preset[P]

// Names returns the names of ps, sorted.
func (ps Presets[P]) Names() []string {
	names := make([]string, len(ps))
	for i := range ps {
		names[i] = ps[i].Name
	}
	slices.Sort(names)
	return names
}

// Lookup returns the parameters of the preset called name, and false if ps has none. The
// complexity is O(len(ps)).
func (ps Presets[P]) Lookup(name string) (P, bool) {
	for i := range ps {
		if ps[i].Name == name {
			return ps[i].Params(), true
		}
	}
	var zero P
	return zero, false
}

// Get returns the parameters of the preset called name, or the zero P and an error starting
// with pkg (the policy package's name) that lists the known names: a policy package's Preset.
func (ps Presets[P]) Get(pkg, name string) (P, error) {
	p, ok := ps.Lookup(name)
	if !ok {
		return p, fmt.Errorf("%s: unknown preset %q (known: %s)", pkg, name, strings.Join(ps.Names(), ", "))
	}
	return p, nil
}

// A Family is a policy package as the harnesses see it (bench/presets lists them; the
// conformance tests of bench/sim/simtest run every preset of each): its name, its presets and
// how to build a policy of each. Each policy package exports one, from a function named Family
// (a value built afresh on each call, so that no caller can change another's):
//
//	func Family() sched.Family { return sched.NewFamily("ule", presets, New) }
//
// It is the go/analysis pattern: the interface ([Policy]) lives in this small shared package,
// and each plug-in is a value, so that a new policy is one package and one line in a list.
type Family struct {
	// Name is the family's name, the FAMILY of the FAMILY:PRESET names: "ule", "bsd4", "cfs".
	Name string
	// Presets are the names New accepts, sorted: the package's historical variants and its
	// knob presets (a base preset with one knob a seed turns, such as cfs's
	// "v6.5+favor-nonidle-tick").
	Presets []string
	// Groups reports whether the family's policies schedule control groups (their AddGroup
	// succeeds); a harness flattens a workload's groups for the others.
	Groups bool
	// NonPreemptive lists the presets that never take the CPU from a running thread, such as a
	// textbook FIFO: CPU hogs starve the threads behind them, so a harness checks the contract
	// on them but not goals that need time slicing.
	NonPreemptive []string
	// New returns a fresh policy of the preset called name, for one machine, or an error that
	// names an unknown preset or the parameters' first problem.
	New func(preset string) (Policy, error)
}

// NewFamily returns the family called name whose presets are presets, each built into a
// policy by build (a package's New). The family's New returns an error starting with name,
// listing the known presets, for a name presets lacks. NewFamily panics if two presets share a
// name. Set the Groups field of the result for a family with group scheduling.
func NewFamily[P any, S Policy](name string, presets Presets[P], build func(P) (S, error)) Family {
	names := presets.Names()
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			panic(fmt.Sprintf("sched: NewFamily(%q): preset %q twice", name, names[i]))
		}
	}
	presets = slices.Clone(presets)
	return Family{Name: name, Presets: names, New: func(preset string) (Policy, error) {
		p, err := presets.Get(name, preset)
		if err != nil {
			return nil, err
		}
		s, err := build(p)
		if err != nil {
			// A nil S in a Policy would not be a nil Policy.
			return nil, err
		}
		return s, nil
	}}
}

// Has reports whether preset is one of f's presets.
func (f *Family) Has(preset string) bool {
	_, ok := slices.BinarySearch(f.Presets, preset)
	return ok
}
