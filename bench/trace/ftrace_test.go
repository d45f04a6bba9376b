package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A line of `trace-cmd report -N -t`, as recorded on Linux 6.18 (testdata/tracecmd-report-N-t.txt):
// the task, the CPU, the timestamp, the event and its fields.
var reportLine = regexp.MustCompile(`^( {0,15}\S.*)-(\d+) *\[(\d{3})\] +(\d+)\.(\d{9}): (sched_[a-z_]+): +(.*)$`)

// fieldKeys returns the keys of the key=value fields of s, in order.
func fieldKeys(s string) string {
	var keys []string
	for _, m := range regexp.MustCompile(`(?:^| )([a-z_]+)=`).FindAllStringSubmatch(s, -1) {
		keys = append(keys, m[1])
	}
	return strings.Join(keys, " ")
}

// TestWriteFtraceMatchesTraceCmd checks every exported line against the lines trace-cmd
// report printed for a real trace: the same columns (where the task is 16 columns and the pid
// 5) and, per event, the same field names in the same order.
func TestWriteFtraceMatchesTraceCmd(t *testing.T) {
	real, err := os.ReadFile(filepath.Join("testdata", "tracecmd-report-N-t.txt"))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	var bracket, colon int
	for _, line := range strings.Split(strings.TrimSpace(string(real)), "\n")[1:] {
		if i := strings.Index(line, ": "); i >= 0 && !strings.HasPrefix(line, " ") {
			line = line[i+2:] // the instance name trace-cmd puts first
		}
		m := reportLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("real line %q does not match the pattern", line)
		}
		keys[m[6]] = fieldKeys(m[7])
		if len(m[2]) <= 5 {
			bracket = strings.Index(line, "[")
			colon = strings.Index(line, m[6]+":") + 22
		}
	}
	for _, ev := range []string{"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_process_fork"} {
		if keys[ev] == "" {
			t.Fatalf("the real trace has no %s", ev)
		}
	}
	// sched_migrate_task and sched_process_exit as the 6.18 format files print them.
	keys["sched_migrate_task"] = "comm pid prio orig_cpu dest_cpu"
	keys["sched_process_exit"] = "comm pid prio group_dead"

	var buf bytes.Buffer
	if err := WriteFtrace(&buf, runTrace(t, pingPong, 2, 50*time.Millisecond), nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if lines[0] != "cpus=2" {
		t.Errorf("first line = %q, want cpus=2", lines[0])
	}
	seen := map[string]int{}
	for _, line := range lines[1:] {
		m := reportLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("exported line %q is not in trace-cmd report's form", line)
		}
		seen[m[6]]++
		if got, want := fieldKeys(m[7]), keys[m[6]]; got != want {
			t.Errorf("%s fields = %q, want %q as trace-cmd prints", m[6], got, want)
		}
		if b := strings.Index(line, "["); b != bracket {
			t.Errorf("line %q: CPU at column %d, trace-cmd puts it at %d", line, b, bracket)
		}
		if c := strings.Index(line, m[6]+":") + 22; c != colon || line[c-1] != ' ' {
			t.Errorf("line %q: fields at column %d, trace-cmd puts them at %d", line, c, colon)
		}
	}
	for _, ev := range []string{"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task", "sched_process_fork", "sched_process_exit"} {
		if seen[ev] == 0 {
			t.Errorf("the export has no %s line", ev)
		}
	}
}

func TestWriteFtraceGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteFtrace(&buf, runTrace(t, pingPong, 2, 50*time.Millisecond), nil); err != nil {
		t.Fatal(err)
	}
	golden(t, "pingpong.ftrace", buf.Bytes())
}

func TestWriteFtraceMicro(t *testing.T) {
	tr := synthetic(20, 3, 2)
	var a, b bytes.Buffer
	if err := WriteFtrace(&a, tr, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteFtrace(&b, tr, &FtraceOptions{Micro: true, PIDBase: 7}); err != nil {
		t.Fatal(err)
	}
	la, lb := strings.Split(a.String(), "\n"), strings.Split(b.String(), "\n")
	if len(la) != len(lb) {
		t.Fatalf("%d lines with nanoseconds, %d with microseconds", len(la), len(lb))
	}
	micro := regexp.MustCompile(`\] +\d+\.\d{6}: `)
	for _, l := range lb[1 : len(lb)-1] {
		if !micro.MatchString(l) {
			t.Errorf("Micro line %q has no six-decimal timestamp", l)
		}
		if strings.Contains(l, "pid=1000") {
			t.Errorf("PIDBase 7 line %q has pid 1000", l)
		}
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n <= 0 {
		return 0, os.ErrClosed
	}
	w.n--
	return len(p), nil
}

func TestExportWriteErrors(t *testing.T) {
	tr := synthetic(50000, 5, 2)
	for n := range 3 {
		if err := WriteFtrace(&failWriter{n: n}, tr, nil); err == nil {
			t.Errorf("WriteFtrace to a writer failing after %d writes = nil", n)
		}
		if err := WriteChrome(&failWriter{n: n}, tr, nil); err == nil {
			t.Errorf("WriteChrome to a writer failing after %d writes = nil", n)
		}
	}
}

// TestWriteFtraceIRQFlags checks the tracefs form: every line has the irq-flags column where
// /sys/kernel/tracing/trace puts it, and exactly the timer's wake-ups are in interrupt context.
func TestWriteFtraceIRQFlags(t *testing.T) {
	tr := runTrace(t, "thread a\n\trepeat 3\n\t\trun 1ms\n\t\tsleep 2ms\n\tend\nend\nthread b\n\trun 4ms\nend\n", 1, time.Second)
	var buf bytes.Buffer
	if err := WriteFtrace(&buf, tr, &FtraceOptions{IRQFlags: true, Micro: true}); err != nil {
		t.Fatal(err)
	}
	tracefs := regexp.MustCompile(`^ {0,15}\S.*-\d+ +\[\d{3}\] [.dNhs0-9]{5} +\d+\.\d{6}: sched_[a-z_]+: `)
	irq := 0
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n")[1:] {
		if !tracefs.MatchString(line) {
			t.Fatalf("line %q is not in the tracefs form", line)
		}
		ev, _, ok, err := parseHeader(line)
		if err != nil || !ok {
			t.Fatalf("parseHeader(%q) = %v, %v", line, ok, err)
		}
		if ev.irq {
			irq++
			if ev.name != "sched_wakeup" {
				t.Errorf("%s in interrupt context: %q", ev.name, line)
			}
		}
	}
	if irq != 3 {
		t.Errorf("%d wake-ups in interrupt context, want a's 3 timer wake-ups", irq)
	}
}

// TestWriteFtraceLayouts checks each layout's field names and that ReadFtrace reads each back
// to the same tasks.
func TestWriteFtraceLayouts(t *testing.T) {
	tr := runTrace(t, pingPong, 2, 50*time.Millisecond)
	want := map[Layout][2]string{
		Linux617: {"comm pid prio target_cpu", "comm pid prio group_dead"},
		Linux43:  {"comm pid prio target_cpu", "comm pid prio"},
		Linux42:  {"comm pid prio success target_cpu", "comm pid prio"},
	}
	var first []TaskStats
	for _, l := range []Layout{Linux617, Linux43, Linux42} {
		var buf bytes.Buffer
		if err := WriteFtrace(&buf, tr, &FtraceOptions{Layout: l}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n")[1:] {
			m := reportLine.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("layout %d: %q", l, line)
			}
			switch m[6] {
			case "sched_wakeup", "sched_wakeup_new":
				if got := fieldKeys(m[7]); got != want[l][0] {
					t.Errorf("layout %d: %s fields %q, want %q", l, m[6], got, want[l][0])
				}
			case "sched_process_exit":
				if got := fieldKeys(m[7]); got != want[l][1] {
					t.Errorf("layout %d: %s fields %q, want %q", l, m[6], got, want[l][1])
				}
			}
		}
		im, err := ReadFtrace(&buf, "layout", nil)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = im.Tasks
			continue
		}
		for i := range first {
			if !reflect.DeepEqual(im.Tasks[i], first[i]) {
				t.Errorf("layout %d: task %+v, with Linux617 %+v", l, im.Tasks[i], first[i])
			}
		}
	}
}
