package timeline

import (
	"strings"
	"testing"
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
		if !strings.HasPrefix(msg, want) {
			t.Errorf("%s panicked with %q, want %q", name, r, want)
		}
	}()
	f()
}
