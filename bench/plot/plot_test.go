package plot

import (
	"bytes"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

const mixed = `pipe work cap=4
thread hog count=3
	run forever
end
thread ticker
	every 10ms
		run 500us
	end
end
thread producer
	loop
		run exp(2ms)
		send work
	end
end
thread consumer
	loop
		recv work
		run uniform(1ms,3ms)
	end
end
`

// traced runs the mixed workload under ULE on ncpu CPUs for until, keeping the full trace.
func traced(t testing.TB, ncpu int, until time.Duration) *sim.Result {
	t.Helper()
	w, err := workload.Parse(mixed)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, ncpu, 1), Hz: 1000, StatHz: 127, Seed: 1, Trace: sim.TraceFull}
	p, err := presets.New("ule:main")
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(cfg, p, w, until)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var rectRE = regexp.MustCompile(`<rect class="slice[^"]*" x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="[0-9]+" fill="#[0-9a-f]+"(?: fill-opacity="([0-9.]+)")?`)

// busyPixels returns, per lane (by y), the busy time the slices of an SVG Gantt chart show, in
// pixels: a rectangle's width, times the fraction of it that was busy for a folded one (its
// opacity is 0.35 + 0.65 × that fraction). It also reports whether two rectangles of a lane
// overlap.
func busyPixels(svg string) (map[string]float64, bool) {
	out := map[string]float64{}
	end := map[string]float64{}
	overlap := false
	for _, m := range rectRE.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		w, _ := strconv.ParseFloat(m[3], 64)
		if x < end[m[2]]-0.011 {
			overlap = true
		}
		end[m[2]] = x + w
		frac := 1.0
		if m[4] != "" {
			op, _ := strconv.ParseFloat(m[4], 64)
			frac = (op - 0.35) / 0.65
		}
		out[m[2]] += w * frac
	}
	return out, overlap
}

// TestGanttBusyTime compares the chart with a naive model: the pixels covered on each lane must
// be the CPU's busy time in the window divided by the time per pixel, within two pixels, at
// 10 ms (every slice drawn) and over the whole run (slices folded into columns).
func TestGanttBusyTime(t *testing.T) {
	r := traced(t, 2, 2*time.Second)
	for _, win := range []struct{ from, to int64 }{{0, 10e6}, {0, r.End}, {500e6, 510e6}} {
		var b bytes.Buffer
		if err := Gantt(&b, r.Trace, GanttOptions{End: r.End, From: win.from, To: win.to, CPUs: 2, Width: 1000}); err != nil {
			t.Fatal(err)
		}
		// The naive model: each CPU's busy time in the window, from the switch records.
		busy := make([]int64, 2)
		cur, since := []int32{-1, -1}, []int64{0, 0}
		clip := func(c int, t0, t1 int64) {
			t0, t1 = max(t0, win.from), min(t1, win.to)
			if t1 > t0 {
				busy[c] += t1 - t0
			}
		}
		for _, rec := range r.Trace.Records {
			if rec.Kind != sim.KindSwitch {
				continue
			}
			c := int(rec.CPU)
			if cur[c] >= 0 {
				clip(c, since[c], rec.Time)
			}
			cur[c], since[c] = int32(rec.Thread), rec.Time
		}
		for c := range 2 {
			if cur[c] >= 0 {
				clip(c, since[c], r.End)
			}
		}
		px, overlap := busyPixels(b.String())
		if overlap {
			t.Errorf("window %d..%d ns: two slices of a lane overlap", win.from, win.to)
		}
		nsPerPx := float64(win.to-win.from) / 1000
		for c := range 2 {
			y := num(ganttTop + float64(c*(ganttLane+ganttGap)))
			want := float64(busy[c]) / nsPerPx
			// Opacities are printed with two decimals: 1/130 of a folded pixel at most.
			if got := px[y]; math.Abs(got-want) > 1+want/100 {
				t.Errorf("window %d..%d ns, cpu%d: slices show %.1f px of busy time, the trace %.1f px", win.from, win.to, c, got, want)
			}
		}
	}
}

func TestGanttBounded(t *testing.T) {
	r := traced(t, 4, 10*time.Second)
	var b bytes.Buffer
	if err := Gantt(&b, r.Trace, GanttOptions{End: r.End, Width: 1000}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	slices := strings.Count(svg, `class="slice`)
	marks := strings.Count(svg, `class="wake"`) + strings.Count(svg, `class="migrate"`) + strings.Count(svg, `class="preempt"`)
	t.Logf("%d records → %d slices, %d markers, %d bytes", len(r.Trace.Records), slices, marks, len(svg))
	if slices > 4*1000 || marks > 4*3*1000/markEvery {
		t.Errorf("%d slices and %d markers on 4 lanes of 1000 px; want at most 4000 and %d", slices, marks, 4*3*1000/markEvery)
	}
	if c := strings.Count(svg, `class="lane"`); c != 4 {
		t.Errorf("%d lanes, want 4", c)
	}
	var b2 bytes.Buffer
	if err := Gantt(&b2, r.Trace, GanttOptions{End: r.End, Width: 1000}); err != nil || b2.String() != svg {
		t.Errorf("a second Gantt of the same trace differs (%v)", err)
	}
}

func TestGanttErrors(t *testing.T) {
	r := traced(t, 2, 20*time.Millisecond)
	for _, tc := range []struct {
		name string
		tr   *sim.Trace
		o    GanttOptions
		want string
	}{
		{"no trace", nil, GanttOptions{End: r.End}, "no trace"},
		{"no end", r.Trace, GanttOptions{}, "End must be"},
		{"empty window", r.Trace, GanttOptions{End: r.End, From: 5e6, To: 5e6}, "is empty"},
		{"window after the run", r.Trace, GanttOptions{End: r.End, From: r.End + 1}, "outside the run"},
		{"negative from", r.Trace, GanttOptions{End: r.End, From: -1}, "outside the run"},
	} {
		err := Gantt(&bytes.Buffer{}, tc.tr, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "plot: ") {
			t.Errorf("%s: Gantt = %v, want an error starting with plot: and containing %q", tc.name, err, tc.want)
		}
	}
}

func TestCDF(t *testing.T) {
	series := []Series{{"a", []int64{0, 10, 10, 2000}}, {"b", nil}, {"c", []int64{5}}}
	for _, log := range []bool{false, true} {
		var b bytes.Buffer
		if err := CDF(&b, series, CDFOptions{Title: "t", Log: log}); err != nil {
			t.Fatal(err)
		}
		svg := b.String()
		if c := strings.Count(svg, `class="curve"`); c != 2 {
			t.Errorf("log %v: %d curves, want 2 (series b has no values)", log, c)
		}
		if !strings.Contains(svg, "b (no wake-ups)") {
			t.Errorf("log %v: legend does not say b has no values", log)
		}
	}
	// The step path of 4 values rises to 1/4, 3/4 (the tie), 3/4 and 1.
	xOf := func(v float64) float64 { return v }
	yOf := func(f float64) float64 { return 100 * (1 - f) }
	if got, want := stepPath([]int64{0, 10, 10, 2000}, xOf, yOf), "M0 100H0V75H10V50H10V25H2000V0"; got != want {
		t.Errorf("stepPath = %q, want %q", got, want)
	}
	// Many values are sampled at 800 ranks, ending at the maximum and the fraction 1.
	many := make([]int64, 10000)
	for i := range many {
		many[i] = int64(i)
	}
	p := stepPath(many, xOf, yOf)
	if n := strings.Count(p, "H"); n != cdfMaxPoints {
		t.Errorf("stepPath of 10000 values has %d steps, want %d", n, cdfMaxPoints)
	}
	if !strings.HasSuffix(p, "H9999V0") {
		t.Errorf("stepPath of 10000 values ends %q, want H9999V0", p[len(p)-20:])
	}
	for _, tc := range []struct {
		name   string
		series []Series
		want   string
	}{
		{"no values", []Series{{"a", nil}}, "no series has a value"},
		{"unsorted", []Series{{"a", []int64{3, 1}}}, "not sorted"},
		{"negative", []Series{{"a", []int64{-1}}}, "negative"},
	} {
		if err := CDF(&bytes.Buffer{}, tc.series, CDFOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CDF = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestShares(t *testing.T) {
	var b bytes.Buffer
	err := Shares(&b, []string{"x", "y"}, []string{"p", "q", "r"}, [][]float64{{0.5, 0.25, math.NaN()}, {1, 0, 0.75}}, SharesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(b.String(), `class="bar"`); c != 5 {
		t.Errorf("%d bars, want 5 (one share is NaN)", c)
	}
	for _, tc := range []struct {
		name   string
		shares [][]float64
		want   string
	}{
		{"rows", [][]float64{{1, 1, 1}}, "1 rows of shares for 2 threads"},
		{"columns", [][]float64{{1}, {1, 1, 1}}, `thread "x" has 1 shares for 3 policies`},
		{"negative", [][]float64{{-1, 0, 0}, {0, 0, 0}}, "share -1"},
		{"infinite", [][]float64{{math.Inf(1), 0, 0}, {0, 0, 0}}, "share +Inf"},
	} {
		err := Shares(&bytes.Buffer{}, []string{"x", "y"}, []string{"p", "q", "r"}, tc.shares, SharesOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Shares = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestQuartiles(t *testing.T) {
	for _, tc := range []struct {
		in          []float64
		q1, med, q3 float64
	}{
		{[]float64{1}, 1, 1, 1},
		{[]float64{1, 2}, 1.25, 1.5, 1.75},
		{[]float64{4, 1, 3, 2}, 1.75, 2.5, 3.25},
		{[]float64{1, 2, 3, 4, 5}, 2, 3, 4},
	} {
		q1, med, q3 := Quartiles(tc.in)
		if q1 != tc.q1 || med != tc.med || q3 != tc.q3 {
			t.Errorf("Quartiles(%v) = %g, %g, %g; want %g, %g, %g", tc.in, q1, med, q3, tc.q1, tc.med, tc.q3)
		}
	}
	if q1, _, _ := Quartiles(nil); !math.IsNaN(q1) {
		t.Errorf("Quartiles(nil) = %g, want NaN", q1)
	}
}

func TestDistribution(t *testing.T) {
	var b bytes.Buffer
	samples := []Sample{{Name: "p", Values: []float64{1e6, 2e6, 2e6, 5e6}}, {Name: "q"}, {Name: "r", Values: []float64{3e6}}}
	if err := Distribution(&b, samples, DistOptions{Unit: "ns"}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	if c := strings.Count(svg, `class="box"`); c != 2 {
		t.Errorf("%d boxes, want 2 (q has no values)", c)
	}
	if c := strings.Count(svg, `class="point"`); c != 5 {
		t.Errorf("%d points, want 5", c)
	}
	if !strings.Contains(svg, ">5ms<") {
		t.Errorf("the axis is not labelled in ms:\n%s", svg)
	}
	if err := Distribution(&bytes.Buffer{}, []Sample{{Name: "p", Values: []float64{math.NaN()}}}, DistOptions{}); err == nil {
		t.Error("Distribution with a NaN value succeeded")
	}
	if err := Distribution(&bytes.Buffer{}, []Sample{{Name: "p"}}, DistOptions{}); err == nil {
		t.Error("Distribution without values succeeded")
	}
}

func TestPalette(t *testing.T) {
	var p Palette
	a, b := p.Colour("a"), p.Colour("b")
	if a == b || p.Colour("a") != a {
		t.Errorf("Colour(a), Colour(b), Colour(a) = %s, %s, %s; want two distinct colours, a's twice", a, b, p.Colour("a"))
	}
	for i := range 18 {
		p.Colour(strconv.Itoa(i))
	}
	if p.Colour("wraps") != a {
		t.Errorf("the 21st name's colour is %s, want the first's, %s", p.Colour("wraps"), a)
	}
	if n := p.Names(); len(n) != 21 || n[0] != "a" || n[20] != "wraps" {
		t.Errorf("Names() = %q", n)
	}
}

func TestAxis(t *testing.T) {
	for _, tc := range []struct {
		span float64
		want float64
	}{{10e6, 1e6}, {2e9, 200e6}, {7, 1}, {35e3, 5e3}} {
		if got := niceStep(tc.span, 10); got != tc.want {
			t.Errorf("niceStep(%g, 10) = %g, want %g", tc.span, got, tc.want)
		}
	}
	for _, tc := range []struct {
		ns   float64
		want string
	}{{0, "0"}, {870, "870ns"}, {1570000, "1.57ms"}, {10e6, "10.0ms"}, {2e9, "2.00s"}, {123456, "123µs"}} {
		if got := formatDuration(tc.ns); got != tc.want {
			t.Errorf("formatDuration(%g) = %q, want %q", tc.ns, got, tc.want)
		}
	}
	if got := decades(3, 2000); len(got) != 5 || got[0] != 1 || got[4] != 1e4 {
		t.Errorf("decades(3, 2000) = %v, want 1 … 10000", got)
	}
	if got := num(1.005); got != "1.01" && got != "1" {
		t.Errorf("num(1.005) = %q", got)
	}
	if got := num(-2.5); got != "-2.5" {
		t.Errorf("num(-2.5) = %q, want -2.5", got)
	}
}

func TestDistributionLabels(t *testing.T) {
	var b bytes.Buffer
	if err := Distribution(&b, []Sample{{Name: "a", Values: []float64{0.1, 0.12, 0.31}}}, DistOptions{Unit: "s"}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, ">150ms<") || strings.Contains(s, "0000000") {
		t.Errorf("axis labels are not times rounded to the step:\n%s", s)
	}
	// Seconds of a longer run read as whole seconds.
	b.Reset()
	if err := Distribution(&b, []Sample{{Name: "a", Values: []float64{4.1, 7.6, 9.9}}}, DistOptions{Unit: "s"}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, ">4s<") || !strings.Contains(s, ">10s<") || strings.Contains(s, ".0s<") {
		t.Errorf("seconds are not labelled as whole seconds:\n%s", s)
	}
	for _, tc := range []struct {
		step float64
		want int
	}{{1, 0}, {5, 0}, {0.5, 1}, {0.05, 2}, {0.002, 3}, {20, 0}} {
		// Steps are 1, 2 or 5 times a power of ten (niceStep).
		if got := decimalsFor(tc.step); got != tc.want {
			t.Errorf("decimalsFor(%g) = %d, want %d", tc.step, got, tc.want)
		}
	}
}

// A row whose repetitions are all equal says so in words instead of drawing one dot; a mark
// is drawn on its row with its label, and named in the legend.
func TestDistributionEqualAndMarks(t *testing.T) {
	var b bytes.Buffer
	samples := []Sample{
		{Name: "stock", Values: []float64{1.84, 1.84, 1.84}, Marks: []Mark{{Value: 20.05, Label: "seed 000: 20.05×"}}},
		{Name: "fix", Values: []float64{1.7, 1.84, 1.9}, Marks: []Mark{{Value: 1.36, Label: "seed 000: 1.36×"}}},
	}
	if err := Distribution(&b, samples, DistOptions{Unit: "×", Log: true, MarkLegend: "the seed's figure"}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	if c := strings.Count(svg, `class="equal"`); c != 1 || !strings.Contains(svg, "all 3 runs 1.84×") {
		t.Errorf("%d rows say their runs are equal, want 1 saying \"all 3 runs 1.84×\":\n%s", c, svg)
	}
	if c := strings.Count(svg, `class="point"`); c != 3 {
		t.Errorf("%d points, want 3 (the equal row draws none)", c)
	}
	if c := strings.Count(svg, `class="mark"`); c != 2 || !strings.Contains(svg, "<title>seed 000: 20.05×</title>") || !strings.Contains(svg, "the seed&#39;s figure") {
		t.Errorf("%d marks, want 2 with their labels and the legend:\n%s", c, svg)
	}
	// The logarithmic axis reaches past 20 and below 1.36 at 1-2-5 steps.
	for _, want := range []string{">1×<", ">2×<", ">10×<", ">20×<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the log axis lacks %s:\n%s", want, svg)
		}
	}
	if err := Distribution(&bytes.Buffer{}, []Sample{{Name: "p", Values: []float64{0, 1}}}, DistOptions{Log: true}); err == nil {
		t.Error("a log axis took a value of 0")
	}
	if err := Distribution(&bytes.Buffer{}, []Sample{{Name: "p", Values: []float64{1}, Marks: []Mark{{Value: math.Inf(1)}}}}, DistOptions{}); err == nil {
		t.Error("an infinite mark was drawn")
	}
}

func TestLogTicks(t *testing.T) {
	ticks, lo, hi := logTicks(0.0678, 20.05)
	if lo != 0.05 || hi != 50 {
		t.Errorf("logTicks(0.0678, 20.05) ends %g..%g, want 0.05..50", lo, hi)
	}
	if len(ticks) != 10 || ticks[0] != 0.05 || ticks[len(ticks)-1] != 50 {
		t.Errorf("logTicks(0.0678, 20.05) = %v, want 0.05, 0.1, 0.2 … 50", ticks)
	}
	ticks, _, _ = logTicks(0.003, 3000)
	if len(ticks) != 6 || ticks[0] != 0.01 || ticks[5] != 1000 {
		t.Errorf("logTicks(0.003, 3000) = %v, want the powers of ten 0.01..1000 alone (the axis runs 0.002..5000)", ticks)
	}
	ticks, lo, hi = logTicks(1.3, 2.7)
	if lo != 1 || hi != 5 || len(ticks) != 3 {
		t.Errorf("logTicks(1.3, 2.7) = %v, %g..%g; want 1 2 5 over 1..5", ticks, lo, hi)
	}
}

func TestIsTimeUnit(t *testing.T) {
	for unit, want := range map[string]bool{"ns": true, "us": true, "µs": true, "ms": true, "s": true,
		"": false, "%": false, "×": false, "m": false, "h": false, " s": false, "jobs/s": false} {
		if got := IsTimeUnit(unit); got != want {
			t.Errorf("IsTimeUnit(%q) = %t, want %t", unit, got, want)
		}
	}
}
