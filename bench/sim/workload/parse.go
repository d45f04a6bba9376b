package workload

// This file implements Parse, the reader of the text form.

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// Parse reads the text form of a workload (see the package documentation for the grammar) and
// validates it. Lines end in "\n", "\r\n" or a lone "\r". Every error is an *[Error] positioned at the line and column of the offending
// token, such as `line 3, column 7: unknown behaviour "slep"`. Parse never panics.
func Parse(text string) (*Workload, error) {
	p := parser{w: &Workload{}}
	lines := splitLines(text)
	for i, l := range lines {
		if err := p.line(i+1, l); err != nil {
			return nil, err
		}
	}
	if n := len(p.stack); n > 0 {
		f := p.stack[n-1]
		last := lines[len(lines)-1]
		return nil, &Error{Pos: Pos{Line: len(lines), Col: utf8.RuneCountInString(last) + 1},
			Msg: "missing end for " + f.what + " opened at line " + itoa(f.pos.Line)}
	}
	if err := p.w.Validate(); err != nil {
		return nil, err
	}
	return p.w, nil
}

// splitLines splits text into lines at each line ending of any of the three conventions: "\n"
// (Unix), "\r\n" (DOS) and a lone "\r" (classic Mac OS, and files some editors still write). A
// file of CR-only endings is lines, not one long comment line that left the workload empty.
func splitLines(text string) []string {
	return strings.Split(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n"), "\n")
}

type token struct {
	s   string
	pos Pos
}

// A frame is a block that end closes: a thread or template, or a loop, repeat or every.
type frame struct {
	what   string // for messages: `thread "x"`, "loop"
	pos    Pos
	thread *Thread // a thread frame
	op     Op      // a block op
	ops    []Op
}

type parser struct {
	w     *Workload
	stack []*frame
}

func (p *parser) errorf(t token, format string, args ...any) error {
	return errAt(t.pos, "", format, args...)
}

// tokenize splits l into tokens at white space outside parentheses, dropping a # comment.
func tokenize(line int, l string) ([]token, error) {
	var toks []token
	col, depth := 0, 0
	start, startCol := -1, 0
	for i, r := range l {
		col++
		if r == utf8.RuneError {
			// A literal U+FFFD is three bytes; an invalid byte decodes to RuneError of size 1.
			if _, size := utf8.DecodeRuneInString(l[i:]); size == 1 {
				return nil, errAt(Pos{line, col}, "", "invalid UTF-8")
			}
		}
		if r == '#' && depth == 0 {
			l = l[:i]
			break
		}
		switch {
		case unicode.IsSpace(r) && depth == 0:
			if start >= 0 {
				toks = append(toks, token{l[start:i], Pos{line, startCol}})
				start = -1
			}
			continue
		case r == '(':
			depth++
		case r == ')':
			depth--
			if depth < 0 {
				return nil, errAt(Pos{line, col}, "", "unbalanced )")
			}
		}
		if start < 0 {
			start, startCol = i, col
		}
	}
	if depth > 0 {
		return nil, errAt(Pos{line, startCol}, "", "unbalanced (")
	}
	if start >= 0 {
		toks = append(toks, token{l[start:], Pos{line, startCol}})
	}
	return toks, nil
}

func (p *parser) line(n int, l string) error {
	toks, err := tokenize(n, l)
	if err != nil || len(toks) == 0 {
		return err
	}
	kw := toks[0]
	if len(p.stack) == 0 {
		switch kw.s {
		case "group":
			return p.group(toks)
		case "pipe":
			return p.pipe(toks)
		case "thread", "template":
			return p.thread(toks)
		case "end":
			return p.errorf(kw, "end without a block to close")
		}
		return p.errorf(kw, "unknown declaration %q (want group, pipe, thread or template)", kw.s)
	}
	switch kw.s {
	case "end":
		if len(toks) > 1 {
			return p.errorf(toks[1], "end takes no arguments")
		}
		return p.end()
	case "pipe", "thread", "template":
		return p.errorf(kw, "%s declared inside %s; close it with end first", kw.s, p.stack[len(p.stack)-1].what)
	}
	return p.op(toks)
}

func (p *parser) top() *frame { return p.stack[len(p.stack)-1] }

func (p *parser) end() error {
	f := p.top()
	p.stack = p.stack[:len(p.stack)-1]
	if f.thread != nil {
		f.thread.Ops = f.ops
		p.w.Threads = append(p.w.Threads, *f.thread)
		return nil
	}
	f.op.Body = f.ops
	parent := p.top()
	parent.ops = append(parent.ops, f.op)
	return nil
}

// args splits toks into key=value arguments and bare flags; each key may appear once.
func (p *parser) args(toks []token, keys ...string) (map[string]token, error) {
	m := map[string]token{}
	for _, t := range toks {
		k, v, hasValue := strings.Cut(t.s, "=")
		known := false
		for _, want := range keys {
			name, isFlag := strings.CutSuffix(want, "?")
			if name == k && hasValue != isFlag {
				known = true
			}
		}
		if !known {
			return nil, p.errorf(t, "unknown argument %q (want %s)", t.s, strings.Join(keys, ", "))
		}
		if _, dup := m[k]; dup {
			return nil, p.errorf(t, "argument %s given twice", k)
		}
		vcol := t.pos.Col + utf8.RuneCountInString(k) + 1
		m[k] = token{v, Pos{t.pos.Line, vcol}}
	}
	return m, nil
}

func (p *parser) name(toks []token, i int, what string) (string, error) {
	if i >= len(toks) {
		last := toks[len(toks)-1]
		return "", errAt(Pos{last.pos.Line, last.pos.Col + utf8.RuneCountInString(last.s)}, "", "%s without a name", toks[0].s)
	}
	if err := checkName(toks[i].s); err != nil {
		return "", p.errorf(toks[i], "%s %s", what, err)
	}
	return toks[i].s, nil
}

func (p *parser) group(toks []token) error {
	name, err := p.name(toks, 1, "group")
	if err != nil {
		return err
	}
	a, err := p.args(toks[2:], "parent", "weight", "idle?")
	if err != nil {
		return err
	}
	g := Group{Name: name, pos: toks[0].pos}
	if t, ok := a["parent"]; ok {
		g.Parent = t.s
	}
	if t, ok := a["weight"]; ok {
		w, err := p.int(t, sched.MinWeight, sched.MaxWeight)
		if err != nil {
			return err
		}
		g.Weight = uint64(w)
	}
	_, g.Idle = a["idle"]
	p.w.Groups = append(p.w.Groups, g)
	return nil
}

func (p *parser) pipe(toks []token) error {
	name, err := p.name(toks, 1, "pipe")
	if err != nil {
		return err
	}
	a, err := p.args(toks[2:], "cap", "room")
	if err != nil {
		return err
	}
	pp := Pipe{Name: name, pos: toks[0].pos}
	if t, ok := a["cap"]; ok {
		if pp.Cap, err = p.int(t, 0, MaxCount); err != nil {
			return err
		}
	}
	if t, ok := a["room"]; ok {
		if pp.Room, err = p.int(t, 0, MaxCount); err != nil {
			return err
		}
	}
	p.w.Pipes = append(p.w.Pipes, pp)
	return nil
}

func (p *parser) thread(toks []token) error {
	name, err := p.name(toks, 1, toks[0].s)
	if err != nil {
		return err
	}
	keys := []string{"class", "nice", "rtprio", "cpus", "group", "slice", "slack", "process"}
	if toks[0].s == "thread" {
		keys = append([]string{"count", "start"}, keys...)
	}
	a, err := p.args(toks[2:], keys...)
	if err != nil {
		return err
	}
	t := &Thread{Name: name, Template: toks[0].s == "template", pos: toks[0].pos}
	for _, k := range keys {
		v, ok := a[k]
		if !ok {
			continue
		}
		switch k {
		case "count":
			t.Count, err = p.int(v, 1, MaxCount)
		case "start":
			t.Start, err = p.duration(v)
		case "slice":
			t.Slice, err = p.duration(v)
		case "slack":
			t.Slack, err = p.duration(v)
		case "class":
			t.Class, err = p.class(v)
		case "nice":
			t.Nice, err = p.int(v, sched.MinNice, sched.MaxNice)
		case "rtprio":
			t.RTPrio, t.RTScale, err = p.rtprio(v)
		case "cpus":
			t.CPUs, err = p.cpus(v)
		case "group":
			t.Group = v.s
		case "process":
			t.Process = v.s
		}
		if err != nil {
			return err
		}
	}
	p.stack = append(p.stack, &frame{what: toks[0].s + " " + strconv.Quote(name), pos: toks[0].pos, thread: t})
	return nil
}

// op parses one behaviour line inside a block.
func (p *parser) op(toks []token) error {
	kw := toks[0]
	k, ok := ParseKind(kw.s)
	if !ok {
		return p.errorf(kw, "unknown behaviour %q", kw.s)
	}
	op := Op{Kind: k, pos: kw.pos}
	if err := p.opArgs(&op, toks); err != nil {
		return err
	}
	if k.block() {
		p.stack = append(p.stack, &frame{what: kw.s, pos: kw.pos, op: op})
		return nil
	}
	f := p.top()
	f.ops = append(f.ops, op)
	return nil
}

// nargs checks that behaviour toks[0] has at least lo and at most hi arguments (toks[1:]);
// usage says what they are.
func (p *parser) nargs(toks []token, lo, hi int, usage string) error {
	kw, args := toks[0], toks[1:]
	if len(args) < lo {
		last := toks[len(toks)-1]
		return errAt(Pos{last.pos.Line, last.pos.Col + utf8.RuneCountInString(last.s)}, "",
			"%s needs %s", kw.s, usage)
	}
	if len(args) > hi {
		return p.errorf(args[hi], "unexpected argument %q to %s (usage: %s %s)", args[hi].s, kw.s, kw.s, usage)
	}
	return nil
}

// opArgs parses the arguments (toks[1:]) of behaviour toks[0] into op, whose Kind is set.
func (p *parser) opArgs(op *Op, toks []token) error {
	args := toks[1:]
	nargs := func(lo, hi int, usage string) error { return p.nargs(toks, lo, hi, usage) }
	var err error
	switch k := op.Kind; k {
	case Run, Sleep, Spin:
		if err = nargs(1, 1, "a duration or distribution"); err == nil {
			op.Time, err = p.dist(args[0])
		}
	case Send, Recv, Fork, Until:
		usage := "a pipe name and an optional count"
		if k == Fork {
			usage = "a template name and an optional count"
		}
		if err = nargs(1, 2, usage); err == nil {
			op.Name = args[0].s
			if len(args) == 2 {
				op.N, err = p.int(args[1], 1, MaxCount)
			}
		}
	case Poll:
		if err = nargs(2, 3, "a pipe name, the CPU time of a try and an optional count"); err == nil {
			op.Name = args[0].s
			if op.Time, err = p.dist(args[1]); err == nil && len(args) == 3 {
				op.N, err = p.int(args[2], 1, MaxCount)
			}
		}
	case Join, Yield, Exit:
		err = nargs(0, 0, "no arguments")
	case Loop:
		err = nargs(0, 0, "no arguments")
	case Repeat:
		if err = nargs(1, 1, "a count"); err == nil {
			op.N, err = p.int(args[0], 1, MaxRepeat)
		}
	case Every:
		err = p.every(op, toks)
	case Nice:
		if err = nargs(1, 1, "a nice value"); err == nil {
			op.N, err = p.int(args[0], sched.MinNice, sched.MaxNice)
		}
	case SetClass:
		if err = nargs(1, 2, "a class and, for fifo and rr, a priority"); err == nil {
			if op.Class, err = p.class(args[0]); err == nil && len(args) == 2 {
				op.N, op.RTScale, err = p.rtprio(args[1])
			}
		}
	case SetCPUs:
		if err = nargs(1, 1, "a CPU list such as 0-3,8"); err == nil {
			op.CPUs, err = p.cpus(args[0])
		}
	case SetGroup:
		if err = nargs(1, 1, "a group name"); err == nil {
			op.Name = args[0].s
		}
	}
	return err
}

// every parses the arguments of an every (toks[1:]): a period, an optional count and an
// optional phase=PHASE, which comes last.
func (p *parser) every(op *Op, toks []token) error {
	if n := len(toks); n > 1 {
		if k, v, ok := strings.Cut(toks[n-1].s, "="); ok && k == "phase" {
			vt := token{v, Pos{toks[n-1].pos.Line, toks[n-1].pos.Col + len("phase=")}}
			var err error
			if op.Phase, op.PhaseMode, err = p.phase(vt); err != nil {
				return err
			}
			toks = toks[:n-1]
		}
	}
	if err := p.nargs(toks, 1, 2, "a period, an optional count and an optional phase=PHASE"); err != nil {
		return err
	}
	d, err := p.duration(toks[1])
	if err != nil {
		return err
	}
	op.Time = Fixed(d)
	if len(toks) == 3 {
		op.N, err = p.int(toks[2], 1, MaxRepeat)
	}
	return err
}

func (p *parser) int(t token, lo, hi int) (int, error) {
	n, err := strconv.Atoi(t.s)
	if err != nil {
		return 0, p.errorf(t, "%q is not an integer", t.s)
	}
	if n < lo || n > hi {
		return 0, p.errorf(t, "%d outside %d..%d", n, lo, hi)
	}
	return n, nil
}

// rtprio reads a real-time priority: N on Linux's scale (sched_priority 1..99), or SCALE:N
// with SCALE linux or freebsd (rtprio(2)'s 0..31).
func (p *parser) rtprio(t token) (int, sched.RTScale, error) {
	scale := sched.RTLinux
	if name, num, ok := strings.Cut(t.s, ":"); ok {
		switch name {
		case "linux":
		case "freebsd":
			scale = sched.RTFreeBSD
		default:
			return 0, 0, p.errorf(t, "unknown real-time scale %q (want linux or freebsd)", name)
		}
		t = token{num, Pos{t.pos.Line, t.pos.Col + utf8.RuneCountInString(name) + 1}}
	}
	lo, hi := scale.Range()
	n, err := p.int(t, lo, hi)
	return n, scale, err
}

// phase reads the phase of an every: DURATION, stagger, stagger+DURATION, arrival or
// arrival+DURATION.
func (p *parser) phase(t token) (Duration, PhaseMode, error) {
	mode := PhaseAbsolute
	rest := t.s
	for _, m := range []PhaseMode{PhaseStagger, PhaseArrival} {
		if r, ok := strings.CutPrefix(t.s, m.String()); ok {
			mode = m
			if rest = r; rest == "" {
				return 0, mode, nil
			}
			if rest, ok = strings.CutPrefix(rest, "+"); !ok {
				return 0, 0, p.errorf(t, "bad phase %q (want a duration, stagger, stagger+DURATION, arrival or arrival+DURATION)", t.s)
			}
			break
		}
	}
	d, err := ParseDuration(rest)
	if err != nil {
		return 0, 0, p.errorf(t, "bad phase %q: %s", t.s, err)
	}
	return d, mode, nil
}

func (p *parser) duration(t token) (Duration, error) {
	d, err := ParseDuration(t.s)
	if err != nil {
		return 0, p.errorf(t, "%s", err)
	}
	return d, nil
}

func (p *parser) dist(t token) (Dist, error) {
	d, err := ParseDist(t.s)
	if err != nil {
		return Dist{}, p.errorf(t, "%s", err)
	}
	return d, nil
}

func (p *parser) class(t token) (sched.Class, error) {
	c, err := sched.ParseClass(t.s)
	if err != nil {
		return 0, p.errorf(t, "%s", trimPkg(err.Error()))
	}
	return c, nil
}

func (p *parser) cpus(t token) (topology.CPUSet, error) {
	s, err := topology.ParseCPUList(t.s)
	if err != nil {
		return s, p.errorf(t, "bad CPU list %q: %s", t.s, trimPkgName(err.Error(), "topology: "))
	}
	if s.IsEmpty() {
		return s, p.errorf(t, "empty CPU list")
	}
	return s, nil
}

func trimPkgName(s, prefix string) string { return strings.TrimPrefix(s, prefix) }
