package main

// This file implements the one line a failing command prints: never more than one line, and
// never an input quoted whole, however long (a 10 MB topology spec, a policy list of a million
// commas).

import (
	"fmt"
	"regexp"
	"strings"
)

// Bounds of an error line: a quoted input longer than maxQuoted bytes keeps its first
// quotedHead bytes and an ellipsis with its length, and the whole line is cut at maxErrorLine.
const (
	maxQuoted    = 120
	quotedHead   = 60
	maxErrorLine = 2000
)

// quoted matches a Go-quoted string (strconv.Quote's form, as %q prints it).
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// errorLine returns msg as one line: line breaks become "; ", each quoted string longer than
// maxQuoted bytes is cut to its first quotedHead bytes, an ellipsis and its length (`"core:4
// core:4 …" (10485760 bytes)`), so that the position a message gives (a column, a line) stays
// readable beside it, and what is still too long is cut at maxErrorLine bytes with an ellipsis.
func errorLine(msg string) string {
	msg = strings.TrimRight(msg, "\n")
	msg = strings.ReplaceAll(strings.ReplaceAll(msg, "\r\n", "\n"), "\r", "\n")
	msg = strings.ReplaceAll(msg, "\n", "; ")
	msg = quoted.ReplaceAllStringFunc(msg, func(q string) string {
		if len(q) <= maxQuoted {
			return q
		}
		head := q[:quotedHead]
		for len(head) > 1 && (head[len(head)-1] == '\\' || !validTail(head)) {
			head = head[:len(head)-1] // no cut escape or UTF-8 sequence
		}
		return fmt.Sprintf("%s…\" (%d bytes)", head, len(q)-2)
	})
	if len(msg) > maxErrorLine {
		cut := maxErrorLine
		for cut > 0 && !validTail(msg[:cut]) {
			cut--
		}
		msg = msg[:cut] + fmt.Sprintf("… (%d bytes)", len(msg))
	}
	return msg
}

// validTail reports whether s does not end inside a UTF-8 sequence.
func validTail(s string) bool {
	for i := 1; i <= 3 && i <= len(s); i++ {
		b := s[len(s)-i]
		if b < 0x80 {
			return true
		}
		if b >= 0xC0 { // a leading byte: is its sequence complete?
			n := 2
			if b >= 0xE0 {
				n = 3
			}
			if b >= 0xF0 {
				n = 4
			}
			return i >= n
		}
	}
	return true
}
