package trace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// rtappExample is an rt-app description in the style of rt-app's doc/examples: a periodic
// real-time task, two CPU-bound instances, a pair handing work over a condition variable, a
// barrier and a forked task.
const rtappExample = `{
	"global": {"duration": 2, "default_policy": "SCHED_OTHER", "calibration": "CPU0", "logdir": "./"},
	"tasks": {
		"periodic": {
			"policy": "SCHED_FIFO", "priority": 50, "cpus": [0],
			"phases": {
				"warm": {"loop": 5, "run": 1000, "timer": {"ref": "unique", "period": 10000}},
				"steady": {"loop": 20, "run0": 500, "sleep0": 200, "run1": 300, "timer": {"ref": "unique", "period": 5000}}
			}
		},
		"hog": {"instance": 2, "priority": 5, "loop": 3, "run": 20000, "yield": ""},
		"producer": {"loop": 10, "run": 2000, "lock": "m", "signal": "work", "unlock": "m", "sleep": 1000},
		"consumer": {"loop": 10, "lock": "m", "wait": {"ref": "work", "mutex": "m"}, "unlock": "m", "run": 1500},
		"a": {"loop": 4, "run": 700, "barrier": "b1"},
		"b": {"loop": 4, "run": 2100, "barrier": "b1"},
		"spawner": {"loop": 1, "delay": 3000, "run": 100, "fork": "child", "sleep": 100},
		"child": {"instance": 0, "loop": 1, "run": 4000, "mem": 1000}
	}
}`

func readRTApp(t *testing.T, text string) *RTApp {
	t.Helper()
	rt, err := ReadRTApp(strings.NewReader(text), "example.json")
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func TestReadRTApp(t *testing.T) {
	rt := readRTApp(t, rtappExample)
	var b strings.Builder
	b.WriteString(workload.Format(rt.Workload))
	fmt.Fprintf(&b, "\n# duration=%d\n", rt.Duration)
	for _, w := range rt.Warnings {
		fmt.Fprintf(&b, "# warning: %s\n", w)
	}
	golden(t, "rtapp-example.import", []byte(b.String()))
	if rt.Duration != 2e9 {
		t.Errorf("Duration = %d, want 2e9", rt.Duration)
	}
	for _, want := range []string{"mutexes cannot be expressed", "condition variable is imported as a pipe", "memory and I/O load"} {
		found := false
		for _, w := range rt.Warnings {
			found = found || strings.Contains(w.Msg, want)
		}
		if !found {
			t.Errorf("no warning %q in %v", want, rt.Warnings)
		}
	}
	// It runs: the barrier holds a and b in step, so a waits for b's longer runs.
	r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, policy("cfs:v7.1"), rt.Workload, time.Duration(rt.Duration))
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range r.Threads {
		if ts.CPUTime == 0 {
			t.Errorf("%s did not run", ts.Name)
		}
		if ts.Name == "a" && ts.End < 4*2100_000 {
			t.Errorf("a ended at %d, before b's four runs of 2.1 ms could pass the barrier", ts.End)
		}
	}
}

func TestReadRTAppErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"not json", `{"tasks": `, "x.json:1: unexpected end of JSON"},
		{"syntax", "{\n\"tasks\": {,}}", "x.json:2: invalid character"},
		{"not an object", `[1]`, "x.json:1: an array, want an object with tasks"},
		{"no tasks", `{"global": {}}`, "x.json:1: tasks: missing or empty"},
		{"task not object", `{"tasks": {"a": 3}}`, "x.json:1: tasks.a: a number, want an object"},
		{"bad run", `{"tasks": {"a": {"run": "x"}}}`, "x.json:1: tasks.a.run: a string, want a number"},
		{"negative sleep", `{"tasks": {"a": {"run": 1, "sleep": -4}}}`, "x.json:1: tasks.a.sleep: -4 is not in"},
		{"fractional", `{"tasks": {"a": {"run": 1.5}}}`, "x.json:1: tasks.a.run: 1.5 is not an integer"},
		{"unknown event", `{"tasks": {"a": {"run": 1, "dance": 3}}}`, `x.json:1: tasks.a.dance: unknown event "dance"`},
		{"unknown policy", `{"tasks": {"a": {"policy": "SCHED_FAST", "run": 1}}}`, `x.json:1: tasks.a.policy: unknown policy "SCHED_FAST"`},
		{"rt priority", `{"tasks": {"a": {"policy": "SCHED_FIFO", "priority": 120, "run": 1}}}`, "x.json:1: tasks.a.priority: 120 is not in 1..99"},
		{"nice", `{"tasks": {"a": {"priority": -30, "run": 1}}}`, "x.json:1: tasks.a.priority: -30 is not in -20..19"},
		{"cpu", `{"tasks": {"a": {"cpus": [5000], "run": 1}}}`, "x.json:1: tasks.a.cpus:"},
		{"fork unknown", `{"tasks": {"a": {"run": 1, "fork": "zz"}}}`, `x.json:1: tasks.a.fork: unknown task "zz"`},
		{"resume unknown", `{"tasks": {"a": {"run": 1, "resume": "zz"}}}`, `x.json:1: tasks.a.resume: unknown task "zz"`},
		{"timer", `{"tasks": {"a": {"run": 1, "timer": {"period": 0}}}}`, "x.json:1: tasks.a.timer.period: a timer period must be positive"},
		{"loop without time", `{"tasks": {"a": {"yield": ""}}}`, "x.json: the imported workload does not validate"},
		{"instances with barrier", `{"tasks": {"a": {"instance": 2, "run": 1, "barrier": "b"}, "b": {"run": 1, "barrier": "b"}}}`, "x.json:1: tasks.a: barrier"},
		{"duplicate task", `{"tasks": {"a": {"run": 1}, "a": {"run": 2}}}`, "x.json:1: tasks.a: task declared twice"},
		{"deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), "x.json:1: nested deeper"},
		{"trailing", `{"tasks": {"a": {"run": 1}}} {}`, "x.json:1: data after the top-level value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadRTApp(strings.NewReader(tc.text), "x.json")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("ReadRTApp = %v, want an *Error", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("ReadRTApp error = %q, want prefix %q", err, tc.want)
			}
		})
	}
}

// TestRTAppRoundTrip exports workloads as rt-app JSON, imports them, and checks that both run
// alike: the same threads with the same CPU time, wait and sleep.
func TestRTAppRoundTrip(t *testing.T) {
	for _, text := range []string{
		strings.Replace(pingPong, "\tjoin\n", "", 1), // rt-app has no join
		"thread hog count=2 nice=5\n\trepeat 50\n\t\trun 2ms\n\t\tyield\n\tend\nend\nthread tick class=fifo rtprio=20 cpus=1\n\tevery 10ms 20\n\t\trun 1ms\n\tend\nend\n",
		"thread s start=2ms\n\trepeat 30\n\t\trun 300us\n\t\tsleep 700us\n\tend\nend\n",
	} {
		w, err := workload.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		warns, err := WriteRTApp(&buf, w, 0)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := ReadRTApp(bytes.NewReader(buf.Bytes()), "export.json")
		if err != nil {
			t.Fatalf("%v\n%s", err, buf.String())
		}
		run := func(w *workload.Workload) *sim.Result {
			// rt-app describes Linux programs (sched_priority 1..99), so a Linux policy plays
			// them: a FreeBSD one refuses the Linux real-time scale.
			r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, policy("cfs:v7.1"), w, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		a, b := run(w), run(rt.Workload)
		if len(a.Threads) != len(b.Threads) {
			t.Fatalf("%d threads before, %d after the round trip", len(a.Threads), len(b.Threads))
		}
		for i := range a.Threads {
			x, y := a.Threads[i], b.Threads[i]
			if x.Name != y.Name || x.CPUTime != y.CPUTime || x.WaitTime != y.WaitTime || x.Sleep != y.Sleep {
				t.Errorf("%s: cpu %d wait %d sleep %d; after the round trip %s: cpu %d wait %d sleep %d\nwarnings %v\n%s",
					x.Name, x.CPUTime, x.WaitTime, x.Sleep, y.Name, y.CPUTime, y.WaitTime, y.Sleep, warns, buf.String())
			}
		}
	}
}

func TestWriteRTAppRefuses(t *testing.T) {
	w, err := workload.Parse("thread n\n\trepeat 2\n\t\trepeat 2\n\t\t\trun 1ms\n\t\tend\n\tend\nend\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteRTApp(&bytes.Buffer{}, w, 0); err == nil || !strings.Contains(err.Error(), "cannot be written as rt-app phases") {
		t.Errorf("WriteRTApp of a nested repeat = %v", err)
	}
	w, err = workload.Parse("group g weight=50\nthread n group=g\n\trun uniform(1ms,3ms)\n\tjoin\nend\n")
	if err != nil {
		t.Fatal(err)
	}
	warns, err := WriteRTApp(&bytes.Buffer{}, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	requireWarnings(t, warns, "control group", "written as its mean", "join cannot be expressed")
}

// An until (and a poll) cannot be written as rt-app events: WriteRTApp leaves it out, its body
// with it, with a warning, and writes the ops around it.
func TestWriteRTAppUntil(t *testing.T) {
	out, warns := rtappOf(t, "pipe p\nthread n\n\trun 1ms\n\tuntil p\n\t\tsleep 7ms\n\tend\n\tpoll p 3us\n\trun 2ms\nend\n")
	requireWarnings(t, warns, "n: until cannot be expressed; left out", "n: poll cannot be expressed; left out")
	if !strings.Contains(out, `"run1": 1000,`) || !strings.Contains(out, `"run2": 2000`) || strings.Contains(out, "7000") {
		t.Errorf("WriteRTApp wrote\n%s\nwant the runs of 1000 and 2000 us and not the until's sleep of 7000", out)
	}
}

// requireWarnings fails t for each of wants that no warning's message contains.
func requireWarnings(t *testing.T, warns []Warning, wants ...string) {
	t.Helper()
	var all []string
	for _, w := range warns {
		all = append(all, w.Msg)
	}
	s := strings.Join(all, "\n")
	for _, want := range wants {
		if !strings.Contains(s, want) {
			t.Errorf("warnings %q lack %q", s, want)
		}
	}
}

func FuzzReadRTApp(f *testing.F) {
	f.Add(rtappExample)
	data, err := os.ReadFile(filepath.Join("testdata", "rtapp-example.import"))
	if err == nil {
		f.Add(string(data[:min(len(data), 200)]))
	}
	f.Add(`{"tasks": {"a": {"phases": {"p": {"loop": -1, "run": 10, "timer": {"period": 100}}}}}}`)
	f.Fuzz(func(t *testing.T, text string) {
		rt, err := ReadRTApp(strings.NewReader(text), "fuzz.json")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != "fuzz.json" {
				t.Fatalf("error %v is not an *Error naming the file", err)
			}
			return
		}
		if err := rt.Workload.Validate(); err != nil {
			t.Fatal(err)
		}
		// What was imported exports (or refuses with an error) without panicking.
		_, _ = WriteRTApp(&bytes.Buffer{}, rt.Workload, rt.Duration)
	})
}

// A spin is rt-app's runtime event: computing for a duration of wall-clock time.
func TestWriteRTAppSpin(t *testing.T) {
	out, warns := rtappOf(t, "thread n\n\tspin 3ms\n\tsleep 1ms\nend\n")
	if len(warns) != 0 {
		t.Errorf("warnings %v, want none", warns)
	}
	if !strings.Contains(out, `"runtime1": 3000,`) || !strings.Contains(out, `"sleep2": 1000`) {
		t.Errorf("spin 3ms written as:\n%s", out)
	}
}

// rtappOf returns WriteRTApp's output and warnings for the workload text, failing t on an error.
func rtappOf(t *testing.T, text string) (string, []Warning) {
	t.Helper()
	w, err := workload.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	warns, err := WriteRTApp(&buf, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	return buf.String(), warns
}
