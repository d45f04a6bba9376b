package plot

// This file implements Shares: each thread's share of a CPU, one bar per policy.

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// SharesOptions describe a [Shares] chart.
type SharesOptions struct {
	// Title is printed above the chart.
	Title string
	// Width and Height are the plotting area's size in pixels; 0 means 40 pixels per thread
	// (at least 480) × 260.
	Width, Height int
	// Palette colours the policies by name; nil means a fresh one.
	Palette *Palette
}

const sharesLeft, sharesRight, sharesTop, sharesBottom = 56, 200, 34, 90

// Shares writes to w an SVG bar chart of the CPU share of each thread (a fraction, 1 being a
// whole CPU for the thread's lifetime) under each policy: a group of bars per thread, one bar
// (class "bar") per policy in the order given. shares[i][j] is thread i's share under policy
// j; NaN marks a thread absent from that run, which gets no bar. It returns an error if the
// dimensions disagree, a share is negative or infinite, or w fails.
func Shares(w io.Writer, threads, policies []string, shares [][]float64, o SharesOptions) error {
	if len(threads) == 0 || len(policies) == 0 {
		return errors.New("plot: Shares: no threads or no policies")
	}
	if len(shares) != len(threads) {
		return fmt.Errorf("plot: Shares: %d rows of shares for %d threads", len(shares), len(threads))
	}
	top := 1.0
	for i, row := range shares {
		if len(row) != len(policies) {
			return fmt.Errorf("plot: Shares: thread %q has %d shares for %d policies", threads[i], len(row), len(policies))
		}
		for _, v := range row {
			if v < 0 || math.IsInf(v, 0) {
				return fmt.Errorf("plot: Shares: thread %q has share %g", threads[i], v)
			}
			if v > top {
				top = math.Ceil(v*4) / 4
			}
		}
	}
	if o.Width <= 0 {
		o.Width = max(480, 40*len(threads))
	}
	if o.Height <= 0 {
		o.Height = 260
	}
	if o.Palette == nil {
		o.Palette = &Palette{}
	}
	pw, ph := float64(o.Width), float64(o.Height)
	s := newSVG(w, int(sharesLeft+pw+sharesRight), int(sharesTop+ph+sharesBottom), o.Title)
	s.printf(`<g class="shares" data-threads="%d" data-policies="%d">`+"\n", len(threads), len(policies))
	s.text(sharesLeft, 20, "start", o.Title)
	yOf := func(v float64) float64 { return sharesTop + (1-v/top)*ph }
	for _, v := range ticks(0, top, 0.25) {
		y := yOf(v)
		s.printf(`<line x1="%d" y1="%s" x2="%s" y2="%s" stroke="#ddd"/>`+"\n", sharesLeft, num(y), num(sharesLeft+pw), num(y))
		s.text(sharesLeft-6, y+4, "end", fmt.Sprintf("%g%%", v*100))
	}
	s.printf(`<text x="14" y="%s" text-anchor="middle" transform="rotate(-90 14 %s)">CPU share</text>`+"\n", num(sharesTop+ph/2), num(sharesTop+ph/2))
	group := pw / float64(len(threads))
	bar := group * 0.8 / float64(len(policies))
	for i, name := range threads {
		gx := sharesLeft + float64(i)*group + group*0.1
		for j, p := range policies {
			v := shares[i][j]
			if math.IsNaN(v) {
				continue
			}
			y := yOf(v)
			s.printf(`<rect class="bar" data-thread="%s" data-policy="%s" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s under %s: %.1f%%</title></rect>`+"\n",
				esc(name), esc(p), num(gx+float64(j)*bar), num(y), num(bar), num(sharesTop+ph-y), o.Palette.Colour(p), esc(name), esc(p), v*100)
		}
		cx, cy := gx+group*0.4, sharesTop+ph+12
		s.printf(`<text x="%s" y="%s" text-anchor="end" transform="rotate(-40 %s %s)">%s</text>`+"\n", num(cx), num(cy), num(cx), num(cy), esc(name))
	}
	s.printf(`<line x1="%d" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", sharesLeft, num(sharesTop+ph), num(sharesLeft+pw), num(sharesTop+ph))
	for j, p := range policies {
		lx, ly := sharesLeft+pw+12, float64(sharesTop+4+j*18)
		s.printf(`<rect x="%s" y="%s" width="12" height="12" fill="%s"/>`+"\n", num(lx), num(ly), o.Palette.Colour(p))
		s.text(lx+16, ly+10, "start", p)
	}
	s.raw("</g>\n")
	return s.close()
}
