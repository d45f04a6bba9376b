package host

// This file implements Calibrate: the probes run one after the other on an otherwise quiet
// machine, and their measurements made into a machine profile.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// Calibrate measures the costs of the path from a scheduling decision to its effect on this
// machine and returns them as a profile (see Derive for what each figure is made of, and
// DeriveIPIIdle for the curve ipi_idle), with the measurements. It runs about half a minute, on the first and the last CPU of the
// process's affinity, under the machine-wide lock of the host runner.
//
// It refuses to measure a busy machine: a one-minute load average above o.MaxLoad before or
// after the measurements is a *SkippedError, as is a measurement that cannot be made here (no
// perf, one CPU, a class without permission). The profile is then nil and the measurements
// made so far are returned for the report; the caller writes no profile.
func Calibrate(ctx context.Context, o CalibrateOptions) (*sim.Profile, Measurements, error) {
	c := &calibration{ctx: ctx, o: o.withDefaults()}
	var shielded string
	var notes []string
	load, cpus, err := c.measure(func() error {
		var err error
		if shielded, err = c.repeatedProbes(c.probes); err != nil {
			return err
		}
		if len(c.m.Reps) > 1 {
			ping := make([]sim.Cost, len(c.m.Reps))
			for i := range c.m.Reps {
				ping[i] = c.m.Reps[i].PingRemote
			}
			notes = append(notes, spreadNote("the futex ping-pong between CPUs (one way: the IPI's figure)", c.n, ping))
		}
		idleNotes, err := c.idleProbes(false)
		if err != nil {
			return err
		}
		notes = append(notes, idleNotes...)
		timerNotes, err := c.timerProbes()
		if err != nil {
			return err
		}
		notes = append(notes, timerNotes...)
		return c.pollWindow()
	})
	if err != nil {
		return nil, c.m, err
	}
	figs, program, err := Derive(c.m, c.o.Now.UTC().Format("2006-01-02"))
	if err != nil {
		return nil, c.m, err
	}
	var curve sim.IdleCurve
	if len(c.m.IPIByIdle) > 0 {
		date := c.o.Now.UTC().Format("2006-01-02")
		if curve, err = DeriveIPIIdle(c.m, figs["wakeup"].Cost, figs["idle_exit"].Cost, figs["idle_poll"].Cost.P50, date); err != nil {
			return nil, c.m, err
		}
	}
	rel, _, _ := kernelRelease()
	p := &sim.Profile{Name: c.o.Name, About: c.o.About,
		Machine: sim.ProfileMachine{CPU: cpuModel(), Kernel: rel, CPUs: cpus.Count(), Hz: c.m.Hz},
		Provenance: sim.Provenance{Date: c.o.Now.UTC().Format(time.RFC3339), Command: c.o.Command, LoadAverage: load,
			Notes: append([]string{fmt.Sprintf("measured on CPUs %d and %d with %d samples per probe, %d repetitions of every probe, each figure's quantiles the median of theirs; %s; the timer probes in a cgroup of weight %d",
				c.a, c.b, c.n, c.o.Reps, shielded, timerWeight)}, notes...)},
		Figures: figs, Program: program, IPIIdle: curve}
	return p, c.m, nil
}

// CalibrateProgram measures the program figures named (of ProgramFigures; all of them if names
// is empty) as Calibrate does, and returns them with the measurements: a profile's program
// figures re-measured without its machine's. Its errors are Calibrate's; an unknown name is an
// error before anything is measured.
func CalibrateProgram(ctx context.Context, o CalibrateOptions, names []string) (map[string]sim.Figure, Measurements, error) {
	c := &calibration{ctx: ctx, o: o.withDefaults()}
	if len(names) == 0 {
		names = ProgramFigures()
	}
	for _, name := range names {
		if !slices.Contains(ProgramFigures(), name) {
			return nil, c.m, fmt.Errorf("host: calibrate: no program figure %q (want %s)", name, strings.Join(ProgramFigures(), ", "))
		}
	}
	_, _, err := c.measure(func() error {
		_, err := c.repeatedProbes(func(pr *prober) []probe { return c.programProbes(pr, names) })
		return err
	})
	if err != nil {
		return nil, c.m, err
	}
	date := c.o.Now.UTC().Format("2006-01-02")
	return programFigures(c.m, func(cost sim.Cost, method string) sim.Figure {
		return sim.Figure{Cost: cost, Unit: "us", Method: method, Date: date}
	}), c.m, nil
}

// CalibrateTimer measures the timer probes as Calibrate does (a sleeper to 1 ms deadlines on an
// idle and on a busy CPU, o.Reps times each, and at shorter periods for the poll window) and
// returns the figures timer, idle_exit and idle_poll made of them by DeriveTimer with
// switchRefill (a profile's switch and refill), the provenance notes giving each repetition's
// median and p99, and the measurements: a profile's timer figures re-measured without the
// rest. Its errors are Calibrate's and DeriveTimer's.
func CalibrateTimer(ctx context.Context, o CalibrateOptions, switchRefill time.Duration) (map[string]sim.Figure, []string, Measurements, error) {
	c := &calibration{ctx: ctx, o: o.withDefaults()}
	var notes []string
	_, _, err := c.measure(func() error {
		var err error
		if notes, err = c.timerProbes(); err != nil {
			return err
		}
		return c.pollWindow()
	})
	if err != nil {
		return nil, nil, c.m, err
	}
	figs, err := DeriveTimer(c.m, switchRefill, c.o.Now.UTC().Format("2006-01-02"))
	return figs, notes, c.m, err
}

// measure runs probes on the quiet machine: refused (a *SkippedError) where the one-minute
// load average is above MaxLoad before, and so after if it rose while they ran or a probe was
// skipped; the probes' CPUs the first (a) and the last (b) of the process's affinity; the Go
// runtime with spare Ps and no garbage collection meanwhile. It returns the load averages
// before and after, and the affinity.
func (c *calibration) measure(probes func() error) (load [2]float64, cpus topology.CPUSet, err error) {
	load[0] = loadavg()
	if c.o.MaxLoad >= 0 && load[0] > c.o.MaxLoad {
		return load, cpus, &SkippedError{Skipped: []string{fmt.Sprintf("every measurement: the one-minute load average is %.2f, above %.2f (-max-load)", load[0], c.o.MaxLoad)}}
	}
	if cpus, err = processAffinity(); err != nil {
		return load, cpus, err
	}
	c.a, _ = cpus.First()
	c.b, _ = cpus.Last()
	c.n = c.o.Samples
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 4))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if err := probes(); err != nil {
		return load, cpus, err
	}
	load[1] = loadavg()
	if c.o.MaxLoad >= 0 && load[1] > c.o.MaxLoad {
		c.m.Skipped = append(c.m.Skipped, fmt.Sprintf("every measurement: the one-minute load average rose to %.2f, above %.2f (-max-load), while they ran", load[1], c.o.MaxLoad))
	}
	if len(c.m.Skipped) > 0 {
		return load, cpus, &SkippedError{Skipped: c.m.Skipped}
	}
	return load, cpus, nil
}

// A calibration is one run of Calibrate: its options, the measurements so far, and the two CPUs
// the probes use (a for a second thread, b for the probed one).
type calibration struct {
	ctx  context.Context
	o    CalibrateOptions
	m    Measurements
	a, b topology.CPU
	n    int // samples per probe
	rep  int // the repetition of repeatedProbes under way
	// traced are the traced timer probe's steps by repetition (timerRun).
	traced []timerSteps
}

func (c *calibration) logf(format string, args ...any) { fmt.Fprintf(c.o.Log, format+"\n", args...) }

// skip records a measurement that could not be made, and says so.
func (c *calibration) skip(what string, err error) {
	c.m.Skipped = append(c.m.Skipped, fmt.Sprintf("%s: %v", what, err))
	c.logf("skipped %s: %v", what, err)
}

// repeatedProbes runs threadProbes Reps times, one repetition of every probe after the other
// (so that a minute of a busy hypervisor falls on one repetition of several probes rather than
// on every repetition of one), and keeps of each figure the median of the repetitions',
// quantile by quantile (medianOf). It returns threadProbes' account of the shielding.
func (c *calibration) repeatedProbes(probes func(*prober) []probe) (string, error) {
	reps := make([]Measurements, 0, c.o.Reps)
	var shielded string
	skipped := c.m.Skipped
	for rep := range c.o.Reps {
		c.rep, c.m = rep, Measurements{}
		var err error
		if shielded, err = c.threadProbes(probes); err != nil {
			return "", err
		}
		for _, s := range c.m.Skipped {
			if !slices.Contains(skipped, s) {
				skipped = append(skipped, s)
			}
		}
		reps = append(reps, c.m)
	}
	c.m = medianOf(reps)
	if len(reps) == 1 {
		c.m.Reps = nil
	}
	c.m.Skipped = skipped
	return shielded, nil
}

// threadProbes runs the probes of the wake-up path, the switch, the programs' system calls, the
// tick, the refill and the migration, holding the host lock, their threads (and the perf
// processes they start) in a group of the largest weight where the machine has a cpu
// controller. It returns how they were shielded, for the provenance.
func (c *calibration) threadProbes(probes func(*prober) []probe) (string, error) {
	unlock, err := lockHost(c.ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	pr := &prober{}
	shielded := "no cpu controller: the probes ran unshielded"
	if ctl, err := findController(); err == nil {
		if pr.shield, err = newCgroups(ctl, []workload.Group{{Name: "box"}}, timerWeight); err == nil {
			shielded = fmt.Sprintf("the probes in a cgroup of weight %d", timerWeight)
		} else {
			shielded = fmt.Sprintf("the probes ran unshielded (%v)", err)
		}
	}
	defer pr.shield.remove()
	for _, p := range probes(pr) {
		if err := c.ctx.Err(); err != nil {
			return "", err
		}
		if c.o.Reps > 1 {
			c.logf("measuring %s (%d of %d)", p.what, c.rep+1, c.o.Reps)
		} else {
			c.logf("measuring %s", p.what)
		}
		if err := p.run(); err != nil {
			c.skip(p.what, err)
		}
	}
	return shielded, pr.shield.remove()
}

// A probe is one measurement of threadProbes: what it measures and how, storing what it
// measured in the calibration's Measurements.
type probe struct {
	what string
	run  func() error
}

// probes returns threadProbes' measurements, made by pr.
func (c *calibration) probes(pr *prober) []probe {
	m, a, b, n, ctx := &c.m, c.a, c.b, c.n, c.ctx
	return append(c.programProbes(pr, ProgramFigures()), []probe{
		{"futex wake without waiter", func() error {
			s, err := pr.probeFutexWake(b, n)
			m.FutexWake = costOf(s)
			return err
		}},
		{"futex ping-pong between CPUs", func() error {
			if a == b {
				return errors.New("one CPU: no other CPU to wake a thread on")
			}
			lat, wake, err := pr.probePingPong(a, b, n)
			m.PingRemote, m.WakeRemote = costOf(lat), costOf(wake)
			if err == nil && (len(lat) < n/2 || len(wake) < n/2) {
				err = fmt.Errorf("only %d of %d round trips found the other thread asleep", min(len(lat), len(wake)), n)
			}
			return err
		}},
		{"futex wake on one CPU", func() error {
			wake, lat, err := pr.probeLocalWake(b, n)
			m.WakeLocal, m.PingLocal = costOf(wake), costOf(lat)
			if err == nil && len(wake) < n/2 {
				err = fmt.Errorf("only %d of %d wake-ups found the other thread asleep", len(wake), n)
			}
			return err
		}},
		{"perf bench sched pipe", func() error {
			s, wakes, err := pr.probePerfPipe(ctx, b, 20*n, 5, false)
			m.PerfPipe, m.PerfPipeWakes = costOf(s), medianFloat(wakes)
			return err
		}},
		{"perf bench sched pipe -T", func() error {
			s, wakes, err := pr.probePerfPipe(ctx, b, 20*n, 5, true)
			m.PerfPipeThreads, m.PerfPipeThreadsWakes = costOf(s), medianFloat(wakes)
			return err
		}},
		{"tick", func() error {
			s, hz, err := pr.probeTick(b, 900*time.Millisecond, kernelHz())
			m.Tick, m.Hz = costOf(s), hz
			if err == nil && len(s) < hz/2 {
				err = fmt.Errorf("only %d gaps at HZ=%d in 900 ms of spinning", len(s), hz)
			}
			return err
		}},
		{"refill", func() error {
			s, err := pr.probeRefill(b, n)
			m.Refill = costOf(s)
			return err
		}},
		{"migration", func() error {
			if a == b {
				return errors.New("one CPU: no other CPU to move to")
			}
			topo, err := topology.Discover()
			if err != nil {
				return err
			}
			s, err := pr.probeMigration(a, b, n)
			m.Migration = map[topology.Level]sim.Cost{figureLevel(topo.SharedLevel(a, b)): costOf(s)}
			return err
		}},
	}...)
}

// ipcProbes returns the probes of the program figures of pipes and sockets, by name, made by pr
// on the probed CPU (b) and, for those shared with another CPU, on the other (a).
func (c *calibration) ipcProbes(pr *prober) map[string]probe {
	m, b, n := &c.m, c.b, c.n
	return map[string]probe{
		"pipe": {"pipe write+read", func() error {
			s, err := pr.probeIPC(b, 1, n, false)
			m.PipeRW = costOf(s)
			return err
		}},
		"pipe100": {"pipe write+read of 100 bytes", func() error {
			s, err := pr.probeIPC(b, 100, n, false)
			m.Pipe100 = costOf(s)
			return err
		}},
		"socket100": {"socket write+read of 100 bytes", func() error {
			s, err := pr.probeIPC(b, 100, n, true)
			m.Socket100 = costOf(s)
			return err
		}},
		"pipe100_shared": {"pipe write+read of 100 bytes, the pipe shared with another CPU", func() error {
			return c.shared(pr, false, &m.Pipe100Shared)
		}},
		"socket100_shared": {"socket write+read of 100 bytes, the socket shared with another CPU", func() error {
			return c.shared(pr, true, &m.Socket100Shared)
		}},
		"pipe100_fanout": {"pipe write, read of 100 bytes, 20 pipes from another CPU", func() error {
			return c.fanout(pr, false, &m.Pipe100Fanout)
		}},
		"socket100_fanout": {"socket write, read of 100 bytes, 20 sockets from another CPU", func() error {
			return c.fanout(pr, true, &m.Socket100Fanout)
		}},
	}
}

// shared runs the shared probe (probeIPCShared) of 100-byte messages through a pipe or a socket
// pair on the probed CPU, while the other CPU writes and reads the same one, and stores its cost
// in out.
func (c *calibration) shared(pr *prober, socket bool, out *sim.Cost) error {
	if c.a == c.b {
		what := "pipe"
		if socket {
			what = "socket"
		}
		return errors.New("one CPU: no other CPU to share the " + what + " with")
	}
	s, err := pr.probeIPCShared(c.b, c.a, 100, c.n, socket)
	*out = costOf(s)
	return err
}

// fanout runs the fan-out probe (probeIPCFanout) through pipes or sockets, the receiver on the
// probed CPU and the sender on the other, and stores the sums of each message's write and read
// in out; it logs the medians of the writes and of the reads, the sender's and the receiver's
// shares.
func (c *calibration) fanout(pr *prober, socket bool, out *sim.Cost) error {
	if c.a == c.b {
		return errors.New("one CPU: no other CPU to write from")
	}
	w, r, err := pr.probeIPCFanout(c.b, c.a, 100, fanoutFDs, fanoutDepth, c.n, socket)
	if err != nil {
		return err
	}
	sum := make([]int64, len(w))
	for i := range w {
		sum[i] = w[i] + r[i]
	}
	*out = costOf(sum)
	c.logf("  the sender's write: median %v; the receiver's read: median %v; both: median %v", costOf(w).P50, costOf(r).P50, out.P50)
	return nil
}

// programProbes returns the probes of the program figures named (of ProgramFigures), made by pr
// on the probed CPU.
func (c *calibration) programProbes(pr *prober, names []string) []probe {
	m, a, b, n := &c.m, c.a, c.b, c.n
	all := c.ipcProbes(pr)
	for name, p := range map[string]probe{
		"fault": {"copy-on-write fault", func() error {
			s, err := pr.probeCOWFault(b, n)
			m.Fault = costOf(s)
			return err
		}},
		// A process takes a millisecond or two to start: a tenth of the samples.
		"exit": {"process exit and reap", func() error {
			s, err := pr.probeExit(b, max(n/10, 50))
			m.Exit = costOf(s)
			return err
		}},
		"fault_busy": {"copy-on-write fault beside a busy CPU", func() error {
			if a == b {
				return errors.New("one CPU: no other CPU to keep busy")
			}
			s, err := pr.beside(a, func() ([]int64, error) { return pr.probeCOWFault(b, n) })
			m.FaultBusy = costOf(s)
			return err
		}},
		"switch_mm_ring": {"switch among a ring of processes", func() error {
			extra, procs, threads, err := pr.switchMMRing(b, n)
			m.SwitchMMRing = costOf(extra)
			c.logf("  a hop: median %v with processes, %v with threads", time.Duration(procs), time.Duration(threads))
			return err
		}},
		"exit_busy": {"process exit and reap beside a busy CPU", func() error {
			if a == b {
				return errors.New("one CPU: no other CPU to keep busy")
			}
			s, err := pr.beside(a, func() ([]int64, error) { return pr.probeExit(b, max(n/10, 50)) })
			m.ExitBusy = costOf(s)
			return err
		}},
	} {
		all[name] = p
	}
	var ps []probe
	for _, name := range names {
		ps = append(ps, all[name])
	}
	return ps
}

// timerProbes runs the timer probes through Run, in a group of the largest weight, shielded
// from the rest of the machine, Reps times each, the one beside the hog traced where it can be
// (timerRun): their figures (and the idle exit's, the
// timer's tail among them) are the median of the repetitions', quantile by quantile
// (MedianCost), and the provenance notes it returns give each repetition's median and p99, how
// far one calibration's tail lies from the next.
func (c *calibration) timerProbes() ([]string, error) {
	m, periods := &c.m, c.n
	c.startTimerTrace()
	var notes []string
	for _, t := range []struct {
		what string
		hog  bool
		out  *sim.Cost
		reps *[]sim.Cost
	}{{"timer on an idle CPU", false, &m.TimerIdle, &m.TimerIdleReps}, {"timer on a busy CPU", true, &m.TimerBusy, &m.TimerBusyReps}} {
		var err error
		for rep := range c.o.Reps {
			if err = c.ctx.Err(); err != nil {
				return nil, err
			}
			c.logf("measuring %s (%d of %d)", t.what, rep+1, c.o.Reps)
			var h *sim.Histogram
			if h, err = c.timerRun(t.hog); err != nil {
				break
			}
			pc, _ := poolCost([]*sim.Histogram{h})
			*t.reps = append(*t.reps, pc)
		}
		if err != nil {
			c.skip(t.what, err)
			continue
		}
		*t.out = MedianCost(*t.reps)
		notes = append(notes, spreadNote(t.what, periods, *t.reps))
	}
	return append(notes, c.finishTimerTrace()...), nil
}

// pollWindow measures the same sleeper alone on its CPU at shorter periods, to see below which
// idle time the CPU leaves idle without the exit (KVM's halt polling).
func (c *calibration) pollWindow() error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	c.logf("measuring the idle poll window")
	for _, period := range pollPeriods {
		pc, err := probeTimer(c.ctx, c.b, max(c.n/5, 50), period, false)
		if err != nil {
			c.skip("the idle poll window", err)
			c.m.IdleByPeriod = nil
			break
		}
		c.m.IdleByPeriod = append(c.m.IdleByPeriod, IdleLateness{Period: period, Late: pc})
	}
	return nil
}

// timerWeight is the cpu.weight of the timer probes' group: the largest.
const timerWeight = 10000

// pollPeriods are the sleeper's periods of the poll-window probe.
var pollPeriods = []time.Duration{50 * time.Microsecond, 100 * time.Microsecond, 150 * time.Microsecond,
	200 * time.Microsecond, 250 * time.Microsecond, 300 * time.Microsecond, 400 * time.Microsecond,
	600 * time.Microsecond}

// probeTimer runs a thread on cpu that sleeps to n absolute deadlines period apart (the
// runner's every, timer slack 1 ns), with a SCHED_IDLE hog beside it if hog, in a group of the
// largest weight, and returns the quantiles of how late it ran.
func probeTimer(ctx context.Context, cpu topology.CPU, n int, period time.Duration, hog bool) (sim.Cost, error) {
	h, err := probeTimerSamples(ctx, cpu, n, period, hog)
	if err != nil {
		return sim.Cost{}, err
	}
	c, _ := poolCost([]*sim.Histogram{h})
	return c, nil
}

// probeTimerSamples is probeTimer with how late the thread ran each time as they came.
func probeTimerSamples(ctx context.Context, cpu topology.CPU, n int, period time.Duration, hog bool) (*sim.Histogram, error) {
	text := Box + fmt.Sprintf("thread probe group=box cpus=%d\n\tevery %dus %d\n\t\trun 5us\n\tend\nend\n", cpu, period.Microseconds(), n)
	if hog {
		text += fmt.Sprintf("thread hog group=box cpus=%d class=idle\n\trun forever\nend\n", cpu)
	}
	r, err := Run(ctx, mustParse(text), Options{Limit: time.Duration(n)*period + time.Second, Weight: timerWeight, KeepSignals: true})
	if err != nil {
		return nil, err
	}
	t, ok := r.Thread("probe")
	if !ok || t.Wakeup.Count() == 0 {
		return nil, errors.New("the probe was never woken")
	}
	return t.Wakeup.Clone(), nil
}

// cpuModel returns /proc/cpuinfo's first model name, with "(virtual machine)" where the CPU
// has the hypervisor flag.
func cpuModel() string {
	text, err := readFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	model, vm := "", false
	for _, l := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		case "flags":
			vm = vm || hasWord(v, "hypervisor")
		}
	}
	if vm {
		model += " (virtual machine)"
	}
	return model
}

func (o CalibrateOptions) withDefaults() CalibrateOptions {
	if o.Name == "" {
		o.Name = "host"
	}
	if o.MaxLoad == 0 {
		o.MaxLoad = 0.5
	}
	if o.Samples == 0 {
		o.Samples = 2000
	}
	if o.Reps == 0 {
		o.Reps = 3
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.About == "" {
		o.About = "The machine schedbench calibrate ran on (" + strings.TrimSpace(cpuModel()) + ", Linux " + Release() + ")."
	}
	return o
}
