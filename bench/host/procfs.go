package host

// This file implements the readers of the /proc files a run measures with: a thread's schedstat,
// status and sched files, /proc/stat's per-CPU times and /proc/loadavg. They are plain functions
// of the file's text, so that they are tested and fuzzed on any system.

import (
	"fmt"
	"strconv"
	"strings"
)

// A ParseError is malformed text in a /proc file or in a peer program's output, at a line and
// column counted from 1.
type ParseError struct {
	// File names what was read, such as "schedstat" or "perf bench sched messaging".
	File string
	// Line and Col locate the problem; Col counts bytes.
	Line, Col int
	// Msg says what is wrong.
	Msg string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("host: %s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Schedstat is a thread's /proc/PID/task/TID/schedstat: the kernel's
// se.sum_exec_runtime, sched_info.run_delay and sched_info.pcount (proc_pid_schedstat in
// fs/proc/base.c).
type Schedstat struct {
	// CPU is the time the thread spent on a CPU, in nanoseconds.
	CPU int64
	// Wait is the time it spent runnable on a run queue, waiting for a CPU, in nanoseconds.
	Wait int64
	// Slices counts the times it was switched in.
	Slices int64
}

// ParseSchedstat reads the text of a schedstat file: three unsigned decimal numbers separated
// by single spaces, and a newline.
func ParseSchedstat(text string) (Schedstat, error) {
	line, _, _ := strings.Cut(text, "\n")
	fields := strings.Split(line, " ")
	var v [3]int64
	col := 1
	for i, field := range fields {
		if i == len(v) {
			return Schedstat{}, &ParseError{File: "schedstat", Line: 1, Col: col,
				Msg: "unexpected " + strconv.Quote(strings.Join(fields[i:], " "))}
		}
		n, err := parseCount(field)
		if err != nil {
			return Schedstat{}, &ParseError{File: "schedstat", Line: 1, Col: col, Msg: err.Error()}
		}
		v[i] = n
		col += len(field) + 1
	}
	if len(fields) < len(v) {
		return Schedstat{}, &ParseError{File: "schedstat", Line: 1, Col: len(line) + 1,
			Msg: fmt.Sprintf("%d fields, want 3", len(fields))}
	}
	return Schedstat{CPU: v[0], Wait: v[1], Slices: v[2]}, nil
}

// parseCount reads a non-negative decimal int64.
func parseCount(s string) (int64, error) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, fmt.Errorf("%q is not a count", s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a count", s)
	}
	return n, nil
}

// Switches are a thread's context switches from its status file.
type Switches struct {
	// Voluntary is voluntary_ctxt_switches (nvcsw): the times it blocked or slept.
	Voluntary int64
	// Involuntary is nonvoluntary_ctxt_switches (nivcsw): the times it was preempted.
	Involuntary int64
}

// ParseStatus reads the context switch counts of a /proc/PID/status file ("Key:\tvalue" lines).
// Both keys must be present.
func ParseStatus(text string) (Switches, error) {
	var s Switches
	var seen [2]bool
	err := eachField("status", text, ':', func(key, value string, line, col int) error {
		var p *int64
		var k int
		switch key {
		case "voluntary_ctxt_switches":
			p, k = &s.Voluntary, 0
		case "nonvoluntary_ctxt_switches":
			p, k = &s.Involuntary, 1
		default:
			return nil
		}
		n, err := parseCount(value)
		if err != nil {
			return &ParseError{File: "status", Line: line, Col: col, Msg: key + ": " + err.Error()}
		}
		*p, seen[k] = n, true
		return nil
	})
	if err != nil {
		return Switches{}, err
	}
	if !seen[0] || !seen[1] {
		return Switches{}, &ParseError{File: "status", Line: strings.Count(text, "\n") + 1, Col: 1,
			Msg: "voluntary_ctxt_switches or nonvoluntary_ctxt_switches missing"}
	}
	return s, nil
}

// ParseMigrations reads se.nr_migrations from a /proc/PID/sched file ("key   :   value" lines
// after a header of two lines).
func ParseMigrations(text string) (int64, error) {
	var n int64
	found := false
	err := eachField("sched", text, ':', func(key, value string, line, col int) error {
		if key != "se.nr_migrations" {
			return nil
		}
		v, err := parseCount(value)
		if err != nil {
			return &ParseError{File: "sched", Line: line, Col: col, Msg: key + ": " + err.Error()}
		}
		n, found = v, true
		return nil
	})
	if err != nil {
		return 0, err
	}
	if !found {
		return 0, &ParseError{File: "sched", Line: strings.Count(text, "\n") + 1, Col: 1, Msg: "se.nr_migrations missing"}
	}
	return n, nil
}

// eachField calls f for each line of text that holds sep, with the key before it and the value
// after it, both trimmed of spaces and tabs, and the position of the value. Lines without sep are
// skipped.
func eachField(file, text string, sep byte, f func(key, value string, line, col int) error) error {
	for i, l := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(l, string(sep))
		if !ok {
			continue
		}
		trimmed := strings.TrimLeft(v, " \t")
		col := len(k) + 2 + len(v) - len(trimmed)
		if err := f(strings.TrimSpace(k), strings.TrimRight(trimmed, " \t"), i+1, col); err != nil {
			return err
		}
	}
	return nil
}

// CPUTimes are one CPU's line of /proc/stat, in clock ticks (USER_HZ, 100 per second on
// Linux): the kernel's kcpustat fields in the order show_stat prints them.
type CPUTimes struct {
	// CPU is the CPU number.
	CPU int
	// User through GuestNice are the ten columns of the line.
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal, Guest, GuestNice int64
}

// IdleTicks returns the ticks the CPU was idle: Idle plus IOWait, as tools such as top count them.
func (c CPUTimes) IdleTicks() int64 { return c.Idle + c.IOWait }

// BusyTicks returns the ticks the CPU was not idle, guest time excluded (the kernel already
// counts it in User and Nice).
func (c CPUTimes) BusyTicks() int64 {
	return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal
}

// ParseProcStat reads the per-CPU lines ("cpuN" and four to ten counts) of /proc/stat; the
// aggregate "cpu" line and the other lines are skipped. Missing trailing columns (older kernels)
// are zero.
func ParseProcStat(text string) ([]CPUTimes, error) {
	var cpus []CPUTimes
	for i, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "cpu") || strings.HasPrefix(l, "cpu ") {
			continue
		}
		fields := strings.Fields(l)
		id, err := strconv.Atoi(strings.TrimPrefix(fields[0], "cpu"))
		if err != nil || id < 0 {
			return nil, &ParseError{File: "stat", Line: i + 1, Col: 1, Msg: strconv.Quote(fields[0]) + " is not a CPU"}
		}
		if len(fields) < 5 || len(fields) > 11 {
			return nil, &ParseError{File: "stat", Line: i + 1, Col: 1,
				Msg: fmt.Sprintf("%s has %d counts, want 4 to 10", fields[0], len(fields)-1)}
		}
		var v [10]int64
		for j, f := range fields[1:] {
			n, err := parseCount(f)
			if err != nil {
				return nil, &ParseError{File: "stat", Line: i + 1, Col: strings.Index(l, " "+f) + 2, Msg: err.Error()}
			}
			v[j] = n
		}
		cpus = append(cpus, CPUTimes{CPU: id, User: v[0], Nice: v[1], System: v[2], Idle: v[3], IOWait: v[4],
			IRQ: v[5], SoftIRQ: v[6], Steal: v[7], Guest: v[8], GuestNice: v[9]})
	}
	return cpus, nil
}

// ParseLoadavg returns the one-minute load average of /proc/loadavg's text.
func ParseLoadavg(text string) (float64, error) {
	f, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	v, err := strconv.ParseFloat(f, 64)
	if err != nil || v < 0 {
		return 0, &ParseError{File: "loadavg", Line: 1, Col: 1, Msg: strconv.Quote(f) + " is not a load average"}
	}
	return v, nil
}
