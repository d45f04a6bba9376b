package stat

// This file implements the fixed-width layout of benchstat's text tables: cells placed at a
// row and a column, spanning columns, each with a left margin and an alignment, and column
// widths that grow to fit, except "shrink" columns, which stay as narrow as their widest
// single-column cell. The rules are those of golang.org/x/perf's cmd/benchstat (its
// internal/texttab package), so that the tables line up character for character.

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// textAlign is how a cell's value sits in its width.
type textAlign int

const (
	alignLeft textAlign = iota
	alignCenter
	alignRight
)

// A textCell is one cell of a textGrid.
type textCell struct {
	row, col, span int
	value, margin  string
	align          textAlign
}

// A textGrid lays out a table of cells in a fixed-width font. Cells are added row by row, left
// to right, at the current column; a column's left margin is the widest margin of its cells.
type textGrid struct {
	cells          []textCell
	cols           int
	shrink         []bool
	curRow, curCol int
}

// row starts a new row.
func (g *textGrid) row() {
	if len(g.cells) > 0 {
		g.curRow++
	}
	g.curCol = 0
}

// col moves to column c of the current row, which must not be left of the current column.
func (g *textGrid) col(c int) {
	if c < g.curCol {
		panic(fmt.Sprintf("stat: textGrid: from column %d back to %d", g.curCol, c))
	}
	g.curCol = c
}

// span adds a cell covering n columns at the current position, with a left margin of one
// space (none in column 0 or for an empty value) unless margin is not nil.
func (g *textGrid) span(n int, value string, align textAlign, margin *string) {
	m := " "
	if g.curCol == 0 || value == "" {
		m = ""
	}
	if margin != nil {
		m = *margin
	}
	g.cells = append(g.cells, textCell{g.curRow, g.curCol, n, value, m, align})
	g.curCol += n
	g.cols = max(g.cols, g.curCol)
}

// cell adds a one-column cell.
func (g *textGrid) cell(value string, align textAlign, margin *string) {
	g.span(1, value, align, margin)
}

// setShrink makes column c a shrink column: spanning cells never widen it.
func (g *textGrid) setShrink(c int) {
	for len(g.shrink) <= c {
		g.shrink = append(g.shrink, false)
	}
	g.shrink[c] = true
}

func (g *textGrid) isShrink(c int) bool { return c < len(g.shrink) && g.shrink[c] }

// margin returns a pointer to m, for the margin argument of span and cell.
func margin(m string) *string { return &m }

// write lays the grid out and writes it: column widths from the one-column cells, then
// widened by spanning cells from the narrowest span up, a spanning cell's missing width
// spread over its non-shrink columns, widest first, each taking its share rounded up; empty
// cells without a visible margin are not printed, so rows carry no trailing blanks.
func (g *textGrid) write(w io.Writer) error {
	lmargin := make([]int, g.cols)
	for _, c := range g.cells {
		lmargin[c.col] = max(lmargin[c.col], utf8.RuneCountInString(c.margin))
	}
	ws := make([]int, g.cols)
	sort.Slice(g.cells, func(i, j int) bool { return g.cells[i].span < g.cells[j].span })
	var spanCols []int
	for _, c := range g.cells {
		need := utf8.RuneCountInString(c.value) + lmargin[c.col]
		if c.span == 1 {
			ws[c.col] = max(ws[c.col], need)
			continue
		}
		have := 0
		for i := c.col; i < c.col+c.span; i++ {
			have += ws[i]
		}
		if have >= need {
			continue
		}
		spanCols = spanCols[:0]
		for i := c.col; i < c.col+c.span; i++ {
			if g.isShrink(i) {
				need -= ws[i]
			} else {
				spanCols = append(spanCols, i)
			}
		}
		sort.Slice(spanCols, func(i, j int) bool { return ws[spanCols[i]] > ws[spanCols[j]] })
		left := len(spanCols)
		for _, i := range spanCols {
			ws[i] = max(ws[i], (need+left-1)/left)
			need -= ws[i]
			left--
		}
	}
	offs := make([]int, g.cols+1)
	for i, wd := range ws {
		offs[i+1] = offs[i] + wd
	}
	sort.Slice(g.cells, func(i, j int) bool {
		if g.cells[i].row != g.cells[j].row {
			return g.cells[i].row < g.cells[j].row
		}
		return g.cells[i].col < g.cells[j].col
	})
	var b strings.Builder
	row, off := 0, 0
	for _, c := range g.cells {
		if strings.TrimSpace(c.value) == "" && strings.TrimSpace(c.margin) == "" {
			continue
		}
		for ; c.row > row; row++ {
			b.WriteByte('\n')
			off = 0
		}
		fmt.Fprintf(&b, "%*s%*s", offs[c.col]-off, "", lmargin[c.col], c.margin)
		off = offs[c.col] + lmargin[c.col]
		width := offs[c.col+c.span] - offs[c.col] - lmargin[c.col]
		var s string
		switch c.align {
		case alignCenter:
			// A negative pad (a value wider than its columns) pads on the other side, as
			// fmt's negative width does in benchstat's layout.
			s = fmt.Sprintf("%*s%s", (width-utf8.RuneCountInString(c.value))/2, "", c.value)
		case alignRight:
			s = fmt.Sprintf("%*s", width, c.value)
		default:
			s = c.value
		}
		b.WriteString(s)
		off += utf8.RuneCountInString(s)
	}
	if len(g.cells) > 0 {
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
