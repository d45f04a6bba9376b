package plot

// This file implements Gantt: which thread ran on each CPU, over time, with wake-ups,
// migrations and preemptions marked.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
)

// GanttOptions say what part of a trace a Gantt chart shows and how.
type GanttOptions struct {
	// Title is printed above the chart.
	Title string
	// End is when the run ended (sim.Result.End): the threads still running then are drawn up
	// to it. It is required.
	End int64
	// From and To bound the time shown, in nanoseconds; To = 0 means End.
	From, To int64
	// CPUs is the number of lanes; 0 means one more than the highest CPU in the trace.
	CPUs int
	// Width is the width of the plotting area in pixels; 0 means 1000.
	Width int
	// Palette colours the threads by name; nil means a fresh one.
	Palette *Palette
}

// Geometry of a Gantt chart, in pixels.
const (
	ganttLeft    = 56
	ganttRight   = 24
	ganttTop     = 40
	ganttLane    = 24
	ganttGap     = 12
	ganttAxis    = 40
	legendItem   = 140
	legendRow    = 18
	legendMax    = 40
	minSliceDraw = 1.0 // a run narrower than this many pixels is folded into its column
	markEvery    = 4   // pixels: at most one marker of a kind per this many columns of a lane
)

// laneState is what is drawn on one CPU's lane, built while the trace is read.
type laneState struct {
	cur     sched.ID // running thread, or -1
	since   int64
	slices  strings.Builder
	marks   strings.Builder
	col     int      // pixel column being folded, or -1
	edge    float64  // where the last rectangle drawn on the lane ends
	colRuns []colRun // time each thread ran in that column
	last    [3]int   // last column a marker of each kind was drawn in
	nslices int
}

type colRun struct {
	id  sched.ID
	dur int64
}

// Gantt writes to w an SVG chart of trace with one lane per CPU: a rectangle for each run of a
// thread (colour by name, from the palette), a triangle where a thread was woken, on the lane
// of the CPU it then ran on, with a line to when it ran (its wake-to-run latency), a dot where
// a thread arrived by migration and a red bar where a thread was preempted. The time axis is
// labelled in the unit that suits the window; a legend names the threads that ran in it.
//
// The trace must be a full one (sim.TraceFull). Gantt reads it once; runs shorter than a pixel
// are folded as the package documentation describes, so the output is bounded by the number
// of lanes times Width. It returns an error if the options are inconsistent (End missing, a
// window outside the run) or if w fails.
func Gantt(w io.Writer, trace *sim.Trace, o GanttOptions) error {
	if trace == nil {
		return errors.New("plot: Gantt: no trace (run with sim.TraceFull)")
	}
	if o.End <= 0 {
		return errors.New("plot: Gantt: End must be the end of the run")
	}
	if o.To == 0 || o.To > o.End {
		o.To = o.End
	}
	if o.From < 0 || o.From >= o.To {
		return fmt.Errorf("plot: Gantt: window %d..%d ns is empty or outside the run (0..%d ns)", o.From, o.To, o.End)
	}
	if o.Width <= 0 {
		o.Width = 1000
	}
	if o.Palette == nil {
		o.Palette = &Palette{}
	}
	ncpu := o.CPUs
	for _, r := range trace.Records {
		if r.CPU != sim.NoCPU && int(r.CPU) >= ncpu {
			ncpu = int(r.CPU) + 1
		}
	}
	if ncpu == 0 {
		ncpu = 1
	}
	g := &gantt{o: o, trace: trace, lanes: make([]laneState, ncpu), seen: make([]bool, len(trace.Threads)),
		pending: make([]int64, len(trace.Threads)), nsPerPx: float64(o.To-o.From) / float64(o.Width)}
	for i := range g.pending {
		g.pending[i] = -1
	}
	for i := range g.lanes {
		g.lanes[i] = laneState{cur: -1, col: -1, last: [3]int{-1, -1, -1}}
	}
	for _, r := range trace.Records {
		if r.Time > o.To {
			break
		}
		g.record(r)
	}
	for c := range g.lanes {
		if l := &g.lanes[c]; l.cur >= 0 {
			g.run(c, l.cur, l.since, o.To)
		}
		g.flush(c)
	}
	return g.write(w)
}

type gantt struct {
	o       GanttOptions
	trace   *sim.Trace
	lanes   []laneState
	seen    []bool  // threads that ran in the window, for the legend
	pending []int64 // time of a thread's wake-up not yet followed by its run, or -1
	nsPerPx float64
}

func (g *gantt) x(t int64) float64 {
	return ganttLeft + float64(t-g.o.From)/g.nsPerPx
}

func (g *gantt) laneTop(c int) float64 { return ganttTop + float64(c*(ganttLane+ganttGap)) }

func (g *gantt) name(id sched.ID) string {
	if id >= 0 && int(id) < len(g.trace.Threads) {
		return g.trace.Threads[id].Name
	}
	return fmt.Sprintf("t%d", id)
}

func (g *gantt) record(r sim.Record) {
	switch r.Kind {
	case sim.KindSwitch:
		c := int(r.CPU)
		l := &g.lanes[c]
		if l.cur >= 0 {
			g.run(c, l.cur, l.since, r.Time)
		}
		if r.Other >= 0 && sched.StopReason(r.Arg) == sched.Preempt && r.Time >= g.o.From && g.mark(c, 2, r.Time) {
			fmt.Fprintf(&l.marks, `<rect class="preempt" x="%s" y="%s" width="1.5" height="6" fill="#000"><title>%s preempted at %s</title></rect>`+"\n",
				num(g.x(r.Time)-0.75), num(g.laneTop(c)+ganttLane-6), esc(g.name(sched.ID(r.Other))), formatDuration(float64(r.Time)))
		}
		l.cur, l.since = r.Thread, r.Time
		if id := r.Thread; id >= 0 && int(id) < len(g.pending) && g.pending[id] >= 0 {
			woke := g.pending[id]
			latency := r.Time - woke
			g.pending[id] = -1
			if r.Time >= g.o.From && g.mark(c, 0, max(woke, g.o.From)) {
				if woke < g.o.From {
					woke = g.o.From
				}
				x0, x1, y := g.x(woke), g.x(r.Time), g.laneTop(c)
				line := ""
				if x1-x0 >= 2 {
					line = fmt.Sprintf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000" stroke-width="1"/>`, num(x0), num(y-2), num(x1), num(y-2))
				}
				fmt.Fprintf(&l.marks, `<g class="wake">%s<path d="M%s %sl-3.5 -6h7z" fill="#000"><title>%s woken at %s, ran %s later</title></path></g>`+"\n",
					line, num(x0), num(y), esc(g.name(id)), formatDuration(float64(r.Time-latency)), formatDuration(float64(latency)))
			}
		}
	case sim.KindWakeup:
		if id := r.Thread; id >= 0 && int(id) < len(g.pending) {
			g.pending[id] = r.Time
		}
	case sim.KindMigrate:
		if c := int(r.CPU); r.Time >= g.o.From && r.CPU != sim.NoCPU && g.mark(c, 1, r.Time) {
			fmt.Fprintf(&g.lanes[c].marks, `<circle class="migrate" cx="%s" cy="%s" r="3" fill="#fff" stroke="#000" stroke-width="1.2"><title>%s migrated to cpu%d at %s</title></circle>`+"\n",
				num(g.x(r.Time)), num(g.laneTop(c)+ganttLane/2), esc(g.name(r.Thread)), c, formatDuration(float64(r.Time)))
		}
	}
}

// mark reports whether a marker of kind k (0 wake, 1 migrate, 2 preempt) at t is to be drawn
// on lane c: unless one of that kind is already within its markEvery columns. The caller then
// writes it, one line.
func (g *gantt) mark(c, k int, t int64) bool {
	l := &g.lanes[c]
	col := int(g.x(t)) / markEvery
	if col == l.last[k] {
		return false
	}
	l.last[k] = col
	return true
}

// run draws thread id on lane c from t0 to t1, clipped to the window.
func (g *gantt) run(c int, id sched.ID, t0, t1 int64) {
	if t0 < g.o.From {
		t0 = g.o.From
	}
	if t1 > g.o.To {
		t1 = g.o.To
	}
	if t1 <= t0 {
		return
	}
	if id >= 0 && int(id) < len(g.seen) {
		g.seen[id] = true
	}
	l := &g.lanes[c]
	x0, x1 := g.x(t0), g.x(t1)
	if x1-x0 >= minSliceDraw {
		g.flushBefore(c, x0)
		name := g.name(id)
		fmt.Fprintf(&l.slices, `<rect class="slice" x="%s" y="%s" width="%s" height="%d" fill="%s">`,
			num(x0), num(g.laneTop(c)), num(x1-x0), ganttLane, g.o.Palette.Colour(name))
		if x1-x0 >= 4 {
			fmt.Fprintf(&l.slices, `<title>%s on cpu%d, %s for %s</title>`, esc(name), c, formatDuration(float64(t0)), formatDuration(float64(t1-t0)))
		}
		l.slices.WriteString("</rect>\n")
		l.nslices++
		l.edge = x1
		return
	}
	if c0, c1 := int(x0), int(math.Ceil(x1))-1; c1 > c0 {
		// A run narrower than a pixel spans at most two columns: give each its part.
		tm := g.o.From + int64((float64(c1)-ganttLeft)*g.nsPerPx)
		if tm > t0 && tm < t1 {
			g.fold(c, id, c0, tm-t0)
			g.fold(c, id, c1, t1-tm)
			return
		}
	}
	g.fold(c, id, int(x0), t1-t0)
}

// fold adds d nanoseconds of thread id to column col of lane c.
func (g *gantt) fold(c int, id sched.ID, col int, d int64) {
	l := &g.lanes[c]
	if col != l.col {
		g.flush(c)
		l.col = col
	}
	for i := range l.colRuns {
		if l.colRuns[i].id == id {
			l.colRuns[i].dur += d
			return
		}
	}
	l.colRuns = append(l.colRuns, colRun{id, d})
}

// flush draws the folded column of lane c, if any: one pixel in the colour of the thread that
// ran longest in it, more opaque the busier the column.
func (g *gantt) flush(c int) { g.flushBefore(c, math.Inf(1)) }

// flushBefore draws the folded column of lane c, if any, between the end of the rectangle
// before it and limit (the start of the one after), so that no two rectangles overlap.
func (g *gantt) flushBefore(c int, limit float64) {
	l := &g.lanes[c]
	if l.col < 0 || len(l.colRuns) == 0 {
		l.col, l.colRuns = -1, l.colRuns[:0]
		return
	}
	best, busy := l.colRuns[0], int64(0)
	for _, r := range l.colRuns {
		busy += r.dur
		if r.dur > best.dur {
			best = r
		}
	}
	x0 := math.Max(float64(l.col), l.edge)
	x1 := math.Min(float64(l.col)+1, limit)
	if x1 <= x0 {
		l.col, l.colRuns = -1, l.colRuns[:0]
		return
	}
	frac := float64(busy) / g.nsPerPx / (x1 - x0)
	if frac > 1 {
		frac = 1
	}
	fmt.Fprintf(&l.slices, `<rect class="slice folded" x="%s" y="%s" width="%s" height="%d" fill="%s" fill-opacity="%s"/>`+"\n",
		num(x0), num(g.laneTop(c)), num(x1-x0), ganttLane, g.o.Palette.Colour(g.name(best.id)), num(0.35+0.65*frac))
	l.edge = x1
	l.nslices++
	l.col, l.colRuns = -1, l.colRuns[:0]
}

func (g *gantt) write(w io.Writer) error {
	var legend []sched.ID
	for id, ok := range g.seen {
		if ok {
			legend = append(legend, sched.ID(id))
		}
	}
	more := 0
	if len(legend) > legendMax {
		more = len(legend) - legendMax
		legend = legend[:legendMax]
	}
	perRow := max(1, (g.o.Width+ganttLeft+ganttRight-ganttLeft)/legendItem)
	rows := (len(legend) + perRow - 1) / perRow
	if more > 0 {
		rows++
	}
	lanesBottom := g.laneTop(len(g.lanes)) - ganttGap
	width := ganttLeft + g.o.Width + ganttRight
	height := int(lanesBottom) + ganttAxis + rows*legendRow + 10
	s := newSVG(w, width, height, g.o.Title)
	s.printf(`<g class="gantt" data-lanes="%d" data-from="%d" data-to="%d">`+"\n", len(g.lanes), g.o.From, g.o.To)
	s.text(ganttLeft, 20, "start", g.o.Title)
	for c := range g.lanes {
		l := &g.lanes[c]
		y := g.laneTop(c)
		s.printf(`<g class="lane" data-cpu="%d" data-slices="%d">`+"\n", c, l.nslices)
		s.printf(`<rect class="idle" x="%d" y="%s" width="%d" height="%d" fill="#f0f0f0"/>`+"\n", ganttLeft, num(y), g.o.Width, ganttLane)
		s.text(ganttLeft-6, y+ganttLane/2+4, "end", fmt.Sprintf("cpu%d", c))
		s.raw(l.slices.String())
		s.raw(l.marks.String())
		s.raw("</g>\n")
	}
	// Time axis.
	span := float64(g.o.To - g.o.From)
	step := niceStep(span, 10)
	u := unitFor(step)
	s.printf(`<g class="axis"><line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#000"/>`+"\n", ganttLeft, num(lanesBottom+2), ganttLeft+g.o.Width, num(lanesBottom+2))
	for _, t := range ticks(float64(g.o.From), float64(g.o.To), step) {
		x := ganttLeft + (t-float64(g.o.From))/g.nsPerPx
		s.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000"/>`+"\n", num(x), num(lanesBottom+2), num(x), num(lanesBottom+7))
		s.text(x, lanesBottom+19, "middle", formatTime(t, step, u))
	}
	s.text(float64(ganttLeft+g.o.Width), lanesBottom+34, "end", "time ("+u.name+")")
	s.raw("</g>\n")
	// Legend.
	ly := lanesBottom + ganttAxis
	s.raw(`<g class="legend">` + "\n")
	for i, id := range legend {
		x := float64(ganttLeft + (i%perRow)*legendItem)
		y := ly + float64((i/perRow)*legendRow)
		name := g.name(id)
		s.printf(`<rect x="%s" y="%s" width="12" height="12" fill="%s"/>`+"\n", num(x), num(y), g.o.Palette.Colour(name))
		s.text(x+16, y+10, "start", name)
	}
	if more > 0 {
		s.text(ganttLeft, ly+float64(rows-1)*legendRow+10, "start", fmt.Sprintf("and %d more threads", more))
	}
	s.raw("</g>\n</g>\n")
	return s.close()
}
