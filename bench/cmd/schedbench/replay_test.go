package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/trace"
	"github.com/schedkit/schedkit/topology"
)

// traceData is bench/trace's testdata: traces recorded on real machines (see its README).
const traceData = "../../trace/testdata/"

// TestReplayGolden replays each kind of input the command reads: trace-cmd report, perf sched
// script and tracefs text, a Go execution trace (as goroutines and as Ms) and an rt-app
// description, in both output formats. The import's warnings go to stderr.
func TestReplayGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"tracecmd", []string{"-policy", "cfs:v6.5,ule", traceData + "tracecmd-report.txt"}},
		{"perf", []string{"-policy", "cfs:v6.6", traceData + "perf-sched-script.txt"}},
		{"tracefs-json", []string{"-format", "json", "-policy", "cfs:v7.1", "-topology", "cpu:4", "-until", "50ms", traceData + "tracefs-trace.txt"}},
		{"gotrace", []string{"-policy", "ule,cfs:v6.6", traceData + "pipeline.gotrace"}},
		{"gotrace-ms", []string{"-go-threads", "-policy", "cfs", traceData + "pipeline.gotrace"}},
		{"rtapp", []string{"-policy", "cfs,cfs:v7.1", "testdata/rtapp.json"}},
		{"rtapp-json", []string{"-format", "json", "-policy", "bsd4:main", "-until", "100ms", "-topology", "cpu:1", "testdata/rtapp-other.json"}},
		{"ktr", []string{"-policy", "ule,cfs:v7.1", traceData + "pingpong.ktr"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, append([]string{"replay"}, tc.args...)...)
			if code != exitOK {
				t.Fatalf("status %d, stderr %q", code, errs)
			}
			checkGolden(t, "replay-"+tc.name+".golden", []byte(out+"--- stderr\n"+errs))
		})
	}
}

// TestReplayTableIsTheLibrarys checks that the command's table of a trace's replay is, byte
// for byte, what bench/trace's Comparison.WriteTable prints for the same replay: the command
// adds a heading, not another reading of the numbers.
func TestReplayTableIsTheLibrarys(t *testing.T) {
	for _, file := range []string{"pipeline.gotrace", "tracecmd-report-l-N-t.txt", "pingpong.ftrace"} {
		out, errs, code := runCLI(t, "replay", "-policy", "ule,cfs:v6.6", traceData+file)
		if code != exitOK {
			t.Fatalf("%s: status %d, stderr %q", file, code, errs)
		}
		in, err := readReplayInput(nil, traceData+file, &trace.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, in.im.CPUs, 1), Hz: sim.DefaultHz, StatHz: 127, Seed: 1}
		for _, name := range []string{"ule:main", "cfs:v6.6"} {
			p, err := newPolicy(name)
			if err != nil {
				t.Fatal(err)
			}
			c, err := trace.Replay(cfg, p.new(), in.im, 0)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := c.WriteTable(&want, &trace.TableOptions{Top: defaultTop}); err != nil {
				t.Fatal(err)
			}
			heading := p.name + " on " + cfg.Topology.String() + " for "
			i := strings.Index(out, heading)
			if i < 0 {
				t.Fatalf("%s: no heading %q in\n%s", file, heading, out)
			}
			table := out[i+strings.Index(out[i:], "\n")+1:]
			if !strings.HasPrefix(table, want.String()) {
				t.Errorf("%s under %s: the command's table\n%s\nis not the library's\n%s", file, name, table, want.String())
			}
		}
	}
}

// TestReplayJSON decodes replay's JSON into its schema type, refusing unknown fields, and
// checks what a replay keeps of a trace: each task's CPU time (its bursts are its script).
func TestReplayJSON(t *testing.T) {
	out, errs, code := runCLI(t, "replay", "-format", "json", "-policy", "ule,cfs,cfs:v7.1", traceData+"tracecmd-report-N-t.txt")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var d replayDoc
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("decoding replay's JSON as %s: %v", replaySchema, err)
	}
	if d.Schema != replaySchema || d.Kind != kindFtrace || len(d.Replays) != 3 || d.Trace.CPUs != 2 || d.Topology != "package:1 node:1 llc:1 cpu:2" {
		t.Fatalf("document: schema %q kind %q, %d replays, %d CPUs on %s; want %q, ftrace, 3, 2 on package:1 node:1 llc:1 cpu:2", d.Schema, d.Kind, len(d.Replays), d.Trace.CPUs, d.Topology, replaySchema)
	}
	for _, r := range d.Replays {
		if len(r.Tasks) != 10 {
			t.Errorf("%s: %d tasks, want the trace's 10", r.Policy, len(r.Tasks))
		}
		for _, task := range r.Tasks {
			if task.Trace == nil || task.Replay == nil || !task.Ran {
				t.Errorf("%s: task %s has no trace or replay timing", r.Policy, task.Name)
				continue
			}
			if task.Replay.CPUNS != task.Trace.CPUNS {
				t.Errorf("%s: task %s ran %d ns in the replay, %d in the trace", r.Policy, task.Name, task.Replay.CPUNS, task.Trace.CPUNS)
			}
		}
		if r.TotalTrace == nil || r.Total.CPUNS != r.TotalTrace.CPUNS || r.EndNS <= 0 {
			t.Errorf("%s: totals %+v / %+v, end %d", r.Policy, r.Total, r.TotalTrace, r.EndNS)
		}
	}
}

// TestReplaySniff checks how replay tells its inputs apart by their content, whatever
// their names.
func TestReplaySniff(t *testing.T) {
	gotrace, err := os.ReadFile(traceData + "pipeline.gotrace")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, head, want string
	}{
		{"x.trace", string(gotrace[:64]), kindGoTrace},
		{"x.gotrace", "", kindGoTrace},
		{"report.txt", "cpus=2\n  bash-1 [000] 1.0: sched_switch: …", kindFtrace},
		{"desc.json", "\n {\"global\": {}, \"tasks\": {}}", kindRTApp},
		{"desc", "{\"tasks\": {}}", kindRTApp},
		{"broken.json", "{{{", kindRTApp},
		{"w.json", "{\"threads\": []}", "not a trace: run it with schedbench run"},
		{"t.json", "{\"traceEvents\": []}", "Chrome trace-event JSON"},
		{"go.txt", "go 1.26 is a fine release", kindFtrace},
		{"ktr.out", "index  cpu timestamp        trace\n------ --- ---------------- ----- \n    26   0          5000000 KTRGRAPH group:\"thread\", id:\"a tid 1\", state:\"running\", attributes: prio:255\n", kindKTR},
		{"x.ktr", "", kindKTR},
		{"kt.txt", "  bash-1 [000] 1.0: sched_switch: prev_comm=KTRGRAPH group:", kindFtrace},
	} {
		if got := sniffTrace(tc.path, []byte(tc.head)); !strings.Contains(got, tc.want) {
			t.Errorf("sniffTrace(%q, %.20q) = %q, want %q", tc.path, tc.head, got, tc.want)
		}
	}
}

// TestReplayBadInput checks replay's mistakes as TestBadInput checks the others': one line
// on stderr naming the mistake (the file and line for a bad input), status 2, nothing on
// stdout.
func TestReplayBadInput(t *testing.T) {
	dir := t.TempDir()
	gotrace, err := os.ReadFile(traceData + "pipeline.gotrace")
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.gotrace")
	if err := os.WriteFile(truncated, gotrace[:300], 0o644); err != nil {
		t.Fatal(err)
	}
	tr := traceData + "tracecmd-report.txt"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no trace", nil, "no trace file given"},
		{"two traces", []string{tr, tr}, "one trace at a time"},
		{"unknown flag after the trace", []string{tr, "-bogus", "cfs"}, "flag provided but not defined: -bogus"},
		{"missing file", []string{"testdata/nosuch.txt"}, "testdata/nosuch.txt: no such trace file"},
		{"malformed ftrace", []string{"testdata/bad.ftrace"}, "testdata/bad.ftrace:1: cpu: no [CPU] column"},
		{"malformed rt-app", []string{"-policy", "cfs", "testdata/bad-rtapp.json"}, "testdata/bad-rtapp.json:4: tasks.a.run: -5 is not in"},
		{"truncated Go trace", []string{truncated}, "truncated.gotrace: "},
		{"schedkit workload JSON", []string{"testdata/bad.json"}, "testdata/bad.json: a schedkit workload (JSON form), not a trace"},
		{"Chrome JSON", []string{traceData + "pingpong.json"}, "pingpong.json: Chrome trace-event JSON, which replay does not import"},
		{"unknown format", []string{"-format", "csv", tr}, `-format "csv": want text or json`},
		{"negative until", []string{"-until", "-1s", tr}, "-until -1s: want a positive duration, or 0"},
		{"hz too low", []string{"-hz", "1", tr}, "-hz 1: want 2..100000"},
		{"unknown policy", []string{"-policy", "ule,nt", tr}, `unknown policy "nt"`},
		{"empty topology", []string{"-topology", "", tr}, "-topology is empty"},
		{"malformed topology", []string{"-topology", "cpu:0", tr}, "-topology: topology: parse"},
		{"go-threads on ftrace", []string{"-go-threads", tr}, "-go-threads is for Go execution traces; " + tr + " is ftrace text"},
		{"import options on rt-app", []string{"-summary", "testdata/rtapp.json"}, "testdata/rtapp.json is an rt-app description"},
		{"Linux real-time priorities under ULE", []string{"-policy", "cfs,ule", "testdata/rtapp.json"}, `ule-main on package:1 node:1 llc:1 cpu:2: sim: ule-main: thread "periodic": ule: fifo priority 10 is on the linux scale`},
		{"pinned off the machine", []string{"-topology", "cpu:1", "-policy", "cfs", "testdata/rtapp-pinned.json"}, "cfs-v6.5 on cpu:1:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"replay"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("status %d, want %d (stderr %q)", code, exitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr %q, want exactly one line", stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tc.want)
			}
		})
	}
}

// TestReplayInterrupted: a cancelled context stops the replay before anything is printed.
func TestReplayInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := cli(&env{ctx: ctx, stdout: &out, stderr: &errb}, []string{"replay", traceData + "pingpong.ftrace"})
	if code != exitFailure || out.Len() != 0 || errb.String() != "schedbench replay: interrupted; nothing written\n" {
		t.Errorf("status %d, stdout %q, stderr %q; want 1, nothing and the interruption", code, out.String(), errb.String())
	}
}

// TestREADMEReplay checks the README's replay example: the command it shows is the golden
// test's, and every line of the output it shows is a line of that command's output today.
func TestREADMEReplay(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const command = "    go run ./bench/cmd/schedbench replay -policy ule,cfs:v6.6 bench/trace/testdata/pipeline.gotrace\n\n```\n"
	_, block, ok := strings.Cut(string(readme), command)
	if !ok {
		t.Fatalf("README.md does not show %q followed by its output", command)
	}
	block, _, _ = strings.Cut(block, "```")
	out, errs, code := runCLI(t, "replay", "-policy", "ule,cfs:v6.6", traceData+"pipeline.gotrace")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	lines := strings.Split(out, "\n")
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		if !slices.Contains(lines, l) {
			t.Errorf("README.md shows a line the command does not print:\n%s", l)
		}
		n++
	}
	if n < 5 {
		t.Errorf("README.md shows %d lines of the replay, want the heading and the pipeline's rows", n)
	}
}

// TestReplayDefaultLeavesOutRefusingPolicies replays an rt-app description with a SCHED_FIFO
// task without -policy: ULE, which refuses Linux's real-time priorities (an rt-app file's are
// Linux's, and only traces have them mapped), is left out with a note and CFS still runs;
// asked for by name, ULE's refusal is a usage error.
func TestReplayDefaultLeavesOutRefusingPolicies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo.json")
	desc := `{"global": {"duration": 1}, "tasks": {"rt": {"policy": "SCHED_FIFO", "priority": 50, "loop": 1, "run": 1000}}}`
	if err := os.WriteFile(path, []byte(desc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "replay", path)
	if code != exitOK {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	if !strings.Contains(errs, "schedbench replay: ule-main left out: ") || !strings.Contains(errs, "fifo priority 50 is on the linux scale") {
		t.Errorf("stderr does not say why ULE was left out:\n%s", errs)
	}
	if strings.Contains(out, "ule-main") || !strings.Contains(out, "cfs-") {
		t.Errorf("stdout should have CFS's replay and not ULE's:\n%s", out)
	}
	_, errs, code = runCLI(t, "replay", "-policy", "ule", path)
	if code != exitUsage || !strings.Contains(errs, "fifo priority 50") {
		t.Errorf("-policy ule: status %d, stderr %q", code, errs)
	}
}

// TestReplayFreeBSDPoliciesTakeLinuxTraces replays a Linux trace whose migration/0 runs
// SCHED_FIFO 99 under ULE and 4BSD: its priority runs on rtprio level 0 and the output says
// so; under CFS nothing is mapped. On one CPU, the charge of ksoftirqd/1 (pinned to CPU 1 on
// the trace's machine) runs unpinned, and the output says so too.
func TestReplayFreeBSDPoliciesTakeLinuxTraces(t *testing.T) {
	out, errs, code := runCLI(t, "replay", "-policy", "ule,bsd4,cfs:v6.6", traceData+"perf-sched-script.txt")
	if code != exitOK {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	const note = "real-time: 1 Linux priority mapped onto rtprio levels (sched_priority→rtprio): migration/0-18 99→0"
	if n := strings.Count(out, note); n != 2 {
		t.Errorf("the note %q appears %d times, want twice (ULE and 4BSD, not CFS):\n%s", note, n, out)
	}
	for _, p := range []string{"ule-main", "4bsd-main", "cfs-v6.6"} {
		if !strings.Contains(out, p+" on ") {
			t.Errorf("no replay under %s:\n%s", p, out)
		}
	}
	out, errs, code = runCLI(t, "replay", "-policy", "ule", "-topology", "cpu:1", traceData+"tracefs-trace.txt")
	if code != exitOK {
		t.Fatalf("-topology cpu:1: status %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, "charged on a CPU this machine lacks, run unpinned: ") || !strings.Contains(out, "ksoftirqd/1-22") {
		t.Errorf("-topology cpu:1: no note of the unpinned charges:\n%s", out)
	}
}
