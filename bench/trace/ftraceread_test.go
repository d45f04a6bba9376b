package trace

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// summary prints what an import found, for golden files: the workload's text form, then each
// task's trace timing and marks, then the warnings.
func summary(im *Imported) string {
	var b strings.Builder
	b.WriteString(workload.Format(im.Workload))
	fmt.Fprintf(&b, "\n# events=%d cpus=%d duration=%d skipped=[%s] warned=%d\n", im.Events, im.CPUs, im.Duration, im.SkippedNames(), im.Warned)
	for _, ts := range im.Tasks {
		var marks []string
		for _, m := range []struct {
			on   bool
			name string
		}{{ts.RunningAtStart, "running-at-start"}, {ts.RunnableAtStart, "runnable-at-start"},
			{ts.SleepingAtStart, "sleeping-at-start"}, {ts.Forked, "forked"}, {ts.Exited, "exited"}} {
			if m.on {
				marks = append(marks, m.name)
			}
		}
		fmt.Fprintf(&b, "# %s comm=%q pid=%d start=%d end=%d cpu=%d wait=%d sleep=%d wakeups=%d latencies=%d/%d migrations=%d %s\n",
			ts.Name, ts.Comm, ts.PID, ts.Start, ts.End, ts.CPUTime, ts.WaitTime, ts.Sleep, ts.Wakeups, ts.Latencies, ts.LatencySum,
			ts.Migrations, strings.Join(marks, ","))
		if ts.RuntimeEvents > 0 {
			fmt.Fprintf(&b, "#   runtime=%d/%d\n", ts.RuntimeEvents, ts.Runtime)
		}
	}
	for _, w := range im.Warnings {
		fmt.Fprintf(&b, "# warning: %s\n", w)
	}
	return b.String()
}

// realTraces are traces recorded for this package on Linux 6.18 (2 CPUs) in each text form,
// of a shell pipeline "echo hi | cat" among the machine's other tasks (so made here, and
// shipped under the project's licence):
//
//   - tracefs-trace.txt: /sys/kernel/tracing/instances/…/trace;
//   - tracecmd-report-N-t.txt, tracecmd-report.txt and tracecmd-report-l-N-t.txt: trace-cmd
//     3.1.6 report -N -t, report (plugin forms) and report -l -N -t (latency format) of one
//     trace.dat made by trace-cmd extract from an instance;
//   - perf-sched-script.txt: perf 6.1 sched script of a perf sched record.
var realTraces = []string{"tracefs-trace.txt", "tracecmd-report-N-t.txt", "tracecmd-report.txt",
	"tracecmd-report-l-N-t.txt", "perf-sched-script.txt"}

// TestReadFtraceReal imports the realTraces and compares the result with golden files.
func TestReadFtraceReal(t *testing.T) {
	for _, name := range realTraces {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			im, err := ReadFtrace(f, name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if im.Events == 0 || len(im.Tasks) < 3 {
				t.Fatalf("%d events, %d tasks", im.Events, len(im.Tasks))
			}
			golden(t, name+".import", []byte(summary(im)))
		})
	}
}

// TestReadFtraceFormsAgree checks that trace-cmd's two printings of one trace import alike:
// the same tasks, the same scripts' shapes, times equal to the microsecond.
func TestReadFtraceFormsAgree(t *testing.T) {
	read := func(name string) *Imported {
		f, err := os.Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		im, err := ReadFtrace(f, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		return im
	}
	a, b := read("tracecmd-report-N-t.txt"), read("tracecmd-report.txt")
	if len(a.Tasks) != len(b.Tasks) {
		t.Fatalf("%d tasks with -N -t, %d with plugins", len(a.Tasks), len(b.Tasks))
	}
	for i := range a.Tasks {
		x, y := a.Tasks[i], b.Tasks[i]
		if x.Name != y.Name || x.Wakeups != y.Wakeups || len(a.Workload.Threads[i].Ops) != len(b.Workload.Threads[i].Ops) {
			t.Errorf("task %d: %+v with -N -t, %+v with plugins", i, x, y)
		}
		if d := x.CPUTime - y.CPUTime; d < -2000 || d > 2000 {
			t.Errorf("%s: CPU time %d with -N -t, %d with plugins", x.Name, x.CPUTime, y.CPUTime)
		}
	}
}

func TestReadFtraceErrors(t *testing.T) {
	const sw = "            bash-22072 [000]   516.651212: sched_switch:         "
	const ok = sw + "prev_comm=bash prev_pid=22072 prev_prio=120 prev_state=R ==> next_comm=rcu_preempt next_pid=15 next_prio=120\n"
	cases := []struct {
		name, text, want string
	}{
		{"no cpu", "bash-1 516.651212: sched_switch: prev_comm=a\n", "in.txt:1: cpu: no [CPU] column"},
		{"bad cpu", "bash-1 [99999999999999999999] 1.0: sched_switch: x\n", "in.txt:1: cpu:"},
		{"no pid", "bash [000] 1.0: sched_switch: x\n", "in.txt:1: task: no pid"},
		{"huge pid", "bash-99999999 [000] 1.0: sched_switch: x\n", "in.txt:1: task: pid"},
		{"bad time", "bash-1 [000] 1.0x: sched_switch: x\n", "in.txt:1: timestamp:"},
		{"ten decimals", "bash-1 [000] 1.0123456789: sched_switch: x\n", "in.txt:1: timestamp:"},
		{"no event", "bash-1 [000] 1.0: \n", "in.txt:1: event:"},
		{"missing field", ok + sw + "prev_comm=bash prev_pid=22072 prev_state=R ==> next_comm=a next_pid=15 next_prio=120\n", "in.txt:2: prev_prio: missing"},
		{"bad pid", sw + "prev_comm=bash prev_pid=x prev_prio=120 prev_state=R ==> next_comm=a next_pid=15 next_prio=120\n", "in.txt:1: prev_pid:"},
		{"absurd prio", sw + "prev_comm=bash prev_pid=1 prev_prio=1200 prev_state=R ==> next_comm=a next_pid=15 next_prio=120\n", "in.txt:1: prev_prio:"},
		{"empty state", sw + "prev_comm=bash prev_pid=1 prev_prio=120 prev_state= ==> next_comm=a next_pid=15 next_prio=120\n", "in.txt:1: prev_state: empty"},
		{"bad target", "a-1 [000] 1.0: sched_wakeup: comm=b pid=2 prio=120 target_cpu=-1\n", "in.txt:1: target_cpu:"},
		{"bad plugin switch", sw + "a:1 [120] R => b:2 [120]\n", "in.txt:1: sched_switch:"},
		{"bad plugin wakeup", "a-1 [000] 1.0: sched_wakeup: b:x [120] CPU:000\n", "in.txt:1: comm:"},
		{"bad migrate", "a-1 [000] 1.0: sched_migrate_task: comm=b pid=2 prio=120 orig_cpu=0 dest_cpu=z\n", "in.txt:1: dest_cpu:"},
		{"bad fork", "a-1 [000] 1.0: sched_process_fork: comm=a pid=1 child_comm=b child_pid=-3\n", "in.txt:1: child_pid:"},
		{"bad exit", "a-1 [000] 1.0: sched_process_exit: comm=a pid=\n", "in.txt:1: pid:"},
		{"empty", "", "in.txt: the trace shows no task"},
		{"only comments", "# tracer: nop\n#\ncpus=2\n", "in.txt: the trace shows no task"},
		{"long line", "a-1 [000] 1.0: x: " + strings.Repeat("y", maxLine+10) + "\n", "in.txt:1: line longer than 1 MiB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			im, err := ReadFtrace(strings.NewReader(tc.text), "in.txt", nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("ReadFtrace = %v, %v; want an *Error", im, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("ReadFtrace error = %q, want prefix %q", err, tc.want)
			}
		})
	}
}

func TestReadFtraceWarnings(t *testing.T) {
	const a = "            bash-10    [000]     1.000000: sched_switch:         prev_comm=bash prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=cat next_pid=11 next_prio=120\n"
	cases := []struct {
		name, text, want string
	}{
		{"time goes back", a + "             cat-11    [000]     0.500000: sched_switch:         prev_comm=cat prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n", "timestamp goes back"},
		{"lost events", a + "CPU:0 [LOST 12 EVENTS]\n", "CPU:0 [LOST 12 EVENTS]"},
		{"switch from the wrong task", a + "             zzz-12    [000]     1.500000: sched_switch:         prev_comm=zzz prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n", "CPU 0 runs pid 12 without a switch to it from cat-11"},
		{"pid reuse", a + "             cat-11    [000]     1.100000: sched_process_fork:   comm=cat pid=11 child_comm=x child_pid=10\n", "fork of pid 10, which is alive"},
		{"truncated", a + "             cat-11    [000]     1.1000", "truncated last line"},
		{"deadline prio", "            bash-10    [000]     1.000000: sched_switch:         prev_comm=bash prev_pid=10 prev_prio=-1 prev_state=S ==> next_comm=cat next_pid=11 next_prio=120\n", "SCHED_DEADLINE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			im, err := ReadFtrace(strings.NewReader(tc.text), "in.txt", nil)
			if err != nil {
				t.Fatal(err)
			}
			if im.Warned == 0 || !strings.Contains(im.Warnings[0].String(), tc.want) {
				t.Fatalf("warnings %v, want one containing %q", im.Warnings, tc.want)
			}
			if !strings.HasPrefix(im.Warnings[0].String(), "in.txt:") {
				t.Errorf("warning %q does not name the file", im.Warnings[0])
			}
		})
	}
	// MaxWarnings keeps the first ones and counts them all.
	text := a + strings.Repeat("CPU:0 [LOST 1 EVENTS]\n", 10)
	im, err := ReadFtrace(strings.NewReader(text), "in.txt", &ImportOptions{MaxWarnings: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Warnings) != 3 || im.Warned != 10 {
		t.Errorf("kept %d warnings, counted %d; want 3 and 10", len(im.Warnings), im.Warned)
	}
}

func FuzzReadFtrace(f *testing.F) {
	for _, name := range []string{"tracefs-trace.txt", "tracecmd-report.txt", "perf-sched-script.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		f.Add(strings.Join(lines[:min(len(lines), 25)], ""))
	}
	// sched_stat_runtime in both layouts, charging running, unknown and remote tasks.
	f.Add(statTrace)
	f.Add("a-1 [000] 1.0: sched_stat_runtime: comm=a pid=1 runtime=281474976710656 [ns] vruntime=18446744073709551615 [ns]\n" +
		"a-1 [000] 0.5: sched_stat_runtime: comm=b pid=2 runtime=7 [ns]\n" +
		"a-1 [000] 2.0: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=X ==> next_comm=a next_pid=1 next_prio=120\n" +
		"a-1 [001] 2.0: sched_stat_runtime: comm=a pid=1 runtime=3 [ns]\n")
	// Lost switches, renames, a buffer that starts late, kernel threads.
	f.Add(randomFtrace(rand.New(rand.NewPCG(1, 26)), 40))
	f.Fuzz(func(t *testing.T, text string) {
		for _, opts := range []ImportOptions{{}, {Summary: true}, {NoPipes: true}, {KernelThreads: KernelDrop}, {KernelThreads: KernelKeep}} {
			// The accounting invariant is the oracle: whatever the input, each CPU's runs never
			// overlap and the CPU time of all tasks is at most CPUs × span.
			o, log := chargeLog(opts)
			im, err := ReadFtrace(strings.NewReader(text), "fuzz.txt", o)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.File != "fuzz.txt" {
					t.Fatalf("error %v is not an *Error naming the file", err)
				}
				if strings.Contains(err.Error(), "internal error") {
					t.Fatal(err)
				}
				continue
			}
			if err := im.Workload.Validate(); err != nil {
				t.Fatalf("imported workload does not validate: %v", err)
			}
			if len(im.Tasks) != len(im.Workload.Threads) {
				t.Fatalf("%d tasks, %d threads", len(im.Tasks), len(im.Workload.Threads))
			}
			for _, ts := range im.Tasks {
				if ts.CPUTime < 0 || ts.WaitTime < 0 || ts.Sleep < 0 || ts.Runtime < 0 || ts.RuntimeEvents < 0 {
					t.Fatalf("negative times: %+v", ts)
				}
			}
			if err := accountingError(im, *log); err != nil {
				t.Fatalf("%+v: %v", opts, err)
			}
		}
	})
}

// TestReplayReal replays each real trace's import on a machine with the trace's CPUs: every
// task gets exactly the CPU time the trace shows (no replay is stuck on a message that never
// comes), whatever the policy does to the waiting.
func TestReplayReal(t *testing.T) {
	for _, name := range realTraces {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			im, err := ReadFtrace(f, name, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Recorded on Linux, where kernel threads run SCHED_FIFO at 99: a FreeBSD policy
			// refuses that scale, so the replay runs under the preset nearest the recording
			// kernel, 6.18 (host.NearestPolicy).
			c, err := Replay(sim.Config{Topology: topology.Uniform(1, 1, 1, im.CPUs, 1)}, policy("cfs:v6.18"), im, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range c.Tasks {
				if !tc.Ran || tc.CPUTime != tc.Trace.CPUTime {
					t.Errorf("%s: replayed CPU %d ns (ran %t), the trace shows %d", tc.Trace.Name, tc.CPUTime, tc.Ran, tc.Trace.CPUTime)
				}
			}
		})
	}
}
