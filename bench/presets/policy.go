// This file implements the registry: the policy families, and the names of their presets.

package presets

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/toy"
	"github.com/schedkit/schedkit/ule"
)

// Families returns the policy families, sorted by name: bsd4, cfs, toy (the textbook FIFO,
// SJF and round robin), ule. Each call returns fresh values. A new policy package joins every harness (the command line, the scenarios, the
// conformance tests of bench/sim/simtest) by one line here.
func Families() []sched.Family {
	return []sched.Family{
		bsd4.Family(),
		cfs.Family(),
		toy.Family(),
		ule.Family(),
	}
}

// familyNames returns the names of the families, as Families orders them.
func familyNames() string {
	var names []string
	for _, f := range Families() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// Names returns every name New accepts, FAMILY:PRESET, sorted by family and then by preset.
func Names() []string {
	var out []string
	for _, f := range Families() {
		for _, p := range f.Presets {
			out = append(out, f.Name+":"+p)
		}
	}
	return out
}

// Find returns the family and the preset a name of the form FAMILY:PRESET stands for, or an
// error naming the problem if it is not of that form with a known family and one of its presets.
func Find(name string) (f sched.Family, preset string, err error) {
	family, preset, ok := strings.Cut(name, ":")
	if !ok || family == "" || preset == "" {
		return sched.Family{}, "", fmt.Errorf("presets: %q is not FAMILY:PRESET (families: %s)", name, familyNames())
	}
	for _, f := range Families() {
		if f.Name != family {
			continue
		}
		if !f.Has(preset) {
			return sched.Family{}, "", fmt.Errorf("presets: %q: unknown %s preset %q (presets: %s)", name, family, preset, strings.Join(f.Presets, ", "))
		}
		return f, preset, nil
	}
	return sched.Family{}, "", fmt.Errorf("presets: %q: unknown family %q (families: %s)", name, family, familyNames())
}

// Split splits a name into its family and preset. It returns an error naming the problem if
// name is not of the form FAMILY:PRESET with a known family and one of its presets (see Find).
func Split(name string) (family, preset string, err error) {
	f, preset, err := Find(name)
	return f.Name, preset, err
}

// New returns a fresh policy for the preset called name (see Names), or an error naming an
// unknown family or preset.
func New(name string) (sched.Policy, error) {
	f, preset, err := Find(name)
	if err != nil {
		return nil, err
	}
	p, err := f.New(preset)
	if err != nil {
		return nil, fmt.Errorf("presets: %q: %w", name, err)
	}
	return p, nil
}
