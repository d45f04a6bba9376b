package main

// This file implements the calibrate subcommand: the costs of the path from a scheduling
// decision to its effect measured on this machine, written as the host machine profile the
// other commands read with -profile host.

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/internal/outfile"
)

const calibrateSynopsis = "[-o FILE] [-name NAME] [-max-load L] [-samples N] [-reps R] [-program NAMES | -timer | -ipi-idle]"

func cmdCalibrate(e *env, args []string) error {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	out := fs.String("o", "", "the profile `file` to write; default the host profile that -profile host reads ("+hostProfileHelp()+")")
	name := fs.String("name", "host", "the profile's `name`")
	maxLoad := fs.Float64("max-load", 0.5, "measure only while the one-minute load average is at most `L` (before and after); a negative L measures whatever the load, and the profile records it")
	samples := fs.Int("samples", 2000, "`samples` per probe (the timer probes take 1 ms each)")
	reps := fs.Int("reps", 3, "`R` repetitions of every probe, each figure's quantiles the median of the repetitions' (the profile's provenance gives the timer's and the ping-pong's median and p99 in each)")
	program := fs.String("program", "", "re-measure only the program figures `NAMES` (comma-separated, or all: "+strings.Join(host.ProgramFigures(), ", ")+") into the existing profile -o, leaving its machine's figures as they were")
	timer := fs.Bool("timer", false, "re-measure only the timer's figures (timer, idle_exit, idle_poll) into the existing profile -o, with its switch and refill, leaving its other figures as they were")
	ipiIdle := fs.Bool("ipi-idle", false, "re-measure only the IPI's latency by how long its target had been idle (ipi_idle: a futex ping-pong whose replier waits "+waitsHelp()+" before each wake-up) into the existing profile -o, with its wakeup, idle_exit and idle_poll, leaving its other figures as they were")
	if err := parseFlags(e, fs, args, calibrateSynopsis); err != nil {
		return err
	}
	switch {
	case *timer && *program != "":
		return usagef("-timer and -program: one or the other")
	case *ipiIdle && (*timer || *program != ""):
		return usagef("-ipi-idle with -timer or -program: one of them")
	case fs.NArg() > 0:
		return usagef("calibrate takes no arguments (got %q)", fs.Args())
	case *samples < 100 || *samples > 100000:
		return usagef("-samples %d: want 100..100000", *samples)
	case *reps < 1 || *reps > 20:
		return usagef("-reps %d: want 1..20", *reps)
	case *name == "" || strings.ContainsAny(*name, " \t\n/"):
		return usagef("-name %q: want a word", *name)
	}
	var programs []string
	if *program != "" && *program != "all" {
		programs = strings.Split(*program, ",")
		for _, f := range programs {
			if !slices.Contains(host.ProgramFigures(), f) {
				return usagef("-program %s: no program figure %q (want all or %s)", *program, f, strings.Join(host.ProgramFigures(), ", "))
			}
		}
	}
	path := *out
	if path == "" {
		var err error
		if path, err = hostProfilePath(); err != nil {
			return err
		}
		if err := mkdirFor(path); err != nil {
			return err
		}
	}
	// Refuse a destination before twenty seconds of measuring; write it only when every
	// measurement is made, so that an earlier profile stays as it was otherwise.
	o, err := outfile.Create(path)
	if err != nil {
		return outputErr(err)
	}
	ml := *maxLoad
	if ml == 0 {
		ml = 1e-9 // 0 means "no load at all" here, not host's default
	}
	cmd := "schedbench calibrate"
	if len(args) > 0 {
		cmd += " " + strings.Join(args, " ")
	}
	if *timer {
		return calibrateTimer(e, o, path, host.CalibrateOptions{MaxLoad: ml, Samples: *samples, Reps: *reps, Command: cmd, Log: e.stderr})
	}
	if *ipiIdle {
		return calibrateIPIIdle(e, o, path, host.CalibrateOptions{MaxLoad: ml, Samples: *samples, Reps: *reps, Command: cmd, Log: e.stderr})
	}
	if *program != "" {
		return calibrateProgram(e, o, path, programs, host.CalibrateOptions{MaxLoad: ml, Samples: *samples, Reps: *reps, Command: cmd, Log: e.stderr})
	}
	p, m, err := host.Calibrate(e.ctx, host.CalibrateOptions{Name: *name, MaxLoad: ml, Samples: *samples, Reps: *reps, Command: cmd, Log: e.stderr})
	if werr := host.WriteMeasurements(e.stdout, m); werr != nil && err == nil {
		err = werr
	}
	if err != nil || e.ctx.Err() != nil {
		return calibrationFailed(e, o, path, err)
	}
	return commitProfile(e, o, path, p)
}

// calibrationFailed abandons o, the profile at path, after a calibration that failed with err
// (or was interrupted), and returns the command's error: the earlier profile stays as it was.
func calibrationFailed(e *env, o *outfile.File, path string, err error) error {
	o.Abort()
	var se *host.SkippedError
	switch {
	case e.ctx.Err() != nil:
		return fmt.Errorf("interrupted: no profile written (%s is as it was)", path)
	case errors.Is(err, host.ErrNotSupported):
		return usagef("%v", err)
	case errors.As(err, &se):
		return fmt.Errorf("%w\n(no profile written: %s is as it was)", err, path)
	}
	return fmt.Errorf("%w (no profile written: %s is as it was)", err, path)
}

// calibrateProgram re-measures the program figures names (all of them if names is empty) and
// writes them into the profile at path, read first, through o; the rest of the profile stays as
// it was, and its provenance gains a note of the re-measurement.
func calibrateProgram(e *env, o *outfile.File, path string, names []string, opts host.CalibrateOptions) error {
	p, err := sim.LoadProfile(path)
	if err != nil {
		o.Abort()
		return err
	}
	figs, m, err := host.CalibrateProgram(e.ctx, opts, names)
	if werr := host.WriteMeasurements(e.stdout, m); werr != nil && err == nil {
		err = werr
	}
	if err != nil || e.ctx.Err() != nil {
		return calibrationFailed(e, o, path, err)
	}
	measured := make([]string, 0, len(figs))
	for _, name := range host.ProgramFigures() {
		if f, ok := figs[name]; ok {
			p.Program[name] = f
			measured = append(measured, name)
		}
	}
	p.Provenance.Notes = append(p.Provenance.Notes, fmt.Sprintf("program figures %s measured %s with %s",
		strings.Join(measured, ", "), time.Now().UTC().Format(time.RFC3339), opts.Command))
	return commitProfile(e, o, path, p)
}

// calibrateTimer re-measures the timer's figures (host.CalibrateTimer) and writes them into the
// profile at path, read first, through o: the timer on a busy CPU less the profile's switch and
// refill, as a whole calibration derives it (their medians add up to what it took away, unless
// the switch came out at 0); idle_poll is left out where the new measurement sees no polling.
// The rest of the profile stays as it was, and its provenance gains the re-measurement's notes.
func calibrateTimer(e *env, o *outfile.File, path string, opts host.CalibrateOptions) error {
	p, err := sim.LoadProfile(path)
	if err != nil {
		o.Abort()
		return err
	}
	sw, refill := p.Figures["switch"], p.Figures["refill"]
	if sw.Method == "" || refill.Method == "" {
		o.Abort()
		return fmt.Errorf("%s: no switch or refill figure to take away from the timer (calibrate it whole)", path)
	}
	figs, notes, m, err := host.CalibrateTimer(e.ctx, opts, sw.Cost.P50+refill.Cost.P50)
	if werr := host.WriteMeasurements(e.stdout, m); werr != nil && err == nil {
		err = werr
	}
	if err != nil || e.ctx.Err() != nil {
		return calibrationFailed(e, o, path, err)
	}
	delete(p.Figures, "idle_poll")
	delete(p.Figures, "timer_exit") // an untraced timer holds it
	maps.Copy(p.Figures, figs)
	p.Provenance.Notes = append(p.Provenance.Notes, fmt.Sprintf("timer figures timer, timer_exit, idle_exit, idle_poll measured %s with %s",
		time.Now().UTC().Format(time.RFC3339), opts.Command))
	p.Provenance.Notes = append(p.Provenance.Notes, notes...)
	return commitProfile(e, o, path, p)
}

// calibrateIPIIdle measures the IPI's latency by its target's idle time (host.CalibrateIPIIdle)
// and writes it into the profile at path, read first, through o, as its figure ipi_idle: the
// rest of the profile stays as it was, and its provenance gains the measurement's notes.
func calibrateIPIIdle(e *env, o *outfile.File, path string, opts host.CalibrateOptions) error {
	p, err := sim.LoadProfile(path)
	if err != nil {
		o.Abort()
		return err
	}
	curve, notes, m, err := host.CalibrateIPIIdle(e.ctx, opts, p)
	if werr := host.WriteMeasurements(e.stdout, m); werr != nil && err == nil {
		err = werr
	}
	if err != nil || e.ctx.Err() != nil {
		return calibrationFailed(e, o, path, err)
	}
	p.IPIIdle = curve
	p.Provenance.Notes = append(p.Provenance.Notes, fmt.Sprintf("figure ipi_idle measured %s with %s",
		time.Now().UTC().Format(time.RFC3339), opts.Command))
	p.Provenance.Notes = append(p.Provenance.Notes, notes...)
	return commitProfile(e, o, path, p)
}

// waitsHelp returns host.IPIIdleTimes as "0s, 10µs, …".
func waitsHelp() string {
	ws := make([]string, len(host.IPIIdleTimes))
	for i, w := range host.IPIIdleTimes {
		ws[i] = w.String()
	}
	return strings.Join(ws, ", ")
}

// commitProfile writes profile p into o, the file at path, in full or not at all, then prints
// its figures and where it went.
func commitProfile(e *env, o *outfile.File, path string, p *sim.Profile) error {
	b, err := p.MarshalJSON() // json.Marshal would compact its layout
	if err != nil {
		o.Abort()
		return err
	}
	if _, err := o.Write(b); err != nil {
		o.Abort()
		return err
	}
	if err := o.Commit(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	if err := writeProfile(e, p); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s (load average %.2f before, %.2f after)\n", path, p.Provenance.LoadAverage[0], p.Provenance.LoadAverage[1])
	return nil
}

// writeProfile writes p's figures as a table: each figure's median and p99, and whether it was
// measured or assumed.
func writeProfile(e *env, p *sim.Profile) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "profile %s\tp50\tp99\t\n", p)
	for _, name := range sim.ProfileFigures() {
		f := p.Figures[name]
		note := ""
		if f.Assumed != "" {
			note = "assumed: " + f.Assumed
		}
		fmt.Fprintf(tw, "%s\t%v\t%v\t%s\n", name, f.Cost.P50.Round(10*time.Nanosecond), f.Cost.P99.Round(10*time.Nanosecond), note)
	}
	for _, pt := range p.IPIIdle.Points {
		fmt.Fprintf(tw, "ipi_idle at %v\t%v\t%v\t\n", pt.Idle.Round(10*time.Nanosecond), pt.Cost.P50.Round(10*time.Nanosecond), pt.Cost.P99.Round(10*time.Nanosecond))
	}
	return tw.Flush()
}
