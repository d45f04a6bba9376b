package main

// This file implements the stat subcommand: ministat's report, or an mmtests comparison table,
// of numbers in files.

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/stat"
)

const statSynopsis = "[flags] [FILE...] (- or no file: standard input)"

func cmdStat(e *env, args []string) error {
	o, ro := stat.DefaultOptions(), stat.DefaultReadOptions()
	fs := flag.NewFlagSet("stat", flag.ContinueOnError)
	fs.IntVar(&ro.Column, "C", ro.Column, "`column` number to extract (starts and defaults to 1)")
	conf := fs.String("c", "95", "`confidence` level in percent: 80, 90, 95, 98, 99 or 99.5")
	fs.StringVar(&ro.Delimiters, "d", ro.Delimiters, "`delimiter(s)` between fields")
	fs.BoolVar(&o.NoPlot, "A", false, "print statistics only, suppress the graph")
	fs.BoolVar(&o.SummaryOnly, "n", false, "print summary statistics only, no graph or test")
	fs.BoolVar(&o.Separate, "s", false, "print avg/median/stddev bars on separate lines")
	fs.BoolVar(&o.Quiet, "q", false, "leave out the data set legend and the table header (-q of FreeBSD's later ministat)")
	fs.IntVar(&o.Width, "w", o.Width, "`width` of graph/test output")
	mmtests := fs.Bool("mmtests", false, "print an mmtests comparison table instead (compare-mmtests): each file is one run, the first the baseline")
	higher := fs.Bool("higher", false, "with -mmtests: higher values are better (throughput); the default is lower (time, latency)")
	op := fs.String("op", "value", "with -mmtests: the `name` of the measured operation")
	version := fs.Int("mmtests-version", stat.MMTestsLatest, "with -mmtests: print as mmtests of `year` 2022 (seed 004's tables) or 2026 prints")
	summary := fs.String("summary", "Multiops", "with -mmtests: mmtests' summary `kind`: Multiops, Normalisedops, NormalisedLeftSkewops, Singleops or Variabletime")
	printSig := fs.Bool("print-significance", false, "with -mmtests: add compare-mmtests --print-significance's rows")
	registerMaxMemory(fs)
	if err := parseFlags(e, fs, args, statSynopsis); err != nil {
		return err
	}
	files := fs.Args()
	level, err := strconv.ParseFloat(*conf, 64)
	switch {
	case err != nil || !slices.Contains(stat.Levels[:], level):
		return usagef("-c %s: want one of 80, 90, 95, 98, 99, 99.5", *conf)
	case ro.Column < 1:
		return usagef("-C %d: the column number must be positive", ro.Column)
	case ro.Delimiters == "":
		return usagef("-d: the delimiter string must not be empty")
	case o.Width < 0 || o.Width == 1 || o.Width > maxStatWidth:
		return usagef("-w %d: want 0 or 2..%d", o.Width, maxStatWidth)
	case len(files) == 0 && *mmtests:
		return usagef("-mmtests compares runs: give at least two files, the baseline first")
	case !*mmtests && len(files) > stat.MaxSamples:
		return usagef("%d data files; ministat compares at most %d", len(files), stat.MaxSamples)
	case *mmtests && len(files) < 2:
		return usagef("-mmtests compares runs: give at least two files, the baseline first")
	case !*mmtests && (*higher || *op != "value" || *printSig || flagSet(fs, "mmtests-version") || flagSet(fs, "summary")):
		return usagef("-higher, -op, -mmtests-version, -summary and -print-significance need -mmtests")
	case *version != stat.MMTests2022 && *version != stat.MMTests2026:
		return usagef("-mmtests-version %d: want %d or %d", *version, stat.MMTests2022, stat.MMTests2026)
	}
	kind, ok := summaryKind(*summary)
	switch {
	case !ok:
		return usagef("-summary %s: want Multiops, Normalisedops, NormalisedLeftSkewops, Singleops or Variabletime", *summary)
	case kind.Stats(*version) == nil:
		return usagef("-summary %s: mmtests %d has no such summary", kind, *version)
	}
	o.Confidence = level
	if len(files) == 0 {
		files = []string{"-"} // as ministat: no file is standard input
	}
	samples, err := readStatSamples(e, files, ro)
	if err != nil {
		return err
	}
	if !*mmtests {
		return stat.Ministat(e.stdout, samples, o)
	}
	c := stat.Comparison{Runs: mmtestsRuns(files), Better: stat.LowerBetter, Version: *version, Summary: kind,
		PrintSignificance: *printSig, Ops: []stat.Op{{Name: *op}}}
	if *higher {
		c.Better = stat.HigherBetter
	}
	for _, s := range samples {
		c.Ops[0].Samples = append(c.Ops[0].Samples, s.Data.Values())
	}
	if err := c.Write(e.stdout); err != nil {
		return fmt.Errorf("mmtests table: %v", err)
	}
	return nil
}

// summaryKind returns the mmtests summary kind named name, in any case.
func summaryKind(name string) (stat.SummaryKind, bool) {
	for k := stat.Multiops; k <= stat.Variabletime; k++ {
		if strings.EqualFold(k.String(), name) {
			return k, true
		}
	}
	return 0, false
}

// flagSet reports whether the flag name was given on fs's command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// readStatSamples reads one data set from each file ("-": standard input), each of at least
// stat.MinPoints values.
func readStatSamples(e *env, files []string, ro stat.ReadOptions) ([]stat.Sample, error) {
	samples := make([]stat.Sample, 0, len(files))
	for _, file := range files {
		name := inputName(file)
		f, err := e.openInput(file)
		if err != nil {
			if u := errors.Unwrap(err); u != nil {
				err = u
			}
			return nil, usagef("%s: %v", name, err)
		}
		d, err := stat.ReadDataset(e.limitInput(f, name, dataShare), name, ro)
		f.Close()
		var ie *stat.InputError
		var big *errTooLarge
		switch {
		case errors.As(err, &big):
			return nil, usagef("%v", big)
		case errors.As(err, &ie):
			return nil, usagef("%s:%d: invalid data %q", name, ie.Line, ie.Text)
		case err != nil:
			return nil, err
		case d.Len() < stat.MinPoints:
			return nil, usagef("%s: %d values; a data set needs at least %d", name, d.Len(), stat.MinPoints)
		}
		samples = append(samples, stat.Sample{Name: name, Data: d})
	}
	return samples, nil
}

// mmtestsRuns names the runs of an mmtests table after their files ("-": stdin).
func mmtestsRuns(files []string) []string {
	var runs []string
	for _, f := range files {
		if f == "-" {
			f = "stdin"
		}
		runs = append(runs, workloadName(f))
	}
	return runs
}
