// This file implements the names of the package's enumerations and the texts of its reasons,
// for their String methods.

package ule

import (
	"fmt"
	"strings"
)

// name returns names[v], or "typ(v)" for a value that has no name.
func name[T ~uint8](names []string, v T, typ string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

// explain returns the text of a reason whose rule is rule: formats[rule] with args, which the
// format's verbs name by index ("%[2]d"), or "typ(?)" for a rule that has no format. Nothing is
// formatted before a reason's String is called.
func explain[R ~uint8](formats []string, rule R, typ string, args ...any) string {
	if int(rule) >= len(formats) || formats[rule] == "" {
		return typ + "(?)"
	}
	if f := formats[rule]; strings.Contains(f, "%") {
		return fmt.Sprintf(f, args...)
	}
	return formats[rule]
}
