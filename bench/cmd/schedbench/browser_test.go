package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/schedkit/schedkit/bench/scenario"
)

// chromium returns the path of a Chromium or Chrome binary, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageCounts is what the browser test reads from the rendered report.
type pageCounts struct {
	Gantt   [][2]int `json:"gantt"` // per chart: lanes, slices
	Curves  []int    `json:"curves"`
	Bars    int      `json:"bars"`
	Boxes   []int    `json:"boxes"`
	Marks   []int    `json:"marks"`
	Widths  []int    `json:"widths"` // rendered width of every svg
	Figures int      `json:"figures"`
	// Overflowing counts notes whose text overflows its line and pictures wider than the page.
	Overflowing int `json:"overflowing"`
}

const countScript = `(() => {
	const all = (root, sel) => Array.from(root.querySelectorAll(sel));
	return {
		gantt: all(document, 'svg .gantt').map(g => [all(g, '.lane').length, all(g, '.slice').length]),
		curves: all(document, 'svg .cdf').map(g => all(g, '.curve').length),
		bars: all(document, 'svg .shares .bar').length,
		boxes: all(document, 'svg .distribution').map(g => all(g, '.box, .equal').length),
		marks: all(document, 'svg .distribution').map(g => all(g, '.mark').length),
		overflowing: all(document, '.notes li').filter(n => n.scrollWidth > n.clientWidth + 1).length +
			all(document, 'svg').filter(s => s.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length,
		widths: all(document, 'svg').map(s => Math.round(s.getBoundingClientRect().width)),
		figures: all(document, 'figure').length,
	};
})()`

// TestReportInBrowser renders the HTML report of a run in headless Chromium: it must load
// without console errors, every picture must have the lanes, curves, bars and boxes the run
// implies, and the screenshot must not be blank. The screenshot is kept in the test's
// directory, or in $SCHEDBENCH_SCREENSHOT_DIR if set, for a person to look at.
func TestReportInBrowser(t *testing.T) {
	path := chromium()
	if path == "" {
		t.Skip("no chromium on this machine (Debian: apt-get install chromium; .ci/run installs it)")
	}
	dir := filepath.Join(t.TempDir(), "report")
	policies := []string{"ule:legacy", "cfs:v7.1", "4bsd"}
	_, errs, code := runCLI(t, "run", "-q", "-o", dir, "-reps", "3", "-policy", "ule:legacy,cfs:v7.1,4bsd", "-topology", "cpu:4", "-until", "500ms", "workloads/mixed.wl")
	if code != exitOK {
		t.Fatalf("run: status %d, stderr %q", code, errs)
	}
	want := expectedCounts(t, dir, len(policies), 4)
	// The seeds' report too, before the browser's deadline starts: with -race on a busy machine
	// these simulations alone took most of it.
	seeds := filepath.Join(t.TempDir(), "seeds")
	if _, errs, code := runCLI(t, "seeds", "-q", "-small", "-o", seeds, "000", "001"); code != exitOK {
		t.Fatalf("seeds: status %d, stderr %q", code, errs)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 1000))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, cancelA := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	var mu sync.Mutex
	var problems []string
	err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				problems = append(problems, fmt.Sprintf("console.%s", ev.Type))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				problems = append(problems, fmt.Sprintf("log %s: %s (%s)", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	})
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+filepath.Join(dir, "index.html")), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("loading the report: %v", err)
	}
	got, err := chromedp.Run(bctx, chromedp.Evaluate[pageCounts](countScript))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	mu.Lock()
	if len(problems) > 0 {
		t.Errorf("the page logged %d problems: %q", len(problems), problems)
	}
	mu.Unlock()

	if len(got.Gantt) != len(want.Gantt) {
		t.Errorf("%d Gantt charts, want %d", len(got.Gantt), len(want.Gantt))
	}
	for i, g := range got.Gantt {
		if g[0] != 4 || g[1] == 0 {
			t.Errorf("Gantt chart %d: %d lanes and %d slices, want 4 lanes with slices", i, g[0], g[1])
		}
	}
	if !slices.Equal(got.Curves, want.Curves) {
		t.Errorf("CDF curves per chart = %v, want %v", got.Curves, want.Curves)
	}
	if got.Bars != want.Bars {
		t.Errorf("%d share bars, want %d", got.Bars, want.Bars)
	}
	if !slices.Equal(got.Boxes, want.Boxes) {
		t.Errorf("boxes per distribution chart = %v, want %v", got.Boxes, want.Boxes)
	}
	for i, w := range got.Widths {
		if w < 300 {
			t.Errorf("svg %d is rendered %d px wide, want at least 300", i, w)
		}
	}
	checkNotBlank(t, shot)

	// The seeds' report: one distribution chart per scenario, a box per row.
	mu.Lock()
	problems = nil
	mu.Unlock()
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+filepath.Join(seeds, "index.html")), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("loading the seeds report: %v", err)
	}
	sc, err := chromedp.Run(bctx, chromedp.Evaluate[pageCounts](countScript))
	if err != nil {
		t.Fatalf("reading the seeds page: %v", err)
	}
	wantBoxes, wantMarks := seedsBoxes(t, "000", "001")
	if !slices.Equal(sc.Boxes, wantBoxes) {
		t.Errorf("seeds report: boxes per chart = %v, want %v (one chart per scenario, one box or equal-runs bar per row)", sc.Boxes, wantBoxes)
	}
	if !slices.Equal(sc.Marks, wantMarks) {
		t.Errorf("seeds report: seed marks per chart = %v, want %v (one per row with a seed figure)", sc.Marks, wantMarks)
	}
	if sc.Overflowing != 0 {
		t.Errorf("seeds report: %d notes overflow their lines or pictures reach beyond the page", sc.Overflowing)
	}
	seedShot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot of the seeds report: %v", err)
	}
	checkNotBlank(t, seedShot)
	mu.Lock()
	if len(problems) > 0 {
		t.Errorf("the seeds page logged %d problems: %q", len(problems), problems)
	}
	mu.Unlock()

	// The listener must see a page's errors, or the check above could not fail: a page that
	// logs one and loads a missing image must be reported.
	canary := filepath.Join(dir, "canary.html")
	if err := os.WriteFile(canary, []byte(`<!DOCTYPE html><title>canary</title><img src="missing.png"><script>console.error("canary")</script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	problems = nil
	mu.Unlock()
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+canary), chromedp.WaitReady("body"), chromedp.Sleep(200*time.Millisecond)); err != nil {
		t.Fatalf("loading the canary page: %v", err)
	}
	mu.Lock()
	if len(problems) < 2 {
		t.Errorf("the canary page's console error and missing image gave %q; the listener misses problems", problems)
	}
	mu.Unlock()
	os.Remove(canary)
	keep := filepath.Join(dir, "screenshot.png")
	if d := os.Getenv("SCHEDBENCH_SCREENSHOT_DIR"); d != "" {
		keep = filepath.Join(d, "report.png")
	}
	if err := os.WriteFile(keep, shot, 0o644); err != nil {
		t.Error(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(keep), "seeds.png"), seedShot, 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("%d figures rendered; screenshot in %s", got.Figures, keep)
}

// seedsBoxes returns, for every grid point of every scenario names picks at its small size, in
// the order seeds runs them, the number of the scenario's rows (the boxes, or bars of equal
// runs, each distribution chart must show) and the number of rows with a seed figure of their
// own to mark: a ratio to their baseline, or a value in an Absolute scenario.
func seedsBoxes(t *testing.T, names ...string) (boxes, marks []int) {
	t.Helper()
	ss, err := pickScenarios(names)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		pl, err := scenario.NewPlan(s, scenario.Options{Small: true})
		if err != nil {
			t.Fatal(err)
		}
		m := 0
		for _, r := range s.Rows {
			f := r.Published
			switch {
			case f == nil:
			case s.Absolute && r.Baseline == "":
				m++
			case r.Baseline != "" && (f.Ratio || s.Row(r.Baseline).Published != nil):
				m++
			}
		}
		for range pl.Points {
			boxes, marks = append(boxes, len(s.Rows)), append(marks, m)
		}
	}
	return boxes, marks
}

// expectedCounts derives from a run's results.json how many pictures and marks its report must
// show: 2 Gantt charts per policy; per latency group, one curve per policy with a wake-up
// latency in it; a bar per thread and policy; a box per policy in each distribution chart.
func expectedCounts(t *testing.T, dir string, npol, ncpu int) pageCounts {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := readRunsDoc(t, data)
	var groups []string
	lat := map[string]map[string]bool{} // group (declaration) → columns with latencies
	threads := map[string]bool{}
	for _, r := range d.Runs {
		for _, th := range r.Result.Threads {
			g := th.Decl
			if !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
			threads[th.Name] = true
			if th.Wakeup.Count() > 0 {
				if lat[g] == nil {
					lat[g] = map[string]bool{}
				}
				lat[g][r.Column] = true
			}
		}
	}
	var want pageCounts
	for range 2 * npol {
		want.Gantt = append(want.Gantt, [2]int{ncpu, 1})
	}
	for _, g := range groups {
		if n := len(lat[g]); n > 0 {
			want.Curves = append(want.Curves, n)
		}
	}
	want.Bars = len(threads) * npol
	for _, g := range groups {
		want.Boxes = append(want.Boxes, npol)
		if n := len(lat[g]); n > 0 {
			want.Boxes = append(want.Boxes, n)
		}
	}
	return want
}

// checkNotBlank fails if fewer than 2% of the PNG's pixels are not white (a page of text and
// pictures has 5 to 10%; a blank one none) or it has fewer colours than the pictures draw with.
func checkNotBlank(t *testing.T, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	colours := map[uint32]int{}
	nonWhite, total := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[(r>>8)<<16|(g>>8)<<8|bl>>8]++
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				nonWhite++
			}
			total++
		}
	}
	t.Logf("screenshot %dx%d: %d colours, %.1f%% not white", b.Dx(), b.Dy(), len(colours), 100*float64(nonWhite)/float64(total))
	if b.Dx() < 800 || b.Dy() < 2000 {
		t.Errorf("screenshot is %dx%d, want the whole page (at least 800x2000)", b.Dx(), b.Dy())
	}
	if len(colours) < 20 || nonWhite*50 < total {
		t.Errorf("the screenshot looks blank: %d colours, %d of %d sampled pixels not white", len(colours), nonWhite, total)
	}
}

var _ image.Image // image/png registers its decoder through image
