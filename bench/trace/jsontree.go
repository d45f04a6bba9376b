package trace

// This file implements jnode: a JSON value read with its keys in file order, duplicates kept,
// and the position of every value, for formats such as rt-app's where order and repeated keys
// carry meaning.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// A jnode is one JSON value and where it starts.
type jnode struct {
	kind jkind
	off  int64 // byte offset of the value
	b    bool
	num  json.Number
	str  string
	arr  []*jnode
	keys []string // object keys, in order, duplicates kept
	vals []*jnode
}

// maxJSONDepth bounds the nesting of a JSON document.
const maxJSONDepth = 64

// parseJSONTree reads one JSON value from data, refusing anything after it.
func parseJSONTree(data []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readJNode(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &jsonError{off: dec.InputOffset(), msg: "data after the top-level value"}
	}
	return n, nil
}

type jsonError struct {
	off int64
	msg string
}

func (e *jsonError) Error() string { return e.msg }

func readJNode(dec *json.Decoder, depth int) (*jnode, error) {
	if depth > maxJSONDepth {
		return nil, &jsonError{off: dec.InputOffset(), msg: fmt.Sprintf("nested deeper than %d", maxJSONDepth)}
	}
	off := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &jsonError{off: se.Offset, msg: se.Error()}
		}
		if errors.Is(err, io.EOF) {
			return nil, &jsonError{off: off, msg: "unexpected end of JSON"}
		}
		return nil, &jsonError{off: off, msg: err.Error()}
	}
	n := &jnode{off: off}
	switch t := tok.(type) {
	case nil:
		n.kind = jNull
	case bool:
		n.kind, n.b = jBool, t
	case json.Number:
		n.kind, n.num = jNumber, t
	case string:
		n.kind, n.str = jString, t
	case json.Delim:
		switch t {
		case '[':
			n.kind = jArray
			for dec.More() {
				v, err := readJNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, v)
			}
		case '{':
			n.kind = jObject
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, &jsonError{off: dec.InputOffset(), msg: err.Error()}
				}
				k, _ := kt.(string)
				v, err := readJNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k)
				n.vals = append(n.vals, v)
			}
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, &jsonError{off: dec.InputOffset(), msg: err.Error()}
		}
	}
	return n, nil
}

// lineCol converts a byte offset of data to a line and column, both from 1.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
