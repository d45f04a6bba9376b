// This file implements the one syntax of parameter values on a command line, which
// `schedbench sweep`, `schedbench merge` and bench/scenario/sweep share: -set NAME=VALUE and
// -grid NAME=V1,V2,…, each repeatable.

package scenario

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ParseSet reads one -set item, NAME=VALUE.
func ParseSet(s string) (name string, value float64, err error) {
	name, val, ok := strings.Cut(s, "=")
	if !ok || name == "" || val == "" {
		return "", 0, fmt.Errorf("want NAME=VALUE, got %q", s)
	}
	x, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return "", 0, fmt.Errorf("%s=%s: %q is not a number", name, val, val)
	}
	return name, x, nil
}

// ParseGrid reads one -grid item, NAME=V1,V2,…: the values in the order given. A value listed
// twice is an error (it would run the same grid point twice).
func ParseGrid(s string) (name string, values []float64, err error) {
	name, list, ok := strings.Cut(s, "=")
	if !ok || name == "" || list == "" {
		return "", nil, fmt.Errorf("want NAME=V1,V2,…, got %q", s)
	}
	seen := map[float64]bool{}
	for i, f := range strings.Split(list, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %q is not a number", name, f)
		}
		if seen[x] {
			return "", nil, fmt.Errorf("%s: value %d, %s, is listed twice", name, i+1, strings.TrimSpace(f))
		}
		seen[x] = true
		values = append(values, x)
	}
	return name, values, nil
}

// SetFlag is a repeatable -set NAME=VALUE, as a flag.Value.
type SetFlag Values

// String returns the values as -set would take them, NAME=VALUE,… in name order.
func (v SetFlag) String() string { return joinSorted(v, formatValue, ",") }

// Set adds one NAME=VALUE; a name given twice is an error.
func (v SetFlag) Set(s string) error { return addOnce(v, s, ParseSet, "set") }

// GridFlag is a repeatable -grid NAME=V1,V2,…, as a flag.Value: the grid is every
// combination of the parameters' values.
type GridFlag map[string][]float64

// String returns the grid as -grid would take it, NAME=V1,V2 … in name order.
func (g GridFlag) String() string {
	return joinSorted(g, func(xs []float64) string {
		var vs []string
		for _, x := range xs {
			vs = append(vs, formatValue(x))
		}
		return strings.Join(vs, ",")
	}, " ")
}

// Set adds one NAME=V1,V2,…; a name swept twice is an error.
func (g GridFlag) Set(s string) error { return addOnce(g, s, ParseGrid, "swept") }

// formatValue formats a parameter value as -set and -grid take it.
func formatValue(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// joinSorted returns the items of m as NAME=VALUE, the value formatted by format, in name
// order and separated by sep: the String of SetFlag and GridFlag.
func joinSorted[V any](m map[string]V, format func(V) string, sep string) string {
	var parts []string
	for k, x := range m {
		parts = append(parts, k+"="+format(x))
	}
	sort.Strings(parts)
	return strings.Join(parts, sep)
}

// addOnce reads item s with parse and adds it to m under its name; a name already in m is an
// error, "NAME is VERB twice": the Set of SetFlag and GridFlag.
func addOnce[V any](m map[string]V, s string, parse func(string) (string, V, error), verb string) error {
	name, x, err := parse(s)
	if err != nil {
		return err
	}
	if _, dup := m[name]; dup {
		return fmt.Errorf("%s is %s twice", name, verb)
	}
	m[name] = x
	return nil
}
