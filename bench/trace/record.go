package trace

// This file implements the portable part of recording: the options, the events recorded, and
// the merge of per-CPU text streams into one trace ordered by time.

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"strings"
)

// RecordEvents are the tracepoints a Recording enables, as "subsystem/event": the ones
// ReadFtrace uses. sched_stat_runtime and task_rename are left out where the kernel lacks them.
var RecordEvents = []string{
	"sched/sched_switch", "sched/sched_wakeup", "sched/sched_waking", "sched/sched_wakeup_new",
	"sched/sched_migrate_task", "sched/sched_process_fork", "sched/sched_process_exit",
	"sched/sched_process_exec", "sched/sched_stat_runtime", "task/task_rename",
}

// optionalEvents may be missing from a kernel without the recording failing.
var optionalEvents = map[string]bool{"sched/sched_stat_runtime": true, "task/task_rename": true,
	"sched/sched_process_exec": true, "sched/sched_waking": true}

// RecordOptions tune a Recording. The zero value (or nil) gives the defaults.
type RecordOptions struct {
	// Tracefs is where tracefs is mounted; "" finds it (/sys/kernel/tracing, then
	// /sys/kernel/debug/tracing) or, for root, mounts it at /sys/kernel/tracing for the
	// recording's time.
	Tracefs string
	// BufferKB is each CPU's ring buffer in the instance, in KiB; 0 means a sixteenth of the
	// machine's memory (at most 1 GiB) shared by the CPUs, at least 4 MiB and at most 256 MiB
	// each. The recording reads the buffers as they fill; events written faster than it reads
	// (on a loaded machine, where the readers get little CPU) wait there, and those a full
	// buffer cannot hold are lost and marked in the trace ("[LOST n EVENTS]", which ReadFtrace
	// counts as warnings) and in RecordStats.Lost.
	BufferKB int
	// Name is the instance's name; "" means schedkit-record-PID. Instances of that form whose
	// process no longer runs (one killed before it could remove its instance) are removed
	// when a recording starts.
	Name string
}

// RecordStats says what a recording holds.
type RecordStats struct {
	Events int64 // event lines written
	Lost   int64 // events the kernel dropped (the instance's per-CPU overrun counts)
	CPUs   int
}

// mergeCPUs writes the lines of the per-CPU streams to w ordered by timestamp (a stable merge:
// each stream is in order, and lines of equal time keep the streams' order), the marker lines
// (lost events) where their stream has them. It returns the number of event lines.
func mergeCPUs(w io.Writer, streams []io.Reader) (int64, error) {
	h := &lineHeap{}
	for i, r := range streams {
		s := &lineStream{sc: bufio.NewScanner(r), idx: i}
		s.sc.Buffer(make([]byte, 64<<10), maxLine)
		if s.next() {
			heap.Push(h, s)
		} else if err := s.sc.Err(); err != nil {
			return 0, err
		}
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var n int64
	for h.Len() > 0 {
		s := (*h)[0]
		if _, err := bw.WriteString(s.line); err != nil {
			return n, err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return n, err
		}
		if s.event {
			n++
		}
		if s.next() {
			heap.Fix(h, 0)
		} else {
			if err := s.sc.Err(); err != nil {
				return n, err
			}
			heap.Pop(h)
		}
	}
	return n, bw.Flush()
}

// A lineStream is one CPU's text, one line ahead.
type lineStream struct {
	sc    *bufio.Scanner
	idx   int
	line  string
	ts    int64 // the line's time, or the stream's last for a line without one
	event bool
}

func (s *lineStream) next() bool {
	for s.sc.Scan() {
		s.line = s.sc.Text()
		if strings.TrimSpace(s.line) == "" {
			continue
		}
		ev, _, ok, err := parseHeader(s.line)
		s.event = ok && err == nil
		if s.event {
			s.ts = ev.ts
		}
		return true
	}
	return false
}

type lineHeap []*lineStream

func (h lineHeap) Len() int { return len(h) }
func (h lineHeap) Less(i, j int) bool {
	if h[i].ts != h[j].ts {
		return h[i].ts < h[j].ts
	}
	return h[i].idx < h[j].idx
}
func (h lineHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *lineHeap) Push(x any)   { *h = append(*h, x.(*lineStream)) }
func (h *lineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ErrNoTracefs is returned by StartRecording when tracefs is not there to be written: not
// mounted and not mountable, or not writable by this process (not root). `perf sched record`
// may still work; schedbench record falls back to it.
var ErrNoTracefs = errors.New("tracefs is not writable here")

// recordHeader is the comment block a recording's text starts with: tracefs's own first line,
// by which Perfetto and chrome://tracing recognise the text, then what was recorded.
func recordHeader(what string, cpus int) string {
	return fmt.Sprintf("# tracer: nop\n#\n# recorded by schedbench record (a tracefs instance, per-CPU trace_pipe merged by time): %s\n# cpus=%d\n#\n", what, cpus)
}
