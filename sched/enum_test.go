package sched_test

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/sched"
)

type color uint8

// TestEnumName checks EnumName against the table it reads: a named value, a gap in the table
// and values past its end, up to the type's largest.
func TestEnumName(t *testing.T) {
	names := []string{0: "red", 2: "blue"}
	for _, tc := range []struct {
		v    color
		want string
	}{
		{0, "red"}, {1, "color(1)"}, {2, "blue"}, {3, "color(3)"}, {255, "color(255)"},
	} {
		if got := sched.EnumName(names, tc.v, "color"); got != tc.want {
			t.Errorf("EnumName(%d) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := sched.EnumName(nil, color(0), "color"); got != "color(0)" {
		t.Errorf("EnumName of an empty table = %q, want color(0)", got)
	}
}

// The policies' own enumerations name themselves through EnumName: here sched's StopReason.
func ExampleEnumName() {
	fmt.Println(sched.Preempt, sched.StopReason(9))
	// Output: preempt stop(9)
}
