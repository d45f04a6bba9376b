package sim_test

import (
	"cmp"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// A policyShape is what every policy package offers in the same form (the template in sched's
// package documentation): its presets by name, a constructor that refuses invalid Params with
// an error, and a Scheduler that implements the simulator's optional interfaces. Each field
// wraps one package's function without changing what it does.
type policyShape struct {
	pkg      string
	presets  func() []string
	order    func(a, b string) int // the order Presets lists names in; nil means sorted by name
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
		order:   byRelease, // one preset per kernel release, in release order
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

// byRelease orders kernel release names such as "v6.18" by their numbers: v6.6 before v6.18.
func byRelease(a, b string) int {
	num := func(r string) (major, minor int) {
		x, y, _ := strings.Cut(strings.TrimPrefix(r, "v"), ".")
		major, _ = strconv.Atoi(x)
		minor, _ = strconv.Atoi(y)
		return major, minor
	}
	amaj, amin := num(a)
	bmaj, bmin := num(b)
	if c := cmp.Compare(amaj, bmaj); c != 0 {
		return c
	}
	return cmp.Compare(amin, bmin)
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
			order := sh.order
			if order == nil {
				order = strings.Compare
			}
			if len(names) == 0 || !slices.IsSortedFunc(names, order) || len(slices.Compact(slices.Clone(names))) != len(names) {
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
			if msg := checkSurface(reflect.TypeOf(pol)); msg != "" {
				t.Errorf("%T: %s", pol, msg)
			}
			cfg := sched.Config{Topology: top, Hz: 1000, StatHz: 127}
			if err := pol.Start(cfg, nil); err == nil || !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("Start with a nil Env = %v, want an error starting %q", err, prefix)
			}
			if err := pol.Start(cfg, shapeEnv{}); err != nil {
				t.Fatal(err)
			}
			if err := pol.Start(cfg, shapeEnv{}); err == nil || err.Error() != prefix+"Start called twice" {
				t.Errorf("second Start = %v, want %q", err, prefix+"Start called twice")
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

// checkSurface returns what is wrong with the Scheduler-level surface of st, a *Scheduler, or
// "": the accessors every policy offers in the same shape (Thread(sched.ID) (*T, bool),
// Params() Params, System() *System).
func checkSurface(st reflect.Type) string {
	m, ok := st.MethodByName("Thread")
	if !ok {
		return "no Thread method"
	}
	ft := m.Type // the receiver is In(0)
	if ft.NumIn() != 2 || ft.In(1) != reflect.TypeFor[sched.ID]() || ft.NumOut() != 2 ||
		ft.Out(0).Kind() != reflect.Pointer || ft.Out(1).Kind() != reflect.Bool {
		return fmt.Sprintf("Thread is %v, want func(sched.ID) (*T, bool)", ft)
	}
	m, ok = st.MethodByName("Params")
	if !ok {
		return "no Params method"
	}
	if ft := m.Type; ft.NumIn() != 1 || ft.NumOut() != 1 || ft.Out(0).Kind() != reflect.Struct || ft.Out(0).Name() != "Params" {
		return fmt.Sprintf("Params is %v, want func() Params", ft)
	}
	m, ok = st.MethodByName("System")
	if !ok {
		return "no System method"
	}
	if ft := m.Type; ft.NumIn() != 1 || ft.NumOut() != 1 || ft.Out(0).Kind() != reflect.Pointer || ft.Out(0).Elem().Name() != "System" {
		return fmt.Sprintf("System is %v, want func() *System", ft)
	}
	return ""
}

// decisionShapes are the decisions of the three policy packages, each shaped F(state…, p)
// (result, reason) (package sched's doc, "One shape for every policy"): the tunables, when read,
// last as a pointer to the package's Params (or, for cfs's multiprocessor decisions, its
// package cfs/smp's Params, cfs.Params.SMP), and a second result named …Reason whose String method explains it. cfs's own test checks every exported function of that
// package from its source; this list holds each package's decisions side by side.
var decisionShapes = []struct {
	name string
	fn   any
}{
	{"ule.Pick", ule.Pick},
	{"ule.ShouldPreempt", ule.ShouldPreempt},
	{"ule.SetPreempt", ule.SetPreempt},
	{"ule.StealFrom", ule.StealFrom},
	{"bsd4.Pick", bsd4.Pick},
	{"bsd4.PickCPU", bsd4.PickCPU},
	{"bsd4.ShouldPreempt", bsd4.ShouldPreempt},
	{"bsd4.WakeCPU", bsd4.WakeCPU},
	{"bsd4.SliceTick", bsd4.SliceTick},
	{"bsd4.SwitchTick", bsd4.SwitchTick},
	{"cfs.Pick", cfs.Pick},
	{"cfs.PickEligible", cfs.PickEligible},
	{"cfs.CheckPreemptTick", cfs.CheckPreemptTick},
	{"cfs.CheckPreemptWakeup", cfs.CheckPreemptWakeup},
	{"cfs.SelectTaskRQ", cfs.SelectTaskRQ},
	{"cfs.SelectIdleSibling", cfs.SelectIdleSibling},
	{"cfs.FindBusiestGroup", cfs.FindBusiestGroup},
	{"cfs.CanMigrateTask", cfs.CanMigrateTask},
}

// checkDecisionShape returns what is wrong with the shape of function type ft, or "": the
// tunables, when the decision reads any, last and by pointer (*Params, or for cfs's SMP decisions *smp.Params); two
// results, the second a type of the decision's package named …Reason with a String method, not
// held again inside the first.
func checkDecisionShape(ft reflect.Type) string {
	if ft.Kind() != reflect.Func {
		return fmt.Sprintf("%v is not a function", ft)
	}
	if ft.NumIn() == 0 {
		return "no parameters"
	}
	isTunables := func(t reflect.Type) bool {
		return t.Kind() == reflect.Struct && t.Name() == "Params"
	}
	var tunables reflect.Type
	for i := range ft.NumIn() {
		switch p := ft.In(i); {
		case isTunables(p):
			return fmt.Sprintf("parameter %d %v: tunables by value, want a pointer", i+1, p)
		case p.Kind() == reflect.Pointer && isTunables(p.Elem()):
			if i != ft.NumIn()-1 {
				return fmt.Sprintf("parameter %d %v: tunables not last", i+1, p)
			}
			tunables = p.Elem()
		}
	}
	if ft.NumOut() != 2 {
		return fmt.Sprintf("%d results, want (result, reason)", ft.NumOut())
	}
	r := ft.Out(1)
	// The reason is the tunables' package's, or, for decisions whose tunables live in a
	// subpackage (cfs's SMP decisions take *smp.Params, of cfs/smp), that subpackage's parent's.
	ownPkg := tunables == nil || r.PkgPath() == tunables.PkgPath() || r.PkgPath() == path.Dir(tunables.PkgPath())
	if r.Name() == "" || r.PkgPath() == "" || !ownPkg {
		return fmt.Sprintf("second result %v, want a named type of the package", r)
	}
	if !r.Implements(reflect.TypeFor[fmt.Stringer]()) {
		return fmt.Sprintf("second result %v has no String method", r)
	}
	if !strings.HasSuffix(r.Name(), "Reason") {
		return fmt.Sprintf("second result %v: reasons are named …Reason", r)
	}
	first := ft.Out(0)
	if first.Kind() == reflect.Struct {
		for i := range first.NumField() {
			if first.Field(i).Type == r {
				return fmt.Sprintf("result %v holds its reason (field %s) beside the returned %v", first, first.Field(i).Name, r)
			}
		}
	}
	return ""
}

// TestDecisionShapes checks the decisions of ule, bsd4 and cfs for the common shape.
func TestDecisionShapes(t *testing.T) {
	for _, d := range decisionShapes {
		if msg := checkDecisionShape(reflect.TypeOf(d.fn)); msg != "" {
			t.Errorf("%s: %s", d.name, msg)
		}
	}
}

// TestDecisionShapeCheck shows that checkDecisionShape refuses each way out of the shape.
func TestDecisionShapeCheck(t *testing.T) {
	type verdict struct {
		OK  bool
		Why cfs.TickReason
	}
	for _, tc := range []struct {
		name string
		fn   any
		want string
	}{
		{"tunables by value", func(int, cfs.Params) (int, cfs.TickReason) { return 0, 0 }, "parameter 2 cfs.Params: tunables by value, want a pointer"},
		{"tunables not last", func(*cfs.Params, int) (int, cfs.TickReason) { return 0, 0 }, "parameter 1 *cfs.Params: tunables not last"},
		{"one result", func(*cfs.Params) int { return 0 }, "1 results, want (result, reason)"},
		{"unnamed reason", func(*cfs.Params) (int, uint8) { return 0, 0 }, "second result uint8, want a named type of the package"},
		{"reason of another package", func(*cfs.Params) (int, ule.PickReason) { return 0, ule.PickReason{} }, "second result ule.PickReason, want a named type of the package"},
		{"reason without String", func(*cfs.Params) (int, cfs.LoadWeight) { return 0, cfs.LoadWeight{} }, "second result cfs.LoadWeight has no String method"},
		{"reason not named so", func(*cfs.Params) (int, cfs.Version) { return 0, 0 }, "second result cfs.Version: reasons are named …Reason"},
		{"reason inside the result", func(*cfs.Params) (verdict, cfs.TickReason) { return verdict{}, 0 }, "result sim_test.verdict holds its reason (field Why) beside the returned cfs.TickReason"},
		{"no parameters", func() (int, cfs.PlaceReason) { return 0, 0 }, "no parameters"},
		{"in shape", func(*smp.Params) (int, cfs.PlaceReason) { return 0, 0 }, ""},
		{"in shape without tunables", func(int) (int, cfs.PlaceReason) { return 0, 0 }, ""},
	} {
		if got := checkDecisionShape(reflect.TypeOf(tc.fn)); got != tc.want {
			t.Errorf("%s: checkDecisionShape = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Types for TestSurfaceCheck: one Scheduler-level surface of the common shape, and ways out of it.
type (
	goodParams   struct{}
	goodThread   struct{}
	System       struct{}
	goodSurface  struct{}
	ptrParams    struct{}
	nilThread    struct{}
	noParams     struct{}
	Params       struct{}
	threadByName struct{}
	noSystem     struct{}
)

func (*goodSurface) Thread(sched.ID) (*goodThread, bool) { return nil, false }
func (*goodSurface) Params() Params                      { return Params{} }
func (*goodSurface) System() *System                     { return nil }
func (*noSystem) Thread(sched.ID) (*goodThread, bool)    { return nil, false }
func (*noSystem) Params() Params                         { return Params{} }
func (*ptrParams) Thread(sched.ID) (*goodThread, bool)   { return nil, false }
func (*ptrParams) Params() *Params                       { return nil }
func (*nilThread) Thread(sched.ID) *goodThread           { return nil }
func (*nilThread) Params() Params                        { return Params{} }
func (*noParams) Thread(sched.ID) (*goodThread, bool)    { return nil, false }
func (*threadByName) Thread(string) (*goodThread, bool)  { return nil, false }
func (*threadByName) Params() Params                     { return Params{} }

// TestSurfaceCheck shows that checkSurface refuses each way out of the common shape.
func TestSurfaceCheck(t *testing.T) {
	if msg := checkSurface(reflect.TypeFor[*goodSurface]()); msg != "" {
		t.Errorf("good surface: %s", msg)
	}
	for _, st := range []reflect.Type{reflect.TypeFor[*ptrParams](), reflect.TypeFor[*nilThread](),
		reflect.TypeFor[*noParams](), reflect.TypeFor[*threadByName](), reflect.TypeFor[*goodParams](),
		reflect.TypeFor[*noSystem]()} {
		if msg := checkSurface(st); msg == "" {
			t.Errorf("%v: checkSurface accepted it", st)
		}
	}
}
