package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// A policyShape is what every policy package offers in the same form (DESIGN.md §4): its
// presets by name, a constructor that refuses invalid Params with an error, and a Scheduler
// that implements the simulator's optional interfaces. Each field wraps one package's function
// without changing what it does.
type policyShape struct {
	pkg      string
	presets  func() []string
	preset   func(name string) (validate func() error, err error)
	newNamed func(name string) (sim.Policy, error)
	newBad   func() error // New with Params that fail Validate
}

// shapes are the three policy packages.
var shapes = []policyShape{
	{
		pkg:     "ule",
		presets: ule.Presets,
		preset: func(name string) (func() error, error) {
			p, err := ule.Preset(name)
			return p.Validate, err
		},
		newNamed: func(name string) (sim.Policy, error) {
			p, err := ule.Preset(name)
			if err != nil {
				return nil, err
			}
			return ule.New(p)
		},
		newBad: func() error {
			p := ule.DefaultParams()
			p.Interact = 0
			_, err := ule.New(p)
			return err
		},
	},
	{
		pkg:     "bsd4",
		presets: bsd4.Presets,
		preset: func(name string) (func() error, error) {
			p, err := bsd4.Preset(name)
			return p.Validate, err
		},
		newNamed: func(name string) (sim.Policy, error) {
			p, err := bsd4.Preset(name)
			if err != nil {
				return nil, err
			}
			return bsd4.New(p)
		},
		newBad: func() error {
			p := bsd4.DefaultParams()
			p.Fold = 3
			_, err := bsd4.New(p)
			return err
		},
	},
	{
		pkg:     "cfs",
		presets: cfs.Presets,
		preset: func(name string) (func() error, error) {
			p, err := cfs.Preset(name)
			return p.Validate, err
		},
		newNamed: func(name string) (sim.Policy, error) {
			p, err := cfs.Preset(name)
			if err != nil {
				return nil, err
			}
			return cfs.New(p)
		},
		newBad: func() error {
			p := cfs.DefaultParams()
			p.Version = 9
			_, err := cfs.New(p)
			return err
		},
	},
}

// shapeEnv is a machine that records nothing.
type shapeEnv struct{}

func (shapeEnv) Resched(topology.CPU)                   {}
func (shapeEnv) Explaining() bool                       { return false }
func (shapeEnv) Explain(topology.CPU, sched.ID, string) {}

// panicOf runs f and returns what it panicked with, formatted, or "" if it returned.
func panicOf(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// TestPolicyShapes checks that the three policy packages agree in shape: presets listed sorted
// and loadable, Params that validate, an error naming the package for an unknown preset and for
// invalid Params, the simulator's optional interfaces (CheckAttr refusing invalid attributes),
// and misuse that panics with a message naming the package.
func TestPolicyShapes(t *testing.T) {
	top := topology.Uniform(1, 1, 1, 2, 1)
	for _, sh := range shapes {
		t.Run(sh.pkg, func(t *testing.T) {
			prefix := sh.pkg + ": "
			names := sh.presets()
			if len(names) == 0 || !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
				t.Fatalf("Presets() = %q, want a sorted list of distinct names", names)
			}
			for _, name := range names {
				validate, err := sh.preset(name)
				if err != nil {
					t.Errorf("Preset(%q): %v", name, err)
					continue
				}
				if err := validate(); err != nil {
					t.Errorf("Preset(%q).Validate() = %v", name, err)
				}
				p, err := sh.newNamed(name)
				if err != nil || p == nil || p.Name() == "" {
					t.Errorf("New(Preset(%q)) = %v, %v; want a named policy", name, p, err)
				}
			}
			if _, err := sh.preset("no-such-preset"); err == nil || !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("Preset(unknown) = %v, want an error starting %q", err, prefix)
			}
			if err := sh.newBad(); err == nil || !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("New(invalid Params) = %v, want an error starting %q", err, prefix)
			}

			pol, err := sh.newNamed(names[0])
			if err != nil {
				t.Fatal(err)
			}
			checker, ok := pol.(sim.AttrChecker)
			if !ok {
				t.Fatalf("%T is not a sim.AttrChecker", pol)
			}
			if _, ok := pol.(sim.ErrReporter); !ok {
				t.Errorf("%T is not a sim.ErrReporter", pol)
			}
			if err := checker.CheckAttr(sched.Attr{}); err != nil {
				t.Errorf("CheckAttr(default attributes) = %v", err)
			}
			if err := checker.CheckAttr(sched.Attr{Nice: 40}); err == nil {
				t.Errorf("CheckAttr(nice 40) = nil, want an error")
			}
			if err := pol.Start(sched.Config{Topology: top, Hz: 1000, StatHz: 127}, shapeEnv{}); err != nil {
				t.Fatal(err)
			}
			for _, m := range []struct {
				op string
				f  func()
			}{
				{"Pick", func() { pol.Pick(0, 7) }},
				{"Tick", func() { pol.Tick(0, 7) }},
				{"Fork", func() { pol.Fork(0, 0, -1, 7, sched.Attr{}) }},
				{"Fork twice", func() { pol.Fork(0, 1, -1, 0, sched.Attr{}); pol.Fork(0, 1, -1, 0, sched.Attr{}) }},
			} {
				if msg := panicOf(m.f); !strings.HasPrefix(msg, prefix) || len(msg) <= len(prefix) {
					t.Errorf("%s misuse: panic %q, want a message starting %q", m.op, msg, prefix)
				}
			}
		})
	}
}
