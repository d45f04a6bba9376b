package trace

import (
	"io"
	"strings"
	"testing"
)

// TestMergeCPUs merges per-CPU streams by time: a stable merge, lost-event markers kept in
// their stream's place, blank lines dropped, only event lines counted.
func TestMergeCPUs(t *testing.T) {
	cpu0 := "a-1 [000] 1.000001: x: y\n" +
		"a-1 [000] 1.000005: x: y\n" +
		"CPU:0 [LOST 3 EVENTS]\n" +
		"a-1 [000] 1.000009: x: y\n"
	cpu1 := "b-2 [001] 1.000001: x: y\n" +
		"\n" +
		"b-2 [001] 1.000003: x: y\n" +
		"b-2 [001] 1.000010: x: y\n"
	var out strings.Builder
	n, err := mergeCPUs(&out, []io.Reader{strings.NewReader(cpu0), strings.NewReader(cpu1), strings.NewReader("")})
	if err != nil {
		t.Fatal(err)
	}
	want := "a-1 [000] 1.000001: x: y\n" +
		"b-2 [001] 1.000001: x: y\n" +
		"b-2 [001] 1.000003: x: y\n" +
		"a-1 [000] 1.000005: x: y\n" +
		"CPU:0 [LOST 3 EVENTS]\n" +
		"a-1 [000] 1.000009: x: y\n" +
		"b-2 [001] 1.000010: x: y\n"
	if out.String() != want || n != 6 {
		t.Errorf("mergeCPUs wrote %d events:\n%s\nwant 6:\n%s", n, out.String(), want)
	}
}
