// This file implements the JSON form of a topology: its Spec.

package topology

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// cpuItemJSON and groupItemJSON are the JSON shapes of an Item:
// {"cpus": n, "capacity": c} for CPUs, {"level": "llc", "count": n,
// "items": […]} for groups.
type cpuItemJSON struct {
	CPUs     int `json:"cpus"`
	Capacity int `json:"capacity,omitempty"`
}

type groupItemJSON struct {
	Level Level  `json:"level"`
	Count int    `json:"count"`
	Items []Item `json:"items,omitempty"`
}

// MarshalJSON writes a CPU item as {"cpus":n} (with "capacity" when set)
// and a group item as {"level":"llc","count":n,"items":[…]}.
func (it Item) MarshalJSON() ([]byte, error) {
	if it.CPU {
		return json.Marshal(cpuItemJSON{CPUs: it.Count, Capacity: it.Capacity})
	}
	return json.Marshal(groupItemJSON{Level: it.Level, Count: it.Count, Items: it.Items})
}

// UnmarshalJSON reads what MarshalJSON writes, with the checks of
// [Spec.UnmarshalJSON]. JSON null leaves it unchanged.
func (it *Item) UnmarshalJSON(b []byte) error {
	r, err := newJSONReader(b)
	if err != nil || r == nil {
		return err
	}
	v, err := r.item("item", 0)
	if err != nil {
		return err
	}
	*it = v
	return nil
}

// specJSON is the JSON shape of a Spec.
type specJSON struct {
	Items    []Item  `json:"items"`
	IDs      []CPU   `json:"ids,omitempty"`
	Distance [][]int `json:"distance,omitempty"`
	Offline  CPUSet  `json:"offline,omitzero"`
}

// MarshalJSON writes s as {"items":[…],"ids":[…],"distance":[[…]],
// "offline":"cpulist"}, leaving out empty fields.
func (s Spec) MarshalJSON() ([]byte, error) {
	return json.Marshal(specJSON(s))
}

// UnmarshalJSON reads what MarshalJSON writes. It refuses what it cannot
// read without losing something: a key it does not know (keys match
// exactly, case included), a key given twice in one object, a value of the
// wrong type or a number that is not an integer, an item with both "level"
// and "cpus" or with neither, "capacity" in a group, "count" or "items"
// with "cpus", and items nested deeper than there are levels. Its errors
// name the line and column (1-based, in bytes) of b where the problem is.
// JSON null leaves s unchanged, as does null for any of its fields.
func (s *Spec) UnmarshalJSON(b []byte) error {
	r, err := newJSONReader(b)
	if err != nil || r == nil {
		return err
	}
	v, err := r.spec()
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// MarshalJSON writes t.Spec() as JSON, for example
//
//	{"items":[{"level":"smt","count":2,"items":[{"cpus":2}]}]}
//
// It returns an error for the zero Topology, which describes no machine.
func (t *Topology) MarshalJSON() ([]byte, error) {
	if t.ncpu == 0 {
		return nil, fmt.Errorf("topology: MarshalJSON of the zero Topology, which describes no machine")
	}
	return json.Marshal(t.Spec())
}

// UnmarshalJSON sets t, which must be a fresh zero Topology, to the topology
// the JSON Spec in b describes. It refuses what [Spec.UnmarshalJSON]
// refuses, and JSON null, and then checks the Spec as [New] does. Every
// error names its line and column in b, 1-based and in bytes; an error New
// finds names the item path too, such as items[0].items[1].
//
// Called directly (var t Topology; err := t.UnmarshalJSON(data)), b is the
// whole input and syntax errors carry their line and column as well. Through
// json.Unmarshal, encoding/json checks the syntax first and reports it with
// a *json.SyntaxError whose Offset field holds the byte offset; it then
// hands over the value without the white space before it, and lines and
// columns count from the value's first byte.
//
// UnmarshalJSON replaces *t in place, so it is for initialising a Topology
// before it is shared, as json.Unmarshal does: calling it on a Topology
// other goroutines are using is a data race.
func (t *Topology) UnmarshalJSON(b []byte) error {
	r, err := newJSONReader(b)
	if err != nil {
		return err
	}
	if r == nil {
		return fmt.Errorf("topology: json: line 1, column 1: null, want an object describing the machine")
	}
	s, err := r.spec()
	if err != nil {
		return err
	}
	nt, err := newSpec(s, r.where)
	if err != nil {
		return fmt.Errorf("topology: json: %s", strings.TrimPrefix(err.Error(), "topology: "))
	}
	*t = *nt
	return nil
}

// A jsonReader reads a Spec or an Item from JSON one token at a time, so
// that it knows where each token is, and records where each item and field
// starts for the errors of [New].
type jsonReader struct {
	data []byte
	dec  *json.Decoder
	at   map[string]int // offset of each item path and field read
}

// newJSONReader checks the syntax of b and returns a reader positioned at
// its value, or nil when the value is null.
func newJSONReader(b []byte) (*jsonReader, error) {
	var raw json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		r := &jsonReader{data: b}
		off := len(b)
		if se, ok := err.(*json.SyntaxError); ok && se.Error() != "unexpected end of JSON input" && se.Offset > 0 {
			off = int(se.Offset) - 1
		}
		return nil, r.errorf(off, "%v", err)
	}
	if string(bytes.TrimSpace(b)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return &jsonReader{data: b, dec: dec, at: make(map[string]int)}, nil
}

// lineCol returns the 1-based line and byte column of offset off in data.
func lineCol(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	return line, off - (bytes.LastIndexByte(data[:off], '\n') + 1) + 1
}

func (r *jsonReader) pos(off int) string {
	line, col := lineCol(r.data, off)
	return "line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col)
}

func (r *jsonReader) errorf(off int, format string, args ...any) error {
	return fmt.Errorf("topology: json: %s: %s", r.pos(off), fmt.Sprintf(format, args...))
}

// where returns the position of a place in the Spec read, such as
// "items[0].items[1]" or "ids[3]", followed by the place itself, for the
// errors of New. A place not recorded takes the position of the nearest
// enclosing one that is; the place "" is the whole Spec.
func (r *jsonReader) where(place string) string {
	if place == "" {
		return r.pos(r.at[""])
	}
	for p := place; ; {
		if off, ok := r.at[p]; ok {
			return r.pos(off) + ": " + place
		}
		i := len(p) - 1
		for i >= 0 && p[i] != '.' && p[i] != '[' {
			i--
		}
		if i <= 0 {
			return r.pos(0) + ": " + place
		}
		p = p[:i]
	}
}

// next returns the next token and the offset where it starts. The input is
// known to be valid JSON, so Token fails only past the end of the value.
func (r *jsonReader) next() (json.Token, int) {
	off := int(r.dec.InputOffset())
	for off < len(r.data) {
		switch r.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	tok, err := r.dec.Token()
	if err != nil {
		panic("topology: internal error: json: " + err.Error())
	}
	return tok, off
}

// describe names the kind of a token for errors.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "the number " + v.String()
	case bool:
		return "a boolean"
	}
	return "null"
}

// object reads an object, calling field for each key with the key's
// offset; field reads the value. It refuses a key given twice.
func (r *jsonReader) object(what string, tok json.Token, off int, field func(key string, off int) error) error {
	if tok != json.Delim('{') {
		return r.errorf(off, "%s is %s, want an object", what, describe(tok))
	}
	seen := make(map[string]int)
	for r.dec.More() {
		k, koff := r.next()
		key := k.(string)
		if first, ok := seen[key]; ok {
			return r.errorf(koff, "%s: key %q given twice (first at %s)", what, key, r.pos(first))
		}
		seen[key] = koff
		if err := field(key, koff); err != nil {
			return err
		}
	}
	r.next() // '}'
	return nil
}

// array reads an array, calling elem for each element with its index; it
// returns false for null.
func (r *jsonReader) array(what string, elem func(i int) error) (bool, error) {
	tok, off := r.next()
	if tok == nil {
		return false, nil
	}
	if tok != json.Delim('[') {
		return false, r.errorf(off, "%s is %s, want an array", what, describe(tok))
	}
	for i := 0; r.dec.More(); i++ {
		if err := elem(i); err != nil {
			return false, err
		}
	}
	r.next() // ']'
	return true, nil
}

// integer reads a number that must be an integer.
func (r *jsonReader) integer(what string) (int, int, error) {
	tok, off := r.next()
	n, ok := tok.(json.Number)
	if !ok {
		return 0, off, r.errorf(off, "%s is %s, want an integer", what, describe(tok))
	}
	v, err := strconv.Atoi(n.String())
	if err != nil {
		return 0, off, r.errorf(off, "%s is %s, want an integer", what, describe(tok))
	}
	return v, off, nil
}

// spec reads a Spec.
func (r *jsonReader) spec() (Spec, error) {
	var s Spec
	tok, off := r.next()
	r.at[""] = off
	err := r.object("the spec", tok, off, func(key string, koff int) error {
		r.at[key] = koff
		var err error
		var ok bool
		switch key {
		case "items":
			s.Items, err = r.items("items", 0)
		case "ids":
			ok, err = r.array("ids", func(i int) error {
				at := "ids[" + strconv.Itoa(i) + "]"
				v, off, err := r.integer(at)
				if err != nil {
					return err
				}
				r.at[at] = off
				if v < 0 || v >= MaxCPUs {
					return r.errorf(off, "%s: CPU id %d out of range 0-%d", at, v, MaxCPUs-1)
				}
				s.IDs = append(s.IDs, CPU(v))
				return nil
			})
			if ok && s.IDs == nil {
				s.IDs = []CPU{} // "ids":[] is not the default numbering
			}
		case "distance":
			ok, err = r.array("distance", func(i int) error {
				row := []int{}
				ok, err := r.array("distance["+strconv.Itoa(i)+"]", func(j int) error {
					v, _, err := r.integer("distance[" + strconv.Itoa(i) + "][" + strconv.Itoa(j) + "]")
					row = append(row, v)
					return err
				})
				if !ok {
					row = nil
				}
				s.Distance = append(s.Distance, row)
				return err
			})
			if ok && s.Distance == nil {
				s.Distance = [][]int{} // "distance":[] is not the default table
			}
		case "offline":
			tok, off := r.next()
			switch v := tok.(type) {
			case nil:
			case string:
				if s.Offline, err = ParseCPUList(v); err != nil {
					return r.errorf(off, "offline: %s", strings.TrimPrefix(err.Error(), "topology: "))
				}
			default:
				return r.errorf(off, "offline is %s, want a cpulist string such as \"0-3,8\"", describe(tok))
			}
		default:
			return r.errorf(koff, "unknown key %q in the spec, want \"items\", \"ids\", \"distance\" or \"offline\"", key)
		}
		return err
	})
	return s, err
}

// items reads the items at path, nested depth groups deep.
func (r *jsonReader) items(path string, depth int) ([]Item, error) {
	var items []Item
	_, err := r.array(path, func(i int) error {
		it, err := r.item(path+"["+strconv.Itoa(i)+"]", depth)
		items = append(items, it)
		return err
	})
	return items, err
}

// item reads the item at path.
func (r *jsonReader) item(path string, depth int) (Item, error) {
	tok, off := r.next()
	r.at[path] = off
	if depth > NumLevels {
		return Item{}, r.errorf(off, "%s: items nested more than %d deep", path, NumLevels)
	}
	var it Item
	var level, cpus, count, items, capacity int = -1, -1, -1, -1, -1 // key offsets
	err := r.object(path, tok, off, func(key string, koff int) error {
		var err error
		switch key {
		case "level":
			level = koff
			tok, off := r.next()
			name, ok := tok.(string)
			if !ok {
				return r.errorf(off, "%s: level is %s, want a level name such as \"llc\"", path, describe(tok))
			}
			if it.Level, err = ParseLevel(name); err != nil {
				return r.errorf(off, "%s: %s", path, strings.TrimPrefix(err.Error(), "topology: "))
			}
		case "cpus":
			cpus = koff
			it.Count, _, err = r.integer(path + ": cpus")
		case "count":
			count = koff
			it.Count, _, err = r.integer(path + ": count")
		case "items":
			items = koff
			it.Items, err = r.items(path+".items", depth+1)
		case "capacity":
			capacity = koff
			it.Capacity, _, err = r.integer(path + ": capacity")
		default:
			return r.errorf(koff, "%s: unknown key %q in an item, want \"level\", \"count\", \"items\", \"cpus\" or \"capacity\"", path, key)
		}
		return err
	})
	switch {
	case err != nil:
		return Item{}, err
	case level >= 0 && cpus >= 0:
		return Item{}, r.errorf(max(level, cpus), "%s: has both \"level\" and \"cpus\"", path)
	case level >= 0:
		if capacity >= 0 {
			return Item{}, r.errorf(capacity, "%s: a group has no \"capacity\"", path)
		}
	case cpus >= 0:
		if count >= 0 || items >= 0 {
			return Item{}, r.errorf(max(count, items), "%s: CPUs have no \"count\" or \"items\" (the count is \"cpus\")", path)
		}
		it.CPU, it.Items = true, nil
	default:
		return Item{}, r.errorf(off, "%s: want \"level\" or \"cpus\"", path)
	}
	return it, nil
}
