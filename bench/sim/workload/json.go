package workload

// This file implements ParseJSON, the reader of the JSON form.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// ParseJSON reads the JSON form of a workload and validates it. The JSON form is what
// encoding/json makes of a [Workload]: field names as in the struct tags, and durations,
// distributions, classes, behaviours and CPU lists as the strings of their text forms, such as
//
//	{"threads": [{"name": "hog", "count": 2, "nice": 19, "ops": [{"op": "run", "time": "forever"}]}]}
//
// Unknown fields are errors, and so is a key given twice in one object (encoding/json would
// keep the last value), as keys are matched without regard to case. Run and sleep need a
// "time", as they need a duration in the text form. Every error is an *[Error] positioned at its
// line and column in data; an error in a value also names the value's path (Path, and at the
// start of Msg), such as `line 1, column 37: threads[0].ops[0].op: unknown behaviour "slep"`.
// ParseJSON never panics.
//
// data must hold a JSON object: null, an array or a number is an error. An object without
// threads ({}) is a valid, empty workload, as an empty text form is: a machine runs it to an
// immediate end. A real-time scale ("rtscale") is "linux" or "freebsd", or the number
// encoding/json writes for it; a phase mode ("phase_mode") is "absolute", "stagger" or
// "arrival".
func ParseJSON(data []byte) (*Workload, error) {
	if start := skipSpace(data, 0); start < int64(len(data)) && data[start] != '{' {
		return nil, &Error{Pos: posAt(data, start), Msg: "a workload is a JSON object"}
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var jw jsonWorkload
	if err := d.Decode(&jw); err != nil {
		return nil, jsonError(data, d, err)
	}
	end := d.InputOffset()
	if _, err := d.Token(); err != io.EOF {
		return nil, &Error{Pos: posAt(data, skipSpace(data, end)), Msg: "data after the workload"}
	}
	offsets, err := scanJSON(data)
	if err != nil {
		return nil, err
	}
	w := &Workload{Groups: jw.Groups, Pipes: jw.Pipes}
	for i := range jw.Threads {
		t, err := jw.Threads[i].convert("threads[" + itoa(i) + "]")
		if err != nil {
			return nil, locate(data, offsets, err)
		}
		w.Threads = append(w.Threads, t)
	}
	if err := w.Validate(); err != nil {
		return nil, locate(data, offsets, err)
	}
	return w, nil
}

// scanJSON walks data, a JSON value that has decoded without error, token by token. It returns
// an *Error positioned at the second of two keys of one object that encoding/json matches to the
// same field (equal after case folding); otherwise it returns the offset of every value in data
// by its path in the form of Error.Path, such as "threads[0].ops[2]" ("" for the whole value).
func scanJSON(data []byte) (map[string]int64, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	offsets := map[string]int64{}
	var value func(path string, depth int) error
	value = func(path string, depth int) error {
		off := skipDelims(data, d.InputOffset())
		if depth > maxJSONDepth {
			// Refused here, before the paths of deeper values (each longer than the last)
			// make the walk quadratic; Validate would refuse the ops nesting anyway.
			return &Error{Pos: posAt(data, off), Msg: "JSON nested more than " + itoa(maxJSONDepth) +
				" levels deep (ops nest at most " + itoa(MaxDepth) + " deep)"}
		}
		tok, err := d.Token()
		if err != nil {
			return &Error{Pos: posAt(data, off), Msg: err.Error()}
		}
		offsets[path] = off
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for d.More() {
				off := skipDelims(data, d.InputOffset())
				tok, err := d.Token()
				if err != nil {
					return &Error{Pos: posAt(data, off), Msg: err.Error()}
				}
				key, _ := tok.(string)
				folded := foldKey(key)
				if seen[folded] {
					return &Error{Pos: posAt(data, off), Path: path, Msg: "key " + quote(key) + " given twice"}
				}
				seen[folded] = true
				p := strings.ToLower(key)
				if path != "" {
					p = path + "." + p
				}
				if err := value(p, depth+1); err != nil {
					return err
				}
			}
		case json.Delim('['):
			for i := 0; d.More(); i++ {
				if err := value(path+"["+itoa(i)+"]", depth+1); err != nil {
					return err
				}
			}
		default:
			return nil
		}
		_, err = d.Token() // the closing delimiter
		if err != nil {
			return &Error{Pos: posAt(data, d.InputOffset()), Msg: err.Error()}
		}
		return nil
	}
	if err := value("", 0); err != nil {
		return nil, err
	}
	return offsets, nil
}

// maxJSONDepth bounds the nesting of a workload's JSON: an op at nesting depth k (0 for a
// script's own ops) is an object at JSON depth 4+2k (the workload, "threads", the thread, "ops",
// then a "body" array and an object per level), and its fields add two more.
const maxJSONDepth = 2*MaxDepth + 8

// foldKey returns the form of a JSON key that encoding/json compares with field names: each
// letter made upper case after lower case, so that "Name", "NAME" and "name" are one key.
func foldKey(k string) string {
	return strings.Map(func(r rune) rune { return unicode.ToUpper(unicode.ToLower(r)) }, k)
}

// skipDelims returns the offset of the first byte at or after off that is neither JSON white
// space nor the colon or comma the decoder reads before the next token.
func skipDelims(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\n', '\r', ':', ',':
			off++
			continue
		}
		break
	}
	return off
}

// locate gives err, an *Error located by its path only, the position of the value at that path
// or, if the path names no value of data (a field left out), of the nearest enclosing one.
func locate(data []byte, offsets map[string]int64, err error) error {
	var e *Error
	if !errors.As(err, &e) || e.Pos.Line > 0 || e.Path == "" {
		return err
	}
	for p := e.Path; ; p = p[:max(strings.LastIndexAny(p, ".["), 0)] {
		if off, ok := offsets[p]; ok {
			return &Error{Pos: posAt(data, off), Path: e.Path, Msg: e.Path + ": " + e.Msg}
		}
		if p == "" {
			return err
		}
	}
}

// MarshalJSON implements json.Marshaler. It writes op as its struct tags say, except that the
// time of a Run or Sleep is always written, "0s" included, since [ParseJSON] requires it.
func (op Op) MarshalJSON() ([]byte, error) {
	type plain Op // the fields of Op without this method
	if op.Kind != Run && op.Kind != Sleep {
		return json.Marshal(plain(op))
	}
	return json.Marshal(struct {
		plain
		Time Dist `json:"time"`
	}{plain(op), op.Time})
}

// The json* types mirror the workload with its text-form fields as plain strings, so that a bad
// value is reported with its path instead of failing the decoding without a position.
type jsonWorkload struct {
	Groups  []Group      `json:"groups"`
	Pipes   []Pipe       `json:"pipes"`
	Threads []jsonThread `json:"threads"`
}

type jsonThread struct {
	Name     string      `json:"name"`
	Template bool        `json:"template"`
	Count    int         `json:"count"`
	Start    string      `json:"start"`
	Class    string      `json:"class"`
	Nice     int         `json:"nice"`
	RTPrio   int         `json:"rtprio"`
	RTScale  jsonRTScale `json:"rtscale"`
	CPUs     string      `json:"cpus"`
	Group    string      `json:"group"`
	Slice    string      `json:"slice"`
	Slack    string      `json:"slack"`
	Process  string      `json:"process"`
	Ops      []jsonOp    `json:"ops"`
}

type jsonOp struct {
	Op        string      `json:"op"`
	Time      string      `json:"time"`
	Name      string      `json:"name"`
	N         int         `json:"n"`
	Class     string      `json:"class"`
	RTScale   jsonRTScale `json:"rtscale"`
	Phase     string      `json:"phase"`
	PhaseMode string      `json:"phase_mode"`
	CPUs      string      `json:"cpus"`
	Body      []jsonOp    `json:"body"`
}

// jsonRTScale reads a real-time scale as its name ("linux", "freebsd") or its number (0, 1: what
// encoding/json writes of a sched.RTScale).
type jsonRTScale sched.RTScale

func (s *jsonRTScale) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"linux"`, "0", "null":
		*s = jsonRTScale(sched.RTLinux)
	case `"freebsd"`, "1":
		*s = jsonRTScale(sched.RTFreeBSD)
	default:
		return fmt.Errorf("unknown real-time scale %s (want \"linux\" or \"freebsd\")", b)
	}
	return nil
}

func (j *jsonThread) convert(path string) (Thread, error) {
	t := Thread{Name: j.Name, Template: j.Template, Count: j.Count, Nice: j.Nice, RTPrio: j.RTPrio,
		RTScale: sched.RTScale(j.RTScale), Group: j.Group, Process: j.Process}
	var err error
	if t.Start, err = jsonDuration(j.Start, path+".start"); err != nil {
		return t, err
	}
	if t.Slice, err = jsonDuration(j.Slice, path+".slice"); err != nil {
		return t, err
	}
	if t.Slack, err = jsonDuration(j.Slack, path+".slack"); err != nil {
		return t, err
	}
	if t.Class, err = jsonClass(j.Class, path+".class"); err != nil {
		return t, err
	}
	if t.CPUs, err = jsonCPUs(j.CPUs, path+".cpus"); err != nil {
		return t, err
	}
	t.Ops, err = convertOps(j.Ops, path+".ops")
	return t, err
}

func convertOps(js []jsonOp, path string) ([]Op, error) {
	var ops []Op
	for i := range js {
		j := &js[i]
		p := path + "[" + itoa(i) + "]"
		k, ok := ParseKind(j.Op)
		if !ok {
			return nil, &Error{Path: p + ".op", Msg: "unknown behaviour " + quote(j.Op)}
		}
		op := Op{Kind: k, Name: j.Name, N: j.N, RTScale: sched.RTScale(j.RTScale)}
		var err error
		if op.Phase, err = jsonDuration(j.Phase, p+".phase"); err != nil {
			return nil, err
		}
		if j.PhaseMode != "" {
			if err := op.PhaseMode.UnmarshalText([]byte(j.PhaseMode)); err != nil {
				return nil, &Error{Path: p + ".phase_mode", Msg: err.(*Error).Msg}
			}
		}
		if j.Time == "" && (k == Run || k == Sleep) {
			return nil, &Error{Path: p, Msg: k.String() + " needs a time, a duration or distribution"}
		}
		if j.Time != "" {
			d, err := ParseDist(j.Time)
			if err != nil {
				return nil, &Error{Path: p + ".time", Msg: err.Error()}
			}
			op.Time = d
		}
		if op.Class, err = jsonClass(j.Class, p+".class"); err != nil {
			return nil, err
		}
		if op.CPUs, err = jsonCPUs(j.CPUs, p+".cpus"); err != nil {
			return nil, err
		}
		if op.Body, err = convertOps(j.Body, p+".body"); err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	return ops, nil
}

func jsonDuration(s, path string) (Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return 0, &Error{Path: path, Msg: err.Error()}
	}
	return d, nil
}

func jsonClass(s, path string) (sched.Class, error) {
	if s == "" {
		return sched.Normal, nil
	}
	c, err := sched.ParseClass(s)
	if err != nil {
		return 0, &Error{Path: path, Msg: trimPkg(err.Error())}
	}
	return c, nil
}

func jsonCPUs(s, path string) (topology.CPUSet, error) {
	c, err := topology.ParseCPUList(s)
	if err != nil {
		return c, &Error{Path: path, Msg: fmt.Sprintf("bad CPU list %q: %s", s, trimPkgName(err.Error(), "topology: "))}
	}
	return c, nil
}

func jsonError(data []byte, d *json.Decoder, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &Error{Pos: posAt(data, syn.Offset-1), Msg: syn.Error()}
	case errors.As(err, &typ):
		path, off := typePath(data, typ.Field, typ.Offset-1)
		return &Error{Pos: posAt(data, off), Path: path,
			Msg: fmt.Sprintf("%s: cannot use a JSON %s as %s", path, typ.Value, typ.Type)}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Pos: posAt(data, int64(len(data))), Msg: "unexpected end of JSON input"}
	}
	// An unknown field: the decoder has read past it.
	return &Error{Pos: posAt(data, d.InputOffset()), Msg: err.Error()}
}

// typePath returns the path, with its indices, and the offset of the value that encoding/json
// refused at offset end (within the value or at its last byte): field is the path it names
// without indices, such as "threads.ops.n" for "threads[0].ops[2].n". It is the value at that path
// that starts last at or before end; if none does, field and end are returned as they are.
func typePath(data []byte, field string, end int64) (string, int64) {
	offsets, err := scanJSON(data)
	if err != nil {
		return field, end
	}
	path, start := field, int64(-1)
	for p, off := range offsets {
		if off <= end && off > start && stripIndices(p) == field {
			path, start = p, off
		}
	}
	if start < 0 {
		return field, end
	}
	return path, start
}

// stripIndices returns path without its array indices: "threads[0].ops[2].n" is "threads.ops.n".
func stripIndices(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		if path[i] == '[' {
			for i < len(path) && path[i] != ']' {
				i++
			}
			continue
		}
		b.WriteByte(path[i])
	}
	return b.String()
}

// skipSpace returns the offset of the first byte at or after off that is not JSON white space.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\n', '\r':
			off++
			continue
		}
		break
	}
	return off
}

// posAt returns the line and column of byte offset off in data.
func posAt(data []byte, off int64) Pos {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return Pos{Line: line, Col: utf8.RuneCount(before[start:]) + 1}
}
