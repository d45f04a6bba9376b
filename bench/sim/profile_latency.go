package sim

// This file implements the kinds of a profile's figures, CPU time or latency, and
// Profile.Latencies, the profile restricted to its latencies.

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A FigureKind says what a profile figure stands for on the measured machine: CPU time that
// the thread it is charged to spends (CPUFigure), or wall time in which no thread of the
// workload runs on that thread's behalf (LatencyFigure). The kind decides what a CPU time
// measured with the real program already holds: its user+system time includes every
// CPUFigure, and none of the latencies.
type FigureKind int

const (
	// CPUFigure is CPU time charged to a thread of the workload, which the kernel counts in that
	// thread's user+system time: the waker's try_to_wake_up (wakeup), sending an IPI
	// (ipi_send), the context switch (switch, switch_mm), the cache refills (refill and the
	// migration figures) and the clock interrupt's work (tick, which the kernels count into the
	// interrupted task's time unless they account interrupt time apart).
	CPUFigure FigureKind = iota + 1
	// LatencyFigure is wall time between a decision and its effect in which no thread of the
	// workload runs for it: the reschedule IPI in flight (ipi), the idle state's exit
	// (idle_exit) and the idle loop's polling that decides whether the exit is paid
	// (idle_poll), both the idle task's time, a timer's expiry after its deadline (timer), and
	// the timer interrupt's way from the wake-up to a preempting switch-in (timer_exit; where
	// the sleeper waits instead, the machine charges it to the interrupted thread as interrupt
	// time, which a calibrated program's CPU time would hold, so a profile restricted to its
	// latencies charges it there too).
	LatencyFigure
)

// String returns "cpu" or "latency".
func (k FigureKind) String() string {
	switch k {
	case CPUFigure:
		return "cpu"
	case LatencyFigure:
		return "latency"
	}
	return "FigureKind(" + strconv.Itoa(int(k)) + ")"
}

// ProfileFigureKind returns the kind of the named figure of ProfileFigures, and whether the
// name is one.
func ProfileFigureKind(name string) (FigureKind, bool) {
	for _, f := range profileFigures {
		if f.name == name {
			return f.kind, true
		}
	}
	return 0, false
}

// LatenciesOnlySuffix ends the name of a profile restricted to its latencies (Latencies).
const LatenciesOnlySuffix = " (latencies only)"

// Latencies returns a copy of p that charges only its latency figures (LatencyFigure: ipi,
// idle_exit, idle_poll, timer, timer_exit; and the ipi_idle curve, IPIIdle), every CPU figure 0,
// named p's name with LatenciesOnlySuffix ("ci (latencies only)") so that a table says which profile it used. It is for a workload
// whose costs were calibrated from a real program's CPU time: that time already holds the
// kernel's CPU-side work (the wake-ups, switches, refills and ticks the program caused), so
// charging the CPU figures on top would count them twice, while the latencies are wall time
// outside the program's threads and are counted nowhere else. A CPU figure left out keeps its
// date and says in its method that it was left out, so the copy writes and reads back as a
// profile file (MarshalJSON, ParseProfile). The program figures are copied as they are. The
// latencies of a profile restricted already are that profile.
func (p *Profile) Latencies() *Profile {
	if p == nil {
		panic("sim: Latencies of a nil profile")
	}
	q := *p
	if !strings.HasSuffix(q.Name, LatenciesOnlySuffix) {
		q.Name += LatenciesOnlySuffix
	}
	q.Provenance.Notes = slices.Clone(p.Provenance.Notes)
	q.Program = maps.Clone(p.Program)
	q.IPIIdle.Points = slices.Clone(p.IPIIdle.Points)
	q.Figures = make(map[string]Figure, len(p.Figures))
	for name, f := range p.Figures {
		if kind, _ := ProfileFigureKind(name); kind == CPUFigure && !f.Cost.IsZero() {
			f = Figure{Unit: f.Unit, Date: f.Date,
				Method: "left out (latencies only): a CPU figure, which a calibrated program's CPU time holds; measured: " + f.Method}
		}
		q.Figures[name] = f
	}
	return &q
}

// LatenciesOnly reports whether p charges some latency and no CPU figure (Latencies' result,
// or a profile measured so).
func (p *Profile) LatenciesOnly() bool {
	lat := false
	for _, f := range profileFigures {
		c := p.Figures[f.name].Cost
		switch {
		case c.IsZero():
		case f.kind == CPUFigure:
			return false
		default:
			lat = true
		}
	}
	return lat
}
