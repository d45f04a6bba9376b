package plot

// This file implements the SVG writer the pictures share: numbers printed the same on every
// architecture, escaped text, and the document frame.

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strconv"
)

// svgWriter accumulates an SVG document and remembers the first write error.
type svgWriter struct {
	w   *bufio.Writer
	err error
}

func newSVG(w io.Writer, width, height int, title string) *svgWriter {
	s := &svgWriter{w: bufio.NewWriter(w)}
	s.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	s.printf("<title>%s</title>\n", esc(title))
	s.printf(`<rect class="background" width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	return s
}

func (s *svgWriter) printf(format string, args ...any) {
	if s.err != nil {
		return
	}
	_, s.err = fmt.Fprintf(s.w, format, args...)
}

func (s *svgWriter) raw(text string) {
	if s.err != nil {
		return
	}
	_, s.err = s.w.WriteString(text)
}

// text writes a label at (x, y) with the given anchor ("start", "middle", "end").
func (s *svgWriter) text(x, y float64, anchor, label string) {
	s.printf(`<text x="%s" y="%s" text-anchor="%s">%s</text>`+"\n", num(x), num(y), anchor, esc(label))
}

func (s *svgWriter) close() error {
	s.raw("</svg>\n")
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}

// num formats a coordinate with at most two decimals and no trailing zeros, so that output is
// compact and identical on every architecture.
func num(v float64) string {
	return strconv.FormatFloat(float64(int64(v*100+copysign(0.5, v)))/100, 'f', -1, 64)
}

func copysign(a, b float64) float64 {
	if b < 0 {
		return -a
	}
	return a
}

func esc(s string) string { return html.EscapeString(s) }
