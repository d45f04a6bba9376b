package host

// This file implements the calibration source's types: what a real pipeline's programs cost,
// for the scenario layer to derive workloads from.

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// A Stage is what one program of a measured pipeline did, read when it exited (before it was
// reaped, so that its /proc files were still there).
type Stage struct {
	// Args are its program and arguments.
	Args []string
	// CPU is its user and system time, its children's included (getrusage of the reaped child).
	CPU time.Duration
	// Wait is the time its main thread was runnable but waiting for a CPU (schedstat's
	// run_delay); Slices the times it was switched in.
	Wait   time.Duration
	Slices int64
	// Voluntary and Involuntary are its main thread's context switches.
	Voluntary, Involuntary int64
	// ReadBytes and WriteBytes are /proc/PID/io's rchar and wchar; Reads and Writes its syscr and
	// syscw: the bytes and calls of every read and write, pipe and files alike.
	ReadBytes, WriteBytes, Reads, Writes int64
	// Wall is the time from its start to its exit.
	Wall time.Duration
}

// WriteBlock returns the mean size of its writes, in bytes (0 without writes).
func (s *Stage) WriteBlock() int64 {
	if s.Writes == 0 {
		return 0
	}
	return s.WriteBytes / s.Writes
}

// CPUPerWrite returns its CPU time per write call (0 without writes).
func (s *Stage) CPUPerWrite() time.Duration {
	if s.Writes == 0 {
		return 0
	}
	return s.CPU / time.Duration(s.Writes)
}

// CPUPer returns its CPU time per block of n bytes of its input (rchar), or 0.
func (s *Stage) CPUPer(n int64) time.Duration {
	if s.ReadBytes == 0 || n <= 0 {
		return 0
	}
	return time.Duration(float64(s.CPU) * float64(n) / float64(s.ReadBytes))
}

// A Pipeline is a measured pipeline: its stages in order and its total time.
type Pipeline struct {
	Stages []Stage
	Wall   time.Duration
	// PipeSize is the capacity of the pipes between the stages, in bytes (F_GETPIPE_SZ).
	PipeSize int64
}

// Write writes p as an aligned table, one row per stage.
func (p *Pipeline) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tCPU\twait\tvol\tinvol\twrites\tbytes/write\tCPU/write\tread bytes\twall\t")
	for _, s := range p.Stages {
		fmt.Fprintf(tw, "%s\t%v\t%v\t%d\t%d\t%d\t%d\t%v\t%d\t%v\t\n", strings.Join(s.Args, " "),
			s.CPU.Round(time.Microsecond), s.Wait.Round(time.Microsecond), s.Voluntary, s.Involuntary, s.Writes,
			s.WriteBlock(), s.CPUPerWrite().Round(100*time.Nanosecond), s.ReadBytes, s.Wall.Round(time.Microsecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "pipeline wall %v, pipe capacity %d bytes\n", p.Wall.Round(time.Microsecond), p.PipeSize)
	return err
}

// ParseIO reads rchar, wchar, syscr and syscw from a /proc/PID/io file.
func ParseIO(text string) (rchar, wchar, syscr, syscw int64, err error) {
	var seen int
	err = eachField("io", text, ':', func(key, value string, line, col int) error {
		var p *int64
		switch key {
		case "rchar":
			p = &rchar
		case "wchar":
			p = &wchar
		case "syscr":
			p = &syscr
		case "syscw":
			p = &syscw
		default:
			return nil
		}
		n, e := parseCount(value)
		if e != nil {
			return &ParseError{File: "io", Line: line, Col: col, Msg: key + ": " + e.Error()}
		}
		*p = n
		seen++
		return nil
	})
	if err == nil && seen < 4 {
		err = &ParseError{File: "io", Line: strings.Count(text, "\n") + 1, Col: 1, Msg: "rchar, wchar, syscr or syscw missing"}
	}
	return
}
