package sched_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// idler is the smallest Policy: it runs nothing. Its parameters are how many times per second
// it wants a clock interrupt.
type idler struct{ hz int }

func (p *idler) Name() string                                             { return fmt.Sprintf("idler-%d", p.hz) }
func (p *idler) Start(sched.Config, sched.Env) error                      { return nil }
func (p *idler) TickHz() int                                              { return p.hz }
func (p *idler) AddGroup(sched.Group) error                               { return errors.New("idler: no groups") }
func (p *idler) Fork(int64, sched.ID, sched.ID, topology.CPU, sched.Attr) {}
func (p *idler) Wakeup(int64, sched.ID, topology.CPU, sched.WakeFlags)    {}
func (p *idler) Pick(int64, topology.CPU) (sched.ID, bool)                { return -1, false }
func (p *idler) Stop(int64, topology.CPU, sched.ID, sched.StopReason)     {}
func (p *idler) Tick(int64, topology.CPU)                                 {}
func (p *idler) SetAttr(int64, sched.ID, sched.Attr)                      {}

var _ sched.Policy = (*idler)(nil)

// newIdler is the package's New: it refuses a rate of 0.
func newIdler(hz int) (*idler, error) {
	if hz <= 0 {
		return nil, fmt.Errorf("idler: hz %d is not positive", hz)
	}
	return &idler{hz: hz}, nil
}

var idlerPresets = sched.Presets[int]{
	{Name: "slow", Params: func() int { return 100 }},
	{Name: "fast", Params: func() int { return 1000 }},
	{Name: "broken", Params: func() int { return 0 }},
}

// ExampleNewFamily is a policy package's Family: its name, its presets and its New.
func ExampleNewFamily() {
	f := sched.NewFamily("idler", idlerPresets, newIdler)
	fmt.Println(f.Name, f.Presets, f.Groups)
	p, err := f.New("fast")
	fmt.Println(p.Name(), p.TickHz(), err)
	_, err = f.New("medium")
	fmt.Println(err)
	// Output:
	// idler [broken fast slow] false
	// idler-1000 1000 <nil>
	// idler: unknown preset "medium" (known: broken, fast, slow)
}

// ExamplePresets looks a preset up by name.
func ExamplePresets() {
	hz, ok := idlerPresets.Lookup("slow")
	fmt.Println(idlerPresets.Names(), hz, ok)
	_, ok = idlerPresets.Lookup("medium")
	fmt.Println(ok)
	// Output:
	// [broken fast slow] 100 true
	// false
}

func TestFamilyNew(t *testing.T) {
	f := sched.NewFamily("idler", idlerPresets, newIdler)
	p1, err1 := f.New("slow")
	p2, err2 := f.New("slow")
	if err1 != nil || err2 != nil || p1 == p2 {
		t.Errorf("New(slow) twice = %p, %v and %p, %v; want two policies", p1, err1, p2, err2)
	}
	// The constructor's error, and a nil Policy: not a nil *idler inside a non-nil interface.
	p, err := f.New("broken")
	if p != nil || err == nil || err.Error() != "idler: hz 0 is not positive" {
		t.Errorf("New(broken) = %#v, %v; want nil and New's error", p, err)
	}
	for _, c := range []struct {
		preset string
		want   bool
	}{{"slow", true}, {"fast", true}, {"broken", true}, {"medium", false}, {"", false}} {
		if got := f.Has(c.preset); got != c.want {
			t.Errorf("Has(%q) = %t, want %t", c.preset, got, c.want)
		}
	}
}

// A Family keeps its own copy of the table: changing the caller's afterwards changes nothing.
func TestFamilyCopiesPresets(t *testing.T) {
	ps := append(sched.Presets[int]{}, idlerPresets...)
	f := sched.NewFamily("idler", ps, newIdler)
	ps[0].Params = func() int { return 7 }
	if p, err := f.New("slow"); err != nil || p.TickHz() != 100 {
		t.Errorf("New(slow) after the table changed = %v, %v; want hz 100", p, err)
	}
}

func TestNewFamilyPanicsOnDuplicatePresets(t *testing.T) {
	defer func() {
		r := recover()
		if s, ok := r.(string); !ok || !strings.HasPrefix(s, `sched: NewFamily("idler"): preset "slow" twice`) {
			t.Errorf("panic %v, want one naming the duplicate", r)
		}
	}()
	sched.NewFamily("idler", append(idlerPresets, idlerPresets[0]), newIdler)
}
