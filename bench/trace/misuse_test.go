package trace

import (
	"io"
	"strings"
	"testing"
)

// TestMisuse runs the package's misuses with nil arguments: each panics with "trace: …", never
// a bare nil-pointer dereference.
func TestMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"WriteChrome(w, nil, nil)", func() { WriteChrome(io.Discard, nil, nil) }},
		{"WriteFtrace(w, nil, nil)", func() { WriteFtrace(io.Discard, nil, nil) }},
		{"WriteKTR(w, nil, nil)", func() { WriteKTR(io.Discard, nil, nil) }},
		{"ReadFtrace(nil, …)", func() { ReadFtrace(nil, "x", nil) }},
	} {
		func() {
			defer func() {
				p := recover()
				if s, ok := p.(string); !ok || !strings.HasPrefix(s, "trace: ") {
					t.Errorf("%s: panic %v, want one starting \"trace: \"", tc.name, p)
				}
			}()
			tc.f()
		}()
	}
}
