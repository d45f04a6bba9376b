package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/schedkit/schedkit/bench/coursepage"
	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bench/top"
	"github.com/schedkit/schedkit/examples/coursepage/course"
	"github.com/schedkit/schedkit/examples/quiz/questions"
	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// TestLessonsRun runs every lesson under every policy it offers with the same code the page's
// WebAssembly module runs: each gives slices on the machine's CPUs and decisions in time order.
func TestLessonsRun(t *testing.T) {
	for _, l := range course.Lessons() {
		if l.Kind != "" {
			continue // the run-queue tour simulates nothing; TestRunqTour checks it
		}
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
	l := course.Lessons()[2]
	if l.Kind != "" {
		t.Fatalf("lesson %s is not a simulated one", l.Name)
	}
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
func built(t testing.TB) []byte {
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
	ctx, problems := openPage(t, bin)
	// The page offers every lesson of the catalogue, in course order (schedbench serve serves
	// this same page, coursepage.Build's).
	offered, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#lesson option")).map(o => o.value)`))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range course.Lessons() {
		want = append(want, l.Name)
	}
	if !slices.Equal(offered, want) || len(want) < 13 {
		t.Errorf("the page offers lessons %q, want the catalogue's %q", offered, want)
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
	if p := problems(); len(p) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
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

// openPage writes the built page to a file, opens it in headless Chromium (bin) and waits for
// the module to be ready. problems returns what the page logged as errors, warnings or
// exceptions so far.
func openPage(t testing.TB, bin string) (ctx context.Context, problems func() []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "course.html")
	if err := os.WriteFile(path, built(t), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 800))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel = chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancel)

	var mu sync.Mutex
	var logged []string
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				logged = append(logged, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			msg := ev.ExceptionDetails.Text
			if ex := ev.ExceptionDetails.Exception; ex != nil {
				msg += " " + ex.Description
			}
			logged = append(logged, "exception: "+msg)
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
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), logged...)
	}
}

// TestLessonTexts checks that every lesson has its page text: what to look for, the kernel
// source, and two or three questions.
func TestLessonTexts(t *testing.T) {
	for _, l := range course.Lessons() {
		if len(l.Look) < 80 || len(l.Source) < 20 || len(l.Questions) < 2 || len(l.Questions) > 3 {
			t.Errorf("lesson %s: look %q, source %q, %d questions", l.Name, l.Look, l.Source, len(l.Questions))
		}
	}
}

// TestRunqTour checks the tour's steps against what they claim: a search's visits are the
// non-empty queues of its range in order, up to where it stopped, and the first step is empty.
func TestRunqTour(t *testing.T) {
	steps := course.RunqTour()
	if len(steps) < 8 || steps[0].State.Len != 0 || len(steps[0].State.Queues) != 0 {
		t.Fatalf("the tour has %d steps, the first %+v; want an empty run queue first", len(steps), steps[0].State)
	}
	searches := 0
	for n, st := range steps {
		sum := 0
		for _, q := range st.State.Queues {
			sum += len(q.Elems)
		}
		if sum != st.State.Len {
			t.Errorf("step %d: queues hold %d threads, Len %d", n+1, sum, st.State.Len)
		}
		if st.Search == nil {
			continue
		}
		searches++
		var want []runq.Index
		for _, q := range st.State.Queues {
			if st.Search.Range.Contains(q.Index) {
				want = append(want, q.Index)
			}
		}
		var got []runq.Index
		for k, v := range st.Search.Visits {
			got = append(got, v.Index)
			if v.Stop != (k == len(st.Search.Visits)-1 && st.Search.OK) {
				t.Errorf("step %d: visit %d stop=%t", n+1, k, v.Stop)
			}
		}
		if !st.Search.OK && fmt.Sprint(got) != fmt.Sprint(want) || st.Search.OK && (len(got) == 0 || fmt.Sprint(got) != fmt.Sprint(want[:len(got)]) || got[len(got)-1] != st.Search.Found) {
			t.Errorf("step %d: search of %v visited %v, non-empty queues in range %v, found %d %t", n+1, st.Search.Range, got, want, st.Search.Found, st.Search.OK)
		}
	}
	if searches < 3 {
		t.Errorf("the tour has %d searches, want at least 3", searches)
	}
}

// TestRunqTourInChromium steps through the run-queue tour in headless Chromium and checks that
// the drawing matches the library's snapshot at every step: one filled cell per non-empty
// queue, at its index; each queue's thread names under it in order; the searched queues
// outlined and the found one marked; no console error; and two steps' screenshots differ.
func TestRunqTourInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it):", err)
	}
	if testing.Short() {
		t.Skip("builds the WebAssembly module; skipped with -short")
	}
	ctx, problems := openPage(t, bin)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.getElementById("lesson"); s.value = "runqtour"; s.onchange(); document.getElementById("run").click(); return true })()`)); err != nil {
		t.Fatal(err)
	}
	steps := course.RunqTour()
	const drawn = `(() => {
		const q = s => Array.from(document.querySelectorAll("#state " + s));
		const elems = {};
		for (const e of q(".elem")) (elems[e.dataset.q] = elems[e.dataset.q] || []).push(e.textContent);
		return JSON.stringify({
			set: q(".bit.set").map(r => +r.id.slice(3)),
			visited: q(".bit.visited").map(r => +r.id.slice(3)),
			found: q(".bit.found").map(r => +r.id.slice(3)),
			elems: elems,
			text: document.getElementById("decision").textContent,
		});
	})()`
	var shots [][]byte
	for n, st := range steps {
		if n > 0 {
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#next"))); err != nil {
				t.Fatal(err)
			}
		}
		js, err := chromedp.Run(ctx, chromedp.Evaluate[string](drawn))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Set, Visited, Found []int
			Elems               map[string][]string
			Text                string
		}
		if err := json.Unmarshal([]byte(js), &got); err != nil {
			t.Fatal(err)
		}
		var set []int
		elems := map[string][]string{}
		for _, q := range st.State.Queues {
			set = append(set, int(q.Index))
			elems[fmt.Sprint(q.Index)] = q.Elems
		}
		var visited, found []int
		if st.Search != nil {
			for _, v := range st.Search.Visits {
				visited = append(visited, int(v.Index))
			}
			if st.Search.OK {
				found = []int{int(st.Search.Found)}
			}
		}
		slices.Sort(visited)
		if fmt.Sprint(got.Set) != fmt.Sprint(set) || fmt.Sprint(got.Elems) != fmt.Sprint(elems) ||
			fmt.Sprint(got.Visited) != fmt.Sprint(visited) || fmt.Sprint(got.Found) != fmt.Sprint(found) {
			t.Errorf("step %d drawn as set %v elems %v visited %v found %v; the snapshot has set %v elems %v visited %v found %v",
				n+1, got.Set, got.Elems, got.Visited, got.Found, set, elems, visited, found)
		}
		if !strings.Contains(got.Text, st.Title) || !strings.HasPrefix(got.Text, fmt.Sprintf("step %d of %d", n+1, len(steps))) {
			t.Errorf("step %d shows %q, want its title %q", n+1, got.Text, st.Title)
		}
		if n == 1 || n == 2 {
			// Wait out the CSS transition so the picture is the step's, not a blend.
			if err := chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			shots = append(shots, shot)
		}
	}
	lt, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("lessontext").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if l := course.Lessons()[1]; l.Name != "runqtour" || !strings.Contains(lt, l.Source) || !strings.Contains(lt, l.Questions[0]) {
		t.Errorf("the lesson text shown is %q, want the runq tour's", lt)
	}
	if p := problems(); len(p) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
	}
	for i, shot := range shots {
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		if n := colours(img); n < 8 {
			t.Errorf("screenshot %d has %d distinct colours: blank", i, n)
		}
	}
	if len(shots) != 2 || bytes.Equal(shots[0], shots[1]) {
		t.Errorf("steps 2 and 3 look the same")
	}
}

// BenchmarkRunqTourStep measures one step of the run-queue tour in headless Chromium: the
// page's step function, which recolours the 256 cells and redraws the labels, plus the
// layout and style work the browser does before the next frame (forced by reading the SVG's
// bounding box). It reports ms/step; the page is built once, outside the timing.
func BenchmarkRunqTourStep(b *testing.B) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		b.Skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it):", err)
	}
	ctx, problems := openPage(b, bin)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.getElementById("lesson"); s.value = "runqtour"; s.onchange(); document.getElementById("run").click(); return true })()`)); err != nil {
		b.Fatal(err)
	}
	timeSteps(b, ctx, 9, "state")
	if p := problems(); len(p) > 0 {
		b.Fatalf("the page logged problems:\n%s", strings.Join(p, "\n"))
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

// TestPolicyStateInChromium runs every simulated lesson in headless Chromium (under its first
// policy, and ULE, 4BSD, CFS and EEVDF on chosen ones) and steps through decisions: at each,
// the drawn state must be the snapshot course.Simulate takes after the same decision (ULE: the
// calendar's slots, filled ones and insert/remove indexes, the threads of each slot and the
// searches of the topology; 4BSD: the global queue's set bits and its queues' threads; CFS and
// EEVDF: each CPU's entities in order, the eligible ones, V and the comparisons; the toy
// policies: no state view), top's panel the last screen before the decision, with no console
// error, and two steps' screenshots not blank and different.
func TestPolicyStateInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it):", err)
	}
	if testing.Short() {
		t.Skip("builds the WebAssembly module; skipped with -short")
	}
	ctx, problems := openPage(t, bin)
	const drawn = `(() => {
		const q = s => Array.from(document.querySelectorAll("#pstate " + s));
		// Elements are kept across steps, so document order is not drawing order: entities sort by CPU and row.
		const byRow = es => es.sort((a, b) => a.dataset.cpu - b.dataset.cpu || a.dataset.pos - b.dataset.pos).map(e => e.dataset.name);
		const cpus = {};
		const cpu = c => (cpus[c] = cpus[c] || {slots: 0, set: [], labels: [], insert: -1, remove: -1});
		for (const e of q(".slot")) { const c = cpu(e.dataset.cpu); c.slots++; if (e.classList.contains("set")) c.set.push(+e.dataset.slot); }
		for (const e of q(".tslabel").sort((a, b) => a.dataset.slot - b.dataset.slot)) cpu(e.dataset.cpu).labels.push(e.textContent);
		for (const e of q(".insert")) cpu(e.dataset.cpu).insert = +e.dataset.slot;
		for (const e of q(".remove")) cpu(e.dataset.cpu).remove = +e.dataset.slot;
		return JSON.stringify({
			decision: steps[cur], cpus: cpus,
			globalSet: q('.bit.set[data-key^="global-"]').map(e => +e.dataset.q),
			qlabels: q('.qlabel[data-key^="global-"]').sort((a, b) => a.dataset.q - b.dataset.q).map(e => e.textContent),
			ents: byRow(q(".ent")), eligible: byRow(q(".ent.eligible")),
			vlines: q(".vline").length, thr: q(".thr").length,
			top: document.getElementById("top").textContent,
			hidden: document.getElementById("pstate").style.display === "none",
			comparisons: q(".placement, .balance").map(e => e.dataset.key).sort().map(k => {
				const i = k.slice(3, -2), el = document.querySelector('#pstate [data-key="' + k + '"]');
				const kids = sel => q(sel).filter(e => e.dataset.key.startsWith("cmp" + i + "-")).sort((a, b) => +a.dataset.key.replace(/\D+/g, "") - +b.dataset.key.replace(/\D+/g, ""));
				if (el.classList.contains("placement"))
					return "p:" + kids(".pcpu").map(e => e.dataset.cpu + (e.classList.contains("idle") ? "i" : "") + (e.classList.contains("chosen") ? "c" : "")).join(",");
				return "b:" + kids(".group").map(e => e.dataset.cpus + (e.classList.contains("local") ? "l" : "") + (e.classList.contains("busiest") ? "b" : "")).join(" ");
			}),
			searches: q(".search").map(e => e.dataset.key).sort().map(k => {
				const i = k.slice(4, -2), n = e => +e.dataset.key.slice(("srch" + i + "-cpu").length);
				return document.querySelector('#pstate [data-key="' + k + '"]').dataset.found + ":" +
					q('.scpu[data-key^="srch' + i + '-cpu"]').sort((a, b) => n(a) - n(b)).map(e => e.dataset.cpu + (e.classList.contains("qualified") ? "q" : "") + (e.classList.contains("found") ? "f" : "")).join(",");
			}),
		});
	})()`
	type ulecpu struct {
		Slots          int
		Set            []int
		Labels         []string
		Insert, Remove int
	}
	var got struct {
		Decision  int
		CPUs      map[string]ulecpu
		GlobalSet []int
		QLabels   []string
		Ents      []string
		Eligible  []string
		VLines    int
		Thr       int
		Searches  []string
		Compared  []string `json:"comparisons"`
		Top       string
		Hidden    bool
	}
	comparedSteps := 0 // the steps whose drawn CFS state has comparisons
	searched := 0      // the steps whose drawn state has searches of the topology
	var shots [][]byte
	// The chosen cases, then every other simulated lesson under its first policy.
	cases := []struct{ lesson, policy string }{{"calendar", "ule:main"}, {"balance", "ule:main"}, {"migration", "bsd4:main"}, {"vruntime", "cfs:v7.1"}, {"balance", "cfs:v6.5"}}
	for _, l := range course.Lessons() {
		if l.Kind != "runq" && !slices.ContainsFunc(cases, func(c struct{ lesson, policy string }) bool { return c.lesson == l.Name }) {
			cases = append(cases, struct{ lesson, policy string }{l.Name, l.Policies[0]})
		}
	}
	for _, c := range cases {
		l := lessonNamed(t, c.lesson)
		run, err := course.Simulate(l.Workload, c.policy, l.Topology, time.Duration(l.Millis)*time.Millisecond, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const s = document.getElementById("lesson"); s.value = %q; s.onchange();
			document.getElementById("policy").value = %q; document.getElementById("run").click(); return true })()`, c.lesson, c.policy))); err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 4; n++ {
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#next"))); err != nil {
				t.Fatal(err)
			}
			js, err := chromedp.Run(ctx, chromedp.Evaluate[string](drawn))
			if err != nil {
				t.Fatal(err)
			}
			got.CPUs, got.GlobalSet, got.QLabels, got.Ents, got.Eligible, got.Searches, got.Compared = nil, nil, nil, nil, nil, nil, nil
			if err := json.Unmarshal([]byte(js), &got); err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("%s under %s, step %d (decision %d)", c.lesson, c.policy, n+1, got.Decision)
			wantTop := ""
			if len(run.Top) > 0 {
				wantTop = fmt.Sprintf("top -H shows its first screen at %d ms", run.Top[0].At/1e6)
			}
			for _, sc := range run.Top {
				if sc.At <= run.Decisions[got.Decision].Time {
					wantTop = "top -H, its last screen before this decision:\n" + sc.Text
				}
			}
			if got.Top != wantTop {
				t.Errorf("%s: the top panel shows %q, want %q", where, got.Top, wantTop)
			}
			raw := run.State(got.Decision)
			if run.StateKind == "" { // toy: no state to draw
				if raw != nil || !got.Hidden {
					t.Errorf("%s: a policy without a snapshot has state %s, and the state view is shown (%v)", where, raw, !got.Hidden)
				}
				continue
			}
			if raw == nil || got.Hidden {
				t.Fatalf("%s: state %.40s, view hidden %v", where, raw, got.Hidden)
			}
			switch run.StateKind {
			case "ule":
				var st struct {
					Threads []struct{ State string }
					CPUs    []struct {
						CPU      int
						Calendar struct{ Insert, Remove, Size int }
						Queues   []struct{ Queue runq.State }
					}
					Searches []ule.Search
				}
				mustUnmarshal(t, raw, &st)
				var searches []string // as the page draws them: at most six
				for _, sr := range st.Searches[:min(6, len(st.Searches))] {
					var cpus []string
					for _, c := range sr.CPUs {
						cpus = append(cpus, fmt.Sprint(c.CPU)+map[bool]string{true: "q"}[c.Qualified]+map[bool]string{true: "f"}[c.CPU == sr.Found])
					}
					searches = append(searches, fmt.Sprintf("%d:%s", sr.Found, strings.Join(cpus, ",")))
				}
				if fmt.Sprint(got.Searches) != fmt.Sprint(searches) {
					t.Errorf("%s: searches drawn as %q, the snapshot has %q", where, got.Searches, searches)
				}
				if len(searches) > 0 {
					searched++
				}
				for _, cs := range st.CPUs {
					want := ulecpu{Slots: cs.Calendar.Size, Insert: cs.Calendar.Insert, Remove: cs.Calendar.Remove}
					for _, q := range cs.Queues[0].Queue.Queues { // main: the single runq; the calendar is 115..223
						if k := int(q.Index) - 115; k >= 0 && k < cs.Calendar.Size {
							want.Set = append(want.Set, k)
							want.Labels = append(want.Labels, fmt.Sprintf("slot %d: %s", k, strings.Join(q.Elems, " ")))
						}
					}
					if g := got.CPUs[fmt.Sprint(cs.CPU)]; fmt.Sprint(g) != fmt.Sprint(want) {
						t.Errorf("%s: cpu%d drawn as %+v, the snapshot has %+v", where, cs.CPU, g, want)
					}
				}
			case "bsd4":
				var st struct{ Global runq.State }
				mustUnmarshal(t, raw, &st)
				var set []int
				var labels []string
				for _, q := range st.Global.Queues {
					set = append(set, int(q.Index))
					labels = append(labels, fmt.Sprintf("queue %d: %s", q.Index, strings.Join(q.Elems, " ")))
				}
				if fmt.Sprint(got.GlobalSet) != fmt.Sprint(set) || fmt.Sprint(got.QLabels) != fmt.Sprint(labels) {
					t.Errorf("%s: global queue drawn as %v %q, the snapshot has %v %q", where, got.GlobalSet, got.QLabels, set, labels)
				}
			case "cfs":
				var st course.CFSState
				mustUnmarshal(t, raw, &st)
				var ents, eligible []string
				for _, c := range st.CPUs {
					for _, e := range c.Entities {
						ents = append(ents, e.Name)
						if e.Eligible {
							eligible = append(eligible, e.Name)
						}
					}
				}
				var compared []string // as the page draws them: at most six
				for _, c := range st.Comparisons[:min(6, len(st.Comparisons))] {
					var parts []string
					if f := c.Placement; f != nil {
						for _, cf := range f.CPUs {
							parts = append(parts, fmt.Sprint(cf.CPU)+map[bool]string{true: "i"}[cf.Idle || cf.IdleOnly]+map[bool]string{true: "c"}[cf.CPU == f.CPU])
						}
						compared = append(compared, "p:"+strings.Join(parts, ","))
						continue
					}
					for _, g := range c.Balance.Groups {
						cpus := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(g.CPUs)), ","), "[]")
						parts = append(parts, cpus+map[bool]string{true: "l"}[g.Local]+map[bool]string{true: "b"}[g.Busiest])
					}
					compared = append(compared, "b:"+strings.Join(parts, " "))
				}
				if fmt.Sprint(got.Compared) != fmt.Sprint(compared) {
					t.Errorf("%s: comparisons drawn as %q, the snapshot has %q", where, got.Compared, compared)
				}
				if len(compared) > 0 {
					comparedSteps++
				}
				vlines := 0 // V, avg_vruntime, is EEVDF's
				if st.EEVDF {
					vlines = len(st.CPUs)
				}
				if fmt.Sprint(got.Ents) != fmt.Sprint(ents) || fmt.Sprint(got.Eligible) != fmt.Sprint(eligible) || got.VLines != vlines {
					t.Errorf("%s: drawn entities %v eligible %v with %d V lines; the snapshot has %v eligible %v and %d V lines",
						where, got.Ents, got.Eligible, got.VLines, ents, eligible, vlines)
				}
			default:
				t.Fatalf("%s: state kind %q", where, run.StateKind)
			}
			if n == 1 || n == 3 {
				if err := chromedp.Do(ctx, chromedp.Sleep(400*time.Millisecond)); err != nil { // the transitions
					t.Fatal(err)
				}
				shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#pstate")))
				if err != nil {
					t.Fatal(err)
				}
				shots = append(shots, shot)
			}
		}
		// The last decision: top's panel shows the last screen before it.
		var last struct {
			Decision int
			Top      string
		}
		js, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { cur = steps.length - 2; step(1);
			return JSON.stringify({decision: steps[cur], top: document.getElementById("top").textContent}); })()`))
		if err != nil {
			t.Fatal(err)
		}
		mustUnmarshal(t, []byte(js), &last)
		var want string
		for _, sc := range run.Top {
			if sc.At <= run.Decisions[last.Decision].Time {
				want = "top -H, its last screen before this decision:\n" + sc.Text
			}
		}
		if (want == "") != (run.StateKind == "") || last.Top != want {
			t.Errorf("%s under %s, last decision %d: the top panel shows %q, want %q", c.lesson, c.policy, last.Decision, last.Top, want)
		}
	}
	if searched == 0 || comparedSteps == 0 {
		t.Errorf("%d steps of the ULE lessons drew a search of the topology and %d of the CFS lessons a comparison: want some of each", searched, comparedSteps)
	}
	for i, shot := range shots {
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		if n := colours(img); n < 6 {
			t.Errorf("state screenshot %d has %d distinct colours: blank", i, n)
		}
		if i%2 == 1 && bytes.Equal(shots[i-1], shot) {
			t.Errorf("state screenshots %d and %d (steps 2 and 4 of a lesson) are the same", i-1, i)
		}
	}
	if p := problems(); len(p) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
	}
}

func lessonNamed(t testing.TB, name string) course.Lesson {
	for _, l := range course.Lessons() {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no lesson %q", name)
	return course.Lesson{}
}

func mustUnmarshal(t testing.TB, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// timeSteps times b.N steps of the page in ctx, swinging forward and back every swing steps,
// each followed by reading the bounding box of the SVG svg (which forces the layout and style
// work of the next frame), and reports ms/step.
func timeSteps(b *testing.B, ctx context.Context, swing int, svg string) {
	b.ReportAllocs()
	b.ResetTimer()
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](fmt.Sprintf(`(() => {
		const t0 = performance.now();
		for (let i = 0; i < %d; i++) { step((i / %d | 0) %% 2 ? -1 : 1); document.getElementById(%q).getBBox(); }
		return (performance.now() - t0) / %d;
	})()`, b.N, swing, svg, b.N)))
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(ms, "ms/step")
}

// BenchmarkPolicyStateStep measures one step of a run of 64 threads on 8 CPUs in headless
// Chromium with the policy's state drawn: the page's step function (the Gantt chart, the
// decision's text, fetching the snapshot from the WebAssembly module and redrawing the state)
// plus the layout forced by reading the state's bounding box. It reports ms/step, and the
// page's and the run's sizes in bytes; the page is built and the run simulated once, outside
// the timing. The goal is under 50 ms a step.
func BenchmarkPolicyStateStep(b *testing.B) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		b.Skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it):", err)
	}
	ctx, problems := openPage(b, bin)
	const workload = "thread w count=64\n\tloop\n\t\trun exp(3ms)\n\t\tsleep exp(1ms)\n\tend\nend\n"
	for _, policy := range []string{"ule:main", "bsd4:main", "cfs:v7.1"} {
		b.Run("threads=64/cpus=8/policy="+policy, func(b *testing.B) {
			setup := fmt.Sprintf(`(() => { const s = document.getElementById("lesson"); s.value = "migration"; s.onchange();
				const p = document.getElementById("policy"), o = document.createElement("option"); o.textContent = %q; p.appendChild(o); p.value = o.textContent;
				document.getElementById("workload").value = %q; document.getElementById("topology").value = "package:1 node:1 llc:1 cpu:8";
				document.getElementById("millis").value = 200; document.getElementById("run").click();
				return run !== null && run.cpus === 8 && run.threads.length === 64 && run.state_kind !== "" })()`, policy, workload)
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](setup))
			if err != nil || !ok {
				b.Fatalf("the 64-thread run did not start (%v)", err)
			}
			timeSteps(b, ctx, 20, "pstate")
			// What the page weighs: the document as it stands (the WebAssembly module inlined, the drawing included) and
			// the run it holds for this workload (the decisions, slices and top's screens; the
			// snapshots stay in the module until a step asks for one).
			sizes, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[new Blob([document.documentElement.outerHTML]).size, new Blob([JSON.stringify(run)]).size]`))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(sizes[0], "page-bytes")
			b.ReportMetric(sizes[1], "run-bytes")
		})
	}
	if p := problems(); len(p) > 0 {
		b.Fatalf("the page logged problems:\n%s", strings.Join(p, "\n"))
	}
}

// TestQuizInChromium runs the page's quiz for seed 4: it must show the questions
// questions.Generate gives for that seed, mark the right choice right and a wrong one wrong,
// with the policy's reason, and count the score.
func TestQuizInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it):", err)
	}
	if testing.Short() {
		t.Skip("builds the WebAssembly module; skipped with -short")
	}
	ctx, problems := openPage(t, bin)
	want := questions.Generate(4, 8)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { document.getElementById("quizseed").value = 4; document.getElementById("quizgo").click(); return true })()`)); err != nil {
		t.Fatal(err)
	}
	for i, q := range want {
		pick := q.Answer // the right choice for even questions, a wrong one for odd
		if i%2 == 1 {
			pick = (q.Answer + 1) % len(q.Choices)
		}
		js, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
			const d = document.getElementById("q%d"), bs = d.querySelectorAll("button");
			bs[%d].click();
			return JSON.stringify({text: d.querySelector("pre").textContent, choices: Array.from(bs).map(b => b.textContent),
				right: Array.from(bs).filter(b => b.classList.contains("right")).map(b => +b.dataset.k),
				wrong: Array.from(bs).filter(b => b.classList.contains("wrong")).map(b => +b.dataset.k),
				why: d.querySelector(".why").textContent});
		})()`, i, pick)))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Text         string
			Choices      []string
			Right, Wrong []int
			Why          string
		}
		mustUnmarshal(t, []byte(js), &got)
		wantWrong := []int{}
		if pick != q.Answer {
			wantWrong = []int{pick}
		}
		if got.Text != fmt.Sprintf("%d. %s", i+1, q.Text) || fmt.Sprint(got.Choices) != fmt.Sprint(q.Choices) ||
			fmt.Sprint(got.Right) != fmt.Sprint([]int{q.Answer}) || fmt.Sprint(got.Wrong) != fmt.Sprint(wantWrong) || !strings.HasSuffix(got.Why, q.Why) {
			t.Errorf("question %d shown as %+v; want %q with choices %v, answer %d, picked %d, why %q", i+1, got, q.Text, q.Choices, q.Answer, pick, q.Why)
		}
	}
	score, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#quizscore")))
	if err != nil {
		t.Fatal(err)
	}
	if score != "4 of 8 right" {
		t.Errorf("score %q, want 4 of 8 right", score)
	}
	if p := problems(); len(p) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
	}
}

// TestTopScreens checks the top panel's screens: a lesson's run under ULE, 4BSD and CFS has one
// every tenth of the run, each the screen package bench/top takes of the same run made
// without explanations and the page's stepping, at the same times.
func TestTopScreens(t *testing.T) {
	for _, c := range []struct{ lesson, policy string }{{"calendar", "ule:main"}, {"estcpu", "bsd4:main"}, {"vruntime", "cfs:v7.1"}} {
		l := lessonNamed(t, c.lesson)
		d := time.Duration(l.Millis) * time.Millisecond
		run, err := course.Simulate(l.Workload, c.policy, l.Topology, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Top) != 10 {
			t.Fatalf("%s under %s: %d top screens, want 10", c.lesson, c.policy, len(run.Top))
		}
		w, err := workload.Parse(l.Workload)
		if err != nil {
			t.Fatal(err)
		}
		tp, err := topology.Parse(l.Topology)
		if err != nil {
			t.Fatal(err)
		}
		p, err := presets.New(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		m, err := sim.New(sim.Config{Topology: tp, Hz: 1000, StatHz: 127, Seed: 1, FlattenGroups: true}, p, w)
		if err != nil {
			t.Fatal(err)
		}
		tw, err := top.New(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, sc := range run.Top {
			at := time.Duration(i+1) * d / 10
			if err := m.Run(at); err != nil {
				t.Fatal(err)
			}
			if want := tw.Screen(m.Result()).Text(c.policy); sc.At != int64(at) || sc.Text != want {
				t.Fatalf("%s under %s: screen %d at %v:\n%s\nwant at %v:\n%s", c.lesson, c.policy, i, time.Duration(sc.At), sc.Text, at, want)
			}
		}
	}
}
