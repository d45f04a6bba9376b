package cfs

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// assertPanics fails the test unless f panics with a message starting with want.
func assertPanics(t *testing.T, name string, f func(), want string) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s did not panic, want panic %q", name, want)
			return
		}
		msg, _ := r.(string)
		if err, ok := r.(error); ok {
			msg = err.Error() // a panic value formatted when read, such as listMisuse
		}
		if !strings.HasPrefix(msg, want) {
			t.Errorf("%s panicked with %q, want %q", name, r, want)
		}
	}()
	f()
}

func TestTaskListMisusePanics(t *testing.T) {
	var a, b TaskList
	tk := NewSMPTask(NewTask("t", Normal, 0), topology.CPUSetOf(0), 0)
	a.PushFront(tk)
	assertPanics(t, "PushFront of a listed task", func() { b.PushFront(tk) }, "cfs: TaskList.PushFront of t, already on a list")
	assertPanics(t, "Remove from another list", func() { b.Remove(tk) }, "cfs: TaskList.Remove of t, not on this list")
	a.Remove(tk)
	assertPanics(t, "Remove of an unlisted task", func() { a.Remove(tk) }, "cfs: TaskList.Remove of t, not on this list")
}
