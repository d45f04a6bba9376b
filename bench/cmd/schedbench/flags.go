package main

// This file implements the command line conventions every subcommand shares: flags before,
// between or after the positional arguments, help on stdout, one-line usage errors, and
// duration flags whose errors say what a duration looks like.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/internal/cliflag"
)

// parseFlags parses args with fs, the flags anywhere among the positional arguments ("--"
// ends them: an argument after it may start with "-"); fs.Args() returns the positional ones.
// -h prints the usage to stdout and returns flag.ErrHelp; any other mistake is a usage error
// of one line naming the flag.
func parseFlags(e *env, fs *flag.FlagSet, args []string, synopsis string) error {
	quiet(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok {
			if _, ok := g.Get().(time.Duration); ok {
				f.Value = durationFlag{g}
			}
		}
	})
	_, err := cliflag.Parse(fs, args)
	if err != nil {
		return flagError(e, fs, err, synopsis)
	}
	return e.startMemoryBudget(fs)
}

// quiet stops fs from printing anything itself: the error or help of its Parse is for
// flagError to report.
func quiet(fs *flag.FlagSet) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
}

// flagError reports err, an error of parsing fs, as every subcommand does: for -h the usage on
// stdout and flag.ErrHelp; otherwise a usage error of one line naming the flag.
func flagError(e *env, fs *flag.FlagSet, err error, synopsis string) error {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(e.stdout, "usage: schedbench %s %s\n\nflags:\n", fs.Name(), synopsis)
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		return flag.ErrHelp
	}
	return usagef("%v (run 'schedbench %s -h' for usage)", err, fs.Name())
}

// parseFlagsAnywhere is parseFlags, for the commands whose arguments are all names.
func parseFlagsAnywhere(e *env, fs *flag.FlagSet, args []string, synopsis string) error {
	return parseFlags(e, fs, args, synopsis)
}

// A durationFlag is a time.Duration flag whose error says what a duration looks like: the
// flag package says only "parse error", and "-until 2" deserves better.
type durationFlag struct{ flag.Getter }

// String returns the duration as time.Duration prints it; the zero durationFlag, which the
// flag package makes to find the default, prints as a zero duration.
func (d durationFlag) String() string {
	if d.Getter == nil {
		return time.Duration(0).String()
	}
	return d.Getter.String()
}

// Set parses s as time.ParseDuration does.
func (d durationFlag) Set(s string) error {
	err := d.Getter.Set(s)
	if err == nil {
		return nil
	}
	if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
		return fmt.Errorf("a duration needs a unit: %ss, %sms, %sus or %sns (also m, h)", s, s, s, s)
	}
	return errors.New("want a duration: a number and a unit, such as 2s, 500ms, 1.5m or 250us (units ns, us, ms, s, m, h)")
}
