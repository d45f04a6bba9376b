package sim

import (
	"io"
	"strings"
	"testing"
)

// wantPanic checks that f panics with a message starting with prefix: a misuse names the
// package, never a bare nil-pointer dereference.
func wantPanic(t *testing.T, name, prefix string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		p := recover()
		if s, ok := p.(string); !ok || !strings.HasPrefix(s, prefix) {
			t.Errorf("%s: panic %v, want one starting %q", name, p, prefix)
		}
	}()
	f()
}

// TestMisuse runs the package's misuses with nil arguments: each panics with "sim: …".
func TestMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Histogram.Merge(nil)", func() { var h Histogram; h.Merge(nil) }},
		{"WriteCSV(w, nil, nil)", func() { WriteCSV(io.Discard, nil, nil) }},
		{"WriteTable(w, nil)", func() { WriteTable(io.Discard, nil) }},
		{"WriteTableOf(w, t, r, nil)", func() { WriteTableOf(io.Discard, Table{}, &Result{}, nil) }},
	} {
		wantPanic(t, tc.name, "sim: ", tc.f)
	}
}
