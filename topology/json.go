// This file implements the JSON form of a topology: its Spec.

package topology

import (
	"encoding/json"
	"fmt"
)

// itemJSON is the JSON shape of an Item: {"cpus": n, "capacity": c} for
// CPUs, {"level": "llc", "count": n, "items": […]} for groups.
type itemJSON struct {
	Level    *Level `json:"level,omitempty"`
	Count    int    `json:"count,omitempty"`
	Items    []Item `json:"items,omitempty"`
	CPUs     int    `json:"cpus,omitempty"`
	Capacity int    `json:"capacity,omitempty"`
}

// MarshalJSON writes a CPU item as {"cpus":n} (with "capacity" when set)
// and a group item as {"level":"llc","count":n,"items":[…]}.
func (it Item) MarshalJSON() ([]byte, error) {
	if it.CPU {
		return json.Marshal(itemJSON{CPUs: it.Count, Capacity: it.Capacity})
	}
	l := it.Level
	return json.Marshal(itemJSON{Level: &l, Count: it.Count, Items: it.Items})
}

// UnmarshalJSON reads what MarshalJSON writes. An object with both "cpus"
// and "level", or with neither, is an error.
func (it *Item) UnmarshalJSON(b []byte) error {
	var j itemJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	switch {
	case j.Level != nil && j.CPUs != 0:
		return fmt.Errorf("topology: item %s: has both \"level\" and \"cpus\"", b)
	case j.Level != nil:
		if j.Capacity != 0 {
			return fmt.Errorf("topology: item %s: a group has no \"capacity\"", b)
		}
		*it = Item{Level: *j.Level, Count: j.Count, Items: j.Items}
	case j.CPUs != 0:
		if j.Count != 0 || j.Items != nil {
			return fmt.Errorf("topology: item %s: CPUs have no \"count\" or \"items\" (the count is \"cpus\")", b)
		}
		*it = Item{CPU: true, Count: j.CPUs, Capacity: j.Capacity}
	default:
		return fmt.Errorf("topology: item %s: want \"level\" or \"cpus\"", b)
	}
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

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Spec) UnmarshalJSON(b []byte) error {
	var j specJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Spec(j)
	return nil
}

// MarshalJSON writes t.Spec() as JSON, for example
//
//	{"items":[{"level":"smt","count":2,"items":[{"cpus":2}]}]}
func (t *Topology) MarshalJSON() ([]byte, error) {
	return json.Marshal(t.Spec())
}

// UnmarshalJSON replaces t with the topology the JSON Spec describes, with
// the checks and errors of [New]. JSON syntax errors are reported by
// encoding/json with their offset.
func (t *Topology) UnmarshalJSON(b []byte) error {
	var s Spec
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	nt, err := New(s)
	if err != nil {
		return err
	}
	*t = *nt
	return nil
}
