package trace

import (
	"errors"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// TestParseStatRuntime reads sched_stat_runtime in both of the kernel's layouts (with vruntime
// before Linux 6.8, without since) as each tool prints it.
func TestParseStatRuntime(t *testing.T) {
	cases := []struct {
		name, line string
		cpu, pid   int
		comm       string
		pid2       int
		runtime    int64
	}{
		{"perf 6.x", "            perf 23559 [000]   546.487292: sched:sched_stat_runtime: comm=perf pid=23559 runtime=44016 [ns]",
			0, 23559, "perf", 23559, 44016},
		{"perf 5.x vruntime", "            perf 23559 [000]   546.487292: sched:sched_stat_runtime: comm=perf pid=23559 runtime=44016 [ns] vruntime=21830426743 [ns]",
			0, 23559, "perf", 23559, 44016},
		{"tracefs 4.x", "          <idle>-0     [003] d.h3   123.000001: sched_stat_runtime: comm=kworker/3:1 pid=77 runtime=1234567 [ns] vruntime=18446744073709551615 [ns]",
			3, 0, "kworker/3:1", 77, 1234567},
		{"tracefs 6.x", "            bash-20853   [001] d..2.   503.804655: sched_stat_runtime: comm=bash pid=20853 runtime=9 [ns]",
			1, 20853, "bash", 20853, 9},
		{"trace-cmd -t", "             bash-22072 [000]   516.651193983: sched_stat_runtime:   comm=Web Content pid=4242 runtime=281474976710656 [ns]",
			0, 22072, "Web Content", 4242, 1 << 48},
		{"trace-cmd -l", "     bash-22072   0d..3.   516.651193983: sched_stat_runtime:   comm=a pid=5 runtime=0 [ns] vruntime=0 [ns]",
			0, 22072, "a", 5, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, rest, ok, err := parseHeader(tc.line)
			if err != nil || !ok {
				t.Fatalf("parseHeader = %v, %v", ok, err)
			}
			if err := parseFields(&ev, rest); err != nil {
				t.Fatal(err)
			}
			if ev.name != "sched_stat_runtime" || ev.cpu != tc.cpu || ev.pid != tc.pid || ev.comm != tc.comm || ev.pid2 != tc.pid2 || ev.runtime != tc.runtime {
				t.Errorf("got %s cpu %d pid %d comm %q pid %d runtime %d; want cpu %d pid %d comm %q pid %d runtime %d",
					ev.name, ev.cpu, ev.pid, ev.comm, ev.pid2, ev.runtime, tc.cpu, tc.pid, tc.comm, tc.pid2, tc.runtime)
			}
		})
	}
	bad := []struct{ name, fields, want string }{
		{"no runtime", "comm=a pid=5 vruntime=3 [ns]", "runtime: missing"},
		{"no pid", "comm=a runtime=3 [ns]", "pid: missing"},
		{"negative", "comm=a pid=5 runtime=-3 [ns]", "runtime:"},
		{"not a number", "comm=a pid=5 runtime=3x [ns]", "runtime:"},
		{"absurd", "comm=a pid=5 runtime=281474976710657 [ns]", "runtime:"},
		{"bad vruntime", "comm=a pid=5 runtime=3 [ns] vruntime=-1 [ns]", "vruntime:"},
		{"bad pid", "comm=a pid=x runtime=3 [ns]", "pid:"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			ev := event{name: "sched_stat_runtime"}
			err := parseFields(&ev, tc.fields)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("parseFields(%q) = %v, want %q", tc.fields, err, tc.want)
			}
		})
	}
	// Through ReadFtrace, a bad field is an *Error naming the line and the field.
	_, err := ReadFtrace(strings.NewReader("a-5 [000] 1.0: sched_stat_runtime: comm=a pid=5 runtime=z [ns]\n"), "in.txt", nil)
	var e *Error
	if !errors.As(err, &e) || e.Line != 1 || e.Field != "runtime" {
		t.Errorf("ReadFtrace error %v, want in.txt:1: runtime", err)
	}
}

// statTrace is a trace in trace-cmd report's form whose tasks show what sched_stat_runtime
// adds: the old layout (vruntime) on CPU 0, the new one elsewhere.
//
//   - hog-10 runs on CPU 0 from before the trace; its first event charges it 4 ms, which
//     reaches 3.6 ms before the trace's first event: it runs from the start, and of its
//     charges (4 ms, then 3.6 ms) only the 4 ms the trace covers count.
//   - late-30 runs on CPU 2, whose first event is its own sched_stat_runtime 3 ms into the
//     trace charging 0.5 ms: CPU 2's record begins with the trace, so it has run since then
//     (4 ms in all); the charge is a cross-check, not the start of its run. (With a
//     "##### CPU 2 buffer started ####" line before it, its run begins at that event.)
//   - ping-20, woken by hog-10 on CPU 0 at 1.000500, runs on CPU 1 from 1.000600 to 1.002000
//     and is charged 1.2 ms of it (interrupts take the rest: no warning).
//   - ipi-40 is charged by CPU 1 while running on CPU 3 (a remote update), and nobody-50,
//     which the trace does not show running, is not charged.
const statTrace = `cpus=4
          <idle>-0     [003]     1.000000: sched_switch:         prev_comm=swapper/3 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ipi next_pid=40 next_prio=120
             hog-10    [000]     1.000400: sched_stat_runtime:   comm=hog pid=10 runtime=4000000 [ns] vruntime=123456789 [ns]
             hog-10    [000]     1.000500: sched_waking:         comm=ping pid=20 prio=120 target_cpu=001
          <idle>-0     [001]     1.000600: sched_switch:         prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ping next_pid=20 next_prio=120
            ping-20    [001]     1.001000: sched_stat_runtime:   comm=ping pid=20 runtime=700000 [ns]
            ping-20    [001]     1.001500: sched_stat_runtime:   comm=ipi pid=40 runtime=1400000 [ns]
            ping-20    [001]     1.001500: sched_stat_runtime:   comm=nobody pid=50 runtime=1400000 [ns]
            ping-20    [001]     1.002000: sched_stat_runtime:   comm=ping pid=20 runtime=500000 [ns]
            ping-20    [001]     1.002000: sched_switch:         prev_comm=ping prev_pid=20 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
            late-30    [002]     1.003000: sched_stat_runtime:   comm=late pid=30 runtime=500000 [ns]
             hog-10    [000]     1.004000: sched_stat_runtime:   comm=hog pid=10 runtime=3600000 [ns] vruntime=127056789 [ns]
             hog-10    [000]     1.004000: sched_switch:         prev_comm=hog prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
            late-30    [002]     1.004000: sched_switch:         prev_comm=late prev_pid=30 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120
             ipi-40    [003]     1.004000: sched_switch:         prev_comm=ipi prev_pid=40 prev_prio=120 prev_state=S ==> next_comm=swapper/3 next_pid=0 next_prio=120
`

func TestReadFtraceStatRuntime(t *testing.T) {
	for _, o := range []*ImportOptions{nil, {Summary: true}} {
		im, err := ReadFtrace(strings.NewReader(statTrace), "stat.txt", o)
		if err != nil {
			t.Fatal(err)
		}
		if im.Warned != 0 {
			t.Errorf("warnings: %v", im.Warnings)
		}
		if len(im.Skipped) != 0 || im.Events != 14 {
			t.Errorf("%d events used, skipped %v; want all 14 used", im.Events, im.Skipped)
		}
		want := []struct {
			name                          string
			start, cpu, runtime, rtEvents int64
			runningAtStart                bool
		}{
			{"ipi-40", 0, 4e6, 1.4e6, 1, false},
			// hog: 4 ms from the start, charged for 4 ms of its 7.6 (3.6 predate the trace).
			{"hog-10", 0, 4e6, 4e6, 2, true},
			{"ping-20", 500e3, 1.4e6, 1.2e6, 2, false},
			// late: from the start of CPU 2's record, the trace's.
			{"late-30", 0, 4e6, 0.5e6, 1, true},
		}
		if len(im.Tasks) != len(want) {
			t.Fatalf("%d tasks, want %d (no task for a remote charge of an unknown pid): %+v", len(im.Tasks), len(want), im.Tasks)
		}
		for i, w := range want {
			ts := im.Tasks[i]
			if ts.Name != w.name || ts.Start != w.start || ts.CPUTime != w.cpu || ts.Runtime != w.runtime ||
				ts.RuntimeEvents != w.rtEvents || ts.RunningAtStart != w.runningAtStart {
				t.Errorf("%+v\nwant %+v", ts, w)
			}
		}
		if o != nil {
			continue
		}
		th := im.Workload.Threads
		if th[3].Start != 0 || len(th[3].Ops) != 1 || th[3].Ops[0].Kind != workload.Run || th[3].Ops[0].Time != workload.Fixed(4e6) {
			t.Errorf("late-30: start %v ops %v; want a run of 4ms from 0", th[3].Start, workload.Format(&workload.Workload{Threads: th[3:4]}))
		}
	}
	// A CPU whose buffer lost its first events begins its record at its first event left.
	late := strings.Replace(statTrace, "            late-30    [002]     1.003000", "##### CPU 2 buffer started ####\n            late-30    [002]     1.003000", 1)
	im, err := ReadFtrace(strings.NewReader(late), "stat.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := im.Task("late-30")
	if ts == nil || ts.Start != 3e6 || ts.CPUTime != 1e6 || ts.Runtime != 0 || im.Warned != 1 {
		t.Errorf("with CPU 2's buffer started late: %+v, %d warnings %v; want a run of 1 ms from 3 ms, no runtime credited before it, one warning", ts, im.Warned, im.Warnings)
	}
}

// TestReadFtraceStatRuntimeCheck: a run charged more than the time since its task became
// runnable (beyond runtimeSlack) is a counted warning; a charge within the slack, or below the
// run (interrupt time), is not.
func TestReadFtraceStatRuntimeCheck(t *testing.T) {
	const head = `             bash-10    [000]     1.000000: sched_waking:         comm=ping pid=20 prio=120 target_cpu=001
          <idle>-0     [001]     1.000100: sched_switch:         prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ping next_pid=20 next_prio=120
`
	const tail = `            ping-20    [001]     1.002000: sched_switch:         prev_comm=ping prev_pid=20 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
`
	charge := func(ns string) string {
		return "            ping-20    [001]     1.001000: sched_stat_runtime:   comm=ping pid=20 runtime=" + ns + " [ns]\n"
	}
	cases := []struct {
		name, text string
		warn       bool
	}{
		// 2 ms runnable-to-switch-out; the slack is 5 µs + 500 ppm (1 µs).
		{"at the run", head + charge("1900000") + tail, false},
		{"interrupts", head + charge("1000000") + tail, false},
		{"within slack", head + charge("2006000") + tail, false},
		{"beyond slack", head + charge("2006001") + tail, true},
		{"two charges beyond", head + charge("1000000") + charge("1100000") + tail, true},
		{"far beyond", head + charge("9000000") + tail, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			im, err := ReadFtrace(strings.NewReader(tc.text), "in.txt", nil)
			if err != nil {
				t.Fatal(err)
			}
			warned := false
			for _, w := range im.Warnings {
				if strings.Contains(w.Msg, "sched_stat_runtime charges ping-20") {
					warned = true
				}
			}
			if warned != tc.warn {
				t.Errorf("warned %t, want %t: %v", warned, tc.warn, im.Warnings)
			}
		})
	}
}
