package sim

// This file implements Stop, the conditions that end a run, and the warm-up that discards the
// statistics of its beginning.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
)

// Stop says when a run ends: at the first of its conditions to hold, or when every thread has
// exited (always a condition). The zero Stop runs until every thread has exited, which a
// workload with a thread that never exits never does: give it a Time.
type Stop struct {
	// Time ends the run at this simulated time: events later than Time are not handled, and the
	// machine's time is then Time. 0 means no time limit. At most MaxTime.
	Time time.Duration
	// Threads ends the run once every thread named has exited. A name is a thread's, such as
	// "gzip" or "worker.3", or a declaration's, which stands for all the threads it starts
	// (count=N) and, for a template, all the threads its forks created so far, of which at least
	// one must exist.
	Threads []string
	// Groups ends the run once every thread of each named control group has exited: the threads
	// whose declaration names the group or a group below it, and those forked so far from such a
	// template. The group must have such a declaration.
	Groups []string
	// Events ends the run once at least this many events have been handled (see
	// [Machine.Events]), counted from the machine's start; 0 means no limit. The step that
	// reaches the count finishes, so a clock interrupt, one event per CPU, may overshoot it by
	// fewer than the number of CPUs.
	Events uint64
	// Warmup discards the statistics of the run's first Warmup of simulated time: the Result
	// covers [Warmup, End] only (CPU times, waits, sleeps, work, counts, latencies, CPU busy
	// and idle time, events, messages, exits; Makespan and Share are over that interval). A
	// latency sample belongs to the interval its dispatch or wake-up's end falls in. Threads that
	// exited during the warm-up stay in Result.Threads with zero statistics. The trace and the
	// checkers' violations are kept whole. At most MaxTime; if the run ends during the warm-up,
	// nothing is measured (Start = End).
	Warmup time.Duration
	// Context, if not nil, ends the run once it is done: RunUntil looks at it every
	// [ContextPollEvents] events and then returns Canceled with the context's cause as its
	// error. A long run (a sweep's cell, a command a user interrupts) stops within a few
	// milliseconds of its context ending instead of at its end; the result covers what ran.
	Context context.Context
}

// ContextPollEvents is how many events a run handles between two looks at its Stop.Context.
const ContextPollEvents = 1 << 16

// An Ending says which condition ended a run.
type Ending uint8

const (
	// Running: the run has not ended (a Machine stepped by hand, or a Result taken midway).
	Running Ending = iota
	// AllExited: every thread exited.
	AllExited
	// TimeReached: Stop.Time was reached.
	TimeReached
	// ThreadsExited: every thread of Stop.Threads exited.
	ThreadsExited
	// GroupsExited: every thread of Stop.Groups exited.
	GroupsExited
	// EventsReached: Stop.Events events were handled.
	EventsReached
	// Failed: the run stopped on an error (see [Machine.Run]).
	Failed
	// Canceled: Stop.Context was done.
	Canceled
	numEndings
)

var endingNames = [numEndings]string{"running", "all-exited", "time", "threads-exited", "groups-exited",
	"events", "failed", "canceled"}

// String returns the ending's name, such as "time" or "threads-exited".
func (e Ending) String() string { return sched.EnumName(endingNames[:], e, "ending") }

// MarshalText implements encoding.TextMarshaler with the names of [Ending.String].
func (e Ending) MarshalText() ([]byte, error) {
	if e >= numEndings {
		return nil, fmt.Errorf("sim: unknown ending %d", uint8(e))
	}
	return []byte(e.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with the names of [Ending.String].
func (e *Ending) UnmarshalText(b []byte) error {
	i := slices.Index(endingNames[:], string(b))
	if i < 0 {
		return fmt.Errorf("sim: unknown ending %q", b)
	}
	*e = Ending(i)
	return nil
}

// A watch is one compiled exit condition: the programs whose threads must all have exited, by
// program (all its threads) or by one instance.
type watch struct {
	progs []int32 // whole declarations
	names []string
	// ending is what the watch ends the run with; for a group, a template that has forked
	// nothing yet counts as exited.
	ending Ending
}

// resolveStop checks s against the machine's workload and compiles its exit conditions.
func (m *Machine) resolveStop(s Stop) error {
	switch {
	case s.Time < 0 || s.Time > MaxTime:
		return fmt.Errorf("sim: Stop.Time %v outside 0..%v", s.Time, MaxTime)
	case s.Warmup < 0 || s.Warmup > MaxTime:
		return fmt.Errorf("sim: Stop.Warmup %v outside 0..%v", s.Warmup, MaxTime)
	case s.Time > 0 && s.Warmup >= s.Time:
		return fmt.Errorf("sim: Stop.Warmup %v is not before Stop.Time %v", s.Warmup, s.Time)
	}
	m.watches = m.watches[:0]
	if len(s.Threads) > 0 {
		w := watch{ending: ThreadsExited}
		byName := make(map[string]int32, len(m.progs))
		for i := len(m.progs) - 1; i >= 0; i-- {
			byName[m.progs[i].name] = int32(i) // the first declaration of a name wins
		}
		for _, n := range s.Threads {
			if pi, ok := byName[n]; ok {
				w.progs = append(w.progs, pi)
				continue
			}
			if !m.couldBeInstance(byName, n) {
				return fmt.Errorf("sim: Stop.Threads: no thread or declaration %q in the workload", n)
			}
			w.names = append(w.names, n)
		}
		m.watches = append(m.watches, w)
	}
	if len(s.Groups) > 0 {
		w := watch{ending: GroupsExited}
		for _, g := range s.Groups {
			found, any := false, false
			for _, gg := range m.wl.Groups {
				found = found || gg.Name == g
			}
			if !found {
				return fmt.Errorf("sim: Stop.Groups: no group %q in the workload", g)
			}
			for pi, p := range m.progs {
				if m.inGroup(p.decl.Group, g) {
					w.progs = append(w.progs, int32(pi))
					any = true
				}
			}
			if !any {
				return fmt.Errorf("sim: Stop.Groups: no thread declared in group %q", g)
			}
		}
		m.watches = append(m.watches, w)
	}
	m.stopAt = s
	m.setNextLook()
	return nil
}

// setNextLook sets the event count at which ended next looks at the event limit and the
// context: the limit, or ContextPollEvents from now if that comes first and there is a
// context. One comparison per step stands for both.
func (m *Machine) setNextLook() {
	m.nextLook = math.MaxUint64
	if m.stopAt.Events > 0 {
		m.nextLook = m.stopAt.Events
	}
	if m.stopAt.Context != nil {
		m.nextLook = min(m.nextLook, m.events+ContextPollEvents)
	}
}

// couldBeInstance reports whether n has the form DECL.K of an instance of a declaration that
// numbers its threads, where byName maps the declarations' names to their programs: the part
// of n before a dot names one, with something after the dot (names hold no dots, but any dot is
// tried, as a scan of the declarations would).
func (m *Machine) couldBeInstance(byName map[string]int32, n string) bool {
	for i := 0; i < len(n)-1; i++ {
		if n[i] != '.' {
			continue
		}
		if pi, ok := byName[n[:i]]; ok {
			if d := m.progs[pi].decl; d.Template || d.Instances() > 1 {
				return true
			}
		}
	}
	return false
}

// inGroup reports whether group g is want or lies below it.
func (m *Machine) inGroup(g, want string) bool {
	for depth := 0; g != "" && depth <= len(m.wl.Groups); depth++ {
		if g == want {
			return true
		}
		for _, gg := range m.wl.Groups {
			if gg.Name == g {
				g = gg.Parent
				break
			}
		}
	}
	return false
}

// watchDone reports whether every thread w waits for has exited.
func (m *Machine) watchDone(w *watch) bool {
	for _, pi := range w.progs {
		p := m.progs[pi]
		need := max(p.decl.Instances(), 1)
		if w.ending == GroupsExited && p.decl.Template {
			need = 0
		}
		if p.exited < p.made || p.made < need {
			return false
		}
	}
	for _, n := range w.names {
		found := false
		for tid := range m.threads {
			t := &m.threads[tid]
			if m.progs[t.prog].names(n, t.instance) {
				if t.state != tExited {
					return false
				}
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// ended returns the condition that ends the run now, or Running.
func (m *Machine) ended() Ending {
	switch {
	case m.err != nil:
		return Failed
	case m.live == 0:
		return AllExited
	}
	if m.exitsSeen != m.exitsChecked {
		m.exitsChecked = m.exitsSeen
		for i := range m.watches {
			if m.watchDone(&m.watches[i]) {
				return m.watches[i].ending
			}
		}
	}
	if m.events >= m.nextLook {
		if m.stopAt.Events > 0 && m.events >= m.stopAt.Events {
			return EventsReached
		}
		if ctx := m.stopAt.Context; ctx != nil && ctx.Err() != nil {
			return Canceled
		}
		m.setNextLook()
	}
	if m.q.empty() {
		return AllExited // nothing can happen any more; unreachable with a validated workload
	}
	return Running
}

// RunUntil handles events in time order until one of s's conditions holds or every thread has
// exited, and returns which ended the run; [Machine.Result] then covers the measured interval
// (after s.Warmup). The machine's time is the instant the condition came to hold (the last
// exit, or the event that reached s.Events), or s.Time. RunUntil returns an error, before
// running anything, if s does not check out: a negative or too large Time or Warmup, a Warmup
// not before Time, a name that is in no thread, declaration or group of the workload; and the
// error of [Machine.Run] if the run stopped on one. A machine runs until one Stop only: call
// RunUntil once, on a fresh machine (another call returns an error).
func (m *Machine) RunUntil(s Stop) (Ending, error) {
	if m.ranUntil {
		return Running, fmt.Errorf("sim: RunUntil called twice on one machine")
	}
	m.ranUntil = true
	if err := m.resolveStop(s); err != nil {
		return Running, err
	}
	until := int64(s.Time)
	if until == 0 {
		until = int64(MaxTime)
	}
	warm := int64(s.Warmup)
	for {
		if e := m.ended(); e != Running {
			m.ending = e
			break
		}
		next := m.q.top().t
		if warm > 0 && !m.warmed && next > warm {
			m.now = warm
			m.resetStats()
		}
		if next > until {
			m.now = until
			m.ending = TimeReached
			break
		}
		m.step()
	}
	if warm > 0 && !m.warmed {
		m.resetStats() // the run ended during the warm-up: nothing is measured
	}
	if m.ending == Canceled {
		return Canceled, context.Cause(s.Context)
	}
	return m.ending, m.err
}

// RunUntil builds a machine for w under p as cfg describes (see [New]), runs it until s says
// (see [Machine.RunUntil]) and returns the result, whose Ending says what ended it.
func RunUntil(cfg Config, p Policy, w *workload.Workload, s Stop) (*Result, error) {
	m, err := New(cfg, p, w)
	if err != nil {
		return nil, err
	}
	if _, err := m.RunUntil(s); err != nil {
		return nil, err
	}
	return m.Result(), nil
}
