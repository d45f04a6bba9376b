package host

// This file implements the decomposition of the calibration's measurements into a machine
// profile (sim.Profile): which probe measures which sum of steps, and how each step's figure is
// taken from them.

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/internal/numfmt"
	"github.com/schedkit/schedkit/topology"
)

// Measurements are what Calibrate's probes measured on the host, each as quantiles of its
// samples (sim.Cost: min, p50, p90, p99, max), in nanoseconds.
type Measurements struct {
	// FutexWake is a FUTEX_WAKE that finds no waiter, clock reads around it included: the
	// system call's own entry and exit.
	FutexWake sim.Cost
	// WakeRemote is the waker's FUTEX_WAKE of a thread blocked on another, idle CPU: the system
	// call with try_to_wake_up in it.
	WakeRemote sim.Cost
	// PingRemote is the one-way latency of a futex ping-pong between two threads on two CPUs,
	// each blocked while the other runs: from before the waker's FUTEX_WAKE to the wakee's return
	// from FUTEX_WAIT.
	PingRemote sim.Cost
	// WakeLocal is the waker's FUTEX_WAKE of a thread blocked on its own CPU that does not
	// preempt it (a SCHED_IDLE thread), and PingLocal that thread's latency, from before the
	// FUTEX_WAKE to its return (the waker's way into a sleep and the switch included: a
	// cross-check).
	WakeLocal, PingLocal sim.Cost
	// PipeRW is a one-byte write and read of a pipe that do not block, in one thread.
	PipeRW sim.Cost
	// PerfPipe and PerfPipeThreads are perf bench sched pipe's round trip (usecs/op) on one
	// CPU, with processes and with threads (-T), over repetitions.
	PerfPipe, PerfPipeThreads sim.Cost
	// PerfPipeWakes and PerfPipeThreadsWakes are the same runs' wake-ups a round trip: their
	// voluntary context switches (ru_nvcsw) over their loops, the median of the runs. A task of
	// the benchmark blocks only in a read of its empty pipe, which its partner's write ends with
	// a wake-up. On Linux 6.18 it is about 1, not 2: the reader woken by a write preempts the
	// writer (check_preempt_wakeup_fair: the wakee is the entity pick_eevdf picks, eligible with
	// the earliest virtual deadline; PREEMPT_NONE, so at the write's return to user space),
	// whose read then finds the reply there and does not block, so that of the round trip's two
	// writes only one finds a sleeper (on the CI machine, one CPU, 20000 loops -T: 20200
	// sched:sched_wakeup events, and about 1.05 voluntary and 0.95 involuntary switches a
	// loop). 0 where not counted.
	PerfPipeWakes, PerfPipeThreadsWakes float64
	// TimerIdle and TimerBusy are how late a thread sleeping to absolute 1 ms deadlines runs
	// (timer slack 1 ns), alone on its CPU and beside a SCHED_IDLE hog it preempts.
	TimerIdle, TimerBusy sim.Cost
	// TimerIdleReps and TimerBusyReps are the same probes' quantiles in each repetition
	// (CalibrateOptions.Reps), of which TimerIdle and TimerBusy are the median, quantile by
	// quantile (see [MedianCost]): how far one calibration's tail is from the next one's.
	TimerIdleReps, TimerBusyReps []sim.Cost
	// TimerExpiry, TimerWaking and TimerWakeSwitch are TimerBusy's wake-ups as the kernel's
	// tracepoints on the probed CPU saw them, where the probe ran traced (root, perf; see
	// parseTimerTrace): the deadline to the hrtimer's expiry (hrtimer_start's softexpires to
	// hrtimer_expire_entry's now), the deadline to hrtimer_wakeup's try_to_wake_up
	// (sched_waking), and, of the wake-ups that preempted the hog at once, the waking to the
	// sleeper's switch-in (sched_switch); each the median of the repetitions', quantile by
	// quantile. Zero where the probe ran untraced.
	TimerExpiry, TimerWaking, TimerWakeSwitch sim.Cost
	// TimerWakingReps is TimerWaking's quantiles in each repetition.
	TimerWakingReps []sim.Cost
	// TimerUntraced says why the timer probe beside the hog ran untraced, so that the timer
	// figure is TimerBusy less the model's charges after the wake-up; "" where it ran traced.
	TimerUntraced string
	// IdleByPeriod is how late the sleeper alone on its CPU runs at periods shorter than 1 ms
	// (TimerIdle's), shortest first: below the idle time at which the CPU stops polling and
	// halts, it leaves idle without the exit latency.
	IdleByPeriod []IdleLateness
	// IPIByIdle is the one-way latency of a futex ping-pong whose replier spins and waits a set
	// time after the sleeper blocks before it wakes it, by that time, shortest first (see
	// IdleIPILatency): the IPI's latency by how long its target had been idle. Empty where not
	// measured.
	IPIByIdle []IdleIPILatency
	// Tick is the time a clock interrupt takes from a thread spinning alone on its CPU; Hz the
	// kernel's clock rate it was identified at.
	Tick sim.Cost
	Hz   int
	// Refill is the extra time of a pass over a 32 KiB working set in shuffled cache-line order
	// after another thread of the process swept 4 MiB on the same CPU, over a pass without.
	Refill sim.Cost
	// Migration is the same after the thread moved to another CPU, by the closest level the two
	// CPUs share; the levels the machine has not are absent.
	Migration map[topology.Level]sim.Cost
	// Pipe100 and Socket100 are a 100-byte write and read of a pipe and of an AF_UNIX stream
	// socket pair that do not block, in one thread: hackbench's message, without the wake-up.
	Pipe100, Socket100 sim.Cost
	// Pipe100Shared and Socket100Shared are the same while a thread on another CPU writes and
	// reads the same pipe or socket pair: the pipe's lock and buffer move between the CPUs'
	// caches at every message, as in hackbench, whose senders on every CPU write to each
	// receiver's pipe.
	Pipe100Shared, Socket100Shared sim.Cost
	// Pipe100Fanout and Socket100Fanout are hackbench's message in hackbench's shape: a sender
	// on one CPU writing 100-byte messages round-robin into hackbench's 20 pipes or socket
	// pairs, each holding up to fanoutDepth messages, and a receiver on the other CPU reading
	// them, neither blocking; each sample is a message's time in its write plus its time in its
	// read. Every message is written on one CPU and read (for a socket, its skb freed) on the
	// other.
	Pipe100Fanout, Socket100Fanout sim.Cost
	// SwitchMMRing is the extra of a switch to another process among switchRingTasks of them
	// on one CPU: each lap of a token around a ring of that many processes (a hop a switch to
	// the process that ran a lap before) a hop, less the median hop of the same ring of threads
	// of one process. perf bench sched pipe's two processes (the machine figure switch_mm)
	// switch between two address spaces only.
	SwitchMMRing sim.Cost
	// Fault is a write fault on a page mapped copy-on-write (the copy, the trap and the return),
	// and Exit a small process's exit, from kill(SIGKILL) to the wait4 that reaps it: what a
	// child of fork pays beyond its threads' work (hackbench's processes).
	Fault, Exit sim.Cost
	// FaultBusy and ExitBusy are the same with a thread spinning on the other CPU: on a virtual
	// machine the page-table work of one CPU can depend on whether the other is busy.
	FaultBusy, ExitBusy sim.Cost
	// Skipped names the measurements that could not be made, and why.
	Skipped []string
	// Reps are the measurements of each repetition of the probes other than the timer's
	// (CalibrateOptions.Reps), of which every figure above is the median, quantile by quantile
	// (see [MedianCost]); nil for a single repetition.
	Reps []Measurements
}

// costs returns m's figures measured by the probes other than the timer's, which the
// repetitions of a calibration combine one by one (see medianOf).
func (m *Measurements) costs() []*sim.Cost {
	return []*sim.Cost{&m.FutexWake, &m.WakeRemote, &m.PingRemote, &m.WakeLocal, &m.PingLocal, &m.PipeRW,
		&m.PerfPipe, &m.PerfPipeThreads, &m.Tick, &m.Refill, &m.Pipe100, &m.Socket100, &m.Fault, &m.Exit,
		&m.FaultBusy, &m.ExitBusy, &m.Pipe100Shared, &m.Socket100Shared, &m.Pipe100Fanout, &m.Socket100Fanout, &m.SwitchMMRing}
}

// medianOf returns the measurements of the repetitions reps combined: each figure the median of
// the repetitions', quantile by quantile (MedianCost), over those that measured it; the
// migrations level by level; the clock rate of the first that identified one. Skipped is left
// empty and Reps is reps.
func medianOf(reps []Measurements) Measurements {
	var m Measurements
	for i, c := range m.costs() {
		var cs []sim.Cost
		for r := range reps {
			if rc := *reps[r].costs()[i]; rc.Max > 0 {
				cs = append(cs, rc)
			}
		}
		*c = MedianCost(cs)
	}
	for _, w := range []struct {
		dst *float64
		of  func(*Measurements) float64
	}{{&m.PerfPipeWakes, func(r *Measurements) float64 { return r.PerfPipeWakes }},
		{&m.PerfPipeThreadsWakes, func(r *Measurements) float64 { return r.PerfPipeThreadsWakes }}} {
		var xs []float64
		for r := range reps {
			if x := w.of(&reps[r]); x > 0 {
				xs = append(xs, x)
			}
		}
		*w.dst = medianFloat(xs)
	}
	for r := range reps {
		m.Hz = cmp.Or(m.Hz, reps[r].Hz)
		for level := range reps[r].Migration {
			if _, done := m.Migration[level]; done {
				continue
			}
			var cs []sim.Cost
			for q := range reps {
				if c, ok := reps[q].Migration[level]; ok && c.Max > 0 {
					cs = append(cs, c)
				}
			}
			if m.Migration == nil {
				m.Migration = map[topology.Level]sim.Cost{}
			}
			m.Migration[level] = MedianCost(cs)
		}
	}
	m.Reps = reps
	return m
}

// levelFigures are the profile figures of migrations, by the topology level they stand for.
var levelFigures = []struct {
	name  string
	level topology.Level
}{{"migration_smt", topology.SMT}, {"migration_llc", topology.LLC}, {"migration_node", topology.Node}, {"migration_remote", topology.Machine}}

// figureLevel returns the level of the profile's migration figure that a move between CPUs
// sharing l is charged (sim.MigrationCosts.At).
func figureLevel(l topology.Level) topology.Level {
	switch l {
	case topology.Cluster:
		return topology.LLC
	case topology.Package:
		return topology.Machine
	}
	return l
}

// IdleLateness is how late a sleeper alone on its CPU ran at one period (Measurements.IdleByPeriod).
type IdleLateness struct {
	Period time.Duration
	Late   sim.Cost
}

// pollWindow returns the idle time below which the CPU leaves idle without the exit latency,
// from the sleeper's lateness at short periods (byPeriod) against its lateness at 1 ms (long),
// and a sentence saying how it was found; 0 if the lateness at the shortest period is within a
// quarter of long's (no polling seen) or nothing was measured.
//
// A period's idle time is the period less the sleeper's 5 µs of work and its median lateness.
// The window ends at the first step of the lateness: the first period late by more than a
// quarter of the whole rise (long − short) above the shortest period's, the same fraction that
// decides whether polling was seen at all. The window is the midpoint of the idle times of the
// period before that step and of the step's. The lateness can rise in more than one step (on
// the CI machine type, once at about 200 µs idle where the guest's halt polling ends and again
// between 600 µs and 1 ms); the later steps are the host idling deeper, which the model's one
// idle_exit figure, measured at 1 ms, stands for. Taking the first step keeps the window the
// idle time the CPU wakes from at once, whatever the size of the later steps.
func pollWindow(byPeriod []IdleLateness, long time.Duration) (time.Duration, string) {
	if len(byPeriod) == 0 || long <= 0 {
		return 0, ""
	}
	short := byPeriod[0].Late.P50
	if long-short < long/4 {
		return 0, fmt.Sprintf("no polling seen: the sleeper was %v late at a %v period, %v at 1 ms", short, byPeriod[0].Period, long)
	}
	idle := func(l IdleLateness) time.Duration { return max(l.Period-5*time.Microsecond-l.Late.P50, 0) }
	step := short + (long-short)/4
	lastEarly, firstLate := idle(byPeriod[0]), time.Millisecond-5*time.Microsecond-long
	var seen []string
	for _, l := range byPeriod {
		seen = append(seen, fmt.Sprintf("%v: %v", l.Period, l.Late.P50))
	}
	for _, l := range byPeriod[1:] {
		if l.Late.P50 > step {
			firstLate = idle(l)
			break
		}
		lastEarly = idle(l)
	}
	w := (lastEarly + firstLate) / 2
	return w, fmt.Sprintf("a thread sleeping to absolute deadlines alone on its CPU, how late it ran by period (%s; at 1 ms %v): the midpoint of the idle times of the last period within a quarter of the rise above the shortest's (%v idle) and the first beyond it (%v idle)", strings.Join(seen, ", "), long, lastEarly, firstLate)
}

// Derive returns the profile's figures from m, each with its method (dated date): which probe
// measured it, and what was taken away. The model charges a wake-up's steps as sim.Costs says,
// so each figure is the part of a probe's measurement that the model charges for that step:
//
//   - wakeup: WakeLocal − FutexWake (the waker's try_to_wake_up, beyond the system call);
//   - ipi_send: WakeRemote − WakeLocal (what a remote wake-up costs the waker beyond a local
//     one: the IPI's send, on a virtual machine an exit to the hypervisor);
//   - switch + refill, together: (PerfPipeThreads − PerfPipeThreadsWakes × wakeup) / 2 − PipeRW
//     (perf bench sched pipe -T's round trip is two writes and two reads, two switches with a
//     refill each, and as many wake-ups as its reads blocked: about one on Linux 6.18, where
//     the woken reader preempts the writer before its read, see PerfPipeWakes; the model
//     charges the round trip the same steps); refill: Refill; switch: the rest;
//   - switch_mm: (PerfPipe − PerfPipeThreads − (PerfPipeWakes − PerfPipeThreadsWakes) ×
//     wakeup) / 2 (processes against threads);
//   - timer: where the probe beside the hog ran traced, TimerWaking (the deadline to the
//     sleeper's sched_waking: the model makes a timer-woken thread runnable the timer after its
//     deadline, then charges the switch and the refill when it runs, and nothing for the
//     interrupt's exit, see timerFigure); untraced, TimerBusy − (switch + refill) (spread:
//     TimerBusy's), which holds the way from the waking to a preemption's switch-in too;
//   - idle_exit: TimerIdle − timer quantile by quantile (the model charges a timer wake-up on
//     an idle CPU where nothing else ran the timer and the idle exit, no switch, no refill, and
//     draws the exit at the timer's point of its distribution, sim.Idle.ExitLatency: the two
//     add up to TimerIdle at every quantile, where taking the timer's median away would leave
//     the timer's tail in the exit's, and the draw would count it twice);
//   - idle_poll: the idle time below which the sleeper's lateness stays near its lateness at
//     the shortest period (IdleByPeriod, see pollWindow); left out when no polling is seen;
//   - ipi: PingRemote − FutexWake − wakeup − idle_exit (the model charges a remote wake-up of a
//     thread on an idle CPU the wakeup, the IPI and the idle exit), without idle_exit when the
//     ping-pong's idle times (about two one-way latencies) are within the poll window;
//   - migration by level: Migration at the levels measured; a level the machine has not takes
//     the figure of the nearest level measured, marked assumed;
//   - tick: Tick.
//
// Medians are taken away from spreads, so each figure keeps the spread of the probe it comes
// from, except the idle exit, whose probe's spread holds the timer's. The program figures are those of ProgramFigures that were measured. It is an error if a measurement
// needed is missing or a figure comes out as 0 or less, except the switch: a small difference of
// larger medians, it is 0 where it comes out at or below 0 within the spreads (p90 − p50) of
// the terms it is derived from, and an error only below that.
func Derive(m Measurements, date string) (figs, program map[string]sim.Figure, err error) {
	figs = map[string]sim.Figure{}
	fig := func(c sim.Cost, method string) sim.Figure {
		return sim.Figure{Cost: c, Unit: "us", Method: method, Date: date}
	}
	for _, need := range []struct {
		name string
		c    sim.Cost
	}{{"futex wake", m.FutexWake}, {"remote wake", m.WakeRemote}, {"local wake", m.WakeLocal}, {"remote ping-pong", m.PingRemote},
		{"pipe write+read", m.PipeRW}, {"perf bench sched pipe", m.PerfPipe}, {"perf bench sched pipe -T", m.PerfPipeThreads}, {"timer on an idle CPU", m.TimerIdle},
		{"timer on a busy CPU", m.TimerBusy}, {"tick", m.Tick}, {"refill", m.Refill}} {
		if need.c.Max <= 0 {
			return nil, nil, fmt.Errorf("host: derive: no %s measurement", need.name)
		}
	}
	if m.PerfPipeWakes <= 0 || m.PerfPipeThreadsWakes <= 0 {
		return nil, nil, fmt.Errorf("host: derive: no count of perf bench sched pipe's wake-ups (%g with processes, %g with threads)", m.PerfPipeWakes, m.PerfPipeThreadsWakes)
	}
	wake := minus(m.WakeLocal, m.FutexWake)
	figs["wakeup"] = fig(wake, fmt.Sprintf("the waker's FUTEX_WAKE of a thread blocked on its own CPU that does not preempt it (median %v) less a FUTEX_WAKE without waiter (median %v): try_to_wake_up's work in the waker", m.WakeLocal.P50, m.FutexWake.P50))
	send := minus(m.WakeRemote, m.WakeLocal)
	if send.P50 <= 0 {
		return nil, nil, fmt.Errorf("host: derive: the IPI's send comes out as %v (a remote wake %v, a local one %v)", send.P50, m.WakeRemote.P50, m.WakeLocal.P50)
	}
	figs["ipi_send"] = fig(send, fmt.Sprintf("the waker's FUTEX_WAKE of a thread blocked on another, idle CPU (median %v) less that of one on its own CPU (%v): the IPI's send", m.WakeRemote.P50, m.WakeLocal.P50))
	wakes := times(wake.P50, m.PerfPipeThreadsWakes)
	switchRefill := (m.PerfPipeThreads.P50-wakes)/2 - m.PipeRW.P50
	sw := switchRefill - clamp(m.Refill).P50
	// The switch is a small difference of larger medians. Within the terms' spreads (p90 − p50
	// of each) it is not resolved: a figure at or below 0 there is 0, the switch too cheap for
	// these probes to see; below that the measurements disagree.
	res := spreadOf(m.PerfPipeThreads)/2 + spreadOf(m.PipeRW) + times(spreadOf(wake), m.PerfPipeThreadsWakes)/2 + spreadOf(clamp(m.Refill))
	how := fmt.Sprintf("half of perf bench sched pipe -T's round trip on one CPU (median %v over its runs: threads) less its %.3f wake-ups a round trip (voluntary switches over loops; %v at the wakeup's %v), less a non-blocking pipe write+read (%v) and the refill (%v)", m.PerfPipeThreads.P50, m.PerfPipeThreadsWakes, wakes, wake.P50, m.PipeRW.P50, m.Refill.P50)
	switch {
	case sw <= -res:
		return nil, nil, fmt.Errorf("host: derive: the switch comes out as %v (perf bench sched pipe -T %v per round trip with %.3f wake-ups, pipe write+read %v, wakeup %v, refill %v): the measurements disagree beyond their spreads (%v)", sw, m.PerfPipeThreads.P50, m.PerfPipeThreadsWakes, m.PipeRW.P50, wake.P50, m.Refill.P50, res)
	case sw <= 0:
		how += fmt.Sprintf(": %v, within the terms' spreads (%v), so 0: too cheap for these probes to resolve", sw, res)
		sw = 0
	}
	figs["switch"] = fig(sim.Fixed(sw), how)
	mm := (m.PerfPipe.P50 - times(wake.P50, m.PerfPipeWakes) - (m.PerfPipeThreads.P50 - wakes)) / 2
	if mm <= 0 {
		return nil, nil, fmt.Errorf("host: derive: the switch of address space comes out as %v (perf bench sched pipe %v with processes, %v with threads)", mm, m.PerfPipe.P50, m.PerfPipeThreads.P50)
	}
	figs["switch_mm"] = fig(sim.Fixed(mm), fmt.Sprintf("half the difference of perf bench sched pipe's round trips on one CPU with processes (median %v, %.3f wake-ups) and with threads (%v, %.3f wake-ups), each less its wake-ups", m.PerfPipe.P50, m.PerfPipeWakes, m.PerfPipeThreads.P50, m.PerfPipeThreadsWakes))
	figs["refill"] = fig(clamp(m.Refill), "a pass over a 32 KiB working set in shuffled cache-line order after another thread of the process swept 4 MiB on the same CPU, less the same pass run again at once")
	tf, err := deriveTimer(m, switchRefill, fig)
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(figs, tf)
	exit, window := tf["idle_exit"].Cost, tf["idle_poll"].Cost.P50
	// In the ping-pong each CPU is idle for about a round trip between its thread's turns: the
	// idle exit is part of a one-way latency only if that is longer than the poll window.
	pingExit, pingHow := exit.P50, fmt.Sprintf("the idle exit (%v)", exit.P50)
	if pingIdle := 2 * m.PingRemote.P50; pingIdle <= window {
		pingExit, pingHow = 0, fmt.Sprintf("no idle exit (each CPU idle about %v, within the poll window)", pingIdle)
	}
	ipi := less(m.PingRemote, m.FutexWake.P50+wake.P50+pingExit)
	if ipi.P50 <= 0 {
		return nil, nil, fmt.Errorf("host: derive: the IPI comes out as %v (remote ping-pong %v, futex wake %v, wakeup %v, idle exit %v)", ipi.P50, m.PingRemote.P50, m.FutexWake.P50, wake.P50, pingExit)
	}
	figs["ipi"] = fig(ipi, fmt.Sprintf("one way of a futex ping-pong between two CPUs, each thread blocked while the other runs (median %v), less the futex wake (%v), the wakeup (%v) and %s: the IPI, the idle loop's way out and the wakee's return", m.PingRemote.P50, m.FutexWake.P50, wake.P50, pingHow))
	figs["tick"] = fig(m.Tick, fmt.Sprintf("the gaps a thread spinning alone on its CPU sees at the clock interrupts' period (HZ=%d)", m.Hz))
	if err := deriveMigrations(m, fig, figs); err != nil {
		return nil, nil, err
	}
	return figs, programFigures(m, fig), nil
}

// programFigures are the costs of the programs' own work that the workloads charge as CPU time:
// a pipe's write and read, and hackbench's 100-byte messages through a pipe and a socket.
func programFigures(m Measurements, fig func(sim.Cost, string) sim.Figure) map[string]sim.Figure {
	program := map[string]sim.Figure{}
	for _, f := range programFigureDocs {
		if c := f.of(&m); c.Max > 0 {
			program[f.name] = fig(*c, f.method)
		}
	}
	return program
}

// fanoutFDs is the number of pipes or socket pairs the fan-out probe's sender writes to in
// turn: hackbench's receivers a group (its -f default, hackbenchFDs).
const fanoutFDs = hackbenchFDs

// fanoutDepth is how many messages the fan-out probe's sender keeps in each pipe or socket at
// most before it waits for the receiver: hackbench's queues are deep (a sender blocks only when
// a socket holds hackbenchSocketCap messages and wakes when three quarters of them are read),
// so the messages a receiver reads were written long before, their memory out of the writer's
// cache. 128 is half a socket's capacity (hackbenchSocketCap, 278) and a fifth of a pipe's
// (hackbenchPipeCap, 640): no write ever finds the buffer full.
const fanoutDepth = 128

// programFigureDocs are the program figures: their names in a profile, the measurement each
// is, and how it is made.
var programFigureDocs = []struct {
	name, method string
	of           func(*Measurements) *sim.Cost
}{
	{"pipe", "a one-byte write and read of a pipe that do not block, in one thread",
		func(m *Measurements) *sim.Cost { return &m.PipeRW }},
	{"pipe100", "a 100-byte write and read of a pipe that do not block, in one thread (hackbench's message)",
		func(m *Measurements) *sim.Cost { return &m.Pipe100 }},
	{"socket100", "a 100-byte write and read of an AF_UNIX stream socket pair that do not block, in one thread (hackbench -s 100's message)",
		func(m *Measurements) *sim.Cost { return &m.Socket100 }},
	{"pipe100_shared", "pipe100's write and read while a thread on another CPU writes and reads the same pipe in the same loop (hackbench's message, its pipe written from every CPU)",
		func(m *Measurements) *sim.Cost { return &m.Pipe100Shared }},
	{"socket100_shared", "socket100's write and read while a thread on another CPU writes and reads the same socket pair in the same loop",
		func(m *Measurements) *sim.Cost { return &m.Socket100Shared }},
	{"pipe100_fanout", fmt.Sprintf("a sender on one CPU writing 100-byte messages round-robin into %d pipes, each holding up to %d, and a receiver on another CPU reading them in turn, neither blocking (they keep in step by spinning in user code): a message's time in its write plus its time in its read (hackbench's message in hackbench's shape, without its sleeps and wake-ups)", fanoutFDs, fanoutDepth),
		func(m *Measurements) *sim.Cost { return &m.Pipe100Fanout }},
	{"socket100_fanout", fmt.Sprintf("pipe100_fanout's probe through %d AF_UNIX stream socket pairs: each skb allocated by the writer (unix_stream_sendmsg) on one CPU and freed by the reader (unix_stream_read_generic) on the other", fanoutFDs),
		func(m *Measurements) *sim.Cost { return &m.Socket100Fanout }},
	{"fault", "the first write to a page of a memfd mapped MAP_PRIVATE whose pages were read first: a copy-on-write fault, as a child of fork takes on the pages it shares with its parent",
		func(m *Measurements) *sim.Cost { return &m.Fault }},
	{"exit", "a sleep(1) pinned to the prober's CPU and asleep, from kill(SIGKILL) to the wait4 that reaps it: do_exit (exit_mm's teardown of a small dynamically linked process) and the reap, the wake-up and switches included",
		func(m *Measurements) *sim.Cost { return &m.Exit }},
	{"fault_busy", "fault's probe while another process spins in user code on another CPU",
		func(m *Measurements) *sim.Cost { return &m.FaultBusy }},
	{"exit_busy", "exit's probe while another process spins in user code on another CPU",
		func(m *Measurements) *sim.Cost { return &m.ExitBusy }},
	{"switch_mm_ring", fmt.Sprintf("a one-byte token passed around a ring of %d processes pinned to one CPU (cat(1), each blocked in its read until the one before writes to its pipe), a lap's time a hop, less the median hop of the same ring of threads of one process measured at once after: the extra of a switch to another process's address space when the CPU runs many in turn, as hackbench's %d tasks a CPU (switch_mm_irqs_off, the TLB refilled after it)", switchRingTasks, switchRingTasks),
		func(m *Measurements) *sim.Cost { return &m.SwitchMMRing }},
}

// ProgramFigures returns the names of the program figures Calibrate measures, in order.
func ProgramFigures() []string {
	names := make([]string, len(programFigureDocs))
	for i, f := range programFigureDocs {
		names[i] = f.name
	}
	return names
}

// deriveMigrations adds to figs the refill after a migration at each level of the topology
// (migration_smt, migration_llc, migration_node, migration_remote): measured where the machine
// has two CPUs sharing the level, else the figure of the nearest level measured, marked as
// assumed.
func deriveMigrations(m Measurements, fig func(sim.Cost, string) sim.Figure, figs map[string]sim.Figure) error {
	var measured []topology.Level
	for _, lf := range levelFigures {
		if c, ok := m.Migration[lf.level]; ok && c.Max > 0 {
			figs[lf.name] = fig(clamp(c), fmt.Sprintf("a pass over a 32 KiB working set in shuffled cache-line order right after the thread moved to another CPU sharing the %v level (sched_setaffinity), less the same pass run again at once", lf.level))
			measured = append(measured, lf.level)
		}
	}
	if len(measured) == 0 {
		return errors.New("host: derive: no migration measured")
	}
	for _, lf := range levelFigures {
		if _, ok := figs[lf.name]; ok {
			continue
		}
		near := measured[0]
		for _, l := range measured {
			if absDiff(l, lf.level) < absDiff(near, lf.level) {
				near = l
			}
		}
		f := figs[levelFigures[slices.IndexFunc(levelFigures, func(x struct {
			name  string
			level topology.Level
		}) bool {
			return x.level == near
		})].name]
		f.Assumed = fmt.Sprintf("the machine has no two CPUs sharing the %v level and nothing closer", lf.level)
		f.Method = "not measurable here: the figure of the nearest level measured, " + near.String()
		figs[lf.name] = f
	}
	return nil
}

func absDiff(a, b topology.Level) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// CalibrateOptions configure Calibrate.
type CalibrateOptions struct {
	// Name and About are the profile's; "" means "host" and a sentence naming the machine.
	Name, About string
	// MaxLoad is the highest one-minute load average at which the machine counts as quiet: 0
	// means 0.5; a negative value measures whatever the load (the profile records it).
	MaxLoad float64
	// Samples is the number of samples of each probe; 0 means 2000.
	Samples int
	// Reps is the number of repetitions of the probes: every figure is the median of the
	// repetitions', quantile by quantile (MedianCost). The timer probes on an idle and on a busy
	// CPU repeat back to back (the tails of the timer and of the idle exit come from them; one
	// run's p99 varies several times over from one minute to the next), the others one
	// repetition of them all after the other. 0 means 3.
	Reps int
	// Command is recorded in the profile's provenance.
	Command string
	// Now is the date recorded; the zero time means time.Now().
	Now time.Time
	// Log receives a line per measurement; nil discards them.
	Log io.Writer
}

// A SkippedError lists the measurements Calibrate could not make, and why.
type SkippedError struct {
	Skipped []string
}

func (e *SkippedError) Error() string {
	return "host: calibration incomplete, no profile: skipped " + strings.Join(e.Skipped, "; ")
}

// spreadNote returns the provenance note on a repeated probe's repetitions: their number and
// each one's median and p99, so that a reader of the profile sees how stable its tail is.
func spreadNote(what string, perRun int, reps []sim.Cost) string {
	p50s, p99s := make([]string, len(reps)), make([]string, len(reps))
	lo, hi := time.Duration(-1), time.Duration(0)
	for i, c := range reps {
		p50s[i], p99s[i] = us(c.P50)+"µs", us(c.P99)+"µs"
		if lo < 0 || c.P99 < lo {
			lo = c.P99
		}
		hi = max(hi, c.P99)
	}
	ratio := "-"
	if lo > 0 {
		ratio = numfmt.Sig3(float64(hi)/float64(lo)) + "×"
	}
	return fmt.Sprintf("%s: %d repetitions of %d samples, each quantile the median of theirs; median by repetition %s; p99 by repetition %s (largest over smallest %s)",
		what, len(reps), perRun, strings.Join(p50s, ", "), strings.Join(p99s, ", "), ratio)
}
