package trace

// This file implements what every importer returns: the Imported workload with the trace's
// own timing, and the errors and warnings that locate problems in the input.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// ImportOptions tune the importers. The zero value (or nil) gives the defaults.
type ImportOptions struct {
	// Summary replaces each task's exact script (one op per run and block the trace shows,
	// memory growing with the trace) by a summary of it: a repeat of an exponential run and an
	// exponential sleep with the task's mean burst and mean sleep. The importer's memory is then
	// per task only, whatever the size of the trace. Summaries have no pipes and no forks:
	// forked tasks start at their fork's time.
	Summary bool
	// NoPipes turns every blocked interval into a sleep of its length, even when the wake-up
	// names a waker; by default a waker → wakee wake-up becomes a message on a pipe, so the
	// dependency survives a change of scheduler.
	NoPipes bool
	// GoThreads imports a Go execution trace at the level of Ms (OS threads) instead of
	// goroutines; see ReadGoTrace.
	GoThreads bool
	// KernelThreads says what to do with the per-CPU kernel threads of a Linux trace; the zero
	// value, KernelCharge, keeps each as a CPU-time charge on its CPU (see KernelMode).
	KernelThreads KernelMode
	// MaxWarnings bounds the warnings kept (all are counted); 0 means 100.
	MaxWarnings int
	// KTRClockHz is the rate of a KTR trace's timestamps (ReadKTR), in ticks per second:
	// schedgraph.py's second argument times 1e9. 0 derives it from the trace's statclock
	// events, as schedgraph.py does.
	KTRClockHz float64
	// KTRVersion is the FreeBSD whose priority layout (sys/sys/priority.h) a KTR trace's
	// priorities are read in (ReadKTR): the zero value is ule.Main (FreeBSD main since the 2025
	// run-queue rework), ule.Legacy FreeBSD 13 and 14, ule.FreeBSD9 the layout of 2011.
	KTRVersion ule.Version
	// MemoryLimit bounds the memory an exact import and its replay may need, in bytes. The
	// importer estimates it as it reads: about 300 bytes of live heap an op (one op for each
	// run, sleep, message and fork the trace shows: the op, the simulator's compiled copy of
	// it, its share of the latency samples), twice that for the garbage collector's headroom.
	// An import whose estimate passes the limit stops with an *Error naming the limit and the
	// line the trace had got to, which suggests Summary (whose memory is per task, whatever the
	// trace's length); 0 means no limit. schedbench replay passes its -max-memory, and also
	// makes the collector keep the heap within it (runtime/debug.SetMemoryLimit).
	MemoryLimit int64
	// Costs, if not nil, are the costs of the machine the import will be replayed on
	// (sim.Config.Costs, as a Profile sets them). A recorded run holds what the recording
	// kernel spent inside it: the switch into the task (context_switch, switch_mm), the cache
	// refill after others ran or after a move, the wake-ups the task made by pipe or fork
	// (try_to_wake_up, wake_up_new_task) and the reschedule IPIs it sent for them (a wake-up
	// whose target CPU the trace shows idle), the clock interrupts while it ran. A machine that
	// charges those steps itself would count them twice; with Costs, each run is shortened by
	// the mean (sim.Cost.Mean) of what the machine charges at the steps the trace shows in it,
	// as if the replay made the recording's switches, so that a replay that places the tasks as
	// the recording did gives them the trace's CPU time. Idle exits, IPIs and timer slack come
	// before a run, not inside it, and are not deducted; Summary mode deducts from the mean
	// burst. Hz is the replay machine's clock rate (0: sim.DefaultHz) and Topology its CPUs, for
	// the level a move crosses (nil: every two CPUs share a last-level cache, as the default
	// replay machine's do).
	Costs    *sim.Costs
	Hz       int
	Topology *topology.Topology

	// onCharge, for tests, is told of every stretch of CPU time the import charges a task.
	onCharge func(cpu int, key int64, from, to int64)
}

func (o *ImportOptions) maxWarnings() int {
	if o == nil || o.MaxWarnings <= 0 {
		return 100
	}
	return o.MaxWarnings
}

func (o *ImportOptions) build() buildOptions {
	if o == nil {
		return buildOptions{}
	}
	return buildOptions{summary: o.Summary, noPipes: o.NoPipes, kernel: o.KernelThreads, maxBytes: o.MemoryLimit,
		deduct: newDeductions(o), onCharge: o.onCharge}
}

// Imported is a trace turned into a workload.
type Imported struct {
	// Workload replays the trace: a thread declaration per task, in the order the trace first
	// shows them.
	Workload *workload.Workload
	// Tasks holds what the trace says of each task, in the order of Workload.Threads.
	Tasks []TaskStats
	// Dropped holds what the trace says of the tasks the import left out of the workload
	// (KernelDrop's per-CPU kernel threads), in the order the trace first shows them; Charged
	// counts the tasks of Tasks kept as CPU-time charges (KernelCharge).
	Dropped []TaskStats
	Charged int
	// Duration is the time from the first event to the last, in nanoseconds.
	Duration int64
	// CPUs is one more than the largest CPU number the trace names.
	CPUs int
	// Events counts the events used; Skipped counts the others by name (events the importer
	// does not need, such as irq or sched_stat_wait events).
	Events  int64
	Skipped map[string]int64
	// Warnings are the recoverable problems, the first MaxWarnings of them; Warned counts all.
	Warnings []Warning
	Warned   int
}

// A Warning is a recoverable problem of the input: the event was used as well as it could be,
// or ignored.
type Warning struct {
	File string
	Line int // 0 when the problem is not at one line
	Msg  string
}

// String returns the warning as "file:line: message" (without the line when it is 0).
func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg)
	}
	return w.File + ": " + w.Msg
}

// An Error is a problem of the input that stops the import: the file, the line (0 when it is
// not at one line), the field concerned (empty when the line as a whole is wrong) and what
// is wrong.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error returns the problem as "file:line: field: message", leaving out a zero line and an
// empty field.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

// Task returns the stats of the task whose declaration is named name, or nil.
func (im *Imported) Task(name string) *TaskStats {
	for i := range im.Tasks {
		if im.Tasks[i].Name == name {
			return &im.Tasks[i]
		}
	}
	return nil
}

// SkippedNames returns the names of the skipped events, sorted, each with its count, as
// "name=count".
func (im *Imported) SkippedNames() string {
	var s []string
	for k, v := range im.Skipped {
		s = append(s, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(s)
	return strings.Join(s, " ")
}

// warner collects warnings for one input.
type warner struct {
	file string
	line int
	max  int
	list []Warning
	n    int
}

func (w *warner) warn(format string, args ...any) {
	w.n++
	if len(w.list) < w.max {
		w.list = append(w.list, Warning{File: w.file, Line: w.line, Msg: fmt.Sprintf(format, args...)})
	}
}

// memoryMessage is the error of an exact import whose estimate passed ImportOptions.MemoryLimit.
func memoryMessage(b *builder) string {
	return fmt.Sprintf("an exact import of this trace needs more than the memory limit of %s (%d ops of %d tasks so far, about %s); "+
		"import it as a summary (ImportOptions.Summary, schedbench replay -summary), whose memory is per task, or allow more memory (schedbench replay -max-memory)",
		byteSize(b.o.maxBytes), b.nops, len(b.tasks), byteSize(b.memBytes()))
}

// byteSize formats n bytes in the largest binary unit that keeps it at least 1.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
