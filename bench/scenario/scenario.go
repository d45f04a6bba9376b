// This file implements the Scenario type: a seed's experiment as data.

package scenario

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bench/stat"
)

// A Scenario is one experiment: a workload built from parameters, run on a machine under the
// policies of its rows, measured by its metrics, beside the figures a seed document published,
// with an expectation tests check. Scenarios are plain values; Register adds one to the
// registry the command line lists.
type Scenario struct {
	// Name is the registry key, such as "seed000-pipeline".
	Name string
	// Seed is the seed document the scenario reproduces ("000" … "004"), or "" for a user's own.
	Seed string
	// Title is a one-line description.
	Title string
	// Description says what the seed reported, how the workload models it, and where the
	// numbers come from.
	Description string
	// Params are the knobs Build reads, with defaults and ranges.
	Params []Param
	// Rows are the lines of the seed's table, each a policy preset and parameter values.
	Rows []Row
	// Metrics are what each run measures; the first is the one the table shows.
	Metrics []Metric
	// Build makes the machine and workload of one run from the parameter values (every Param
	// present, already checked against its range) and the row.
	Build func(v Values, row *Row) (Setup, error)
	// Reps is the default number of seeded repetitions per cell.
	Reps int
	// Sweep is the grid a run covers when its Options give none: for a parameter the seed does
	// not fix and the result depends on, every value is shown rather than one chosen.
	Sweep map[string][]float64
	// Small are parameter values for a quick run (tests, smoke runs); SmallReps its repetitions.
	Small     Values
	SmallReps int
	// Expect are the effects the model should show, checked by tests at the Small size.
	Expect []Expectation
	// Absolute says the seed's figures and ours are comparable as they are (a share in %), so
	// rows without a baseline get the verdict "ours/seed"; figures in seconds of another
	// machine are compared only as ratios to a baseline.
	Absolute bool
	// MMTests makes WriteTable add, for each grid point, the seed's mmtests comparison table
	// (bench/stat.Comparison, in the form of mmtests 2022, which the seed's tables came from)
	// of the first metric: one column per row Column, the first the baseline, one line per
	// row Label.
	MMTests bool
	// Tables are further mmtests comparison tables WriteTable prints after that one, for each
	// grid point (seed 004's tbench prints its throughput, higher is better, beside its latency).
	Tables []Table
	// Notes say what the model does not reproduce, and why, and the sources read for its
	// mechanisms (file, version); the table prints them.
	Notes []string
	// Profile is the machine profile (a name of sim.BuiltinProfiles) that stands for the
	// seed's machine when Options.Profile does not say; "" means sim.DefaultProfile. Machine
	// says what the seed's machine was and why that profile stands for it (with "" the seed's
	// own paragraph, machineOf); the table prints it.
	Profile, Machine string
	// LatenciesOnly makes the cells charge only the latency figures of the profile they run on
	// (the scenario's or Options.Profile's, restricted by sim.Profile.Latencies), for a
	// scenario whose costs were calibrated from a real program's CPU time: that time holds the
	// profile's CPU figures (wake-ups, switches, refills, ticks) already, and charging them
	// again would count them twice; the latencies (the IPI, the idle exit, the timer) are wall
	// time outside the program's threads. Machine says why.
	LatenciesOnly bool
	// Claims are the seed's headline claims this scenario checks, one line each in the
	// summary (WriteSummary).
	Claims []Claim
	// Seeded are the parameter values of the seed's own experiment (nice 20, 8 CPUs): at a
	// grid point or under Options.Set where a cell's value differs, the seed's figures do not
	// apply and are not shown. Parameters the seed does not fix (a calibration, an unknown
	// swept) are not listed.
	Seeded Values
}

// A Claim is one sentence of a seed document, checked: the seed's figure for it beside ours,
// and a verdict by the rules of Judge. By default it compares Row's first metric with the
// row's baseline, and the seed's figure is the one Row published (a ratio, or the ratio of
// the two rows' published figures); Versus names another row to compare with (the fix
// against stock ULE rather than against the run without a hog).
type Claim struct {
	// Text is the claim in a few words, as the summary prints it (at most 60 characters).
	Text string
	// Row is the Key of the row the claim is about; Versus the Key of the row it is compared
	// with ("" for the row's Baseline; for an Absolute row without a baseline, none).
	Row, Versus string
	// Figure is the seed's figure for the claim when it is not derived from the rows'.
	Figure *Figure
	// At is the grid point the claim is judged at; nil means the plan's first point.
	At Values
	// Why says, in one line (at most 100 characters), why the claim does not come out; the
	// summary prints it under the table when the verdict is neither Reproduced nor Matches.
	Why string
}

// A Table is an extra mmtests comparison table of a scenario's report: its title, as
// compare-mmtests heads it, and how to build it from the report at a grid point.
type Table struct {
	Title string
	Build func(rp *Report, point int) (*stat.Comparison, error)
}

// A Param is a knob of a scenario: a number with a unit, a default and an inclusive range.
type Param struct {
	Name     string
	Doc      string
	Unit     string
	Default  float64
	Min, Max float64
	// Integer says the value must be a whole number.
	Integer bool
}

// Check reports whether v is a valid value of p.
func (p *Param) Check(v float64) error {
	if math.IsNaN(v) || v < p.Min || v > p.Max {
		return fmt.Errorf("scenario: parameter %s = %g outside %g..%g", p.Name, v, p.Min, p.Max)
	}
	if p.Integer && v != math.Trunc(v) {
		return fmt.Errorf("scenario: parameter %s = %g is not a whole number", p.Name, v)
	}
	return nil
}

// Values are parameter values by name.
type Values map[string]float64

// clone returns a copy of v.
func (v Values) clone() Values {
	out := make(Values, len(v))
	for k, x := range v {
		out[k] = x
	}
	return out
}

// A Row is one line of a seed's table: a policy preset and the parameter values that make the
// line's case, with the figure the seed printed for it.
type Row struct {
	// Label is the line's label in the seed's layout, such as "0 48" (pick_short,
	// preempt_thresh) or "N=5".
	Label string
	// Column groups rows printed side by side, such as "ULE" and "4BSD"; "" for one column.
	Column string
	// Policy is a bench/presets name.
	Policy string
	// Set overrides parameter values for this row.
	Set Values
	// Baseline is the Key of the row this one is compared with, or "".
	Baseline string
	// Published is what the seed printed for this row, or nil.
	Published *Figure
}

// Key returns the row's identity, "Column/Label" (or "Label" without a column).
func (r *Row) Key() string {
	if r.Column == "" {
		return r.Label
	}
	return r.Column + "/" + r.Label
}

// A Figure is a number a seed document printed.
type Figure struct {
	// Value is the number; with Ratio set it is already a ratio to the row's baseline.
	Value float64
	// Ratio says Value is relative to the baseline row (1.02× rather than seconds).
	Ratio bool
	// Spread is the dispersion printed beside it (0: none), of kind SpreadKind.
	Spread     float64
	SpreadKind string
	// Unit is the unit of Value, such as "s".
	Unit string
	// On says what the authors measured on and how.
	On string
	// Sig is what the seed's own test said of the row's difference to its baseline
	// (ministat's verdict, an mmtests '*'); SigUnknown where it printed none.
	Sig Significance
	// AtLeast says Value is a lower bound ("over an hour"); Exact that it is a count that
	// every repetition of ours must equal to match (seed 003's distinct levels).
	AtLeast, Exact bool
	// Reference says the figure is not the seed's own but a reference that stands for it
	// (the kernel's weight table, the same experiment measured on the host here); On says
	// which.
	Reference bool
}

// A Metric is a number measured from one run.
type Metric struct {
	Name string
	Unit string
	// Of computes the metric from the run's result and its setup.
	Of func(r *sim.Result, s *Setup) float64
}

// A Setup is everything one run needs. The runner charges the plan's machine profile
// (Plan.Profile) over Config's costs: a cost Build sets (not zero) stays, every other is the
// profile's.
type Setup struct {
	Config   sim.Config
	Workload *workload.Workload
	// Until bounds the simulated time.
	Until time.Duration
	// StopWhenExited names threads whose exits end the run (a hog that runs forever does not
	// keep the run going); empty means the run ends when every thread has exited or at Until.
	StopWhenExited []string
	// Values are the parameter values of the run; the runner fills them in for the metrics.
	Values Values
	// SwitchExtra is added to every draw of Config.Costs.Switch after the machine profile is
	// charged: CPU that one row's kernel spends in its own switch path beyond what the profile
	// measured, for a scenario that sweeps how much more one scheduler's code costs than
	// another's. 0 adds nothing.
	SwitchExtra time.Duration
}

// An Expectation is an effect the model should show: the ratio of the first metric's mean in
// Row to its mean in Baseline lies in Min..Max, and, when that band excludes 1, Student's t
// finds the difference significant at 95 %. Without a Baseline, the band is on Row's mean
// itself.
type Expectation struct {
	Doc           string
	Row, Baseline string
	Min, Max      float64
	// At restricts the check to grid points with these values; nil checks every point.
	At Values
}

// Validate reports what is wrong with s, or nil.
func (s *Scenario) Validate() error {
	if s.Name == "" {
		return fmt.Errorf("scenario: no name")
	}
	if s.Build == nil || len(s.Metrics) == 0 || len(s.Rows) == 0 {
		return fmt.Errorf("scenario %s: needs Build, Metrics and Rows", s.Name)
	}
	if s.Reps < 1 {
		return fmt.Errorf("scenario %s: Reps %d < 1", s.Name, s.Reps)
	}
	seen := map[string]bool{}
	for i := range s.Params {
		p := &s.Params[i]
		if seen[p.Name] {
			return fmt.Errorf("scenario %s: parameter %s twice", s.Name, p.Name)
		}
		seen[p.Name] = true
		if err := p.Check(p.Default); err != nil {
			return fmt.Errorf("scenario %s: default: %w", s.Name, err)
		}
	}
	keys := map[string]bool{}
	for i := range s.Rows {
		r := &s.Rows[i]
		if keys[r.Key()] {
			return fmt.Errorf("scenario %s: row %q twice", s.Name, r.Key())
		}
		keys[r.Key()] = true
		if _, _, err := presets.Split(r.Policy); err != nil {
			return fmt.Errorf("scenario %s: row %q: %w", s.Name, r.Key(), err)
		}
		if err := s.checkValues(r.Set); err != nil {
			return fmt.Errorf("scenario %s: row %q: %w", s.Name, r.Key(), err)
		}
	}
	for i := range s.Rows {
		if b := s.Rows[i].Baseline; b != "" && !keys[b] {
			return fmt.Errorf("scenario %s: row %q: unknown baseline %q", s.Name, s.Rows[i].Key(), b)
		}
	}
	for _, e := range s.Expect {
		if !keys[e.Row] || (e.Baseline != "" && !keys[e.Baseline]) {
			return fmt.Errorf("scenario %s: expectation %q: unknown rows %q, %q", s.Name, e.Doc, e.Row, e.Baseline)
		}
		if !(e.Min <= e.Max) {
			return fmt.Errorf("scenario %s: expectation %q: Min > Max", s.Name, e.Doc)
		}
	}
	for i, c := range s.Claims {
		switch {
		case c.Text == "" || len([]rune(c.Text)) > 60:
			return fmt.Errorf("scenario %s: claim %d: Text %q: want 1..60 characters", s.Name, i, c.Text)
		case len([]rune(c.Why)) > 100:
			return fmt.Errorf("scenario %s: claim %q: Why has %d characters, want at most 100", s.Name, c.Text, len([]rune(c.Why)))
		case !keys[c.Row] || (c.Versus != "" && !keys[c.Versus]):
			return fmt.Errorf("scenario %s: claim %q: unknown rows %q, %q", s.Name, c.Text, c.Row, c.Versus)
		}
		if err := s.checkValues(c.At); err != nil {
			return fmt.Errorf("scenario %s: claim %q: %w", s.Name, c.Text, err)
		}
		if _, ok := s.claimFigure(&c); !ok {
			return fmt.Errorf("scenario %s: claim %q: no seed figure (give Figure, or rows with published figures)", s.Name, c.Text)
		}
	}
	if err := s.checkValues(s.Seeded); err != nil {
		return fmt.Errorf("scenario %s: Seeded: %w", s.Name, err)
	}
	return s.checkValues(s.Small)
}

// param returns the parameter called name, or nil.
func (s *Scenario) param(name string) *Param {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return &s.Params[i]
		}
	}
	return nil
}

// checkValues reports the first value of v that is not a valid parameter value.
func (s *Scenario) checkValues(v Values) error {
	for _, k := range sortedKeys(v) {
		p := s.param(k)
		if p == nil {
			return s.unknownParam(k)
		}
		if err := p.Check(v[k]); err != nil {
			return err
		}
	}
	return nil
}

// unknownParam returns the error for a parameter name s does not have, listing the ones it has.
func (s *Scenario) unknownParam(name string) error {
	names := make([]string, len(s.Params))
	for i := range s.Params {
		names[i] = s.Params[i].Name
	}
	slices.Sort(names)
	return fmt.Errorf("scenario %s: unknown parameter %q (parameters: %s; schedbench seeds -params %s lists them)",
		s.Name, name, strings.Join(names, ", "), s.Name)
}

// sortedKeys returns the names of v, sorted.
func sortedKeys(v Values) []string {
	names := make([]string, 0, len(v))
	for k := range v {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Defaults returns every parameter at its default.
func (s *Scenario) Defaults() Values {
	v := Values{}
	for _, p := range s.Params {
		v[p.Name] = p.Default
	}
	return v
}

// Row returns the row whose Key is key, or nil.
func (s *Scenario) Row(key string) *Row {
	for i := range s.Rows {
		if s.Rows[i].Key() == key {
			return &s.Rows[i]
		}
	}
	return nil
}
