// This file implements the texts of the package's reasons, for their String methods (its
// enumerations name themselves from tables through sched.EnumName).

package ule

import (
	"fmt"
	"strings"
)

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
