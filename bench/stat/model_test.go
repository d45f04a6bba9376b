package stat

// This file implements naiveRead, the reference model of ReadDataset for the fuzz target: the
// same rules written the obvious way, on the whole input at once.

import (
	"math"
	"strings"
)

// naiveRead returns the values ReadDataset should read from text, or the 1-based line of the
// first invalid one (and whether it is a not-finite number).
func naiveRead(text string, column int, delims string) (vals []float64, badLine int, notFinite bool) {
	// fgets: cut after each newline, and every 8191 bytes of a longer line.
	var lines []string
	for len(text) > 0 {
		n := strings.IndexByte(text, '\n') + 1
		if n == 0 {
			n = len(text)
		}
		n = min(n, lineMax)
		lines = append(lines, text[:n])
		text = text[n:]
	}
	for i, line := range lines {
		if j := strings.IndexByte(line, 0); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimRight(line, " \t\n\v\f\r")
		fields := strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(delims, r) })
		if strings.ContainsFunc(delims, func(r rune) bool { return r >= 0x80 }) {
			// FieldsFunc works on runes; bytewise splitting for non-ASCII delimiters.
			fields = splitBytes(line, delims)
		}
		var tok string
		for k, f := range fields {
			if f[0] == '#' {
				break
			}
			if k+1 == column {
				tok = f
				break
			}
		}
		if tok == "" {
			continue
		}
		v, n := Strtod([]byte(tok))
		if n == 0 || n != len(tok) {
			return nil, i + 1, false
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, i + 1, true
		}
		vals = append(vals, v)
	}
	return vals, 0, false
}

func splitBytes(s, delims string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || strings.IndexByte(delims, s[i]) >= 0 {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return out
}
