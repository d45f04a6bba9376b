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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/schedkit/schedkit/bench/coursepage"
	"github.com/schedkit/schedkit/examples/coursepage/course"
)

// TestLessonsRun runs every lesson under every policy it offers with the same code the page's
// WebAssembly module runs: each gives slices on the machine's CPUs and decisions in time order.
func TestLessonsRun(t *testing.T) {
	for _, l := range course.Lessons() {
		for _, p := range l.Policies {
			r, err := course.Simulate(l.Workload, p, l.Topology, time.Duration(l.Millis)*time.Millisecond, 1)
			if err != nil {
				t.Fatalf("%s under %s: %v", l.Name, p, err)
			}
			if len(r.Slices) == 0 || len(r.Decisions) == 0 {
				t.Fatalf("%s under %s: %d slices, %d decisions", l.Name, p, len(r.Slices), len(r.Decisions))
			}
			for i, s := range r.Slices {
				if s.CPU < 0 || s.CPU >= r.CPUs || s.Start >= s.End || s.End > r.End || s.TID < 0 || s.TID >= len(r.Threads) {
					t.Fatalf("%s under %s: slice %d %+v out of range", l.Name, p, i, s)
				}
			}
			for i := 1; i < len(r.Decisions); i++ {
				if r.Decisions[i].Time < r.Decisions[i-1].Time {
					t.Fatalf("%s under %s: decision %d goes back in time", l.Name, p, i)
				}
			}
		}
	}
}

// TestSimulateErrors checks that bad input from the page is an error naming it, never a panic.
func TestSimulateErrors(t *testing.T) {
	l := course.Lessons()[0]
	for _, tc := range []struct {
		name, workload, policy, topo string
		d                            time.Duration
		want                         string
	}{
		{"workload", "thread x\n\tfly\nend\n", "ule:main", l.Topology, time.Second, "workload:"},
		{"policy", l.Workload, "ule:nope", l.Topology, time.Second, "nope"},
		{"topology", l.Workload, "ule:main", "cpu:zero", time.Second, "cpu:zero"},
		{"duration", l.Workload, "ule:main", l.Topology, 0, "duration"},
		{"too long", l.Workload, "ule:main", l.Topology, time.Hour, "duration"},
	} {
		if _, err := course.Simulate(tc.workload, tc.policy, tc.topo, tc.d, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Simulate = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

var (
	pageOnce sync.Once
	pageData []byte
	pageErr  error
)

// built builds the page once per test binary: compiling the module takes seconds.
func built(t *testing.T) []byte {
	t.Helper()
	pageOnce.Do(func() { pageData, pageErr = coursepage.Build(context.Background()) })
	if pageErr != nil {
		t.Fatal(pageErr)
	}
	return pageData
}

// TestPageInChromium loads the page in headless Chromium from a file, with no server: it must
// start without a console error, run a lesson, step through decisions showing the policy's
// explanation, draw one lane per CPU, and look like something (the screenshot is not blank).
func TestPageInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it):", err)
	}
	if testing.Short() {
		t.Skip("builds the WebAssembly module; skipped with -short")
	}
	path := filepath.Join(t.TempDir(), "course.html")
	if err := os.WriteFile(path, built(t), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 800))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	err = chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				problems = append(problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		}
	})
	if err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate("file://"+path),
		chromedp.WaitEnabled(chromedp.CSS("#run")),
	); err != nil {
		t.Fatalf("loading the page (the module never became ready): %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.getElementById("lesson"); s.value = "pickshort"; s.onchange(); return true })()`)); err != nil {
		t.Fatal(err)
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v", sel, err)
		}
		return s
	}
	click := func(sel string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
			t.Fatalf("clicking %s: %v", sel, err)
		}
	}
	click("#run")
	status := text("#status")
	click("#next")
	first := text("#decision")
	click("#next")
	click("#next")
	third := text("#decision")
	lanes, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#gantt .lane").length`))
	if err != nil {
		t.Fatal(err)
	}
	slices, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#gantt .slice").length`))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(problems, "\n"))
	}
	if !strings.HasSuffix(status, "done") {
		t.Errorf("status after run = %q, want a finished run", status)
	}
	if !strings.HasPrefix(first, "decision 1 of") || !strings.HasPrefix(third, "decision 3 of") {
		t.Errorf("stepping shows %q then %q, want decisions 1 and 3", first, third)
	}
	if lines := strings.Split(third, "\n"); len(lines) < 2 || strings.TrimSpace(lines[1]) == "" {
		t.Errorf("decision 3 has no explanation: %q", third)
	}
	if lanes != 2 || slices == 0 {
		t.Errorf("the Gantt chart has %d lanes and %d slices, want 2 lanes (two CPUs) and some slices", lanes, slices)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if n := colours(img); n < 8 {
		t.Errorf("the screenshot has %d distinct colours: blank", n)
	}
}

// colours counts the distinct colours of img, up to 1000.
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}] = true
			if len(seen) >= 1000 {
				return len(seen)
			}
		}
	}
	return len(seen)
}
