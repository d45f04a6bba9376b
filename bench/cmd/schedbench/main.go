package main

// This file implements the command's entry point: subcommand dispatch, usage errors and exit
// codes.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/schedkit/schedkit/internal/outfile"
)

// Exit codes, as Go's own commands use them.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed, or was interrupted
	exitUsage   = 2 // the command line or an input named on it is wrong; nothing was written
)

// A usageError is a mistake in the command line or in an input it names: the command prints
// it on one line and exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// outputErr returns err of an -o destination (outfile.Create, outfile.CheckDir) as a usage error
// when it is a destination refused before any work, and as it is otherwise.
func outputErr(err error) error {
	var oe *outfile.Error
	if errors.As(err, &oe) {
		return usagef("-o %v", err)
	}
	return err
}

// env is what a subcommand runs with: its streams, whether stderr is a terminal (for the
// progress bar) and the context that SIGINT, SIGTERM and SIGHUP cancel (signals.go).
type env struct {
	ctx            context.Context
	stdin          io.Reader // what a file named "-" reads (input.go); nil reads as empty
	stdout, stderr io.Writer
	terminal       bool
	stdinRead      bool // standard input has been read by an earlier "-"
	// afterRun, if not nil, is called after each finished run with the number finished so far
	// (tests use it to interrupt a command at a known point).
	afterRun func(finished int)
	// maxMemory is the command's -max-memory, in bytes (0: none), once its flags are parsed;
	// release undoes what holding the command to it set up (memory.go).
	maxMemory int64
	release   []func()
}

// A command is one subcommand.
type command struct {
	name, summary string
	run           func(e *env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"run", "run a workload under one or more policies and print the side-by-side table", cmdRun},
		{"explain", "print a policy's reasons for each decision of a run, filtered by thread, CPU and time", cmdExplain},
		{"top", "a run as top -H shows it every -every of simulated time: FreeBSD's columns for ule and 4bsd, procps' for cfs", cmdTop},
		{"seeds", "every seed scenario at its defaults: the seeds' published figures beside ours, with verdicts", cmdSeeds},
		{"sweep", "a scenario over a parameter grid with repetitions, whole or as shard k/n of its cells", cmdSweep},
		{"merge", "merge the JSON lines of a sweep's shards into the table the whole sweep prints", cmdMerge},
		{"host", "run a workload as real threads on this machine's kernel, beside its model", cmdHost},
		{"calibrate", "measure this machine's costs between a scheduling decision and its effect: the host profile", cmdCalibrate},
		{"record", "run a command with the kernel's scheduler events recorded (tracefs instance, or perf sched record) as ftrace text replay reads", cmdRecord},
		{"replay", "replay a real trace (ftrace text, Go execution trace, rt-app JSON) under policies, beside the trace's own timing", cmdReplay},
		{"trace", "write a run's trace as Chrome trace-event JSON (Perfetto), ftrace text or the simulator's own text", cmdTrace},
		{"serve", "serve the course's interactive page (simulator and policies in WebAssembly) on localhost", cmdServe},
		{"stat", "ministat's report of numbers in files (same flags, same output), or an mmtests comparison table", cmdStat},
	}
}

// gcPercent is the garbage collector's target the command runs with unless GOGC is set: a
// sweep builds and drops a machine per cell, allocating fast over a small live heap, and at
// Go's default of 100 the collector took a sixth of `schedbench seeds`' CPU time (66.5 s
// against 55.7 s at 400, for a peak of 160 against 336 MB).
const gcPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := catchSignals(cancel)
	code := cli(&env{ctx: ctx, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, terminal: isTerminal(os.Stderr)}, os.Args[1:])
	stop()
	os.Exit(code)
}

// cli runs the command line args and returns the exit status.
func cli(e *env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "usage: schedbench <command> [flags] [arguments] (run 'schedbench -h' for the commands)")
		return exitUsage
	}
	name := args[0]
	if name == "-h" || name == "-help" || name == "--help" || name == "help" && len(args) == 1 {
		topUsage(e.stdout)
		return exitOK
	}
	if name == "help" {
		name, args = args[1], []string{args[1], "-h"}
	}
	if e.ctx == nil {
		e.ctx = context.Background()
	}
	for _, c := range commands {
		if c.name != name {
			continue
		}
		err := c.run(e, args[1:])
		stopped := e.ctx.Err() != nil // by a signal or the memory watchdog, before release cancels it
		me, overBudget := memoryCause(e.ctx)
		for _, r := range e.release {
			r()
		}
		e.release = nil
		var ue *usageError
		switch {
		case err == nil && !overBudget:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.As(err, &ue) && !stopped: // not a read a signal stopped
			fmt.Fprintf(e.stderr, "schedbench %s: %s\n", name, errorLine(ue.msg))
			return exitUsage
		case overBudget:
			fmt.Fprintf(e.stderr, "schedbench %s: %s\n", name, errorLine(me.Error()))
			return exitFailure
		default:
			fmt.Fprintf(e.stderr, "schedbench %s: %s\n", name, errorLine(err.Error()))
			return exitFailure
		}
	}
	if strings.HasPrefix(name, "-") {
		fmt.Fprintf(e.stderr, "schedbench: flag %s before a command; usage: schedbench <command> [flags] [arguments]\n", name)
	} else {
		fmt.Fprintf(e.stderr, "schedbench: unknown command %q (run 'schedbench -h' for the list)\n", name)
	}
	return exitUsage
}

func topUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: schedbench <command> [flags] [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nrun 'schedbench <command> -h' for a command's flags.")
}
