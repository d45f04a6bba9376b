package main

// This file implements the record subcommand: a command run with the kernel's scheduler
// events recorded, through a private tracefs instance or perf sched record, into ftrace text
// that replay reads.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/schedkit/schedkit/bench/trace"
	"github.com/schedkit/schedkit/internal/outfile"
)

const recordSynopsis = "[-o FILE] [-buffer SIZE] [-perf] -- COMMAND [ARG...]"

// defaultRecordFile is where record writes without -o: replay and run read a .ftrace file as
// a trace.
const defaultRecordFile = "schedbench.ftrace"

func cmdRecord(e *env, args []string) error {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	out := fs.String("o", defaultRecordFile, "write the trace to `FILE` (atomically; - for stdout)")
	bufSize := fs.String("buffer", "", "each CPU's ring buffer in the tracefs instance (`SIZE`, such as 64MiB; default a sixteenth of memory, at most 1GiB, shared by the CPUs, 4 to 256MiB each)")
	usePerf := fs.Bool("perf", false, "record with perf sched record instead of a tracefs instance (the fallback where tracefs is not writable)")
	quiet(fs)
	// The flags end at "--" or at the command: everything after belongs to the command.
	if err := fs.Parse(args); err != nil {
		return flagError(e, fs, err, recordSynopsis)
	}
	command := fs.Args()
	if len(command) == 0 {
		return usagef("no command given: schedbench record %s", recordSynopsis)
	}
	var bufferKB int
	if *bufSize != "" {
		n, err := parseSize(*bufSize)
		if err != nil || n < 4<<10 {
			return usagef("-buffer %q: want a size of at least 4KiB, such as 16MiB", *bufSize)
		}
		bufferKB = int(n >> 10)
	}
	if _, err := exec.LookPath(command[0]); err != nil {
		return usagef("%s: %v", command[0], errors.Unwrap(err))
	}
	var o *outfile.File
	var w io.Writer = e.stdout
	if *out != "-" {
		var err error
		if o, err = outfile.Create(*out); err != nil {
			return outputErr(err)
		}
		defer o.Abort()
		w = o
	}
	dest := *out
	if dest == "-" {
		dest = "stdout"
	}
	what := shellWords(command)
	if !*usePerf {
		rec, err := trace.StartRecording(&trace.RecordOptions{BufferKB: bufferKB})
		switch {
		case errors.Is(err, trace.ErrNoTracefs):
			fmt.Fprintf(e.stderr, "schedbench record: %v; recording with perf sched record instead\n", err)
		case err != nil:
			return err
		default:
			defer rec.Close()
			return recordTracefs(e, rec, command, what, w, o, dest)
		}
	}
	return recordPerf(e, command, what, w, o, dest)
}

// recordTracefs runs command under rec and writes the trace.
func recordTracefs(e *env, rec *trace.Recording, command []string, what string, w io.Writer, o *outfile.File, dest string) error {
	ran, runErr := runRecorded(e, command, o == nil)
	stopErr := rec.Stop()
	stats, err := rec.WriteTo(w, what)
	if err != nil {
		return fmt.Errorf("writing the trace: %v", err)
	}
	if stopErr != nil {
		return stopErr
	}
	inst := rec.Instance()
	if err := rec.Close(); err != nil {
		return err
	}
	if o != nil {
		if err := o.Commit(); err != nil {
			return err
		}
	}
	lost := ""
	if stats.Lost > 0 {
		lost = fmt.Sprintf(", %d lost (the kernel wrote faster than the recording read: a larger -buffer keeps them)", stats.Lost)
	}
	fmt.Fprintf(e.stderr, "schedbench record: %d events on %s%s in %s; the tracefs instance %s is removed\n",
		stats.Events, count(stats.CPUs, "CPU"), lost, dest, filepath.Base(inst))
	return ran.verdict(runErr, what, dest)
}

// recordPerf runs command under perf sched record and writes perf sched script's text.
func recordPerf(e *env, command []string, what string, w io.Writer, o *outfile.File, dest string) error {
	perf, err := exec.LookPath("perf")
	if err != nil {
		return fmt.Errorf("perf is not installed either (apt-get install linux-perf); nothing recorded")
	}
	tmp, err := os.MkdirTemp("", "schedkit-record-perf-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	data := filepath.Join(tmp, "perf.data")
	ran, runErr := runRecorded(e, append([]string{perf, "sched", "record", "-o", data, "--"}, command...), o == nil)
	if _, err := os.Stat(data); err != nil {
		if runErr == nil {
			runErr = fmt.Errorf("perf sched record wrote no data")
		}
		return fmt.Errorf("perf sched record: %v; nothing recorded", runErr)
	}
	if _, err := io.WriteString(w, "# recorded by schedbench record (perf sched record, perf sched script): "+what+"\n"); err != nil {
		return err
	}
	script := exec.Command(perf, "sched", "script", "-i", data)
	script.Stdout = w
	var serr strings.Builder
	script.Stderr = &serr
	if err := script.Run(); err != nil {
		return fmt.Errorf("perf sched script: %v: %s", err, strings.TrimSpace(serr.String()))
	}
	if o != nil {
		if err := o.Commit(); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "schedbench record: perf sched record's events in %s\n", dest)
	return ran.verdict(runErr, what, dest)
}

// A recordedRun is how the recorded command ended.
type recordedRun struct {
	interrupted os.Signal // the stop signal forwarded to it, or nil
	status      int       // its exit status (-1 if a signal ended it)
}

// verdict returns record's error for the run: nil if the command succeeded, else what
// happened, saying where the trace is.
func (r recordedRun) verdict(runErr error, what, dest string) error {
	switch {
	case r.interrupted != nil:
		return fmt.Errorf("interrupted (%v): the trace of %s until then is in %s", r.interrupted, what, dest)
	case runErr != nil:
		return fmt.Errorf("%s: %v; its trace is in %s", what, runErr, dest)
	}
	return nil
}

// runRecorded runs command with the command's standard streams (its output to stderr when the
// trace goes to stdout) and waits for it. When a stop signal cancels the command's context, the
// signal is passed on to it (a terminal's ^C has already reached it, its process group being
// ours) and the recording ends with it.
func runRecorded(e *env, command []string, traceOnStdout bool) (recordedRun, error) {
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.stdout, e.stderr
	if traceOnStdout {
		cmd.Stdout = e.stderr
	}
	if err := cmd.Start(); err != nil {
		return recordedRun{status: -1}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var r recordedRun
	var err error
	select {
	case err = <-done:
	case <-e.ctx.Done():
		r.interrupted = causeSignal(e.ctx)
		cmd.Process.Signal(r.interrupted)
		err = <-done
	}
	r.status = cmd.ProcessState.ExitCode()
	return r, err
}

// causeSignal returns the stop signal that cancelled ctx (signals.go names it as the cause),
// or SIGTERM.
func causeSignal(ctx context.Context) os.Signal {
	if c := context.Cause(ctx); c != nil {
		for _, s := range stopSignals {
			if c.Error() == s.String() {
				return s
			}
		}
	}
	return syscall.SIGTERM
}

// shellWords returns args as a shell would take them back: each quoted if it needs it.
func shellWords(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;()<>*?[]#~{}!") {
			q[i] = strconv.Quote(a)
		} else {
			q[i] = a
		}
	}
	return strings.Join(q, " ")
}
