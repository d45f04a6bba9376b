package trace

// This file implements WriteFtrace: a sim.Trace as the text `trace-cmd report -N -t` prints
// for the scheduler's tracepoints.

import (
	"bufio"
	"io"
	"strconv"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// DefaultPIDBase is the pid an exporter gives thread 0 unless told otherwise; thread n is
// DefaultPIDBase+n. Pid 0 is the idle task (swapper/N), as in the kernel.
const DefaultPIDBase = 1000

// commLen is TASK_COMM_LEN-1: the kernel keeps at most 15 bytes of a task's name.
const commLen = 15

// A Layout names the field layouts of the scheduler tracepoints in a range of kernel versions.
type Layout uint8

// The layouts WriteFtrace prints (ReadFtrace reads them all).
const (
	// Linux617 is the layout of Linux 6.17 and later (checked on 6.18): sched_process_exit
	// ends in group_dead=true|false.
	Linux617 Layout = iota
	// Linux43 is the layout of Linux 4.3 through 6.14: sched_process_exit without group_dead.
	Linux43
	// Linux42 is the layout before Linux 4.3: sched_wakeup and sched_wakeup_new print
	// success=1 before target_cpu.
	Linux42
)

// FtraceOptions tune WriteFtrace. The zero value (or nil) gives the defaults.
type FtraceOptions struct {
	// Layout is the kernel versions whose field layout to print; the zero value is Linux617.
	Layout Layout
	// PIDBase is the pid of thread 0; 0 means DefaultPIDBase.
	PIDBase int
	// Micro prints timestamps with six decimals, as `trace-cmd report` does without -t; the
	// default is nine (nanoseconds, `trace-cmd report -t`), which loses nothing.
	Micro bool
	// FullComm keeps thread names longer than the kernel's 15 bytes; by default they are cut
	// as the kernel cuts them (TASK_COMM_LEN).
	FullComm bool
	// IRQFlags adds the irq-flags column of /sys/kernel/tracing/trace after the CPU ("d..2."
	// for most events, "d.h2." for a wake-up by a timer, which the kernel records in hard
	// interrupt context), as tracefs prints it. Without it, as in trace-cmd report, a timer's
	// wake-up shows in the context of whatever ran on the CPU, and ReadFtrace cannot tell it
	// from a wake-up by that task.
	IRQFlags bool
}

// WriteFtrace writes the kept records of t to w as `trace-cmd report -N -t` prints the
// sched:sched_switch, sched_wakeup, sched_wakeup_new, sched_migrate_task, sched_process_fork
// and sched_process_exit events of a Linux 6.x kernel: a "cpus=N" line, then one line per
// event in the form
//
//	hog.0-1000  [001]     0.004000000: sched_switch:         prev_comm=hog.0 prev_pid=1000 prev_prio=120 prev_state=R+ ==> next_comm=swapper/1 next_pid=0 next_prio=120
//
// with the fields and their order taken from the TP_printk formats of
// include/trace/events/sched.h (the same as /sys/kernel/tracing/events/sched/*/format on
// Linux 6.18), or those of older kernels with FtraceOptions.Layout. Thread n is pid PIDBase+n with its name as comm; the idle task is pid 0,
// "swapper/N", and the task a line is printed for is the one running on its CPU ("<idle>-0"
// when none). prev_state is S for a thread that went to sleep, R+ for a preempted one (the
// kernel's "+" marks preemption), R for a yield and X for an exit; prio is KernelPrio of the
// thread's attributes at that moment. The CPU of a sched_wakeup line is the waker's; its
// target_cpu is the CPU the thread next runs on (the records do not say which queue the
// policy chose; see MaxLookahead). A sched_process_fork line is written only for threads
// another thread forked: the threads a workload starts appear with their sched_wakeup_new.
// Records with no tracepoint (Resched, IPI, SetAttr, Explain, Violation) are not written;
// SetAttr changes show in the prio fields of later lines.
//
// WriteFtrace streams: its memory is per thread and per CPU, plus at most MaxLookahead
// look-ahead entries, whatever the number of records. It returns the first error of w.
// WriteFtrace panics if t is nil.
func WriteFtrace(w io.Writer, t *sim.Trace, o *FtraceOptions) error {
	if t == nil {
		panic("trace: WriteFtrace of a nil trace")
	}
	if o == nil {
		o = &FtraceOptions{}
	}
	e := newExporter(t, o.PIDBase)
	bw := bufio.NewWriterSize(w, 64<<10)
	b := make([]byte, 0, 512)
	b = append(b, "cpus="...)
	b = strconv.AppendInt(b, int64(e.ncpu), 10)
	b = append(b, '\n')
	if _, err := bw.Write(b); err != nil {
		return err
	}
	fw := ftraceWriter{e: e, o: o}
	for i := range t.Records {
		r := &t.Records[i]
		e.advance(i, r)
		b = fw.appendRecord(b[:0], r)
		if len(b) > 0 {
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

type ftraceWriter struct {
	e *exporter
	o *FtraceOptions
}

// appendRecord appends the line of record r, or nothing for a record with no tracepoint. It
// runs after the exporter's state has been advanced past r.
func (fw *ftraceWriter) appendRecord(b []byte, r *sim.Record) []byte {
	e := fw.e
	cpu := r.CPU
	if cpu == sim.NoCPU || int(cpu) >= e.ncpu {
		cpu = 0
	}
	switch r.Kind {
	case sim.KindSwitch:
		prev, next := sched.ID(r.Other), r.Thread
		b = fw.head(b, prev, cpu, r.Time, "d..2.", "sched_switch")
		b = fw.task(b, "prev_", prev, cpu, true)
		b = append(b, " prev_state="...)
		if prev < 0 {
			b = append(b, 'R')
		} else {
			switch sched.StopReason(r.Arg) {
			case sched.Sleep:
				b = append(b, 'S')
			case sched.Preempt:
				b = append(b, "R+"...)
			case sched.Exit:
				b = append(b, 'X')
			default:
				b = append(b, 'R')
			}
		}
		b = append(b, " ==> "...)
		b = fw.task(b, "next_", next, cpu, true)
	case sim.KindWakeup:
		ev := "sched_wakeup"
		if sched.WakeFlags(r.Arg)&sched.WakeFork != 0 {
			ev = "sched_wakeup_new"
		}
		flags := "d..2."
		if r.Other < 0 && sched.WakeFlags(r.Arg)&sched.WakeFork == 0 {
			flags = "d.h2." // a timer's wake-up: hrtimer interrupt context
		}
		b = fw.head(b, e.current(sched.ID(r.Other), cpu), cpu, r.Time, flags, ev)
		b = fw.task(b, "", r.Thread, cpu, true)
		if fw.o.Layout == Linux42 {
			b = append(b, " success=1"...)
		}
		b = append(b, " target_cpu="...)
		b = appendPad(b, int64(e.target), 3, '0')
	case sim.KindMigrate:
		b = fw.head(b, e.cur[cpu], cpu, r.Time, "d..2.", "sched_migrate_task")
		b = fw.task(b, "", r.Thread, cpu, true)
		b = append(b, " orig_cpu="...)
		b = strconv.AppendInt(b, int64(r.Other), 10)
		b = append(b, " dest_cpu="...)
		b = strconv.AppendInt(b, int64(cpu), 10)
	case sim.KindFork:
		if r.Other < 0 {
			return b
		}
		parent := sched.ID(r.Other)
		b = fw.head(b, parent, cpu, r.Time, ".....", "sched_process_fork")
		b = fw.task(b, "", parent, cpu, false)
		b = append(b, ' ')
		b = fw.task(b, "child_", r.Thread, cpu, false)
	case sim.KindExit:
		b = fw.head(b, r.Thread, cpu, r.Time, ".....", "sched_process_exit")
		b = fw.task(b, "", r.Thread, cpu, true)
		if fw.o.Layout == Linux617 {
			b = append(b, " group_dead=true"...)
		}
	default:
		return b
	}
	return append(b, '\n')
}

// head appends "COMM-PID [CPU] TIME: EVENT: " with trace-cmd report's widths: comm right
// aligned in 16 columns, pid left aligned in 5, the CPU in 3 digits, the seconds in 5 columns,
// the event name and its colon left aligned in 21.
func (fw *ftraceWriter) head(b []byte, task sched.ID, cpu topology.CPU, ns int64, flags, event string) []byte {
	e := fw.e
	start := len(b)
	if task < 0 || !e.valid(task) {
		b = append(b, "<idle>"...)
	} else {
		b = fw.comm(b, task, cpu)
	}
	b = leftPad(b, start, 16)
	b = append(b, '-')
	start = len(b)
	b = strconv.AppendInt(b, int64(e.pid(task)), 10)
	for len(b)-start < 5 {
		b = append(b, ' ')
	}
	b = append(b, " ["...)
	b = appendPad(b, int64(cpu), 3, '0')
	b = append(b, "] "...)
	if fw.o.IRQFlags {
		b = append(b, flags...)
		b = append(b, ' ')
	}
	b = appendPad(b, ns/1e9, 5, ' ')
	b = append(b, '.')
	if fw.o.Micro {
		b = appendPad(b, ns%1e9/1e3, 6, '0')
	} else {
		b = appendPad(b, ns%1e9, 9, '0')
	}
	b = append(b, ": "...)
	start = len(b)
	b = append(b, event...)
	b = append(b, ':')
	for len(b)-start < 21 {
		b = append(b, ' ')
	}
	return append(b, ' ')
}

// task appends thread id's fields as the kernel's tracepoints print them: comm, pid and, with
// prio, prio, each name starting with pre ("prev_", "next_", "child_" or nothing).
func (fw *ftraceWriter) task(b []byte, pre string, id sched.ID, cpu topology.CPU, prio bool) []byte {
	b = append(b, pre...)
	b = append(b, "comm="...)
	b = fw.comm(b, id, cpu)
	b = append(b, ' ')
	b = append(b, pre...)
	b = append(b, "pid="...)
	b = strconv.AppendInt(b, int64(fw.e.pid(id)), 10)
	if prio {
		b = append(b, ' ')
		b = append(b, pre...)
		b = append(b, "prio="...)
		b = strconv.AppendInt(b, int64(fw.e.prio(id)), 10)
	}
	return b
}

// comm appends the comm of thread id: its name, cut to 15 bytes unless FullComm, or
// swapper/CPU for the idle task.
func (fw *ftraceWriter) comm(b []byte, id sched.ID, cpu topology.CPU) []byte {
	if id < 0 || !fw.e.valid(id) {
		b = append(b, "swapper/"...)
		return strconv.AppendInt(b, int64(cpu), 10)
	}
	name := fw.e.t.Threads[id].Name
	if !fw.o.FullComm && len(name) > commLen {
		name = name[:commLen]
	}
	return append(b, name...)
}

// leftPad shifts b[start:] right so that it fills width columns, padding with spaces.
func leftPad(b []byte, start, width int) []byte {
	n := len(b) - start
	if n >= width {
		return b
	}
	pad := width - n
	for range pad {
		b = append(b, ' ')
	}
	copy(b[start+pad:], b[start:start+n])
	for k := start; k < start+pad; k++ {
		b[k] = ' '
	}
	return b
}

// appendPad appends v in at least width columns, padded on the left with pad.
func appendPad(b []byte, v int64, width int, pad byte) []byte {
	start := len(b)
	b = strconv.AppendInt(b, v, 10)
	n := len(b) - start
	if n >= width {
		return b
	}
	return leftPadWith(b, start, width, pad)
}

func leftPadWith(b []byte, start, width int, pad byte) []byte {
	b = leftPad(b, start, width)
	if pad != ' ' {
		for k := start; k < len(b) && b[k] == ' '; k++ {
			b[k] = pad
		}
	}
	return b
}
