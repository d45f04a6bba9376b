package workload

// This file implements Error and Workload.Validate.

import (
	"fmt"
	"strconv"

	"github.com/schedkit/schedkit/sched"
)

// Limits on what a workload may ask for, so that bad input fails validation instead of exhausting
// memory.
const (
	// MaxCount is the largest Count, N of a Send, Recv, Poll, Until or Fork, and pipe capacity.
	MaxCount = 1 << 20
	// MaxDepth is the deepest nesting of Loop, Repeat, Every and Until.
	MaxDepth = 32
	// MaxRepeat is the largest N of a Repeat or Every.
	MaxRepeat = 1<<31 - 1
	// MaxInstant bounds the work a thread may do without simulated time passing: the product of
	// the counts of the Repeats around an op whose bodies take no time, times the count of a
	// Send, Recv or Fork. Above it a simulation would stand still at one instant for hours.
	MaxInstant = 1 << 20
)

// An Error is a problem in a workload, located by a position in its text form (Pos, for
// workloads read by [Parse] or [ParseJSON]) and by a path to the element (Path, such as
// "threads[1].ops[0]"), whichever are known.
type Error struct {
	// Pos is the line and column of the problem in the text or JSON it was read from, or zero.
	Pos Pos
	// Path locates the element in the Workload value, or is empty.
	Path string
	// Msg says what is wrong.
	Msg string
}

// Error returns the message prefixed by the position, as in
// `line 3, column 7: unknown behaviour "slep"`, or by the path when there is no position.
func (e *Error) Error() string {
	switch {
	case e.Pos.Line > 0:
		return "line " + itoa(e.Pos.Line) + ", column " + itoa(e.Pos.Col) + ": " + e.Msg
	case e.Path != "":
		return e.Path + ": " + e.Msg
	}
	return e.Msg
}

// Validate reports the first problem of w, or nil. It checks that names are well formed and
// unique (groups, pipes and threads each have their own namespace), that every reference
// (a thread's group, a group's parent, the pipe of Send, Recv, Poll and Until, the template of
// Fork, the group of SetGroup) names something declared, a group's parent before it; that counts,
// durations, nice values, classes and priorities are in range; that each op sets only the fields
// its kind uses; that the body of every Loop and Until takes time, so that no thread can loop forever without
// simulated time passing; and that no op repeats more than [MaxInstant] times at one instant.
//
// A body takes time if it holds an Every, a Run or Sleep whose duration can be positive (not
// "run 0", which the machine stretches to 1 ns, nor uniform(0,0) or exp(0)), or a Loop or
// Repeat whose body takes time. The ops between two that take time run at one instant: a
// Repeat whose body takes no time multiplies the ops in it, and the product of the counts of
// such nested Repeats, times the count of a Send, Recv or Fork inside them, is at most
// MaxInstant. The error is an *[Error].
func (w *Workload) Validate() error {
	v := validator{groups: map[string]bool{}, pipes: map[string]bool{}, templates: map[string]bool{}}
	if err := v.declarations(w); err != nil {
		return err
	}
	threads := map[string]bool{}
	total := 0
	for i := range w.Threads {
		t := &w.Threads[i]
		path := "threads[" + itoa(i) + "]"
		if err := checkName(t.Name); err != nil {
			return errAt(t.pos, path, "thread %s", err)
		}
		if threads[t.Name] {
			return errAt(t.pos, path, "thread %q declared twice", t.Name)
		}
		threads[t.Name] = true
		switch {
		case t.Count < 0 || t.Count > MaxCount:
			return errAt(t.pos, path, "count %d outside 1..%d", t.Count, MaxCount)
		case t.Template && t.Count != 0:
			return errAt(t.pos, path, "template %q has a count; Fork says how many", t.Name)
		case t.Template && t.Start != 0:
			return errAt(t.pos, path, "template %q has a start time; Fork says when", t.Name)
		case t.Start < 0 || t.Start > MaxDuration:
			return errAt(t.pos, path, "start %d ns outside 0..%v", t.Start, MaxDuration)
		case t.Slice < 0 || t.Slice > MaxDuration:
			return errAt(t.pos, path, "slice %d ns outside 0..%v", t.Slice, MaxDuration)
		case t.Slack < 0 || t.Slack > MaxSlack:
			return errAt(t.pos, path, "slack %d ns outside 0..%v", t.Slack, MaxSlack)
		case t.Group != "" && !v.groups[t.Group]:
			return errAt(t.pos, path, "unknown group %q", t.Group)
		}
		if t.Process != "" {
			if err := checkName(t.Process); err != nil {
				return errAt(t.pos, path, "process %s", err)
			}
		}
		total += t.Instances()
		if total > MaxCount {
			return errAt(t.pos, path, "more than %d threads", MaxCount)
		}
		if err := checkAttr(t.Class, t.Nice, t.RTPrio, t.RTScale); err != nil {
			return errAt(t.pos, path, "%s", err)
		}
		if err := v.ops(t.Ops, path+".ops", t.pos, 0, 1); err != nil {
			return err
		}
	}
	return nil
}

// declarations checks w's groups and pipes and records their names and the templates' in v.
func (v *validator) declarations(w *Workload) error {
	for i := range w.Groups {
		g := &w.Groups[i]
		path := "groups[" + itoa(i) + "]"
		if err := checkDecl(g.pos, path, "group", g.Name, v.groups); err != nil {
			return err
		}
		if g.Parent != "" && !v.groups[g.Parent] {
			return errAt(g.pos, path, "parent group %q is not declared before group %q", g.Parent, g.Name)
		}
		if g.Weight != 0 && (g.Weight < sched.MinWeight || g.Weight > sched.MaxWeight) {
			return errAt(g.pos, path, "weight %d outside %d..%d", g.Weight, sched.MinWeight, sched.MaxWeight)
		}
		v.groups[g.Name] = true
	}
	for i := range w.Pipes {
		p := &w.Pipes[i]
		path := "pipes[" + itoa(i) + "]"
		if err := checkDecl(p.pos, path, "pipe", p.Name, v.pipes); err != nil {
			return err
		}
		if p.Cap < 0 || p.Cap > MaxCount {
			return errAt(p.pos, path, "capacity %d outside 0..%d", p.Cap, MaxCount)
		}
		if p.Room < 0 || p.Room > p.Cap {
			return errAt(p.pos, path, "room %d outside 0..%d (the capacity; an unbounded pipe has none)", p.Room, p.Cap)
		}
		v.pipes[p.Name] = true
	}
	for i := range w.Threads {
		t := &w.Threads[i]
		if t.Template {
			v.templates[t.Name] = true
		}
	}
	return nil
}

// checkDecl checks the name of a kind of thing ("group", "pipe") declared at pos, path: a valid
// name, not in declared yet.
func checkDecl(pos Pos, path, kind, name string, declared map[string]bool) error {
	if err := checkName(name); err != nil {
		return errAt(pos, path, "%s %s", kind, err)
	}
	if declared[name] {
		return errAt(pos, path, "%s %q declared twice", kind, name)
	}
	return nil
}

type validator struct {
	groups, pipes, templates map[string]bool
}

// field bits say which fields of an Op are set.
const (
	fTime = 1 << iota
	fName
	fN
	fClass
	fCPUs
	fBody
	fRTScale
	fPhase
)

var fieldNames = []string{"time", "name", "n", "class", "cpus", "body", "rtscale", "phase"}

// allowed is the set of fields each kind uses.
var allowed = [numKinds]int{
	Run: fTime, Sleep: fTime, Send: fName | fN, Recv: fName | fN, Fork: fName | fN,
	Loop: fBody, Repeat: fN | fBody, Every: fTime | fN | fBody | fPhase,
	Nice: fN, SetClass: fClass | fN | fRTScale, SetCPUs: fCPUs, SetGroup: fName, Poll: fName | fTime | fN,
	Until: fName | fN | fBody, Spin: fTime,
}

// ops checks the ops of a script or body at the given nesting depth; instant is the number of
// times each of them may run at one instant, the product of the enclosing Repeats without time.
func (v *validator) ops(ops []Op, path string, parent Pos, depth int, instant int64) error {
	if depth > MaxDepth {
		return errAt(parent, path, "blocks nested deeper than %d", MaxDepth)
	}
	for i := range ops {
		op := &ops[i]
		p := path + "[" + itoa(i) + "]"
		if op.Kind >= numKinds {
			return errAt(op.pos, p, "unknown behaviour %d", op.Kind)
		}
		set := 0
		if op.Time != (Dist{}) {
			set |= fTime
		}
		if op.Name != "" {
			set |= fName
		}
		if op.N != 0 {
			set |= fN
		}
		if op.Class != 0 {
			set |= fClass
		}
		if !op.CPUs.IsEmpty() {
			set |= fCPUs
		}
		if len(op.Body) != 0 {
			set |= fBody
		}
		if op.RTScale != 0 {
			set |= fRTScale
		}
		if op.Phase != 0 || op.PhaseMode != 0 {
			set |= fPhase
		}
		if extra := set &^ allowed[op.Kind]; extra != 0 {
			for b, n := range fieldNames {
				if extra&(1<<b) != 0 {
					return errAt(op.pos, p, "%s does not take %s", op.Kind, n)
				}
			}
		}
		if err := v.op(op, p, depth, instant); err != nil {
			return err
		}
	}
	return nil
}

// neverEnds is the error of each kind that may not last forever.
var neverEnds = [numKinds]string{
	Sleep: "sleep forever never wakes up; use exit or recv on a pipe nobody writes",
	Spin:  "spin forever never ends; use run forever for a hog",
}

func (v *validator) op(op *Op, p string, depth int, instant int64) error {
	switch op.Kind {
	case Run, Sleep, Spin:
		if err := op.Time.Validate(); err != nil {
			return errAt(op.pos, p, "%s: %s", op.Kind, err)
		}
		if msg := neverEnds[op.Kind]; msg != "" && op.Time.Kind == Forever {
			return errAt(op.pos, p, "%s", msg)
		}
	case Poll:
		if err := v.poll(op, p); err != nil {
			return err
		}
	case Send, Recv, Until:
		if !v.pipes[op.Name] {
			return errAt(op.pos, p, "%s: unknown pipe %q", op.Kind, op.Name)
		}
		if op.N < 0 || op.N > MaxCount {
			return errAt(op.pos, p, "%s: count %d outside 1..%d", op.Kind, op.N, MaxCount)
		}
		if err := checkInstant(op, p, instant*int64(max(op.N, 1))); err != nil {
			return err
		}
		if op.Kind == Until && !takesTime(op.Body) {
			return errAt(op.pos, p, "until body takes no time (it needs a run or sleep of a positive duration, or an every)")
		}
	case Fork:
		if !v.templates[op.Name] {
			return errAt(op.pos, p, "fork: %q is not a template", op.Name)
		}
		if op.N < 0 || op.N > MaxCount {
			return errAt(op.pos, p, "fork: count %d outside 1..%d", op.N, MaxCount)
		}
		if err := checkInstant(op, p, instant*int64(max(op.N, 1))); err != nil {
			return err
		}
	case Loop:
		if !takesTime(op.Body) {
			return errAt(op.pos, p, "loop body takes no time (it needs a run or sleep of a positive duration, or an every)")
		}

	case Repeat:
		if op.N < 1 || op.N > MaxRepeat {
			return errAt(op.pos, p, "repeat: count %d outside 1..%d", op.N, MaxRepeat)
		}
		if !takesTime(op.Body) {
			instant *= int64(op.N)
			if err := checkInstant(op, p, instant); err != nil {
				return err
			}
		}
	case Every:
		if err := checkEvery(op, p); err != nil {
			return err
		}
	case Nice:
		if op.N < sched.MinNice || op.N > sched.MaxNice {
			return errAt(op.pos, p, "nice %d outside %d..%d", op.N, sched.MinNice, sched.MaxNice)
		}
	case SetClass:
		if err := checkAttr(op.Class, 0, op.N, op.RTScale); err != nil {
			return errAt(op.pos, p, "%s", err)
		}
	case SetCPUs:
		if op.CPUs.IsEmpty() {
			return errAt(op.pos, p, "cpus: empty CPU list")
		}
	case SetGroup:
		if !v.groups[op.Name] {
			return errAt(op.pos, p, "group: unknown group %q", op.Name)
		}
	}
	if len(op.Body) > 0 || op.Kind.block() {
		if len(op.Body) == 0 {
			return errAt(op.pos, p, "%s with an empty body", op.Kind)
		}
		return v.ops(op.Body, p+".body", op.pos, depth+1, instant)
	}
	return nil
}

// poll checks a poll op at path p: a declared pipe, a count, and a positive finite time per try.
func (v *validator) poll(op *Op, p string) error {
	if !v.pipes[op.Name] {
		return errAt(op.pos, p, "poll: unknown pipe %q", op.Name)
	}
	if op.N < 0 || op.N > MaxCount {
		return errAt(op.pos, p, "poll: count %d outside 1..%d", op.N, MaxCount)
	}
	if err := op.Time.Validate(); err != nil {
		return errAt(op.pos, p, "poll: %s", err)
	}
	if op.Time.Kind == Forever || !op.Time.canBePositive() {
		return errAt(op.pos, p, "poll: each try must take a positive, finite time, not %v", op.Time)
	}
	return nil
}

// checkEvery checks an every op at path p: a positive constant period, a count, a phase and its
// mode.
func checkEvery(op *Op, p string) error {
	if op.Time.Kind != Const || op.Time.A <= 0 || op.Time.A > MaxDuration {
		return errAt(op.pos, p, "every: the period must be a positive constant duration, not %v", op.Time)
	}
	if op.N < 0 || op.N > MaxRepeat {
		return errAt(op.pos, p, "every: count %d outside 0..%d", op.N, MaxRepeat)
	}
	if op.Phase < 0 || op.Phase > MaxDuration {
		return errAt(op.pos, p, "every: phase %d ns outside 0..%v", op.Phase, MaxDuration)
	}
	if op.PhaseMode >= numPhaseModes {
		return errAt(op.pos, p, "every: unknown phase mode %d", op.PhaseMode)
	}
	return nil
}

// checkInstant returns an error if op runs n > MaxInstant times at one instant.
func checkInstant(op *Op, p string, n int64) error {
	if n > MaxInstant {
		return errAt(op.pos, p, "%s: %d repetitions without simulated time passing, more than %d (a run or sleep in the repeated body makes time pass)",
			op.Kind, n, MaxInstant)
	}
	return nil
}

// takesTime reports whether every run through ops advances simulated time: it holds an Every,
// a Run or Sleep whose duration can be positive, or a Loop or Repeat whose body takes time.
func takesTime(ops []Op) bool {
	for i := range ops {
		switch ops[i].Kind {
		case Every:
			return true
		case Run, Sleep, Spin:
			if ops[i].Time.canBePositive() {
				return true
			}
		case Loop, Repeat:
			if takesTime(ops[i].Body) {
				return true
			}
		}
	}
	return false
}

func checkAttr(c sched.Class, nice, rtprio int, scale sched.RTScale) error {
	if scale > sched.RTFreeBSD {
		return fmt.Errorf("unknown real-time scale %d", scale)
	}
	if !c.RealTime() && (rtprio != 0 || scale != sched.RTLinux) {
		return fmt.Errorf("rtprio %s given to a %s thread (only fifo and rr have one)", rtprioString(rtprio, scale), c)
	}
	a := sched.Attr{Class: c, Nice: nice, RTPrio: rtprio, RTScale: scale}
	if err := a.Validate(); err != nil {
		return fmt.Errorf("%s", trimPkg(err.Error()))
	}
	return nil
}

// checkName reports whether s is a name: a letter or underscore, then letters, digits,
// underscores and hyphens.
func checkName(s string) error {
	if s == "" {
		return fmt.Errorf("without a name")
	}
	for i, r := range s {
		ok := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' ||
			i > 0 && (r == '-' || '0' <= r && r <= '9')
		if !ok {
			return fmt.Errorf("name %q is not a letter or _ followed by letters, digits, _ or -", s)
		}
	}
	return nil
}

func errAt(pos Pos, path, format string, args ...any) *Error {
	return &Error{Pos: pos, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func trimPkg(s string) string {
	const p = "sched: "
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }

func quote(s string) string { return strconv.Quote(s) }
