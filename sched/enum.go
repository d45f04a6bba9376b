package sched

// This file implements EnumName, the String method every enumeration of the policies shares:
// the value's name from a table, or the type and the number for a value the table does not name.

import "strconv"

// EnumName returns names[v], the name of the enumeration value v, or typ(v) (such as
// "WakeRule(9)") when names gives v no name: past its end, or an empty string. It is the
// String method of an enumeration whose names are a table indexed by its values:
//
//	var ruleNames = [...]string{FIFO: "fifo", SJF: "sjf", RR: "rr"}
//
//	// String returns "fifo", "sjf" or "rr".
//	func (r Rule) String() string { return sched.EnumName(ruleNames[:], r, "Rule") }
func EnumName[E ~uint8](names []string, v E, typ string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}
