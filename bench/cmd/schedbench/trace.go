package main

// This file implements the trace subcommand: a run's trace in a format other tools read.

import (
	"flag"
	"fmt"
	"io"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/trace"
	"github.com/schedkit/schedkit/internal/outfile"
)

const traceSynopsis = "[flags] WORKLOAD"

// traceFormats are the formats of -format, with what writes each.
var traceFormats = map[string]func(w io.Writer, t *sim.Trace) error{
	"chrome": func(w io.Writer, t *sim.Trace) error { return trace.WriteChrome(w, t, nil) },
	"ftrace": func(w io.Writer, t *sim.Trace) error { return trace.WriteFtrace(w, t, nil) },
	"ktr":    func(w io.Writer, t *sim.Trace) error { return trace.WriteKTR(w, t, nil) },
	"text":   func(w io.Writer, t *sim.Trace) error { return t.WriteText(w) },
}

func cmdTrace(e *env, args []string) error {
	var f machineFlags
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	f.register(fs, "ule")
	format := fs.String("format", "chrome", "trace `format`: chrome (Chrome trace-event JSON, for Perfetto and chrome://tracing), ftrace (as trace-cmd report prints sched_* events), ktr (FreeBSD's KTR_SCHED as ktrdump -ct prints it, for schedgraph.py) or text (the simulator's own)")
	out := fs.String("o", "", "write the trace to `file` (atomically) instead of stdout")
	explain := fs.Bool("explain", false, "with -format text: include the policy's explanations")
	registerMaxMemory(fs)
	if err := parseFlags(e, fs, args, traceSynopsis); err != nil {
		return err
	}
	write, ok := traceFormats[*format]
	switch {
	case !ok:
		return usagef("-format %q: want chrome, ftrace, ktr or text", *format)
	case *explain && *format != "text":
		return usagef("-explain needs -format text (the other formats have no place for explanations)")
	}
	s, err := f.resolve(e, fs)
	if err != nil {
		return err
	}
	if len(s.policies) != 1 {
		return usagef("trace takes one policy, got %d in -policy %q", len(s.policies), f.policy)
	}
	m, err := sim.New(s.config(0, 0, sim.TraceFull, *explain), s.policies[0].new(), s.w)
	if err != nil {
		return usagef("%v", err)
	}
	var o *outfile.File
	if *out != "" {
		if o, err = outfile.Create(*out); err != nil {
			return outputErr(err)
		}
		defer o.Abort()
	}
	switch err := runMachine(e.ctx, m, s.flags.until); {
	case err == errInterrupted:
		return fmt.Errorf("interrupted; nothing written")
	case err != nil:
		return err
	}
	tr := m.Result().Trace
	if *out == "" {
		return write(e.stdout, tr)
	}
	if err := write(o, tr); err != nil {
		return err
	}
	return o.Commit()
}
