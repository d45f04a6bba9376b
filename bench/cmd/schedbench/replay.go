package main

// This file implements the replay subcommand: a real trace (ftrace text, a Go execution trace)
// or an rt-app description run under each policy, beside the trace's own timing.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bench/trace"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

const replaySynopsis = "[flags] TRACE"

// replaySchema names the JSON schema of replay's -format json.
const replaySchema = "schedbench.replay/1"

// The kinds of input replay reads.
const (
	kindFtrace  = "ftrace"  // tracefs, trace-cmd report, perf sched script text
	kindGoTrace = "gotrace" // a Go execution trace (runtime/trace, go test -trace)
	kindKTR     = "ktr"     // FreeBSD's KTR_SCHED trace, as ktrdump -ct prints it
	kindRTApp   = "rtapp"   // an rt-app JSON description
)

// kindNames are the kinds as the text output names them.
var kindNames = map[string]string{
	kindFtrace:  "ftrace text",
	kindGoTrace: "Go execution trace",
	kindKTR:     "FreeBSD KTR_SCHED trace",
	kindRTApp:   "rt-app description",
}

// replayInput is an imported trace or description.
type replayInput struct {
	path, kind string
	im         *trace.Imported // nil for rt-app, which has no recorded timing
	rt         *trace.RTApp    // nil for traces
}

// workloadFor returns the workload to replay under p on t (a trace's, with Linux's real-time
// priorities mapped for the policies that take FreeBSD's levels only; see
// trace.Imported.ForPolicy).
func (in *replayInput) workloadFor(p sim.Policy, t *topology.Topology) *workload.Workload {
	if in.im != nil {
		w, _ := in.im.ForPolicy(p, t)
		return w
	}
	return in.rt.Workload
}

func (in *replayInput) warnings() (kept []trace.Warning, all int) {
	if in.im != nil {
		return in.im.Warnings, in.im.Warned
	}
	return in.rt.Warnings, len(in.rt.Warnings)
}

// defaultUntil is the replay's length when -until is not given: the library's default for a
// trace (ten times its duration plus a second), global.duration for an rt-app description
// that has one, and the other commands' 10 s for one that runs forever.
func (in *replayInput) defaultUntil() time.Duration {
	switch {
	case in.im != nil:
		return time.Duration(10*in.im.Duration) + time.Second
	case in.rt.Duration > 0:
		return time.Duration(in.rt.Duration)
	}
	return 10 * time.Second
}

// defaultTopology is the machine when -topology is not given: one package with a shared
// last-level cache and a CPU per CPU the trace names (the machine it was recorded on, as far
// as the trace tells), or two CPUs for rt-app.
func (in *replayInput) defaultTopology() string {
	n := 2
	if in.im != nil && in.im.CPUs > 0 {
		n = in.im.CPUs
	}
	return fmt.Sprintf("package:1 node:1 llc:1 cpu:%d", n)
}

func cmdReplay(e *env, args []string) error {
	var f machineFlags
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	f.register(fs, "ule,cfs")
	// The machine and the length default to the trace's own. The profile defaults to ideal: the
	// trace's bursts as recorded. Under another profile the import shortens each burst by the
	// costs the profile charges at the steps inside it (trace.ImportOptions.Costs), so that the
	// model's costs replace the recording machine's instead of being counted twice.
	f.topology, f.until, f.profile = "", 0, "ideal"
	prof := fs.Lookup("profile")
	prof.DefValue = "ideal"
	prof.Usage += "; for replay the default is ideal (the bursts as recorded); under another, each burst is shortened by the profile's costs of the switches, refills, wake-ups and clock interrupts inside it, which the recording machine paid"
	topo, until := fs.Lookup("topology"), fs.Lookup("until")
	topo.DefValue, until.DefValue = "", "0s"
	topo.Usage += " (default: \"package:1 node:1 llc:1 cpu:N\", N the CPUs the trace names; 2 for rt-app)"
	until.Usage = "simulated `time` to replay for (0: ten times the trace's duration plus 1s; an rt-app file's global.duration, or 10s)"
	format := fs.String("format", "text", "output `format` on stdout: text or json (schema in the package documentation)")
	summary := fs.Bool("summary", false, "replay each task as a repeat of its mean burst and mean sleep instead of its exact script (trace.ImportOptions.Summary)")
	noPipes := fs.Bool("no-pipes", false, "replay every blocked interval as a sleep, even when the trace names the waker")
	goThreads := fs.Bool("go-threads", false, "import a Go execution trace at the level of Ms (OS threads) instead of goroutines")
	kthreads := fs.String("kthreads", "charge", "what to do with a Linux trace's per-CPU kernel threads (migration/N, ksoftirqd/N, kworker/N:M, rcu_*): `mode` charge (pinned to their CPU, run at their recorded times), drop (left out, their CPU time reported) or keep (ordinary tasks)")
	top := fs.Int("top", defaultTop, "show the `N` tasks with the most CPU time in the trace, most first (0: every task, in the trace's order)")
	taskPattern := fs.String("task", "", "show only the tasks whose name-pid matches this Go regular expression (`PATTERN`)")
	ktrGHz := fs.Float64("ktr-ghz", 0, "the clock rate of a FreeBSD KTR trace's timestamps, in `GHz` (schedgraph.py's second argument; 0: from its statclock events, else 1)")
	ktrLayout := fs.String("ktr-layout", "main", "the FreeBSD priority layout a KTR trace's priorities are read in: `version` main (since 2025), legacy (FreeBSD 13 and 14) or freebsd9 (2011)")
	maxMemory := fs.String("max-memory", defaultMaxMemory, "the memory an exact import may use (`SIZE`, such as 512MiB or 4GiB; 0: no limit): a trace that needs more is an error suggesting -summary")
	if err := parseFlags(e, fs, args, replaySynopsis); err != nil {
		return err
	}
	explicit := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { explicit[fl.Name] = true })
	if err := checkReplayFlags(fs, &f, *format, explicit); err != nil {
		return err
	}
	opts, err := replayImportOptions(*kthreads, *ktrLayout, *ktrGHz, *maxMemory)
	if err != nil {
		return err
	}
	opts.Summary, opts.NoPipes, opts.GoThreads = *summary, *noPipes, *goThreads
	table, err := replayTable(*top, *taskPattern)
	if err != nil {
		return err
	}
	ps, err := parsePolicies(f.policy)
	if err != nil {
		return usagef("%v", err)
	}
	if err := replayCosts(e, &f, &opts); err != nil {
		return err
	}
	restore := memoryBudget(opts.MemoryLimit)
	defer restore()
	in, err := readReplayInput(e, fs.Arg(0), &opts)
	if err != nil {
		return usagef("%v", err)
	}
	if err := checkReplayKind(in, *summary || *noPipes || *goThreads || explicit["kthreads"], *goThreads); err != nil {
		return err
	}
	if f.topology == "" {
		f.topology = in.defaultTopology()
	}
	t, err := e.topology(f.topology)
	if err != nil {
		return usagef("%v", err)
	}
	if f.until == 0 {
		f.until = in.defaultUntil()
	}
	cfg := sim.Config{Topology: t, Hz: f.hz, StatHz: f.statHz, Seed: f.seed, FlattenGroups: f.flatten}
	f.prof.Apply(&cfg)
	if ps, err = replayable(e, cfg, ps, in, t, explicit["policy"]); err != nil {
		return err
	}
	warnReplay(e, in)
	doc := newReplayDoc(in, t, &f, ps, opts.KernelThreads)
	return replayAll(e, cfg, doc, ps, in, f.until, table, *format)
}

// checkReplayKind refuses import options (imports says one was given) for an rt-app
// description, and -go-threads for anything but a Go execution trace.
func checkReplayKind(in *replayInput, imports, goThreads bool) error {
	if imports && in.kind == kindRTApp {
		return usagef("-summary, -no-pipes, -go-threads and -kthreads are import options of traces; %s is an rt-app description", in.path)
	}
	if goThreads && in.kind != kindGoTrace {
		return usagef("-go-threads is for Go execution traces; %s is %s", in.path, kindNames[in.kind])
	}
	return nil
}

// replayCosts resolves f's machine profile and, when it charges anything, has the import take
// its costs out of the recorded bursts (opts.Costs, at f's clock rate, on -topology's machine
// when one is given).
func replayCosts(e *env, f *machineFlags, opts *trace.ImportOptions) error {
	var err error
	if f.prof, err = resolveProfile(f.profile); err != nil {
		return err
	}
	var costs sim.Config
	f.prof.Apply(&costs)
	if costs.Costs != (sim.Costs{}) {
		opts.Costs, opts.Hz = &costs.Costs, f.hz
		if f.topology != "" {
			if opts.Topology, err = e.topology(f.topology); err != nil {
				return usagef("%v", err)
			}
		}
	}
	return nil
}

// replayAll replays in under each policy of ps, in turn, and writes doc in format.
func replayAll(e *env, cfg sim.Config, doc *replayDoc, ps []policySpec, in *replayInput, until time.Duration, table *trace.TableOptions, format string) error {
	for _, p := range ps {
		if e.ctx.Err() != nil {
			return fmt.Errorf("interrupted; nothing written")
		}
		r, err := replayOne(e, cfg, p.new(), in, until, table)
		if err != nil {
			return fmt.Errorf("%s: %v", p.name, err)
		}
		doc.Replays = append(doc.Replays, r)
	}
	if format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	return writeReplayText(e.stdout, doc)
}

// replayImportOptions is the import options from -kthreads, -ktr-layout, -ktr-ghz and
// -max-memory.
func replayImportOptions(kthreads, ktrLayout string, ktrGHz float64, maxMemory string) (trace.ImportOptions, error) {
	kmode, err := trace.ParseKernelMode(kthreads)
	if err != nil {
		return trace.ImportOptions{}, usagef("-kthreads: %v", err)
	}
	ktrVersion, ok := ktrVersions[ktrLayout]
	if !ok {
		return trace.ImportOptions{}, usagef("-ktr-layout %q: want main, legacy or freebsd9", ktrLayout)
	}
	if ktrGHz < 0 || ktrGHz > 1000 {
		return trace.ImportOptions{}, usagef("-ktr-ghz %v: want a clock rate in GHz", ktrGHz)
	}
	limit, err := parseSize(maxMemory)
	if err != nil {
		return trace.ImportOptions{}, usagef("-max-memory %q: %v", maxMemory, err)
	}
	return trace.ImportOptions{KernelThreads: kmode, MemoryLimit: limit, KTRClockHz: ktrGHz * 1e9, KTRVersion: ktrVersion}, nil
}

// warnReplay prints the import's warnings on stderr, the first few and then their count.
func warnReplay(e *env, in *replayInput) {
	kept, all := in.warnings()
	for _, w := range kept {
		fmt.Fprintf(e.stderr, "schedbench replay: warning: %s\n", w)
	}
	if all > len(kept) {
		fmt.Fprintf(e.stderr, "schedbench replay: warning: %s: %d more warnings\n", in.path, all-len(kept))
	}
}

// checkReplayFlags checks replay's arguments and the machine flags replay reads.
func checkReplayFlags(fs *flag.FlagSet, f *machineFlags, format string, explicit map[string]bool) error {
	switch {
	case format != "text" && format != "json":
		return usagef("-format %q: want text or json", format)
	case fs.NArg() == 0:
		return usagef("no trace file given")
	case fs.NArg() > 1:
		return usagef("one trace at a time, got %d arguments: %q", fs.NArg(), fs.Args())
	case f.until < 0:
		return usagef("-until %v: want a positive duration, or 0 for the trace's own", f.until)
	case f.hz < 2 || f.hz > 100000:
		return usagef("-hz %d: want 2..100000", f.hz)
	case f.statHz < 1 || f.statHz > f.hz:
		return usagef("-stathz %d: want 1..hz (%d)", f.statHz, f.hz)
	}
	if explicit["topology"] && f.topology == "" {
		return usagef("-topology is empty")
	}
	return nil
}

// replayTable is the task table's options from -top and -task.
func replayTable(top int, taskPattern string) (*trace.TableOptions, error) {
	if top < 0 {
		return nil, usagef("-top %d: want a count of tasks, or 0 for all", top)
	}
	table := &trace.TableOptions{Top: top}
	if taskPattern != "" {
		var err error
		if table.Task, err = regexp.Compile(taskPattern); err != nil {
			return nil, usagef("-task %q: %v", taskPattern, err)
		}
	}
	return table, nil
}

// replayable is the policies of ps that accept in's workload on t. Every refusal (a task
// pinned to a CPU the topology lacks, a class the policy has not) is a usage error before
// anything runs when the policy was asked for (asked); a policy of the default set that
// refuses the trace is left out with a note. (Linux's real-time priorities, which most
// kernel traces have, run on rtprio levels under ULE and 4BSD: trace.Imported.ForPolicy.)
func replayable(e *env, cfg sim.Config, ps []policySpec, in *replayInput, t *topology.Topology, asked bool) ([]policySpec, error) {
	var runnable []policySpec
	for _, p := range ps {
		pol := p.new()
		if _, err := sim.New(cfg, pol, in.workloadFor(pol, t)); err != nil {
			if asked {
				return nil, usagef("%s on %s: %v", p.name, t, err)
			}
			fmt.Fprintf(e.stderr, "schedbench replay: %s left out: %v\n", p.name, err)
			continue
		}
		runnable = append(runnable, p)
	}
	if len(runnable) == 0 {
		return nil, usagef("no policy of the default set can replay %s; name one with -policy", in.path)
	}
	return runnable, nil
}

// ktrVersions are -ktr-layout's values.
var ktrVersions = map[string]ule.Version{"main": ule.Main, "legacy": ule.Legacy, "freebsd9": ule.FreeBSD9}

// defaultTop is the number of tasks the text table shows without -top: a Go trace holds
// thousands of goroutines, a system-wide Linux trace hundreds of tasks.
const defaultTop = 25

// defaultMaxMemory is -max-memory's default: an exact replay of a trace of 1.5 million events
// (a million ops) peaked at 490 MB of RSS; 2 GiB takes some 3.5 million ops (about 5 million
// events) exactly, and any trace as a summary.
const defaultMaxMemory = "2GiB"

// parseSize parses a size in bytes with an optional binary unit (KiB, MiB, GiB, TiB; K, M, G,
// T the same).
func parseSize(s string) (int64, error) {
	num := strings.TrimRight(s, "KMGTiBb")
	unit := strings.TrimSpace(s[len(num):])
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size such as 512MiB or 4GiB")
	}
	mult := map[string]float64{"": 1, "B": 1, "K": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MiB": 1 << 20,
		"G": 1 << 30, "GiB": 1 << 30, "T": 1 << 40, "TiB": 1 << 40}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("unknown unit %q (want KiB, MiB, GiB or TiB)", unit)
	}
	if n*mult > 1<<62 {
		return 0, fmt.Errorf("too large")
	}
	return int64(n * mult), nil
}

// memoryBudget makes the garbage collector keep the heap within limit (0: no limit) while
// the replay runs, at the runtime's default pace (the command's 400 suits sweeps, not an
// import whose live heap is large): a heap that would pass it is collected sooner, and the
// import itself stops at the limit with an error. It returns the function that restores the
// previous settings.
func memoryBudget(limit int64) func() {
	oldLimit := debug.SetMemoryLimit(-1)
	oldGC := -1
	if os.Getenv("GOGC") == "" {
		oldGC = debug.SetGCPercent(100)
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return func() {
		debug.SetMemoryLimit(oldLimit)
		if oldGC >= 0 {
			debug.SetGCPercent(oldGC)
		}
	}
}

// readReplayInput opens path and imports it by its content: a Go execution trace by its
// header ("go 1.NN trace") or a .gotrace name; a FreeBSD KTR trace by a KTRGRAPH line among its
// first lines or a .ktr name; a JSON object by its first key (rt-app's "global" or "tasks";
// schedkit's own workload JSON and Chrome trace-event JSON are refused with a hint); anything
// else as ftrace text. The readers stream; an error names the file
// and, where it can, the line and field.
func readReplayInput(e *env, path string, o *trace.ImportOptions) (*replayInput, error) {
	f, err := e.openInput(path) // "-": standard input
	path = inputName(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such trace file", path)
		}
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(64 << 10) // a shorter file gives what it has
	in := &replayInput{path: path, kind: sniffTrace(path, head)}
	switch in.kind {
	case kindGoTrace:
		in.im, err = trace.ReadGoTrace(br, path, o)
	case kindRTApp:
		in.rt, err = trace.ReadRTApp(br, path)
	case kindFtrace:
		in.im, err = trace.ReadFtrace(br, path, o)
	case kindKTR:
		in.im, err = trace.ReadKTR(br, path, o)
	default:
		err = errors.New(in.kind)
	}
	if err != nil {
		return nil, err // a *trace.Error names the file, the line and the field
	}
	return in, nil
}

// sniffTrace returns the kind of the file path whose first bytes are head, or, for a file
// replay does not read, the error message to print.
func sniffTrace(path string, head []byte) string {
	if filepath.Ext(path) == ".gotrace" || bytes.HasPrefix(head, []byte("go 1.")) && bytes.Contains(head[:min(len(head), 16)], []byte(" trace\x00")) {
		return kindGoTrace
	}
	if filepath.Ext(path) == ".ktr" || isKTR(head) {
		return kindKTR
	}
	text := bytes.TrimLeft(head, " \t\r\n")
	if !bytes.HasPrefix(text, []byte("{")) && filepath.Ext(path) != ".json" {
		return kindFtrace
	}
	// The first key of the object tells rt-app from the JSON files that are not traces.
	dec := json.NewDecoder(bytes.NewReader(text))
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		if key, err := dec.Token(); err == nil {
			switch key {
			case "threads", "groups", "pipes":
				return fmt.Sprintf("%s: a schedkit workload (JSON form), not a trace: run it with schedbench run", path)
			case "traceEvents", "displayTimeUnit", "otherData", "systemTraceEvents":
				return fmt.Sprintf("%s: Chrome trace-event JSON, which replay does not import (it reads ftrace text, Go execution traces and rt-app JSON; schedbench trace -format ftrace writes a run as ftrace text)", path)
			}
		}
	}
	// rt-app's own keys, an unknown key or malformed JSON: ReadRTApp says what is wrong.
	return kindRTApp
}

// isKTR reports whether one of the first ten lines of head is a ktrdump KTRGRAPH line: three
// numbers, then KTRGRAPH.
func isKTR(head []byte) bool {
	for i, l := range bytes.SplitN(head, []byte("\n"), 11) {
		if i == 10 {
			break
		}
		before, _, ok := bytes.Cut(l, []byte(" KTRGRAPH group:"))
		if ok && len(bytes.Fields(before)) == 3 {
			return true
		}
	}
	return false
}

// replayOne replays in under p. The simulator cannot stop a run half-way, so ^C abandons the
// replay in progress (the process exits) rather than wait for it.
func replayOne(e *env, cfg sim.Config, p sim.Policy, in *replayInput, until time.Duration, table *trace.TableOptions) (replayJSON, error) {
	type outcome struct {
		r   replayJSON
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		if in.im != nil {
			c, err := trace.Replay(cfg, p, in.im, until)
			if err == nil {
				o.r = comparisonJSON(c)
				var text bytes.Buffer
				if err = c.WriteTable(&text, table); err == nil {
					o.r.text, o.r.rows = text.String(), c.Rows(table)
				}
			}
			o.err = err
		} else {
			r, err := sim.Run(cfg, p, in.rt.Workload, until)
			if err == nil {
				o.r = descriptionJSON(r)
			}
			o.err = err
		}
		done <- o
	}()
	select {
	case o := <-done:
		return o.r, o.err
	case <-e.ctx.Done():
		return replayJSON{}, fmt.Errorf("interrupted; nothing written")
	}
}
