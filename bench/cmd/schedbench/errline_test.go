package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestErrorLine(t *testing.T) {
	long := strings.Repeat("core:4 ", 1000)
	for _, tc := range []struct{ in, want string }{
		{"short", "short"},
		{"two\nlines\n", "two; lines"},
		{"a\r\nb\rc", "a; b; c"},
		{`parse "` + long + `": column 8: bad`, `parse "core:4 core:4 core:4 core:4 core:4 core:4 core:4 core:4 cor…" (7000 bytes): column 8: bad`},
		{`keeps "short" quotes`, `keeps "short" quotes`},
	} {
		if got := errorLine(tc.in); got != tc.want {
			t.Errorf("errorLine(%.40q…) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// A cut never splits a UTF-8 sequence, and the whole line is bounded.
	for _, in := range []string{`"` + strings.Repeat("é", 500) + `"`, strings.Repeat("é", 5000), strings.Repeat("x", 3000) + "\n" + strings.Repeat("y", 3000)} {
		got := errorLine(in)
		if !utf8.ValidString(got) || strings.Contains(got, "\n") || len(got) > maxErrorLine+40 {
			t.Errorf("errorLine(%.20q…) = %d bytes, valid UTF-8 %v: %.80q…", in, len(got), utf8.ValidString(got), got)
		}
	}
}
