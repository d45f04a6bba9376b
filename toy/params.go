package toy

// This file implements Params, the toy's three rules and their presets.

import (
	"fmt"

	"github.com/schedkit/schedkit/sched"
)

// A Rule is how the toy orders its queue and whether it time-slices.
type Rule uint8

const (
	// FIFO runs threads in the order they became runnable, each until it blocks or exits.
	FIFO Rule = iota
	// SJF runs the waiting thread with the shortest declared run first, each until it blocks
	// or exits.
	SJF
	// RR runs threads in FIFO order, each for at most a quantum while another waits.
	RR
)

var ruleNames = [...]string{FIFO: "fifo", SJF: "sjf", RR: "rr"}

// String returns "fifo", "sjf" or "rr".
func (r Rule) String() string { return sched.EnumName(ruleNames[:], r, "Rule") }

// Params are the toy's tunables.
type Params struct {
	// Name names the parameters in reports, such as "toy-rr".
	Name string
	// Rule is the scheduling rule.
	Rule Rule
	// Quantum is RR's time slice in clock ticks (the machine's hz); the other rules ignore it.
	Quantum int
}

// DefaultParams returns round robin with a quantum of 4 ticks (4 ms at hz 1000), short enough
// that a thread woken every 10 ms beside two CPU hogs on one CPU runs within its period.
func DefaultParams() Params { return Params{Name: "toy-rr", Rule: RR, Quantum: 4} }

// Validate reports the first field of p that is out of range, or nil.
func (p *Params) Validate() error {
	switch {
	case int(p.Rule) >= len(ruleNames):
		return fmt.Errorf("toy: invalid rule %d", p.Rule)
	case p.Rule == RR && p.Quantum < 1:
		return fmt.Errorf("toy: RR quantum %d is not positive", p.Quantum)
	}
	return nil
}

// presets are the presets Preset knows: one per rule.
var presets = sched.Presets[Params]{
	{Name: "fifo", Params: func() Params { return Params{Name: "toy-fifo", Rule: FIFO} }},
	{Name: "sjf", Params: func() Params { return Params{Name: "toy-sjf", Rule: SJF} }},
	{Name: "rr", Params: DefaultParams},
}

// Presets returns the names Preset accepts, sorted: "fifo", "rr", "sjf".
func Presets() []string { return presets.Names() }

// Preset returns the preset called name, or an error listing the known names.
func Preset(name string) (Params, error) { return presets.Get("toy", name) }
