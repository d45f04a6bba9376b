package workload

// This file implements ParseJSON and the JSON form.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ParseJSON reads the JSON form of a workload, which is the encoding/json form of [Workload]
// (durations, distributions, classes, behaviours and CPU lists as the strings of their text
// forms), and validates it. Unknown fields are errors. A syntax or type error is an *[Error]
// positioned at its line and column in data; a validation error carries the path of the element,
// such as "threads[0].ops[2]". ParseJSON never panics.
func ParseJSON(data []byte) (*Workload, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var w Workload
	if err := d.Decode(&w); err != nil {
		return nil, jsonError(data, d, err)
	}
	if d.More() {
		return nil, &Error{Pos: posAt(data, d.InputOffset()), Msg: "data after the workload"}
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return &w, nil
}

func jsonError(data []byte, d *json.Decoder, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &Error{Pos: posAt(data, syn.Offset), Msg: syn.Error()}
	case errors.As(err, &typ):
		return &Error{Pos: posAt(data, typ.Offset), Path: typ.Field,
			Msg: fmt.Sprintf("%s: cannot use a JSON %s as %s", typ.Field, typ.Value, typ.Type)}
	}
	// Errors from UnmarshalText methods and unknown fields carry no offset; the decoder has read
	// up to the value in question.
	return &Error{Pos: posAt(data, d.InputOffset()), Msg: err.Error()}
}

// posAt returns the line and column of byte offset off in data.
func posAt(data []byte, off int64) Pos {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return Pos{Line: line, Col: utf8.RuneCount(before[start:]) + 1}
}
