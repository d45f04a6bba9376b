package stat

// This file implements ReadDataset, which reads a data file as ministat's ReadSet does: one
// value per line, in a chosen column, with comments, blank lines and invalid lines handled as
// ministat handles them.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// ReadOptions say where the value is on each line (ministat's -C and -d).
type ReadOptions struct {
	// Column is the 1-based number of the field that holds the value (-C; default 1).
	Column int
	// Delimiters are the bytes that separate fields; runs of them count as one, and leading and
	// trailing ones are ignored, as strtok does (-d; default " \t").
	Delimiters string
}

// DefaultReadOptions returns ministat's defaults: the first field, separated by spaces and tabs.
func DefaultReadOptions() ReadOptions {
	return ReadOptions{Column: 1, Delimiters: " \t"}
}

// An InputError is a line of a data file that is not a number ministat would accept, or a
// number that is not finite.
type InputError struct {
	File string // the name the data set was read under
	Line int    // the 1-based line number, counted as ministat counts lines (see ReadDataset)
	Text string // the field that failed to parse
	// NotFinite reports that the field is a number, but NaN or infinite (including a decimal
	// number too large for a float64): ministat would take it and print nonsense.
	NotFinite bool
}

// Error returns "stat: FILE:LINE: invalid data "TEXT"", or "…: "TEXT" is not a finite number".
func (e *InputError) Error() string {
	if e.NotFinite {
		return fmt.Sprintf("stat: %s:%d: %q is not a finite number", e.File, e.Line, e.Text)
	}
	return fmt.Sprintf("stat: %s:%d: invalid data %q", e.File, e.Line, e.Text)
}

// lineMax is the longest line ministat's fgets(buf, BUFSIZ, f) reads at once: BUFSIZ is 8192 in
// glibc, and fgets keeps one byte for the terminating NUL.
const lineMax = 8191

// ReadDataset reads the values of one data set from r, named name in errors, line by line as
// ministat's ReadSet does:
//
//   - white space at the end of a line is dropped (so CRLF files read as LF files);
//   - a line is split into fields at any of o.Delimiters (strtok); a field that begins with '#'
//     ends the line, so "# comment" lines, and "12.5 # comment", are comments;
//   - a line with fewer than o.Column fields, including an empty one, is skipped;
//   - the field in column o.Column must be a number in its entirety, as strtod reads it (leading
//     white space, decimal or hexadecimal, an exponent); anything else, such as "12ms" or
//     "16#", is an [*InputError] naming the file and line, as ministat's "Invalid data on line N
//     in FILE";
//   - a number that is NaN or infinite is an InputError too (ministat would accept it);
//   - only a newline ends a line, and a line longer than 8191 bytes is read as several lines,
//     as ministat's fgets into an 8192-byte buffer reads it (so the line numbers agree); a NUL
//     byte ends the text of its line.
//
// ReadDataset reads r incrementally through a 64 KiB buffer: the memory it keeps is the values,
// 8 bytes each, whatever the length of the text. An error from r is returned wrapped, with the
// name. ReadDataset returns an error if o.Column < 1 or o.Delimiters is empty.
// ReadDataset panics if r is nil.
func ReadDataset(r io.Reader, name string, o ReadOptions) (*Dataset, error) {
	if r == nil {
		panic("stat: ReadDataset of a nil reader")
	}
	if o.Column < 1 {
		return nil, fmt.Errorf("stat: column %d: columns count from 1", o.Column)
	}
	if o.Delimiters == "" {
		return nil, errors.New("stat: empty delimiter set")
	}
	var delim [256]bool
	for i := range len(o.Delimiters) {
		delim[o.Delimiters[i]] = true
	}
	d := &Dataset{}
	lr := lineReader{r: r, buf: make([]byte, 64<<10)}
	for lineNo := 1; ; lineNo++ {
		line, err := lr.next()
		if err != nil {
			return nil, fmt.Errorf("stat: reading %s: %w", name, err)
		}
		if line == nil {
			return d, nil
		}
		if i := bytes.IndexByte(line, 0); i >= 0 {
			line = line[:i]
		}
		for n := len(line); n > 0 && isCSpace(line[n-1]); n-- {
			line = line[:n-1] // white space at the end goes, a CR of a CRLF line with it
		}
		tok := field(line, &delim, o.Column)
		if tok == nil {
			continue
		}
		v, n := Strtod(tok)
		if n == 0 || n != len(tok) {
			return nil, &InputError{File: name, Line: lineNo, Text: string(tok)}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &InputError{File: name, Line: lineNo, Text: string(tok), NotFinite: true}
		}
		d.add(v)
	}
}

// field returns the column-th field of line (1-based), or nil if the line has fewer fields or a
// field starting with '#' comes first (ministat's strtok loop).
func field(line []byte, delim *[256]bool, column int) []byte {
	i := 0
	for k := 1; ; k++ {
		for i < len(line) && delim[line[i]] {
			i++
		}
		if i == len(line) || line[i] == '#' {
			return nil
		}
		j := i
		for j < len(line) && !delim[line[j]] {
			j++
		}
		if k == column {
			return line[i:j]
		}
		i = j
	}
}

// A lineReader splits its input into lines as repeated fgets calls with an 8192-byte buffer do:
// up to and including a newline, or lineMax bytes, whichever comes first.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int
	eof        bool
}

// next returns the next line, valid until the following call, or nil at the end of the input.
func (l *lineReader) next() ([]byte, error) {
	for {
		avail := l.buf[l.start:l.end]
		window := avail[:min(len(avail), lineMax)]
		if i := bytes.IndexByte(window, '\n'); i >= 0 {
			l.start += i + 1
			return window[:i+1], nil
		}
		if len(window) == lineMax || l.eof && len(window) > 0 {
			l.start += len(window)
			return window, nil
		}
		if l.eof {
			return nil, nil
		}
		// Fewer than lineMax bytes and no newline: move them to the front and read more.
		n := copy(l.buf, avail)
		l.start, l.end = 0, n
		m, err := l.r.Read(l.buf[n:])
		l.end += m
		if err == io.EOF {
			l.eof = true
		} else if err != nil {
			return nil, err
		}
	}
}
