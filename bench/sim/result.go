package sim

// This file implements Result, ThreadStats and CPUStats: the metrics of a run.

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/schedkit/schedkit/sched"
)

// ThreadStats are the metrics of one thread. Times are nanoseconds of simulated time.
type ThreadStats struct {
	// ID and Name identify the thread; Parent is its creator, or -1.
	ID     sched.ID
	Name   string
	Parent sched.ID
	// Start is when it was created; End when it exited, or -1 if it had not.
	Start, End int64
	// CPUTime is the time it spent on a CPU, including switch, migration and interrupt stalls.
	CPUTime int64
	// WaitTime is the time it spent runnable but not running (run-queue wait), including the
	// idle loop's exit of the CPU that picked it (Idle.ExitLatency): as in the kernels, a
	// thread's CPU time starts once the CPU runs it.
	WaitTime int64
	// Sleep is the time it spent sleeping or blocked.
	Sleep int64
	// Work is the work it did, in nanoseconds at full speed (speed 1024, no SMT sibling).
	Work int64
	// Voluntary counts the times it blocked or slept (nvcsw); Involuntary the times it was
	// preempted or yielded and another thread ran (nivcsw).
	Voluntary, Involuntary int64
	// Migrations counts the times it ran on another CPU than the one it ran on last.
	Migrations int64
	// Wakeups counts the times it was woken from sleep or block.
	Wakeups int64
	// Decl is the name of the declaration (thread or template) it was made from, and Group the
	// name of the control group it was created in ("" for the root group).
	Decl, Group string

	// Wakeup holds its wake-up latencies: from each wake-up (not a fork) to the moment it next
	// ran, plus, for a periodic thread, the wait before the first run of its first period.
	Wakeup Histogram
	// RunqWait holds its run-queue wait per dispatch: from becoming runnable (woken, forked,
	// preempted, yielding) to each time it was picked to run after another thread or the idle
	// loop (a thread preempted and picked again at the same instant is not dispatched again).
	RunqWait Histogram
	// Request holds its request latencies, schbench's measure: from each wake-up (or the
	// scheduled start of a period of an every) to the end of the work it then did, when it next
	// blocked, slept or exited.
	Request Histogram

	from int64 // the start of the measured interval, for Lifetime
	end  int64 // when the run ended, for Lifetime
}

// addRun credits a run that began d nanoseconds ago: CPU time, or, when d < 0 (the thread
// stopped before the idle exit it waited for was over), the part of the exit that did not pass,
// taken back from the wait it was credited to.
func addRun(cpuTime, waitTime *int64, d int64) {
	if d >= 0 {
		*cpuTime += d
	} else {
		*waitTime += d
	}
}

// A Series names one of a thread's latency histograms.
type Series uint8

const (
	// WakeupLatency is ThreadStats.Wakeup.
	WakeupLatency Series = iota
	// RunqWait is ThreadStats.RunqWait.
	RunqWait
	// RequestLatency is ThreadStats.Request.
	RequestLatency
	numSeries
)

var seriesNames = [numSeries]string{"wakeup", "runq-wait", "request"}

// String returns the series' name: "wakeup", "runq-wait" or "request".
func (s Series) String() string { return sched.EnumName(seriesNames[:], s, "series") }

// Histogram returns the thread's histogram of series s. It panics for an unknown series.
func (t *ThreadStats) Histogram(s Series) *Histogram {
	switch s {
	case WakeupLatency:
		return &t.Wakeup
	case RunqWait:
		return &t.RunqWait
	case RequestLatency:
		return &t.Request
	}
	panic(fmt.Sprintf("sim: unknown series %d", uint8(s)))
}

// Lifetime returns how long the thread existed during the measured interval of the run (after
// the warm-up): until its exit, or until the end of the run.
func (t *ThreadStats) Lifetime() int64 {
	end := t.end
	if t.End >= 0 {
		end = t.End
	}
	return max(end-max(t.Start, t.from), 0)
}

// Completion returns how long the thread took from its creation to its exit, or false if it
// had not exited.
func (t *ThreadStats) Completion() (int64, bool) {
	if t.End < 0 {
		return 0, false
	}
	return t.End - t.Start, true
}

// Share returns the fraction of its lifetime the thread spent on a CPU: 1 for a hog alone on its
// CPU, 0.5 for one of two hogs sharing a CPU fairly. It is 0 for a thread that lived no time.
func (t *ThreadStats) Share() float64 {
	if l := t.Lifetime(); l > 0 {
		return float64(t.CPUTime) / float64(l)
	}
	return 0
}

// Latencies returns the wake-to-run latencies of the thread, from each wake-up to the moment it
// next ran (a fork's first run is not a wake-up), in ascending order, and true; or nil and false
// if the thread was woken more than Config.ExactSamples times, beyond which only a histogram is
// kept. The slice belongs to the result.
//
// Deprecated: use t.Wakeup.Exact, whose budget is Config.ExactSamples.
func (t *ThreadStats) Latencies() ([]int64, bool) { return t.Wakeup.Exact() }

// Latency returns the p-th percentile of the wake-to-run latencies (p from 0 to 100; 100 is the
// maximum) by the nearest-rank method: the smallest latency at least p percent of them do not
// exceed. It reports false if the thread was never woken. It is t.Wakeup.Percentile(p): see
// [Histogram.Percentile] for the precision. Latency panics if p is outside 0..100.
func (t *ThreadStats) Latency(p float64) (int64, bool) { return t.Wakeup.Percentile(p) }

// Percentile returns the p-th percentile of sorted by the nearest-rank method (see
// [ThreadStats.Latency]), or false if sorted is empty. It panics if p is outside 0..100.
func Percentile(sorted []int64, p float64) (int64, bool) {
	milli := percentMilli(p)
	if len(sorted) == 0 {
		return 0, false
	}
	l := Histogram{exact: sorted, n: int64(len(sorted))}
	return l.percentile(milli), true
}

// CPUStats are the metrics of one CPU. Busy and Idle add up to the length of the measured
// interval (Result.End - Result.Start); Interrupt, Switch and IdleExit are parts of them.
type CPUStats struct {
	// Busy is the time the CPU had a thread, Idle the time it had none.
	Busy, Idle int64
	// Interrupt is the time clock interrupts took (Costs.Tick per interrupt).
	Interrupt int64
	// Switch is the time spent switching and refilling caches after migrations (Costs).
	Switch int64
	// Switches counts the context switches, including to and from the idle loop.
	Switches int64
	// IdleExit is the time spent waking from a deep idle state (Idle.ExitLatency), part of Busy.
	IdleExit int64
	// Ticks counts the clock interrupts by what they found the CPU doing, indexed by CPUState:
	// the sampling that FreeBSD's statclock does for kern.cp_time (see [Result.Accounting]).
	// Every CPU is sampled at the start of each clock interrupt, before the policy's Tick of any
	// CPU at that instant.
	Ticks [NumCPUStates]int64
}

// A Result is what a run measured, over the interval from Start to End.
type Result struct {
	// Policy is the policy's name.
	Policy string
	// Seed is the seed the run ran with (Config.Seed). The Result's JSON form leaves it out;
	// the runs document of [RunsSchema] has it.
	Seed uint64
	// Start is the beginning of the measured interval: 0, or the end of Stop.Warmup.
	Start int64
	// End is the time the run ended: the last exit, or the until of Run, or the instant a
	// condition of Stop came to hold.
	End int64
	// Ending says what ended the run.
	Ending Ending
	// TickHz is the rate of the clock interrupts the machine sampled CPUStats.Ticks at
	// (Policy.TickHz).
	TickHz int
	// Makespan is the time of the last exit, or End if some thread had not exited, minus Start.
	Makespan int64
	// Events is the number of events the machine handled.
	Events uint64
	// Exited counts the threads that exited; Messages the pipe messages received.
	Exited, Messages int64
	// Threads are the threads' metrics, indexed by ID.
	Threads []ThreadStats
	// CPUs are the CPUs' metrics, indexed by CPU id (zero for ids that are not on the machine).
	CPUs []CPUStats
	// Violations are the first 1000 violations of the checkers, in the order they were seen.
	Violations []Violation
	// Counts counts the violations of each invariant, all of them.
	Counts [NumInvariants]int
	// Trace is the trace, or nil with TraceOff.
	Trace *Trace
	// PolicyErr is what the policy reported through ErrReporter.Err when the result was taken:
	// it ran something other than what was asked. [Result.Err] includes it.
	PolicyErr error

	names *threadIndex // Thread's index, for Results this package made
}

// A threadIndex maps the names of a Result's threads to their indices in Threads, built by the
// first lookup. It indexes the first n threads; Thread searches instead once Threads has another
// length or a different thread at an index.
type threadIndex struct {
	once   sync.Once
	n      int
	byName map[string]int
}

// Result returns the metrics of the run so far, as of [Machine.Now], over the measured interval
// (after the warm-up of [Machine.RunUntil]). It copies what it needs, so that the machine can
// carry on, except the latency series' exact samples, which the machine sorts once and shares
// read-only: a Result sorts only the samples recorded since the last one and merges them in, so
// that reading a machine as it runs costs O(samples) a call rather than a sort of them all. Statistics are clipped to the run's end: a switch, migration, idle-exit or interrupt
// stall that lasts beyond Now counts only up to Now.
func (m *Machine) Result() *Result {
	from := m.statsFrom
	r := &Result{Policy: m.pol.Name(), Seed: m.cfg.Seed, Start: from, End: m.now, Makespan: m.now - from, Ending: m.ending,
		TickHz: int(m.tickHz), Events: m.events - m.eventsFrom, Messages: m.messages,
		Trace: m.trace, Violations: slices.Clone(m.viol.list), Counts: m.viol.count, names: &threadIndex{}}
	if m.live == 0 {
		r.Makespan = max(m.finished-from, 0)
	}
	if e, ok := m.pol.(ErrReporter); ok {
		r.PolicyErr = e.Err()
	}
	r.Threads = make([]ThreadStats, len(m.threads))
	for tid := range m.threads {
		t := &m.threads[tid]
		s := m.threadStats(tid)
		s.end, s.from = m.now, from
		switch t.state {
		case tRunning:
			addRun(&s.CPUTime, &s.WaitTime, m.now-t.since)
			s.Work += m.pendingWork(&m.cpus[t.cpu])
		case tRunnable:
			s.WaitTime += m.now - t.since
		case tBlocked:
			s.Sleep += m.now - t.since
		case tExited:
			// Events at the warm-up's last instant belong to the warm-up.
			if !m.warmed || s.End > from {
				r.Exited++
			}
		}
		r.Threads[tid] = s
	}
	r.CPUs = make([]CPUStats, len(m.cpus))
	for id := range m.cpus {
		c := &m.cpus[id]
		if !c.online {
			continue
		}
		s := c.st
		if c.busy {
			s.Busy += m.now - c.since
		} else {
			s.Idle += m.now - c.since
		}
		sw, ex, in := m.stallAfter(c)
		s.Switch -= sw
		s.IdleExit -= ex
		s.Interrupt -= in
		s.Ticks[c.tickState] += m.ticks() - c.tickMark - c.stallTicks
		r.CPUs[id] = s
	}
	return r
}

// threadStats returns thread tid's statistics so far, with snapshots of its latency series.
func (m *Machine) threadStats(tid int) ThreadStats {
	t := &m.threads[tid]
	c := &t.st
	p := m.progs[t.prog]
	s := ThreadStats{ID: sched.ID(tid), Name: p.threadName(t.instance), Parent: sched.ID(t.parent), Start: c.Start, End: c.End,
		CPUTime: c.CPUTime, WaitTime: c.WaitTime, Sleep: c.Sleep, Work: c.Work, Voluntary: c.Voluntary,
		Involuntary: c.Involuntary, Migrations: c.Migrations, Wakeups: c.Wakeups, Decl: p.name}
	if !m.cfg.FlattenGroups {
		s.Group = p.decl.Group
	}
	if need := len(m.threads) * int(numSeries); len(m.sorted) < need {
		m.sorted = append(m.sorted, make([]sortedSeries, need-len(m.sorted))...)
	}
	for k := range numSeries {
		*s.Histogram(k) = m.snapshotSeries(&t.lat[k], &m.sorted[tid*int(numSeries)+int(k)])
	}
	return s
}

// pendingWork returns the work c's running thread has done since it was last credited (see
// settle), without crediting it.
func (m *Machine) pendingWork(c *cpu) int64 {
	if c.cur < 0 || m.now <= c.segStart {
		return 0
	}
	hi, lo := bits.Mul64(uint64(m.now-c.segStart), uint64(c.rate))
	done := int64(hi<<54 | lo>>10)
	if t := &m.threads[c.cur]; t.remaining != forever {
		done = min(done, t.remaining)
	}
	return done
}

// stallAfter returns the parts of CPU c's current stall that lie after now: switch and
// migration, idle exit, and interrupt time. A stall is laid out as the idle exit, then the
// switch and migration, then the interrupts that came during it.
func (m *Machine) stallAfter(c *cpu) (sw, exit, intr int64) {
	if c.cur < 0 || c.segStart <= m.now {
		return 0, 0, 0
	}
	left := c.segStart - m.now
	intr = min(left, c.stallInt)
	left -= intr
	sw = min(left, c.pickSwitch)
	left -= sw
	exit = min(left, c.pickExit)
	return sw, exit, intr
}

// resetStats discards the statistics gathered so far: the warm-up ends at now. States in
// progress count from now on.
func (m *Machine) resetStats() {
	m.warmed, m.statsFrom, m.eventsFrom, m.messages = true, m.now, m.events, 0
	m.sorted = nil
	for tid := range m.threads {
		t := &m.threads[tid]
		s := &t.st
		s.CPUTime, s.WaitTime, s.Sleep, s.Work = 0, 0, 0, 0
		s.Voluntary, s.Involuntary, s.Migrations, s.Wakeups = 0, 0, 0, 0
		for k := range t.lat {
			m.resetSeries(&t.lat[k])
		}
		switch t.state {
		case tRunning:
			if t.since > m.now {
				s.WaitTime = t.since - m.now // the rest of the idle exit it waits for
			} else {
				s.CPUTime = t.since - m.now
			}
			// The work of the current segment up to now is not the interval's: the next
			// settle credits the whole segment.
			s.Work = -m.pendingWork(&m.cpus[t.cpu])
		case tRunnable:
			s.WaitTime = t.since - m.now
		case tBlocked:
			s.Sleep = t.since - m.now
		}
	}
	for id := range m.cpus {
		c := &m.cpus[id]
		sw, ex, in := m.stallAfter(c)
		c.st = CPUStats{Switch: sw, IdleExit: ex, Interrupt: in}
		c.tickMark, c.stallTicks = m.ticks(), 0
		if c.busy {
			c.st.Busy = c.since - m.now
		} else {
			c.st.Idle = c.since - m.now
		}
	}
}

// Finish completes a Result assembled outside the simulator — by bench/host from the kernel's
// counters, or by hand — so that it answers as one of [Machine.Result] does: each thread's
// Lifetime and Share run from no earlier than r.Start to its exit or r.End, and Thread takes
// constant time. Call it once Threads, Start and End are set; it changes no field.
func (r *Result) Finish() {
	for i := range r.Threads {
		r.Threads[i].from, r.Threads[i].end = r.Start, r.End
	}
	r.names = &threadIndex{}
}

// Throughput returns the threads that exited per second of the run (jobs per second of a make -j
// like workload) and the messages received per second (hackbench's measure).
func (r *Result) Throughput() (exits, messages float64) {
	if r.Makespan <= 0 {
		return 0, 0
	}
	s := float64(r.Makespan) / 1e9
	return float64(r.Exited) / s, float64(r.Messages) / s
}

// Err returns an error listing the policy's own error (PolicyErr) and the violations of the
// checkers, or nil if there were none: a test asserts a clean run with require.NoError(t, r.Err()).
func (r *Result) Err() error {
	total := 0
	for _, n := range r.Counts {
		total += n
	}
	if total == 0 {
		if r.PolicyErr != nil {
			return fmt.Errorf("sim: %s: %w", r.Policy, r.PolicyErr)
		}
		return nil
	}
	if r.PolicyErr != nil {
		return errors.Join(fmt.Errorf("sim: %s: %w", r.Policy, r.PolicyErr), r.violationErr(total))
	}
	return r.violationErr(total)
}

func (r *Result) violationErr(total int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "sim: %s: %d violations", r.Policy, total)
	for i, v := range r.Violations {
		if i == 5 {
			b.WriteString("; …")
			break
		}
		b.WriteString("; " + v.String())
	}
	return errors.New(b.String())
}

// Thread returns the metrics of the (first) thread named name, or false. For a Result that this
// package made ([Machine.Result], [Result.UnmarshalJSON]) it takes constant time after a first
// call that indexes the threads by name, and is safe for concurrent use; for a Result made by
// hand, or whose Threads changed length after that first call, it searches Threads. A thread
// renamed after the first call, with Threads' length unchanged, is not found by its new name.
func (r *Result) Thread(name string) (*ThreadStats, bool) {
	if x := r.names; x != nil {
		x.once.Do(func() {
			x.n = len(r.Threads)
			x.byName = make(map[string]int, x.n)
			for i := x.n - 1; i >= 0; i-- {
				x.byName[r.Threads[i].Name] = i
			}
		})
		if len(r.Threads) == x.n {
			i, ok := x.byName[name]
			if !ok {
				return nil, false
			}
			if r.Threads[i].Name == name {
				return &r.Threads[i], true
			}
		}
	}
	for i := range r.Threads {
		if r.Threads[i].Name == name {
			return &r.Threads[i], true
		}
	}
	return nil, false
}

// Pooled returns the histogram of series s pooled over the threads of r for which keep returns
// true, or over every thread when keep is nil: a group's or a template's latencies, or a whole
// run's. Merge the pooled histograms of several Results to pool across runs.
func (r *Result) Pooled(s Series, keep func(*ThreadStats) bool) *Histogram {
	h := &Histogram{}
	for i := range r.Threads {
		if t := &r.Threads[i]; keep == nil || keep(t) {
			h.Merge(t.Histogram(s))
		}
	}
	return h
}

// Group returns the histogram of series s pooled over the threads created in control group g
// ("" for the root group).
func (r *Result) Group(s Series, g string) *Histogram {
	return r.Pooled(s, func(t *ThreadStats) bool { return t.Group == g })
}

// Decl returns the histogram of series s pooled over the threads of declaration or template d.
func (r *Result) Decl(s Series, d string) *Histogram {
	return r.Pooled(s, func(t *ThreadStats) bool { return t.Decl == d })
}
