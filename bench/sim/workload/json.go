package workload

// This file implements ParseJSON, the reader of the JSON form.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// Unknown fields are errors. Every error is an *[Error]: a syntax or type error is positioned at
// its line and column in data; an error in a value is located by its path, such as
// `threads[0].ops[2].op: unknown behaviour "slep"`. ParseJSON never panics.
func ParseJSON(data []byte) (*Workload, error) {
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
	w := &Workload{Groups: jw.Groups, Pipes: jw.Pipes}
	for i := range jw.Threads {
		t, err := jw.Threads[i].convert("threads[" + itoa(i) + "]")
		if err != nil {
			return nil, err
		}
		w.Threads = append(w.Threads, t)
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// The json* types mirror the workload with its text-form fields as plain strings, so that a bad
// value is reported with its path instead of failing the decoding without a position.
type jsonWorkload struct {
	Groups  []Group      `json:"groups"`
	Pipes   []Pipe       `json:"pipes"`
	Threads []jsonThread `json:"threads"`
}

type jsonThread struct {
	Name     string   `json:"name"`
	Template bool     `json:"template"`
	Count    int      `json:"count"`
	Start    string   `json:"start"`
	Class    string   `json:"class"`
	Nice     int      `json:"nice"`
	RTPrio   int      `json:"rtprio"`
	CPUs     string   `json:"cpus"`
	Group    string   `json:"group"`
	Slice    string   `json:"slice"`
	Ops      []jsonOp `json:"ops"`
}

type jsonOp struct {
	Op    string   `json:"op"`
	Time  string   `json:"time"`
	Name  string   `json:"name"`
	N     int      `json:"n"`
	Class string   `json:"class"`
	CPUs  string   `json:"cpus"`
	Body  []jsonOp `json:"body"`
}

func (j *jsonThread) convert(path string) (Thread, error) {
	t := Thread{Name: j.Name, Template: j.Template, Count: j.Count, Nice: j.Nice, RTPrio: j.RTPrio, Group: j.Group}
	var err error
	if t.Start, err = jsonDuration(j.Start, path+".start"); err != nil {
		return t, err
	}
	if t.Slice, err = jsonDuration(j.Slice, path+".slice"); err != nil {
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
		op := Op{Kind: k, Name: j.Name, N: j.N}
		if j.Time != "" {
			d, err := ParseDist(j.Time)
			if err != nil {
				return nil, &Error{Path: p + ".time", Msg: err.Error()}
			}
			op.Time = d
		}
		var err error
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
		return &Error{Pos: posAt(data, typ.Offset-1), Path: typ.Field,
			Msg: fmt.Sprintf("%s: cannot use a JSON %s as %s", typ.Field, typ.Value, typ.Type)}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Pos: posAt(data, int64(len(data))), Msg: "unexpected end of JSON input"}
	}
	// An unknown field: the decoder has read past it.
	return &Error{Pos: posAt(data, d.InputOffset()), Msg: err.Error()}
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
