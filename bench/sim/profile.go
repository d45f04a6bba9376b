package sim

// This file implements Profile, a machine profile: the costs of the path from a decision to its
// effect as data, each figure with its unit, method and date, read from and written to JSON.

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ProfileSchema is the value of a profile file's "schema" member.
const ProfileSchema = "schedkit.profile/1"

// A Profile is a machine profile: what each step between a scheduling decision and its effect
// costs on one machine, measured there (by `schedbench calibrate`) and kept as data with its
// provenance, so that a latency the model prints is a prediction for that machine. [Profile.Apply]
// puts it into a Config. Profiles are read with [ParseProfile] or [LoadProfile]; the ones the
// project ships are [IdealProfile] and [BuiltinProfile]'s.
//
// A profile file is JSON:
//
//	{
//	  "schema": "schedkit.profile/1",
//	  "name": "ci",
//	  "about": "what the machine is and what the profile stands for",
//	  "machine": {"cpu": "AMD EPYC (KVM guest)", "kernel": "6.18.44", "cpus": 2, "hz": 250},
//	  "provenance": {"date": "2026-03-02", "command": "schedbench calibrate -o ci.json",
//	                 "load_average": [0.12, 0.31], "notes": ["…"]},
//	  "figures": {
//	    "switch": {"unit": "us", "p50": 1.9, "min": 1.2, "p90": 2.5, "p99": 6.1, "max": 40,
//	               "method": "perf bench sched pipe …", "date": "2026-03-02"},
//	    …
//	  },
//	  "program": {"pipe": {"unit": "us", "p50": 0.9, "method": "…", "date": "…"}}
//	}
//
// Every figure of [ProfileFigures] must be there, with a unit (ns, us, µs, ms or s), a median
// (p50), either no other quantile (a fixed cost) or all of min, p90, p99 and max (and p99.9, and
// with it p99.5, if measured), a method and a date; a figure that could not be measured on the machine (a migration across NUMA nodes on a
// machine with one node) says so in "assumed", and its method says what stands in for it.
// "program" holds figures of the programs' own work (a system call's CPU time) that the
// machine does not charge by itself, for whoever builds a workload of a real program; it may be
// empty. "figures" may hold "ipi_idle", a figure of points (see IdleCurve).
type Profile struct {
	// Name names the profile ("ideal", "ci", "host").
	Name string
	// About says what machine the profile describes and what it stands for.
	About string
	// Machine describes the machine measured.
	Machine ProfileMachine
	// Provenance says when, how and under what load it was measured.
	Provenance Provenance
	// Figures are the costs the machine charges, by the names of ProfileFigures.
	Figures map[string]Figure
	// Program are figures of programs' own work, which the machine does not charge.
	Program map[string]Figure
	// IPIIdle is the optional figure "ipi_idle": the IPI's latency by how long its target had
	// been idle (Idle.IPICurve); no points when the profile has none.
	IPIIdle IdleCurve
}

// ProfileMachine describes the machine a profile was measured on.
type ProfileMachine struct {
	CPU    string `json:"cpu"`
	Kernel string `json:"kernel"`
	CPUs   int    `json:"cpus"`
	// Hz is the kernel's clock rate (CONFIG_HZ), 0 if unknown: a model of that machine ticks at
	// it.
	Hz int `json:"hz"`
}

// Provenance says how a profile was made.
type Provenance struct {
	Date    string `json:"date"`
	Command string `json:"command"`
	// LoadAverage is the one-minute load average before and after the measurements.
	LoadAverage [2]float64 `json:"load_average"`
	Notes       []string   `json:"notes,omitempty"`
}

// A Figure is one measured cost with its provenance.
type Figure struct {
	// Cost is the figure: a fixed cost, or quantiles.
	Cost Cost
	// Unit is the unit the file gives it in: ns, us, µs, ms or s.
	Unit string
	// Method says how it was measured (or, if Assumed, what stands in for it).
	Method string
	// Date is when it was measured.
	Date string
	// Assumed, if not "", says why the figure could not be measured on the machine.
	Assumed string
}

// profileFigure is one of the figures the machine charges: its name in a profile file, where
// it goes in a Config, the largest figure that is not absurd, and what it stands for.
type profileFigure struct {
	name  string
	cost  func(c *Config) *Cost
	limit time.Duration
	doc   string
	// optional figures may be left out of a file: they are then 0.
	optional bool
	// kind says whether the figure is CPU time of the thread it is charged to or a latency.
	kind FigureKind
}

var profileFigures = []profileFigure{
	{"wakeup", func(c *Config) *Cost { return &c.Costs.Wakeup }, 100 * time.Millisecond,
		"the waker's try_to_wake_up (Costs.Wakeup)", false, CPUFigure},
	{"ipi", func(c *Config) *Cost { return &c.Costs.IPI }, 100 * time.Millisecond,
		"a reschedule IPI's latency (Costs.IPI)", false, LatencyFigure},
	{"ipi_send", func(c *Config) *Cost { return &c.Costs.IPISend }, 100 * time.Millisecond,
		"what sending an IPI costs the sender (Costs.IPISend)", false, CPUFigure},
	{"idle_exit", func(c *Config) *Cost { return &c.Idle.ExitLatency }, 100 * time.Millisecond,
		"the idle state's exit latency (Idle.ExitLatency)", false, LatencyFigure},
	{"idle_poll", func(c *Config) *Cost { return &c.Idle.PollWindow }, time.Second,
		"how long an idle CPU polls before it halts (Idle.PollWindow)", true, LatencyFigure},
	{"timer", func(c *Config) *Cost { return &c.Costs.Timer }, time.Second,
		"a timer's expiry after its deadline (Costs.Timer)", false, LatencyFigure},
	{"timer_exit", func(c *Config) *Cost { return &c.Costs.TimerExit }, 100 * time.Millisecond,
		"the timer interrupt's way from the wake-up to the preempting switch-in, less the switch and the refill (Costs.TimerExit)", true, LatencyFigure},
	{"switch", func(c *Config) *Cost { return &c.Costs.Switch }, time.Second,
		"a context switch (Costs.Switch)", false, CPUFigure},
	{"switch_mm", func(c *Config) *Cost { return &c.Costs.SwitchMM }, time.Second,
		"the extra of a switch to another process (Costs.SwitchMM)", false, CPUFigure},
	{"refill", func(c *Config) *Cost { return &c.Costs.Refill }, time.Second,
		"the cache refill after other threads ran (Costs.Refill)", false, CPUFigure},
	{"migration_smt", func(c *Config) *Cost { return &c.Costs.Migration.SMT }, time.Second,
		"the refill after a move to an SMT sibling (Costs.Migration.SMT)", false, CPUFigure},
	{"migration_llc", func(c *Config) *Cost { return &c.Costs.Migration.LLC }, time.Second,
		"the refill after a move to another core of the LLC (Costs.Migration.LLC)", false, CPUFigure},
	{"migration_node", func(c *Config) *Cost { return &c.Costs.Migration.Node }, time.Second,
		"the refill after a move to another LLC of the node (Costs.Migration.Node)", false, CPUFigure},
	{"migration_remote", func(c *Config) *Cost { return &c.Costs.Migration.Remote }, time.Second,
		"the refill after a move to another node (Costs.Migration.Remote)", false, CPUFigure},
	{"tick", func(c *Config) *Cost { return &c.Costs.Tick }, 10 * time.Millisecond,
		"a clock interrupt's work (Costs.Tick)", false, CPUFigure},
}

// ProfileFigures returns the names of the figures every profile gives, in the order a profile
// file lists them.
func ProfileFigures() []string {
	names := make([]string, len(profileFigures))
	for i, f := range profileFigures {
		names[i] = f.name
	}
	return names
}

// ProfileFigureLimit returns the largest value of the named figure that is not absurd (a switch
// above 1 s, an IPI above 100 ms), and whether the name is a figure of ProfileFigures.
func ProfileFigureLimit(name string) (time.Duration, bool) {
	for _, f := range profileFigures {
		if f.name == name {
			return f.limit, true
		}
	}
	return 0, false
}

// Apply sets cfg's costs, idle exit latency, poll window and IPI curve to p's figures (an
// optional figure the file leaves out is 0, the curve nil); the other fields of cfg,
// Idle.MissProbability and Spin among them, stay as they are.
func (p *Profile) Apply(cfg *Config) {
	for _, f := range profileFigures {
		*f.cost(cfg) = p.Figures[f.name].Cost
	}
	cfg.Idle.IPICurve = slices.Clone(p.IPIIdle.Points)
}

// Costs returns p's figures as Costs, and the idle exit latency.
func (p *Profile) Costs() (Costs, Cost) {
	var cfg Config
	p.Apply(&cfg)
	return cfg.Costs, cfg.Idle.ExitLatency
}

// Ideal reports whether p charges nothing.
func (p *Profile) Ideal() bool {
	c, x := p.Costs()
	return c.IsZero() && x.IsZero() && len(p.IPIIdle.Points) == 0
}

// String returns p's name, with the date it was measured: "ci (measured 2026-03-02)"; a name
// that ends in a parenthesis takes the date inside it: "ci (latencies only, measured
// 2026-03-02)".
func (p *Profile) String() string {
	if p.Ideal() {
		return p.Name + " (no costs)"
	}
	date, _, _ := strings.Cut(p.Provenance.Date, "T")
	if name, ok := strings.CutSuffix(p.Name, ")"); ok {
		return fmt.Sprintf("%s, measured %s)", name, date)
	}
	return fmt.Sprintf("%s (measured %s)", p.Name, date)
}

// idealJSON is the ideal profile, and profiles are the profiles the project ships.
//
//go:embed profiles/*.json
var profiles embed.FS

// DefaultProfileName is the profile the project's tools simulate with unless told otherwise:
// the one measured on the machine the project's CI runs on (see DefaultProfile).
const DefaultProfileName = "ci"

// DefaultProfile returns the profile the project's tools (schedbench, bench/scenario, the host
// table's models) simulate with unless told otherwise: the costs measured on the machine the
// project's CI runs on, with `schedbench calibrate` (profiles/ci.json). The zero Config does not
// use it: it is the ideal machine (IdealProfile).
func DefaultProfile() *Profile {
	p, ok := BuiltinProfile(DefaultProfileName)
	if !ok {
		panic("sim: internal error: no " + DefaultProfileName + " profile")
	}
	return p
}

// IdealProfile returns the ideal profile, which charges nothing: a woken thread runs the instant
// it is chosen. It is the zero Config's machine, for teaching and for differential tests.
func IdealProfile() *Profile {
	p, ok := BuiltinProfile("ideal")
	if !ok {
		panic("sim: internal error: no ideal profile")
	}
	return p
}

// BuiltinProfile returns the profile the project ships under name (see BuiltinProfiles), and
// whether there is one.
func BuiltinProfile(name string) (*Profile, bool) {
	data, err := profiles.ReadFile("profiles/" + name + ".json")
	if err != nil {
		return nil, false
	}
	p, err := ParseProfile("profiles/"+name+".json", data)
	if err != nil {
		panic("sim: internal error: " + err.Error())
	}
	return p, true
}

// BuiltinProfiles returns the names of the profiles the project ships, sorted.
func BuiltinProfiles() []string {
	entries, _ := profiles.ReadDir("profiles")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// LoadProfile reads the profile file at path (see ParseProfile).
func LoadProfile(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sim: profile: %w", err)
	}
	return ParseProfile(path, data)
}

// A ProfileError is what is wrong with a profile file: the file, the member (a figure's name and
// field, such as "figures.switch.p50"), and the problem.
type ProfileError struct {
	File, Field, Msg string
}

func (e *ProfileError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("sim: profile %s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("sim: profile %s: %s: %s", e.File, e.Field, e.Msg)
}

// profileJSON is the file form of a Profile.
type profileJSON struct {
	Schema     string                     `json:"schema"`
	Name       string                     `json:"name"`
	About      string                     `json:"about"`
	Machine    ProfileMachine             `json:"machine"`
	Provenance Provenance                 `json:"provenance"`
	Figures    map[string]json.RawMessage `json:"figures"`
	Program    map[string]json.RawMessage `json:"program,omitempty"`
}

// figureJSON is the file form of a Figure; quantiles are numbers in Unit.
type figureJSON struct {
	Unit string `json:"unit"`
	quantilesJSON
	Method  string `json:"method"`
	Date    string `json:"date"`
	Assumed string `json:"assumed,omitempty"`
}

// quantilesJSON is the file form of a Cost's quantiles, shared by a figure and a point of a
// curve (encoding/json writes and reads an embedded struct's fields as the outer one's).
type quantilesJSON struct {
	Min  *json.Number `json:"min,omitempty"`
	P50  *json.Number `json:"p50"`
	P90  *json.Number `json:"p90,omitempty"`
	P99  *json.Number `json:"p99,omitempty"`
	P995 *json.Number `json:"p99.5,omitempty"`
	P999 *json.Number `json:"p99.9,omitempty"`
	Max  *json.Number `json:"max,omitempty"`
}

var units = map[string]float64{"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}

// ParseProfile reads a profile file's bytes; file names it in errors. A missing, negative,
// non-finite or absurd figure (above the limit ProfileFigureLimit gives), quantiles out of
// order, an unknown unit, figure or member, and a missing method or date are errors
// (*ProfileError) naming the file and the field.
func ParseProfile(file string, data []byte) (*Profile, error) {
	bad := func(field, format string, args ...any) error {
		return &ProfileError{File: file, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var pj profileJSON
	if err := dec.Decode(&pj); err != nil {
		return nil, bad("", "%v", err)
	}
	if dec.More() {
		return nil, bad("", "data after the profile's object")
	}
	switch {
	case pj.Schema != ProfileSchema:
		return nil, bad("schema", "%q, want %q", pj.Schema, ProfileSchema)
	case pj.Name == "":
		return nil, bad("name", "missing")
	case pj.Machine.CPUs < 0 || pj.Machine.Hz < 0 || pj.Machine.Hz > 1_000_000:
		return nil, bad("machine", "cpus %d, hz %d out of range", pj.Machine.CPUs, pj.Machine.Hz)
	}
	for i, l := range pj.Provenance.LoadAverage {
		if !(l >= 0) || math.IsInf(l, 0) {
			return nil, bad(fmt.Sprintf("provenance.load_average[%d]", i), "%v is not a load average", l)
		}
	}
	p := &Profile{Name: pj.Name, About: pj.About, Machine: pj.Machine, Provenance: pj.Provenance,
		Figures: map[string]Figure{}, Program: map[string]Figure{}}
	if raw, ok := pj.Figures[ipiIdleName]; ok {
		var err error
		if p.IPIIdle, err = parseIdleCurve(file, "figures."+ipiIdleName, raw); err != nil {
			return nil, err
		}
	}
	for name := range pj.Figures {
		if _, ok := ProfileFigureLimit(name); !ok && name != ipiIdleName {
			return nil, bad("figures."+name, "unknown figure (want %s)", strings.Join(ProfileFigures(), ", "))
		}
	}
	for _, f := range profileFigures {
		raw, ok := pj.Figures[f.name]
		if !ok && f.optional {
			continue
		}
		if !ok {
			return nil, bad("figures."+f.name, "missing (%s)", f.doc)
		}
		fig, err := parseFigure(file, "figures."+f.name, raw, f.limit)
		if err != nil {
			return nil, err
		}
		p.Figures[f.name] = fig
	}
	for name, raw := range pj.Program {
		fig, err := parseFigure(file, "program."+name, raw, time.Second)
		if err != nil {
			return nil, err
		}
		p.Program[name] = fig
	}
	return p, nil
}

// parseFigure reads the figure at field of file, whose quantiles may not exceed limit.
func parseFigure(file, field string, raw json.RawMessage, limit time.Duration) (Figure, error) {
	bad := func(sub, format string, args ...any) (Figure, error) {
		if sub != "" {
			sub = "." + sub
		}
		return Figure{}, &ProfileError{File: file, Field: field + sub, Msg: fmt.Sprintf(format, args...)}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var fj figureJSON
	if err := dec.Decode(&fj); err != nil {
		return bad("", "%v", err)
	}
	return figureOf(file, field, &fj, limit)
}

// figureOf checks fj, the figure at field of file, whose quantiles may not exceed limit, and
// returns it.
func figureOf(file, field string, fj *figureJSON, limit time.Duration) (Figure, error) {
	bad := func(sub, format string, args ...any) (Figure, error) {
		if sub != "" {
			sub = "." + sub
		}
		return Figure{}, &ProfileError{File: file, Field: field + sub, Msg: fmt.Sprintf(format, args...)}
	}
	scale, ok := units[fj.Unit]
	switch {
	case !ok:
		return bad("unit", "%q, want ns, us, µs, ms or s", fj.Unit)
	case fj.P50 == nil:
		return bad("p50", "missing")
	case strings.TrimSpace(fj.Method) == "":
		return bad("method", "missing: say how the figure was measured")
	case strings.TrimSpace(fj.Date) == "":
		return bad("date", "missing: say when the figure was measured")
	}
	others := []*json.Number{fj.Min, fj.P90, fj.P99, fj.Max}
	given := 0
	for _, q := range others {
		if q != nil {
			given++
		}
	}
	if given != 0 && given != len(others) {
		return bad("", "give p50 alone (a fixed cost) or all of min, p50, p90, p99 and max")
	}
	switch {
	case fj.P999 != nil && given == 0:
		return bad("p99.9", "a fixed cost has no p99.9: give min, p90, p99 and max too")
	case fj.P995 != nil && given == 0:
		return bad("p99.5", "a fixed cost has no p99.5: give min, p90, p99, p99.9 and max too")
	case fj.P995 != nil && fj.P999 == nil:
		return bad("p99.5", "given without p99.9")
	}
	var q [7]time.Duration
	names := [7]string{"min", "p50", "p90", "p99", "p99.5", "p99.9", "max"}
	nums := [7]*json.Number{fj.Min, fj.P50, fj.P90, fj.P99, fj.P995, fj.P999, fj.Max}
	for i, n := range nums {
		if n == nil && (i == 4 || i == 5) && given > 0 {
			continue // quantiles without p99.5 or p99.9: 0
		}
		if n == nil {
			n = fj.P50
		}
		v, err := strconv.ParseFloat(string(*n), 64)
		ns := v * scale
		switch {
		case err != nil && !math.IsInf(v, 0):
			return bad(names[i], "%s is not a number", *n)
		case math.IsInf(ns, 0) || math.IsNaN(ns):
			return bad(names[i], "%s %s is not a finite figure", *n, fj.Unit)
		case ns < 0:
			return bad(names[i], "negative: %s %s", *n, fj.Unit)
		case ns > float64(limit):
			return bad(names[i], "%s %s is absurd (above %v)", *n, fj.Unit, limit)
		}
		q[i] = time.Duration(math.Round(ns))
	}
	c := Cost{Min: q[0], P50: q[1], P90: q[2], P99: q[3], P995: q[4], P999: q[5], Max: q[6]}
	if sub, msg, ok := orderProblem(c, fj.P995 != nil, fj.P999 != nil); !ok {
		return bad(sub, "%s", msg)
	}
	return Figure{Cost: c, Unit: fj.Unit, Method: fj.Method, Date: fj.Date, Assumed: fj.Assumed}, nil
}

// orderProblem reports what is out of order in c, parsed from a figure that gave a p99.5
// (withP995) and a p99.9 (withP999) or not: the member to name ("" for the figure) and the
// message, or ok.
func orderProblem(c Cost, withP995, withP999 bool) (sub, msg string, ok bool) {
	if c.Min > c.P50 || c.P50 > c.P90 || c.P90 > c.P99 || c.P99 > c.Max || withP999 && (c.P999 < c.P99 || c.P999 > c.Max) ||
		withP995 && (c.P995 < c.P99 || c.P995 > c.P999) {
		if withP995 {
			return "", fmt.Sprintf("quantiles out of order: min %v, p50 %v, p90 %v, p99 %v, p99.5 %v, p99.9 %v, max %v",
				c.Min, c.P50, c.P90, c.P99, c.P995, c.P999, c.Max), false
		}
		return "", fmt.Sprintf("quantiles out of order: min %v, p50 %v, p90 %v, p99 %v, p99.9 %v, max %v",
			c.Min, c.P50, c.P90, c.P99, c.P999, c.Max), false
	}
	// A p99.9 or p99.5 of 0 below a maximum above it cannot be told from none; it is out of order.
	switch {
	case c.P999 == 0 && withP999 && c.Max > c.P99:
		return "p99.9", fmt.Sprintf("0 below p99 %v", c.P99), false
	case c.P995 == 0 && withP995 && c.Max > c.P99:
		return "p99.5", fmt.Sprintf("0 below p99 %v", c.P99), false
	}
	return "", "", true
}

// MarshalJSON writes p in the file form ParseProfile reads, figures in µs with nanosecond
// precision, in the order of ProfileFigures, then the program's figures sorted by name.
func (p *Profile) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	head, err := json.MarshalIndent(struct {
		Schema     string         `json:"schema"`
		Name       string         `json:"name"`
		About      string         `json:"about"`
		Machine    ProfileMachine `json:"machine"`
		Provenance Provenance     `json:"provenance"`
	}{ProfileSchema, p.Name, p.About, p.Machine, p.Provenance}, "", "  ")
	if err != nil {
		return nil, err
	}
	b.Write(head[:len(head)-2]) // without the closing "\n}"
	section := func(key string, names []string, figs map[string]Figure) error {
		fmt.Fprintf(&b, ",\n  %s: {", jsonString(key))
		i := 0
		for _, name := range names {
			f, ok := figs[name]
			if !ok {
				continue // an optional figure left out
			}
			fj := figureJSON{Unit: "us", Method: f.Method, Date: f.Date, Assumed: f.Assumed}
			setQuantiles(&fj, f.Cost)
			one, err := json.Marshal(fj)
			if err != nil {
				return err
			}
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "\n    %s: %s", jsonString(name), one)
			i++
		}
		if key == "figures" && len(p.IPIIdle.Points) > 0 {
			one, err := p.IPIIdle.marshal()
			if err != nil {
				return err
			}
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "\n    %s: %s", jsonString(ipiIdleName), one)
		}
		b.WriteString("\n  }")
		return nil
	}
	if err := section("figures", ProfileFigures(), p.Figures); err != nil {
		return nil, err
	}
	prog := make([]string, 0, len(p.Program))
	for name := range p.Program {
		prog = append(prog, name)
	}
	slices.Sort(prog)
	if len(prog) > 0 {
		if err := section("program", prog, p.Program); err != nil {
			return nil, err
		}
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// jsonString is s as a JSON string. Go's %q is not one: it writes \x00, \a or \U0001f600
// where JSON wants \u0000, so a program figure named with such a character would be written as
// a file ParseProfile then refuses.
func jsonString(s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// usNumber returns d in µs, with nanosecond precision, as a JSON number.
func usNumber(d time.Duration) *json.Number {
	n := json.Number(strconv.FormatFloat(float64(d)/1e3, 'f', -1, 64))
	return &n
}

// setQuantiles sets fj's quantiles to c's in µs: p50 alone for a fixed cost.
func setQuantiles(fj *figureJSON, c Cost) {
	fj.P50 = usNumber(c.P50)
	if c.Varies() {
		fj.Min, fj.P90, fj.P99, fj.Max = usNumber(c.Min), usNumber(c.P90), usNumber(c.P99), usNumber(c.Max)
		if c.P999 != 0 {
			fj.P999 = usNumber(c.P999)
		}
		if c.P995 != 0 {
			fj.P995 = usNumber(c.P995)
		}
	}
}
