package stat

// This file implements ministat's ASCII distribution plot (struct plot, SetupPlot, AdjPlot,
// DimPlot, PlotSet and DumpPlot in ministat.c), with its arithmetic and its quirks.

import (
	"bytes"
	"fmt"
	"math"
)

// A plot is ministat's struct plot: a width×height grid of symbol bits (row 0 unused, row j
// holds the j-th value that falls in a column) and one bar line per data set (or one shared).
type plot struct {
	min, max, span float64
	width          int
	x0, dx         float64
	height         int
	data           []byte   // row-major, width bytes per row
	bars           [][]byte // nil until a data set draws on it
	separate       bool
}

// adj widens the plot's range to include a (AdjPlot).
func (p *plot) adj(a float64) {
	if a < p.min {
		p.min = a
	}
	if a > p.max {
		p.max = a
	}
	p.span = p.max - p.min
	p.dx = p.span / (float64(p.width) - 1.0)
	p.x0 = p.min - float64(.5*p.dx) // no fused multiply-add (arm64): ministat rounds the product
}

// col returns the column of value v: C's int conversion of (v - x0)/dx, which truncates toward
// zero.
func (p *plot) col(v float64) int {
	c := (v - p.x0) / p.dx
	if math.IsNaN(c) || c >= math.MaxInt32 || c <= math.MinInt32 {
		return -1 // undefined behaviour in C; never reached for width ≥ 2 and finite values
	}
	return int(c)
}

// set ORs val into the grid at row j, column x, as ministat's flat array does: a column past
// the end of a row would land in the next row (never reached for width ≥ 2); an index outside
// the array is dropped where C would write outside it.
func (p *plot) set(j, x int, val byte) {
	if i := j*p.width + x; x >= 0 && i < len(p.data) {
		p.data[i] |= val
	}
}

// mark writes c at column x of bar line bar, if x is on it.
func (p *plot) mark(bar, x int, c byte) {
	if x >= 0 && x < p.width {
		p.bars[bar][x] = c
	}
}

// add draws data set val (1-based) with sorted values vs and summary s (PlotSet).
func (p *plot) add(vs []float64, s Summary, val int) {
	if p.span == 0 {
		return
	}
	bar := 0
	if p.separate {
		bar = val - 1
	}
	if p.bars[bar] == nil {
		p.bars[bar] = make([]byte, p.width)
	}
	// The tallest stack of values in one column gives the height this data set needs.
	m, i, j := 1, -1, 0
	for _, v := range vs {
		if x := p.col(v); x == i {
			j++
			m = max(m, j)
		} else {
			j, i = 1, x
		}
	}
	m++
	if m > p.height {
		if need := p.width * m; cap(p.data) < need {
			p.data = append(p.data[:cap(p.data)], make([]byte, need-cap(p.data))...)
		}
		p.data = p.data[:p.width*m]
		clear(p.data[p.height*p.width:])
	} else {
		// ministat's realloc shrinks the grid to m rows too: what earlier data sets drew in
		// higher rows is not printed (and would be cleared if the grid grew again).
		p.data = p.data[:p.width*m]
	}
	p.height = m
	i = -1
	for _, v := range vs {
		x := p.col(v)
		if x == i {
			j++
		} else {
			j, i = 1, x
		}
		p.set(j, x, byte(val))
	}
	if !math.IsNaN(s.Stddev) {
		x := p.col(s.Mean - s.Stddev)
		m := p.col(s.Mean + s.Stddev)
		p.mark(bar, m, '|')
		p.mark(bar, x, '|')
		for i := x + 1; i < m; i++ {
			if i >= 0 && i < p.width && p.bars[bar][i] == 0 {
				p.bars[bar][i] = '_'
			}
		}
	}
	p.mark(bar, p.col(s.Median), 'M')
	p.mark(bar, p.col(s.Mean), 'A')
}

// dump writes the plot (DumpPlot).
func (p *plot) dump(b *bytes.Buffer) {
	if p.span == 0 {
		b.WriteString("[no plot, span is zero width]\n")
		return
	}
	frame := func() {
		b.WriteByte('+')
		for range p.width {
			b.WriteByte('-')
		}
		b.WriteString("+\n")
	}
	frame()
	for i := 1; i < p.height; i++ {
		b.WriteByte('|')
		row := p.data[(p.height-i)*p.width:][:p.width]
		for _, k := range row {
			if int(k) < len(symbols) {
				b.WriteByte(symbols[k])
			} else {
				fmt.Fprintf(b, "[%02x]", k)
			}
		}
		b.WriteString("|\n")
	}
	for _, bar := range p.bars {
		if bar == nil {
			continue
		}
		b.WriteByte('|')
		for _, k := range bar {
			if k == 0 {
				k = ' '
			}
			b.WriteByte(k)
		}
		b.WriteString("|\n")
	}
	frame()
}

// writePlot draws samples as ministat's plot of the given width.
func writePlot(b *bytes.Buffer, samples []Sample, sums []Summary, width int, separate bool) {
	p := &plot{width: width, separate: separate, min: 999e99, max: -999e99, bars: make([][]byte, len(samples))}
	for _, s := range sums {
		p.adj(s.Min)
		p.adj(s.Max)
		p.adj(s.Mean - s.Stddev)
		p.adj(s.Mean + s.Stddev)
	}
	for i, s := range samples {
		p.add(s.Data.Values(), sums[i], i+1)
	}
	p.dump(b)
}
